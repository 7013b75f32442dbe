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
