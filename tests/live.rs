//! Live tools/list import and capture (issue 5): dump fixtures of every accepted shape,
//! real servers started by the tests (npm `@modelcontextprotocol/server-everything`,
//! a PyPI `mcp` Python server), crash/hang handling, and the round trip
//! live → capture → saved transcripts → import → export.
//!
//! Tests that need `.deps/` (npm/PyPI packages) are ignored, with the reason, when
//! `tests/build.rs` found them missing; one that runs without them fails.

use mcpdesc_core::{Diagnostic, ProtocolRevision, Severity};
use mcpdesc_live::client::Lifecycle;
use mcpdesc_live::{
    CaptureError, CaptureOptions, FileDiagnostic, ImportOptions, Target, capture, import_dumps,
};
use mcpdesc_tests::{deps_dir, fixture, mcpdesc_bin, snapshot_dir};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ProtocolRevision::*;

// ------------------------------------------------------------------ helpers

fn dump(name: &str) -> (String, Vec<u8>) {
    let p = fixture(&format!("live/dumps/{name}"));
    let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (name.to_string(), bytes)
}

fn opts(rev: Option<ProtocolRevision>, server: Option<&str>) -> ImportOptions {
    ImportOptions {
        protocol_version: rev,
        server_name: server.map(str::to_string),
        ..Default::default()
    }
}

fn import_ok(names: &[&str], o: &ImportOptions) -> (Value, Vec<FileDiagnostic>) {
    let inputs: Vec<_> = names.iter().map(|n| dump(n)).collect();
    match import_dumps(&inputs, o) {
        Ok(out) => (out.description.value().clone(), out.diagnostics),
        Err(d) => panic!("import of {names:?} failed:\n{}", render(&d)),
    }
}

fn import_err(names: &[&str], o: &ImportOptions) -> Vec<FileDiagnostic> {
    let inputs: Vec<_> = names.iter().map(|n| dump(n)).collect();
    match import_dumps(&inputs, o) {
        Ok(out) => panic!(
            "import of {names:?} succeeded unexpectedly:\n{}",
            out.description.value()
        ),
        Err(d) => d,
    }
}

fn render(d: &[FileDiagnostic]) -> String {
    d.iter()
        .map(FileDiagnostic::render)
        .collect::<Vec<_>>()
        .join("\n")
}

fn codes(d: &[FileDiagnostic], sev: Severity) -> Vec<String> {
    d.iter()
        .filter(|x| x.diagnostic.severity == sev)
        .map(|x| x.diagnostic.code.clone())
        .collect()
}

fn tool_names(doc: &Value) -> Vec<String> {
    doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["name"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The declaration of `name` whose scope contains `rev` (omitted scope = root).
fn decl<'a>(doc: &'a Value, name: &str, rev: ProtocolRevision) -> &'a Value {
    doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["name"] == name
                && t.get("protocolVersions").is_none_or(|s| {
                    s.as_array()
                        .is_some_and(|a| a.iter().any(|v| v == rev.as_str()))
                })
        })
        .unwrap_or_else(|| panic!("no declaration of `{name}` at {rev} in\n{doc:#}"))
}

fn assert_validates(doc: &Value) {
    let errs: Vec<Diagnostic> = mcpdesc_validate::validate_value(doc)
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect();
    assert!(
        errs.is_empty(),
        "result does not validate: {errs:#?}\n{doc:#}"
    );
}

fn snapshot(name: &str, doc: &Value, diags: &[FileDiagnostic]) {
    let diag_lines: Vec<String> = diags.iter().map(FileDiagnostic::render).collect();
    let body = json!({"document": doc, "diagnostics": diag_lines});
    insta::with_settings!({snapshot_path => snapshot_dir("live"), prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!(name, body);
    });
}

/// Whether `paths` exist; fails naming the missing ones (`mcpdesc_tests::missing`).
fn have(what: &str, paths: &[PathBuf]) -> bool {
    let missing: Vec<_> = paths.iter().filter(|p| !p.exists()).collect();
    if missing.is_empty() {
        return true;
    }
    mcpdesc_tests::missing(&format!("{what} ({missing:?})"));
    false
}

fn deps() -> PathBuf {
    deps_dir()
}
fn everything_js() -> PathBuf {
    deps().join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}
fn venv_python() -> PathBuf {
    deps().join("venv/bin/python")
}
fn py_server() -> PathBuf {
    fixture("live/servers/py_server.py")
}
fn everything_target() -> Target {
    Target::command(
        "node",
        vec![everything_js().display().to_string(), "stdio".into()],
    )
}
fn py_target() -> Target {
    Target::command(
        venv_python().display().to_string(),
        vec![py_server().display().to_string(), "stdio".into()],
    )
}
fn cap_opts() -> CaptureOptions {
    CaptureOptions {
        timeout: Duration::from_secs(60),
        ..Default::default()
    }
}

// ------------------------------------------------------------------ dump shapes

#[test]
fn bare_result_needs_a_revision_and_a_name() {
    let e = import_err(&["bare-result.json"], &opts(None, None));
    assert_eq!(
        codes(&e, Severity::Error),
        ["protocol-version-required"],
        "{}",
        render(&e)
    );
    let e = import_err(&["bare-result.json"], &opts(Some(V2025_11_25), None));
    assert_eq!(
        codes(&e, Severity::Error),
        ["server-name-required"],
        "{}",
        render(&e)
    );
    let (doc, d) = import_ok(
        &["bare-result.json"],
        &opts(Some(V2025_11_25), Some("weather")),
    );
    assert_eq!(doc["info"], json!({"name": "weather", "version": "0.0.0"}));
    assert_eq!(doc["protocolVersions"], json!(["2025-11-25"]));
    assert!(codes(&d, Severity::Warning).contains(&"server-version-unknown".to_string()));
    // 2025-11-25 defines every field the dump has, and draft-07 is a supported dialect.
    let w = decl(&doc, "get_weather", V2025_11_25);
    assert_eq!(
        w["inputSchema"]["$schema"],
        "http://json-schema.org/draft-07/schema#"
    );
    assert_eq!(w["execution"], json!({"taskSupport": "forbidden"}));
    assert_eq!(w["title"], "Get Weather");
    assert!(
        !codes(&d, Severity::Warning)
            .iter()
            .any(|c| c == "field-not-in-revision"),
        "{}",
        render(&d)
    );
    assert_validates(&doc);
    snapshot("import_bare_result", &doc, &d);
}

#[test]
fn jsonrpc_response_and_bare_result_agree() {
    let o = opts(Some(V2025_11_25), Some("weather"));
    let (a, _) = import_ok(&["jsonrpc-response.json"], &o);
    let (b, _) = import_ok(&["bare-result.json"], &o);
    assert_eq!(a, b);
    // Two dumps of one revision that agree import as one.
    let (c, _) = import_ok(&["jsonrpc-response.json", "bare-result.json"], &o);
    assert_eq!(a, c);
}

#[test]
fn array_of_pages_is_joined_in_order() {
    let (doc, d) = import_ok(
        &["array-of-pages.json"],
        &opts(Some(V2025_06_18), Some("weather")),
    );
    assert_eq!(tool_names(&doc), ["get_weather", "add", "notes.append"]);
    // At 2025-06-18: `execution` (2025-11-25 only) and root `$schema` (dialects from
    // 2025-11-25) are dropped, title/outputSchema/_meta kept.
    let w = decl(&doc, "get_weather", V2025_06_18);
    assert!(w.get("execution").is_none() && w["inputSchema"].get("$schema").is_none());
    assert!(w["outputSchema"].get("$schema").is_none());
    assert_eq!(
        decl(&doc, "notes.append", V2025_06_18)["_meta"],
        json!({"com.example/owner": "tests"})
    );
    let warns = codes(&d, Severity::Warning);
    assert_eq!(
        warns
            .iter()
            .filter(|c| *c == "schema-dialect-not-in-revision")
            .count(),
        2,
        "{}",
        render(&d)
    );
    assert_eq!(
        warns
            .iter()
            .filter(|c| *c == "field-not-in-revision")
            .count(),
        1,
        "{}",
        render(&d)
    );
    assert!(
        warns.contains(&"tool-name-not-host-safe".to_string()),
        "{}",
        render(&d)
    );
    assert_validates(&doc);
    snapshot("import_array_of_pages", &doc, &d);
}

#[test]
fn array_of_tools() {
    let (doc, d) = import_ok(
        &["array-of-tools.json"],
        &opts(Some(V2024_11_05), Some("notes")),
    );
    assert_eq!(tool_names(&doc), ["add", "notes.append"]);
    // `_meta` on a Tool is 2025-06-18+: dropped, with a warning pointing at it.
    assert!(
        decl(&doc, "notes.append", V2024_11_05)
            .get("_meta")
            .is_none()
    );
    let w = d
        .iter()
        .find(|x| x.diagnostic.code == "field-not-in-revision")
        .expect("a drop warning");
    assert_eq!(w.diagnostic.pointer, "/1/_meta");
    assert!(w.diagnostic.line.is_some());
    assert_validates(&doc);
}

#[test]
fn transcript_uses_the_negotiated_revision_and_cursor_order() {
    // The client asked for 2026-07-28; the server negotiated 2025-06-18. Pages were
    // answered out of order and the transcript has unrelated traffic.
    let (doc, d) = import_ok(&["transcript.jsonl"], &opts(None, None));
    assert_eq!(doc["protocolVersions"], json!(["2025-06-18"]));
    assert_eq!(
        doc["info"],
        json!({"name": "weather-server", "title": "Weather", "version": "2.1.0"})
    );
    assert_eq!(tool_names(&doc), ["get_weather", "add", "notes.append"]);
    assert!(codes(&d, Severity::Error).is_empty());
    // A flag never overrides what the transcript says.
    let (doc2, d2) = import_ok(&["transcript.jsonl"], &opts(Some(V2024_11_05), Some("x")));
    assert_eq!(doc, doc2);
    assert!(codes(&d2, Severity::Warning).contains(&"protocol-version-flag-ignored".to_string()));
    assert_validates(&doc);
    snapshot("import_transcript", &doc, &d);
}

#[test]
fn at_2024_11_05_newer_fields_are_dropped_once_per_tool_and_field() {
    let (doc, d) = import_ok(&["transcript-2024-11-05.jsonl"], &opts(None, None));
    let w = decl(&doc, "get_weather", V2024_11_05);
    let keys: Vec<&String> = w
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["name", "description", "inputSchema"], "{w:#}");
    assert!(w["inputSchema"].get("$schema").is_none());
    let mut dropped: Vec<(String, String)> = d
        .iter()
        .filter(|x| {
            x.diagnostic.severity == Severity::Warning
                && x.diagnostic.code != "tool-name-not-host-safe"
        })
        .map(|x| (x.diagnostic.code.clone(), x.diagnostic.pointer.clone()))
        .collect();
    dropped.sort();
    let mut expected: Vec<(String, String)> = vec![
        (
            "field-not-in-revision".to_string(),
            "/result/tools/0/annotations".to_string(),
        ),
        (
            "field-not-in-revision".into(),
            "/result/tools/0/execution".into(),
        ),
        (
            "field-not-in-revision".into(),
            "/result/tools/0/outputSchema".into(),
        ),
        (
            "field-not-in-revision".into(),
            "/result/tools/0/title".into(),
        ),
        (
            "field-not-in-revision".into(),
            "/result/tools/0/_meta".into(),
        ),
        (
            "schema-dialect-not-in-revision".into(),
            "/result/tools/0/inputSchema/$schema".into(),
        ),
        // The imported description covers a legacy revision: the validator says its
        // validation is incomplete (§16.2).
        (
            "legacy-validation-incomplete".into(),
            "/protocolVersions".into(),
        ),
    ];
    expected.sort();
    assert_eq!(dropped, expected, "{}", render(&d));
    assert_validates(&doc);
    snapshot("import_transcript_2024_11_05", &doc, &d);
}

#[test]
fn stateless_2026_transcript() {
    let (doc, d) = import_ok(&["stateless-2026-07-28.jsonl"], &opts(None, None));
    assert_eq!(doc["protocolVersions"], json!(["2026-07-28"]));
    assert_eq!(doc["info"]["name"], "weather-server");
    // Any outputSchema root is allowed from 2026-07-28 on.
    assert_eq!(
        decl(&doc, "get_weather", V2026_07_28)["outputSchema"]["type"],
        "array"
    );
    assert!(codes(&d, Severity::Error).is_empty());
    assert_validates(&doc);
}

#[test]
fn views_merge_into_scoped_variants() {
    let (doc, d) = import_ok(
        &[
            "transcript-2024-11-05.jsonl",
            "transcript.jsonl",
            "stateless-2026-07-28.jsonl",
        ],
        &opts(None, None),
    );
    assert_eq!(
        doc["protocolVersions"],
        json!(["2024-11-05", "2025-06-18", "2026-07-28"])
    );
    // `add` is the same everywhere: one declaration, no scope.
    let adds: Vec<&Value> = doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["name"] == "add")
        .collect();
    assert_eq!(adds.len(), 1);
    assert!(adds[0].get("protocolVersions").is_none());
    // get_weather differs at each revision: three disjoint variants.
    let weather: Vec<&Value> = doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["name"] == "get_weather")
        .collect();
    assert_eq!(weather.len(), 3, "{doc:#}");
    assert_eq!(decl(&doc, "get_weather", V2024_11_05).get("title"), None);
    assert_eq!(
        decl(&doc, "get_weather", V2025_06_18)["title"],
        "Get Weather"
    );
    // notes.append: `_meta` dropped at 2024-11-05 only → two variants.
    assert_eq!(
        doc["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["name"] == "notes.append")
            .count(),
        2
    );
    assert_validates(&doc);
    snapshot("import_merged_three_revisions", &doc, &d);
}

#[test]
fn inspector_cli_output_is_a_bare_result() {
    // Real `mcp-inspector --cli … --method tools/list` output (inspector 0.15.0, SDK 1.32.2).
    let (doc, d) = import_ok(
        &["inspector-cli-everything.json"],
        &opts(Some(V2025_11_25), Some("everything")),
    );
    for t in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
    ] {
        assert!(tool_names(&doc).contains(&t.to_string()), "{t}");
    }
    assert!(codes(&d, Severity::Warning).contains(&"tool-name-not-host-safe".to_string()));
    assert_validates(&doc);
    let (doc, _) = import_ok(
        &["inspector-cli-py.json"],
        &opts(Some(V2025_11_25), Some("py")),
    );
    assert_eq!(tool_names(&doc), ["get_weather", "add", "notes.append"]);
}

#[test]
fn duplicate_tool_across_pages_names_both_pages() {
    let e = import_err(&["bad-duplicate-across-pages.jsonl"], &opts(None, None));
    let d = e
        .iter()
        .find(|x| x.diagnostic.code == "dump-duplicate-tool")
        .unwrap_or_else(|| panic!("{}", render(&e)));
    assert!(
        d.diagnostic.message.contains("page 1") && d.diagnostic.message.contains("page 2"),
        "{}",
        d.diagnostic.message
    );
    assert!(
        d.diagnostic.message.contains("line 4") && d.diagnostic.message.contains("line 6"),
        "{}",
        d.diagnostic.message
    );
    assert_eq!(d.diagnostic.line, Some(6));
}

#[test]
fn disagreeing_dumps_of_one_revision_fail_with_tool_and_pointer() {
    let e = import_err(
        &[
            "bare-result.json",
            "bad-disagree-with-jsonrpc-response.json",
        ],
        &opts(Some(V2025_11_25), Some("weather")),
    );
    let d = e
        .iter()
        .find(|x| x.diagnostic.code == "dumps-disagree")
        .unwrap_or_else(|| panic!("{}", render(&e)));
    assert!(
        d.diagnostic.message.contains("`add`"),
        "{}",
        d.diagnostic.message
    );
    assert!(
        d.diagnostic
            .message
            .contains("/inputSchema/properties/b/type"),
        "{}",
        d.diagnostic.message
    );
    assert_eq!(
        d.diagnostic.pointer,
        "/result/tools/1/inputSchema/properties/b/type"
    );
}

#[test]
fn rejected_inputs() {
    let e = import_err(
        &["bad-not-a-dump.json"],
        &opts(Some(V2025_11_25), Some("x")),
    );
    assert_eq!(codes(&e, Severity::Error), ["dump-unrecognized"]);
    let e = import_err(
        &["bad-jsonrpc-error.json"],
        &opts(Some(V2025_11_25), Some("x")),
    );
    assert_eq!(codes(&e, Severity::Error), ["dump-jsonrpc-error"]);
}

// ------------------------------------------------------------------ live servers

fn negotiated(out: &mcpdesc_live::CaptureOutcome) -> Vec<(String, String)> {
    out.sessions
        .iter()
        .map(|s| (s.requested.to_string(), s.negotiated.clone()))
        .collect()
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn live_everything_stdio_all_revisions() {
    if !have("server-everything (npm)", &[everything_js()]) {
        return;
    }
    let out = capture(&everything_target(), &cap_opts()).unwrap_or_else(|e| panic!("{e}"));
    // Measured: it speaks every revision up to 2025-11-25 and answers server/discover
    // with -32601, so 2026-07-28 falls back to initialize and negotiates 2025-11-25.
    assert_eq!(
        negotiated(&out),
        pairs(&[
            ("2024-11-05", "2024-11-05"),
            ("2025-03-26", "2025-03-26"),
            ("2025-06-18", "2025-06-18"),
            ("2025-11-25", "2025-11-25"),
            ("2026-07-28", "2025-11-25"),
        ])
    );
    assert!(
        out.sessions
            .iter()
            .all(|s| s.lifecycle == Lifecycle::Handshake)
    );
    let doc = out.import.description.value().clone();
    assert_eq!(
        doc["protocolVersions"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
    );
    assert_eq!(doc["info"]["name"], "mcp-servers/everything");
    for t in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
        "trigger-long-running-operation",
    ] {
        assert!(tool_names(&doc).contains(&t.to_string()), "{t} missing");
    }
    // It sends title/outputSchema/execution/$schema at 2024-11-05: dropped, one warning each.
    let d = &out.import.diagnostics;
    let at = |code: &str, ptr_end: &str| {
        d.iter()
            .filter(|x| {
                x.diagnostic.code == code
                    && x.diagnostic.pointer.ends_with(ptr_end)
                    && x.diagnostic.message.contains("`echo`")
            })
            .count()
    };
    assert_eq!(at("field-not-in-revision", "/title"), 1, "{}", render(d));
    assert_eq!(
        at("field-not-in-revision", "/execution"),
        1,
        "{}",
        render(d)
    );
    assert_eq!(
        at("schema-dialect-not-in-revision", "/inputSchema/$schema"),
        1,
        "{}",
        render(d)
    );
    let echo_2024 = decl(&doc, "echo", V2024_11_05);
    assert!(echo_2024.get("title").is_none() && echo_2024.get("annotations").is_none());
    assert_eq!(
        decl(&doc, "echo", V2025_11_25)["inputSchema"]["$schema"],
        "http://json-schema.org/draft-07/schema#"
    );
    assert!(codes(d, Severity::Info).contains(&"revision-negotiated-twice".to_string()));
    assert!(codes(d, Severity::Warning).contains(&"tool-name-not-host-safe".to_string()));
    assert_validates(&doc);
}

#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn live_python_stdio_all_revisions() {
    if !have("python mcp server (PyPI mcp)", &[venv_python()]) {
        return;
    }
    let out = capture(&py_target(), &cap_opts()).unwrap_or_else(|e| panic!("{e}"));
    // Measured: mcp 2.3.0 answers initialize(2026-07-28) with 2025-11-25, but speaks
    // 2026-07-28 through server/discover (stateless lifecycle).
    assert_eq!(
        negotiated(&out),
        pairs(&[
            ("2024-11-05", "2024-11-05"),
            ("2025-03-26", "2025-03-26"),
            ("2025-06-18", "2025-06-18"),
            ("2025-11-25", "2025-11-25"),
            ("2026-07-28", "2026-07-28"),
        ])
    );
    assert_eq!(out.sessions[4].lifecycle, Lifecycle::Stateless);
    let doc = out.import.description.value().clone();
    assert_eq!(
        doc["info"],
        json!({"name": "mcpdesc-live-test", "title": "mcpdesc live test server", "version": "1.2.3"})
    );
    assert_eq!(
        tool_names(&doc)
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        3
    );
    let w = decl(&doc, "get_weather", V2025_06_18);
    assert_eq!(w["title"], "Get Weather");
    assert_eq!(
        w["outputSchema"]["properties"]["temperature"]["type"],
        "number"
    );
    assert!(
        decl(&doc, "get_weather", V2024_11_05)
            .get("outputSchema")
            .is_none()
    );
    assert_eq!(
        decl(&doc, "notes.append", V2025_11_25)["icons"][0]["src"],
        "https://example.com/note.png"
    );
    assert!(
        decl(&doc, "notes.append", V2025_06_18)
            .get("icons")
            .is_none()
    );
    assert_eq!(
        decl(&doc, "notes.append", V2025_06_18)["_meta"],
        json!({"com.example/owner": "tests"})
    );
    assert_validates(&doc);
}

/// A free TCP port on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18_765)
}

/// Kills and reaps the HTTP server however the test ends.
struct Reap(std::process::Child);
impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the Python `mcp` server in HTTP `mode` (with `env`) on a free port and waits
/// until it accepts connections; returns its reaper and its `/mcp` URL.
fn start_py_http(mode: &str, env: &[(&str, &str)]) -> (Reap, String) {
    let port = free_port();
    let child = Command::new(venv_python())
        .arg(py_server())
        .args([mode, &port.to_string()])
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the python server");
    let reap = Reap(child);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the HTTP server did not come up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (reap, format!("http://127.0.0.1:{port}/mcp"))
}

#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn live_python_streamable_http() {
    if !have("python mcp server (PyPI mcp)", &[venv_python()]) {
        return;
    }
    let (_reap, url) = start_py_http("http", &[]);
    let out = capture(&Target::url(url), &cap_opts()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.sessions
            .iter()
            .map(|s| s.negotiated.as_str())
            .collect::<Vec<_>>(),
        [
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]
    );
    // Same server, same description as over stdio.
    let stdio = capture(&py_target(), &cap_opts()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.import.description.value(),
        stdio.import.description.value()
    );
}

// ------------------------------------------------------------------ crash, hang, round trip (CLI)

fn pid_gone(pid_file: &Path) {
    let pid = std::fs::read_to_string(pid_file).unwrap_or_default();
    let pid = pid.trim();
    assert!(!pid.is_empty(), "the fake server did not record its pid");
    // Gone entirely, or at least not a zombie of this process.
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next()
            .unwrap_or("");
        assert!(state != "Z", "pid {pid} is a zombie: {stat}");
        panic!("pid {pid} still runs: {stat}");
    }
}

#[test]
fn crashing_server_is_a_clear_error_and_is_reaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pid");
    let t = Target::command(
        fixture("live/servers/crash.sh").display().to_string(),
        vec![pid_file.display().to_string()],
    );
    let err = capture(
        &t,
        &CaptureOptions {
            timeout: Duration::from_secs(20),
            ..Default::default()
        },
    )
    .expect_err("must fail");
    let msg = err.to_string();
    assert!(matches!(err, CaptureError::Session { .. }), "{msg}");
    assert!(
        msg.contains("exited") && msg.contains("exit status 3"),
        "{msg}"
    );
    assert!(
        msg.contains("cannot open database"),
        "stderr must be in the error: {msg}"
    );
    pid_gone(&pid_file);
}

#[test]
fn hanging_server_times_out_and_is_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pid");
    let t = Target::command(
        fixture("live/servers/hang.sh").display().to_string(),
        vec![pid_file.display().to_string()],
    );
    let started = std::time::Instant::now();
    let o = CaptureOptions {
        timeout: Duration::from_millis(800),
        grace: Duration::from_millis(200),
        ..Default::default()
    };
    let err = capture(&t, &o).expect_err("must fail");
    let msg = err.to_string();
    assert!(msg.contains("did not answer `initialize`"), "{msg}");
    assert!(
        msg.contains("listening (not really)"),
        "stderr must be in the error: {msg}"
    );
    assert!(started.elapsed() < Duration::from_secs(15));
    pid_gone(&pid_file);
}

fn cli() -> Option<PathBuf> {
    let bin = mcpdesc_bin();
    have("the mcpdesc binary", std::slice::from_ref(&bin)).then_some(bin)
}

#[test]
fn cli_crash_and_hang_exit_1_without_output() {
    let Some(bin) = cli() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    for (script, extra) in [("crash.sh", vec![]), ("hang.sh", vec!["--timeout", "1"])] {
        let out_file = dir.path().join(format!("{script}.json"));
        let o = Command::new(&bin)
            .arg("capture")
            .args(&extra)
            .arg("-o")
            .arg(&out_file)
            .arg("--")
            .arg(fixture(&format!("live/servers/{script}")))
            .output()
            .expect("run mcpdesc");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{script}: {stderr}");
        assert!(stderr.contains("mcpdesc: error:"), "{script}: {stderr}");
        assert!(!out_file.exists(), "{script}: an output file was written");
    }
}

/// live → capture (--save-transcripts) → import tools-list of the transcripts gives
/// the same description; export per revision equals what the server sent minus the
/// dropped fields.
fn round_trip(target_args: &[String]) {
    let Some(bin) = cli() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let captured = dir.path().join("captured.json");
    let tdir = dir.path().join("sessions");
    let o = Command::new(&bin)
        .arg("capture")
        .arg("-o")
        .arg(&captured)
        .arg("--save-transcripts")
        .arg(&tdir)
        .arg("--")
        .args(target_args)
        .output()
        .expect("run mcpdesc capture");
    assert!(
        o.status.success(),
        "capture failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut transcripts: Vec<PathBuf> = std::fs::read_dir(&tdir)
        .expect("transcripts")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    transcripts.sort();
    assert_eq!(transcripts.len(), 5);
    let imported = dir.path().join("imported.yaml");
    let o = Command::new(&bin)
        .args(["import", "tools-list"])
        .args(&transcripts)
        .arg("-o")
        .arg(&imported)
        .output()
        .expect("run import");
    assert!(
        o.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let a: Value =
        serde_json::from_slice(&std::fs::read(&captured).expect("captured")).expect("json");
    let b_text = std::fs::read_to_string(&imported).expect("imported");
    let (b, _) =
        mcpdesc_core::parse_document(&b_text, mcpdesc_core::Format::Yaml, &Default::default())
            .expect("yaml");
    assert_eq!(
        a,
        b.to_value(),
        "capture and import of its transcripts differ"
    );

    // Export per revision = the server's tools/list minus the dropped fields.
    for t in &transcripts {
        let text = std::fs::read_to_string(t).expect("transcript");
        let msgs: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let rev = msgs
            .iter()
            .find_map(|m| {
                m.pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .or_else(|| {
                msgs.iter().find_map(|m| {
                    m.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
            })
            .expect("revision in transcript");
        let rev = ProtocolRevision::parse(&rev).expect("known revision");
        let sent: Vec<Value> = msgs
            .iter()
            .filter_map(|m| m.pointer("/result/tools").and_then(Value::as_array))
            .flatten()
            .cloned()
            .collect();
        let exported = mcpdesc_tests::export_tools_list(&a, rev)
            .unwrap_or_else(|e| panic!("export at {rev}: {e:?}"));
        let exported = exported["tools"].as_array().cloned().unwrap_or_default();
        assert_eq!(exported.len(), sent.len(), "at {rev}");
        for s in &sent {
            let e = exported
                .iter()
                .find(|e| e["name"] == s["name"])
                .unwrap_or_else(|| panic!("{} not exported at {rev}", s["name"]));
            let expect = strip_undefined(s, rev);
            assert_eq!(e, &expect, "export of {} at {rev}", s["name"]);
        }
    }
}

/// What the server sent minus what `rev` does not define — computed here from the
/// spec's tables by hand (an independent oracle, not the importer's code).
fn strip_undefined(tool: &Value, rev: ProtocolRevision) -> Value {
    let since = |r: ProtocolRevision| rev >= r;
    let mut t = tool.as_object().cloned().unwrap_or_default();
    if !since(V2025_06_18) {
        t.remove("title");
        t.remove("outputSchema");
        t.remove("_meta");
    }
    if !since(V2025_03_26) {
        t.remove("annotations");
    }
    if rev != V2025_11_25 {
        t.remove("execution");
    }
    if !since(V2025_11_25) {
        t.remove("icons");
        for k in ["inputSchema", "outputSchema"] {
            if let Some(s) = t.get_mut(k).and_then(Value::as_object_mut) {
                s.remove("$schema");
            }
        }
    }
    Value::Object(t)
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn round_trip_everything() {
    if !have("server-everything (npm)", &[everything_js()]) {
        return;
    }
    round_trip(&[
        "node".into(),
        everything_js().display().to_string(),
        "stdio".into(),
    ]);
}

#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn round_trip_python() {
    if !have("python mcp server (PyPI mcp)", &[venv_python()]) {
        return;
    }
    round_trip(&[
        venv_python().display().to_string(),
        py_server().display().to_string(),
        "stdio".into(),
    ]);
}

// ------------------------------------------------------------------ server-only transcripts

/// Five files of what the Python server wrote to its stdout, one session per revision
/// (no requests: `tests/fixtures/live/dumps/server-stdout/make.py`).
fn py_stdout_dumps() -> Vec<String> {
    ProtocolRevision::ALL
        .iter()
        .map(|r| format!("server-stdout/py-{r}.jsonl"))
        .collect()
}

#[test]
fn server_stdout_transcripts_import_without_flags() {
    // Each alone: the revision and the server come from the initialize result (the
    // server/discover result for the stateless 2026-07-28 session), recognized by shape.
    for (name, rev) in py_stdout_dumps().iter().zip(ProtocolRevision::ALL) {
        let (doc, d) = import_ok(&[name.as_str()], &opts(None, None));
        assert_eq!(doc["protocolVersions"], json!([rev.as_str()]), "{name}");
        assert_eq!(
            doc["info"],
            json!({"name": "mcpdesc-live-test", "title": "mcpdesc live test server", "version": "1.2.3"}),
            "{name}"
        );
        assert!(codes(&d, Severity::Error).is_empty(), "{}", render(&d));
        assert_validates(&doc);
    }
    // All five at once: five revisions, which no single --protocol-version could say.
    let names = py_stdout_dumps();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (doc, d) = import_ok(&names, &opts(None, None));
    assert_eq!(
        doc["protocolVersions"],
        json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ])
    );
    assert!(
        decl(&doc, "get_weather", V2024_11_05)
            .get("title")
            .is_none()
    );
    assert_eq!(
        decl(&doc, "get_weather", V2025_06_18)["title"],
        "Get Weather"
    );
    assert_eq!(
        decl(&doc, "notes.append", V2026_07_28)["icons"][0]["src"],
        "https://example.com/note.png"
    );
    assert!(
        !codes(&d, Severity::Warning).contains(&"protocol-version-flag-ignored".to_string()),
        "{}",
        render(&d)
    );
    assert_validates(&doc);
    snapshot("import_server_stdout_five_revisions", &doc, &d);

    // server-everything answers server/discover with an error, then negotiates
    // 2025-11-25 when asked for 2026-07-28: two files of one revision, which agree.
    let names: Vec<String> = ProtocolRevision::ALL
        .iter()
        .map(|r| format!("server-stdout/everything-{r}.jsonl"))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (doc, d) = import_ok(&names, &opts(None, None));
    assert_eq!(
        doc["protocolVersions"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
    );
    assert_eq!(doc["info"]["name"], "mcp-servers/everything");
    assert!(codes(&d, Severity::Error).is_empty(), "{}", render(&d));
    assert_validates(&doc);
}

/// Runs `make.py` (a small independent client in Python) against a live server: what
/// the server writes to stdout, per revision, into `dir`.
fn save_server_stdout(dir: &Path, prefix: &str, server: &[String]) -> Vec<(String, Vec<u8>)> {
    let o = Command::new(venv_python())
        .arg(fixture("live/dumps/server-stdout/make.py"))
        .arg(dir.join(prefix))
        .args(server)
        .output()
        .expect("run make.py");
    assert!(
        o.status.success(),
        "make.py failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    ProtocolRevision::ALL
        .iter()
        .map(|r| {
            let name = format!("{prefix}-{r}.jsonl");
            let bytes = std::fs::read(dir.join(&name)).expect("saved stdout");
            (name, bytes)
        })
        .collect()
}

#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
#[test]
fn live_server_stdout_imports_as_the_capture_does() {
    if !have(
        "npm server-everything and the PyPI mcp server",
        &[everything_js(), venv_python()],
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let servers = [
        (
            "py",
            vec![
                venv_python().display().to_string(),
                py_server().display().to_string(),
                "stdio".to_string(),
            ],
            py_target(),
        ),
        (
            "everything",
            vec![
                "node".to_string(),
                everything_js().display().to_string(),
                "stdio".to_string(),
            ],
            everything_target(),
        ),
    ];
    for (prefix, cmd, target) in servers {
        let inputs = save_server_stdout(dir.path(), prefix, &cmd);
        for (name, bytes) in &inputs {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.contains("\"method\":\"initialize\"")
                    && !text.contains("\"method\":\"tools/list\""),
                "{name} holds client requests"
            );
        }
        let imported = import_dumps(&inputs, &opts(None, None))
            .unwrap_or_else(|d| panic!("{prefix}: {}", render(&d)));
        let captured = capture(&target, &cap_opts()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            imported.description.value(),
            captured.import.description.value(),
            "{prefix}: the server's stdout alone and a full capture differ"
        );
    }
}

// ------------------------------------------------------------------ credentials

/// A secret no output may contain (unique per run).
fn secret(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("mcpdesc-{what}-{}-{nanos}", std::process::id())
}

/// Every file under `dir` and the process output: none may contain `secret`.
fn assert_nowhere(secret: &str, out: &std::process::Output, dir: &Path) {
    for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !String::from_utf8_lossy(bytes).contains(secret),
            "the secret is in {what}"
        );
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let text =
                    String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()).into_owned();
                assert!(!text.contains(secret), "the secret is in {}", p.display());
            }
        }
    }
}

fn stderr_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn capture_with_a_bearer_token_never_shows_it() {
    let Some(bin) = cli() else { return };
    if !have("python mcp server (PyPI mcp)", &[venv_python()]) {
        return;
    }
    let token = secret("token");
    let (_reap, url) = start_py_http("http-bearer", &[("MCPDESC_TEST_BEARER_TOKEN", &token)]);
    let dir = tempfile::tempdir().expect("tempdir");
    let out_file = dir.path().join("out.json");
    let capture_cmd = |extra: &[&str]| {
        let mut c = Command::new(&bin);
        c.args(["capture", "--url", &url, "--timeout", "30", "-o"])
            .arg(&out_file)
            .arg("--save-transcripts")
            .arg(dir.path().join("sessions"))
            .args(extra);
        c
    };

    // Without credentials: the server's 401 is the error, nothing is written.
    let o = capture_cmd(&["--protocol-versions", "2025-06-18"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("401"), "{}", stderr_of(&o));
    assert!(!out_file.exists());

    // From the environment (`${VAR}`): every revision captured; the token is in no
    // output, transcript or message.
    let o = capture_cmd(&["--header", "Authorization:${MCPDESC_TEST_AUTH}"])
        .env("MCPDESC_TEST_AUTH", format!("Bearer {token}"))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let doc: Value =
        serde_json::from_slice(&std::fs::read(&out_file).expect("output")).expect("json");
    assert_eq!(doc["info"]["name"], "mcpdesc-live-test");
    assert_eq!(
        tool_names(&doc)
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        3
    );
    assert_validates(&doc);
    assert_eq!(
        std::fs::read_dir(dir.path().join("sessions"))
            .map(|d| d.count())
            .unwrap_or(0),
        5
    );
    assert_nowhere(&token, &o, dir.path());

    // A literal value works too, and a wrong one is the server's 401, not an echo.
    let o = capture_cmd(&[
        "--protocol-versions",
        "2025-11-25",
        "--header",
        &format!("Authorization: Bearer {token}"),
    ])
    .output()
    .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert_nowhere(&token, &o, dir.path());
    let wrong = secret("wrong");
    let o = capture_cmd(&[
        "--protocol-versions",
        "2025-11-25",
        "--header",
        &format!("Authorization: Bearer {wrong}"),
    ])
    .output()
    .expect("run");
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("401"), "{}", stderr_of(&o));
    assert_nowhere(&wrong, &o, dir.path());

    // Usage errors name the flag and the reason, never the value.
    let bad = secret("bad");
    for (arg, why) in [
        (format!("Authorization Bearer {bad}"), "NAME:VALUE"),
        (
            format!("Authorization: Bearer {bad}\r\nX-Evil: 1"),
            "control character",
        ),
        (
            "Authorization:${MCPDESC_TEST_UNSET_SECRET_VAR}".to_string(),
            "MCPDESC_TEST_UNSET_SECRET_VAR",
        ),
        ("Mcp-Session-Id:abc".to_string(), "Mcp-Session-Id"),
    ] {
        let o = capture_cmd(&["--header", &arg]).output().expect("run");
        assert_eq!(o.status.code(), Some(2), "{arg:?}: {}", stderr_of(&o));
        assert!(stderr_of(&o).contains(why), "{arg:?}: {}", stderr_of(&o));
        assert_nowhere(&bad, &o, dir.path());
    }
    // `--header` is for HTTP servers only.
    let o = Command::new(&bin)
        .args(["capture", "--header", "X-A:b", "--", "true"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
}

#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn capture_with_an_environment_credential_never_shows_it() {
    let Some(bin) = cli() else { return };
    if !have("python mcp server (PyPI mcp)", &[venv_python()]) {
        return;
    }
    let key = secret("key");
    let dir = tempfile::tempdir().expect("tempdir");
    let expected = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(expected.path(), &key).expect("write the expected key");
    let out_file = dir.path().join("out.yaml");
    let run = |env: Option<String>| {
        let mut c = Command::new(&bin);
        c.args([
            "capture",
            "--protocol-versions",
            "2025-06-18,2026-07-28",
            "-o",
        ])
        .arg(&out_file)
        .arg("--save-transcripts")
        .arg(dir.path().join("sessions"));
        if let Some(e) = env {
            c.arg("--env").arg(e);
        }
        c.arg("--")
            .arg(venv_python())
            .arg(py_server())
            .arg("stdio-env")
            .arg(expected.path())
            .env_remove("MCPDESC_LIVE_API_KEY");
        c.output().expect("run")
    };
    // Without it the server refuses to start: its stderr says why.
    let o = run(None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    assert!(
        stderr_of(&o).contains("MCPDESC_LIVE_API_KEY is not set"),
        "{}",
        stderr_of(&o)
    );
    assert!(!out_file.exists());
    // A wrong one: the same, and the wrong value is not echoed.
    let wrong = secret("wrong-key");
    let o = run(Some(format!("MCPDESC_LIVE_API_KEY={wrong}")));
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("is wrong"), "{}", stderr_of(&o));
    assert_nowhere(&wrong, &o, dir.path());
    // The right one: captured, and the key is nowhere.
    let o = run(Some(format!("MCPDESC_LIVE_API_KEY={key}")));
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let text = std::fs::read_to_string(&out_file).expect("output");
    let (doc, _) =
        mcpdesc_core::parse_document(&text, mcpdesc_core::Format::Yaml, &Default::default())
            .expect("yaml");
    let doc = doc.to_value();
    assert_eq!(doc["protocolVersions"], json!(["2025-06-18", "2026-07-28"]));
    assert_nowhere(&key, &o, dir.path());
    // `--env` is for stdio servers only.
    let o = Command::new(&bin)
        .args(["capture", "--url", "http://127.0.0.1:9/mcp", "--env", "A=b"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
}
