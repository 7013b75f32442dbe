//! One `mcpdesc serve --http` process: started, signalled, awaited on its log lines,
//! and a raw HTTP/1.1 client for it (each request on a connection of its own).

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long any one awaited event may take before a test fails.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A free loopback port (bound, then released for a process to bind).
pub fn reserve_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The process's stderr lines so far, and a signal for each new one.
type Lines = Arc<(Mutex<(Vec<String>, bool)>, Condvar)>;

pub struct Replica {
    child: Child,
    pub addr: SocketAddr,
    lines: Lines,
    exit: Option<Option<i32>>,
}

impl Replica {
    pub fn start(args: &[String]) -> Replica {
        Self::start_with_env(args, &[])
    }

    /// Starts `mcpdesc serve ARGS` and waits for its start-up line (the address).
    pub fn start_with_env(args: &[String], env: &[(&str, &str)]) -> Replica {
        let mut child = Command::new(mcpdesc_tests::mcpdesc_bin())
            .arg("serve")
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpdesc serve");
        let err = child.stderr.take().expect("stderr");
        let lines: Lines = Arc::new((Mutex::new((Vec::new(), false)), Condvar::new()));
        let keep = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let (m, cv) = &*keep;
                if let Ok(mut g) = m.lock() {
                    g.0.push(line);
                }
                cv.notify_all();
            }
            let (m, cv) = &*keep;
            if let Ok(mut g) = m.lock() {
                g.1 = true;
            }
            cv.notify_all();
        });
        let mut r = Replica {
            child,
            addr: "127.0.0.1:1".parse().expect("addr"),
            lines,
            exit: None,
        };
        let line = r.wait_for_line(|l| l.contains("serving ") && l.contains("http://"));
        let url = line
            .split_whitespace()
            .find(|u| u.starts_with("http://"))
            .expect("url");
        let host = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .expect("authority");
        r.addr = host.parse().expect("socket address");
        r
    }

    pub fn log(&self) -> String {
        let (m, _) = &*self.lines;
        m.lock().map(|g| g.0.join("\n")).unwrap_or_default()
    }

    /// The first log line `pred` accepts (waiting for it).
    pub fn wait_for_line(&mut self, pred: impl Fn(&str) -> bool) -> String {
        self.wait_for_nth_line(1, pred)
    }

    /// The `n`th log line `pred` accepts (waiting for it).
    pub fn wait_for_nth_line(&mut self, n: usize, pred: impl Fn(&str) -> bool) -> String {
        let (m, cv) = &*self.lines;
        let until = Instant::now() + TIMEOUT;
        let mut g = m.lock().expect("lines");
        loop {
            if let Some(l) = g.0.iter().filter(|l| pred(l)).nth(n - 1) {
                return l.clone();
            }
            let left = until.saturating_duration_since(Instant::now());
            if g.1 || left.is_zero() {
                let log = g.0.join("\n");
                drop(g);
                let _ = self.child.kill();
                panic!("the awaited log line did not come:\n{log}");
            }
            g = cv.wait_timeout(g, left).expect("lines").0;
        }
    }

    /// Sends signal `name` (e.g. `TERM`, `HUP`).
    pub fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill -{name}");
    }

    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Waits for the process to exit; its exit code.
    pub fn wait_exit(&mut self) -> Option<i32> {
        if let Some(e) = self.exit {
            return e;
        }
        // The stderr reader ends when the process closes it (at exit).
        let (m, cv) = &*self.lines;
        let until = Instant::now() + TIMEOUT;
        {
            let mut g = m.lock().expect("lines");
            while !g.1 {
                let left = until.saturating_duration_since(Instant::now());
                assert!(
                    !left.is_zero(),
                    "the process did not exit:\n{}",
                    g.0.join("\n")
                );
                g = cv.wait_timeout(g, left).expect("lines").0;
            }
        }
        let code = self.child.wait().expect("wait").code();
        self.exit = Some(code);
        code
    }

    /// SIGTERM, then its exit code.
    pub fn terminate(&mut self) -> Option<i32> {
        if self.exit.is_none() {
            self.signal("TERM");
        }
        self.wait_exit()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if self.exit.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One HTTP/1.1 exchange (`Connection: close`): status, headers (lower-cased names),
/// body.
fn exchange(addr: SocketAddr, request: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut s = TcpStream::connect_timeout(&addr, TIMEOUT).expect("connect");
    s.set_read_timeout(Some(TIMEOUT)).expect("timeout");
    s.write_all(request).expect("write");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end: {}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    (status, headers, body)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = b.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..i]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + size]);
        b = &b[i + 4 + size..];
    }
    out
}

/// `GET PATH` with this `Host`: status and body.
pub fn http_get(addr: SocketAddr, path: &str, host: &str) -> (u16, String) {
    let req = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let (status, _, body) = exchange(addr, req.as_bytes());
    (status, String::from_utf8_lossy(&body).to_string())
}

/// `POST /mcp` of a JSON body with these extra headers: status, headers, JSON body
/// (`null` when empty).
pub fn post_json(
    addr: SocketAddr,
    extra: &[(&str, &str)],
    body: &Value,
) -> (u16, Vec<(String, String)>, Value) {
    let body = serde_json::to_vec(body).expect("json");
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (n, v) in extra {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(&body);
    let (status, headers, body) = exchange(addr, &bytes);
    let v = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&body)))
    };
    (status, headers, v)
}
