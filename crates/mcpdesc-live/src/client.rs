//! A small MCP client: JSON-RPC over a stdio child process or streamable HTTP, just
//! enough to open a session at a chosen revision and page through `tools/list`.
//!
//! Synchronous on purpose: the exchange is strictly request → response, timeouts are
//! channel deadlines, and the child process is owned by a guard whose `Drop` closes
//! stdin, waits a short grace period, then kills and reaps it — on success, error,
//! timeout and panic alike.

use crate::dump::{META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION};
use mcpdesc_core::Secret;
use mcpdesc_core::http::mcp as mcp_header;
use mcpdesc_core::{Feature, ProtocolRevision};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Largest single JSON-RPC message accepted from a server (a stdio line's newline is
/// not part of its message).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The length of the message a stdio line carries: the line without its newline.
fn message_len(line: &[u8]) -> usize {
    line.len() - usize::from(line.last() == Some(&b'\n'))
}
/// Largest number of `tools/list` pages followed in one session.
pub const MAX_PAGES: usize = 10_000;

/// Why a session failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("the server did not answer `{method}` within {timeout:?}{}", stderr_suffix(.stderr))]
    Timeout {
        method: String,
        timeout: Duration,
        stderr: String,
    },
    #[error("the server exited ({status}) before answering `{method}`{}", stderr_suffix(.stderr))]
    Exited {
        method: String,
        status: String,
        stderr: String,
    },
    #[error("the server answered `{method}` with JSON-RPC error {code}: {message}{}", stderr_suffix(.stderr))]
    Rpc {
        method: String,
        code: i64,
        message: String,
        /// The error's `data` member, when it has one.
        data: Option<Box<Value>>,
        stderr: String,
    },
    #[error("protocol error: {message}{}", stderr_suffix(.stderr))]
    Protocol { message: String, stderr: String },
    #[error("HTTP error: {0}")]
    Http(String),
    #[error("I/O error talking to the server: {0}")]
    Io(#[from] std::io::Error),
}

fn stderr_suffix(s: &str) -> String {
    if s.trim().is_empty() {
        String::new()
    } else {
        format!("\n--- server stderr (last lines) ---\n{}", s.trim_end())
    }
}

/// A bidirectional message channel to one server session.
pub trait Transport {
    /// Sends one message.
    fn send(&mut self, msg: &Value) -> Result<(), ClientError>;
    /// Receives the next message, waiting until `deadline`. `method` names the pending
    /// request for error messages.
    fn recv(
        &mut self,
        deadline: Instant,
        method: &str,
        timeout: Duration,
    ) -> Result<Value, ClientError>;
    /// Sets the negotiated revision (HTTP sends it as `MCP-Protocol-Version`).
    fn set_protocol_version(&mut self, _v: &str) {}
    /// The server's stderr so far (bounded), for error messages.
    fn stderr(&self) -> String {
        String::new()
    }
    /// Ends the session (closes stdin / sends DELETE).
    fn close(&mut self) {}
}

// ---------------------------------------------------------------- stdio

/// Keeps the last `limit` bytes of a stream.
#[derive(Debug, Default)]
struct Tail {
    buf: VecDeque<u8>,
    limit: usize,
}

/// A server started as a child process, speaking newline-delimited JSON on stdio.
#[derive(Debug)]
pub struct StdioTransport {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Receiver<Result<Vec<u8>, String>>,
    stderr: Arc<Mutex<Tail>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
    program: String,
    grace: Duration,
}

impl StdioTransport {
    /// Starts `program args…` with `env` added to its environment. `stderr_limit`
    /// bounds the kept stderr tail.
    pub fn spawn(
        program: &str,
        args: &[String],
        env: &[(String, Secret)],
        stderr_limit: usize,
        grace: Duration,
    ) -> Result<Self, ClientError> {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v.expose())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ClientError::Spawn {
                program: program.to_string(),
                source,
            })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr_pipe = child.stderr.take();
        let (tx, rx) = channel();
        if let Some(out) = stdout {
            std::thread::spawn(move || {
                let mut r = BufReader::new(out);
                loop {
                    let mut line = Vec::new();
                    match (&mut r)
                        .take(MAX_MESSAGE_BYTES as u64 + 1)
                        .read_until(b'\n', &mut line)
                    {
                        Ok(0) => {
                            let _ = tx.send(Err("end of output".to_string()));
                            return;
                        }
                        Ok(_) if message_len(&line) > MAX_MESSAGE_BYTES => {
                            let _ = tx.send(Err(format!(
                                "a message longer than {MAX_MESSAGE_BYTES} bytes"
                            )));
                            return;
                        }
                        Ok(_) => {
                            if tx.send(Ok(line)).is_err() {
                                return;
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e.to_string()));
                            return;
                        }
                    }
                }
            });
        }
        let tail = Arc::new(Mutex::new(Tail {
            buf: VecDeque::new(),
            limit: stderr_limit,
        }));
        let mut stderr_reader = None;
        if let Some(mut err) = stderr_pipe {
            let tail = Arc::clone(&tail);
            stderr_reader = Some(std::thread::spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(n) = err.read(&mut chunk) {
                    if n == 0 {
                        return;
                    }
                    if let Ok(mut t) = tail.lock() {
                        t.buf.extend(&chunk[..n]);
                        let excess = t.buf.len().saturating_sub(t.limit);
                        t.buf.drain(..excess);
                    }
                }
            }));
        }
        Ok(StdioTransport {
            child: Some(child),
            stdin,
            lines: rx,
            stderr: tail,
            stderr_reader,
            program: program.to_string(),
            grace,
        })
    }

    fn exit_status(&mut self) -> String {
        let Some(child) = self.child.as_mut() else {
            return "already reaped".into();
        };
        // Give the process a moment to finish exiting after closing stdout.
        let until = Instant::now() + Duration::from_millis(500);
        loop {
            match child.try_wait() {
                Ok(Some(st)) => {
                    // The process is gone: let the stderr reader drain what it wrote
                    // (bounded wait), so the error message carries it.
                    if let Some(h) = self.stderr_reader.take() {
                        let until = Instant::now() + Duration::from_millis(500);
                        while !h.is_finished() && Instant::now() < until {
                            std::thread::sleep(Duration::from_millis(10));
                        }
                    }
                    return describe(st);
                }
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
                Ok(None) => return "closed its output but is still running".into(),
                Err(e) => return e.to_string(),
            }
        }
    }

    /// Closes stdin, waits up to the grace period, then kills; always reaps.
    fn shutdown(&mut self) {
        self.stdin.take(); // EOF on stdin: well-behaved servers exit
        if let Some(mut child) = self.child.take() {
            let until = Instant::now() + self.grace;
            loop {
                match child.try_wait() {
                    Ok(Some(_)) => return,
                    Ok(None) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    _ => break,
                }
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The child's process id (tests check it was reaped).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

fn describe(st: ExitStatus) -> String {
    match st.code() {
        Some(c) => format!("exit status {c}"),
        None => format!("{st}"),
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, msg: &Value) -> Result<(), ClientError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(ClientError::Protocol {
                message: "stdin already closed".into(),
                stderr: self.stderr(),
            });
        };
        let mut line = serde_json::to_vec(msg).map_err(|e| ClientError::Protocol {
            message: e.to_string(),
            stderr: String::new(),
        })?;
        line.push(b'\n');
        let res = stdin.write_all(&line).and_then(|()| stdin.flush());
        if let Err(e) = res {
            let method = msg
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("message")
                .to_string();
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                let status = self.exit_status();
                return Err(ClientError::Exited {
                    method,
                    status,
                    stderr: self.stderr(),
                });
            }
            return Err(ClientError::Io(e));
        }
        Ok(())
    }

    fn recv(
        &mut self,
        deadline: Instant,
        method: &str,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Ok(line)) => {
                    let text = String::from_utf8_lossy(&line);
                    if text.trim().is_empty() {
                        continue;
                    }
                    match serde_json::from_str::<Value>(text.trim()) {
                        Ok(v) => return Ok(v),
                        // Servers that log to stdout: not a message; skip it.
                        Err(_) => continue,
                    }
                }
                Ok(Err(why)) if why == "end of output" => {
                    let status = self.exit_status();
                    return Err(ClientError::Exited {
                        method: method.into(),
                        status,
                        stderr: self.stderr(),
                    });
                }
                Ok(Err(why)) => {
                    return Err(ClientError::Protocol {
                        message: why,
                        stderr: self.stderr(),
                    });
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ClientError::Timeout {
                        method: method.into(),
                        timeout,
                        stderr: self.stderr(),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status();
                    return Err(ClientError::Exited {
                        method: method.into(),
                        status,
                        stderr: self.stderr(),
                    });
                }
            }
        }
    }

    fn stderr(&self) -> String {
        self.stderr
            .lock()
            .map(|t| {
                String::from_utf8_lossy(&t.buf.iter().copied().collect::<Vec<u8>>()).into_owned()
            })
            .unwrap_or_default()
    }

    fn close(&mut self) {
        self.shutdown();
    }
}

impl StdioTransport {
    /// The program this transport started.
    pub fn program(&self) -> &str {
        &self.program
    }
}

// ---------------------------------------------------------------- streamable HTTP

/// A streamable HTTP endpoint (one POST per message; JSON or SSE responses).
#[derive(Debug)]
pub struct HttpTransport {
    agent: ureq::Agent,
    url: String,
    /// Sent with every request (credentials).
    headers: Vec<(String, Secret)>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    /// Messages received but not yet handed out.
    inbox: VecDeque<Value>,
}

impl HttpTransport {
    /// A transport for `url` that sends `headers` with every request; `timeout` bounds
    /// each HTTP exchange.
    pub fn new(url: &str, headers: &[(String, Secret)], timeout: Duration) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        HttpTransport {
            agent,
            url: url.to_string(),
            headers: headers.to_vec(),
            session_id: None,
            protocol_version: None,
            inbox: VecDeque::new(),
        }
    }
}

/// Parses a `text/event-stream` body into JSON-RPC messages, stopping after the
/// response to `want_id` (the stream may stay open after it).
fn read_sse(
    body: impl Read,
    want_id: Option<&Value>,
    out: &mut VecDeque<Value>,
) -> Result<(), ClientError> {
    let mut r = BufReader::new(body.take(MAX_MESSAGE_BYTES as u64 * 4));
    let mut data = String::new();
    loop {
        let mut line = String::new();
        let n = r
            .read_line(&mut line)
            .map_err(|e| ClientError::Http(e.to_string()))?;
        let eof = n == 0;
        let l = line.trim_end_matches(['\r', '\n']);
        if eof || l.is_empty() {
            if !data.is_empty() {
                if let Ok(v) = serde_json::from_str::<Value>(&data) {
                    let done = want_id
                        .is_some_and(|id| v.get("id") == Some(id) && v.get("method").is_none());
                    out.push_back(v);
                    if done {
                        return Ok(());
                    }
                }
                data.clear();
            }
            if eof {
                return Ok(());
            }
            continue;
        }
        if let Some(d) = l.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(d.strip_prefix(' ').unwrap_or(d));
        }
        // `event:`, `id:`, `retry:` and comments carry nothing we need.
    }
}

impl Transport for HttpTransport {
    fn send(&mut self, msg: &Value) -> Result<(), ClientError> {
        let body = serde_json::to_vec(msg).map_err(|e| ClientError::Http(e.to_string()))?;
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let mut req = ureq::http::Request::post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (k, v) in &self.headers {
            req = req.header(k, v.expose());
        }
        if let Some(s) = &self.session_id {
            req = req.header(mcp_header::SESSION_ID, s);
        }
        let pv = msg
            .pointer(&format!(
                "/params/_meta/{}",
                mcpdesc_core::pointer::escape(META_PROTOCOL_VERSION)
            ))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.protocol_version.clone());
        if let Some(v) = pv {
            req = req.header(mcp_header::PROTOCOL_VERSION, v);
            if !method.is_empty() {
                req = req.header(mcp_header::METHOD, method);
            }
        }
        let req = req
            .body(body)
            .map_err(|e| ClientError::Http(e.to_string()))?;
        let resp = self.agent.run(req).map_err(|e| match e {
            ureq::Error::Timeout(_) => ClientError::Timeout {
                method: method.to_string(),
                timeout: Duration::ZERO,
                stderr: String::new(),
            },
            e => ClientError::Http(format!("{} {}: {e}", "POST", self.url)),
        })?;
        let status = resp.status();
        if let Some(s) = resp
            .headers()
            .get(mcp_header::SESSION_ID)
            .and_then(|v| v.to_str().ok())
        {
            self.session_id = Some(s.to_string());
        }
        let ctype = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut body = resp.into_body();
        if !status.is_success() {
            let mut text = String::new();
            let _ = body.as_reader().take(4096).read_to_string(&mut text);
            // A JSON-RPC error in an error status is still an answer: hand it over. (An
            // OAuth error body, `{"error": "invalid_token"}`, is not one.)
            if let Ok(v) = serde_json::from_str::<Value>(&text)
                && v.get("jsonrpc").is_some()
                && v.get("error").is_some_and(Value::is_object)
            {
                self.inbox.push_back(v);
                return Ok(());
            }
            let hint = if matches!(status.as_u16(), 401 | 403) {
                " (the server wants credentials: send them in a request header)"
            } else {
                ""
            };
            return Err(ClientError::Http(format!(
                "POST {} ({method}): HTTP {status}{hint}: {}",
                self.url,
                text.trim()
            )));
        }
        if status.as_u16() == 202 || msg.get("id").is_none() {
            return Ok(());
        }
        let reader = body.as_reader();
        if ctype.starts_with("text/event-stream") {
            read_sse(reader, msg.get("id"), &mut self.inbox)
        } else {
            let v: Value =
                serde_json::from_reader(reader.take(MAX_MESSAGE_BYTES as u64)).map_err(|e| {
                    ClientError::Http(format!(
                        "POST {} ({method}): response is not JSON: {e}",
                        self.url
                    ))
                })?;
            match v {
                Value::Array(items) => self.inbox.extend(items),
                v => self.inbox.push_back(v),
            }
            Ok(())
        }
    }

    fn recv(
        &mut self,
        _deadline: Instant,
        method: &str,
        _timeout: Duration,
    ) -> Result<Value, ClientError> {
        self.inbox.pop_front().ok_or_else(|| ClientError::Protocol {
            message: format!("the HTTP response to `{method}` carried no JSON-RPC response"),
            stderr: String::new(),
        })
    }

    fn set_protocol_version(&mut self, v: &str) {
        self.protocol_version = Some(v.to_string());
    }

    fn close(&mut self) {
        if let Some(s) = self.session_id.take() {
            let mut req = ureq::http::Request::delete(&self.url).header(mcp_header::SESSION_ID, &s);
            for (k, v) in &self.headers {
                req = req.header(k, v.expose());
            }
            let req = req.body(());
            if let Ok(req) = req {
                let _ = self.agent.run(req);
            }
        }
    }
}

// ---------------------------------------------------------------- session

/// How the session was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// `initialize` handshake.
    Handshake,
    /// 2026-07-28 `server/discover` + per-request `_meta` envelope.
    Stateless,
}

/// One finished session.
#[derive(Debug, Clone)]
pub struct SessionRecord {
    pub requested: ProtocolRevision,
    /// What the server agreed to (`initialize` result `protocolVersion`, or the
    /// requested stateless revision the server listed in `supportedVersions`).
    pub negotiated: String,
    pub lifecycle: Lifecycle,
    /// Every message, in wire order (sent and received).
    pub transcript: Vec<Value>,
    pub pages: usize,
    pub tools: usize,
}

/// Session settings.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Per-request timeout.
    pub timeout: Duration,
    /// `clientInfo` sent to the server.
    pub client_name: String,
}

struct Session<'t> {
    t: &'t mut dyn Transport,
    next_id: i64,
    transcript: Vec<Value>,
    opts: &'t SessionOptions,
}

impl Session<'_> {
    fn request(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let id = json!(self.next_id);
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.transcript.push(msg.clone());
        self.t.send(&msg)?;
        let deadline = Instant::now() + self.opts.timeout;
        loop {
            let m = self.t.recv(deadline, method, self.opts.timeout)?;
            self.transcript.push(m.clone());
            if m.get("method").is_some() {
                // A server request (ping, roots/list…) or notification.
                if let Some(rid) = m.get("id").filter(|v| !v.is_null()) {
                    let reply = if m.get("method").and_then(Value::as_str) == Some("ping") {
                        json!({"jsonrpc": "2.0", "id": rid, "result": {}})
                    } else {
                        json!({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
                    };
                    self.transcript.push(reply.clone());
                    self.t.send(&reply)?;
                }
                continue;
            }
            if m.get("id") != Some(&id) {
                continue; // a stale or unrelated response
            }
            if let Some(err) = m.get("error") {
                return Err(ClientError::Rpc {
                    method: method.into(),
                    code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: err
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .into(),
                    data: err.get("data").cloned().map(Box::new),
                    stderr: self.t.stderr(),
                });
            }
            return m
                .get("result")
                .cloned()
                .ok_or_else(|| ClientError::Protocol {
                    message: format!("the response to `{method}` has neither result nor error"),
                    stderr: self.t.stderr(),
                });
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), ClientError> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
        self.transcript.push(msg.clone());
        self.t.send(&msg)
    }

    fn client_info(&self) -> Value {
        json!({"name": self.opts.client_name, "version": env!("CARGO_PKG_VERSION")})
    }

    fn list_tools(&mut self, envelope: Option<&Value>) -> Result<(usize, usize), ClientError> {
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        let (mut pages, mut tools) = (0, 0);
        loop {
            let mut params = serde_json::Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), json!(c));
            }
            if let Some(env) = envelope {
                params.insert("_meta".into(), env.clone());
            }
            let result = self.request("tools/list", Value::Object(params))?;
            pages += 1;
            tools += result
                .get("tools")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if !result.get("tools").is_some_and(Value::is_array) {
                return Err(ClientError::Protocol {
                    message: "a tools/list result has no `tools` array".into(),
                    stderr: self.t.stderr(),
                });
            }
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) => {
                    if !seen.insert(next.to_string()) || pages >= MAX_PAGES {
                        return Err(ClientError::Protocol {
                            message: format!(
                                "tools/list pagination does not end (cursor `{next}` repeats or over {MAX_PAGES} pages)"
                            ),
                            stderr: self.t.stderr(),
                        });
                    }
                    cursor = Some(next.to_string());
                }
                None => return Ok((pages, tools)),
            }
        }
    }
}

/// Opens one session at `rev` and lists every tool.
///
/// For a revision with [`Feature::StatelessLifecycle`] the client first asks
/// `server/discover`; when the server lists `rev` in `supportedVersions`, `tools/list`
/// goes out with the per-request `_meta` envelope. Otherwise (and for every older
/// revision) it runs the `initialize` handshake asking for `rev` and records whatever
/// the server negotiates.
pub fn run_session(
    t: &mut dyn Transport,
    rev: ProtocolRevision,
    opts: &SessionOptions,
) -> Result<SessionRecord, ClientError> {
    let mut s = Session {
        t,
        next_id: 1,
        transcript: Vec::new(),
        opts,
    };
    if rev.has(Feature::StatelessLifecycle) {
        let mut meta = serde_json::Map::new();
        meta.insert(META_PROTOCOL_VERSION.into(), json!(rev.as_str()));
        meta.insert(META_CLIENT_INFO.into(), s.client_info());
        meta.insert(META_CLIENT_CAPABILITIES.into(), json!({}));
        let envelope = Value::Object(meta);
        match s.request("server/discover", json!({"_meta": envelope})) {
            Ok(result) => {
                let supported = result
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(rev.as_str())));
                if supported {
                    s.t.set_protocol_version(rev.as_str());
                    let (pages, tools) = s.list_tools(Some(&envelope))?;
                    let transcript = std::mem::take(&mut s.transcript);
                    s.t.close();
                    return Ok(SessionRecord {
                        requested: rev,
                        negotiated: rev.as_str().to_string(),
                        lifecycle: Lifecycle::Stateless,
                        transcript,
                        pages,
                        tools,
                    });
                }
            }
            // Not a stateless server (e.g. -32601 Method not found): use the handshake.
            Err(ClientError::Rpc { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let init = s.request(
        "initialize",
        json!({"protocolVersion": rev.as_str(), "capabilities": {}, "clientInfo": s.client_info()}),
    )?;
    let negotiated = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ClientError::Protocol {
            message: "the initialize result has no protocolVersion".into(),
            stderr: s.t.stderr(),
        })?;
    s.t.set_protocol_version(&negotiated);
    s.notify("notifications/initialized")?;
    let (pages, tools) = s.list_tools(None)?;
    let transcript = std::mem::take(&mut s.transcript);
    s.t.close();
    Ok(SessionRecord {
        requested: rev,
        negotiated,
        lifecycle: Lifecycle::Handshake,
        transcript,
        pages,
        tools,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_stops_at_the_response_and_keeps_what_came_before() {
        let body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n\
: comment\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":3,\"result\":{\"tools\":[]}}\n\n\
data: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n\n";
        let mut out = VecDeque::new();
        read_sse(body.as_bytes(), Some(&json!(3)), &mut out).expect("parse");
        assert_eq!(out.len(), 2);
        assert_eq!(out[0]["method"], "notifications/message");
        // A multi-line `data:` field is joined with a newline (valid JSON whitespace).
        assert_eq!(out[1]["id"], 3);
        assert_eq!(out[1]["result"]["tools"], json!([]));
    }

    /// A scripted transport: answers requests from a list, records what was sent.
    struct Scripted {
        answers: VecDeque<Value>,
        sent: Vec<Value>,
    }

    impl Transport for Scripted {
        fn send(&mut self, msg: &Value) -> Result<(), ClientError> {
            self.sent.push(msg.clone());
            Ok(())
        }
        fn recv(
            &mut self,
            _d: Instant,
            method: &str,
            timeout: Duration,
        ) -> Result<Value, ClientError> {
            self.answers.pop_front().ok_or(ClientError::Timeout {
                method: method.into(),
                timeout,
                stderr: String::new(),
            })
        }
    }

    #[test]
    fn handshake_then_every_page_and_server_pings_are_answered() {
        let mut t = Scripted {
            answers: VecDeque::from(vec![
                json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"s","version":"1"}}}),
                json!({"jsonrpc":"2.0","id":"p","method":"ping"}),
                json!({"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}],"nextCursor":"c"}}),
                json!({"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b"}]}}),
            ]),
            sent: Vec::new(),
        };
        let opts = SessionOptions {
            timeout: Duration::from_secs(1),
            client_name: "t".into(),
        };
        let r = run_session(&mut t, ProtocolRevision::V2025_06_18, &opts).expect("session");
        assert_eq!(r.negotiated, "2025-03-26");
        assert_eq!((r.pages, r.tools), (2, 2));
        let methods: Vec<&str> = t
            .sent
            .iter()
            .map(|m| m.get("method").and_then(Value::as_str).unwrap_or("<reply>"))
            .collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "notifications/initialized",
                "tools/list",
                "<reply>",
                "tools/list"
            ]
        );
        assert_eq!(t.sent[0]["params"]["protocolVersion"], "2025-06-18");
        assert_eq!(t.sent[3], json!({"jsonrpc":"2.0","id":"p","result":{}}));
        assert_eq!(t.sent[4]["params"]["cursor"], "c");
    }

    #[test]
    fn repeating_cursor_is_an_error_not_a_loop() {
        let mut answers =
            vec![json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}})];
        for id in 2..6 {
            answers
                .push(json!({"jsonrpc":"2.0","id":id,"result":{"tools":[],"nextCursor":"same"}}));
        }
        let mut t = Scripted {
            answers: answers.into(),
            sent: Vec::new(),
        };
        let opts = SessionOptions {
            timeout: Duration::from_secs(1),
            client_name: "t".into(),
        };
        let e = run_session(&mut t, ProtocolRevision::V2024_11_05, &opts).expect_err("loop");
        assert!(e.to_string().contains("does not end"), "{e}");
    }

    #[test]
    fn stateless_revision_uses_discover_and_the_meta_envelope() {
        let mut t = Scripted {
            answers: VecDeque::from(vec![
                json!({"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}),
                json!({"jsonrpc":"2.0","id":2,"result":{"tools":[]}}),
            ]),
            sent: Vec::new(),
        };
        let opts = SessionOptions {
            timeout: Duration::from_secs(1),
            client_name: "t".into(),
        };
        let r = run_session(&mut t, ProtocolRevision::V2026_07_28, &opts).expect("session");
        assert_eq!(r.lifecycle, Lifecycle::Stateless);
        assert_eq!(t.sent[1]["method"], "tools/list");
        assert_eq!(
            t.sent[1]["params"]["_meta"][META_PROTOCOL_VERSION],
            "2026-07-28"
        );
    }
}
