//! OpenAPI importer (Swagger 2.0 / OpenAPI 3.0 / 3.1, JSON or YAML, format sniffed):
//! never panics, and whatever it accepts is a conforming MCP Description (the importer
//! validates its own output; a non-conforming result is a bug by its own contract).
//!
//! Without a path, relative-file refs are unresolvable and remote refs are never fetched,
//! so the target does no I/O. Run with `-dict=xtask/fuzz/dicts/import_openapi.dict` (xtask does).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::Limits;
use mcpdesc_openapi::{ImportOptions, Source, ValueSink, import};

fuzz_target!(|data: &[u8]| {
    let opts = ImportOptions {
        limits: Limits { max_depth: 64, max_collection_len: 10_000, ..Limits::default() },
        ..ImportOptions::default()
    };
    let mut sink = ValueSink::new();
    let Ok(out) = import(Source::bytes(data), &opts, &mut sink) else { return };
    if !out.stats.conforming {
        let errors: Vec<_> = out.diagnostics.iter().filter(|d| d.is_error()).collect();
        panic!("importer accepted the input but produced a non-conforming description: {errors:#?}");
    }
    // what the importer produced reads as the model, and re-reads as the same model
    let value = sink.into_value().expect("a successful import leaves its document");
    let document = mcpdesc_core::Document::from_value(value).expect("imported document reads");
    let back = mcpdesc_core::Document::from_value(document.to_value()).expect("imported document re-reads");
    assert_eq!(back, document);
});
