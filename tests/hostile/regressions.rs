//! Regression tests for fuzzer findings: every input under
//! `tests/fixtures/hostile/fuzz/<target>/` (a crash, hang or oracle failure found by
//! `cargo xtask fuzz <target>`, see `xtask/fuzz/FINDINGS.md`) goes through the CLI
//! route of that target and must end with exit 0 or 1, no panic, within the deadline
//! and memory cap of [`crate::run`]. Inputs named `accept-*` must be accepted (exit 0):
//! the finding was an oracle failure (e.g. a non-conforming import), not a crash.

use crate::{run, truncate, write};
use mcpdesc_tests::fixture;
use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = fixture(&format!("hostile/fuzz/{target}"));
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|e| e != "md"))
        .collect();
    v.sort();
    v
}

fn assert_clean(args: &[&str], what: &Path) {
    let r = run(args);
    let accept = what
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("accept-"));
    let ok = if accept {
        r.code == Some(0)
    } else {
        matches!(r.code, Some(0 | 1))
    };
    assert!(
        ok && !r.stderr.contains("panicked"),
        "{}: mcpdesc {args:?} -> {:?}\n{}",
        what.display(),
        r.code,
        truncate(&r.stderr)
    );
}

/// The CLI commands that exercise what fuzz target `target` exercises, for `input`.
fn check(target: &str, input: &Path) {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(input).expect("read fixture");
    match target {
        "decode_json" | "decode_yaml" => {
            let ext = if target == "decode_json" {
                "json"
            } else {
                "yaml"
            };
            let f = write(dir.path(), &format!("in.{ext}"), &bytes);
            let f = f.display().to_string();
            assert_clean(&["validate", &f], input);
            assert_clean(&["convert", &f, "-o", "-"], input);
        }
        "import_openapi" => {
            let f = write(dir.path(), "spec", &bytes).display().to_string();
            assert_clean(&["import", "openapi", &f, "-o", "-"], input);
        }
        "import_dump" => {
            let files: Vec<String> = bytes
                .split(|b| *b == 0xFF)
                .take(4)
                .enumerate()
                .map(|(i, part)| {
                    write(dir.path(), &format!("dump{i}.json"), part)
                        .display()
                        .to_string()
                })
                .collect();
            let mut args = vec!["import", "tools-list"];
            args.extend(files.iter().map(String::as_str));
            args.extend(["-o", "-"]);
            assert_clean(&args, input);
        }
        "lower_schema" => {
            let schema = std::str::from_utf8(&bytes).unwrap_or("{}");
            let doc = format!(
                r#"{{"mcpdesc": "0.8.0", "info": {{"name": "fuzz", "version": "1.0.0"}},
"protocolVersions": ["2025-11-25"],
"tools": [{{"name": "lowered", "inputSchema": {schema}, "outputSchema": {schema}}}]}}"#
            );
            let f = write(dir.path(), "doc.json", doc.as_bytes())
                .display()
                .to_string();
            for lang in ["rust", "typescript"] {
                let o = dir.path().join(lang).display().to_string();
                assert_clean(&["generate", lang, &f, "-o", &o], input);
            }
        }
        other => panic!("unknown fuzz target {other}"),
    }
}

#[test]
fn fuzz_findings_stay_fixed() {
    let mut n = 0;
    for target in [
        "decode_json",
        "decode_yaml",
        "import_openapi",
        "import_dump",
        "lower_schema",
    ] {
        for input in inputs(target) {
            check(target, &input);
            n += 1;
        }
    }
    eprintln!("{n} fuzz regression inputs checked");
}
