//! The round-trip report and the description walk, on documents written here by hand
//! (issue 33: the crate's mutants had no unit test to meet).
#![allow(clippy::unwrap_used)]

use super::*;
use std::fs;

/// A minimal valid description (§5: `mcpdesc`, `info`, `protocolVersions`) with a
/// Streamable HTTP transport (§6.2.1), at revisions with complete validation (§3.5).
const VALID: &str = r#"{
  "mcpdesc": "0.8.0",
  "info": { "name": "valid", "version": "1.0.0" },
  "protocolVersions": ["2025-06-18", "2025-11-25"],
  "transports": [{ "type": "streamable-http", "url": "https://example.com/mcp" }]
}"#;

/// §6.2.3: an `sse` transport under 2025-03-26 or later draws one warning ("Validators
/// SHOULD warn"), and nothing else is wrong (2025-06-18 is no legacy revision, §3.5).
const ONE_WARNING: &str = r#"{
  "mcpdesc": "0.8.0",
  "info": { "name": "legacy", "version": "1.0.0" },
  "protocolVersions": ["2025-06-18"],
  "transports": [{ "type": "sse", "url": "https://example.com/sse" }]
}"#;

/// `protocolVersions` is a closed enumeration of revisions (§4.9): line 4 holds the
/// unknown one.
const INVALID: &str = r#"{
  "mcpdesc": "0.8.0",
  "info": { "name": "invalid", "version": "1.0.0" },
  "protocolVersions": ["1999-01-01"]
}"#;

fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_valid_description_passes_every_check() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "valid.json", VALID);
    let rep = roundtrip(&p);
    assert_eq!(rep.failures, Vec::<Failure>::new());
    assert!(rep.ok());
    assert_eq!(rep.format, Some(Format::Json));
    assert_eq!(rep.render(), format!("ok    {}", p.display()));
    let y = write(dir.path(), "valid.yaml", VALID);
    assert!(roundtrip(&y).ok(), "{}", roundtrip(&y).render());
}

#[test]
fn warnings_are_counted_and_do_not_fail() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "legacy.json", ONE_WARNING);
    let rep = roundtrip(&p);
    assert!(rep.ok(), "{}", rep.render());
    assert_eq!(rep.render(), format!("ok    {} (1 warnings)", p.display()));
}

#[test]
fn an_invalid_description_fails_validate_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "invalid.json", INVALID);
    let rep = roundtrip(&p);
    assert!(!rep.ok());
    assert_eq!(rep.failures.len(), 1, "{}", rep.render());
    assert_eq!(rep.failures[0].check, "validate");
    let name = p.display().to_string();
    // FILE:LINE:COL: error[code]: … (at POINTER), the rendering of every diagnostic.
    let detail = &rep.failures[0].detail;
    assert!(
        detail.starts_with(&format!("{name}:4:")) && detail.contains(": error["),
        "{detail}"
    );
    assert!(detail.contains("(at /protocolVersions"), "{detail}");
    assert_eq!(
        rep.render(),
        format!("FAIL  {name}\n      [validate] {detail}")
    );
}

#[test]
fn undecodable_and_missing_files_fail_decode() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "broken.json", "{\"mcpdesc\": ");
    let rep = roundtrip(&p);
    assert!(!rep.ok());
    assert_eq!(rep.failures[0].check, "decode");
    let gone = roundtrip(&dir.path().join("absent.json"));
    assert_eq!(gone.failures.len(), 1);
    assert_eq!(gone.failures[0].check, "decode");
}

#[test]
fn a_report_counts_passed_and_failed_files() {
    let dir = tempfile::tempdir().unwrap();
    let ok = write(dir.path(), "a-valid.json", VALID);
    let bad = write(dir.path(), "b-invalid.json", INVALID);
    let report = roundtrip_dir(dir.path()).unwrap();
    assert_eq!(report.files.len(), 2);
    assert!(!report.ok());
    let (first, second) = (roundtrip(&ok).render(), roundtrip(&bad).render());
    assert_eq!(
        report.render(),
        format!("{first}\n{second}\nroundtrip: 1 passed, 1 failed\n")
    );
    fs::remove_file(&bad).unwrap();
    let report = roundtrip_dir(dir.path()).unwrap();
    assert!(report.ok());
    assert_eq!(
        report.render(),
        format!("{first}\nroundtrip: 1 passed, 0 failed\n")
    );
}

#[test]
fn the_walk_finds_descriptions_and_skips_hidden_build_and_linked_folders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for rel in [
        "a.json",
        "b.YAML",
        "c.yml",
        "notes.txt",
        ".hidden.json",
        ".git/d.json",
        "target/e.json",
        "node_modules/f.json",
        "sub/g.yaml",
        "sub/deeper/h.json",
        "elsewhere/i.json",
    ] {
        write(root, rel, VALID);
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("sub/linked-dir")).unwrap();
        std::os::unix::fs::symlink(root.join("a.json"), root.join("sub/linked.json")).unwrap();
    }
    let found: Vec<String> = description_files(root)
        .unwrap()
        .iter()
        .map(|p| {
            p.strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    let mut expected = vec![
        "a.json",
        "b.YAML",
        "c.yml",
        "elsewhere/i.json",
        "sub/deeper/h.json",
        "sub/g.yaml",
    ];
    if cfg!(unix) {
        expected.push("sub/linked.json");
    }
    expected.sort();
    assert_eq!(found, expected);
    let missing = description_files(&root.join("absent")).unwrap_err();
    assert!(missing.to_string().contains("absent"), "{missing}");
}

/// The guards below only report a broken invariant of core or scope, which no document
/// triggers: each is checked here on inputs built by hand to violate it.
fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// VALID with another `info.version`: a different data model and a different typed model.
fn other() -> Value {
    let mut v = value(VALID);
    v["info"]["version"] = "2.0.0".into();
    v
}

#[test]
fn reemit_accepts_the_canonical_emission_in_both_formats() {
    let model = value(VALID);
    let doc = Document::from_value_ref(&model).unwrap();
    for fmt in [Format::Json, Format::Yaml] {
        let out = mcpdesc_core::emit::to_format(&model, fmt);
        assert_eq!(
            reemit_failures(&doc, &model, &out, fmt, &Limits::default()),
            Vec::<String>::new()
        );
    }
}

#[test]
fn reemit_reports_an_emission_of_another_data_model() {
    let model = value(VALID);
    let doc = Document::from_value_ref(&model).unwrap();
    for fmt in [Format::Json, Format::Yaml] {
        let out = mcpdesc_core::emit::to_format(&other(), fmt);
        assert_eq!(
            reemit_failures(&doc, &model, &out, fmt, &Limits::default()),
            ["re-emitted document decodes to a different data model"]
        );
    }
}

#[test]
fn reemit_reports_a_typed_model_other_than_the_documents() {
    let model = value(VALID);
    let doc = Document::from_value_ref(&other()).unwrap();
    let out = mcpdesc_core::emit::to_format(&model, Format::Json);
    assert_eq!(
        reemit_failures(&doc, &model, &out, Format::Json, &Limits::default()),
        ["re-decoded document is a different model"]
    );
}

#[test]
fn reemit_reports_unstable_and_undecodable_output() {
    let model = value(VALID);
    let doc = Document::from_value_ref(&model).unwrap();
    // The same data model on one line: the canonical emission is indented (RFC 8259
    // allows both), so emitting the decoded value again differs byte for byte.
    let one_line = serde_json::to_string(&model).unwrap();
    assert_eq!(
        reemit_failures(&doc, &model, &one_line, Format::Json, &Limits::default()),
        ["emitting twice is not byte-identical"]
    );
    let broken = reemit_failures(&doc, &model, "{", Format::Json, &Limits::default());
    assert_eq!(broken.len(), 1);
    assert!(
        broken[0].starts_with("re-emitted document does not decode: "),
        "{broken:?}"
    );
}

#[test]
fn json_yaml_json_reports_a_yaml_of_another_data_model() {
    let model = value(VALID);
    let limits = Limits::default();
    let own = mcpdesc_core::emit::to_yaml(&model);
    assert_eq!(json_yaml_json_failure(&model, &own, &limits), None);
    let theirs = mcpdesc_core::emit::to_yaml(&other());
    assert_eq!(
        json_yaml_json_failure(&model, &theirs, &limits).as_deref(),
        Some("JSON→YAML→JSON changed the data model")
    );
}

/// VALID's view at `rev` (§4.12): the root revisions narrowed to `rev`; nothing else is
/// scoped.
fn view_at(rev: &str) -> Value {
    let mut v = value(VALID);
    v["protocolVersions"] = serde_json::json!([rev]);
    v
}

#[test]
fn the_views_of_a_description_are_its_projections_and_merge_back() {
    let model = value(VALID);
    let valid = mcpdesc_validate::Validator::new().check(&model).unwrap();
    let views = views_of(&valid).unwrap();
    let (old, new) = (ProtocolRevision::V2025_06_18, ProtocolRevision::V2025_11_25);
    assert_eq!(
        views,
        [(old, view_at("2025-06-18")), (new, view_at("2025-11-25"))]
    );
    assert_eq!(merge_invariants(&valid, &views), Ok(()));
}

#[test]
fn merge_invariants_report_views_that_do_not_merge_back_to_the_description() {
    let model = value(VALID);
    let valid = mcpdesc_validate::Validator::new().check(&model).unwrap();
    let (old, new) = (ProtocolRevision::V2025_06_18, ProtocolRevision::V2025_11_25);
    // One view missing: the merge covers 2025-06-18 only.
    let one = merge_invariants(&valid, &[(old, view_at("2025-06-18"))]).unwrap_err();
    assert!(
        one.starts_with("merge(project_V(D)) differs from D: "),
        "{one}"
    );
    // Views whose unscoped metadata differ: merge refuses them (§4.13).
    let mut clash = view_at("2025-11-25");
    clash["info"]["version"] = "2.0.0".into();
    let refused = merge_invariants(&valid, &[(old, view_at("2025-06-18")), (new, clash)]);
    // §4.13: a conflict is an error with code `merge-conflict` naming both inputs.
    let detail = refused.unwrap_err();
    assert!(detail.starts_with("merge of views: "), "{detail}");
    for part in ["merge-conflict", "view at 2025-06-18", "view at 2025-11-25"] {
        assert!(detail.contains(part), "{part}: {detail}");
    }
    // The right views under each other's revision: they merge back to D, but the
    // projection of the merge at 2025-06-18 is not the view given for it.
    let swapped = [(old, view_at("2025-11-25")), (new, view_at("2025-06-18"))];
    assert_eq!(
        merge_invariants(&valid, &swapped),
        Err("P_2025-06-18(merge(views)) differs from the view at 2025-06-18".into())
    );
}
