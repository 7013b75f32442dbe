//! `mcpdesc serve` telemetry (issue 29), through the real binary:
//! - metrics: `--metrics` scraped over HTTP and parsed by the Python `prometheus_client`
//!   parsers (the Prometheus text one and the strict OpenMetrics one): after N calls of a
//!   tool its histogram counts exactly N, failures carry `error_type`;
//! - JSON logs: with `--log-format json` every stderr line is one JSON object, request
//!   lines carry their fields, and neither the inbound token nor the upstream credential
//!   appears anywhere;
//! - traces: received by an OTLP/HTTP receiver written on the official OpenTelemetry
//!   protos (`otlp_receiver.py`): span names, kinds and attributes, the caller's trace
//!   continued from the `traceparent` header and from `params._meta.traceparent`, and the
//!   upstream's received `traceparent` naming the CLIENT span.
//!
//! The upstream is the loopback recorder of the REST tests (it records the wire).

#[path = "../serve_rest/recorder.rs"]
#[allow(dead_code)]
mod recorder;

use mcpdesc_tests::{deps_dir, mcpdesc_bin, missing, workspace_root};
use recorder::{Recorder, Reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SECRET: &str = "upstream-secret-4f1e9a";
const TOKEN: &str = "inbound-token-77c2d0";
const STARTUP: Duration = Duration::from_secs(120);

fn venv_python() -> PathBuf {
    deps_dir().join("venv/bin/python")
}

fn here(file: &str) -> PathBuf {
    workspace_root()
        .join("tests/serve_ops_telemetry")
        .join(file)
}

/// One tool, `get_pet`, GET /pets/{id} with an apiKey in the query; 2025-11-25 and
/// 2026-07-28.
fn description(dir: &tempfile::TempDir) -> PathBuf {
    let d = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "telemetry-tests", "version": "1.0.0"},
        "protocolVersions": ["2025-11-25", "2026-07-28"],
        "securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "api_key"}},
        "tools": [{
            "name": "get_pet",
            "description": "One pet by id.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            "security": [{"key": []}],
            "x-mcpdesc-openapi": {"method": "GET", "path": "/pets/{id}",
                "arguments": {"id": {"in": "path", "name": "id"}}}
        }]
    });
    let p = dir.path().join("pets.mcpdesc.json");
    std::fs::write(&p, d.to_string()).unwrap_or_else(|e| panic!("write: {e}"));
    p
}

/// The upstream: `/pets/500` answers 500, every other pet 200.
fn upstream() -> Recorder {
    Recorder::start(|r, _| {
        if r.path().ends_with("/500") {
            Reply::json(500, r#"{"error":"boom"}"#)
        } else {
            Reply::json(200, r#"{"name":"Rex"}"#)
        }
    })
}

/// A running `mcpdesc serve --http 127.0.0.1:0` and what it wrote to standard error.
struct Serve {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    rx: Receiver<String>,
    mcp: String,
    metrics: Option<String>,
}

impl Serve {
    fn start(desc: &PathBuf, base: &str, extra: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut cmd = Command::new(mcpdesc_bin());
        cmd.arg("serve")
            .arg(desc)
            .args(["--http", "127.0.0.1:0", "--base-url", base])
            .args(["--inbound-token-env", "TELEMETRY_TEST_TOKEN"])
            .args(extra)
            .env("MCPDESC_CREDENTIAL_KEY", SECRET)
            .env("TELEMETRY_TEST_TOKEN", TOKEN)
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .env_remove("OTEL_SERVICE_NAME")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn mcpdesc: {e}"));
        let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = channel();
        let keep = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(mut v) = keep.lock() {
                    v.push(line.clone());
                }
                let _ = tx.send(line);
            }
        });
        let want_metrics = extra.contains(&"--metrics");
        let (mut mcp, mut metrics) = (None, None);
        while mcp.is_none() || (want_metrics && metrics.is_none()) {
            let line = rx.recv_timeout(STARTUP).unwrap_or_else(|e| {
                panic!(
                    "serve did not start ({e}): {:?}",
                    lines.lock().map(|v| v.clone())
                )
            });
            let text = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|v| v["message"].as_str().map(String::from))
                .unwrap_or(line);
            if let Some(rest) = text.split(" at http://").nth(1) {
                let addr = rest.split('/').next().unwrap_or("").to_string();
                if rest.contains("/metrics") {
                    metrics = Some(addr);
                } else if rest.contains("/mcp") {
                    mcp = Some(addr);
                }
            }
        }
        Serve {
            child,
            lines,
            rx,
            mcp: mcp.unwrap_or_default(),
            metrics,
        }
    }

    /// POSTs one JSON-RPC message to /mcp with the bearer token and `headers`; the
    /// response's status and body.
    fn post(&self, body: &Value, headers: &[(&str, &str)]) -> (u16, Value) {
        let mut h = vec![
            ("Authorization".to_string(), format!("Bearer {TOKEN}")),
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ];
        h.extend(headers.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        let (status, text) = http(&self.mcp, "POST", "/mcp", &h, &body.to_string());
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// One 2026-07-28 `tools/call` of get_pet (`meta` merged into the envelope).
    fn call(&self, id: u64, pet: &str, meta: Value, headers: &[(&str, &str)]) -> Value {
        let mut m = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        if let (Some(m), Value::Object(extra)) = (m.as_object_mut(), meta) {
            m.extend(extra);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "get_pet", "arguments": {"id": pet}, "_meta": m}});
        let mut h = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "get_pet"),
        ];
        h.extend_from_slice(headers);
        let (status, v) = self.post(&body, &h);
        assert_eq!(status, 200, "{v}");
        v
    }

    /// The metrics text, parsed by `prom_parse.py`.
    fn scrape(&self) -> Vec<Value> {
        let addr = self
            .metrics
            .as_deref()
            .unwrap_or_else(|| panic!("no --metrics"));
        let (status, text) = http(addr, "GET", "/metrics", &[], "");
        assert_eq!(status, 200, "{text}");
        let mut py = Command::new(venv_python())
            .arg(here("prom_parse.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("python: {e}"));
        if let Some(mut i) = py.stdin.take() {
            let _ = i.write_all(text.as_bytes());
        }
        let out = py
            .wait_with_output()
            .unwrap_or_else(|e| panic!("python: {e}"));
        assert!(
            out.status.success(),
            "the metrics do not parse:\n{}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Waits for the next stderr line that `pred` accepts (each line is seen once) and
    /// returns its message (a JSON line's `message`).
    fn wait_for(&self, pred: impl Fn(&str) -> bool) -> String {
        loop {
            let line = self.rx.recv_timeout(STARTUP).unwrap_or_else(|e| {
                panic!(
                    "no such line ({e}): {:?}",
                    self.lines.lock().map(|v| v.clone())
                )
            });
            let text = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|v| v["message"].as_str().map(String::from))
                .unwrap_or(line);
            if pred(&text) {
                return text;
            }
        }
    }

    /// Sends `signal` (e.g. `HUP`) to the server.
    fn signal(&self, signal: &str) {
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status();
    }

    /// The tool names of a 2026-07-28 `tools/list`.
    fn tool_names(&self) -> Vec<String> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}});
        let (status, v) = self.post(
            &body,
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/list"),
            ],
        );
        assert_eq!(status, 200, "{v}");
        v["result"]["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// SIGTERM, then the exit status and every stderr line.
    fn stop(mut self) -> (bool, Vec<String>) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
        // The reader ends with the pipe; drain what it has not handed over yet.
        while self.rx.recv_timeout(Duration::from_secs(10)).is_ok() {}
        let lines = self.lines.lock().map(|v| v.clone()).unwrap_or_default();
        (status.success(), lines)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.1 exchange (`Connection: close`); the status and body.
fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    let _ = s.set_read_timeout(Some(Duration::from_secs(60)));
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes())
        .unwrap_or_else(|e| panic!("write: {e}"));
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, rest.to_string())
}

/// The value of the sample `name` whose labels are exactly `labels`.
fn sample(samples: &[Value], name: &str, labels: Value) -> Option<f64> {
    samples
        .iter()
        .find(|s| s["name"] == name && s["labels"] == labels)
        .and_then(|s| s["value"].as_f64())
}

#[test]
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
fn metrics_count_every_call_by_tool_and_outcome() {
    if !venv_python().is_file() {
        return missing("the Python venv with prometheus-client (.deps/venv)");
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let desc = description(&dir);
    let up = upstream();
    let serve = Serve::start(&desc, &up.base(), &["--metrics", "127.0.0.1:0"], &[]);
    const N: u64 = 7;
    for i in 0..N {
        let v = serve.call(i, &format!("{i}"), json!({}), &[]);
        assert_eq!(v["result"]["isError"], Value::Null, "{v}");
    }
    for i in 0..2 {
        let v = serve.call(100 + i, "500", json!({}), &[]);
        assert_eq!(v["result"]["isError"], true, "{v}");
    }
    // An unknown tool: -32602, and its name is no label.
    let body = json!({"jsonrpc": "2.0", "id": 200, "method": "tools/call",
        "params": {"name": "no_such_tool", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (_, v) = serve.post(
        &body,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "no_such_tool"),
        ],
    );
    assert_eq!(v["error"]["code"], -32602, "{v}");

    let samples = serve.scrape();
    let op = "mcp_server_operation_duration_seconds_count";
    let ok = json!({"mcp_method_name": "tools/call", "gen_ai_tool_name": "get_pet",
        "mcp_protocol_version": "2026-07-28"});
    assert_eq!(sample(&samples, op, ok), Some(N as f64), "{samples:#?}");
    let failed = json!({"mcp_method_name": "tools/call", "gen_ai_tool_name": "get_pet",
        "mcp_protocol_version": "2026-07-28", "error_type": "tool_error"});
    assert_eq!(sample(&samples, op, failed), Some(2.0), "{samples:#?}");
    let unknown = json!({"mcp_method_name": "tools/call", "mcp_protocol_version": "2026-07-28",
        "error_type": "-32602"});
    assert_eq!(sample(&samples, op, unknown), Some(1.0), "{samples:#?}");
    assert!(
        !samples
            .iter()
            .any(|s| s.to_string().contains("no_such_tool")),
        "an unknown tool name became a label"
    );
    // The +Inf bucket holds every observation.
    let inf = json!({"mcp_method_name": "tools/call", "gen_ai_tool_name": "get_pet",
        "mcp_protocol_version": "2026-07-28", "le": "+Inf"});
    assert_eq!(
        sample(
            &samples,
            "mcp_server_operation_duration_seconds_bucket",
            inf
        ),
        Some(N as f64)
    );
    let upc = "http_client_request_duration_seconds_count";
    let up200 = json!({"gen_ai_tool_name": "get_pet", "http_request_method": "GET",
        "http_response_status_code": "200"});
    assert_eq!(sample(&samples, upc, up200), Some(N as f64), "{samples:#?}");
    let up500 = json!({"gen_ai_tool_name": "get_pet", "http_request_method": "GET",
        "http_response_status_code": "500", "error_type": "500"});
    assert_eq!(sample(&samples, upc, up500), Some(2.0), "{samples:#?}");
    assert_eq!(
        sample(&samples, "mcp_server_requests_in_flight", json!({})),
        Some(0.0)
    );
    assert_eq!(
        sample(&samples, "mcpdesc_rate_limited_requests_total", json!({})),
        Some(0.0)
    );
    assert_eq!(up.requests().len() as u64, N + 2);
    let (ok, _) = serve.stop();
    assert!(ok, "serve did not exit 0 on SIGTERM");
}

#[test]
fn json_logs_are_one_object_per_line_without_secrets() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let desc = description(&dir);
    let up = upstream();
    let serve = Serve::start(&desc, &up.base(), &["--log-format", "json"], &[]);
    serve.call(1, "1", json!({}), &[]);
    serve.call(2, "500", json!({}), &[]);
    // A refused token is not echoed either.
    let (status, _) = {
        let h = vec![
            (
                "Authorization".to_string(),
                "Bearer wrong-token-secret".to_string(),
            ),
            ("Content-Type".into(), "application/json".into()),
        ];
        http(&serve.mcp, "POST", "/mcp", &h, "{}")
    };
    assert_eq!(status, 401);
    assert!(
        up.requests().iter().all(|r| r.target.contains(SECRET)),
        "the credential was sent"
    );
    let (_, lines) = serve.stop();
    assert!(!lines.is_empty());
    let mut requests = Vec::new();
    for line in &lines {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not one JSON object ({e}): {line}"));
        assert!(v.is_object(), "{line}");
        for k in ["timestamp", "level", "message"] {
            assert!(v[k].is_string(), "no {k}: {line}");
        }
        let ts = v["timestamp"].as_str().unwrap_or("");
        assert!(
            ts.len() == 24 && ts.ends_with('Z') && ts.as_bytes()[10] == b'T',
            "{ts}"
        );
        for secret in [SECRET, TOKEN, "wrong-token-secret"] {
            assert!(!line.contains(secret), "a secret in the log: {line}");
        }
        if v["method"] == "tools/call" {
            requests.push(v);
        }
    }
    assert_eq!(requests.len(), 2, "{lines:#?}");
    assert_eq!(requests[0]["tool"], "get_pet");
    assert_eq!(requests[0]["status"], "ok");
    assert_eq!(requests[0]["upstream_status"], 200);
    assert!(
        requests[0]["duration_ms"]
            .as_f64()
            .is_some_and(|d| d >= 0.0)
    );
    assert_eq!(requests[1]["status"], "tool_error");
    assert_eq!(requests[1]["level"], "warn");
    assert_eq!(requests[1]["upstream_status"], 500);
    assert!(
        requests[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("api_key=REDACTED")),
        "{}",
        requests[0]
    );
}

/// The OTLP receiver and the spans it printed.
struct Collector {
    child: Child,
    port: u16,
    spans: Receiver<Value>,
}

impl Collector {
    fn start() -> Collector {
        let mut child = Command::new(venv_python())
            .arg(here("otlp_receiver.py"))
            .stdout(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("python: {e}"));
        let out = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let mut lines = BufReader::new(out).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        let port = first
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the receiver said {first:?}"));
        let (tx, spans) = channel();
        std::thread::spawn(move || {
            for l in lines.map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str(&l) {
                    let _ = tx.send(v);
                }
            }
        });
        Collector { child, port, spans }
    }
}

impl Collector {
    /// Every span the receiver printed, once the server has exited: ending the receiver
    /// ends its output, and its reader then closes the channel.
    fn all_spans(&self) -> Vec<Value> {
        let _ = Command::new("kill")
            .args(["-KILL", &self.child.id().to_string()])
            .status();
        let mut spans = Vec::new();
        while let Ok(s) = self.spans.recv_timeout(Duration::from_secs(30)) {
            spans.push(s);
        }
        spans
    }
}

/// The distinct trace ids of `spans`, in order.
fn trace_ids(spans: &[Value]) -> Vec<&str> {
    let ids: std::collections::BTreeSet<&str> = spans
        .iter()
        .filter_map(|s| s["trace_id"].as_str())
        .collect();
    ids.into_iter().collect()
}

impl Drop for Collector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mcpdesc serve` over the one-operation description and a recording upstream,
/// exporting its traces to a fresh receiver, with `env` (fields drop in order: the
/// server first, so it flushes while the receiver still runs).
struct Traced {
    serve: Serve,
    rx: Collector,
    up: Recorder,
    _dir: tempfile::TempDir,
}

fn traced(env: &[(&str, &str)]) -> Traced {
    if !venv_python().is_file() {
        missing("the Python venv with opentelemetry-proto (.deps/venv)");
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let desc = description(&dir);
    let up = upstream();
    let rx = Collector::start();
    let endpoint = format!("http://127.0.0.1:{}", rx.port);
    let serve = Serve::start(
        &desc,
        &up.base(),
        &["--otlp-endpoint", &endpoint, "--log-format", "json"],
        env,
    );
    Traced {
        serve,
        rx,
        up,
        _dir: dir,
    }
}

#[test]
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
fn traces_continue_the_callers_trace_down_to_the_upstream() {
    let Traced {
        _dir,
        up,
        rx,
        serve,
    } = traced(&[("OTEL_SERVICE_NAME", "pets-gateway")]);
    // From the HTTP header.
    let t1 = "4bf92f3577b34da6a3ce929d0e0e4736";
    let tp1 = format!("00-{t1}-00f067aa0ba902b7-01");
    // W3C Trace Context §3.3.1's example list: passed on unchanged to the upstream.
    let state = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
    serve.call(
        1,
        "1",
        json!({}),
        &[("traceparent", &tp1), ("tracestate", state)],
    );
    // From params._meta (a header naming another trace loses to it).
    let t2 = "0af7651916cd43dd8448eb211c80319c";
    let tp2 = format!("00-{t2}-b7ad6b7169203331-01");
    let other = "00-11111111111111111111111111111111-2222222222222222-01";
    serve.call(
        2,
        "2",
        json!({"traceparent": tp2}),
        &[("traceparent", other)],
    );
    #[cfg(target_os = "linux")]
    span_threads_yield_to_the_workers(serve.child.id());
    let (ok, log) = serve.stop();
    assert!(ok, "serve did not exit 0 on SIGTERM");
    // Nothing was dropped on the way to the exporter, so shutdown says nothing of it.
    assert!(!log.iter().any(|l| l.contains("dropped")), "{log:#?}");
    // Each call's request line names its trace (the caller's, continued).
    let logged: Vec<String> = log
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["method"] == "tools/call")
        .map(|v| v["trace_id"].as_str().unwrap_or("none").to_string())
        .collect();
    assert_eq!(logged, [t1, t2], "{log:#?}");

    let mut spans = Vec::new();
    while spans.len() < 4 {
        match rx.spans.recv_timeout(Duration::from_secs(30)) {
            Ok(s) => spans.push(s),
            Err(e) => panic!("{e}: only {} spans arrived: {spans:#?}", spans.len()),
        }
    }
    let recorded = up.requests();
    assert_eq!(recorded.len(), 2);
    for (trace, caller_span, req) in [
        (t1, "00f067aa0ba902b7", &recorded[0]),
        (t2, "b7ad6b7169203331", &recorded[1]),
    ] {
        let server = spans
            .iter()
            .find(|s| s["trace_id"] == trace && s["kind"] == "SPAN_KIND_SERVER")
            .unwrap_or_else(|| panic!("no SERVER span in trace {trace}: {spans:#?}"));
        assert_eq!(server["name"], "tools/call get_pet");
        assert_eq!(server["parent_span_id"], caller_span);
        assert_eq!(server["service"], "pets-gateway");
        assert_eq!(server["content_type"], "application/x-protobuf");
        let a = &server["attributes"];
        assert_eq!(a["mcp.method.name"], "tools/call");
        assert_eq!(a["gen_ai.tool.name"], "get_pet");
        assert_eq!(a["gen_ai.operation.name"], "execute_tool");
        assert_eq!(a["mcp.protocol.version"], "2026-07-28");
        assert!(a["jsonrpc.request.id"].is_string(), "{server}");
        let client = spans
            .iter()
            .find(|s| s["trace_id"] == trace && s["kind"] == "SPAN_KIND_CLIENT")
            .unwrap_or_else(|| panic!("no CLIENT span in trace {trace}: {spans:#?}"));
        assert_eq!(client["parent_span_id"], server["span_id"]);
        // The upstream request happened within the call: the CLIENT span lies within
        // the SERVER span, and neither ends before it starts.
        let time = |s: &Value, k: &str| s[k].as_u64().unwrap_or(0);
        let times = [
            time(server, "start"),
            time(client, "start"),
            time(client, "end"),
            time(server, "end"),
        ];
        assert!(
            times[0] > 0 && times.is_sorted(),
            "SERVER and CLIENT span times out of order: {times:?}"
        );
        let c = &client["attributes"];
        assert_eq!(c["http.request.method"], "GET");
        assert_eq!(c["server.address"], "127.0.0.1");
        assert_eq!(c["http.response.status_code"], 200);
        let url = c["url.full"].as_str().unwrap_or("");
        assert!(
            url.contains("api_key=REDACTED") && !url.contains(SECRET),
            "{url}"
        );
        // The upstream got a traceparent naming the CLIENT span, in the caller's trace.
        let tp = req
            .header("traceparent")
            .unwrap_or_else(|| panic!("no traceparent: {req:?}"));
        let parts: Vec<&str> = tp.split('-').collect();
        assert_eq!(parts.len(), 4, "{tp}");
        assert_eq!(parts[1], trace, "{tp}");
        assert_eq!(parts[2], client["span_id"].as_str().unwrap_or("?"), "{tp}");
    }
    // The caller's tracestate travels with its trace; none is sent when the caller
    // had none (§3.3.1.1: vendors SHOULD avoid sending an empty one).
    assert_eq!(recorded[0].header("tracestate"), Some(state));
    assert_eq!(recorded[1].header("tracestate"), None, "{:?}", recorded[1]);
    assert!(
        !spans
            .iter()
            .any(|s| s["trace_id"] == "11111111111111111111111111111111"),
        "the header's trace won over params._meta"
    );
}

/// The kernel's view of `pid`'s threads (`/proc/PID/task/TID/{comm,stat}`): the threads
/// that build and export spans (the recorder, the SDK's batch processor, and any thread
/// they started, such as the exporter's HTTP client's) run at nice 19, the tokio workers
/// that serve calls at the process's own nice value.
#[cfg(target_os = "linux")]
fn span_threads_yield_to_the_workers(pid: u32) {
    let nice_of = |tid: &std::path::Path| -> i64 {
        let stat = std::fs::read_to_string(tid.join("stat")).unwrap_or_default();
        // proc(5): the fields after the command's closing parenthesis start at the
        // third; the nice value is the 19th.
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        after
            .split_whitespace()
            .nth(19 - 3)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no nice value in {stat:?}"))
    };
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap_or_else(|e| panic!("{e}"));
    let mut threads: Vec<(String, i64)> = tasks
        .filter_map(Result::ok)
        .map(|t| {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            (comm.trim().to_string(), nice_of(&t.path()))
        })
        .collect();
    threads.sort();
    let main = nice_of(std::path::Path::new(&format!("/proc/{pid}/task/{pid}")));
    let nice_values = |prefix: &str| -> Vec<i64> {
        threads
            .iter()
            .filter(|(c, _)| c.starts_with(prefix))
            .map(|(_, n)| *n)
            .collect()
    };
    for (prefix, nice) in [
        ("mcpdesc-spans", 19),
        ("OpenTelemetry", 19),
        ("tokio-rt-worker", main),
    ] {
        let found = nice_values(prefix);
        assert!(!found.is_empty(), "no {prefix} thread: {threads:?}");
        assert!(found.iter().all(|n| *n == nice), "{prefix}: {threads:?}");
    }
}

/// The standard `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` are honoured:
/// `parentbased_traceidratio` at ratio 0 keeps a caller's sampled trace (its spans are
/// exported, the upstream's `traceparent` names the CLIENT span) and drops a caller's
/// unsampled one and every new root trace (nothing is exported for them).
#[test]
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
fn the_standard_sampler_variables_choose_what_is_traced() {
    let Traced {
        _dir,
        up,
        rx,
        serve,
    } = traced(&[
        ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
        ("OTEL_TRACES_SAMPLER_ARG", "0"),
    ]);
    let sampled = "5b8aa5a2d2c872e8321cf37308d69df2";
    serve.call(
        1,
        "1",
        json!({}),
        &[("traceparent", &format!("00-{sampled}-051581bf3cb55c13-01"))],
    );
    let unsampled = "6c9bb6b3e3d983f9432d048419e7ae03";
    serve.call(
        2,
        "2",
        json!({}),
        &[(
            "traceparent",
            &format!("00-{unsampled}-162692c04dc66d24-00"),
        )],
    );
    serve.call(3, "3", json!({}), &[]);
    // Exit 0 comes after the exporter's last batch was answered, and the receiver
    // prints a batch's spans before it answers: every exported span is in its output.
    let (ok, _) = serve.stop();
    assert!(ok, "serve did not exit 0 on SIGTERM");
    let spans = rx.all_spans();
    assert_eq!(trace_ids(&spans), [sampled], "{spans:#?}");
    let kinds: Vec<&str> = spans.iter().filter_map(|s| s["kind"].as_str()).collect();
    assert_eq!(kinds.len(), 2, "{spans:#?}");
    assert!(kinds.contains(&"SPAN_KIND_SERVER") && kinds.contains(&"SPAN_KIND_CLIENT"));
    let recorded = up.requests();
    assert_eq!(recorded.len(), 3);
    let tp = recorded[0].header("traceparent").unwrap_or_default();
    assert!(tp.contains(sampled), "{tp}");
}

/// A caller's unsampled trace (flags `00`) under `parentbased_always_on`: nothing of it
/// is exported, and the upstream request still carries its trace context, unsampled
/// (W3C Trace Context §3.2: a participant that does not record passes the trace on with
/// the sampled flag as it got it). A sampled call beside it shows the exporter is live.
#[test]
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
fn an_unsampled_callers_trace_is_passed_upstream_unsampled() {
    let Traced {
        _dir,
        up,
        rx,
        serve,
    } = traced(&[("OTEL_TRACES_SAMPLER", "parentbased_always_on")]);
    let unsampled = "7d3ac1e2b4f50617283940a5b6c7d8e9";
    serve.call(
        1,
        "1",
        json!({}),
        &[(
            "traceparent",
            &format!("00-{unsampled}-3a4b5c6d7e8f9012-00"),
        )],
    );
    let sampled = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b";
    serve.call(
        2,
        "2",
        json!({}),
        &[("traceparent", &format!("00-{sampled}-1122334455667788-01"))],
    );
    let (ok, _) = serve.stop();
    assert!(ok, "serve did not exit 0 on SIGTERM");
    let spans = rx.all_spans();
    assert_eq!(trace_ids(&spans), [sampled], "{spans:#?}");
    let recorded = up.requests();
    assert_eq!(recorded.len(), 2);
    let tp = recorded[0]
        .header("traceparent")
        .unwrap_or_else(|| panic!("no traceparent upstream: {:?}", recorded[0]));
    let parts: Vec<&str> = tp.split('-').collect();
    assert_eq!(parts.len(), 4, "{tp}");
    assert_eq!(parts[0], "00", "{tp}");
    assert_eq!(parts[1], unsampled, "{tp}");
    assert!(
        parts[2].len() == 16
            && parts[2] != "0000000000000000"
            && parts[2].bytes().all(|b| b.is_ascii_hexdigit()),
        "{tp}"
    );
    assert_eq!(parts[3], "00", "{tp}");
    let tp = recorded[1].header("traceparent").unwrap_or_default();
    assert!(tp.contains(sampled) && tp.ends_with("-01"), "{tp}");
}

/// Runs `mcpdesc serve ARGS` to its exit (it must not start); its exit code and stderr
/// lines, checked by `json_lines.py` (Python's json): every line one JSON object with
/// `timestamp`, `level` and `message`.
fn failed_start(args: &[&str]) -> (Option<i32>, Vec<Value>) {
    let out = Command::new(mcpdesc_bin())
        .arg("serve")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("spawn mcpdesc: {e}"));
    let mut py = Command::new(venv_python())
        .arg(here("json_lines.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python: {e}"));
    if let Some(mut i) = py.stdin.take() {
        let _ = i.write_all(&out.stderr);
    }
    let checked = py
        .wait_with_output()
        .unwrap_or_else(|e| panic!("python: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        checked.status.success(),
        "serve {args:?}: {}\n{stderr}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let lines: Vec<Value> =
        serde_json::from_slice(&checked.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert!(!lines.is_empty(), "serve {args:?} said nothing");
    (out.status.code(), lines)
}

/// With `--log-format json` (on the command line or in the `--config` file), a usage
/// error (clap's own, or one of serve's checks), a start-up failure and a refused
/// description are JSON lines too, and the exit codes are unchanged.
#[test]
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
fn usage_errors_and_start_up_failures_are_json_lines() {
    if !venv_python().is_file() {
        return missing("the Python venv (.deps/venv)");
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let desc = description(&dir);
    let desc = desc.to_str().unwrap_or_default();
    let has = |lines: &[Value], level: &str, words: &str| {
        lines
            .iter()
            .any(|l| l["level"] == level && l["message"].as_str().unwrap_or("").contains(words))
    };
    // clap's usage error (a bad flag value), before any serve code runs.
    let (code, lines) = failed_start(&[
        desc,
        "--http",
        "127.0.0.1:0",
        "--log-format",
        "json",
        "--drain-timeout",
        "banana",
    ]);
    assert_eq!(code, Some(2));
    assert!(has(&lines, "error", "--drain-timeout"), "{lines:#?}");
    // `--log-format=json` before an unknown flag.
    let (code, lines) = failed_start(&["--log-format=json", desc, "--no-such-flag"]);
    assert_eq!(code, Some(2));
    assert!(has(&lines, "error", "--no-such-flag"), "{lines:#?}");
    // One of serve's own checks: a non-loopback listener without a gate.
    let (code, lines) = failed_start(&[desc, "--http", "0.0.0.0:0", "--log-format", "json"]);
    assert_eq!(code, Some(2));
    assert!(has(&lines, "error", "not a loopback address"), "{lines:#?}");
    // A start-up failure: the listener's port is taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let addr = taken
        .local_addr()
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string();
    let (code, lines) = failed_start(&[desc, "--http", &addr, "--log-format", "json"]);
    assert_eq!(code, Some(2));
    assert!(has(&lines, "error", &addr), "{lines:#?}");
    // A refused description (exit 1): its diagnostics.
    let bad = dir.path().join("bad.mcpdesc.json");
    std::fs::write(&bad, r#"{"mcpdesc": "0.8.0", "tools": 7}"#).unwrap_or_else(|e| panic!("{e}"));
    let bad = bad.to_str().unwrap_or_default();
    let (code, lines) = failed_start(&[bad, "--http", "127.0.0.1:0", "--log-format", "json"]);
    assert_eq!(code, Some(1));
    assert!(lines.iter().any(|l| l["level"] == "error"), "{lines:#?}");
    // Through the configuration file: an unknown key, and a bad listener address.
    let config = dir.path().join("gateway.yaml");
    std::fs::write(
        &config,
        format!("log-format: json\nno-such-key: 1\napis:\n  - description: {desc}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let cfg = config.to_str().unwrap_or_default();
    let (code, lines) = failed_start(&["--config", cfg]);
    assert_eq!(code, Some(2));
    assert!(has(&lines, "error", "no-such-key"), "{lines:#?}");
    std::fs::write(
        &config,
        format!("log-format: json\nhttp: 0.0.0.0:0\napis:\n  - description: {desc}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, lines) = failed_start(&["--config", cfg]);
    assert_eq!(code, Some(2));
    assert!(has(&lines, "error", "not a loopback address"), "{lines:#?}");
    // clap's usage error on the command line beside a file that sets the log format.
    let (code, lines) = failed_start(&["--config", cfg, "--no-such-flag"]);
    assert_eq!(code, Some(2));
    assert!(has(&lines, "error", "--no-such-flag"), "{lines:#?}");
}

/// Without `--config`, SIGHUP re-reads and validates the descriptions named on the
/// command line: a tool added to the file is served after it, a broken file keeps the
/// old list (and the process), and a later good file is taken again.
#[test]
fn sighup_reloads_the_command_lines_description() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let desc = description(&dir);
    let up = upstream();
    let serve = Serve::start(&desc, &up.base(), &["--log-format", "json"], &[]);
    assert_eq!(serve.tool_names(), ["get_pet"]);
    // A second tool.
    let mut d: Value = serde_json::from_slice(&std::fs::read(&desc).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut owner = d["tools"][0].clone();
    owner["name"] = json!("get_owner");
    owner["x-mcpdesc-openapi"]["path"] = json!("/owners/{id}");
    if let Some(t) = d["tools"].as_array_mut() {
        t.push(owner);
    }
    std::fs::write(&desc, d.to_string()).unwrap_or_else(|e| panic!("{e}"));
    serve.signal("HUP");
    let line = serve.wait_for(|l| l.starts_with("reloaded:"));
    assert!(line.contains("2 tools"), "{line}");
    assert_eq!(serve.tool_names(), ["get_pet", "get_owner"]);
    // A broken file: the old list keeps serving.
    std::fs::write(&desc, "{ \"mcpdesc\": \"0.8.0\", ").unwrap_or_else(|e| panic!("{e}"));
    serve.signal("HUP");
    serve.wait_for(|l| l.starts_with("reload failed"));
    assert_eq!(serve.tool_names(), ["get_pet", "get_owner"]);
    // A description that parses but does not validate: likewise.
    std::fs::write(&desc, r#"{"mcpdesc": "0.8.0", "tools": 7}"#).unwrap_or_else(|e| panic!("{e}"));
    serve.signal("HUP");
    serve.wait_for(|l| l.starts_with("reload failed"));
    assert_eq!(serve.tool_names(), ["get_pet", "get_owner"]);
    // The first file again.
    let desc2 = description(&dir);
    assert_eq!(desc2, desc);
    serve.signal("HUP");
    let line = serve.wait_for(|l| l.starts_with("reloaded:"));
    assert!(line.contains("1 tools"), "{line}");
    assert_eq!(serve.tool_names(), ["get_pet"]);
    let (ok, lines) = serve.stop();
    assert!(ok, "serve did not exit 0 on SIGTERM: {lines:#?}");
}

/// `--forward-header` (and the `forward-header` key of `--config`) refuses, at start
/// with exit 2, every field RFC 9110 says a proxy must not forward — the hop-by-hop
/// fields of §7.6.1 (and `Proxy-Authorization`, §11.7.2) — and the fields the client
/// computes for each request (`Host`, §7.2; `Content-Length`, §8.6); the message names
/// the header and why.
#[test]
fn forward_header_refuses_hop_by_hop_and_client_set_fields() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let desc = description(&dir);
    let desc = desc.to_str().unwrap_or_default();
    // Its exit code and standard error; a server that starts (prints where it serves)
    // instead is stopped and fails the test.
    let refused = |args: &[&str]| {
        let mut child = Command::new(mcpdesc_bin())
            .arg("serve")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn mcpdesc: {e}"));
        let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
        let mut err = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains(" at http://") {
                let _ = child.kill();
                let _ = child.wait();
                panic!("serve {args:?} started: {err}{line}");
            }
            err.push_str(&line);
            err.push('\n');
        }
        let status = child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
        (status.code(), err)
    };
    let hop_by_hop = [
        "Connection",
        "keep-alive",
        "Proxy-Connection",
        "TE",
        "Trailer",
        "Transfer-Encoding",
        "Upgrade",
        "Proxy-Authorization",
    ];
    for name in hop_by_hop {
        let (code, err) = refused(&[desc, "--http", "127.0.0.1:0", "--forward-header", name]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("`{name}`")) && err.contains("hop-by-hop"),
            "{name}: {err}"
        );
    }
    for name in ["Host", "content-length"] {
        let (code, err) = refused(&[desc, "--http", "127.0.0.1:0", "--forward-header", name]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("`{name}`")) && err.contains("never forwarded"),
            "{name}: {err}"
        );
    }
    let config = dir.path().join("gateway.yaml");
    std::fs::write(
        &config,
        format!(
            "http: 127.0.0.1:0\nforward-header: [X-Request-Id, Upgrade]\napis:\n  - description: {desc}\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, err) = refused(&["--config", config.to_str().unwrap_or_default()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("`Upgrade`") && err.contains("hop-by-hop"),
        "{err}"
    );
}
