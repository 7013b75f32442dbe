//! Round trips over every spec example and every official valid/warning fixture:
//! JSON→model→JSON, YAML→model→YAML, JSON↔YAML, compared as data models (the oracle is
//! the decoded input itself), plus insta snapshots of the YAML we emit for the examples.

use mcpdesc_core::{Document, Format, Limits, decode};
use mcpdesc_tests::{fixture, snapshot_dir};
use std::path::PathBuf;

fn files(rel: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture(rel))
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_str().and_then(Format::from_path).is_some())
        .collect();
    v.sort();
    v
}

#[test]
fn spec_examples_and_valid_fixtures_round_trip() {
    let mut paths = files("spec/examples");
    paths.extend(files("spec/fixtures/expected-valid"));
    paths.extend(files("spec/fixtures/expected-warning"));
    assert!(
        paths.len() >= 8 + 20 + 15,
        "vendored fixtures missing: {}",
        paths.len()
    );
    let mut failures = Vec::new();
    for p in &paths {
        let report = mcpdesc_pipeline::roundtrip(p);
        // warning fixtures are allowed validator warnings; every check must still pass
        if !report.ok() {
            failures.push(report.render());
        }
    }
    assert!(
        failures.is_empty(),
        "round-trip failures:\n{}",
        failures.join("\n")
    );
}

#[test]
fn emitted_yaml_of_spec_examples() {
    for p in files("spec/examples") {
        let text = std::fs::read_to_string(&p).expect("read");
        let decoded = decode(&text, Format::Yaml, &Limits::default()).expect("example decodes");
        let doc = Document::from_value(decoded.value.clone()).expect("example is typable");
        let yaml = doc.to_yaml_string();
        // independent oracle: the emitted YAML decodes to the data model of the original
        let again = decode(&yaml, Format::Yaml, &Limits::default()).expect("emitted YAML decodes");
        assert_eq!(again.value, decoded.value, "{}", p.display());
        let name = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("example")
            .to_string();
        insta::with_settings!({snapshot_path => snapshot_dir("roundtrip"), prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("example-{name}"), yaml);
        });
    }
}

#[test]
fn json_and_yaml_of_fixtures_are_the_same_data_model() {
    for p in files("spec/fixtures/expected-valid") {
        let text = std::fs::read_to_string(&p).expect("read");
        let fmt = Format::detect(p.to_str(), &text);
        let d = decode(&text, fmt, &Limits::default()).expect("decodes");
        let yaml = mcpdesc_core::emit::to_yaml(&d.value);
        let json = mcpdesc_core::emit::to_json(&d.value);
        let from_yaml = decode(&yaml, Format::Yaml, &Limits::default())
            .expect("yaml decodes")
            .value;
        let from_json = decode(&json, Format::Json, &Limits::default())
            .expect("json decodes")
            .value;
        assert_eq!(from_yaml, d.value, "{}", p.display());
        assert_eq!(from_json, d.value, "{}", p.display());
    }
}

/// Semantically significant empties survive (§3.3, §7.4, §15.6); omitted collections are
/// never emitted as empty ones.
#[test]
fn significant_empties_survive_and_omissions_stay_omitted() {
    let text = r#"{
      "mcpdesc": "0.8.0",
      "info": {"name": "s", "version": "1"},
      "protocolVersions": ["2025-11-25"],
      "securitySchemes": {"oauth": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://a.example/t", "scopes": {}}}}},
      "security": [{}],
      "tools": [
        {"name": "a", "inputSchema": {"type": "object"}, "security": []},
        {"name": "b", "inputSchema": {"type": "object"}, "security": [{"oauth": []}]},
        {"name": "c", "inputSchema": {"type": "object", "properties": {}, "required": []}}
      ]
    }"#;
    for fmt in [Format::Json, Format::Yaml] {
        let d = decode(text, Format::Json, &Limits::default()).expect("decodes");
        let doc = Document::from_value(d.value.clone()).expect("typed");
        let out = mcpdesc_core::emit::to_format(&doc.to_value(), fmt);
        let back = decode(&out, fmt, &Limits::default())
            .expect("re-decodes")
            .value;
        assert_eq!(back, d.value);
        assert_eq!(back["security"], serde_json::json!([{}]));
        assert_eq!(back["tools"][0]["security"], serde_json::json!([]));
        assert_eq!(
            back["tools"][1]["security"],
            serde_json::json!([{"oauth": []}])
        );
        assert!(
            back["tools"][2].get("security").is_none(),
            "omitted stays omitted"
        );
        assert!(back.get("resources").is_none() && back.get("tags").is_none());
    }
}

/// `x-*` extensions on every eligible object round-trip untouched, in order.
#[test]
fn extensions_round_trip_untouched() {
    let text = r#"{"mcpdesc":"0.8.0","x-root":{"b":1,"a":[true,null]},
      "info":{"name":"s","version":"1","x-i":1,"contact":{"x-c":"c"},"license":{"name":"MIT","x-l":2}},
      "protocolVersions":["2026-07-28"],
      "transports":[{"type":"stdio","command":"s","x-t":{}}],
      "tags":[{"name":"t","x-tag":[]}],
      "tools":[{"name":"a","inputSchema":{"type":"object","x-in-schema":"kept as schema content"},"x-tool":{"z":0}}]}"#;
    let d = decode(text, Format::Json, &Limits::default()).expect("decodes");
    let doc = Document::from_value(d.value.clone()).expect("typed");
    assert_eq!(doc.extensions.keys().collect::<Vec<_>>(), ["x-root"]);
    assert_eq!(doc.to_value(), d.value);
}
