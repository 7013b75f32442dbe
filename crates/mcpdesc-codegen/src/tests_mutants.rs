//! Cases for mutants that survived the crate's unit tests (issue 33): each generated
//! line is written by hand from the description it comes from.

use crate::{Generated, RustOptions, TsOptions};
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

fn typescript(doc: &Value) -> Generated {
    generated(doc, |v| {
        crate::generate_typescript(v, &TsOptions::default()).expect("generates")
    })
}

/// The types of a tool `t` whose input has the one property `v` (`required` or not),
/// with `defs` as the input's `$defs`.
fn types_of_v(v: Value, required: bool, defs: Value) -> String {
    let mut input = json!({"type": "object", "properties": {"v": v}, "$defs": defs});
    if required {
        input["required"] = json!(["v"]);
    }
    file(&rust(&doc(input)), "src/types.rs").to_string()
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
/// and `maximum: 10^19` (past i64::MAX, 9.22e18, within u64::MAX, 1.84e19) or exactly
/// 2^63 it is `u64`.
#[test]
fn an_integer_up_to_i64_max_is_i64_and_past_it_u64() {
    let ranged = |min: Value, max: Value| {
        file(
            &rust(&doc(json!({"type": "object",
                "properties": {"n": {"type": "integer", "minimum": min, "maximum": max}},
                "required": ["n"]}))),
            "src/types.rs",
        )
        .to_string()
    };
    let types = |max: Value| ranged(json!(0), max);
    // A range with negative values is not unsigned, however high it reaches: no u64.
    let signed = ranged(json!(-1), json!(10_000_000_000_000_000_000u64));
    assert!(signed.contains("pub n: i64,"), "{signed}");
    let at_max = types(json!(i64::MAX));
    assert!(at_max.contains("pub n: i64,"), "{at_max}");
    let past = types(json!(10_000_000_000_000_000_000u64));
    assert!(past.contains("pub n: u64,"), "{past}");
    // 2^63 = i64::MAX + 1: one allowed value no i64 holds, as an integer or a float.
    let one_past = types(json!(9_223_372_036_854_775_808u64));
    assert!(one_past.contains("pub n: u64,"), "{one_past}");
    let one_past_float = types(json!(9_223_372_036_854_775_808.0));
    assert!(one_past_float.contains("pub n: u64,"), "{one_past_float}");
    // u64::MAX itself is u64; 2^64 is past what a u64 holds, so no widening helps.
    let at_u64_max = types(json!(u64::MAX));
    assert!(at_u64_max.contains("pub n: u64,"), "{at_u64_max}");
    let past_u64 = types(json!(18_446_744_073_709_551_616.0));
    assert!(past_u64.contains("pub n: i64,"), "{past_u64}");
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

/// The crate's files, its header, a tool method's documentation (title, description,
/// then the wire name, as `tool_doc` says), a field's description, and the wire name
/// as a string literal.
#[test]
fn the_client_documents_each_tool_and_calls_it_by_its_wire_name() {
    let doc = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "pets", "version": "2"},
        "protocolVersions": ["2025-11-25"],
        "tools": [{
            "name": "get-pet", "title": "Get a pet", "description": "Fetches one pet.",
            "inputSchema": {"type": "object", "required": ["id"],
                "properties": {"id": {"type": "string", "description": "The pet's id."}}}
        }]
    });
    let g = rust(&doc);
    let mut paths: Vec<&str> = g.files.iter().map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["Cargo.toml", "src/lib.rs", "src/types.rs"]);
    let lib = file(&g, "src/lib.rs");
    assert!(
        lib.starts_with("//! Typed MCP client for pets (version 2).\n"),
        "{lib}"
    );
    assert!(
        lib.contains(
            "    /// Get a pet\n    ///\n    /// Fetches one pet.\n    ///\n    /// Calls the MCP tool `get-pet`.\n    pub async fn get_pet("
        ),
        "{lib}"
    );
    assert!(lib.contains("(\"get-pet\", &input"), "{lib}");
    let types = file(&g, "src/types.rs");
    assert!(
        types.contains(
            "    /// The pet's id.\n    #[serde(rename = \"id\")]\n    pub id: String,\n"
        ),
        "{types}"
    );
}

/// A type that contains itself by value is boxed; an alias that contains itself (a
/// list of lists of …) cannot be a Rust type alias, so it is a newtype struct.
#[test]
fn recursive_types_are_boxed_and_recursive_aliases_are_newtypes() {
    let types = types_of_v(
        json!({"$ref": "#/$defs/Node"}),
        true,
        json!({
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"},
                                                      "tree": {"$ref": "#/$defs/Tree"}}},
            "Tree": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
        }),
    );
    assert!(types.contains("pub next: Option<Box<Node>>,"), "{types}");
    assert!(types.contains("pub struct Tree(pub Vec<Tree>);"), "{types}");
}

/// A closed tuple (`prefixItems`, every item required, no more) is a Rust tuple.
#[test]
fn a_closed_tuple_is_a_rust_tuple() {
    let types = types_of_v(
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
               "minItems": 2, "items": false}),
        true,
        json!({}),
    );
    assert!(types.contains("pub v: (String, i64),"), "{types}");
}

/// TypeScript: only an object that admits no property at all is `Record<string,
/// never>`; one with properties, or an open one, is not.
#[test]
fn only_a_closed_empty_object_is_an_empty_record() {
    let ts = |input: Value| file(&typescript(&doc(input)), "src/index.ts").to_string();
    let closed = ts(json!({"type": "object", "additionalProperties": false}));
    assert!(
        closed.contains("export type TInput = Record<string, never>;"),
        "{closed}"
    );
    let with_field = ts(json!({"type": "object", "additionalProperties": false,
        "properties": {"a": {"type": "string"}}, "required": ["a"]}));
    assert!(
        with_field.contains("export type TInput = {\n  a: string;\n"),
        "{with_field}"
    );
    let open = ts(json!({"type": "object"}));
    assert!(
        !open.contains("export type TInput = Record<string, never>;"),
        "{open}"
    );
}

/// `oneOf` of a string and an integer is an untagged enum of the two.
#[test]
fn a_union_of_scalars_is_an_untagged_enum() {
    let types = types_of_v(
        json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        true,
        json!({}),
    );
    assert!(types.contains("pub v: TInputV,"), "{types}");
    assert!(
        types.contains("#[serde(untagged)]\npub enum TInputV {")
            && types.contains("    Integer(i64),\n")
            && types.contains("    String(String),\n"),
        "{types}"
    );
}

/// A union with a `null` alternative (by `type` or by `const`) is the other
/// alternative, nullable.
#[test]
fn a_null_alternative_makes_the_value_nullable() {
    for alt in [json!({"type": "null"}), json!({"const": null})] {
        let types = types_of_v(json!({"anyOf": [{"type": "string"}, alt]}), true, json!({}));
        assert!(types.contains("pub v: Option<String>,"), "{alt}: {types}");
        assert!(!types.contains("pub enum"), "{alt}: {types}");
    }
}

/// Objects told apart by a property whose one allowed value differs (`enum` of one
/// value, like `const`) are a union tagged by that property.
#[test]
fn a_one_value_enum_property_tags_a_union() {
    let arm = |tag: &str, field: &str| {
        json!({"type": "object", "required": ["kind", field],
               "properties": {"kind": {"enum": [tag]}, field: {"type": "number"}}})
    };
    let types = types_of_v(
        json!({"oneOf": [arm("circle", "r"), arm("square", "side")]}),
        true,
        json!({}),
    );
    assert!(
        types.contains("#[serde(tag = \"kind\")]\npub enum TInputV {"),
        "{types}"
    );
}

/// A `$ref` given a description through a one-element `allOf` is the referenced type.
#[test]
fn a_described_reference_is_the_referenced_type() {
    let types = types_of_v(
        json!({"description": "The pet.", "allOf": [{"$ref": "#/$defs/Pet"}]}),
        true,
        json!({"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}),
    );
    assert!(types.contains("pub v: Pet,"), "{types}");
    assert_eq!(types.matches("pub struct").count(), 2, "{types}");
}

/// An input that is a component (`$componentRef`) is that component's type.
#[test]
fn a_component_input_is_the_components_type() {
    let doc = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "components": {"schemas": {"Query": {"type": "object",
            "properties": {"q": {"type": "string"}}, "required": ["q"]}}},
        "tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/Query"}}]
    });
    let types = file(&rust(&doc), "src/types.rs").to_string();
    assert!(types.contains("pub type TInput = Query;"), "{types}");
    assert!(types.contains("pub struct Query {"), "{types}");
}

/// An enum of numbers is typed by its values: integers are `i64`.
#[test]
fn an_enum_of_integers_is_an_integer() {
    let types = types_of_v(json!({"enum": [1, 2, 3]}), true, json!({}));
    assert!(types.contains("pub v: i64,"), "{types}");
}

/// Results across revisions (lower/revisions.rs): `t`'s 2025-11-25 output wraps its
/// 2026-07-28 array in `result` and is unwrapped there; `u`'s output is the same at
/// both; `w`'s 2025-11-25 object also demands a property `more` when `result` is there
/// (`dependentRequired`), so it is no wrapper: a warning, and no unwrapping.
#[test]
fn results_are_unwrapped_only_from_a_true_wrapper() {
    let list = json!({"type": "array", "items": {"type": "string"}});
    let wrapper = json!({"type": "object", "properties": {"result": list}, "required": ["result"]});
    let mut not_wrapper = wrapper.clone();
    not_wrapper["dependentRequired"] = json!({"result": ["more"]});
    let input = json!({"type": "object"});
    let at = |name: &str, rev: &str, output: &Value| json!({"name": name, "protocolVersions": [rev], "inputSchema": input, "outputSchema": output});
    let object = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let doc = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-11-25", "2026-07-28"],
        "tools": [
            at("t", "2025-11-25", &wrapper), at("t", "2026-07-28", &list),
            {"name": "u", "inputSchema": input, "outputSchema": object},
            at("w", "2025-11-25", &not_wrapper), at("w", "2026-07-28", &list),
        ]
    });
    let g = rust(&doc);
    let lib = file(&g, "src/lib.rs");
    assert!(
        lib.contains("            \"2025-11-25\" => Decode::Unwrap(\"result\"),\n            _ => Decode::Same,\n"),
        "{lib}"
    );
    assert_eq!(
        lib.matches("Decode::Unwrap(\"result\")").count(),
        1,
        "{lib}"
    );
    assert!(
        lib.contains("self.call_structured(\"u\", &input, Decode::Same)"),
        "{lib}"
    );
    assert_eq!(
        diags(&g)
            .iter()
            .filter(|(c, _)| c == "codegen-output-differs-by-revision")
            .count(),
        1,
        "{:?}",
        g.diagnostics
    );
}
