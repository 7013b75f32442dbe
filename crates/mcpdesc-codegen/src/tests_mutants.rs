//! Cases for mutants that survived the crate's unit tests (issue 33): each generated
//! line is written by hand from the description it comes from.

use crate::{Generated, RustOptions};
use serde_json::{Value, json};

/// A description of one tool `t` (input `input`) at revision 2025-11-25.
fn doc(input: Value) -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "tools": [{"name": "t", "inputSchema": input}]
    })
}

fn generated(
    doc: &Value,
    f: impl FnOnce(&mcpdesc_validate::Validated<'_>) -> Generated,
) -> Generated {
    let valid = mcpdesc_validate::Validator::new()
        .check(doc)
        .unwrap_or_else(|d| panic!("invalid test description: {d:?}"));
    f(&valid)
}

fn rust(doc: &Value) -> Generated {
    generated(doc, |v| {
        crate::generate_rust(v, &RustOptions::default()).expect("generates")
    })
}

fn file<'a>(g: &'a Generated, path: &str) -> &'a str {
    &g.files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| {
            panic!(
                "no {path} in {:?}",
                g.files.iter().map(|f| &f.path).collect::<Vec<_>>()
            )
        })
        .contents
}

/// `maximum: 9223372036854775807` is i64::MAX: every allowed value fits an `i64`, so the
/// field stays `i64` (although the number reads as 2^63 in an f64); with `minimum: 0`
/// and `maximum: 10^19` (past i64::MAX, 9.22e18, within u64::MAX, 1.84e19) it is `u64`.
#[test]
fn an_integer_up_to_i64_max_is_i64_and_past_it_u64() {
    let types = |max: Value| {
        file(
            &rust(&doc(json!({"type": "object",
                "properties": {"n": {"type": "integer", "minimum": 0, "maximum": max}},
                "required": ["n"]}))),
            "src/types.rs",
        )
        .to_string()
    };
    let at_max = types(json!(i64::MAX));
    assert!(at_max.contains("pub n: i64,"), "{at_max}");
    let past = types(json!(10_000_000_000_000_000_000u64));
    assert!(past.contains("pub n: u64,"), "{past}");
}

/// The codes and pointers of `g`'s diagnostics.
fn diags(g: &Generated) -> Vec<(String, String)> {
    g.diagnostics
        .iter()
        .map(|d| (d.code.clone(), d.pointer.clone()))
        .collect()
}

/// A `oneOf` beside `properties`, or beside `items`, alone: the union and its sibling
/// cannot both be a type, so the value is any JSON value, with the warning at it.
#[test]
fn a_union_beside_properties_or_items_is_any_json_value() {
    let arms = json!([{"type": "string"}, {"type": "integer"}]);
    for sibling in [
        json!({"properties": {"a": {"type": "string"}}}),
        json!({"items": {"type": "string"}}),
        json!({"prefixItems": [{"type": "string"}]}),
    ] {
        let mut p = sibling.clone();
        p["oneOf"] = arms.clone();
        let g = rust(&doc(json!({"type": "object", "properties": {"p": p}})));
        assert!(
            diags(&g).contains(&(
                "codegen-unsupported-composition".to_string(),
                "/tools/0/inputSchema/properties/p".to_string()
            )),
            "{sibling}: {:?}",
            g.diagnostics
        );
        assert!(
            file(&g, "src/types.rs").contains("pub p: Option<serde_json::Value>,"),
            "{sibling}: {}",
            file(&g, "src/types.rs")
        );
    }
}

/// An input that is an object of string values only (`additionalProperties` and no
/// properties) is a JSON object on the wire: no "input is not an object" warning.
#[test]
fn a_map_input_is_an_object() {
    let g = rust(&doc(
        json!({"type": "object", "additionalProperties": {"type": "string"}}),
    ));
    assert!(
        !diags(&g)
            .iter()
            .any(|(c, _)| c == "codegen-input-not-object"),
        "{:?}",
        g.diagnostics
    );
}

/// `write_server` as its documentation says: every generated file (re)written, each
/// seed written only where no file is, and the seeds left as they were returned.
#[test]
fn write_server_rewrites_generated_files_and_keeps_the_users_seeds() {
    let file = |path: &str, contents: &str| crate::GeneratedFile {
        path: path.into(),
        contents: contents.into(),
    };
    let server = |generated: &str| crate::ServerGenerated {
        generated: Generated {
            ir: None,
            files: vec![file("src/generated/tools.ts", generated)],
            diagnostics: Vec::new(),
        },
        seeds: vec![
            file("src/handlers.ts", "seed handlers"),
            file("src/main.ts", "seed main"),
        ],
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).expect("written");
    assert_eq!(
        crate::write_server(dir.path(), &server("one")).expect("writes"),
        Vec::<String>::new()
    );
    assert_eq!(
        [
            read("src/generated/tools.ts"),
            read("src/handlers.ts"),
            read("src/main.ts")
        ],
        ["one", "seed handlers", "seed main"]
    );
    std::fs::write(dir.path().join("src/handlers.ts"), "the user's handlers").expect("edit");
    std::fs::remove_file(dir.path().join("src/main.ts")).expect("remove");
    assert_eq!(
        crate::write_server(dir.path(), &server("two")).expect("writes again"),
        ["src/handlers.ts"]
    );
    assert_eq!(
        [
            read("src/generated/tools.ts"),
            read("src/handlers.ts"),
            read("src/main.ts")
        ],
        ["two", "the user's handlers", "seed main"]
    );
}

/// An npm scoped name keeps its `@scope/` (npm: lower case, URL-safe characters);
/// a scope with nothing usable in it is no scope.
#[test]
fn scoped_package_names_keep_their_scope() {
    use crate::typescript::package_name;
    assert_eq!(
        package_name(Some("@Acme/Pets Client"), "s"),
        "@acme/pets-client"
    );
    assert_eq!(package_name(Some("@acme/pets"), "s"), "@acme/pets");
    assert_eq!(package_name(Some("@!!/pets"), "s"), "pets");
}
