//! Helpers shared by the workspace-level integration tests.

use mcpdesc_core::{Format, Limits};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub mod prism;

/// A description file (JSON or YAML, detected as the CLI does) decoded; panics naming
/// the file when it cannot be read or decoded (fixtures are the tests' own).
pub fn load_description(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let format = Format::detect(path.to_str(), std::str::from_utf8(&bytes).unwrap_or(""));
    mcpdesc_core::decode_bytes(&bytes, format, &Limits::default())
        .unwrap_or_else(|d| panic!("{}: {d}", path.display()))
        .value
}

/// Every official document that must validate: the conformance fixtures expected valid
/// or with warnings and the spec examples, as (file name, value), sorted per folder.
pub fn official_valid_documents() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for dir in [
        "spec/fixtures/expected-valid",
        "spec/fixtures/expected-warning",
        "spec/examples",
    ] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(fixture(dir))
            .expect("fixture dir")
            .flatten()
            .map(|e| e.path())
            .collect();
        paths.sort();
        for p in paths {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((name, load_description(&p)));
        }
    }
    out
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    workspace_root().join("tests/fixtures").join(rel)
}

/// `snapshots/<area>` (insta `snapshot_path`).
pub fn snapshot_dir(area: &str) -> PathBuf {
    workspace_root().join("snapshots").join(area)
}

/// Path of the built `mcpdesc` binary (for CLI tests).
///
/// `cargo xtask test` builds it first and passes `MCPDESC_BIN`.
pub fn mcpdesc_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("MCPDESC_BIN") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    target
        .join("debug")
        .join(format!("mcpdesc{}", std::env::consts::EXE_SUFFIX))
}

/// Generated source with comments and string/char/template literals removed, for
/// asserting that hostile text from a description never lands in code. `ts` also strips
/// single-quoted strings (in Rust a `'` starts a lifetime or char, and the generated
/// Rust uses no char literals).
pub fn code_only(src: &str, ts: bool) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' || (ts && (c == '`' || c == '\'')) {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `MCPDESC_REQUIRE_DEPS=1` (set by `cargo xtask test`): tests needing `.deps` fail
/// instead of skipping when something is missing.
pub fn require_deps() -> bool {
    std::env::var("MCPDESC_REQUIRE_DEPS").is_ok_and(|v| v == "1")
}

/// Skips (loudly) when a dependency is missing, or fails under `MCPDESC_REQUIRE_DEPS=1`.
pub fn missing(what: &str) {
    assert!(
        !require_deps(),
        "MCPDESC_REQUIRE_DEPS=1 but {what} is missing"
    );
    eprintln!("\n*** SKIPPED: {what} is missing (install with `cargo xtask deps`) ***\n");
}

/// Compile-check settings for generated clients in this workspace
/// (`MCPDESC_GENERATED_TARGET_DIR` overrides their shared target folder).
pub fn check_config() -> mcpdesc_codegen_check::CheckConfig {
    let mut cfg = mcpdesc_codegen_check::CheckConfig::for_workspace(&workspace_root());
    if let Some(t) = std::env::var_os("MCPDESC_GENERATED_TARGET_DIR") {
        cfg.cargo_target_dir = PathBuf::from(t);
    }
    cfg
}

/// The headless Chromium the browser tests drive: `MCPDESC_CHROMIUM`, else the path
/// `cargo xtask deps` found or installed (written to `.deps/chromium-path`).
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("MCPDESC_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| {
            std::fs::read_to_string(workspace_root().join(".deps/chromium-path"))
                .ok()
                .map(|s| PathBuf::from(s.trim()))
        })?;
    path.exists().then_some(path)
}

/// `.deps/node/node_modules` when `cargo xtask deps` installed it.
pub fn node_modules() -> Option<PathBuf> {
    let p = workspace_root().join(".deps/node/node_modules");
    p.is_dir().then_some(p)
}
