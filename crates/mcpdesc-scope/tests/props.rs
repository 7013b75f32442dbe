//! Property tests of the scope invariants (§4.12, §4.13, split) over generated
//! multi-revision documents.

use mcpdesc_core::{Feature, ProtocolRevision, RevisionSet};
use mcpdesc_scope::{
    DeclKind, LossAction, MergeInput, equivalent, merge, normalize_view, project,
    project_declaration, root_scope, split,
};
use mcpdesc_validate::{Validated, Validator};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn revset(bits: u8) -> RevisionSet {
    ProtocolRevision::ALL
        .into_iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, r)| r)
        .collect()
}

/// Raw material for one tool variant; `valid` decides whether fields are filtered by
/// the revision table (valid documents) or added regardless (documents to split).
#[derive(Debug, Clone)]
struct ToolSpec {
    description: Option<u8>,
    title: bool,
    annotations: bool,
    execution: bool,
    meta: bool,
    dialect: bool,
    security: u8,    // 0 omitted, 1 [], 2 [{}]
    elicitation: u8, // 0 none, 1 form, 2 url
}

fn tool_spec() -> impl Strategy<Value = ToolSpec> {
    (
        proptest::option::of(0u8..3),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0u8..3,
        0u8..3,
    )
        .prop_map(
            |(description, title, annotations, execution, meta, dialect, security, elicitation)| {
                ToolSpec {
                    description,
                    title,
                    annotations,
                    execution,
                    meta,
                    dialect,
                    security,
                    elicitation,
                }
            },
        )
}

/// A generated document: root set, and per tool name, an assignment of each root
/// revision to a variant (or to none) with that variant's fields.
#[derive(Debug, Clone)]
struct Gen {
    root_bits: u8,
    tools: Vec<(Vec<u8>, Vec<ToolSpec>)>, // per name: variant index per revision (>=3 = absent), specs
    root_security: u8,
}

fn arb_doc() -> impl Strategy<Value = Gen> {
    (
        1u8..32,
        proptest::collection::vec(
            (
                proptest::collection::vec(0u8..4, 5),
                proptest::collection::vec(tool_spec(), 3),
            ),
            0..4,
        ),
        0u8..3,
    )
        .prop_map(|(root_bits, tools, root_security)| Gen {
            root_bits,
            tools,
            root_security,
        })
}

fn security(code: u8) -> Option<Value> {
    match code {
        1 => Some(json!([])),
        2 => Some(json!([{}])),
        _ => None,
    }
}

fn all_have(scope: RevisionSet, f: Feature) -> bool {
    scope.iter().all(|r| r.has(f))
}

fn build(g: &Gen, valid: bool) -> Value {
    let root = revset(g.root_bits);
    let mut doc = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "generated", "version": "1.0.0"},
        "protocolVersions": root.to_strings(),
        "transports": [{"type": "stdio", "command": "generated"}],
    });
    if let Some(s) = security(g.root_security) {
        doc["security"] = s;
    }
    let mut tools = Vec::new();
    for (n, (assign, specs)) in g.tools.iter().enumerate() {
        for (vi, spec) in specs.iter().enumerate() {
            let scope: RevisionSet = root
                .iter()
                .filter(|r| assign[r.index()] as usize == vi)
                .collect();
            if scope.is_empty() {
                continue;
            }
            let ok = |f: Feature| !valid || all_have(scope, f);
            let mut t = Map::new();
            t.insert("name".into(), json!(format!("tool_{n}")));
            if scope != root {
                t.insert("protocolVersions".into(), json!(scope.to_strings()));
            }
            if spec.title && ok(Feature::Title) {
                t.insert("title".into(), json!(format!("Tool {n}")));
            }
            if let Some(d) = spec.description {
                t.insert("description".into(), json!(format!("variant {d}")));
            }
            let mut input = json!({"type": "object"});
            if spec.dialect && ok(Feature::ToolSchemaDialect) {
                input =
                    json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"});
            }
            t.insert("inputSchema".into(), input);
            if spec.annotations && ok(Feature::ToolAnnotations) {
                t.insert("annotations".into(), json!({"readOnlyHint": true}));
            }
            if spec.execution && ok(Feature::ToolExecution) {
                t.insert("execution".into(), json!({"taskSupport": "optional"}));
            }
            if spec.meta && ok(Feature::Meta) {
                t.insert("_meta".into(), json!({"example.com/k": n}));
            }
            if let Some(s) = security(spec.security) {
                t.insert("security".into(), s);
            }
            match spec.elicitation {
                1 => {
                    t.insert("elicitations".into(), json!([{"name": "confirm", "mode": "form", "message": "Sure?",
                        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}]));
                }
                2 if ok(Feature::ElicitationUrl) => {
                    t.insert(
                        "elicitations".into(),
                        json!([{"name": "login", "mode": "url", "message": "Log in."}]),
                    );
                }
                _ => {}
            }
            tools.push(Value::Object(t));
        }
    }
    if !tools.is_empty() {
        doc["tools"] = Value::Array(tools);
    }
    doc
}

/// Errors of the workspace validator.
fn validation_errors(doc: &Value) -> Vec<mcpdesc_core::Diagnostic> {
    mcpdesc_validate::validate_value(doc)
        .into_iter()
        .filter(|d| d.is_error())
        .collect()
}

/// The handle of a generated document the generator made valid.
fn valid(doc: &Value) -> Validated<'_> {
    Validator::new()
        .check(doc)
        .unwrap_or_else(|d| panic!("the generator made an invalid document: {d:?}\n{doc:#}"))
}

fn views(doc: &Value) -> Vec<(ProtocolRevision, Value)> {
    let doc = valid(doc);
    doc.revisions()
        .iter()
        .map(|r| (r, project(&doc, r).expect("in root").into_value()))
        .collect()
}

/// §4.12 steps 3–5 and 7 written out for the test, on any document (a document to
/// split is not valid, so it has no handle to project): root `protocolVersions` set to
/// `[rev]`, each top-level declaration projected on its own, emptied collections
/// omitted.
fn raw_view(doc: &Value, rev: ProtocolRevision) -> Value {
    let root = root_scope(doc);
    let mut view = doc.clone();
    view["protocolVersions"] = json!([rev.to_string()]);
    let obj = view.as_object_mut().expect("root");
    for kind in DeclKind::TOP_LEVEL {
        let Some(Value::Array(items)) = obj.get(kind.collection()) else {
            continue;
        };
        let kept: Vec<Value> = items
            .iter()
            .filter_map(|d| project_declaration(kind, d, root, rev))
            .collect();
        if kept.is_empty() {
            obj.shift_remove(kind.collection());
        } else {
            obj.insert(kind.collection().into(), Value::Array(kept));
        }
    }
    view
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// merge(project_V(D) for V) ≡ D, and P_V(merge(views)) ≡ view_V.
    #[test]
    fn merge_of_views_round_trips(g in arb_doc()) {
        let doc = build(&g, true);
        let vs = views(&doc);
        let inputs: Vec<MergeInput> = vs.iter().map(|(r, v)| MergeInput::new(r.to_string(), v.clone())).collect();
        let merged = merge(&inputs).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let source = valid(&doc);
        prop_assert!(equivalent(&merged, &source), "{:?}", mcpdesc_scope::first_difference(&merged, &source));
        for (rev, view) in &vs {
            let back = project(&merged, *rev).expect("in root");
            prop_assert_eq!(normalize_view(back.value()), normalize_view(view));
        }
        // Merging the merged document with one of its own views changes nothing.
        let again = merge(&[MergeInput::new("m", merged.value().clone()), inputs[0].clone()])
            .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert!(equivalent(&again, &merged));
    }

    /// A valid document is its own split.
    #[test]
    fn split_of_valid_is_identity(g in arb_doc()) {
        let doc = build(&g, true);
        let (s, losses) = split(&doc).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert!(losses.is_empty(), "{:?}", losses);
        prop_assert_eq!(s.value(), &doc);
    }

    /// split(D) projects to the views of D minus exactly the reported losses, is
    /// idempotent, keeps same-name scopes disjoint, and uses no more variants than
    /// revisions.
    #[test]
    fn split_views_are_views_minus_losses(g in arb_doc()) {
        let doc = build(&g, false);
        // `split` validates its result (the handle): the split document is valid.
        let (s, losses) = split(&doc).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let (s2, more) = split(s.value()).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert!(more.is_empty(), "{:?}", more);
        prop_assert_eq!(s2.value(), s.value());
        for rev in root_scope(&doc).iter() {
            let mut expected = raw_view(&doc, rev);
            // Apply the losses reported for `rev` to the original view.
            for l in losses.iter().filter(|l| l.revisions.contains(rev)) {
                prop_assert!(matches!(l.action, LossAction::Dropped | LossAction::Removed), "{l}");
                let toks = mcpdesc_core::pointer::tokens(&l.pointer);
                prop_assert_eq!(toks[0].as_str(), "tools");
                let idx: usize = toks[1].parse().expect("index");
                let name = doc["tools"][idx]["name"].clone();
                let tools = expected["tools"].as_array_mut().expect("tools in view");
                let Some(pos) = tools.iter().position(|t| t["name"] == name) else { continue };
                let rest = &toks[2..];
                match rest {
                    [] => { tools.remove(pos); }
                    [field] => { tools[pos].as_object_mut().expect("tool").shift_remove(field); }
                    [a, b] if a == "inputSchema" => { tools[pos][a.as_str()].as_object_mut().expect("schema").shift_remove(b); }
                    [a, i] if a == "elicitations" => {
                        let _ = i;
                        tools[pos].as_object_mut().expect("tool").shift_remove("elicitations");
                    }
                    other => prop_assert!(false, "unexpected loss pointer {:?}", other),
                }
            }
            if let Some(Value::Array(t)) = expected.get("tools") {
                if t.is_empty() {
                    expected.as_object_mut().expect("root").shift_remove("tools");
                }
            }
            let got = project(&s, rev).expect("in root");
            prop_assert_eq!(normalize_view(got.value()), normalize_view(&expected), "at {}", rev);
        }
        // Same-name variants are pairwise disjoint.
        let root = s.revisions();
        let tools = s.value().get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
        for (i, a) in tools.iter().enumerate() {
            for b in &tools[i + 1..] {
                if a["name"] == b["name"] {
                    let sa = mcpdesc_scope::decl_scope(a, root);
                    let sb = mcpdesc_scope::decl_scope(b, root);
                    prop_assert!(sa.is_disjoint(sb), "{a} / {b}");
                }
            }
        }
        prop_assert!(tools.len() <= 5 * g.tools.len().max(1) * 3);
        // The split document is valid by the revision table's lights: a second split
        // finds nothing (checked above), and the validator agrees (`split` returned
        // its handle).
    }

    /// Projection is idempotent, every view of a valid document is itself valid (the
    /// invariant that lets `project` return its view as a handle without validating
    /// it again), is
    /// single-revision (no `protocolVersions` on declarations, root = [V]), and the
    /// export of a view lists exactly the view's tools.
    #[test]
    fn views_are_idempotent_valid_and_flat(g in arb_doc()) {
        let doc = build(&g, true);
        prop_assert!(validation_errors(&doc).is_empty(), "{:?}", validation_errors(&doc));
        for (rev, view) in views(&doc) {
            let errs = validation_errors(&view);
            prop_assert!(errs.is_empty(), "{} view: {:?}", rev, errs);
            let again = project(&valid(&view), rev).expect("in root");
            prop_assert_eq!(normalize_view(again.value()), normalize_view(&view));
            prop_assert_eq!(&view["protocolVersions"], &json!([rev.to_string()]));
            let tools = view["tools"].as_array().cloned().unwrap_or_default();
            for t in &tools {
                prop_assert!(t.get("protocolVersions").is_none(), "{}", t);
            }
            let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
            let n = names.len();
            names.sort_unstable();
            names.dedup();
            prop_assert_eq!(names.len(), n, "duplicate tool names in the {} view", rev);
        }
    }
}
