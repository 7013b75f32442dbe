//! CLI wiring tests for `mcpdesc convert` (exit codes, atomic output, stdin, refusal
//! to overwrite the input). Logic is tested in the libraries; this checks the wiring.

use mcpdesc_tests::{fixture, mcpdesc_bin};
use std::io::Write;
use std::process::{Command, Stdio};

fn mcpdesc() -> Command {
    let bin = mcpdesc_bin();
    assert!(
        bin.exists(),
        "{} missing: run `cargo xtask test` (it builds the CLI first)",
        bin.display()
    );
    Command::new(bin)
}

#[test]
fn convert_yaml_to_json_and_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("out.json");
    let src = fixture("spec/examples/full-featured.yaml");
    let st = mcpdesc()
        .arg("convert")
        .arg(&src)
        .arg("-o")
        .arg(&json)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let yaml = dir.path().join("back.yaml");
    let st = mcpdesc()
        .arg("convert")
        .arg(&json)
        .arg("-o")
        .arg(&yaml)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let a = mcpdesc_core::decode(
        &std::fs::read_to_string(&src).expect("r"),
        mcpdesc_core::Format::Yaml,
        &Default::default(),
    )
    .expect("decodes")
    .value;
    let b = mcpdesc_core::decode(
        &std::fs::read_to_string(&yaml).expect("r"),
        mcpdesc_core::Format::Yaml,
        &Default::default(),
    )
    .expect("decodes")
    .value;
    assert_eq!(a, b);
    // no temp files left behind
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("ls")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".mcpdesc-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn convert_stdin_to_stdout_with_sniffing() {
    let mut child = mcpdesc()
        .args(["convert", "-", "--to", "yaml"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(br#"{"mcpdesc":"0.8.0","info":{"name":"n","version":"1"},"protocolVersions":["2026-07-28"]}"#)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.starts_with("mcpdesc: \"0.8.0\"\n") || text.starts_with("mcpdesc: '0.8.0'\n"),
        "{text}"
    );
}

#[test]
fn bad_input_exit_1_with_position_and_existing_output_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "mcpdesc: 0.8.0\ninfo: &a {name: x}\n").expect("write");
    let out_path = dir.path().join("out.json");
    std::fs::write(&out_path, "previous").expect("write");
    let out = mcpdesc()
        .arg("convert")
        .arg(&bad)
        .arg("-o")
        .arg(&out_path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.yaml:2:7: error[yaml-anchor]"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&out_path).expect("read"),
        "previous"
    );
}

#[test]
fn refuses_to_overwrite_input_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("d.json");
    std::fs::write(&f, r#"{"mcpdesc":"0.8.0","info":{"name":"n","version":"1"},"protocolVersions":["2026-07-28"]}"#)
        .expect("write");
    let st = mcpdesc()
        .arg("convert")
        .arg(&f)
        .arg("-o")
        .arg(&f)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(2));
    let st = mcpdesc()
        .arg("convert")
        .arg(&f)
        .arg("-o")
        .arg(&f)
        .arg("--in-place")
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let st = mcpdesc()
        .arg("convert")
        .arg(dir.path().join("missing.json"))
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(2));
    let st = mcpdesc()
        .args(["convert", "--to", "toml", "x"])
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(2));
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for sub in [
        &["convert"][..],
        &["validate"],
        &["import", "openapi"],
        &["import", "tools-list"],
        &["capture"],
        &["names"],
        &["project"],
        &["merge"],
        &["split"],
        &["export", "tools-list"],
        &["generate", "rust"],
        &["generate", "typescript"],
    ] {
        let out = mcpdesc().args(sub).arg("--help").output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{sub:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("mcpdesc "),
            "{sub:?} --help has no example:\n{text}"
        );
    }
}
