//! Helpers shared by the workspace-level integration tests.

use mcpdesc_core::{Format, Limits};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub mod prism;
pub mod servers;

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

/// The validator's handle of a description the test knows to be valid; panics with the
/// validator's diagnostics otherwise.
pub fn valid(doc: &Value) -> mcpdesc_validate::Validated<'_> {
    mcpdesc_validate::Validator::new()
        .check(doc)
        .unwrap_or_else(|d| panic!("the description does not validate: {d:#?}"))
}

/// The one validation of [`export_tools_list`] and [`project`]: the handle, or the
/// validator's errors.
fn check(doc: &Value) -> Result<mcpdesc_validate::Validated<'_>, Vec<mcpdesc_core::Diagnostic>> {
    mcpdesc_validate::Validator::new()
        .check(doc)
        .map_err(|d| d.into_iter().filter(|d| d.is_error()).collect())
}

/// `export tools-list` as the CLI runs it: the description validated once, then
/// [`mcpdesc_scope::export_tools_list`] of the handle. Errors: the validator's errors,
/// else the export's.
pub fn export_tools_list(
    doc: &Value,
    rev: mcpdesc_core::ProtocolRevision,
) -> Result<Value, Vec<mcpdesc_core::Diagnostic>> {
    mcpdesc_scope::export_tools_list(&check(doc)?, rev)
}

/// `project` as the CLI runs it: the description validated once, then
/// [`mcpdesc_scope::project()`] of the handle; the view as a value. Errors: the
/// validator's errors, else the projection's.
pub fn project(
    doc: &Value,
    rev: mcpdesc_core::ProtocolRevision,
) -> Result<Value, Vec<mcpdesc_core::Diagnostic>> {
    mcpdesc_scope::project(&check(doc)?, rev)
        .map(mcpdesc_validate::Validated::into_value)
        .map_err(|d| vec![d])
}

/// `lint` as the CLI runs it: the description validated once (an invalid one gets the
/// validator's errors only), then [`mcpdesc_lint::lint`] of the handle.
pub fn lint(doc: &Value, opts: &mcpdesc_lint::LintOptions) -> mcpdesc_lint::LintReport {
    match mcpdesc_validate::Validator::new().check(doc) {
        Ok(valid) => mcpdesc_lint::lint(&valid, opts),
        Err(d) => mcpdesc_lint::LintReport {
            diagnostics: d.into_iter().filter(|d| d.is_error()).collect(),
            sizes: Vec::new(),
        },
    }
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

/// Path of the `mcpdesc` binary the CLI tests drive, built from this checkout.
///
/// `MCPDESC_BIN` when set (`cargo xtask test` builds the CLI first and passes it).
/// Otherwise the first call in a test process runs `cargo build -p mcpdesc-cli` into
/// the target dir this test binary was built in, with its profile, so a plain
/// `cargo test` drives the code it just compiled and never a stale or missing binary.
/// `cargo test` releases the target dir's lock before it runs test binaries, so the
/// nested build does not deadlock; when the CLI is current it is a no-op of about a
/// second per test binary. A failed build fails the test naming the command.
pub fn mcpdesc_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("MCPDESC_BIN") {
        return PathBuf::from(p);
    }
    static BIN: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    match BIN.get_or_init(build_cli) {
        Ok(p) => p.clone(),
        Err(e) => panic!("{e}"),
    }
}

/// `cargo build -p mcpdesc-cli` into this test binary's target dir and profile.
fn build_cli() -> Result<PathBuf, String> {
    // <target>/<profile dir>/deps/<test binary>
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{}: not in <target>/<profile>/deps", exe.display()))?;
    let target = profile_dir
        .parent()
        .ok_or_else(|| format!("{}: no target dir", profile_dir.display()))?;
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev",
        Some(other) => other,
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.args([
        "build",
        "--package",
        "mcpdesc-cli",
        "--bin",
        "mcpdesc",
        "--profile",
    ])
    .arg(profile)
    .arg("--target-dir")
    .arg(target)
    .current_dir(workspace_root());
    // What cargo set for this test process describes this package, not the build: an
    // inherited `OUT_DIR` alone dirties `ring` and everything above it, so the nested
    // build and a plain `cargo build` would rebuild each other's artifacts by turns.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k == "OUT_DIR"
            || k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_BIN_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
            ]
            .contains(&k.as_ref())
        {
            cmd.env_remove(k.as_ref());
        }
    }
    let shown = format!(
        "cargo build -p mcpdesc-cli --profile {profile} --target-dir {}",
        target.display()
    );
    let status = cmd.status().map_err(|e| {
        format!("the CLI tests need the mcpdesc binary; `{shown}` did not start: {e}")
    })?;
    if !status.success() {
        return Err(format!(
            "the CLI tests need the mcpdesc binary; `{shown}` failed ({status})"
        ));
    }
    Ok(profile_dir.join(format!("mcpdesc{}", std::env::consts::EXE_SUFFIX)))
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

/// A prerequisite this test needs is missing: fails with one line naming it and the
/// command that installs the test prerequisites.
///
/// Tests that need `.deps/`, Chromium or generated builds are *ignored* (listed as
/// `ignored, <reason>` and counted) when `tests/build.rs` found the prerequisite
/// missing at build time; one that runs and still finds it missing (removed since the
/// build, or `MCPDESC_REQUIRE_DEPS=1` as under `cargo xtask test`) fails here, so no
/// test passes without checking.
#[track_caller]
pub fn missing(what: &str) {
    panic!("{what} is missing: `cargo xtask deps` installs the test prerequisites");
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
            std::fs::read_to_string(deps_dir().join("chromium-path"))
                .ok()
                .map(|s| PathBuf::from(s.trim()))
        })?;
    path.exists().then_some(path)
}

/// Where `cargo xtask deps` installs the test prerequisites: `MCPDESC_DEPS` when set
/// (`cargo xtask mutants` points cargo-mutants' copy of the tree, which has none, at the
/// original's), else the workspace's `.deps`.
pub fn deps_dir() -> PathBuf {
    std::env::var_os("MCPDESC_DEPS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".deps"))
}

/// `.deps/node/node_modules` when `cargo xtask deps` installed it.
pub fn node_modules() -> Option<PathBuf> {
    let p = deps_dir().join("node/node_modules");
    p.is_dir().then_some(p)
}

/// An OpenAPI import kept whole: `mcpdesc_openapi::import` into a `ValueSink`.
#[derive(Debug)]
pub struct Imported {
    /// The description as the importer emits it (keys in spec-table order).
    pub value: Value,
    pub diagnostics: Vec<mcpdesc_core::Diagnostic>,
    pub stats: mcpdesc_openapi::ImportStats,
}

impl Imported {
    /// The description read as the typed model; panics when it does not read (the
    /// importer validated it).
    pub fn document(&self) -> mcpdesc_core::Document {
        mcpdesc_core::Document::from_value(self.value.clone())
            .unwrap_or_else(|d| panic!("the imported description is no Document: {d:#?}"))
    }
}

/// Imports `source` with `opts` into a `ValueSink`.
pub fn import_whole(
    source: mcpdesc_openapi::Source<'_>,
    opts: &mcpdesc_openapi::ImportOptions,
) -> Result<Imported, mcpdesc_openapi::ImportError> {
    let mut sink = mcpdesc_openapi::ValueSink::new();
    let report = mcpdesc_openapi::import(source, opts, &mut sink)?;
    Ok(Imported {
        value: sink
            .into_value()
            .unwrap_or_else(|| panic!("a successful import leaves its document in the sink")),
        diagnostics: report.diagnostics,
        stats: report.stats,
    })
}

/// [`import_whole`] of the OpenAPI file at `path`.
pub fn import_file(
    path: &Path,
    opts: &mcpdesc_openapi::ImportOptions,
) -> Result<Imported, mcpdesc_openapi::ImportError> {
    import_whole(mcpdesc_openapi::Source::Path(path), opts)
}
