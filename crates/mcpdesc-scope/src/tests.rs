//! Hand-written expectations for split and merge, from the revision tables of mcpdesc
//! 0.8.0 (§9.1 `title` since 2025-06-18, §9.2 `x-mcp-header` since 2026-07-28, §12.3
//! form vocabularies, §12.5 elicitation modes, §4.13 merge conflicts) and the contract
//! in [`split_declaration`]'s docs.

// A failed unwrap is a failed test, which is what we want here.
#![allow(clippy::unwrap_used)]

use crate::{
    DeclKind, LossAction, MergeInput, SplitLoss, SplitPolicy, merge, merge_views, restrict,
};
use crate::{Variant, split_declaration};
use mcpdesc_core::{Feature, ProtocolRevision, RevisionSet};
use serde_json::{Value, json};

use ProtocolRevision::*;

fn revs(list: &[ProtocolRevision]) -> RevisionSet {
    list.iter()
        .fold(RevisionSet::EMPTY, |s, r| s.union(RevisionSet::single(*r)))
}

fn split_tool(tool: &Value, parent: RevisionSet) -> Vec<Variant> {
    split_declaration(
        DeclKind::Tool,
        tool,
        parent,
        &Value::Null,
        &SplitPolicy::default(),
    )
}

fn dropped(pointer: &str, at: &[ProtocolRevision], feature: Feature) -> SplitLoss {
    SplitLoss {
        pointer: pointer.into(),
        revisions: revs(at),
        action: LossAction::Dropped,
        feature: Some(feature),
    }
}

/// A field no revision of the scope defines is dropped and reported; the variant
/// covers the whole inherited scope, so it states no `protocolVersions` of its own.
#[test]
fn a_field_undefined_in_the_whole_scope_is_dropped_and_reported() {
    let tool = json!({"name": "t", "title": "T", "inputSchema": {"type": "object"}});
    let got = split_tool(&tool, revs(&[V2025_03_26]));
    assert_eq!(
        got,
        [Variant {
            scope: revs(&[V2025_03_26]),
            value: json!({"name": "t", "inputSchema": {"type": "object"}}),
            losses: vec![dropped("/title", &[V2025_03_26], Feature::Title)],
        }]
    );
}

/// Two revisions with different maximal forms make two variants, each naming its scope.
#[test]
fn each_variant_of_a_split_names_its_own_scope() {
    let tool = json!({"name": "t", "title": "T", "inputSchema": {"type": "object"}});
    let got = split_tool(&tool, revs(&[V2025_03_26, V2025_06_18]));
    assert_eq!(
        got,
        [
            Variant {
                scope: revs(&[V2025_03_26]),
                value: json!({"name": "t", "protocolVersions": ["2025-03-26"],
                              "inputSchema": {"type": "object"}}),
                losses: vec![dropped("/title", &[V2025_03_26], Feature::Title)],
            },
            Variant {
                scope: revs(&[V2025_06_18]),
                value: json!({"name": "t", "protocolVersions": ["2025-06-18"], "title": "T",
                              "inputSchema": {"type": "object"}}),
                losses: vec![],
            },
        ]
    );
}

fn confirm_elicitation() -> Value {
    json!({
        "name": "confirm",
        "mode": "form",
        "message": "Proceed?",
        "requestedSchema": {
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"]
        }
    })
}

/// A declaration valid throughout its scope comes back unchanged as the only variant,
/// nested elicitations included — its own `protocolVersions` is not rewritten to the
/// (narrower) effective scope, and nothing is reported lost.
#[test]
fn a_valid_declaration_with_elicitations_comes_back_unchanged() {
    let tool = json!({
        "name": "deploy",
        "protocolVersions": ["2025-06-18", "2025-11-25"],
        "inputSchema": {"type": "object"},
        "elicitations": [confirm_elicitation()]
    });
    let got = split_tool(&tool, revs(&[V2025_11_25]));
    assert_eq!(
        got,
        [Variant {
            scope: revs(&[V2025_11_25]),
            value: tool,
            losses: vec![],
        }]
    );
}

/// §12.5: a URL-mode elicitation cannot exist before 2025-11-25. Inside a tool whose
/// scope starts earlier it is narrowed to 2025-11-25, and its removal at 2025-06-18 is
/// reported with the feature that forced it; the tool itself is not split.
#[test]
fn a_nested_url_elicitation_is_narrowed_and_its_removal_reported() {
    let login = json!({"name": "login", "mode": "url", "message": "Sign in",
                       "url": "https://example.com/login"});
    let tool = json!({"name": "sync", "inputSchema": {"type": "object"},
                      "elicitations": [login]});
    let parent = revs(&[V2025_06_18, V2025_11_25]);
    let mut narrowed = tool.clone();
    narrowed["elicitations"][0]["protocolVersions"] = json!(["2025-11-25"]);
    assert_eq!(
        split_tool(&tool, parent),
        [Variant {
            scope: parent,
            value: narrowed,
            losses: vec![SplitLoss {
                pointer: "/elicitations/0".into(),
                revisions: revs(&[V2025_06_18]),
                action: LossAction::Removed,
                feature: Some(Feature::ElicitationUrl),
            }],
        }]
    );
}

/// Only primitives carry nested elicitations: a member named `elicitations` on any
/// other declaration is not split, it is carried over unchanged like everything split
/// does not touch.
#[test]
fn a_transport_is_not_searched_for_nested_elicitations() {
    let transport = json!({"type": "stdio", "command": "svc",
                           "elicitations": [{"name": "login", "mode": "url",
                                             "message": "Sign in"}]});
    let parent = revs(&[V2025_06_18]);
    let got = split_declaration(
        DeclKind::Transport,
        &transport,
        parent,
        &Value::Null,
        &SplitPolicy::default(),
    );
    assert_eq!(
        got,
        [Variant {
            scope: parent,
            value: transport,
            losses: vec![],
        }]
    );
}

fn restrict_elicitation(e: &Value, rev: ProtocolRevision) -> Option<(Value, Vec<SplitLoss>)> {
    restrict(
        DeclKind::Elicitation,
        e,
        rev,
        &Value::Null,
        &SplitPolicy::default(),
    )
}

/// §12.5: form mode exists from 2025-06-18, URL mode from 2025-11-25.
#[test]
fn elicitation_modes_exist_from_their_revisions() {
    let form = confirm_elicitation();
    assert_eq!(
        restrict_elicitation(&form, V2025_06_18),
        Some((form.clone(), vec![]))
    );
    let url = json!({"name": "login", "mode": "url", "message": "Sign in",
                     "url": "https://example.com/login"});
    assert_eq!(restrict_elicitation(&url, V2025_06_18), None);
    assert_eq!(
        restrict_elicitation(&url, V2025_11_25),
        Some((url.clone(), vec![]))
    );
}

/// §12.3: 2025-06-18 has no multi-select arrays and no titled `oneOf` enums, so a form
/// asking for either cannot exist there (each alone is enough); 2025-11-25 has both.
#[test]
fn a_form_with_a_multi_select_or_a_titled_enum_does_not_exist_before_2025_11_25() {
    let with = |prop: Value| {
        json!({"name": "pick", "mode": "form", "message": "Pick",
               "requestedSchema": {"type": "object", "properties": {"p": prop}}})
    };
    let multi = with(json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}));
    let titled = with(json!({"type": "string",
                             "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}));
    for form in [&multi, &titled] {
        assert_eq!(restrict_elicitation(form, V2025_06_18), None, "{form}");
        assert_eq!(
            restrict_elicitation(form, V2025_11_25),
            Some((form.clone(), vec![])),
            "{form}"
        );
    }
}

fn restrict_tool(tool: &Value, rev: ProtocolRevision) -> (Value, Vec<SplitLoss>) {
    restrict(
        DeclKind::Tool,
        tool,
        rev,
        &Value::Null,
        &SplitPolicy::default(),
    )
    .unwrap()
}

/// §9.4: an interaction example with an elicitation step cannot exist before
/// elicitation (2025-06-18); the example goes, the others stay.
#[test]
fn an_interaction_example_with_an_elicitation_step_goes_before_elicitation() {
    let result = json!({"content": [{"type": "text", "text": "done"}]});
    let tool = json!({
        "name": "deploy",
        "inputSchema": {"type": "object"},
        "interactionExamples": {
            "asks": {
                "input": {},
                "steps": [{"type": "elicitation",
                           "request": {"mode": "form", "message": "Proceed?",
                                       "requestedSchema": {"type": "object",
                                           "properties": {"ok": {"type": "boolean"}}}},
                           "response": {"action": "accept", "content": {"ok": true}}}],
                "result": result
            },
            "silent": {"input": {}, "steps": [], "result": result}
        }
    });
    let (got, losses) = restrict_tool(&tool, V2025_03_26);
    let mut want = tool.clone();
    want["interactionExamples"]
        .as_object_mut()
        .unwrap()
        .shift_remove("asks");
    assert_eq!(got, want);
    assert_eq!(
        losses,
        [dropped(
            "/interactionExamples/asks",
            &[V2025_03_26],
            Feature::ElicitationForm
        )]
    );
}

/// §9.2: `x-mcp-header` exists from 2026-07-28; before, it is stripped from every
/// property reachable through `properties` chains, nested ones included.
#[test]
fn mcp_header_annotations_are_stripped_before_2026_07_28() {
    let tool = json!({
        "name": "get",
        "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "X-Region"},
            "filter": {"type": "object", "properties": {
                "id": {"type": "string", "x-mcp-header": "X-Id"}}}}}
    });
    let (got, losses) = restrict_tool(&tool, V2025_11_25);
    assert_eq!(
        got,
        json!({
            "name": "get",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string"},
                "filter": {"type": "object", "properties": {"id": {"type": "string"}}}}}
        })
    );
    assert_eq!(
        losses,
        [
            dropped(
                "/inputSchema/properties/region/x-mcp-header",
                &[V2025_11_25],
                Feature::McpHeader
            ),
            dropped(
                "/inputSchema/properties/filter/properties/id/x-mcp-header",
                &[V2025_11_25],
                Feature::McpHeader
            ),
        ]
    );
    assert_eq!(restrict_tool(&tool, V2026_07_28), (tool, vec![]));
}

/// The walk goes at least 64 `properties` levels below the root's own properties.
#[test]
fn mcp_header_stripping_reaches_64_levels_down() {
    let mut leaf = json!({"type": "string", "x-mcp-header": "X-Deep"});
    for _ in 0..64 {
        leaf = json!({"type": "object", "properties": {"p": leaf}});
    }
    let tool = json!({"name": "deep", "inputSchema": {"type": "object",
                                                     "properties": {"p": leaf}}});
    let (got, losses) = restrict_tool(&tool, V2025_11_25);
    assert_eq!(losses.len(), 1, "{losses:?}");
    assert!(!got.to_string().contains("x-mcp-header"));
}

fn doc(rev: &str, extra: Value) -> Value {
    let mut d = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "svc", "version": "1.0.0"},
        "protocolVersions": [rev],
        "transports": [{"type": "stdio", "command": "svc"}],
        "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]
    });
    for (k, v) in extra.as_object().unwrap() {
        d[k] = v.clone();
    }
    d
}

/// §4.13: unscoped metadata must be equal in every input; a difference is a conflict
/// at its pointer naming both inputs.
#[test]
fn merge_refuses_differing_unscoped_metadata() {
    let a = doc("2025-06-18", json!({}));
    let b = doc(
        "2025-11-25",
        json!({"info": {"name": "svc", "version": "2.0.0"}}),
    );
    let errs = merge(&[MergeInput::new("a.json", a), MergeInput::new("b.json", b)]).unwrap_err();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].code, "merge-conflict");
    assert_eq!(errs[0].pointer, "/info");
    assert!(
        errs[0].message.contains("a.json") && errs[0].message.contains("b.json"),
        "{}",
        errs[0].message
    );
}

/// A producer's views may carry empty collections (a server that lists no tools):
/// [`merge_views`] omits what is empty in the result, which §3.3 requires, instead of
/// copying the first view's empty `tools` and `components` through.
#[test]
fn merged_views_omit_empty_collections_and_components() {
    let empty = json!({"tools": [], "components": {}});
    let mut a = doc("2025-06-18", empty.clone());
    let mut b = doc("2025-11-25", empty);
    for v in [&mut a, &mut b] {
        v.as_object_mut().unwrap().shift_remove("protocolVersions");
    }
    let merged = merge_views(vec![(V2025_06_18, a), (V2025_11_25, b)]).unwrap();
    assert_eq!(
        merged.value(),
        &json!({
            "mcpdesc": "0.8.0",
            "info": {"name": "svc", "version": "1.0.0"},
            "protocolVersions": ["2025-06-18", "2025-11-25"],
            "transports": [{"type": "stdio", "command": "svc"}]
        })
    );
}
