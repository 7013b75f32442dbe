//! Drivers for `mcpdesc serve` in tests: the server in-process over a pipe (stdio) or a
//! loopback socket (HTTP), the real binary over stdio, a raw HTTP/1.1 client (so tests
//! control every header and can hang up mid-call), a tiny upstream that records what
//! reaches it, and the Python `mcp_types` oracle for result shapes.

use mcpdesc_core::ProtocolRevision;
use mcpdesc_live::client::{StdioTransport, Transport as _};
use mcpdesc_rest::RestOptions;
use mcpdesc_serve::HttpOptions;
use mcpdesc_serve::Log;
use mcpdesc_serve::MockOptions;
use mcpdesc_serve::{BackendOptions, Options, ServeOptions, Server, Transport, prepare};
pub use mcpdesc_tests::load_description as load;
use mcpdesc_tests::{deps_dir, fixture, missing};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

/// How long any single answer may take before a test fails.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A description file (JSON or YAML) as its data model.
/// `tests/fixtures/serve/mcp/<name>`.
pub fn mcp_fixture(name: &str) -> PathBuf {
    fixture(&format!("serve/mcp/{name}"))
}

/// The hand-written every-revision description.
pub fn every_revision() -> Value {
    load(&mcp_fixture("every-revision.mcpdesc.yaml"))
}

/// A multi-threaded runtime for one test.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Builds a server (validated like the CLI does); logs go to the returned buffer.
pub fn server_with(
    doc: &Value,
    backend: BackendOptions,
    revisions: Option<mcpdesc_core::RevisionSet>,
    page_size: usize,
) -> (Arc<Server>, Arc<Mutex<Vec<String>>>) {
    let (log, buf) = Log::buffer();
    let p = prepare(
        Arc::new(doc.clone()),
        Options {
            serve: ServeOptions {
                revisions,
                page_size,
                log,
                ..ServeOptions::default()
            },
            backend,
            transport: Transport::Stdio,
        },
    )
    .unwrap_or_else(|e| panic!("prepare: {e:?}"));
    (Arc::clone(p.server()), buf)
}

/// [`server_with`] with every serve option given.
pub fn server_opts(
    doc: &Value,
    backend: BackendOptions,
    serve: ServeOptions,
) -> (Arc<Server>, Arc<Mutex<Vec<String>>>) {
    let (log, buf) = Log::buffer();
    let p = prepare(
        Arc::new(doc.clone()),
        Options {
            serve: ServeOptions { log, ..serve },
            backend,
            transport: Transport::Stdio,
        },
    )
    .unwrap_or_else(|e| panic!("prepare: {e:?}"));
    (Arc::clone(p.server()), buf)
}

pub fn mock() -> BackendOptions {
    BackendOptions::Mock(MockOptions::default())
}

/// The REST gateway at `base_url`, with a made-up credential for every security
/// scheme (`user:pass` for http basic, a bearer token for OAuth, a plain value else).
pub fn rest(base_url: Option<String>, doc: &Value) -> BackendOptions {
    let mut credentials = std::collections::BTreeMap::new();
    for (name, s) in doc
        .get("securitySchemes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let v = match (s["type"].as_str(), s["scheme"].as_str()) {
            (Some("http"), Some(sc)) if sc.eq_ignore_ascii_case("basic") => "user:pass",
            (Some("oauth2" | "openIdConnect"), _) => "token:test-token",
            _ => "test-credential",
        };
        credentials.insert(name.clone(), mcpdesc_rest::Secret::new(v));
    }
    BackendOptions::Rest(RestOptions {
        base_url,
        credentials,
        timeout: Duration::from_secs(60),
        ..RestOptions::default()
    })
}

/// One stdio connection to an in-process server.
pub struct Conn {
    rt: Arc<tokio::runtime::Runtime>,
    w: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next: i64,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Conn {
    pub fn open(rt: &Arc<tokio::runtime::Runtime>, server: &Arc<Server>) -> Conn {
        let (client, srv) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(srv);
        let task = rt.spawn(mcpdesc_serve::serve_stdio(Arc::clone(server), sr, sw));
        let (cr, cw) = tokio::io::split(client);
        Conn {
            rt: Arc::clone(rt),
            w: cw,
            lines: tokio::io::BufReader::new(cr).lines(),
            next: 1,
            task,
        }
    }

    /// Closes the client's side of the pipe (the server reads end of input) and waits
    /// for the server to end; its result.
    pub fn close_input(self) -> Option<std::io::Result<()>> {
        let Conn {
            rt, mut w, task, ..
        } = self;
        rt.block_on(async move {
            let _ = w.shutdown().await;
            match tokio::time::timeout(TIMEOUT, task).await {
                Ok(Ok(r)) => Some(r),
                _ => None,
            }
        })
    }

    /// Writes raw bytes (a line is not added).
    pub fn write_raw(&mut self, bytes: &[u8]) {
        let w = &mut self.w;
        self.rt.block_on(async {
            w.write_all(bytes).await.expect("write");
            w.flush().await.expect("flush");
        });
    }

    pub fn send(&mut self, msg: &Value) {
        let mut line = serde_json::to_vec(msg).expect("json");
        line.push(b'\n');
        self.write_raw(&line);
    }

    /// The next message, or `None` when nothing arrives within `wait`.
    pub fn recv_within(&mut self, wait: Duration) -> Option<Value> {
        let lines = &mut self.lines;
        self.rt.block_on(async {
            match tokio::time::timeout(wait, lines.next_line()).await {
                Ok(Ok(Some(l))) => {
                    Some(serde_json::from_str(&l).expect("the server writes JSON lines"))
                }
                _ => None,
            }
        })
    }

    pub fn recv(&mut self) -> Value {
        self.recv_within(TIMEOUT).expect("an answer in time")
    }

    /// Sends a request with a fresh id and returns its response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let r = self.recv();
        assert_eq!(r["id"], json!(id), "answers come in order here: {r}");
        r
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Opens the session at `rev` the way that revision's lifecycle says; returns the
    /// `_meta` envelope to put on every request (2026-07-28) or `None`.
    pub fn open_at(&mut self, rev: ProtocolRevision) -> Option<Value> {
        if rev.has(mcpdesc_core::Feature::StatelessLifecycle) {
            let env = envelope(rev);
            let d = self.request("server/discover", json!({"_meta": env}));
            assert!(d.get("result").is_some(), "discover: {d}");
            Some(env)
        } else {
            let r = self.request(
                "initialize",
                json!({"protocolVersion": rev.as_str(), "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            );
            assert_eq!(r["result"]["protocolVersion"], rev.as_str(), "{r}");
            self.notify("notifications/initialized", json!({}));
            None
        }
    }

    /// A request with the session's envelope (if any) merged into its params.
    pub fn call(&mut self, env: &Option<Value>, method: &str, mut params: Value) -> Value {
        if let Some(e) = env {
            params["_meta"] = e.clone();
        }
        self.request(method, params)
    }

    /// Every page of a list method, concatenated.
    pub fn list_all(
        &mut self,
        env: &Option<Value>,
        method: &str,
        key: &str,
    ) -> (Vec<Value>, Vec<Value>) {
        let mut items = Vec::new();
        let mut pages = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let r = self.call(env, method, params);
            let result = r
                .get("result")
                .cloned()
                .unwrap_or_else(|| panic!("{method}: {r}"));
            items.extend(result[key].as_array().cloned().unwrap_or_default());
            cursor = result.get("nextCursor").cloned();
            pages.push(result);
            if cursor.is_none() {
                return (items, pages);
            }
            assert!(pages.len() < 10_000, "pagination does not end");
        }
    }
}

/// The 2026-07-28 per-request envelope.
pub fn envelope(rev: ProtocolRevision) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": rev.as_str(),
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

/// An in-process HTTP server on a free loopback port; stops when dropped.
pub struct HttpServer {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    _rt: Arc<tokio::runtime::Runtime>,
}

impl HttpServer {
    pub fn start(
        rt: &Arc<tokio::runtime::Runtime>,
        server: &Arc<Server>,
        opts: HttpOptions,
    ) -> HttpServer {
        Self::start_at(rt, server, opts, "127.0.0.1:0")
    }

    pub fn start_at(
        rt: &Arc<tokio::runtime::Runtime>,
        server: &Arc<Server>,
        opts: HttpOptions,
        bind: &str,
    ) -> HttpServer {
        let listener = rt
            .block_on(tokio::net::TcpListener::bind(bind))
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let s = Arc::clone(server);
        rt.spawn(mcpdesc_serve::serve_http(s, listener, opts, async move {
            let _ = rx.await;
        }));
        HttpServer {
            addr,
            stop: Some(tx),
            _rt: Arc::clone(rt),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// A raw HTTP/1.1 response.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// One HTTP exchange over a fresh connection (`Connection: close`), every header under
/// the test's control.
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(TIMEOUT)).expect("timeout");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).expect("write");
    s.write_all(body).expect("write body");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    parse_response(&raw)
}

/// A JSON-RPC POST with the headers a conforming client sends.
pub fn post(addr: SocketAddr, extra: &[(&str, &str)], msg: &Value) -> RawResponse {
    post_path(addr, "/mcp", extra, msg)
}

/// [`post`] to another path of the server.
pub fn post_path(addr: SocketAddr, path: &str, extra: &[(&str, &str)], msg: &Value) -> RawResponse {
    let mut h = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    h.extend_from_slice(extra);
    http(
        addr,
        "POST",
        path,
        &h,
        &serde_json::to_vec(msg).expect("json"),
    )
}

fn parse_response(raw: &[u8]) -> RawResponse {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end: {}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line `{status_line}`"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    }) {
        body = dechunk(&body);
    }
    RawResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(i) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..i]).trim(), 16).unwrap_or(0);
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + n]);
        b = &b[i + 2 + n + 2..];
    }
}

/// A loopback upstream for REST-backed tests: answers every request after `delay` with
/// `status` and a JSON `body`, and counts connections and requests. A connection the
/// gateway drops before the answer is counted in `dropped`.
pub struct Upstream {
    pub addr: SocketAddr,
    pub requests: Arc<Mutex<Vec<Vec<String>>>>,
    /// Every request's body, in the order of `requests`.
    pub bodies: Arc<Mutex<Vec<Vec<u8>>>>,
    pub dropped: Arc<std::sync::atomic::AtomicUsize>,
}

impl Upstream {
    pub fn start(status: u16, body: &'static str, delay: Duration) -> Upstream {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = l.local_addr().expect("addr");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let dropped = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (rq, bq, dr) = (
            Arc::clone(&requests),
            Arc::clone(&bodies),
            Arc::clone(&dropped),
        );
        std::thread::spawn(move || {
            for stream in l.incoming().flatten() {
                let (rq, bq, dr) = (Arc::clone(&rq), Arc::clone(&bq), Arc::clone(&dr));
                std::thread::spawn(move || {
                    serve_one(stream, status, body, delay, (&rq, &bq), &dr);
                });
            }
        });
        Upstream {
            addr,
            requests,
            bodies,
            dropped,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The request line of every request received.
    pub fn request_lines(&self) -> Vec<String> {
        self.request_heads()
            .into_iter()
            .map(|h| h.first().cloned().unwrap_or_default())
            .collect()
    }

    /// Every request's head (request line, then header lines).
    pub fn request_heads(&self) -> Vec<Vec<String>> {
        self.requests.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

/// Where [`Upstream`] records each request: its head lines, and its body.
type Recorded<'a> = (&'a Mutex<Vec<Vec<String>>>, &'a Mutex<Vec<Vec<u8>>>);

fn serve_one(
    stream: TcpStream,
    status: u16,
    body: &str,
    delay: Duration,
    (requests, bodies): Recorded<'_>,
    dropped: &std::sync::atomic::AtomicUsize,
) {
    let mut r = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    loop {
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            head.push(line.trim_end().to_string());
        }
        let len: usize = head
            .iter()
            .find_map(|h| {
                let (n, v) = h.split_once(':')?;
                n.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse().ok())?
            })
            .unwrap_or(0);
        let mut b = vec![0; len];
        if r.read_exact(&mut b).is_err() {
            return;
        }
        if let (Ok(mut v), Ok(mut bs)) = (requests.lock(), bodies.lock()) {
            v.push(head.clone());
            bs.push(b.clone());
        }
        // Wait, but notice a hang-up meanwhile.
        let until = std::time::Instant::now() + delay;
        let _ = stream.set_read_timeout(Some(Duration::from_millis(20)));
        let mut probe = [0u8; 1];
        while std::time::Instant::now() < until {
            match (&stream).read(&mut probe) {
                Ok(0) => {
                    dropped.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    return;
                }
                Ok(_) => {}
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(_) => {
                    dropped.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    return;
                }
            }
        }
        // The timeout is the socket's (the reader's clone shares it): an idle keep-alive
        // connection must not be closed after 20 ms, or a pooled client races it.
        let _ = stream.set_read_timeout(None);
        let reason = if status < 300 { "OK" } else { "Error" };
        let resp = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        if (&stream).write_all(resp.as_bytes()).is_err() {
            return;
        }
    }
}

/// The Python SDK's per-revision result models (`mcp_types.methods.validate_server_result`):
/// an oracle for every result shape the server sends. Records `(method, revision,
/// result)` and checks them all at once.
#[derive(Default)]
pub struct ShapeOracle {
    records: Vec<Value>,
}

impl ShapeOracle {
    pub fn record(&mut self, method: &str, rev: ProtocolRevision, response: &Value) {
        if let Some(result) = response.get("result") {
            self.records
                .push(json!({"method": method, "version": rev.as_str(), "result": result}));
        }
    }

    /// Runs the Python check; fails when the venv is missing (the tests calling it are
    /// ignored on a machine without it).
    pub fn check(&self) {
        let py = venv_python();
        if !py.is_file() {
            return missing("the Python venv with mcp (.deps/venv)");
        }
        let mut child = std::process::Command::new(&py)
            .arg(mcp_fixture("validate_results.py"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("python");
        {
            let mut stdin = child.stdin.take().expect("stdin");
            for r in &self.records {
                writeln!(stdin, "{r}").expect("write");
            }
        }
        let out = child.wait_with_output().expect("python runs");
        assert!(
            out.status.success(),
            "results the MCP schemas reject:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let checked: usize = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(0);
        assert_eq!(checked, self.records.len(), "every record is checked");
    }
}

pub fn venv_python() -> PathBuf {
    deps_dir().join("venv/bin/python")
}

pub fn node_modules() -> PathBuf {
    deps_dir().join("node/node_modules")
}

/// `mcpdesc serve … --http 127.0.0.1:0` as a child process; the URL comes from its
/// start-up line. Killed (and reaped) when dropped; its stderr is kept.
pub struct ServeHttp {
    child: std::process::Child,
    pub url: String,
    pub stderr: Arc<Mutex<Vec<String>>>,
}

impl ServeHttp {
    pub fn spawn(args: &[String]) -> ServeHttp {
        Self::spawn_with_env(args, &[])
    }

    pub fn spawn_with_env(args: &[String], env: &[(String, String)]) -> ServeHttp {
        let mut child = std::process::Command::new(mcpdesc_tests::mcpdesc_bin())
            .arg("serve")
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn mcpdesc serve --http");
        let err = child.stderr.take().expect("stderr");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let keep = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(line.clone());
                if let Ok(mut v) = keep.lock() {
                    v.push(line);
                }
            }
        });
        let until = std::time::Instant::now() + TIMEOUT;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line
                        .split_whitespace()
                        .find(|u| u.starts_with("http://") && u.ends_with("/mcp"))
                    {
                        return ServeHttp {
                            child,
                            url: url.to_string(),
                            stderr,
                        };
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let log = stderr.lock().map(|v| v.join("\n")).unwrap_or_default();
                    panic!("mcpdesc serve --http did not start:\n{log}");
                }
            }
        }
    }

    pub fn log(&self) -> String {
        self.stderr.lock().map(|v| v.join("\n")).unwrap_or_default()
    }
}

impl Drop for ServeHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The fields the MCP SDKs' typed Tool keeps: Tool Annotations reduced to the five
/// defined hints (§9.6; SDK clients parse annotations into a closed type).
pub fn as_sdk_parses(tool: &Value) -> Value {
    let mut t = tool.clone();
    if let Some(a) = t.get_mut("annotations").and_then(Value::as_object_mut) {
        a.retain(|k, _| {
            [
                "title",
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ]
            .contains(&k.as_str())
        });
    }
    t
}

/// `mcpdesc serve ARGS…` (the real binary) over stdio.
pub fn spawn_cli(args: &[&str]) -> StdioTransport {
    let mut a: Vec<String> = vec!["serve".into()];
    a.extend(args.iter().map(|s| s.to_string()));
    StdioTransport::spawn(
        &mcpdesc_tests::mcpdesc_bin().display().to_string(),
        &a,
        &[],
        64 * 1024,
        Duration::from_secs(2),
    )
    .expect("spawn mcpdesc serve")
}

/// Sends one request and waits for its answer (skipping notifications).
pub fn rpc(t: &mut StdioTransport, id: i64, method: &str, params: Value) -> Value {
    t.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .expect("send");
    loop {
        let m = t
            .recv(std::time::Instant::now() + TIMEOUT, method, TIMEOUT)
            .expect("answer");
        if m["id"] == json!(id) {
            return m;
        }
    }
}
