//! The load driver of the `serve` bench: N workers, each on its own keep-alive HTTP/1.1
//! connection, send requests back to back for a fixed time after a warm-up, and the
//! driver reports calls per second and latency percentiles as one JSON line (`sent`
//! counts every request of the timed loop, the warm-up's included: a server's CPU time
//! over the whole run divided by it is its CPU per call).
//!
//! ```text
//! serve_load http URL CONCURRENCY SECONDS              # GET URL (the upstream: the floor)
//! serve_load mcp  URL CONCURRENCY SECONDS TOOL ARGS    # an MCP session per worker
//!                                                      # (initialize at 2025-11-25), then
//!                                                      # tools/call TOOL ARGS (JSON)
//! ```
//!
//! `SERVE_LOAD_AUTHORIZATION`, when set, is sent as every request's `Authorization`.
//!
//! MCP answers may be `application/json` or `text/event-stream` (FastMCP answers with
//! SSE); chunked bodies are read. A call counts as an error when the answer is not a
//! JSON-RPC result or is a tool error.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// Warm-up before measuring (connections open, caches warm, JITs/interpreters settled).
const WARMUP: Duration = Duration::from_millis(1500);

fn main() -> ExitCode {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let usage = || {
        eprintln!(
            "usage: serve_load http URL CONCURRENCY SECONDS | serve_load mcp URL CONCURRENCY SECONDS TOOL ARGS"
        );
        ExitCode::from(2)
    };
    let (Some(mode), Some(url), Some(c), Some(secs)) = (a.first(), a.get(1), a.get(2), a.get(3))
    else {
        return usage();
    };
    let (Ok(concurrency), Ok(secs)) = (c.parse::<usize>(), secs.parse::<f64>()) else {
        return usage();
    };
    let target = match Target::parse(url) {
        Some(t) => t,
        None => return usage(),
    };
    let call = match mode.as_str() {
        "http" => None,
        "mcp" => match (a.get(4), a.get(5).map(|s| serde_json::from_str::<Value>(s))) {
            (Some(tool), Some(Ok(args))) => Some((tool.clone(), args)),
            _ => return usage(),
        },
        _ => return usage(),
    };
    let measure = Duration::from_secs_f64(secs);
    let start = Arc::new(Barrier::new(concurrency + 1));
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (t, call, start) = (target.clone(), call.clone(), Arc::clone(&start));
            std::thread::spawn(move || worker(&t, call.as_ref(), &start, measure))
        })
        .collect();
    start.wait();
    let began = Instant::now();
    let mut lat: Vec<u32> = Vec::new();
    let mut errors = 0usize;
    let mut sent = 0u64;
    let mut failure = None;
    for w in workers {
        match w.join() {
            Ok(Ok((l, e, n))) => {
                lat.extend(l);
                errors += e;
                sent += n;
            }
            Ok(Err(e)) => failure = Some(e),
            Err(_) => failure = Some("a worker panicked".into()),
        }
    }
    let elapsed = began.elapsed().as_secs_f64() - WARMUP.as_secs_f64();
    if let Some(f) = failure {
        eprintln!("serve_load: {f}");
        return ExitCode::FAILURE;
    }
    lat.sort_unstable();
    let pct = |p: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        let i = ((lat.len() as f64 - 1.0) * p).round() as usize;
        f64::from(lat[i.min(lat.len() - 1)]) / 1000.0
    };
    println!(
        "{}",
        json!({
            "calls": lat.len(),
            "seconds": elapsed,
            "calls_per_s": lat.len() as f64 / elapsed.max(1e-9),
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "errors": errors,
            "sent": sent,
        })
    );
    ExitCode::SUCCESS
}

#[derive(Clone)]
struct Target {
    authority: String,
    path: String,
}

impl Target {
    fn parse(url: &str) -> Option<Target> {
        let rest = url.strip_prefix("http://")?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        Some(Target {
            authority: authority.to_string(),
            path: path.to_string(),
        })
    }
}

/// One keep-alive connection.
struct Conn {
    r: BufReader<TcpStream>,
    w: TcpStream,
    authority: String,
    /// `SERVE_LOAD_AUTHORIZATION`: an `Authorization` value sent on every request (the
    /// OAuth resource-server runs: `Bearer <access token>`).
    authorization: Option<String>,
}

struct Answer {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Conn {
    fn open(t: &Target) -> Result<Conn, String> {
        let s = TcpStream::connect(&t.authority).map_err(|e| format!("{}: {e}", t.authority))?;
        let _ = s.set_nodelay(true);
        let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
        Ok(Conn {
            r: BufReader::new(s.try_clone().map_err(|e| e.to_string())?),
            w: s,
            authority: t.authority.clone(),
            authorization: std::env::var("SERVE_LOAD_AUTHORIZATION").ok(),
        })
    }

    fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Answer, String> {
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.authority,
            body.len()
        );
        for (n, v) in headers {
            req.push_str(&format!("{n}: {v}\r\n"));
        }
        if let Some(a) = &self.authorization {
            req.push_str(&format!("Authorization: {a}\r\n"));
        }
        req.push_str("\r\n");
        let mut buf = req.into_bytes();
        buf.extend_from_slice(body);
        self.w.write_all(&buf).map_err(|e| e.to_string())?;
        self.read_answer()
    }

    fn read_answer(&mut self) -> Result<Answer, String> {
        let mut line = String::new();
        self.r.read_line(&mut line).map_err(|e| e.to_string())?;
        if line.is_empty() {
            return Err("connection closed".into());
        }
        let mut headers = Vec::new();
        loop {
            let mut l = String::new();
            self.r.read_line(&mut l).map_err(|e| e.to_string())?;
            let l = l.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((n, v)) = l.split_once(':') {
                headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        let mut body = Vec::new();
        if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            loop {
                let mut size = String::new();
                self.r.read_line(&mut size).map_err(|e| e.to_string())?;
                let n = usize::from_str_radix(size.trim(), 16).map_err(|e| e.to_string())?;
                let mut chunk = vec![0; n + 2];
                self.r.read_exact(&mut chunk).map_err(|e| e.to_string())?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
            body = vec![0; n];
            self.r.read_exact(&mut body).map_err(|e| e.to_string())?;
        }
        Ok(Answer { headers, body })
    }
}

/// The JSON-RPC message of an MCP answer (JSON, or the last `data:` of an SSE body).
fn message(a: &Answer) -> Option<Value> {
    let sse = a
        .headers
        .iter()
        .any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream"));
    if !sse {
        return serde_json::from_slice(&a.body).ok();
    }
    String::from_utf8_lossy(&a.body)
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m.get("id").is_some())
}

fn worker(
    t: &Target,
    call: Option<&(String, Value)>,
    start: &Barrier,
    measure: Duration,
) -> Result<(Vec<u32>, usize, u64), String> {
    let mut c = Conn::open(t)?;
    let mut session: Option<String> = None;
    const JSON: [(&str, &str); 2] = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    if call.is_some() {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "serve_load", "version": "1"}}});
        let a = c.send("POST", &t.path, &JSON, init.to_string().as_bytes())?;
        session = a
            .headers
            .iter()
            .find(|(k, _)| k == "mcp-session-id")
            .map(|(_, v)| v.clone());
        message(&a)
            .filter(|m| m.get("result").is_some())
            .ok_or("initialize failed")?;
        let mut h = JSON.to_vec();
        if let Some(s) = &session {
            h.push(("Mcp-Session-Id", s));
        }
        c.send(
            "POST",
            &t.path,
            &h,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )?;
    }
    start.wait();
    let began = Instant::now();
    let mut lat = Vec::new();
    let mut errors = 0;
    let mut id = 1u64;
    let mut sent = 0u64;
    while began.elapsed() < WARMUP + measure {
        let t0 = Instant::now();
        let ok = match call {
            None => !c.send("GET", &t.path, &[], b"")?.body.is_empty(),
            Some((tool, args)) => {
                let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}});
                id += 1;
                let mut h = JSON.to_vec();
                h.push(("MCP-Protocol-Version", "2025-11-25"));
                if let Some(s) = &session {
                    h.push(("Mcp-Session-Id", s));
                }
                let a = c.send("POST", &t.path, &h, msg.to_string().as_bytes())?;
                message(&a).is_some_and(|m| {
                    m.get("result")
                        .is_some_and(|r| r.get("isError") != Some(&json!(true)))
                })
            }
        };
        sent += 1;
        let us = t0.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
        if began.elapsed() >= WARMUP {
            lat.push(us);
            if !ok {
                errors += 1;
            }
        }
    }
    Ok((lat, errors, sent))
}
