//! OpenAPI Overlays (`import openapi --overlay`): the Overlay Specification's own
//! examples and compliant sets (their documented results are the oracle), its official
//! pass/fail documents (accepted / rejected with a line:column), and hand-written
//! expectations for curating the bundled petstore: rename, re-describe, tag, `x-mcp`
//! hints, removal, RFC 9535 filters, an unmatched target, malformed overlays, and the
//! positions of spec diagnostics after an overlay changed the spec.

use mcpdesc_core::{Diagnostic, Limits, Severity};
use mcpdesc_openapi::{ImportError, ImportOptions, Overlay};
use mcpdesc_tests::fixture;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A YAML file as JSON, through serde_yaml (not our decoders): integer keys such as
/// `200:` become strings, as OpenAPI means them.
fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let y: serde_yaml::Value =
        serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    fn conv(y: serde_yaml::Value) -> Value {
        use serde_yaml::Value as Y;
        match y {
            Y::Null => Value::Null,
            Y::Bool(b) => Value::Bool(b),
            Y::Number(n) => serde_json::to_value(&n).expect("number"),
            Y::String(s) => Value::String(s),
            Y::Sequence(s) => Value::Array(s.into_iter().map(conv).collect()),
            Y::Mapping(m) => Value::Object(
                m.into_iter()
                    .map(|(k, v)| {
                        let k = match k {
                            Y::String(s) => s,
                            Y::Number(n) => n.to_string(),
                            Y::Bool(b) => b.to_string(),
                            other => panic!("key {other:?}"),
                        };
                        (k, conv(v))
                    })
                    .collect(),
            ),
            Y::Tagged(t) => conv(t.value),
        }
    }
    conv(y)
}

fn overlay(path: &Path) -> (Overlay, Vec<Diagnostic>) {
    let bytes = std::fs::read(path).expect("overlay");
    Overlay::from_bytes(&path.display().to_string(), &bytes, &Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e:#?}", path.display()))
}

fn overlay_errors(path: &Path) -> Vec<Diagnostic> {
    let bytes = std::fs::read(path).expect("overlay");
    match Overlay::from_bytes(&path.display().to_string(), &bytes, &Limits::default()) {
        Ok(_) => panic!("{}: accepted", path.display()),
        Err(e) => e,
    }
}

fn dirs(rel: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixture(rel))
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .collect();
    out.sort();
    out
}

/// Applies `overlay.yaml` to `openapi.yaml` and compares with `output.yaml`.
fn check_triple(dir: &Path) {
    let (o, warnings) = overlay(&dir.join("overlay.yaml"));
    assert!(warnings.is_empty(), "{}: {warnings:#?}", dir.display());
    let mut doc = yaml(&dir.join("openapi.yaml"));
    let report = o
        .apply(&mut doc)
        .unwrap_or_else(|e| panic!("{}: {e:#?}", dir.display()));
    assert_eq!(report.unmatched, 0, "{}: {report:#?}", dir.display());
    let expected = yaml(&dir.join("output.yaml"));
    assert_eq!(
        doc,
        expected,
        "{}:\n{}",
        dir.display(),
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    );
}

#[test]
fn the_overlay_repository_compliant_sets() {
    let sets = dirs("overlay/compliant-sets");
    assert_eq!(sets.len(), 8);
    for dir in sets {
        check_triple(&dir);
    }
}

#[test]
fn the_specification_examples_with_results() {
    let sets = dirs("overlay/spec-examples");
    assert_eq!(sets.len(), 4);
    for dir in sets {
        check_triple(&dir);
    }
}

#[test]
fn the_official_pass_documents_are_accepted_and_fail_documents_rejected_with_positions() {
    for v in ["v1.0", "v1.1"] {
        for path in dirs(&format!("overlay/schema-tests/{v}/pass")) {
            if path.ends_with("actions-traits-example.yaml") {
                // Valid for the JSON Schema (which checks only `^\$`), but its target
                // `$.paths.*.get[?@.x-oai-traits.paged]` is no RFC 9535 query: a
                // member-name shorthand cannot contain `-` (§2.5.1.1), and the
                // specification requires RFC 9535. Rejected where the target is.
                let e = overlay_errors(&path);
                assert_eq!(e.len(), 1, "{e:#?}");
                assert_eq!(
                    (e[0].code.as_str(), e[0].pointer.as_str(), e[0].line),
                    ("overlay-jsonpath-invalid", "/actions/0/target", Some(6))
                );
                continue;
            }
            overlay(&path);
        }
        let fails = dirs(&format!("overlay/schema-tests/{v}/fail"));
        assert!(fails.len() >= 19, "{v}: {}", fails.len());
        for path in fails {
            let errors = overlay_errors(&path);
            assert!(!errors.is_empty(), "{}", path.display());
            for e in &errors {
                assert_eq!(e.severity, Severity::Error, "{}: {e:?}", path.display());
                assert!(e.code.starts_with("overlay-"), "{}: {e:?}", path.display());
                assert!(
                    e.line.is_some() && e.column.is_some(),
                    "{}: no position: {e:?}",
                    path.display()
                );
            }
        }
    }
    // A few by code and place: what the schema says, where the file says it.
    let v11 = |n: &str| fixture(&format!("overlay/schema-tests/v1.1/fail/{n}.yaml"));
    let first = |n: &str| overlay_errors(&v11(n)).remove(0);
    let e = first("actions-invalid-target");
    assert_eq!(
        (e.code.as_str(), e.pointer.as_str()),
        ("overlay-jsonpath-invalid", "/actions/0/target")
    );
    assert_eq!((e.line, e.column), (Some(6), Some(5)));
    let e = first("overlay-invalid-pattern");
    assert_eq!(
        (e.code.as_str(), e.pointer.as_str()),
        ("overlay-version-unsupported", "/overlay")
    );
    assert_eq!(e.line, Some(1));
    let e = first("actions-not-unique");
    assert_eq!(
        (e.code.as_str(), e.pointer.as_str()),
        ("overlay-action-duplicate", "/actions/1")
    );
    assert_eq!(e.line, Some(8));
    let e = first("root-invalid-property");
    assert_eq!(
        (e.code.as_str(), e.pointer.as_str()),
        ("overlay-field-unknown", "/invalidProperty")
    );
    let e = first("info-missing-version");
    assert_eq!(
        (e.code.as_str(), e.pointer.as_str()),
        ("overlay-field-missing", "/info")
    );
    // `copy` is 1.1: in a 1.0 document it is an unknown field.
    let copy10 = br#"{"overlay": "1.0.0", "info": {"title": "t", "version": "1"},
        "actions": [{"target": "$", "copy": "$.info"}]}"#;
    let e = Overlay::from_bytes("c.json", copy10, &Limits::default()).expect_err("1.0 copy");
    assert_eq!(e[0].pointer, "/actions/0/copy");
    assert_eq!(e[0].line, Some(2));
}

/// Tool objects (every variant) by name.
fn tools<'a>(doc: &'a Value, name: &str) -> Vec<&'a Value> {
    doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| t["name"] == name)
        .collect()
}

fn names(doc: &Value) -> Vec<String> {
    let mut n: Vec<String> = doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect();
    n.dedup();
    n
}

fn import_with(spec: &str, overlays: &[&str]) -> Result<mcpdesc_tests::Imported, ImportError> {
    let opts = ImportOptions {
        overlays: overlays
            .iter()
            .map(|o| overlay(&fixture(&format!("overlay/{o}"))).0)
            .collect(),
        ..Default::default()
    };
    mcpdesc_tests::import_file(&fixture(spec), &opts)
}

fn sha256sum(path: &Path) -> Option<String> {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .ok()?;
    String::from_utf8(out.stdout)
        .ok()?
        .split_whitespace()
        .next()
        .map(String::from)
}

#[test]
fn petstore_curation() {
    let before = import_with("openapi/petstore-3.0.yaml", &[]).expect("plain import");
    let after = import_with(
        "openapi/petstore-3.0.yaml",
        &["petstore/curate.overlay.yaml"],
    )
    .expect("overlaid import");
    assert!(after.stats.conforming, "{:#?}", after.diagnostics);
    let (b, a) = (&before.value, &after.value);
    // Independent conformance check.
    let errors: Vec<_> = mcpdesc_validate::validate_value(a)
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");

    // rename
    assert!(tools(a, "list_pets").is_empty());
    let browse = tools(a, "browse_pets");
    assert!(!browse.is_empty());
    // re-describe (summary, blank line, the new description)
    for t in &browse {
        assert_eq!(
            t["description"],
            "List all pets\n\nLists the pets in the store, twenty at a time."
        );
        assert_eq!(t["x-mcpdesc-openapi"]["operationId"], "listPets");
    }
    // tag into a toolset: the operations of /pets/{id} that remain
    for name in ["get_pet", "replace_pet", "tweak_pet"] {
        let ts = tools(a, name);
        assert!(!ts.is_empty(), "{name}");
        for t in ts {
            let tags = t["tags"].as_array().expect("tags");
            assert!(tags.contains(&json!("admin")), "{name}: {tags:?}");
        }
    }
    assert!(
        a["tags"]
            .as_array()
            .expect("tag catalogue")
            .iter()
            .any(|t| t["name"] == "admin")
    );
    assert!(
        !b["tags"]
            .as_array()
            .expect("tag catalogue")
            .iter()
            .any(|t| t["name"] == "admin")
    );
    // get_pet keeps its own tags, the update's are appended
    assert_eq!(
        tools(a, "get_pet")[0]["tags"],
        json!(["pets", "adoption", "admin"])
    );
    // x-mcp hint, merged with the method's defaults
    let create = tools(a, "create_pet");
    assert_eq!(create[0]["annotations"]["idempotentHint"], true);
    assert_eq!(
        tools(b, "create_pet")[0]["annotations"]["idempotentHint"],
        false
    );
    // removals: the photo path, and the deprecated DELETE
    let (nb, na) = (names(b), names(a));
    assert!(nb.contains(&"upload_photo".to_string()) && nb.contains(&"delete_pet".to_string()));
    assert!(!na.contains(&"upload_photo".to_string()), "{na:?}");
    assert!(!na.contains(&"delete_pet".to_string()), "{na:?}");
    assert_eq!(after.stats.operations + 2, before.stats.operations);
    // nothing else changed
    let untouched = |n: &str| assert_eq!(tools(a, n), tools(b, n), "{n}");
    for n in ["upload_card", "post_login", "search_things_v2", "add_note"] {
        untouched(n);
    }
    // provenance: which overlay, which bytes
    let rec = &a["x-mcpdesc-openapi"]["overlays"];
    let file = fixture("overlay/petstore/curate.overlay.yaml");
    assert_eq!(rec.as_array().map(Vec::len), Some(1));
    assert_eq!(rec[0]["file"], file.display().to_string());
    assert_eq!(rec[0]["overlay"], "1.1.0");
    assert_eq!(rec[0]["title"], "Curate the pet store for agents");
    assert_eq!(rec[0]["version"], "2.0.0");
    let digest = rec[0]["sha256"].as_str().expect("sha256");
    assert_eq!(digest.len(), 64);
    if let Some(expected) = sha256sum(&file) {
        assert_eq!(digest, expected);
    }
    assert!(b["x-mcpdesc-openapi"].get("overlays").is_none());
    let typed = mcpdesc_core::provenance::RootProvenance::of_document(a)
        .expect("root provenance")
        .expect("valid");
    assert_eq!(typed.overlays[0].title, "Curate the pet store for agents");
    assert_eq!(after.stats.overlays.len(), 1);
    assert_eq!(after.stats.overlays[0].actions, 6);
    assert!(
        after.stats.overlays[0].diagnostics.is_empty(),
        "{:#?}",
        after.stats.overlays
    );
}

#[test]
fn overlays_apply_in_order_and_an_unmatched_target_is_a_located_warning() {
    let out = import_with(
        "openapi/petstore-3.0.yaml",
        &[
            "petstore/curate.overlay.yaml",
            "petstore/unmatched.overlay.yaml",
        ],
    )
    .expect("import");
    assert!(out.stats.conforming);
    let reports = &out.stats.overlays;
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[1].unmatched, 1);
    let w = &reports[1].diagnostics;
    assert_eq!(w.len(), 1, "{w:#?}");
    assert_eq!(w[0].severity, Severity::Warning);
    assert_eq!(w[0].code, "overlay-target-unmatched");
    assert_eq!(w[0].pointer, "/actions/1/target");
    assert_eq!((w[0].line, w[0].column), (Some(9), Some(5)));
    // the overlay's warnings are not mixed into the spec's diagnostics
    assert!(
        !out.diagnostics
            .iter()
            .any(|d| d.code.starts_with("overlay-"))
    );
    let rec = out.value["x-mcpdesc-openapi"]["overlays"]
        .as_array()
        .expect("overlays")
        .clone();
    assert_eq!(rec.len(), 2);
    assert_eq!(rec[1]["title"], "One action misses");
    assert_eq!(rec[1]["overlay"], "1.0.0");
}

#[test]
fn malformed_overlays_are_errors_at_their_line_and_column() {
    let errs = overlay_errors(&fixture("overlay/petstore/malformed.overlay.yaml"));
    let got: Vec<(&str, &str, Option<u32>)> = errs
        .iter()
        .map(|e| (e.code.as_str(), e.pointer.as_str(), e.line))
        .collect();
    assert_eq!(
        got,
        vec![
            ("overlay-field-missing", "/info", Some(2)),
            ("overlay-jsonpath-invalid", "/actions/0/target", Some(5)),
            ("overlay-field-type", "/actions/1/remove", Some(8)),
            ("overlay-field-missing", "/actions/2", Some(9)),
            ("overlay-action-conflict", "/actions/3", Some(11)),
        ],
        "{errs:#?}"
    );
    assert!(errs.iter().all(|e| e.column.is_some()));
    let errs = overlay_errors(&fixture("overlay/petstore/malformed.overlay.json"));
    let got: Vec<(&str, &str, Option<u32>)> = errs
        .iter()
        .map(|e| (e.code.as_str(), e.pointer.as_str(), e.line))
        .collect();
    assert_eq!(
        got,
        vec![
            ("overlay-field-unknown", "/info/description", Some(3)),
            ("overlay-field-unknown", "/actions/0/copy", Some(5)),
        ],
        "{errs:#?}"
    );
    // Not an overlay at all: the decoder's own error, with its position.
    let e = Overlay::from_bytes("x.yaml", b"overlay: 1.1.0\ninfo: [\n", &Limits::default())
        .expect_err("syntax");
    assert!(e[0].code.starts_with("yaml-"), "{e:?}");
    assert!(e[0].line.is_some());
}

fn apply(text: &str, doc: &mut Value) -> Result<mcpdesc_openapi::OverlayReport, Vec<Diagnostic>> {
    let o = Overlay::from_bytes("t.overlay.yaml", text.as_bytes(), &Limits::default())
        .unwrap_or_else(|e| panic!("{e:#?}"))
        .0;
    o.apply(doc)
}

#[test]
fn rfc_9535_filter_expressions_select_what_the_rfc_says() {
    let spec = yaml(&fixture("openapi/petstore-3.0.yaml"));
    let ops = |doc: &Value| -> Vec<String> {
        let mut v = Vec::new();
        for item in doc["paths"].as_object().expect("paths").values() {
            for op in item.as_object().expect("item").values() {
                if let Some(id) = op.get("operationId").and_then(Value::as_str) {
                    v.push(id.to_string());
                }
            }
        }
        v
    };
    let all = ops(&spec);
    assert!(all.contains(&"uploadPhoto".to_string()) && all.contains(&"uploadCard".to_string()));
    // match(): the whole string matches an I-Regexp (RFC 9535 §2.4.6)
    let mut doc = spec.clone();
    apply(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: \"$.paths.*[?match(@.operationId, 'upload.*')]\"\n    remove: true\n",
        &mut doc,
    )
    .expect("applies");
    let left = ops(&doc);
    assert_eq!(left.len() + 2, all.len());
    assert!(!left.iter().any(|o| o.starts_with("upload")));
    // search() finds a substring; `match` would need the whole string: `Pet` alone
    // matches no operationId but is found in several.
    let mut doc = spec.clone();
    let r = apply(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: \"$.paths.*[?match(@.operationId, 'Pet')]\"\n    update: {x-hit: true}\n  - target: \"$.paths.*[?search(@.operationId, 'Pet$')]\"\n    update: {x-hit: true}\n",
        &mut doc,
    )
    .expect("applies");
    assert_eq!(r.unmatched, 1);
    let hits = |doc: &Value| -> Vec<String> {
        let mut v = Vec::new();
        for item in doc["paths"].as_object().expect("paths").values() {
            for op in item.as_object().expect("item").values() {
                if op.get("x-hit") == Some(&json!(true)) {
                    v.push(op["operationId"].as_str().unwrap_or_default().to_string());
                }
            }
        }
        v.sort();
        v
    };
    assert_eq!(
        hits(&doc),
        ["createPet", "deletePet", "getPet", "patchPet", "replacePet"]
    );
    // Logical operators, comparison, existence and negation (§2.3.5):
    // operations tagged `pets` without an operation-level security.
    let mut doc = spec.clone();
    apply(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: \"$.paths.*[?@.tags[?@ == 'pets'] && !@.security]\"\n    update: {x-hit: true}\n",
        &mut doc,
    )
    .expect("applies");
    assert_eq!(hits(&doc), ["getPet", "listPets"]);
    // length() and count(), descendant segment: parameters arrays with 3+ entries.
    let mut doc = spec.clone();
    apply(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: \"$.paths.*[?count(@.parameters[*]) >= 3 || length(@.summary) == 9]\"\n    update: {x-hit: true}\n",
        &mut doc,
    )
    .expect("applies");
    assert_eq!(hits(&doc), ["getPet", "listPets"]);
    // Non-singular queries are not comparable (§2.3.5.1): a well-formedness error.
    let e = Overlay::from_bytes(
        "t.yaml",
        b"overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: \"$.paths[?@.* == 1]\"\n    remove: true\n",
        &Limits::default(),
    )
    .expect_err("non-singular comparison");
    assert_eq!(e[0].code, "overlay-jsonpath-invalid");
    assert_eq!(e[0].line, Some(4));
}

#[test]
fn update_semantics_beyond_the_examples() {
    // Mixed kinds in one update are an error (1.1.0 Action Object).
    let mut doc = json!({"a": {"x": {}, "y": []}});
    let e = apply(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.a.*\n    update: {k: 1}\n",
        &mut doc,
    )
    .expect_err("mixed");
    assert_eq!(e[0].code, "overlay-mixed-targets");
    // The root cannot be removed.
    let mut doc = json!({"a": 1});
    let e = apply(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $\n    remove: true\n",
        &mut doc,
    )
    .expect_err("root");
    assert_eq!(e[0].code, "overlay-remove-root");
    // A copy source must be one node.
    let mut doc = json!({"a": {}, "b": [1, 2]});
    let e = apply(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.a\n    copy: $.b[*]\n",
        &mut doc,
    )
    .expect_err("copy of two");
    assert_eq!(
        (e[0].code.as_str(), e[0].pointer.as_str()),
        ("overlay-copy-source", "/actions/0/copy")
    );
    assert_eq!(e[0].line, Some(5));
    // Delete then re-create (actions apply to the previous action's result), and a
    // 1.0 overlay selecting primitives works as 1.1 defines it, with a warning.
    let mut doc = json!({"info": {"title": "old", "description": "d"}});
    let r = apply(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.info\n    remove: true\n  - target: $\n    update: {info: {title: new}}\n  - target: $.info.title\n    update: newer\n",
        &mut doc,
    )
    .expect("applies");
    assert_eq!(doc, json!({"info": {"title": "newer"}}));
    assert_eq!(r.diagnostics[0].code, "overlay-primitive-target");
    assert_eq!(r.diagnostics[0].line, Some(8));
}

#[test]
fn spec_positions_stay_where_overlays_did_not_change_the_spec() {
    for spec in ["overlay/positions/spec.json", "overlay/positions/spec.yaml"] {
        let plain = import_with(spec, &[]).expect("plain");
        let at = |out: &mcpdesc_tests::Imported, ptr: &str| -> Option<u32> {
            out.diagnostics
                .iter()
                .find(|d| d.code == "openapi-parameter-skipped" && d.pointer.starts_with(ptr))
                .unwrap_or_else(|| panic!("{spec}: {ptr}: {:#?}", out.diagnostics))
                .line
        };
        let (a0, b0) = (at(&plain, "/paths/~1a/"), at(&plain, "/paths/~1b/"));
        assert!(a0.is_some() && b0.is_some(), "{spec}");
        let over = import_with(spec, &["positions/touch-b.overlay.yaml"]).expect("overlaid");
        // /a untouched: same line; /b changed by the overlay: no line, and one info says why.
        assert_eq!(at(&over, "/paths/~1a/"), a0, "{spec}");
        assert_eq!(at(&over, "/paths/~1b/"), None, "{spec}");
        assert!(
            over.diagnostics
                .iter()
                .any(|d| d.code == "openapi-overlay-positions"),
            "{spec}: {:#?}",
            over.diagnostics
        );
        assert!(
            !plain
                .diagnostics
                .iter()
                .any(|d| d.code == "openapi-overlay-positions")
        );
    }
}

#[test]
fn an_overlay_that_cannot_apply_fails_the_import_naming_the_overlay() {
    let bytes = b"overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.info\n    update: {title: {not: a string}}\n";
    let (o, _) = Overlay::from_bytes("bad.overlay.yaml", bytes, &Limits::default()).expect("valid");
    let opts = ImportOptions {
        overlays: vec![o],
        ..Default::default()
    };
    match mcpdesc_tests::import_file(&fixture("openapi/petstore-3.1.yaml"), &opts) {
        Err(ImportError::Overlay { file, diagnostics }) => {
            assert_eq!(file, "bad.overlay.yaml");
            assert_eq!(diagnostics[0].code, "overlay-merge-conflict");
            assert_eq!(diagnostics[0].pointer, "/actions/0/update/title");
            assert_eq!(diagnostics[0].line, Some(5));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn hostile_queries_are_located_errors_not_crashes() {
    // 100,000 nested parentheses would exhaust a recursive-descent parser's stack.
    let target = format!("$[?{}@.a{}]", "(".repeat(100_000), ")".repeat(100_000));
    let text = format!(
        "{{\"overlay\": \"1.1.0\", \"info\": {{\"title\": \"t\", \"version\": \"1\"}},\n \"actions\": [{{\"target\": \"{target}\", \"remove\": true}}]}}"
    );
    let e =
        Overlay::from_bytes("h.json", text.as_bytes(), &Limits::default()).expect_err("refused");
    assert_eq!(
        (e[0].code.as_str(), e[0].pointer.as_str()),
        ("overlay-jsonpath-limit", "/actions/0/target")
    );
    assert_eq!(e[0].line, Some(2));
    // Three descendant segments could select depth³ times the document's nodes.
    let e = Overlay::from_bytes(
        "h.yaml",
        b"overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $..a..b..c\n    remove: true\n",
        &Limits::default(),
    )
    .expect_err("refused");
    assert_eq!(e[0].code, "overlay-jsonpath-limit");
}

#[test]
fn overlays_apply_before_refs_are_loaded() {
    // Plain: /b names a file that does not exist (a warning), /a has no output.
    let plain = import_with("overlay/refs/spec.yaml", &[]).expect("plain");
    assert!(
        plain
            .diagnostics
            .iter()
            .any(|d| d.code == "openapi-ref-file"),
        "{:#?}",
        plain.diagnostics
    );
    // Overlaid: the `$ref` the overlay adds is loaded like any other (the schema of
    // thing.yaml is the output), and the file only the removed path named is never read.
    let out = import_with("overlay/refs/spec.yaml", &["refs/refs.overlay.yaml"]).expect("overlaid");
    assert!(out.stats.conforming, "{:#?}", out.diagnostics);
    assert!(
        !out.diagnostics
            .iter()
            .any(|d| d.code.starts_with("openapi-ref")),
        "{:#?}",
        out.diagnostics
    );
    let a = tools(&out.value, "get_a");
    assert!(!a.is_empty());
    assert_eq!(
        a[0]["outputSchema"]["properties"]["colour"],
        json!({"type": "string"}),
        "{}",
        a[0]["outputSchema"]
    );
    assert!(tools(&out.value, "get_b").is_empty());
    assert_eq!(
        out.value["x-mcpdesc-openapi"]["overlays"][0]["extends"],
        "./spec.yaml"
    );
}

mod properties {
    //! Random overlays, well-formed or not, against a real spec, and random bytes:
    //! every outcome is a result (an overlay and its warnings, or errors with a
    //! line:column), never a panic.
    use super::*;
    use proptest::prelude::*;

    /// Query pieces: valid and invalid RFC 9535 syntax mixed.
    fn query() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            ".paths",
            ".*",
            "..",
            "[*]",
            "[0]",
            "[-1]",
            "[1:3]",
            "[::-1]",
            "['/pets']",
            "['/pets/{id}']",
            ".get",
            ".parameters",
            "[?@.in == 'query']",
            "[?@.deprecated]",
            "[?length(@) > 2]",
            "[?match(@.operationId, 'get.*')]",
            "..responses",
            "['200']",
            ".tags",
            "[?@ == 'pets']",
            "[",
            "]",
            "?",
            "@",
            "'",
            ".components",
            "..$ref",
        ]);
        prop::collection::vec(piece, 0..6).prop_map(|p| format!("${}", p.concat()))
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..3).prop_map(Value::from),
            "[a-z]{0,3}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map("[a-z$/]{1,3}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn action() -> impl Strategy<Value = Value> {
        (query(), 0u8..4, json_value(), query()).prop_map(|(target, kind, update, copy)| match kind
        {
            0 => json!({"target": target, "remove": true}),
            1 => json!({"target": target, "update": update}),
            2 => json!({"target": target, "copy": copy}),
            _ => json!({"target": target, "update": update, "remove": "no"}),
        })
    }

    fn spec() -> &'static Value {
        static SPEC: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        SPEC.get_or_init(|| yaml(&fixture("openapi/petstore-3.0.yaml")))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn random_overlays_never_panic(actions in prop::collection::vec(action(), 0..4), yaml_text in any::<bool>()) {
            let doc = json!({"overlay": "1.1.0", "info": {"title": "r", "version": "1"}, "actions": actions});
            let (name, bytes) = if yaml_text {
                ("r.yaml", mcpdesc_core::emit::to_yaml(&doc).into_bytes())
            } else {
                ("r.json", serde_json::to_vec_pretty(&doc).expect("json"))
            };
            match Overlay::from_bytes(name, &bytes, &Limits::default()) {
                Ok((o, _)) => {
                    let mut d = spec().clone();
                    match o.apply(&mut d) {
                        Ok(r) => prop_assert!(r.unmatched <= r.actions),
                        Err(e) => prop_assert!(e.iter().all(|d| d.is_error() && d.line.is_some())),
                    }
                }
                Err(e) => prop_assert!(e.iter().all(|d| d.is_error() && d.line.is_some()), "{e:#?}"),
            }
        }

        #[test]
        fn arbitrary_bytes_are_diagnostics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = Overlay::from_bytes("x.yaml", &bytes, &Limits::default());
            let _ = Overlay::from_bytes("x.json", &bytes, &Limits::default());
        }
    }
}

/// The 1.1.0 specification's examples that give no result, applied to hand-written
/// documents with hand-written results.
#[test]
fn the_specification_examples_without_results_on_hand_written_documents() {
    let paths =
        |v: Value| json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": v});
    // Targeted Overlay Example (primitive targets replace, a child object is created).
    let mut doc = paths(json!({
        "/foo": {"get": {"description": "old foo"}},
        "/bar": {"get": {"description": "old bar"}, "post": {"summary": "s"}}
    }));
    apply(
        r#"overlay: 1.1.0
info:
  title: Targeted Overlay
  version: 1.0.0
actions:
  - target: $.paths['/foo'].get.description
    update: This is the new description
  - target: $.paths['/bar'].get.description
    update: This is the updated description
  - target: $.paths['/bar']
    update:
      post:
        description: This is an updated description of a child object
        x-safe: false
"#,
        &mut doc,
    )
    .expect("applies");
    assert_eq!(
        doc,
        paths(json!({
            "/foo": {"get": {"description": "This is the new description"}},
            "/bar": {"get": {"description": "This is the updated description"},
                     "post": {"summary": "s", "description": "This is an updated description of a child object", "x-safe": false}}
        }))
    );
    // Wildcard Overlay Example: every GET, and only the `filter` query parameter.
    let mut doc = paths(json!({
        "/a": {"get": {"parameters": [{"name": "filter", "in": "query"}, {"name": "filter", "in": "header"}]}, "put": {}},
        "/b": {"get": {}}
    }));
    apply(
        r#"overlay: 1.0.0
info:
  title: Update many objects at once
  version: 1.0.0
actions:
  - target: $.paths.*.get
    update:
      x-safe: true
  - target: $.paths.*.get.parameters[?@.name=='filter' && @.in=='query']
    update:
      schema:
        $ref: '#/components/schemas/filterSchema'
"#,
        &mut doc,
    )
    .expect("applies");
    assert_eq!(
        doc,
        paths(json!({
            "/a": {"get": {"x-safe": true, "parameters": [
                {"name": "filter", "in": "query", "schema": {"$ref": "#/components/schemas/filterSchema"}},
                {"name": "filter", "in": "header"}]}, "put": {}},
            "/b": {"get": {"x-safe": true}}
        }))
    );
    // Array Modification Examples: append an object, remove by filter, remove a
    // primitive item.
    let mut doc = paths(json!({
        "/a": {"get": {"parameters": [{"name": "dummy", "in": "query"}, {"name": "keep", "in": "query"}], "tags": ["dummy", "real"]}}
    }));
    apply(
        r#"overlay: 1.1.0
info:
  title: Array modifications
  version: 1.0.0
actions:
  - target: $.paths.*.get.parameters
    update:
      name: newParam
      in: query
  - target: $.paths.*.get.parameters[?@.name == 'dummy']
    remove: true
  - target: $.paths.*.get.tags[?@ == 'dummy']
    remove: true
"#,
        &mut doc,
    )
    .expect("applies");
    assert_eq!(
        doc,
        paths(json!({
            "/a": {"get": {"parameters": [{"name": "keep", "in": "query"}, {"name": "newParam", "in": "query"}], "tags": ["real"]}}
        }))
    );
}

#[test]
fn overlay_yaml_with_integer_keys_is_read_like_openapi_yaml() {
    // `404:` is an integer key: OpenAPI YAML writes responses so, and the restricted
    // profile forbids it. The overlay is read leniently (an info says so, at the key).
    let text = b"overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.paths['/pets'].get.responses\n    update:\n      404:\n        description: no pets\n";
    let (o, notes) =
        Overlay::from_bytes("int.overlay.yaml", text, &Limits::default()).expect("reads");
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!(
        (notes[0].code.as_str(), notes[0].severity),
        ("overlay-yaml-lenient", Severity::Info)
    );
    assert_eq!(notes[0].line, Some(6));
    let mut doc = yaml(&fixture("openapi/petstore-3.0.yaml"));
    o.apply(&mut doc).expect("applies");
    assert_eq!(
        doc["paths"]["/pets"]["get"]["responses"]["404"],
        json!({"description": "no pets"})
    );
    // Errors of such a file keep their pointers (positions are not known).
    let bad = b"overlay: 1.1.0\ninfo: {title: t}\nactions:\n  - target: $\n    update: {200: x}\n";
    let e =
        Overlay::from_bytes("int.overlay.yaml", bad, &Limits::default()).expect_err("no version");
    assert_eq!(
        (e[0].code.as_str(), e[0].pointer.as_str(), e[0].line),
        ("overlay-field-missing", "/info", None)
    );
}
