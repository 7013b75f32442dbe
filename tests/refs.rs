//! One referencing module (`mcpdesc_core::local_ref`), one answer: a tool schema that
//! refers by `$anchor` (`"$ref": "#point"`) and by escaped pointers (`#/$defs/a~1b`,
//! `#/$defs/%25`) is resolved the same way by validation, TypeScript generation, host
//! fitting (`export --host gemini-cli`) and the docs; an unresolvable reference gets
//! the same code and message from each. (The search index's reading is tested in
//! `crates/mcpdesc-catalog/tests/refs.rs`.)
//!
//! Every expectation is written by hand from JSON Schema 2020-12 §8.2.2 (anchors),
//! RFC 6901 (`~1` is `/`) and RFC 3986 §2.1 (`%25` is `%`).

use mcpdesc_core::ProtocolRevision;
use mcpdesc_hosts::{FitOptions, fit_tools_list, host};
use serde_json::{Value, json};

const REV: ProtocolRevision = ProtocolRevision::V2025_11_25;

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "at": {"$ref": "#point"},
            "tag": {"$ref": "#/$defs/a~1b"},
            "share": {"$ref": "#/$defs/%25"}
        },
        "required": ["at"],
        "$defs": {
            "Point": {
                "$anchor": "point",
                "type": "object",
                "properties": {"latitude": {"type": "number"}},
                "required": ["latitude"]
            },
            "a/b": {"type": "object", "properties": {"slashed": {"type": "string"}}},
            "%": {"type": "object", "properties": {"percent": {"type": "boolean"}}}
        }
    })
}

fn doc(revs: &[&str], schema: Value) -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "refs", "version": "1.0.0"},
        "protocolVersions": revs,
        "tools": [{"name": "plot", "description": "Plots a point.", "inputSchema": schema}]
    })
}

fn ref_codes(diags: &[mcpdesc_core::Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.code.contains("ref"))
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

#[test]
fn anchors_and_escaped_pointers_resolve_everywhere() {
    let doc = doc(&["2025-11-25"], input_schema());
    // validate: valid, and no reference finding at all.
    let valid = match mcpdesc_validate::Validator::new().check(&doc) {
        Ok(v) => v,
        Err(d) => panic!("does not validate: {d:#?}"),
    };
    assert_eq!(ref_codes(valid.diagnostics()), Vec::<String>::new());

    // generate typescript: the anchor's target is a named type, every property typed.
    let g = mcpdesc_codegen::generate_typescript(&valid, &Default::default()).expect("generates");
    assert_eq!(ref_codes(&g.diagnostics), Vec::<String>::new());
    let ts: String = g.files.iter().map(|f| f.contents.as_str()).collect();
    for want in [
        "at: Point",
        "latitude: number",
        "slashed?: string",
        "percent?: boolean",
    ] {
        assert!(
            ts.contains(want),
            "`{want}` missing from the generated TypeScript"
        );
    }
    assert!(
        !ts.contains("at: unknown"),
        "the anchor ref is typed unknown"
    );

    // export tools-list --host gemini-cli: every reference inlined, none refused.
    let list = mcpdesc_scope::export_tools_list(&valid, REV).expect("exports");
    let fitted = fit_tools_list(
        list,
        REV,
        &FitOptions {
            host: host("gemini-cli"),
            server_prefix: None,
            budget: None,
        },
    );
    let errors: Vec<String> = fitted
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let props = &fitted.tools_list["tools"][0]["inputSchema"]["properties"];
    assert_eq!(
        props["at"]["properties"]["latitude"],
        json!({"type": "number"})
    );
    assert_eq!(props["at"]["required"], json!(["latitude"]));
    assert_eq!(
        props["tag"]["properties"]["slashed"],
        json!({"type": "string"})
    );
    assert_eq!(
        props["share"]["properties"]["percent"],
        json!({"type": "boolean"})
    );
    assert!(!fitted.tools_list.to_string().contains("$ref"));

    // docs: each row links to the definition its reference names.
    let sd = mcpdesc_docs::schema::document(&input_schema());
    let links: Vec<(String, Option<String>)> = sd.tables[0]
        .rows
        .iter()
        .map(|r| (r.name.clone(), r.link.clone()))
        .collect();
    assert_eq!(
        links,
        [
            ("at".to_string(), Some("Point".to_string())),
            ("tag".to_string(), Some("a/b".to_string())),
            ("share".to_string(), Some("%".to_string())),
        ]
    );
    assert_eq!(
        sd.notes,
        Vec::<String>::new(),
        "no reference shown as unfollowed"
    );
}

#[test]
fn an_unresolvable_ref_has_one_code_and_message() {
    // Before a tool-schema dialect (2025-06-18) an unresolved `$ref` is a warning, so
    // the description is valid and every later command meets the reference.
    let schema = json!({"type": "object", "properties": {"at": {"$ref": "#nowhere"}}});
    let doc = doc(&["2025-06-18"], schema);
    let message = "`$ref` \"#nowhere\" does not resolve inside its schema";
    let code = "tool-schema-ref-unresolved";

    let valid = match mcpdesc_validate::Validator::new().check(&doc) {
        Ok(v) => v,
        Err(d) => panic!("does not validate: {d:#?}"),
    };
    let found = |diags: &[mcpdesc_core::Diagnostic], what: &str| {
        let hits: Vec<&mcpdesc_core::Diagnostic> =
            diags.iter().filter(|d| d.code.contains("ref")).collect();
        assert_eq!(hits.len(), 1, "{what}: {hits:#?}");
        assert_eq!(hits[0].code, code, "{what}");
        assert!(
            hits[0].message.contains(message),
            "{what}: {}",
            hits[0].message
        );
    };
    found(valid.diagnostics(), "validate");

    let g = mcpdesc_codegen::generate_typescript(&valid, &Default::default()).expect("generates");
    found(&g.diagnostics, "generate typescript");

    let rev = ProtocolRevision::V2025_06_18;
    let list = mcpdesc_scope::export_tools_list(&valid, rev).expect("exports");
    let fitted = fit_tools_list(
        list,
        rev,
        &FitOptions {
            host: host("gemini-cli"),
            server_prefix: None,
            budget: None,
        },
    );
    found(&fitted.diagnostics, "export --host gemini-cli");
}
