//! `tools/list` dump importer (mcpdesc-live): never panics; an accepted import is a
//! conforming description. The input is split at 0xFF bytes into up to four dumps (0xFF
//! never occurs in UTF-8), so the cross-revision merge and same-revision agreement
//! checks are fuzzed too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::{Limits, ProtocolRevision};
use mcpdesc_live::{ImportOptions, import_dumps};

fuzz_target!(|data: &[u8]| {
    let inputs: Vec<(String, Vec<u8>)> = data
        .split(|b| *b == 0xFF)
        .take(4)
        .enumerate()
        .map(|(i, part)| (format!("dump{i}.json"), part.to_vec()))
        .collect();
    // The first byte picks the fallback revision for dumps that do not say (or none).
    let protocol_version = match data.first().map(|b| b % 6) {
        Some(0) => Some(ProtocolRevision::V2024_11_05),
        Some(1) => Some(ProtocolRevision::V2025_03_26),
        Some(2) => Some(ProtocolRevision::V2025_06_18),
        Some(3) => Some(ProtocolRevision::V2025_11_25),
        Some(4) => Some(ProtocolRevision::V2026_07_28),
        _ => None,
    };
    let opts = ImportOptions {
        protocol_version,
        server_name: None,
        limits: Limits { max_depth: 64, max_collection_len: 10_000, ..Limits::default() },
    };
    let Ok(out) = import_dumps(&inputs, &opts) else { return };
    let value = out.description.value().clone();
    let errors: Vec<_> = mcpdesc_validate::validate_value(&value)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "accepted import does not validate: {errors:#?}");
});
