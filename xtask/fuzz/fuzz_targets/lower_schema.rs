//! Schema lowering and rendering (mcpdesc-codegen): an arbitrary JSON value used as a
//! tool's `inputSchema` and `outputSchema` never panics the generator, never makes it
//! report an internal error (template failure, unsanitized identifier), and never yields
//! a file path that leaves the output directory. The generators take validated
//! documents, and most arbitrary schemas are refused by the validator, so the lowering
//! and the renderers are also driven on the unvalidated document
//! (`Validated::assume_valid`, the `fuzzing` feature of mcpdesc-validate).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_codegen::lower::{Views, lower};
use mcpdesc_codegen::{Error, RustOptions, TsOptions, generate_rust, generate_typescript};
use mcpdesc_core::{Format, Limits, decode_bytes};
use mcpdesc_validate::{Validated, Validator};
use serde_json::json;
use std::path::{Component, Path};

fuzz_target!(|data: &[u8]| {
    let limits = Limits { max_depth: 48, max_collection_len: 2_000, ..Limits::default() };
    let Ok(decoded) = decode_bytes(data, Format::Json, &limits) else { return };
    let schema = decoded.value;
    // A name taken from the schema's title (if any) reaches identifiers and paths too.
    let name = schema
        .get("title")
        .and_then(|t| t.as_str())
        .filter(|t| !t.is_empty())
        .unwrap_or("fuzz");
    let doc = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": name, "version": "1.0.0"},
        "protocolVersions": ["2025-11-25"],
        "tools": [
            {"name": "lowered", "inputSchema": schema.clone(), "outputSchema": schema.clone()},
            {"name": name, "inputSchema": {"type": "object", "properties": {"v": schema}}}
        ]
    });
    let check = |r: Result<mcpdesc_codegen::Generated, Error>| match r {
        Ok(g) => {
            for f in &g.files {
                let p = Path::new(&f.path);
                assert!(
                    !f.path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_))),
                    "unsafe generated path {:?}",
                    f.path
                );
            }
        }
        Err(e) => panic!("generator failed internally: {e}"),
    };
    if let Ok(valid) = Validator::new().check(&doc) {
        check(generate_rust(&valid, &RustOptions::default()));
        check(generate_typescript(&valid, &TsOptions::default()));
    }
    let unchecked = Validated::assume_valid(&doc);
    check(generate_rust(&unchecked, &RustOptions::default()));
    let Ok(views) = Views::project(&unchecked, None) else { return };
    let ir = lower(&views).ir;
    let files = |r: Result<(Vec<mcpdesc_codegen::GeneratedFile>, _), Error>| match r {
        Ok((files, _)) => mcpdesc_codegen::Generated { ir: None, files, diagnostics: vec![] },
        Err(e) => panic!("renderer failed internally: {e}"),
    };
    check(Ok(files(mcpdesc_codegen::rust::render(&ir, &RustOptions::default()))));
    check(Ok(files(mcpdesc_codegen::typescript::render(&ir, &TsOptions::default()))));
});
