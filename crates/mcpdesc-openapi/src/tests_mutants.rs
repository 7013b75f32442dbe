//! Whole imports of small specs written here by hand, one per rule that a mutation
//! sample (issue 33) showed no test of this crate pinned. Each expectation comes from
//! the OpenAPI 3.0 / JSON Schema 2020-12 texts, RFC 3986, or this crate's documented
//! contract, never from a recorded output.
#![allow(clippy::unwrap_used)]

use crate::{ImportOptions, ImportReport, Source, ValueSink, import};
use serde_json::{Value, json};

/// The import of `spec` (an OpenAPI 3.0 document), kept whole.
fn run(spec: &Value, opts: &ImportOptions) -> (Value, ImportReport) {
    let bytes = serde_json::to_vec(spec).unwrap();
    let mut sink = ValueSink::new();
    let report = import(
        Source::Bytes {
            bytes: &bytes,
            path: None,
        },
        opts,
        &mut sink,
    )
    .unwrap();
    (sink.into_value().unwrap(), report)
}

/// A 3.0 document with `paths` and `components` as given.
fn spec(paths: Value, components: Value) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": paths,
        "components": components,
    })
}

fn tool<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {doc:#}"))
}

fn codes(report: &ImportReport) -> Vec<&str> {
    report.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

const NO_CONTENT: &str = r#"{"204": {"description": "none"}}"#;

fn no_content() -> Value {
    serde_json::from_str(NO_CONTENT).unwrap()
}

#[test]
fn an_operation_parameter_overrides_a_path_parameter_only_on_the_same_name_and_location() {
    // OpenAPI 3.0 Path Item `parameters`: "can be overridden at the operation level,
    // but cannot be removed there … A unique parameter is defined by a combination of
    // a name and location." `limit` and `offset` share a location, not a name; `id` in
    // the query does not override `id` in the header.
    let doc = spec(
        json!({"/items": {
            "parameters": [
                {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                {"name": "trace", "in": "header", "schema": {"type": "string"}}
            ],
            "get": {
                "operationId": "list",
                "parameters": [
                    {"name": "offset", "in": "query", "schema": {"type": "integer"}},
                    {"name": "limit", "in": "query", "schema": {"type": "string"}}
                ],
                "responses": no_content()
            }
        }}),
        json!({}),
    );
    let (out, _) = run(&doc, &ImportOptions::default());
    let props = &tool(&out, "list")["inputSchema"]["properties"];
    assert_eq!(
        props["limit"],
        json!({"type": "string"}),
        "overridden: {props}"
    );
    assert_eq!(props["offset"], json!({"type": "integer"}));
    assert_eq!(props["trace"], json!({"type": "string"}));
    assert_eq!(props.as_object().unwrap().len(), 3, "{props}");
}

#[test]
fn only_undeclared_path_variables_draw_a_warning() {
    let doc = spec(
        json!({"/items/{id}/parts/{part}": {"get": {
            "operationId": "part",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": no_content()
        }}}),
        json!({}),
    );
    let (out, report) = run(&doc, &ImportOptions::default());
    let undeclared: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "openapi-path-parameter-undeclared")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(undeclared.len(), 1, "{undeclared:?}");
    assert!(undeclared[0].contains("`part`"), "{undeclared:?}");
    let t = tool(&out, "part");
    assert_eq!(t["inputSchema"]["required"], json!(["id", "part"]));
}

#[test]
fn multipart_file_members_get_the_octet_stream_part_type() {
    // OpenAPI 3.0 Encoding Object `contentType` default: "for string with format being
    // binary – application/octet-stream; for other primitive types – text/plain; …
    // for array – the default is defined based on the inner type".
    let doc = spec(
        json!({"/upload": {"post": {
            "operationId": "upload",
            "requestBody": {"content": {"multipart/form-data": {"schema": {
                "type": "object",
                "properties": {
                    "file": {"type": "string", "format": "binary"},
                    "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                    "maybe": {"type": "string", "format": "binary", "nullable": true},
                    "note": {"type": "string"},
                    "count": {"type": "integer"}
                }
            }}}},
            "responses": no_content()
        }}}),
        json!({}),
    );
    let (out, _) = run(&doc, &ImportOptions::default());
    let body = &tool(&out, "upload")["x-mcpdesc-openapi"]["requestBody"];
    let octets = json!({"contentType": "application/octet-stream"});
    assert_eq!(
        body["encoding"],
        json!({"file": octets, "files": octets, "maybe": octets}),
        "{body}"
    );
    // OpenAPI 3.1: `type` may be a list. A binary string listed alone is a file; a
    // number with a `contentEncoding` is none (the "other primitive types" default,
    // text/plain, needs no entry).
    let mut doc31 = spec(
        json!({"/upload": {"post": {
            "operationId": "upload",
            "requestBody": {"content": {"multipart/form-data": {"schema": {
                "type": "object",
                "properties": {
                    "file": {"type": ["string"], "format": "binary"},
                    "n": {"type": ["integer", "null"], "contentEncoding": "base64"}
                }
            }}}},
            "responses": no_content()
        }}}),
        json!({}),
    );
    doc31["openapi"] = "3.1.0".into();
    let (out, _) = run(&doc31, &ImportOptions::default());
    let body = &tool(&out, "upload")["x-mcpdesc-openapi"]["requestBody"];
    assert_eq!(body["encoding"], json!({"file": octets}), "{body}");
}

#[test]
fn an_opaque_body_is_a_base64_string_unless_its_schema_says_otherwise() {
    // mcpdesc-core `BodyKind::Binary`: bytes, base64 in a tool's arguments (JSON Schema
    // 2020-12 §8.3, §8.4: `contentEncoding`, `contentMediaType` of a string). An
    // XML body (characters) described as an object stays that object: contentEncoding
    // describes strings only.
    let object = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let doc = spec(
        json!({"/raw": {
            "put": {
                "operationId": "xml",
                "requestBody": {"content": {"application/xml": {"schema": object}}},
                "responses": no_content()
            },
            "post": {
                "operationId": "bytes",
                "requestBody": {"content": {"application/octet-stream": {"schema": {}}}},
                "responses": no_content()
            }
        }}),
        json!({}),
    );
    let (out, _) = run(&doc, &ImportOptions::default());
    let body = |t| &tool(&out, t)["inputSchema"]["properties"]["body"];
    assert_eq!(body("xml"), &object);
    assert_eq!(
        body("bytes"),
        &json!({
            "type": "string",
            "contentEncoding": "base64",
            "contentMediaType": "application/octet-stream"
        })
    );
}

#[test]
fn a_boolean_exclusive_minimum_becomes_the_2020_12_number() {
    // OpenAPI 3.0 (JSON Schema draft 4 style) `exclusiveMinimum: true` qualifies
    // `minimum`; JSON Schema 2020-12 §6.2.5 `exclusiveMinimum` is the bound itself.
    let doc = spec(
        json!({"/n": {"patch": {
            "operationId": "num",
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "number", "minimum": 0, "exclusiveMinimum": true,
                "maximum": 10, "exclusiveMaximum": false
            }}}},
            "responses": no_content()
        }}}),
        json!({}),
    );
    let (out, _) = run(&doc, &ImportOptions::default());
    assert_eq!(
        tool(&out, "num")["inputSchema"]["properties"]["body"],
        json!({"type": "number", "exclusiveMinimum": 0, "maximum": 10})
    );
}

#[test]
fn a_required_list_with_a_non_string_is_dropped_with_a_warning() {
    // JSON Schema 2020-12 §6.5.3: "The value of this keyword MUST be an array. Elements
    // of this array, if any, MUST be strings, and MUST be unique."
    let doc = spec(
        json!({"/n": {"patch": {
            "operationId": "obj",
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "array",
                "items": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", 1]}
            }}}},
            "responses": no_content()
        }}}),
        json!({}),
    );
    let (out, report) = run(&doc, &ImportOptions::default());
    let dropped: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "openapi-schema-keyword-dropped")
        .map(|d| d.pointer.as_str())
        .collect();
    assert_eq!(
        dropped,
        ["/paths/~1n/patch/requestBody/content/application~1json/schema/items/required"]
    );
    let items = &tool(&out, "obj")["inputSchema"]["properties"]["body"]["items"];
    assert_eq!(items.get("required"), None, "{items}");
}

#[test]
fn a_component_schema_keeps_its_name_and_any_other_target_gets_a_hashed_one() {
    // The module contract (schema.rs): `#/components/schemas/NAME` of the root keeps
    // NAME when it is plain; every other target gets its sanitized last token plus a
    // hash. `Node` below is a recursive subschema of a component, so it must stay a
    // `$defs` reference.
    let doc = spec(
        json!({"/pets": {"get": {
            "operationId": "pets",
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Pet"}
            }}}}
        }, "post": {
            "operationId": "tree",
            "requestBody": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Tree/properties/node"}
            }}},
            "responses": no_content()
        }}}),
        json!({"schemas": {
            "Pet": {"type": "object", "properties": {"name": {"type": "string"}}},
            "Tree": {"type": "object", "properties": {"node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/components/schemas/Tree/properties/node"}}
            }}}
        }}),
    );
    let (out, _) = run(&doc, &ImportOptions::default());
    let pets = &tool(&out, "pets")["x-mcpdesc-openapi"]["response"];
    assert_eq!(pets["component"], "Pet", "{pets}");
    let tree = tool(&out, "tree");
    let defs = tree["inputSchema"]["$defs"]
        .as_object()
        .unwrap_or_else(|| panic!("no $defs: {tree:#}"));
    let names: Vec<&String> = defs.keys().collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let hash = names[0]
        .strip_prefix("node_")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert!(
        hash.len() == 12 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "{names:?}"
    );
}

#[test]
fn the_schema_budget_of_a_lone_operation_is_100_000_values() {
    // lib.rs `schema_budget`: 6,000,000 values shared by the operations, at most
    // 100,000 per tool. A recursive definition of more than 100,000 JSON values (an
    // enum of 100,000 strings plus the object around it) is beyond it.
    let big: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    let doc = spec(
        json!({"/t": {"post": {
            "operationId": "big",
            "requestBody": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Node"}
            }}},
            "responses": no_content()
        }}}),
        json!({"schemas": {"Node": {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": big},
                "next": {"$ref": "#/components/schemas/Node"}
            }
        }}}),
    );
    let (_, report) = run(&doc, &ImportOptions::default());
    assert!(
        codes(&report).contains(&"openapi-schema-budget"),
        "{:?}",
        codes(&report)
    );
}

#[test]
fn tools_over_the_byte_budget_are_counted() {
    let doc = spec(
        json!({"/a": {"get": {"operationId": "a", "responses": no_content()}},
               "/b": {"get": {"operationId": "b", "responses": no_content()}}}),
        json!({}),
    );
    let count = |budget| {
        let opts = ImportOptions {
            tool_budget_bytes: Some(budget),
            ..ImportOptions::default()
        };
        let stats = run(&doc, &opts).1.stats;
        (stats.tools_over_budget, stats.largest_tool_bytes)
    };
    // Every tool object is larger than 0 bytes and none is larger than usize::MAX.
    let (over_all, largest) = count(0);
    assert_eq!(over_all, 2);
    assert!(largest > 0);
    assert_eq!(count(usize::MAX).0, 0);
    // A budget of exactly the largest size: that tool is not over it.
    assert!(count(largest).0 < 2);
}

#[test]
fn an_absolute_path_token_url_resolves_against_the_servers_origin() {
    // RFC 3986 §5.2.2: a reference starting with "/" replaces the base's whole path.
    let mut doc = spec(
        json!({"/a": {"get": {"operationId": "a", "responses": no_content()}}}),
        json!({"securitySchemes": {"o": {"type": "oauth2", "flows": {"clientCredentials": {
            "tokenUrl": "/oauth/token", "scopes": {}
        }}}}}),
    );
    doc["servers"] = json!([{"url": "http://a.io/v1/"}]);
    doc["security"] = json!([{"o": []}]);
    let (out, _) = run(&doc, &ImportOptions::default());
    assert_eq!(
        out["securitySchemes"]["o"]["flows"]["clientCredentials"]["tokenUrl"],
        "http://a.io/oauth/token"
    );
}

#[test]
fn referenced_files_may_total_exactly_the_document_limit() {
    // core `Limits::max_document_bytes` is the maximum size, and referenced documents
    // share it (spec.rs `RefPolicy`): a total of exactly the limit is allowed.
    let dir = tempfile::tempdir().unwrap();
    let part = serde_json::to_vec(&json!({
        "Pet": {"type": "object", "description": "x".repeat(2_000)}
    }))
    .unwrap();
    std::fs::write(dir.path().join("defs.json"), &part).unwrap();
    let root = serde_json::to_vec(&spec(
        json!({"/p": {"get": {"operationId": "p", "responses": {"200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": "defs.json#/Pet"}}}
        }}}}}),
        json!({}),
    ))
    .unwrap();
    assert!(root.len() < part.len());
    let path = dir.path().join("api.json");
    std::fs::write(&path, &root).unwrap();
    let at = |max: usize| {
        let mut opts = ImportOptions::default();
        opts.limits.max_document_bytes = max;
        let mut sink = ValueSink::new();
        let report = import(Source::Path(&path), &opts, &mut sink).unwrap();
        codes(&report).contains(&"openapi-ref-limit")
    };
    assert!(!at(part.len()), "exactly the limit is allowed");
    assert!(at(part.len() - 1), "one byte over is refused");
}

#[test]
fn a_description_is_cut_at_a_space_in_its_last_fifth() {
    use crate::op::truncate_description;
    // max 20: 19 characters are kept ("hello wonderful wor"), whose last space is at
    // 15, inside the last fifth (15 >= 19 * 4 / 5 = 15): the cut is there.
    assert_eq!(
        truncate_description("hello wonderful world of apis", 20),
        "hello wonderful…"
    );
    // max 12: "hello wonde" (11); its space at 5 is before 11 * 4 / 5 = 8: no word cut.
    assert_eq!(
        truncate_description("hello wonderful world", 12),
        "hello wonde…"
    );
}

#[test]
fn a_diagnostic_at_a_missing_member_of_what_an_overlay_changed_has_no_position() {
    // spec.rs `unchanged`: a position is kept only where overlays left the value (or,
    // where it does not exist, its nearest existing ancestor) as decoded. `/info` is
    // missing here, so its nearest ancestor is the root, which the overlay changed.
    let doc = json!({
        "openapi": "3.0.3",
        "paths": {"/a": {"get": {"operationId": "a", "responses": no_content()}}}
    });
    let overlay = br#"{"overlay": "1.0.0", "info": {"title": "o", "version": "1"},
        "actions": [{"target": "$.paths['/a'].get", "update": {"description": "new"}}]}"#;
    let (overlay, _) =
        crate::Overlay::from_bytes("o.json", overlay, &mcpdesc_core::Limits::default()).unwrap();
    let opts = ImportOptions {
        overlays: vec![overlay],
        ..ImportOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let report = import(Source::Path(&path), &opts, &mut ValueSink::new()).unwrap();
    let info = report
        .diagnostics
        .iter()
        .find(|d| d.code == "openapi-info-version")
        .unwrap_or_else(|| panic!("{:#?}", report.diagnostics));
    assert_eq!((info.pointer.as_str(), info.line), ("/info", None));
    assert!(
        codes(&report).contains(&"openapi-overlay-positions"),
        "{:#?}",
        report.diagnostics
    );
}

/// The split decode's rule (split_parse's documentation, PERFORMANCE.md): a member object
/// whose text is at least 256 KiB (262,144 bytes) is split into its members; a smaller
/// one is parsed whole as one leaf. `{"d":"…"}` is 8 bytes around its string's content,
/// so 262,136 `x` make it exactly 256 KiB and 262,135 one byte short. Kills
/// split_parse.rs:37's `256 * 1024` → `256 + 1024` (a survivor of the split decode's
/// --in-diff sample): the value is the same either way, only the leaves differ.
#[test]
fn a_member_is_split_from_256_kib_of_text_on() {
    for (content, split) in [(262_136, true), (262_135, false)] {
        let doc = format!(
            r#"{{"openapi":"3.0.3","big":{{"d":"{}"}},"paths":{{}}}}"#,
            "x".repeat(content)
        );
        let decoded = crate::split_parse::parse(doc.as_bytes()).expect("a split decode");
        assert_eq!(
            decoded.value["big"]["d"].as_str().map(str::len),
            Some(content)
        );
        let leaves = format!("{:?}", decoded.frees);
        assert_eq!(leaves.contains(r#"(["big", "d"], "#), split, "{leaves}");
        assert_eq!(leaves.contains(r#"(["big"], "#), !split, "{leaves}");
    }
}
