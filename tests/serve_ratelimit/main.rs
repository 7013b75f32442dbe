//! `mcpdesc serve --http --rate-limit` (issue 29): the real binary, a raw HTTP client, and
//! a real Redis (`/usr/bin/redis-server`, started per test on a free loopback port, no
//! persistence) for the budget replicas share.
//!
//! Expectations are computed by hand from the GCRA definition: a rate COUNT/UNIT has
//! the interval T = UNIT / COUNT; an idle caller gets a burst of B (default COUNT)
//! requests, and the next one is refused with `Retry-After` = ceil(T − elapsed), where
//! elapsed (the time since the first request) is far below a second here. Rates are per
//! hour where a test sends many requests, so no refill can happen while it runs.

use mcpdesc_tests::{fixture, mcpdesc_bin};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(20);

/// `mcpdesc serve every-revision --mock --http 127.0.0.1:0 ARGS…`, killed when dropped.
struct Serve {
    child: Child,
    addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
}

impl Serve {
    fn start(args: &[&str]) -> Serve {
        let fixture = fixture("serve/mcp/every-revision.mcpdesc.yaml");
        let fixture = fixture.to_str().expect("a UTF-8 path");
        let mut all = vec![fixture, "--mock", "--http", "127.0.0.1:0"];
        all.extend_from_slice(args);
        Serve::start_with(&all)
    }

    /// `mcpdesc serve ARGS…` (which must serve HTTP on a free port).
    fn start_with(args: &[&str]) -> Serve {
        let mut child = Command::new(mcpdesc_bin())
            .arg("serve")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpdesc serve");
        let (log, lines) = collect(child.stderr.take().expect("stderr"));
        let until = Instant::now() + TIMEOUT;
        loop {
            let Ok(line) = lines.recv_timeout(until.saturating_duration_since(Instant::now()))
            else {
                let _ = child.kill();
                let _ = child.wait();
                panic!("serve did not start:\n{}", joined(&log));
            };
            if let Some(url) = line
                .split_whitespace()
                .find(|u| u.starts_with("http://") && u.ends_with("/mcp"))
            {
                let addr = url
                    .trim_start_matches("http://")
                    .trim_end_matches("/mcp")
                    .parse()
                    .expect("the logged address");
                return Serve { child, addr, log };
            }
        }
    }

    fn log(&self) -> String {
        joined(&self.log)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn joined(log: &Arc<Mutex<Vec<String>>>) -> String {
    log.lock().map(|v| v.join("\n")).unwrap_or_default()
}

/// Keeps a child's output lines, and hands each one over as it comes.
fn collect(out: impl Read + Send + 'static) -> (Arc<Mutex<Vec<String>>>, Receiver<String>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = channel();
    let keep = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if let Ok(mut v) = keep.lock() {
                v.push(line.clone());
            }
            let _ = tx.send(line);
        }
    });
    (log, rx)
}

/// A real `redis-server` on a free loopback port, without persistence; killed when
/// dropped.
struct Redis {
    child: Option<Child>,
    port: u16,
}

impl Redis {
    fn start() -> Redis {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut r = Redis { child: None, port };
        r.restart();
        r
    }

    /// (Re)starts the server on its port and waits for "Ready to accept connections".
    fn restart(&mut self) {
        let bin = "/usr/bin/redis-server";
        if !std::path::Path::new(bin).exists() {
            mcpdesc_tests::missing(bin);
        }
        let port = self.port.to_string();
        let mut child = Command::new(bin)
            .args(["--port", &port, "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "no", "--loglevel", "notice"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        let (log, lines) = collect(child.stdout.take().expect("stdout"));
        let until = Instant::now() + TIMEOUT;
        loop {
            match lines.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(l) if l.contains("Ready to accept connections") => break,
                Ok(_) => {}
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("redis-server did not start:\n{}", joined(&log));
                }
            }
        }
        self.child = Some(child);
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// One HTTP/1.1 exchange on a fresh connection from source address `from`.
fn exchange(from: IpAddr, to: SocketAddr, method: &str, path: &str, body: &[u8]) -> Answer {
    let socket = tokio_free_connect(from, to);
    let mut s = socket;
    s.set_read_timeout(Some(TIMEOUT)).expect("timeout");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {to}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("write");
    s.write_all(body).expect("write body");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end: {}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// A connection to `to` from the loopback address `from` (the caller's identity).
fn tokio_free_connect(from: IpAddr, to: SocketAddr) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a runtime");
    let s = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind(SocketAddr::new(from, 0))
            .expect("bind the source");
        socket.connect(to).await.expect("connect")
    });
    let std = s.into_std().expect("std stream");
    std.set_nonblocking(false).expect("blocking");
    std
}

const ALICE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
const BOB: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

fn initialize() -> Vec<u8> {
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "ratelimit-test", "version": "0"}}}),
    )
    .expect("json")
}

/// An MCP request (`initialize`) from `from`.
fn mcp(from: IpAddr, to: SocketAddr) -> Answer {
    exchange(from, to, "POST", "/mcp", &initialize())
}

/// The answer is a 429 with `Retry-After: secs` and the JSON body, and the request was
/// not processed (an `initialize` that ran answers a session id).
fn assert_limited(a: &Answer, secs: u64) {
    assert_eq!(a.status, 429, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.header("retry-after"), Some(secs.to_string().as_str()));
    assert!(a.header("mcp-session-id").is_none(), "nothing is processed");
    let body = a.json();
    assert_eq!(body["error"], "rate_limited");
    assert_eq!(body["retryAfterSeconds"], json!(secs));
    assert_eq!(a.header("content-type"), Some("application/json"));
}

fn assert_admitted(a: &Answer, what: &str) {
    assert_eq!(
        a.status,
        200,
        "{what}: {}",
        String::from_utf8_lossy(&a.body)
    );
    assert!(a.header("mcp-session-id").is_some(), "{what}: processed");
}

// 5/min: T = 12 s, burst 5. Five admitted, the sixth refused with Retry-After 12.
#[test]
fn the_request_past_the_burst_gets_429_with_retry_after() {
    let s = Serve::start(&["--rate-limit", "5/min"]);
    for i in 0..5 {
        assert_admitted(&mcp(ALICE, s.addr), &format!("request {i}"));
    }
    assert_limited(&mcp(ALICE, s.addr), 12);
    // Another caller has its own budget; health probes are not MCP requests.
    assert_admitted(&mcp(BOB, s.addr), "another caller");
    let health = exchange(ALICE, s.addr, "GET", "/healthz", b"");
    assert_eq!(health.status, 200, "health is not limited");
    assert_limited(&mcp(ALICE, s.addr), 12);
    assert!(!s.log().contains("panicked"), "{}", s.log());
}

// 60/h with burst 2: T = 60 s. Two admitted, the third refused with Retry-After 60.
#[test]
fn the_burst_flag_sets_how_many_pass_at_once() {
    let s = Serve::start(&["--rate-limit", "60/h", "--rate-limit-burst", "2"]);
    assert_admitted(&mcp(ALICE, s.addr), "first");
    assert_admitted(&mcp(ALICE, s.addr), "second");
    assert_limited(&mcp(ALICE, s.addr), 60);
}

#[test]
fn bad_rate_values_are_usage_errors_naming_the_value() {
    for (args, says) in [
        (
            vec!["--rate-limit", "20/day"],
            "`20/day`: `day` is not a unit",
        ),
        (vec!["--rate-limit", "0/s"], "the count `0`"),
        (vec!["--rate-limit", "fast"], "`fast` is not a rate"),
        (
            vec!["--rate-limit", "5/s", "--rate-limit-burst", "0"],
            "`0` is not a whole number",
        ),
        (
            vec!["--rate-limit", "5/s", "--rate-limit-store", "http://r:6379"],
            "is not a redis:// URL",
        ),
    ] {
        let out = Command::new(mcpdesc_bin())
            .arg("serve")
            .arg(fixture("serve/mcp/every-revision.mcpdesc.yaml"))
            .args(["--mock", "--http", "127.0.0.1:0"])
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("run serve");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        let flag = args[args.len() - 2];
        assert!(err.contains(flag), "{args:?} names {flag}: {err}");
    }
}

// Each flag is a `--config` key: `rate-limit` and `rate-limit-burst` from the file.
#[test]
fn the_limit_is_a_config_key_too() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = dir.path().join("gateway.yaml");
    let description = fixture("serve/mcp/every-revision.mcpdesc.yaml");
    std::fs::write(
        &config,
        format!(
            "http: 127.0.0.1:0\nrate-limit: 10/h\nrate-limit-burst: 1\napis:\n  - description: {}\n    mock: true\n",
            description.display()
        ),
    )
    .expect("write the config");
    let s = Serve::start_with(&["--config", config.to_str().expect("a UTF-8 path")]);
    assert_admitted(&mcp(ALICE, s.addr), "first");
    // 10/h: T = 360 s, burst 1.
    assert_limited(&mcp(ALICE, s.addr), 360);

    std::fs::write(
        &config,
        format!(
            "http: 127.0.0.1:0\nrate-limit: 20/day\napis:\n  - description: {}\n    mock: true\n",
            description.display()
        ),
    )
    .expect("write the config");
    let out = Command::new(mcpdesc_bin())
        .args(["serve", "--config", config.to_str().expect("a UTF-8 path")])
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("gateway.yaml:2:") && err.contains("`20/day`: `day` is not a unit"),
        "{err}"
    );
}

/// Sends `n` requests round robin over `replicas`; the statuses in order.
fn round_robin(replicas: &[Serve], n: usize) -> Vec<Answer> {
    (0..n)
        .map(|i| mcp(ALICE, replicas[i % replicas.len()].addr))
        .collect()
}

// 20/h across three replicas sharing Redis: 20 admitted in all (T = 180 s), then every
// replica refuses, with Retry-After 180. Without Redis each replica admits its own 20.
#[test]
fn replicas_sharing_redis_hold_one_budget_and_without_it_each_its_own() {
    let redis = Redis::start();
    let url = redis.url();
    let shared: Vec<Serve> = (0..3)
        .map(|_| Serve::start(&["--rate-limit", "20/h", "--rate-limit-store", &url]))
        .collect();
    let answers = round_robin(&shared, 20);
    for (i, a) in answers.iter().enumerate() {
        assert_admitted(a, &format!("shared request {i}"));
    }
    for r in &shared {
        assert_limited(&mcp(ALICE, r.addr), 180);
    }
    // Bob's budget is his own in the store too.
    assert_admitted(&mcp(BOB, shared[2].addr), "another caller");

    let alone: Vec<Serve> = (0..3)
        .map(|_| Serve::start(&["--rate-limit", "20/h"]))
        .collect();
    let answers = round_robin(&alone, 60);
    for (i, a) in answers.iter().enumerate() {
        assert_admitted(a, &format!("local request {i}"));
    }
    for r in &alone {
        assert_limited(&mcp(ALICE, r.addr), 180);
    }
}

/// Requests while Redis is down: each decided fast (the store call times out in
/// 100 ms), the outage logged once, and the return logged once.
fn store_outage(mode: &str) -> (Vec<Answer>, Serve, Redis) {
    let mut redis = Redis::start();
    let url = redis.url();
    let s = Serve::start(&[
        "--rate-limit",
        "2/h",
        "--rate-limit-store",
        &url,
        "--rate-limit-on-store-error",
        mode,
    ]);
    assert_admitted(&mcp(ALICE, s.addr), "first");
    assert_admitted(&mcp(ALICE, s.addr), "second");
    assert_limited(&mcp(ALICE, s.addr), 1800);
    redis.kill();
    let answers: Vec<Answer> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let a = mcp(ALICE, s.addr);
            assert!(
                t.elapsed() < Duration::from_secs(2),
                "a dead store stalled a request for {:?}",
                t.elapsed()
            );
            a
        })
        .collect();
    let log = s.log();
    let failures = log.matches("rate limit: the store").count();
    assert_eq!(failures, 1, "one line for the outage:\n{log}");
    assert!(log.contains(&format!("the store {url} failed")), "{log}");
    (answers, s, redis)
}

#[test]
fn a_dead_store_fails_open_when_told_and_logs_it_once() {
    let (answers, s, mut redis) = store_outage("open");
    for (i, a) in answers.iter().enumerate() {
        assert_admitted(a, &format!("open request {i}"));
    }
    assert!(s.log().contains("admitted without a limit"), "{}", s.log());
    // Back (empty: a fresh budget): the limit holds again, and the log says so.
    redis.restart();
    // The first requests may still meet the dead connection (each makes the manager
    // reconnect); the first one the store answers is logged and counted there.
    let until = Instant::now() + TIMEOUT;
    let mut a = loop {
        let a = mcp(ALICE, s.addr);
        if s.log().contains("answers again") {
            break a;
        }
        assert_admitted(&a, "open while reconnecting");
        assert!(Instant::now() < until, "the store never answered again");
    };
    // The log line is read on another thread, so by the time the loop sees it the store
    // may already have counted up to its budget of 2 of the loop's requests, and the
    // answer in hand may be the first refusal: from the return on, at most 2 are
    // admitted, then the limit holds again.
    let mut admitted = 0;
    let limited = loop {
        if a.status == 429 {
            break a;
        }
        assert_admitted(&a, "after the return");
        admitted += 1;
        assert!(
            admitted <= 2,
            "the budget of 2 holds again after the return"
        );
        a = mcp(ALICE, s.addr);
    };
    assert_limited(&limited, 1800);
}

#[test]
fn a_dead_store_fails_closed_with_503_when_told() {
    let (answers, s, _redis) = store_outage("closed");
    for a in &answers {
        assert_eq!(a.status, 503, "{}", String::from_utf8_lossy(&a.body));
        assert_eq!(a.header("retry-after"), Some("1"));
        assert!(a.header("mcp-session-id").is_none(), "nothing is processed");
        assert_eq!(a.json()["error"], "rate_limit_unavailable");
    }
    assert!(s.log().contains("refused with 503"), "{}", s.log());
}
