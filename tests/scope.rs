//! Workspace-level tests of protocol scopes: projection (§4.12), merge (§4.13), split
//! and the tools/list export, against hand-written expectations in
//! `tests/fixtures/scope/` and invariants over every valid official fixture/example.

use mcpdesc_core::{ProtocolRevision, RevisionSet};
use mcpdesc_scope::{
    DeclKind, MergeInput, ProjectOptions, equivalent, export_tools_list, merge, normalize_view,
    project, project_with, root_scope, split,
};
use mcpdesc_tests::{fixture, load_description as load, official_valid_documents, snapshot_dir};
use mcpdesc_validate::{Validated, Validator};
use serde_json::Value;

use ProtocolRevision::*;

fn scope_fixture(rel: &str) -> Value {
    load(&fixture(&format!("scope/{rel}")))
}

fn codes(diags: &[mcpdesc_core::Diagnostic]) -> Vec<&str> {
    diags.iter().map(|d| d.code.as_str()).collect()
}

/// The validator's handle of a document the test knows to be valid.
fn valid(doc: &Value) -> Validated<'_> {
    Validator::new()
        .check(doc)
        .unwrap_or_else(|d| panic!("invalid: {d:#?}"))
}

/// Whether the workspace validator accepts `doc` (no error diagnostics).
fn validates(doc: &Value) -> Result<(), String> {
    let errs: Vec<String> = mcpdesc_validate::validate_value(doc)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect();
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

// ---------------------------------------------------------------- projection

#[test]
fn project_matches_hand_written_views() {
    let input = scope_fixture("project/input.json");
    let got = project(&valid(&input), V2025_06_18)
        .expect("projects")
        .into_value();
    assert_eq!(got, scope_fixture("project/expected-2025-06-18.json"));
    // Key order of the root is preserved, too.
    let keys: Vec<&String> = got.as_object().expect("object").keys().collect();
    let want = scope_fixture("project/expected-2025-06-18.json");
    let want_keys: Vec<&String> = want.as_object().expect("object").keys().collect();
    assert_eq!(keys, want_keys);

    let pruned = project_with(
        &valid(&input),
        V2025_11_25,
        ProjectOptions {
            prune_components: true,
        },
    )
    .expect("projects");
    assert_eq!(
        pruned.value(),
        &scope_fixture("project/expected-2025-11-25-pruned.json")
    );
}

#[test]
fn project_rejects_a_revision_outside_the_document() {
    let input = scope_fixture("project/input.json");
    let err = project(&valid(&input), V2026_07_28).expect_err("2026-07-28 is not covered");
    assert_eq!(err.code, "revision-not-in-document");
    assert_eq!(err.pointer, "/protocolVersions");
}

// ---------------------------------------------------------------- merge

fn merge_inputs(names: &[&str]) -> Vec<MergeInput> {
    names
        .iter()
        .map(|n| MergeInput::new(*n, scope_fixture(&format!("merge/{n}"))))
        .collect()
}

#[test]
fn merge_collapses_equal_declarations_and_keeps_variants() {
    let inputs = merge_inputs(&["a-2025-06-18.json", "b-2025-11-25.json"]);
    let got = merge(&inputs).expect("merges");
    // Exact equality: first-appearance order of declarations and canonical scopes.
    assert_eq!(got.value(), &scope_fixture("merge/expected.json"));
    // §4.13 round trip: P_V(merge(...)) ≡ D_V.
    for input in &inputs {
        for rev in root_scope(&input.document).iter() {
            let view = project(&got, rev).expect("projects");
            assert_eq!(
                normalize_view(view.value()),
                normalize_view(&input.document),
                "{rev}"
            );
        }
    }
}

#[test]
fn merge_conflicts_name_both_sides() {
    let err = merge(&merge_inputs(&[
        "a-2025-06-18.json",
        "conflict-security.json",
    ]))
    .expect_err("security differs");
    assert_eq!(codes(&err), ["merge-conflict"]);
    assert_eq!(err[0].pointer, "/security");
    assert!(
        err[0].message.contains("a-2025-06-18.json")
            && err[0].message.contains("conflict-security.json")
    );

    let err = merge(&merge_inputs(&[
        "a-2025-06-18.json",
        "conflict-same-revision.json",
    ]))
    .expect_err("views differ");
    assert_eq!(codes(&err), ["merge-conflict"]);
    assert_eq!(err[0].pointer, "/tools/0/title");
    assert!(
        err[0]
            .message
            .contains("a-2025-06-18.json at /tools/0/title"),
        "{}",
        err[0].message
    );
    assert!(
        err[0]
            .message
            .contains("conflict-same-revision.json at /tools/0/title"),
        "{}",
        err[0].message
    );
}

#[test]
fn merge_keeps_security_forms_distinct() {
    let base = scope_fixture("merge/a-2025-06-18.json");
    for (a, b) in [("[]", "[{}]"), ("[]", "omit"), ("[{}]", "omit")] {
        let set = |doc: &mut Value, s: &str| {
            let o = doc.as_object_mut().expect("object");
            if s == "omit" {
                o.shift_remove("security");
            } else {
                o.insert("security".into(), serde_json::from_str(s).expect("json"));
            }
        };
        let mut x = base.clone();
        set(&mut x, a);
        let mut y = base.clone();
        y["protocolVersions"] = serde_json::json!(["2025-11-25"]);
        set(&mut y, b);
        let err = merge(&[MergeInput::new("x", x), MergeInput::new("y", y)])
            .expect_err(&format!("{a} vs {b}"));
        assert_eq!(codes(&err), ["merge-conflict"], "{a} vs {b}");
    }
}

// ---------------------------------------------------------------- split

#[test]
fn split_matches_hand_written_variants() {
    let input = scope_fixture("split/input.json");
    // `split` validates its result once: the expected variants are valid.
    let (got, losses) = split(&input).expect("splits");
    assert_eq!(got.value(), &scope_fixture("split/expected.json"));
    let rendered: Vec<String> = losses.iter().map(ToString::to_string).collect();
    insta::with_settings!({snapshot_path => snapshot_dir("scope")}, {
        insta::assert_yaml_snapshot!("split_losses", rendered);
    });
    // Splitting a split document changes nothing.
    let (again, more) = split(got.value()).expect("splits");
    assert_eq!(again.value(), got.value());
    assert!(more.is_empty(), "{more:?}");
}

#[test]
fn split_wraps_non_object_output_roots_when_asked() {
    let tool = serde_json::json!({
        "name": "list", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "array", "items": {"type": "string"}},
        "examples": {"two": {"input": {}, "result": {"content": [{"type": "text", "text": "a, b"}], "structuredContent": ["a", "b"]}}}
    });
    let scope: RevisionSet = [V2025_06_18, V2025_11_25, V2026_07_28]
        .into_iter()
        .collect();
    let variants = mcpdesc_scope::split_tool_output_root(&tool, scope, &Value::Null);
    let got: Vec<(String, Value)> = variants
        .iter()
        .map(|v| (v.scope.to_string(), v.value.clone()))
        .collect();
    insta::with_settings!({snapshot_path => snapshot_dir("scope")}, {
        insta::assert_json_snapshot!("split_wrap_output_root", got);
    });
    assert_eq!(variants.len(), 2);
    assert_eq!(
        variants[0].value["outputSchema"]["properties"]["result"]["type"],
        "array"
    );
    assert_eq!(
        variants[0].value["examples"]["two"]["result"]["structuredContent"],
        serde_json::json!({"result": ["a", "b"]})
    );
    assert_eq!(
        variants[1].value["examples"]["two"]["result"]["resultType"],
        "complete"
    );
}

#[test]
fn wrapping_keeps_defs_and_local_refs_resolvable() {
    // A wrapped root keeps `$schema`/`$defs` at the wrapper's root and moves other local
    // references under `/properties/result`, so every `$ref` still resolves.
    let tool = serde_json::json!({
        "name": "list", "inputSchema": {"type": "object"},
        "outputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "array",
            "items": {"$ref": "#/$defs/Pet"},
            "contains": {"$ref": "#/items"},
            "$defs": {"Pet": {"type": "object", "properties": {"kids": {"$ref": "#"}}}}
        }
    });
    let scope: RevisionSet = [V2025_11_25, V2026_07_28].into_iter().collect();
    let variants = mcpdesc_scope::split_tool_output_root(&tool, scope, &Value::Null);
    assert_eq!(variants.len(), 2);
    let wrapped = &variants[0].value["outputSchema"];
    assert_eq!(
        wrapped,
        &serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"Pet": {"type": "object", "properties": {"kids": {"$ref": "#/properties/result"}}}},
            "type": "object",
            "properties": {"result": {
                "type": "array",
                "items": {"$ref": "#/$defs/Pet"},
                "contains": {"$ref": "#/properties/result/items"}
            }},
            "required": ["result"]
        })
    );
    // The 2026-07-28 variant keeps the native root untouched.
    assert_eq!(variants[1].value["outputSchema"], tool["outputSchema"]);
}

// ---------------------------------------------------------------- export

#[test]
fn export_tools_list_matches_hand_written_results() {
    let input = scope_fixture("export/input.json");
    for (rev, file) in [
        (V2025_06_18, "export/expected-2025-06-18.json"),
        (V2025_11_25, "export/expected-2025-11-25.json"),
    ] {
        assert_eq!(
            export_tools_list(&valid(&input), rev).expect("exports"),
            scope_fixture(file),
            "{rev}"
        );
    }
}

// ---------------------------------------------------------------- invariants over official fixtures

fn views(doc: &Validated<'_>) -> Vec<(ProtocolRevision, Value)> {
    doc.revisions()
        .iter()
        .map(|r| (r, project(doc, r).expect("in root").into_value()))
        .collect()
}

#[test]
fn invariants_hold_for_every_valid_official_document() {
    let docs = official_valid_documents();
    assert!(docs.len() >= 40, "found {} documents", docs.len());
    let mut validator_disagrees = Vec::new();
    for (name, doc) in &docs {
        let Ok(handle) = Validator::new().check(doc) else {
            validator_disagrees.push(name.clone());
            continue;
        };
        let vs = views(&handle);
        let inputs: Vec<MergeInput> = vs
            .iter()
            .map(|(r, v)| MergeInput::new(format!("{name}@{r}"), v.clone()))
            .collect();
        // merge(project_V(D) for V) ≡ D; merge validates each view and its result.
        let merged = merge(&inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(
            equivalent(&merged, &handle),
            "{name}: {:?}",
            mcpdesc_scope::first_difference(&merged, &handle)
        );
        // P_V(merge(views)) ≡ view_V
        for (rev, view) in &vs {
            let back = project(&merged, *rev).expect("in root");
            assert_eq!(
                normalize_view(back.value()),
                normalize_view(view),
                "{name} at {rev}"
            );
        }
        // A valid document needs no split.
        let (s, losses) = split(doc).expect("splits");
        assert!(
            losses.is_empty(),
            "{name}: {:#?}",
            losses.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
        assert_eq!(s.value(), doc, "{name}");
        // Valid source ⇒ valid view: `project` returns its view as a handle without
        // validating it, on the strength of this check.
        for (rev, view) in &vs {
            validates(view).unwrap_or_else(|e| panic!("{name}: view at {rev} invalid:\n{e}"));
        }
    }
    if !validator_disagrees.is_empty() {
        eprintln!(
            "note: the validator rejects these official valid documents: {validator_disagrees:?}"
        );
    }
}

/// Official invalid fixtures whose only problem is a revision-scoped field: split
/// must turn each into a document the validator accepts.
#[test]
fn split_repairs_revision_scoped_invalid_fixtures() {
    for name in [
        "non-object-output-schema-before-2026.json",
        "revision-inapplicable-execution.json",
        "revision-inapplicable-tool-schema-dialect.json",
        "revision-inapplicable-mcp-header.json",
        "revision-incompatible-tool-example.json",
        "revision-incompatible-client-capability-requirements.json",
        "elicitation-version-mismatch.json",
    ] {
        let doc = load(&fixture(&format!("spec/fixtures/expected-invalid/{name}")));
        // `split` validates its result: Ok is the validator's verdict.
        let (out, losses) = split(&doc).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(!losses.is_empty(), "{name}: nothing reported");
        assert_ne!(out.value(), &doc, "{name}");
    }
}

#[test]
fn decl_kinds_cover_the_scoped_collections_of_section_4_10() {
    let names: Vec<&str> = DeclKind::TOP_LEVEL.iter().map(|k| k.collection()).collect();
    assert_eq!(
        names,
        [
            "transports",
            "capabilities",
            "tools",
            "resources",
            "resourceTemplates",
            "prompts"
        ]
    );
}

/// §15's data model has one number: `1` and `1.0` are one value. Merge collapses two
/// views that differ only in that spelling into one declaration, split and the
/// equivalence agree, and diff reports no change (expectations written by hand).
#[test]
fn one_and_one_point_zero_are_one_value_to_merge_split_and_diff() {
    let doc = |max: Value, revs: &[&str]| -> Value {
        serde_json::json!({
            "mcpdesc": "0.8.0",
            "info": {"name": "eq", "version": "1.0.0"},
            "protocolVersions": revs,
            "tools": [{"name": "t", "description": "d", "inputSchema": {
                "type": "object",
                "properties": {"n": {"type": "number", "maximum": max}}
            }}]
        })
    };
    let (one, one_f) = (serde_json::json!(1), serde_json::json!(1.0));
    assert_ne!(one, one_f, "serde_json keeps the spellings apart");
    let both = ["2025-06-18", "2025-11-25"];

    // merge: one declaration for both revisions, none scoped to a revision.
    let merged = merge(&[
        MergeInput::new("a", doc(one.clone(), &["2025-06-18"])),
        MergeInput::new("b", doc(one_f.clone(), &["2025-11-25"])),
    ])
    .expect("merges");
    let tools = merged.value()["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1, "{tools:#?}");
    assert!(tools[0].get("protocolVersions").is_none(), "{tools:#?}");

    // equivalence (merge's and split's normal form): the two spellings are equivalent.
    let (a, b) = (doc(one.clone(), &both), doc(one_f.clone(), &both));
    assert!(mcpdesc_scope::equivalent(
        &mcpdesc_tests::valid(&a),
        &mcpdesc_tests::valid(&b)
    ));

    // split: two per-revision declarations differing only in spelling are the same
    // description as the one unscoped declaration.
    let mut scoped = doc(one.clone(), &both);
    let t0 = scoped["tools"][0].clone();
    let mut t1 = t0.clone();
    t1["inputSchema"]["properties"]["n"]["maximum"] = one_f.clone();
    let mut t0 = t0;
    t0["protocolVersions"] = serde_json::json!(["2025-06-18"]);
    t1["protocolVersions"] = serde_json::json!(["2025-11-25"]);
    scoped["tools"] = serde_json::json!([t0, t1]);
    let (split_doc, losses) = split(&scoped).expect("splits");
    assert!(losses.is_empty(), "{losses:#?}");
    assert!(mcpdesc_scope::equivalent(
        &split_doc,
        &mcpdesc_tests::valid(&a)
    ));

    // diff: no change at all.
    let (va, vb) = (
        Validator::new().check(&a).expect("valid"),
        Validator::new().check(&b).expect("valid"),
    );
    let report = mcpdesc_diff::diff(&va, &vb, &Default::default()).expect("diffs");
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}
