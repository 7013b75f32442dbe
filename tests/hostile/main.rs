//! Hostile and broken input (issue 8): every subcommand that reads a description, an
//! OpenAPI document or a dump must answer with a diagnostic and exit 1 — never a panic
//! (exit 101), a signal (stack overflow), unbounded memory or unbounded time.
//!
//! Each case runs the real `mcpdesc` binary under an address-space limit (`ulimit -v`)
//! and a wall-clock deadline.

mod component_refs;
mod injection;
mod inputs;
mod openapi_refs;
mod output_safety;
mod regressions;

use mcpdesc_tests::mcpdesc_bin;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Address-space cap for the child (KiB): generous for a Rust binary, far below what
/// expanding an alias bomb or materializing a 100k-deep tree naively would need.
const MEMORY_KIB: u64 = 2 * 1024 * 1024;
const DEADLINE: Duration = Duration::from_secs(30);

#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// Runs `mcpdesc ARGS` with the memory cap and deadline; kills it on timeout.
pub fn run(args: &[&str]) -> Run {
    run_in(None, args)
}

/// Like [`run`], with the child's working directory set to `cwd`.
///
/// stdout and stderr are drained on threads while the child runs: a child that writes
/// more than a pipe buffer (64 KiB) of diagnostics would otherwise block on the full
/// pipe and look like a hang.
pub fn run_in(cwd: Option<&Path>, args: &[&str]) -> Run {
    let bin = mcpdesc_bin();
    assert!(
        bin.exists(),
        "{} missing: run `cargo xtask test` (it builds the CLI first)",
        bin.display()
    );
    let mut script = format!("ulimit -v {MEMORY_KIB}; exec '{}'", bin.display());
    for a in args {
        script.push_str(&format!(" '{}'", a.replace('\'', "'\\''")));
    }
    let start = Instant::now();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().expect("spawn sh");
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Run {
                code: status.code(),
                stdout: out.join().expect("stdout reader"),
                stderr: err.join().expect("stderr reader"),
                elapsed: start.elapsed(),
            };
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcpdesc {args:?} did not finish within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Asserts a clean rejection: exit 1 and a diagnostic with one of `codes`.
pub fn assert_rejected(args: &[&str], codes: &[&str]) {
    let r = run(args);
    assert_eq!(
        r.code,
        Some(1),
        "mcpdesc {args:?}: expected exit 1, got {:?} after {:?}\nstderr: {}",
        r.code,
        r.elapsed,
        truncate(&r.stderr)
    );
    assert!(
        codes
            .iter()
            .any(|c| r.stderr.contains(&format!("error[{c}]"))),
        "mcpdesc {args:?}: expected one of {codes:?}\nstderr: {}",
        truncate(&r.stderr)
    );
    assert!(
        !r.stderr.contains("panicked"),
        "panic: {}",
        truncate(&r.stderr)
    );
}

pub fn truncate(s: &str) -> &str {
    let mut end = s.len().min(2000);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Every subcommand that reads one MCP Description file, with the flags it needs.
pub fn description_commands(file: &Path, out_dir: &Path) -> Vec<Vec<String>> {
    let f = file.display().to_string();
    let o = out_dir.display().to_string();
    vec![
        vec![
            "convert".into(),
            f.clone(),
            "-o".into(),
            format!("{o}/out.json"),
        ],
        vec!["validate".into(), f.clone()],
        vec!["names".into(), f.clone()],
        vec![
            "project".into(),
            f.clone(),
            "--protocol-version".into(),
            "2025-11-25".into(),
        ],
        vec!["merge".into(), f.clone()],
        vec!["split".into(), f.clone()],
        vec![
            "export".into(),
            "tools-list".into(),
            f.clone(),
            "--protocol-version".into(),
            "2025-11-25".into(),
        ],
        vec![
            "generate".into(),
            "rust".into(),
            f.clone(),
            "-o".into(),
            format!("{o}/rust"),
        ],
        vec![
            "generate".into(),
            "typescript".into(),
            f,
            "-o".into(),
            format!("{o}/ts"),
        ],
    ]
}

pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write input");
    p
}

/// Runs every description-reading subcommand on `bytes` and expects a clean rejection.
fn reject_everywhere(name: &str, bytes: &[u8], codes: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), name, bytes);
    let out = dir.path().join("out");
    for cmd in description_commands(&file, &out) {
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        assert_rejected(&args, codes);
    }
    // nothing was written for rejected input
    assert!(
        !out.exists()
            || std::fs::read_dir(&out)
                .map(|mut d| d.next().is_none())
                .unwrap_or(true)
    );
}

#[test]
fn deep_json_nesting_is_a_diagnostic() {
    reject_everywhere("deep.json", &inputs::deep_json(100_000), &["limit-depth"]);
}

#[test]
fn deep_yaml_flow_nesting_is_a_diagnostic() {
    reject_everywhere(
        "deep.yaml",
        &inputs::deep_yaml_flow(100_000),
        &["limit-depth"],
    );
}

#[test]
fn deep_yaml_block_nesting_is_a_diagnostic() {
    reject_everywhere(
        "deep-block.yaml",
        &inputs::deep_yaml_block(100_000),
        &["limit-depth"],
    );
}

#[test]
fn yaml_alias_bomb_is_rejected_without_expansion() {
    reject_everywhere(
        "bomb.yaml",
        &inputs::billion_laughs(),
        &["yaml-anchor", "yaml-alias"],
    );
}

#[test]
fn huge_scalar_is_a_diagnostic() {
    reject_everywhere(
        "huge.json",
        &inputs::huge_string_json(20 * 1024 * 1024),
        &["limit-scalar-size"],
    );
}

#[test]
fn gigantic_array_is_a_diagnostic() {
    reject_everywhere(
        "wide.json",
        &inputs::wide_array_json(1_500_000),
        &["limit-collection-size"],
    );
}

#[test]
fn binary_garbage_and_invalid_utf8_are_diagnostics() {
    reject_everywhere(
        "garbage.json",
        &inputs::garbage(64 * 1024),
        &["invalid-utf8", "json-syntax"],
    );
    reject_everywhere(
        "latin1.yaml",
        b"mcpdesc: 0.8.0\ninfo: {name: caf\xe9}\n",
        &["invalid-utf8"],
    );
}

#[test]
fn truncated_documents_are_diagnostics() {
    let full = br#"{"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"}, "protocolVersions": ["2026-07-28"]}"#;
    for cut in [1, 10, 40, full.len() - 1] {
        reject_everywhere("cut.json", &full[..cut], &["unexpected-end", "json-syntax"]);
    }
    reject_everywhere(
        "cut.yaml",
        b"mcpdesc: \"0.8.0\ninfo:\n  name: [a, b\n",
        &["yaml-syntax"],
    );
}

#[test]
fn empty_and_non_document_inputs_are_diagnostics() {
    reject_everywhere("empty.yaml", b"", &["yaml-no-document"]);
    reject_everywhere(
        "two.yaml",
        b"a: 1\n---\nb: 2\n",
        &["yaml-multiple-documents"],
    );
    reject_everywhere(
        "scalar.json",
        b"42",
        &[
            "model-shape",
            "schema",
            "schema-type",
            "document-not-object",
        ],
    );
}

#[test]
fn a_child_with_megabytes_of_diagnostics_does_not_stall_the_harness() {
    // 4,000 tools with names that are not host-safe: `names` reports each one, far more
    // than one pipe buffer of stderr. The harness must drain it while the child runs.
    let tools: Vec<String> = (0..4000)
        .map(|i| format!(r#"{{"name": "Bad Name {i}", "inputSchema": {{"type": "object"}}}}"#))
        .collect();
    let doc = format!(
        r#"{{"mcpdesc": "0.8.0", "info": {{"name": "n", "version": "1"}}, "protocolVersions": ["2025-11-25"], "tools": [{}]}}"#,
        tools.join(",")
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "many.json", doc.as_bytes());
    let r = run(&["names", &file.display().to_string()]);
    assert_eq!(r.code, Some(1), "{}", truncate(&r.stderr));
    assert!(
        r.stderr.len() > 64 * 1024,
        "only {} bytes of stderr",
        r.stderr.len()
    );
    assert!(r.elapsed < Duration::from_secs(20), "took {:?}", r.elapsed);
}
