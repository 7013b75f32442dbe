//! Workspace-level tests: typed client code generation (issue 6).
//!
//! - snapshots of the IR, the diagnostics and every rendered file for each fixture in
//!   `tests/fixtures/codegen/` (read them when they change);
//! - hand-written expectations (names from the issue, escaping canaries) checked against
//!   the output with a small lexer that strips comments and string literals;
//! - compile proofs (`cargo check` + clippy, `tsc --noEmit`) and semantic round trips,
//!   through `mcpdesc_codegen_check` (the same code `cargo xtask check-generated` runs);
//! - end to end: generated clients call the npm `server-everything` and the Python test
//!   server.
//!
//! Tests that need `.deps` (node packages, the Python venv) or build generated crates
//! are ignored, with the reason, when `tests/build.rs` found them missing (or
//! `MCPDESC_SKIP_GENERATED_BUILDS` set); one that runs without them fails.

use mcpdesc_codegen::{Generated, RustOptions, TsOptions, TsSdk};
use mcpdesc_codegen_check::{self as check, CheckConfig};
use mcpdesc_core::ProtocolRevision;
use mcpdesc_tests::servers::{
    HttpChild, capture_equals_export, check_python_sdk_on_pets, check_rust_client_on_pets, link,
    run_rust_app, run_ts_app,
};
use mcpdesc_tests::{
    check_config, code_only, deps_dir, fixture, missing, snapshot_dir, workspace_root,
};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &[&str] = &[
    "constructs",
    "hostile",
    "everything",
    "py-server",
    "many-tools",
    "revisions",
];

/// What `mcpdesc generate` does: validate once; an invalid description is refused with
/// the validator's errors and nothing is generated; a valid one is generated from the
/// validator's handle (which the generator does not validate again).
fn generate(
    doc: &Value,
    f: impl FnOnce(&mcpdesc_validate::Validated<'_>) -> Result<Generated, mcpdesc_codegen::Error>,
) -> Result<Generated, mcpdesc_codegen::Error> {
    match mcpdesc_validate::Validator::new().check(doc) {
        Ok(valid) => {
            let before = mcpdesc_validate::runs_on_this_thread();
            let g = f(&valid);
            assert_eq!(
                mcpdesc_validate::runs_on_this_thread(),
                before,
                "the generator validated again"
            );
            g
        }
        Err(d) => Ok(Generated {
            ir: None,
            files: Vec::new(),
            diagnostics: d.into_iter().filter(|d| d.is_error()).collect(),
        }),
    }
}

fn generate_rust(doc: &Value, opts: &RustOptions) -> Result<Generated, mcpdesc_codegen::Error> {
    generate(doc, |v| mcpdesc_codegen::generate_rust(v, opts))
}

fn generate_typescript(doc: &Value, opts: &TsOptions) -> Result<Generated, mcpdesc_codegen::Error> {
    generate(doc, |v| mcpdesc_codegen::generate_typescript(v, opts))
}

fn generate_clients(
    doc: &Value,
    rust: &RustOptions,
    ts: &TsOptions,
) -> (
    Result<Generated, mcpdesc_codegen::Error>,
    Result<Generated, mcpdesc_codegen::Error>,
) {
    match mcpdesc_validate::Validator::new().check(doc) {
        Ok(valid) => mcpdesc_codegen::generate_clients(&valid, rust, ts),
        Err(_) => (generate_rust(doc, rust), generate_typescript(doc, ts)),
    }
}

fn load(name: &str) -> Value {
    let path = fixture(&format!("codegen/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn file<'a>(g: &'a mcpdesc_codegen::Generated, path: &str) -> &'a str {
    &g.files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path}"))
        .contents
}

#[test]
fn snapshots_of_ir_diagnostics_and_files() {
    for name in FIXTURES {
        let doc = load(name);
        let rs = generate_rust(&doc, &RustOptions::default()).expect("rust generation");
        let ts = generate_typescript(&doc, &TsOptions::default()).expect("ts generation");
        assert!(
            !rs.files.is_empty(),
            "{name}: no Rust files; diagnostics: {:#?}",
            rs.diagnostics
        );
        assert!(!ts.files.is_empty(), "{name}: no TS files");
        let diags: Vec<String> = rs
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "{}[{}] {} (at {})",
                    d.severity, d.code, d.message, d.pointer
                )
            })
            .collect();
        insta::with_settings!({snapshot_path => snapshot_dir("codegen"), prepend_module_to_snapshot => false}, {
            insta::assert_yaml_snapshot!(format!("{name}-ir"), rs.ir);
            insta::assert_yaml_snapshot!(format!("{name}-diagnostics"), diags);
            for f in &rs.files {
                insta::assert_snapshot!(format!("{name}-rust-{}", f.path.replace('/', "-")), f.contents);
            }
            for f in &ts.files {
                insta::assert_snapshot!(format!("{name}-ts-{}", f.path.replace('/', "-")), f.contents);
            }
        });
    }
}

/// The generated TypeScript server trees (issue 32): every file of the `revisions`
/// fixture's stub (two revisions, a reshaped output, an example, a tool at one revision)
/// and of `everything`'s (many tools, content and structured outputs), the user's seeds
/// included. Read them when they change.
#[test]
fn snapshots_of_typescript_server_trees() {
    for name in ["revisions", "everything"] {
        let doc = load(name);
        let valid = mcpdesc_validate::Validator::new()
            .check(&doc)
            .expect("valid");
        let g = mcpdesc_codegen::generate_typescript_server(&valid, &Default::default())
            .expect("generates");
        assert!(
            !g.generated.files.is_empty(),
            "{name}: {:#?}",
            g.generated.diagnostics
        );
        let seeds: Vec<&str> = g.seeds.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(seeds, ["src/handlers.ts", "src/main.ts"], "{name}");
        assert!(
            g.generated
                .files
                .iter()
                .all(|f| !seeds.contains(&f.path.as_str())),
            "{name}: a seed is also a generated file"
        );
        insta::with_settings!({snapshot_path => snapshot_dir("codegen"), prepend_module_to_snapshot => false}, {
            for f in g.generated.files.iter().chain(&g.seeds) {
                insta::assert_snapshot!(format!("{name}-ts-server-{}", f.path.replace('/', "-")), f.contents);
            }
        });
    }
}

#[test]
fn names_follow_the_issue() {
    let doc = load("everything");
    let rs = generate_rust(&doc, &RustOptions::default()).expect("generates");
    let lib = file(&rs, "src/lib.rs");
    let types = file(&rs, "src/types.rs");
    assert!(lib.contains("pub async fn get_structured_content(&self, input: GetStructuredContentInput) -> Result<GetStructuredContentOutput, Error>"));
    assert!(types.contains("pub struct GetStructuredContentOutput {"));
    assert!(
        lib.contains("pub type EchoOutput = Vec<ContentBlock>;"),
        "tools without outputSchema return content blocks"
    );
    assert!(
        lib.contains("self.call_structured(\"get-structured-content\", &input)"),
        "wire name is the server's tool name"
    );
    assert!(
        lib.contains("pub async fn connect_stdio(")
            && lib.contains("pub async fn connect_http(url: &str) -> Result<Client, Error>")
            && lib.contains("pub async fn close(self) -> Result<(), Error>")
    );
    let ts = generate_typescript(&doc, &TsOptions::default()).expect("generates");
    let index = file(&ts, "src/index.ts");
    assert!(index.contains("async getStructuredContent(input: GetStructuredContentInput): Promise<GetStructuredContentOutput>"));
    assert!(index.contains(
        "static async connectStdio(command: string, args: string[] = [], options: ConnectOptions = {}): Promise<McpClient>"
    ));
    assert!(index.contains("export class ToolError extends Error"));
    assert!(!index.contains("interface ") && !index.contains(": any") && !index.contains("<any>"));
}

#[test]
fn repeated_defs_share_one_type_and_different_ones_do_not() {
    // Importers make every tool schema self-contained, so one OpenAPI component is
    // repeated as `$defs/Pet` in many tools. Identical definitions (same name, same
    // JSON, same reachable definitions) are one type; a same-named definition with
    // different content is a second type with a collision diagnostic.
    let pet = serde_json::json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "owner": {"$ref": "#/$defs/Owner"}},
        "required": ["name"]
    });
    let owner = serde_json::json!({"type": "object", "properties": {"id": {"type": "integer"}}});
    let other_owner =
        serde_json::json!({"type": "object", "properties": {"id": {"type": "string"}}});
    let tool = |name: &str, owner: &Value| {
        serde_json::json!({
            "name": name,
            "inputSchema": {"type": "object", "additionalProperties": false},
            "outputSchema": {
                "type": "object",
                "properties": {"pet": {"$ref": "#/$defs/Pet"}},
                "$defs": {"Pet": pet, "Owner": owner}
            }
        })
    };
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "pets", "version": "1.0.0"},
        "protocolVersions": ["2025-11-25"],
        "tools": [tool("get_pet", &owner), tool("find_pet", &owner), tool("odd_pet", &other_owner)]
    });
    let g = generate_rust(&doc, &RustOptions::default()).expect("generates");
    let types = file(&g, "src/types.rs");
    assert_eq!(types.matches("pub struct Pet {").count(), 1, "{types}");
    assert_eq!(types.matches("pub struct Owner {").count(), 1, "{types}");
    // get_pet and find_pet share Pet; odd_pet's Pet reaches a different Owner.
    assert!(types.contains("pub pet: Option<Pet>,"), "{types}");
    assert!(types.contains("pub struct Pet2 {") && types.contains("pub struct Owner2 {"));
    assert!(types.contains("pub pet: Option<Pet2>,"), "{types}");
    assert!(
        !types.contains("Pet3") && !types.contains("Owner3"),
        "{types}"
    );
    let collisions = g
        .diagnostics
        .iter()
        .filter(|d| d.code == "codegen-name-collision")
        .count();
    assert_eq!(collisions, 2, "{:#?}", g.diagnostics);
}

/// Issue 12: one component is one type across tools. An importer inlines a component
/// as the output root of `createPet` and repeats it as `$defs/Pet` where `listPets`
/// references it; both show the same `Pet` (as progenitor gives), whatever the tool
/// order. The root must equal the definition exactly, including the definitions both
/// reach: a root that only looks like `Pet` stays the tool's own type.
#[test]
fn a_component_root_is_the_components_one_type() {
    let owner = serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let pet = serde_json::json!({
        "type": "object", "required": ["id"],
        "properties": {"id": {"type": "integer"}, "owner": {"$ref": "#/$defs/Owner"}}
    });
    let with_defs = |root: &Value, owner: &Value| {
        let mut r = root.clone();
        r["$defs"] = serde_json::json!({"Owner": owner});
        r
    };
    let list = serde_json::json!({
        "name": "listPets", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "array", "items": {"$ref": "#/$defs/Pet"},
                         "$defs": {"Pet": pet, "Owner": owner}}
    });
    let create = serde_json::json!({
        "name": "createPet", "inputSchema": {"type": "object"}, "outputSchema": with_defs(&pet, &owner)
    });
    let get = serde_json::json!({
        "name": "getPet", "inputSchema": {"type": "object"}, "outputSchema": with_defs(&pet, &owner)
    });
    // Same JSON as `Pet`, but its `Owner` is another type: not `Pet`.
    let odd_owner =
        serde_json::json!({"type": "object", "properties": {"name": {"type": "integer"}}});
    let odd = serde_json::json!({
        "name": "oddPet", "inputSchema": {"type": "object"}, "outputSchema": with_defs(&pet, &odd_owner)
    });
    let doc = |tools: Vec<&Value>| {
        serde_json::json!({
            "mcpdesc": "0.8.0", "info": {"name": "pets", "version": "1"},
            "protocolVersions": ["2026-07-28"], "tools": tools
        })
    };
    for tools in [
        vec![&list, &create, &get, &odd],
        vec![&create, &odd, &get, &list],
    ] {
        let g = generate_rust(&doc(tools), &RustOptions::default()).expect("generates");
        let types = file(&g, "src/types.rs");
        assert_eq!(types.matches("pub struct Pet {").count(), 1, "{types}");
        assert_eq!(types.matches("pub struct Owner {").count(), 1, "{types}");
        for alias in [
            "pub type ListPetsOutput = Vec<Pet>;",
            "pub type CreatePetOutput = Pet;",
            "pub type GetPetOutput = Pet;",
        ] {
            assert!(types.contains(alias), "missing {alias}\n{types}");
        }
        assert!(types.contains("pub struct OddPetOutput {"), "{types}");
        assert!(
            !types.contains("Pet2") && !types.contains("CreatePetOutputOwner"),
            "{types}"
        );
        let collisions: Vec<_> = g
            .diagnostics
            .iter()
            .filter(|d| d.code == "codegen-name-collision")
            .collect();
        assert_eq!(
            collisions.len(),
            1,
            "only oddPet's Owner collides: {collisions:#?}"
        );
        let ts = generate_typescript(&doc(vec![&list, &create]), &TsOptions::default())
            .expect("generates");
        let index = file(&ts, "src/index.ts");
        assert!(
            index.contains("export type CreatePetOutput = Pet;"),
            "{index}"
        );
        assert!(
            index.contains("export type ListPetsOutput = Array<Pet>;"),
            "{index}"
        );
    }
    // Without any `$defs` to compare with, the importer's provenance names the
    // component; a wrapped output's provenance names the wrapped value, not the root.
    let provenance = |name: &str, wrapper: Option<&str>| {
        let mut response = serde_json::json!({"status": "200", "component": "Pet"});
        if let Some(w) = wrapper {
            response["resultWrapper"] = serde_json::json!(w);
        }
        serde_json::json!({
            "name": name, "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}},
            "x-mcpdesc-openapi": {"method": "GET", "path": format!("/{name}"), "response": response}
        })
    };
    let g = generate_rust(
        &doc(vec![
            &provenance("a", None),
            &provenance("b", None),
            &provenance("c", Some("result")),
        ]),
        &RustOptions::default(),
    )
    .expect("generates");
    let types = file(&g, "src/types.rs");
    assert!(
        types.contains("pub type AOutput = Pet;") && types.contains("pub type BOutput = Pet;"),
        "{types}"
    );
    assert!(types.contains("pub struct COutput {"), "{types}");
}

/// A `$ref` whose only sibling is a one-element `allOf` wrapper (OpenAPI 3.0's nullable
/// or described reference) is the referenced type, not a merged copy of it.
#[test]
fn a_single_allof_reference_is_the_referenced_type() {
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0", "info": {"name": "pets", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "tools": [{"name": "getPet", "inputSchema": {"type": "object"}, "outputSchema": {
            "type": "object",
            "properties": {
                "owner": {"anyOf": [{"allOf": [{"$ref": "#/$defs/Owner"}]}, {"type": "null"}]},
                "vet": {"description": "The vet.", "allOf": [{"$ref": "#/$defs/Owner"}]}
            },
            "$defs": {"Owner": {"type": "object", "properties": {"name": {"type": "string"}}}}
        }}]
    });
    let g = generate_rust(&doc, &RustOptions::default()).expect("generates");
    let types = file(&g, "src/types.rs");
    assert!(types.contains("pub owner: Option<Owner>,"), "{types}");
    assert!(types.contains("pub vet: Option<Owner>,"), "{types}");
    assert_eq!(types.matches("pub struct").count(), 2, "{types}");
}

/// `generate_clients` (one lowering, renderers in parallel: the fast path of issue 7)
/// gives what the two generators give one after the other, for every fixture, with
/// the default revision, an explicit one, one that differs per language, and a
/// revision the document lacks.
#[test]
fn generate_clients_equals_the_two_generators() {
    let files =
        |g: &mcpdesc_codegen::Generated| (g.files.clone(), g.diagnostics.clone(), g.ir.clone());
    for name in FIXTURES {
        let doc = load(name);
        for (rv, tv) in [
            (None, None),
            (Some("2025-11-25"), Some("2025-11-25")),
            (Some("2025-11-25"), None),
            (Some("2026-07-28"), None),
            (Some("2025-03-26"), Some("2025-03-26")),
        ] {
            let rev = |v: Option<&str>| v.map(|s| s.parse::<ProtocolRevision>().expect("known"));
            let rust = RustOptions {
                protocol_version: rev(rv),
                ..Default::default()
            };
            let ts = TsOptions {
                protocol_version: rev(tv),
                ..Default::default()
            };
            let (r, t) = generate_clients(&doc, &rust, &ts);
            let (r, t) = (r.expect("rust"), t.expect("typescript"));
            let r1 = generate_rust(&doc, &rust).expect("rust");
            let t1 = generate_typescript(&doc, &ts).expect("typescript");
            assert!(files(&r) == files(&r1), "{name} {rv:?}: Rust differs");
            assert!(files(&t) == files(&t1), "{name} {tv:?}: TypeScript differs");
        }
    }
}

/// The generators take the validator's handle and never validate again: lowering the
/// views of the handle gives what the generator gives, on every fixture and revision,
/// and no generator call runs the validator (the `generate` helper counts).
#[test]
fn generating_from_the_handle_validates_nothing_again() {
    use mcpdesc_codegen::lower::{Views, lower};
    for name in FIXTURES {
        let doc = load(name);
        let valid = mcpdesc_tests::valid(&doc);
        for rev in [None].into_iter().chain(ProtocolRevision::ALL.map(Some)) {
            let before = mcpdesc_validate::runs_on_this_thread();
            let views = Views::project(&valid, rev).map(|v| {
                let l = lower(&v);
                (l.ir, l.diagnostics)
            });
            let opts = RustOptions {
                protocol_version: rev,
                ..Default::default()
            };
            let g = mcpdesc_codegen::generate_rust(&valid, &opts).expect("generates");
            assert_eq!(
                mcpdesc_validate::runs_on_this_thread(),
                before,
                "{name} {rev:?}"
            );
            match views {
                Ok((ir, _)) => assert!(g.ir == Some(ir), "{name} {rev:?}: differs"),
                Err(d) => assert_eq!(g.diagnostics, d, "{name} {rev:?}"),
            }
        }
    }
}

#[test]
fn projection_selects_tools_by_protocol_version() {
    let doc = load("constructs");
    let latest = generate_rust(&doc, &RustOptions::default()).expect("generates");
    let ir = latest.ir.expect("ir");
    assert_eq!(ir.protocol_version, ProtocolRevision::V2026_07_28);
    assert!(!ir.tools.iter().any(|t| t.wire_name == "old-only"));
    let old = generate_rust(
        &doc,
        &RustOptions {
            protocol_version: Some(ProtocolRevision::V2025_11_25),
            ..Default::default()
        },
    )
    .expect("generates");
    let names: Vec<String> = old
        .ir
        .expect("ir")
        .tools
        .iter()
        .map(|t| t.wire_name.clone())
        .collect();
    assert_eq!(names, ["ping", "old-only"]);
    let bad = generate_rust(
        &doc,
        &RustOptions {
            protocol_version: Some(ProtocolRevision::V2025_03_26),
            ..Default::default()
        },
    )
    .expect("runs");
    assert!(bad.files.is_empty());
    assert!(bad.ir.is_none());
    assert_eq!(bad.diagnostics[0].code, "revision-not-in-document");
}

/// Codegen consumes the validated Effective Protocol View: an invalid description is
/// refused with the validator's diagnostics (here §9.1: `title` does not exist at
/// 2025-03-26), and nothing is generated.
#[test]
fn invalid_descriptions_are_refused_with_their_diagnostics() {
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-03-26"],
        "tools": [{"name": "t", "title": "T", "inputSchema": {"type": "object"}}]
    });
    let expected = mcpdesc_validate::validate_value(&doc);
    assert!(expected.iter().any(|d| d.is_error()), "{expected:#?}");
    let (r, t) = generate_clients(&doc, &Default::default(), &Default::default());
    for g in [r.expect("rust"), t.expect("typescript")] {
        assert!(g.ir.is_none() && g.files.is_empty());
        let codes: Vec<(&str, &str)> = g
            .diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.pointer.as_str()))
            .collect();
        assert_eq!(codes, [("field-revision-mismatch", "/tools/0/title")]);
    }
    // The generators take only the validator's handle, which such a document never
    // gets (lowering of unvalidated documents is the `lower_schema` fuzz target's).
    assert!(mcpdesc_validate::Validator::new().check(&doc).is_err());
}

/// The IR and the diagnostics point into the description as given, not into the view
/// (which drops the tools of other revisions, so its `/tools/N` differ).
#[test]
fn pointers_are_into_the_source_document() {
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-11-25", "2026-07-28"],
        "tools": [
            {"name": "old", "protocolVersions": ["2025-11-25"], "inputSchema": {"type": "object"}},
            {"name": "new", "inputSchema": {"type": "object",
                "properties": {"when": {"if": {"type": "string"}}}}}
        ]
    });
    let g = generate_rust(&doc, &RustOptions::default()).expect("generates");
    let ir = g.ir.expect("ir");
    assert_eq!(ir.tools.len(), 1);
    assert_eq!(ir.tools[0].origin, "/tools/1");
    let unsupported: Vec<&str> = g
        .diagnostics
        .iter()
        .filter(|d| d.code == "codegen-unsupported-keyword")
        .map(|d| d.pointer.as_str())
        .collect();
    assert_eq!(unsupported, ["/tools/1/inputSchema/properties/when/if"]);
}

#[test]
fn hostile_names_are_escaped_and_reported() {
    let doc = load("hostile");
    let rs = generate_rust(&doc, &RustOptions::default()).expect("generates");
    let lib = file(&rs, "src/lib.rs");
    let types = file(&rs, "src/types.rs");
    // Keywords: raw identifiers where legal, `_` suffix where not.
    assert!(
        types.contains("pub r#type: String,")
            && types.contains("pub r#gen: Option<bool>,")
            && types.contains("pub self_: Option<String>,")
    );
    assert!(
        types.contains("pub r#async: Option<String>,")
            && types.contains("pub super_: Option<String>,")
            && types.contains("pub crate_: Option<String>,")
    );
    // Case-folding duplicates get deterministic suffixes, in declaration order.
    assert!(
        types.contains("pub user_name: Option<String>,")
            && types.contains("pub user_name2: Option<String>,")
            && types.contains("pub user_name3: Option<String>,")
    );
    // Tool name collisions and reserved method names.
    for m in [
        "get_data(",
        "get_data2(",
        "get_data3(",
        "self_(",
        "r#type(",
        "close2(",
        "connect_stdio2(",
        "r#gen(",
    ] {
        assert!(
            lib.contains(&format!("pub async fn {m}")),
            "missing method {m}"
        );
    }
    // Two different `Address` definitions are two types.
    assert!(types.contains("pub struct Address {") && types.contains("pub struct Address2 {"));
    let codes: Vec<&str> = rs.diagnostics.iter().map(|d| d.code.as_str()).collect();
    for c in [
        "codegen-name-collision",
        "codegen-type-cycle",
        "codegen-schema-too-deep",
        "codegen-ref-external",
    ] {
        assert!(codes.contains(&c), "expected diagnostic {c}; got {codes:?}");
    }
    let cycle = rs
        .diagnostics
        .iter()
        .find(|d| d.code == "codegen-type-cycle")
        .expect("cycle");
    assert!(
        cycle.pointer.starts_with("/tools/15/inputSchema/$defs/"),
        "{}",
        cycle.pointer
    );
    let ts = generate_typescript(&doc, &TsOptions::default()).expect("generates");
    let index = file(&ts, "src/index.ts");
    for m in [
        "getData(",
        "getData2(",
        "getData3(",
        "type_(",
        "close2(",
        "constructor_(",
        "proto(",
    ] {
        assert!(
            index.contains(&format!("async {m}")),
            "missing TS method {m}"
        );
    }
    assert!(
        index.contains("\"__proto__\"?: string;")
            && index.contains("\"with \\\"quote\\\"\"?: string;")
    );
}

#[test]
fn canaries_stay_inert() {
    let doc = load("hostile");
    let rs = generate_rust(&doc, &RustOptions::default()).expect("generates");
    for f in &rs.files {
        let code = code_only(&f.contents, false);
        for bad in ["exit(42)", "fn main", "#[test]", "fn injected", "build.rs"] {
            assert!(!code.contains(bad), "{}: `{bad}` escaped into code", f.path);
        }
        assert!(
            !f.contents.contains('\u{2028}')
                && !f.contents.contains('\u{202E}')
                && !f.contents.contains('\r')
                && !f.contents.contains('\0'),
            "{}: raw control character",
            f.path
        );
    }
    // Markdown that could become a doctest is fenced as text.
    assert!(
        file(&rs, "src/lib.rs").contains("//! ````text"),
        "crate docs with a code fence must be wrapped in a longer text fence"
    );
    let cargo = file(&rs, "Cargo.toml");
    assert!(
        cargo.contains("name = \"evil-build-build-rs-client\"")
            && !cargo.contains("\n[dependencies]\nevil"),
        "{cargo}"
    );
    let ts = generate_typescript(&doc, &TsOptions::default()).expect("generates");
    for f in &ts.files {
        let code = code_only(&f.contents, true);
        for bad in ["exit(42)", "process.exit"] {
            assert!(!code.contains(bad), "{}: `{bad}` escaped into code", f.path);
        }
        assert!(
            !f.contents.contains('\u{2028}')
                && !f.contents.contains('\u{2029}')
                && !f.contents.contains('\r'),
            "{}: raw line separator",
            f.path
        );
    }
}

#[test]
fn spec_fixtures_generate_without_panics() {
    // Every valid official fixture lowers and renders; the generator never panics and
    // reports only warnings/infos for valid documents.
    let dir = fixture("spec/fixtures/expected-valid");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return missing("tests/fixtures/spec/fixtures/expected-valid");
    };
    let mut n = 0;
    for e in entries.flatten() {
        let p = e.path();
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let format = mcpdesc_core::Format::detect(p.to_str(), &text);
        let Ok(decoded) = mcpdesc_core::decode(&text, format, &mcpdesc_core::Limits::default())
        else {
            continue;
        };
        let rs = generate_rust(&decoded.value, &RustOptions::default()).expect("renders");
        let ts = generate_typescript(&decoded.value, &TsOptions::default()).expect("renders");
        let errors: Vec<_> = rs.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", p.display());
        assert!(!rs.files.is_empty() && !ts.files.is_empty());
        n += 1;
    }
    assert!(n > 10, "only {n} spec fixtures found");
}

/// The templates live in the workspace's top-level `templates/`; the crate's own
/// `templates` (askama `dirs` relative to it) is a relative symlink to that folder,
/// which `cargo package` follows, so a packaged `mcpdesc-codegen` carries them as files.
#[test]
fn the_crate_packages_its_templates() {
    let link = workspace_root().join("crates/mcpdesc-codegen/templates");
    assert_eq!(
        std::fs::read_link(&link).ok(),
        Some(std::path::PathBuf::from("../../templates")),
        "crates/mcpdesc-codegen/templates is a relative symlink to the top-level templates/"
    );
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "package",
            "-p",
            "mcpdesc-codegen",
            "--list",
            "--allow-dirty",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("cargo runs");
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let templates = std::fs::read_dir(workspace_root().join("templates"))
        .expect("templates/")
        .flatten()
        .flat_map(|lang| {
            std::fs::read_dir(lang.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .count();
    assert_eq!(templates, 17);
    let packaged = listed
        .lines()
        .filter(|l| l.starts_with("templates/"))
        .count();
    assert_eq!(packaged, templates, "{listed}");
    assert!(listed.lines().any(|l| l == "askama.toml"), "{listed}");
}

fn report(reports: &[check::FixtureReport]) -> String {
    let mut s = String::new();
    for r in reports {
        for st in &r.steps {
            s.push_str(&format!(
                "{} {:>6.1}s {}\n",
                if st.ok { "ok  " } else { "FAIL" },
                st.seconds,
                st.step
            ));
            if !st.ok {
                s.push_str(&st.output);
                s.push('\n');
            }
        }
        for rt in &r.round_trips {
            if let Err(e) = &rt.result {
                s.push_str(&format!(
                    "FAIL round trip {} ({}): {e}\n",
                    rt.origin, rt.rust_type
                ));
            }
        }
    }
    s
}

#[cfg_attr(
    mcpdesc_skip_generated_builds,
    ignore = "MCPDESC_SKIP_GENERATED_BUILDS is set"
)]
#[test]
fn generated_rust_compiles_and_round_trips() {
    if std::env::var_os("MCPDESC_SKIP_GENERATED_BUILDS").is_some() {
        return missing("generated builds (MCPDESC_SKIP_GENERATED_BUILDS is set)");
    }
    let cfg = check_config();
    let fixtures: Vec<PathBuf> = FIXTURES
        .iter()
        .map(|n| fixture(&format!("codegen/{n}.json")))
        .collect();
    let reports = check::check_generated(&fixtures, &cfg, true, false).expect("checks run");
    let text = report(&reports);
    eprintln!("{text}");
    assert!(reports.iter().all(|r| r.ok()), "{text}");
    // The round trips ran (fixtures with Tool Examples).
    let trips: usize = reports.iter().map(|r| r.round_trips.len()).sum();
    assert!(trips >= 9, "only {trips} round trips");
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn generated_typescript_compiles() {
    let cfg = check_config();
    if cfg.tsc().is_none() || !cfg.has_sdk() {
        return missing("typescript / @modelcontextprotocol/sdk in .deps/node");
    }
    let fixtures: Vec<PathBuf> = FIXTURES
        .iter()
        .map(|n| fixture(&format!("codegen/{n}.json")))
        .collect();
    let reports = check::check_generated(&fixtures, &cfg, false, true).expect("checks run");
    let text = report(&reports);
    eprintln!("{text}");
    assert!(reports.iter().all(|r| r.ok()), "{text}");
}

fn everything_server(cfg: &CheckConfig) -> Option<PathBuf> {
    let p = cfg
        .node_dir
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    p.is_file().then_some(p)
}

fn py_server() -> Option<(PathBuf, PathBuf)> {
    let py = deps_dir().join("venv/bin/python");
    let script = fixture("live/servers/py_server.py");
    (py.is_file() && script.is_file()).then_some((py, script))
}

/// A tiny program using the generated crates; prints one JSON line per call.
const RUST_E2E_MAIN: &str = r#"
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let everything = everything_client::Client::connect_stdio("node", [args[0].as_str(), "stdio"]).await?;
    let weather = everything
        .get_structured_content(everything_client::GetStructuredContentInput { location: everything_client::GetStructuredContentInputLocation::Chicago })
        .await?;
    println!("{}", serde_json::json!({"weather": {"temperature": weather.temperature, "conditions": weather.conditions, "humidity": weather.humidity}}));
    let echoed = everything.echo(everything_client::EchoInput { message: "hi \"there\"".into() }).await?;
    let text: Vec<String> = echoed.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    println!("{}", serde_json::json!({"echo": text}));
    everything.close().await?;
    let py = py_client::Client::connect_stdio(&args[1], [args[2].as_str(), "stdio"]).await?;
    let sum = py.add(py_client::AddInput { a: 40, b: Some(2) }).await?;
    let w = py.get_weather(py_client::GetWeatherInput { city: "Oslo".into() }).await?;
    println!("{}", serde_json::json!({"add": sum.result, "weather": w.conditions}));
    py.close().await?;
    Ok(())
}
"#;

#[cfg_attr(
    any(
        mcpdesc_missing_node,
        mcpdesc_missing_venv,
        mcpdesc_skip_generated_builds
    ),
    ignore = "needs .deps/node and .deps/venv (cargo xtask deps) and MCPDESC_SKIP_GENERATED_BUILDS unset"
)]
#[test]
fn e2e_generated_rust_client_calls_real_servers() {
    if std::env::var_os("MCPDESC_SKIP_GENERATED_BUILDS").is_some() {
        return missing("generated builds (MCPDESC_SKIP_GENERATED_BUILDS is set)");
    }
    let cfg = check_config();
    let (Some(server), Some((py, script))) = (everything_server(&cfg), py_server()) else {
        return missing("server-everything (.deps/node) or the Python venv with mcp (.deps/venv)");
    };
    let crates: Vec<_> = [
        ("everything", "everything-client"),
        ("py-server", "py-client"),
    ]
    .into_iter()
    .map(|(fixture_name, crate_name)| {
        let opts = RustOptions {
            crate_name: Some(crate_name.into()),
            ..Default::default()
        };
        let g = generate_rust(&load(fixture_name), &opts).expect("generates");
        (crate_name.to_string(), g)
    })
    .collect();
    let stdout = run_rust_app(
        &cfg.work_dir.join("e2e-rust"),
        "e2e-app",
        &crates,
        RUST_E2E_MAIN,
        &[server.as_os_str(), py.as_os_str(), script.as_os_str()],
    );
    let lines: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let weather = &lines[0]["weather"];
    assert!(
        weather["temperature"].is_number()
            && weather["conditions"].is_string()
            && weather["humidity"].is_number(),
        "{weather}"
    );
    assert!(
        lines[1]["echo"][0]
            .as_str()
            .is_some_and(|t| t.contains("hi \"there\"")),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2]["add"], 42);
    assert_eq!(lines[2]["weather"], "sunny in Oslo");
}

const TS_E2E: &str = r#"
import { McpClient as Everything } from "./everything/dist/index.js";
import { McpClient as Py, ToolError } from "./py/dist/index.js";
const [server, py, script] = process.argv.slice(2);
const e = await Everything.connectStdio("node", [server, "stdio"]);
const w = await e.getStructuredContent({ location: "Chicago" });
const sum = await e.getSum({ a: 2, b: 3 });
const echo = await e.echo({ message: "hi" });
await e.close();
const p = await Py.connectStdio(py, [script, "stdio"]);
const add = await p.add({ a: 40, b: 2 });
let toolError = "";
try { await p.add({ a: "x" }); } catch (err) { toolError = err instanceof ToolError ? "ToolError" : String(err); }
await p.close();
console.log(JSON.stringify({ w, sum, echo, add, toolError }));
"#;

#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
#[test]
fn e2e_generated_typescript_client_calls_real_servers() {
    let cfg = check_config();
    let (Some(tsc), true, Some(server), Some((py, script))) = (
        cfg.tsc(),
        cfg.has_sdk(),
        everything_server(&cfg),
        py_server(),
    ) else {
        return missing(
            "typescript, the SDK and server-everything (.deps/node) or the Python venv (.deps/venv)",
        );
    };
    let packages =
        [("everything", "everything"), ("py-server", "py")].map(|(fixture_name, dir)| {
            let g =
                generate_typescript(&load(fixture_name), &TsOptions::default()).expect("generates");
            (dir, g)
        });
    let v = run_ts_app(
        &cfg,
        &tsc,
        &cfg.work_dir.join("e2e-ts"),
        &packages,
        TS_E2E,
        &[server.as_os_str(), py.as_os_str(), script.as_os_str()],
    );
    assert!(
        v["w"]["temperature"].is_number() && v["w"]["conditions"].is_string(),
        "{v}"
    );
    assert!(
        v["sum"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains('5')),
        "{v}"
    );
    assert!(
        v["echo"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("hi")),
        "{v}"
    );
    assert_eq!(v["add"]["result"], 42);
    assert_eq!(v["toolError"], "ToolError", "{v}");
}

fn pets_server() -> Option<(PathBuf, PathBuf)> {
    let py = deps_dir().join("venv/bin/python");
    let script = fixture("codegen/servers/pets_server.py");
    (py.is_file() && script.is_file()).then_some((py, script))
}

/// The `revisions` fixture projected to 2026-07-28 alone: a description with no view
/// for the revisions the TypeScript SDK (and a legacy server) negotiate.
fn modern_only() -> Value {
    mcpdesc_tests::project(&load("revisions"), ProtocolRevision::V2026_07_28).expect("projects")
}

/// Clients for the pet server: `pets` (types of the newest revision, 2026-07-28, where
/// `list_pets` returns an array), `pets-old` (types of 2025-11-25, where it returns
/// `{"result": [...]}`) and `pets-only` (a description declaring 2026-07-28 alone).
fn pets_clients() -> [(&'static str, Value, Option<ProtocolRevision>); 3] {
    [
        ("pets", load("revisions"), None),
        (
            "pets-old",
            load("revisions"),
            Some(ProtocolRevision::V2025_11_25),
        ),
        ("pets-only", modern_only(), None),
    ]
}

/// Asks the pet server for each revision in turn (rmcp negotiates 2025-06-18 and
/// 2025-11-25 with `initialize`, 2026-07-28 with `server/discover`); prints one JSON
/// line.
const RUST_REVISIONS_MAIN: &str = r#"
async fn pets_at(py: &str, script: &str, revision: Option<&str>) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let c = pets_client::Client::connect_stdio_at(py, [script, "stdio"], revision).await?;
    let pets = c.list_pets(pets_client::ListPetsInput { limit: Some(2) }).await?;
    let pet = c.get_pet(pets_client::GetPetInput { id: 2 }).await?;
    let adopt = match c.adopt(pets_client::AdoptInput { id: 1 }).await {
        Ok(blocks) => blocks.iter().filter_map(|b| b.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join(""),
        Err(e @ pets_client::Error::ToolUnavailable { .. }) => format!("ToolUnavailable: {e}"),
        Err(e) => return Err(e.into()),
    };
    let negotiated = c.protocol_version();
    c.close().await?;
    let names: Vec<String> = pets.into_iter().map(|p| p.name).collect();
    Ok(serde_json::json!({"asked": revision, "negotiated": negotiated, "pets": names, "pet": pet.name, "adopt": adopt}))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (py, script, everything) = (args[0].as_str(), args[1].as_str(), args[2].as_str());
    let mut sessions = Vec::new();
    for revision in [None, Some("2026-07-28"), Some("2025-11-25"), Some("2025-06-18")] {
        sessions.push(pets_at(py, script, revision).await?);
    }
    let mut old = Vec::new();
    for revision in ["2026-07-28", "2025-11-25"] {
        let c = pets_old_client::Client::connect_stdio_at(py, [script, "stdio"], Some(revision)).await?;
        let pets = c.list_pets(pets_old_client::ListPetsInput { limit: None }).await?;
        old.push(serde_json::json!({"negotiated": c.protocol_version(), "result": pets.result.len()}));
        c.close().await?;
    }
    let undeclared = match pets_client::Client::connect_stdio_at(py, [script, "stdio"], Some("2024-11-05")).await {
        Err(pets_client::Error::UnsupportedRevision { revision }) => revision,
        Err(e) => format!("other error: {e}"),
        Ok(_) => "connected".into(),
    };
    let legacy_server = match pets_only_client::Client::connect_stdio("node", [everything, "stdio"]).await {
        Err(e @ pets_only_client::Error::UnsupportedRevision { .. }) => e.to_string(),
        Err(e) => format!("other error: {e}"),
        Ok(_) => "connected".into(),
    };
    println!("{}", serde_json::json!({"sessions": sessions, "old": old, "undeclared": undeclared, "legacy_server": legacy_server}));
    Ok(())
}
"#;

/// Issue 12: generated clients are right for the revision they negotiate. Against the
/// Python SDK's server at 2026-07-28 (stateless) and at 2025-11-25 and 2025-06-18
/// (handshake), `list_pets` decodes the array that revision sends, unwrapping
/// `{"result": [...]}` where the description wraps it (and wrapping it for a client whose
/// types are 2025-11-25's); a tool outside the negotiated view fails without a call; a
/// revision the description has no view for fails the connection, naming it.
#[cfg_attr(
    any(
        mcpdesc_missing_node,
        mcpdesc_missing_venv,
        mcpdesc_skip_generated_builds
    ),
    ignore = "needs .deps/node and .deps/venv (cargo xtask deps) and MCPDESC_SKIP_GENERATED_BUILDS unset"
)]
#[test]
fn e2e_generated_rust_client_decodes_the_negotiated_revision() {
    if std::env::var_os("MCPDESC_SKIP_GENERATED_BUILDS").is_some() {
        return missing("generated builds (MCPDESC_SKIP_GENERATED_BUILDS is set)");
    }
    let cfg = check_config();
    let (Some((py, script)), Some(everything)) = (pets_server(), everything_server(&cfg)) else {
        return missing("the Python venv with mcp (.deps/venv) or server-everything (.deps/node)");
    };
    let crates: Vec<_> = pets_clients()
        .into_iter()
        .map(|(name, doc, revision)| {
            let opts = RustOptions {
                protocol_version: revision,
                crate_name: Some(format!("{name}-client")),
            };
            let g = generate_rust(&doc, &opts).expect("generates");
            assert!(!g.files.is_empty(), "{name}: {:#?}", g.diagnostics);
            (format!("{name}-client"), g)
        })
        .collect();
    let stdout = run_rust_app(
        &cfg.work_dir.join("e2e-revisions-rust"),
        "e2e-app",
        &crates,
        RUST_REVISIONS_MAIN,
        &[py.as_os_str(), script.as_os_str(), everything.as_os_str()],
    );
    let v: Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("json line");
    let sessions = v["sessions"].as_array().expect("sessions");
    let negotiated: Vec<&str> = sessions
        .iter()
        .map(|s| s["negotiated"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        negotiated,
        ["2026-07-28", "2026-07-28", "2025-11-25", "2025-06-18"],
        "{v}"
    );
    for s in sessions {
        assert_eq!(s["pets"], serde_json::json!(["Rex", "Tom"]), "{s}");
        assert_eq!(s["pet"], "Tom", "{s}");
        let adopt = s["adopt"].as_str().unwrap_or_default();
        if s["negotiated"] == "2026-07-28" {
            assert_eq!(adopt, "adopted 1", "{s}");
        } else {
            assert!(
                adopt.starts_with("ToolUnavailable")
                    && adopt.contains(s["negotiated"].as_str().unwrap_or("?")),
                "{s}"
            );
        }
    }
    assert_eq!(
        v["old"],
        serde_json::json!([
            {"negotiated": "2026-07-28", "result": 2},
            {"negotiated": "2025-11-25", "result": 2}
        ])
    );
    assert_eq!(v["undeclared"], "2024-11-05", "{v}");
    let legacy = v["legacy_server"].as_str().unwrap_or_default();
    assert!(
        legacy.contains("2025-11-25") && legacy.contains("2026-07-28"),
        "names the negotiated revision and the declared ones: {legacy}"
    );
}

const TS_REVISIONS_E2E: &str = r#"
import { McpClient, ToolUnavailableError } from "./pets/dist/index.js";
import { McpClient as Old } from "./pets-old/dist/index.js";
import { McpClient as Only, UnsupportedRevisionError } from "./pets-only/dist/index.js";
const [py, script] = process.argv.slice(2);
const c = await McpClient.connectStdio(py, [script, "stdio"]);
const negotiated = c.protocolVersion;
const pets = await c.listPets({ limit: 2 });
const pet = await c.getPet({ id: 2 });
let adopt = "";
try { await c.adopt({ id: 1 }); } catch (err) { adopt = err instanceof ToolUnavailableError ? `ToolUnavailableError ${err.revision}` : String(err); }
await c.close();
const o = await Old.connectStdio(py, [script, "stdio"]);
const old = await o.listPets({});
await o.close();
let only = "";
try { await (await Only.connectStdio(py, [script, "stdio"])).close(); only = "connected"; } catch (err) { only = err instanceof UnsupportedRevisionError ? `UnsupportedRevisionError ${err.revision}: ${err.message}` : String(err); }
console.log(JSON.stringify({ negotiated, pets, isArray: Array.isArray(pets), pet, adopt, old, only }));
"#;

/// `--sdk v1`: the TypeScript SDK 1.32.2 negotiates at most 2025-11-25, where the pet
/// server wraps `list_pets`' array: the client generated for 2026-07-28 unwraps it (it
/// used to cast the object to `Array<Pet>`), and a client whose description has no
/// 2025-11-25 view refuses the connection naming the revision.
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
#[test]
fn e2e_generated_typescript_client_decodes_the_negotiated_revision() {
    let cfg = check_config();
    let (Some(tsc), true, Some((py, script))) = (cfg.tsc(), cfg.has_sdk(), pets_server()) else {
        return missing(
            "typescript and the SDK (.deps/node) or the Python venv with mcp (.deps/venv)",
        );
    };
    let packages: Vec<_> = pets_clients()
        .into_iter()
        .map(|(name, doc, revision)| {
            let opts = TsOptions {
                protocol_version: revision,
                package_name: Some(name.into()),
                sdk: TsSdk::V1,
            };
            (name, generate_typescript(&doc, &opts).expect("generates"))
        })
        .collect();
    let v = run_ts_app(
        &cfg,
        &tsc,
        &cfg.work_dir.join("e2e-revisions-ts"),
        &packages,
        TS_REVISIONS_E2E,
        &[py.as_os_str(), script.as_os_str()],
    );
    assert_eq!(v["negotiated"], "2025-11-25", "{v}");
    assert_eq!(v["isArray"], true, "{v}");
    assert_eq!(
        v["pets"],
        serde_json::json!([{"id": 1, "name": "Rex"}, {"id": 2, "name": "Tom"}]),
        "{v}"
    );
    assert_eq!(v["pet"]["name"], "Tom", "{v}");
    assert_eq!(v["adopt"], "ToolUnavailableError 2025-11-25", "{v}");
    assert_eq!(v["old"]["result"].as_array().map(Vec::len), Some(2), "{v}");
    let only = v["only"].as_str().unwrap_or_default();
    assert!(
        only.starts_with("UnsupportedRevisionError 2025-11-25:") && only.contains("2026-07-28"),
        "{v}"
    );
}

const TS_V2_REVISIONS_E2E: &str = r#"
import { McpClient, ToolUnavailableError } from "./pets/dist/index.js";
import { McpClient as Only } from "./pets-only/dist/index.js";
const [py, script] = process.argv.slice(2);
const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
async function session(mode) {
  const c = await McpClient.connectStdio(py, [script, "stdio"], mode === undefined ? { traceContext: () => ({ traceparent }) } : { versionNegotiation: mode });
  const out = { negotiated: c.protocolVersion, server: c.serverInfo?.name, pets: await c.listPets({ limit: 2 }), pet: (await c.getPet({ id: 2 })).name };
  try { out.adopt = (await c.adopt({ id: 1 })).map((b) => b.type === "text" ? b.text : "").join(""); } catch (err) { out.adopt = err instanceof ToolUnavailableError ? `ToolUnavailableError ${err.revision}` : String(err); }
  await c.close();
  return out;
}
const auto = await session(undefined);
const legacy = await session("legacy");
const o = await Only.connectStdio(py, [script, "stdio"]);
const only = { negotiated: o.protocolVersion, pets: await o.listPets({}) };
await o.close();
console.log(JSON.stringify({ auto, legacy, only }));
"#;

/// The default v2 client (`@modelcontextprotocol/client` 2.4.0) negotiates with `mode:
/// 'auto'`: against the Python SDK's pet server it reaches 2026-07-28 through
/// `server/discover` (and `adopt`, which exists only there, is called), a
/// description that declares 2026-07-28 alone connects (the 1.x client could not),
/// and `versionNegotiation: "legacy"` gets the session revision 2025-11-25 where
/// `list_pets`' wrapped array is unwrapped. The server identity comes from the SDK.
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
#[test]
fn e2e_generated_typescript_v2_client_negotiates_each_revision() {
    let cfg = check_config();
    let (Some(tsc), true, Some((py, script))) = (cfg.tsc(), cfg.has_client_v2(), pets_server())
    else {
        return missing(
            "typescript and @modelcontextprotocol/client (.deps/node) or the Python venv (.deps/venv)",
        );
    };
    let packages: Vec<_> = pets_clients()
        .into_iter()
        .filter(|(name, _, _)| *name != "pets-old")
        .map(|(name, doc, revision)| {
            let opts = TsOptions {
                protocol_version: revision,
                package_name: Some(name.into()),
                ..Default::default()
            };
            (name, generate_typescript(&doc, &opts).expect("generates"))
        })
        .collect();
    let v = run_ts_app(
        &cfg,
        &tsc,
        &cfg.work_dir.join("e2e-revisions-ts-v2"),
        &packages,
        TS_V2_REVISIONS_E2E,
        &[py.as_os_str(), script.as_os_str()],
    );
    let pets = serde_json::json!([{"id": 1, "name": "Rex"}, {"id": 2, "name": "Tom"}]);
    assert_eq!(v["auto"]["negotiated"], "2026-07-28", "{v}");
    assert_eq!(v["auto"]["pets"], pets, "{v}");
    assert_eq!(v["auto"]["pet"], "Tom", "{v}");
    assert_eq!(v["auto"]["adopt"], "adopted 1", "{v}");
    assert_eq!(v["auto"]["server"], "pets", "{v}");
    assert_eq!(v["legacy"]["negotiated"], "2025-11-25", "{v}");
    assert_eq!(v["legacy"]["pets"], pets, "{v}");
    assert_eq!(
        v["legacy"]["adopt"], "ToolUnavailableError 2025-11-25",
        "{v}"
    );
    assert_eq!(v["only"]["negotiated"], "2026-07-28", "{v}");
    assert_eq!(v["only"]["pets"], pets, "{v}");
}

const TS_V2_MOCK_E2E: &str = r#"
import { McpClient } from "./pets/dist/index.js";
import { McpClient as Only } from "./pets-only/dist/index.js";
const [sessionUrl, onlyUrl] = process.argv.slice(2);
const o = await Only.connectHttp(onlyUrl, { headers: { "X-Trace-Test": "1" } });
const only = { negotiated: o.protocolVersion, pets: await o.listPets({ limit: 1 }) };
await o.close();
const c = await McpClient.connectHttp(sessionUrl, { versionNegotiation: "legacy" });
const session = { negotiated: c.protocolVersion, pets: await c.listPets({ limit: 1 }) };
await c.close();
const a = await McpClient.connectHttp(sessionUrl);
const auto = { negotiated: a.protocolVersion };
await a.close();
console.log(JSON.stringify({ only, session, auto }));
"#;

/// Issue 32's reproduction: a description that declares only 2026-07-28, its generated
/// (v2) client, and `mcpdesc serve --mock --http` on the same description: the client
/// reaches it at 2026-07-28 and calls a tool (the mock answers from the tool's named
/// example, `first`), with extra headers. On a description that also declares session
/// revisions, `"legacy"` negotiation gets 2025-11-25 (its `{"result": …}` wrapping
/// unwrapped) and the default `auto` 2026-07-28.
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn e2e_generated_typescript_v2_client_reaches_serve_mock_http() {
    let cfg = check_config();
    let (Some(tsc), true) = (cfg.tsc(), cfg.has_client_v2()) else {
        return missing("typescript and @modelcontextprotocol/client (.deps/node)");
    };
    let base = cfg.work_dir.join("e2e-mock-http-ts-v2");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("mkdir");
    let only_doc = modern_only();
    let only_path = base.join("only.mcpdesc.json");
    std::fs::write(&only_path, serde_json::to_string(&only_doc).expect("json")).expect("writes");
    // The session revisions' `list_pets` (which wraps the array) gets a named example.
    let mut session_doc = load("revisions");
    session_doc["tools"][0]["examples"] = serde_json::json!({"first": {
        "input": {"limit": 1},
        "result": {
            "content": [{"type": "text", "text": "1 pets"}],
            "structuredContent": {"result": [{"id": 1, "name": "Rex"}]}
        }
    }});
    let session_path = base.join("session.mcpdesc.json");
    std::fs::write(
        &session_path,
        serde_json::to_string(&session_doc).expect("json"),
    )
    .expect("writes");
    let packages: Vec<_> = [("pets", load("revisions")), ("pets-only", only_doc)]
        .into_iter()
        .map(|(name, doc)| {
            let opts = TsOptions {
                package_name: Some(name.into()),
                ..Default::default()
            };
            (name, generate_typescript(&doc, &opts).expect("generates"))
        })
        .collect();
    let session = HttpChild::serve(&[session_path.as_os_str(), "--mock".as_ref()]);
    let only = HttpChild::serve(&[only_path.as_os_str(), "--mock".as_ref()]);
    let v = run_ts_app(
        &cfg,
        &tsc,
        &base.join("app"),
        &packages,
        TS_V2_MOCK_E2E,
        &[session.url.as_ref(), only.url.as_ref()],
    );
    // The mock answers list_pets from its example `first` (tests/fixtures/codegen/revisions.json).
    let example =
        &load("revisions")["tools"][1]["examples"]["first"]["result"]["structuredContent"];
    assert_eq!(v["only"]["negotiated"], "2026-07-28", "{v}");
    assert_eq!(&v["only"]["pets"], example, "{v}");
    assert_eq!(v["session"]["negotiated"], "2025-11-25", "{v}");
    assert_eq!(
        v["session"]["pets"],
        serde_json::json!([{"id": 1, "name": "Rex"}]),
        "{v}"
    );
    assert_eq!(v["auto"]["negotiated"], "2026-07-28", "{v}");
}

// ---- code mode: the declarations `search_api` answers (issue 22) ----

/// Two tools sharing nothing, one with nested output types, one without an output
/// schema, with a name that is not an identifier and a title its description repeats.
fn shop() -> Value {
    serde_json::json!({
        "mcpdesc": "0.8.0", "info": {"name": "shop", "version": "1.0.0"},
        "protocolVersions": ["2025-11-25"],
        "tools": [
            {"name": "get_order", "title": "Get an order", "description": "Returns one order by id.",
             "inputSchema": {"type": "object", "properties": {"id": {"type": "integer", "description": "The order id."}}, "required": ["id"]},
             "outputSchema": {"type": "object",
                "properties": {"id": {"type": "integer"}, "customer": {"$ref": "#/$defs/Customer"}},
                "required": ["id"],
                "$defs": {
                    "Customer": {"type": "object", "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/Address"}}, "required": ["name"]},
                    "Address": {"type": "object", "properties": {"city": {"type": "string"}}}
                }}},
            {"name": "list-orders", "title": "Lists orders", "description": "Lists orders.",
             "inputSchema": {"type": "object", "properties": {"status": {"enum": ["open", "closed"]}}}}
        ]
    })
}

/// Written by hand from the rules in `mcpdesc_codegen::declarations` and the TypeScript
/// renderer's (one-line field docs as one-line JSDoc, integers as `number`, string enums
/// as unions):
/// at depth 1 `Customer` is declared and `Address` (depth 2) is cut; a title that the
/// description starts with is not said twice.
const SHOP_DECLARATIONS_DEPTH_1: &str = r#"type GetOrderInput = {
  /** The order id. */
  id: number;
};
type GetOrderOutput = {
  id: number;
  customer?: Customer;
};
type ListOrdersInput = {
  status?: ListOrdersInputStatus;
};
type Customer = {
  name: string;
  address?: unknown /* Address: not expanded */;
};
type ListOrdersInputStatus = "open" | "closed";

declare const api: {
  /**
   * Get an order
   *
   * Returns one order by id.
   */
  get_order(args: GetOrderInput): Promise<GetOrderOutput>;
  /**
   * Lists orders.
   *
   * No output schema: resolves to the result's text, parsed as JSON when it is JSON.
   */
  "list-orders"(args?: ListOrdersInput): Promise<unknown>;
};
"#;

#[test]
fn code_mode_declarations_by_hand() {
    use mcpdesc_codegen::declarations::{DeclOptions, declarations_of};
    let doc = shop();
    let got = declarations_of(
        &mcpdesc_tests::valid(&doc),
        None,
        &["get_order", "list-orders"],
        &DeclOptions { max_depth: 1 },
    )
    .expect("declares");
    assert_eq!(got, SHOP_DECLARATIONS_DEPTH_1, "{got}");
    // Deep enough: Address is declared too, once.
    let deep = declarations_of(
        &mcpdesc_tests::valid(&doc),
        None,
        &["get_order"],
        &DeclOptions { max_depth: 5 },
    )
    .expect("declares");
    assert!(
        deep.contains("  address?: Address;\n")
            && deep.contains("type Address = {\n  city?: string;\n};\n"),
        "{deep}"
    );
    assert_eq!(deep.matches("type Address =").count(), 1, "{deep}");
    assert!(!deep.contains("list-orders"), "{deep}");
    // A tool the view does not have is an error, not a panic.
    assert!(
        declarations_of(
            &mcpdesc_tests::valid(&doc),
            None,
            &["nope"],
            &DeclOptions::default()
        )
        .is_err()
    );
}

/// A script that uses every declared tool the way a model would, per fixture.
fn declaration_cases() -> Vec<(String, Value, Vec<String>, String)> {
    let mut out = Vec::new();
    let petstore = mcpdesc_tests::load_description(
        &workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"),
    );
    // Every tool of the newest revision's view (the one declarations_of lowers).
    let names = |doc: &Value| -> Vec<String> {
        let valid = mcpdesc_tests::valid(doc);
        let views = mcpdesc_codegen::lower::Views::project(&valid, None).expect("a view");
        mcpdesc_codegen::lower::lower(&views)
            .ir
            .tools
            .iter()
            .map(|t| t.wire_name.clone())
            .collect()
    };
    let petstore_script = r#"
const pet = await api.get_pet({ id__path: 1 });
const name: string = pet.name;
const page = await api.list_pets({ "X-Request-Id": "00000000-0000-0000-0000-000000000000", limit: 10 });
const created = await api.create_pet({ name: name + " II" });
console.log(name, created);
return { n: page.length, name, kind: pet.kind ?? "unknown" };"#;
    out.push((
        "petstore".to_string(),
        petstore.clone(),
        names(&petstore),
        petstore_script.to_string(),
    ));
    for f in ["everything", "constructs", "many-tools", "hostile"] {
        let doc = load(f);
        let n = names(&doc);
        out.push((f.to_string(), doc, n, "return 1;".to_string()));
    }
    if let Some(modules) = mcpdesc_tests::node_modules() {
        let spec = modules.join("@octokit/openapi/generated/api.github.com.json");
        if spec.exists() {
            let doc = mcpdesc_tests::import_file(&spec, &Default::default())
                .expect("imports")
                .value;
            let n = names(&doc);
            let script = r#"
const issues = await api.issues_list_for_repo({ owner: "o", repo: "r", state: "open" });
const titles = issues.map((i) => i.title);
const pr = await api.pulls_get({ owner: "o", repo: "r", pull_number: 1 });
return { titles, merged: pr.merged };"#;
            out.push(("github".to_string(), doc, n, script.to_string()));
        }
    }
    out
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn code_mode_declarations_compile_with_a_script() {
    use mcpdesc_codegen::declarations::{DeclOptions, declarations_of};
    let cfg = check_config();
    if cfg.tsc().is_none() {
        return missing("typescript in .deps/node");
    }
    let mut failures = Vec::new();
    for (name, doc, tools, script) in declaration_cases() {
        let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
        let decls = declarations_of(
            &mcpdesc_tests::valid(&doc),
            None,
            &tools,
            &DeclOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        if name == "github" {
            // What a 10-tool search_api answer costs per depth (printed; see DeclOptions).
            let ten = [
                "issues_list_for_repo",
                "issues_get",
                "issues_create",
                "issues_update",
                "issues_create_comment",
                "pulls_get",
                "pulls_list",
                "pulls_create",
                "repos_get",
                "users_get_authenticated",
            ];
            for depth in 0..=3 {
                let d = declarations_of(
                    &mcpdesc_tests::valid(&doc),
                    None,
                    &ten,
                    &DeclOptions { max_depth: depth },
                )
                .expect("declares");
                eprintln!("github, 10 tools, max_depth {depth}: {} bytes", d.len());
            }
        }
        let dir = workspace_root().join(format!("target/code-mode-tsc/{name}"));
        let r = check::check_declarations(&name, &dir, &decls, &script, &cfg);
        eprintln!(
            "{}: ok={} {:.1}s, {} bytes of declarations",
            r.step,
            r.ok,
            r.seconds,
            decls.len()
        );
        if !r.ok {
            failures.push(format!("{}:\n{}", r.step, r.output));
        }
    }
    // The hand-written case too, with a script using its cut part as `unknown`.
    let shop_script = r#"
const o = await api.get_order({ id: 7 });
const city: unknown = o.customer?.address;
const all = await api["list-orders"]();
return { id: o.id, city, all };"#;
    let dir = workspace_root().join("target/code-mode-tsc/shop");
    let r = check::check_declarations("shop", &dir, SHOP_DECLARATIONS_DEPTH_1, shop_script, &cfg);
    if !r.ok {
        failures.push(format!("{}:\n{}", r.step, r.output));
    }
    // And a script that misuses the API must fail: the check can fail.
    let wrong = "const o = await api.get_order({ id: \"7\" }); return o.nope;";
    let dir = workspace_root().join("target/code-mode-tsc/shop-wrong");
    let r = check::check_declarations("shop-wrong", &dir, SHOP_DECLARATIONS_DEPTH_1, wrong, &cfg);
    assert!(!r.ok, "a wrongly typed script compiled:\n{}", r.output);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---- generated servers (issue 32) ----

/// `mcpdesc ARGS…`; panics when it cannot run. Returns (success, stderr).
fn mcpdesc(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let out = Command::new(mcpdesc_tests::mcpdesc_bin())
        .args(args)
        .output()
        .expect("mcpdesc runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `mcpdesc generate typescript-server DESC -o DIR`, asserting it succeeds.
fn generate_ts_server(desc: &Path, dir: &Path) -> String {
    let (ok, err) = mcpdesc(&[
        "generate".as_ref(),
        "typescript-server".as_ref(),
        desc.as_os_str(),
        "-o".as_ref(),
        dir.as_os_str(),
    ]);
    assert!(ok, "generate typescript-server {}: {err}", desc.display());
    err
}

/// What `npm install && npm run build` does offline: `node_modules` from `.deps/node`,
/// then `tsc -p .`. Returns (success, compiler output).
fn build_ts_package(cfg: &CheckConfig, tsc: &Path, dir: &Path) -> (bool, String) {
    link(
        &cfg.node_dir.join("node_modules"),
        &dir.join("node_modules"),
    );
    let out = Command::new("node")
        .arg(tsc)
        .arg("-p")
        .arg(dir.join("tsconfig.json"))
        .current_dir(dir)
        .output()
        .expect("tsc runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Issue 32: the generated TypeScript server of each spec example (and the codegen
/// fixtures with examples and revisions) builds under the strict tsconfig, and
/// `capture` of the built stub at every declared revision gives back the description's
/// `export tools-list` at that revision, exactly.
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn generated_typescript_servers_serve_their_contract() {
    let cfg = check_config();
    let (Some(tsc), true) = (cfg.tsc(), cfg.has_server_v2()) else {
        return missing("typescript and @modelcontextprotocol/server (.deps/node)");
    };
    let mut descs: Vec<PathBuf> = std::fs::read_dir(fixture("spec/examples"))
        .expect("spec examples")
        .flatten()
        .map(|e| e.path())
        .collect();
    descs.sort();
    descs.extend(
        ["revisions", "everything", "py-server"].map(|n| fixture(&format!("codegen/{n}.json"))),
    );
    for desc in &descs {
        let stem = desc.file_stem().and_then(|s| s.to_str()).unwrap_or("x");
        let dir = cfg.work_dir.join(format!("ts-server-{stem}"));
        let _ = std::fs::remove_dir_all(&dir);
        generate_ts_server(desc, &dir);
        let (ok, out) = build_ts_package(&cfg, &tsc, &dir);
        assert!(ok, "{}: build failed:\n{out}", desc.display());
        let main = dir.join("dist/main.js");
        capture_equals_export(
            desc,
            &dir,
            &["--".as_ref(), "node".as_ref(), main.as_os_str()],
        );
    }
}

const TS_SERVER_CLIENT_E2E: &str = r#"
import { McpClient, ToolError } from "./pets/dist/index.js";
const [main] = process.argv.slice(2);
const out = {};
for (const mode of ["auto", "legacy"]) {
  const c = await McpClient.connectStdio("node", [main], { versionNegotiation: mode });
  const r = { negotiated: c.protocolVersion, pets: await c.listPets({ limit: 1 }), pet: await c.getPet({ id: 7 }) };
  try { await c.getPet({ id: "seven" }); r.invalid = "accepted"; } catch (err) { r.invalid = err instanceof ToolError ? err.message : String(err); }
  try { await c.getPet({ id: 0 }); r.wrong = "accepted"; } catch (err) { r.wrong = err instanceof ToolError ? err.message : String(err); }
  try { r.adopt = await c.adopt({ id: 1 }); } catch (err) { r.adopt = err.name + ": " + err.message; }
  await c.close();
  out[mode] = r;
}
console.log(JSON.stringify(out));
"#;

/// The `revisions` description with `get_pet`'s output property `name` renamed `title`.
fn revisions_renamed() -> Value {
    let mut doc = load("revisions");
    let tools = doc["tools"].as_array_mut().expect("tools");
    for t in tools.iter_mut().filter(|t| t["name"] == "get_pet") {
        let out = &mut t["outputSchema"];
        let name = out["properties"]
            .as_object_mut()
            .and_then(|p| p.remove("name"))
            .expect("name");
        out["properties"]["title"] = name;
        out["required"] = serde_json::json!(["id", "title"]);
    }
    doc
}

/// Issue 32: a stub's user code survives regeneration and the contract holds it to the
/// description. A hand-written `getPet` (returning one field wrong at run time)
/// survives `generate typescript-server` again; the generated v2 client reaches the
/// stub at 2026-07-28 and at the session revision 2025-11-25: `listPets` answers from the
/// tool's named example (wrapped as `{"result": …}` at 2025-11-25 and unwrapped by the
/// client), `getPet` runs the user's code, arguments that are not the inputSchema's are
/// a tool error before the handler runs, a result that is not the outputSchema's is a
/// tool error, and `adopt` (no example) is "not implemented". The generated Rust client
/// and the Python SDK get the same from the stub over stdio (`node dist/main.js`) and
/// HTTP (`--http`) at 2026-07-28 and 2025-11-25, a handler's error included (the checks
/// the Rust stub passes too: `check_rust_client_on_pets`, `check_python_sdk_on_pets`).
/// After the description renames `get_pet`'s output property, the build fails in
/// `src/handlers.ts` and nowhere else.
#[cfg_attr(
    any(
        mcpdesc_missing_venv,
        mcpdesc_missing_node,
        mcpdesc_skip_generated_builds
    ),
    ignore = "needs .deps/venv and .deps/node (cargo xtask deps) and MCPDESC_SKIP_GENERATED_BUILDS unset"
)]
#[test]
fn generated_typescript_server_keeps_user_code_and_checks_it() {
    let cfg = check_config();
    let (Some(tsc), true, true) = (cfg.tsc(), cfg.has_server_v2(), cfg.has_client_v2()) else {
        return missing("typescript and the v2 SDK packages (.deps/node)");
    };
    let base = cfg.work_dir.join("ts-server-user-code");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("mkdir");
    let desc = base.join("pets.mcpdesc.json");
    std::fs::write(
        &desc,
        serde_json::to_string(&load("revisions")).expect("json"),
    )
    .expect("writes");
    let stub = base.join("stub");
    generate_ts_server(&desc, &stub);
    let seeded = std::fs::read_to_string(stub.join("src/handlers.ts")).expect("handlers.ts");
    assert!(
        seeded.contains("export class ServerHandlers extends DefaultHandlers"),
        "{seeded}"
    );
    let mine = r#"// mine
import { DefaultHandlers } from "./generated/handlers.js";
import type { Handlers } from "./generated/handlers.js";
import { ToolFailure } from "./generated/runtime.js";
import type { ToolContext } from "./generated/runtime.js";
import type { GetPetInput, GetPetOutput } from "./generated/types.js";

export class ServerHandlers extends DefaultHandlers implements Handlers {
  override async getPet(input: GetPetInput, ctx: ToolContext): Promise<GetPetOutput> {
    if (input.id < 0) throw new ToolFailure(`no pet ${input.id} at ${ctx.revision}`);
    if (input.id === 0) return { id: 0, name: 0 } as unknown as GetPetOutput;
    return { id: input.id, name: `pet ${input.id}` };
  }
}
"#;
    std::fs::write(stub.join("src/handlers.ts"), mine).expect("writes");
    let err = generate_ts_server(&desc, &stub);
    assert!(err.contains("kept src/handlers.ts"), "{err}");
    assert_eq!(
        std::fs::read_to_string(stub.join("src/handlers.ts")).expect("reads"),
        mine,
        "regeneration overwrote the user's handlers"
    );
    let (ok, out) = build_ts_package(&cfg, &tsc, &stub);
    assert!(ok, "build failed:\n{out}");
    let client = generate_typescript(
        &load("revisions"),
        &TsOptions {
            package_name: Some("pets".into()),
            ..Default::default()
        },
    )
    .expect("generates");
    let main = stub.join("dist/main.js");
    let v = run_ts_app(
        &cfg,
        &tsc,
        &base.join("client"),
        &[("pets", client)],
        TS_SERVER_CLIENT_E2E,
        &[main.as_os_str()],
    );
    let example =
        &load("revisions")["tools"][1]["examples"]["first"]["result"]["structuredContent"];
    for (mode, rev) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let r = &v[mode];
        assert_eq!(r["negotiated"], rev, "{v}");
        assert_eq!(&r["pets"], example, "{mode}: {v}");
        assert_eq!(
            r["pet"],
            serde_json::json!({"id": 7, "name": "pet 7"}),
            "{v}"
        );
        let invalid = r["invalid"].as_str().unwrap_or_default();
        assert!(
            invalid.contains("invalid arguments") && invalid.contains("integer"),
            "{v}"
        );
        let wrong = r["wrong"].as_str().unwrap_or_default();
        assert!(wrong.contains("does not match its outputSchema"), "{v}");
    }
    assert!(
        v["auto"]["adopt"]
            .as_str()
            .is_some_and(|s| s.contains("ToolError") && s.contains("not implemented")),
        "{v}"
    );
    assert!(
        v["legacy"]["adopt"]
            .as_str()
            .is_some_and(|s| s.starts_with("ToolUnavailableError")),
        "{v}"
    );
    let stdio = [OsStr::new("node"), main.as_os_str()];
    let http = HttpChild::command(stdio[0], &stdio[1..]);
    check_rust_client_on_pets(&base, &load("revisions"), &stdio, &http.url);
    let py = deps_dir().join("venv/bin/python");
    if !py.is_file() {
        return missing("the Python venv with mcp (.deps/venv)");
    }
    check_python_sdk_on_pets(&py, &base, &stdio, &http.url);
    drop(http);
    // The description changes: get_pet's output property `name` is now `title`.
    std::fs::write(
        &desc,
        serde_json::to_string(&revisions_renamed()).expect("json"),
    )
    .expect("writes");
    generate_ts_server(&desc, &stub);
    assert_eq!(
        std::fs::read_to_string(stub.join("src/handlers.ts")).expect("reads"),
        mine
    );
    let (ok, out) = build_ts_package(&cfg, &tsc, &stub);
    assert!(!ok, "the build should fail at the handler:\n{out}");
    let errors: Vec<&str> = out.lines().filter(|l| l.contains("error TS")).collect();
    assert!(!errors.is_empty(), "{out}");
    assert!(
        errors.iter().all(|l| l.starts_with("src/handlers.ts(")),
        "errors outside the handler:\n{out}"
    );
}

/// `--sdk v1` keeps the 1.x output: each fixture's v1 package is the one recorded before
/// the v2 default (`tests/fixtures/codegen/v1/`, written by the generator of commit
/// 7647703 and not since).
#[test]
fn sdk_v1_output_is_unchanged() {
    for name in FIXTURES {
        let doc = load(name);
        let g = generate_typescript(
            &doc,
            &TsOptions {
                sdk: TsSdk::V1,
                ..Default::default()
            },
        )
        .expect("generates");
        for f in &g.files {
            let path = fixture(&format!("codegen/v1/{name}/{}", f.path));
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // insta stored each file with one final newline.
            assert_eq!(
                want.trim_end(),
                f.contents.trim_end(),
                "{name}: {} differs from the 1.x output",
                f.path
            );
        }
    }
}
