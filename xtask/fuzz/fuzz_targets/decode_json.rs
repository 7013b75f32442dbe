//! JSON document decoder + typed model + validator: never panics; whatever decodes
//! re-emits (JSON and YAML) to the same data model.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::{Document, Format, Limits, decode, decode_bytes, emit};

fuzz_target!(|data: &[u8]| {
    let limits = Limits { max_depth: 64, max_collection_len: 10_000, ..Limits::default() };
    let Ok(decoded) = decode_bytes(data, Format::Json, &limits) else { return };
    for fmt in [Format::Json, Format::Yaml] {
        let text = emit::to_format(&decoded.value, fmt);
        let again = decode(&text, fmt, &Limits::default()).expect("emitted text decodes");
        assert_eq!(again.value, decoded.value, "{fmt:?} re-emit changed the data model");
    }
    if let Ok(doc) = Document::from_value(decoded.value.clone()) {
        let back = Document::from_value(doc.to_value()).expect("model re-reads its own output");
        assert_eq!(back, doc);
    }
    let _ = mcpdesc_validate::validate_value(&decoded.value);
});
