//! A loopback HTTP/1.1 server for tests: records every request exactly as it arrived
//! (method, target, header lines, body bytes) and answers with a scripted reply.
//! std only, so what it records is the wire, not another library's reading of it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One request as received.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub method: String,
    /// The request-target, raw (`/base/items?color=blue`).
    pub target: String,
    /// Header lines in order, names as sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    /// Every header named `name`.
    pub fn headers_named(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Duration,
}

impl Reply {
    pub fn json(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.as_bytes().to_vec(),
            delay: Duration::ZERO,
        }
    }
    pub fn with(status: u16, content_type: &str, body: &[u8]) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.to_vec(),
            delay: Duration::ZERO,
        }
    }
    pub fn empty(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: Duration::ZERO,
        }
    }
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
            delay: Duration::ZERO,
        }
    }
}

type Script = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

/// The running server. Stops (and its threads end) when dropped.
pub struct Recorder {
    pub port: u16,
    seen: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    pub in_flight_max: Arc<AtomicUsize>,
    /// Connections that closed before their reply was written.
    pub aborted: Arc<AtomicUsize>,
}

impl Recorder {
    /// Starts a server answering with `script(request, index)`.
    pub fn start(script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("addr").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let seen: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let in_flight_max = Arc::new(AtomicUsize::new(0));
        let aborted = Arc::new(AtomicUsize::new(0));
        let script: Arc<Script> = Arc::new(script);
        {
            let (seen, stop, in_flight, in_flight_max, aborted) = (
                seen.clone(),
                stop.clone(),
                in_flight.clone(),
                in_flight_max.clone(),
                aborted.clone(),
            );
            thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((s, _)) => {
                            let (seen, script, stop, in_flight, in_flight_max, aborted) = (
                                seen.clone(),
                                script.clone(),
                                stop.clone(),
                                in_flight.clone(),
                                in_flight_max.clone(),
                                aborted.clone(),
                            );
                            thread::spawn(move || {
                                serve_conn(
                                    s,
                                    &seen,
                                    &*script,
                                    &stop,
                                    &in_flight,
                                    &in_flight_max,
                                    &aborted,
                                )
                            });
                        }
                        Err(_) => thread::sleep(Duration::from_millis(2)),
                    }
                }
            });
        }
        Recorder {
            port,
            seen,
            stop,
            in_flight_max,
            aborted,
        }
    }

    /// A server that always answers `reply`.
    pub fn always(reply: Reply) -> Recorder {
        Recorder::start(move |_, _| reply.clone())
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Everything received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        match self.seen.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// The only request received (fails otherwise).
    pub fn one(&self) -> Recorded {
        let r = self.requests();
        assert_eq!(r.len(), 1, "expected exactly one request, got {r:#?}");
        r.into_iter().next().expect("one")
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn serve_conn(
    s: TcpStream,
    seen: &Mutex<Vec<Recorded>>,
    script: &Script,
    stop: &AtomicBool,
    in_flight: &AtomicUsize,
    in_flight_max: &AtomicUsize,
    aborted: &AtomicUsize,
) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(mut w) = s.try_clone() else { return };
    let mut r = BufReader::new(s);
    while !stop.load(Ordering::SeqCst) {
        let Some(req) = read_request(&mut r) else {
            return;
        };
        let n = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        in_flight_max.fetch_max(n, Ordering::SeqCst);
        let index = {
            let mut g = match seen.lock() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            g.push(req.clone());
            g.len() - 1
        };
        let reply = script(&req, index);
        if !reply.delay.is_zero() {
            // Sleep in slices, noticing a peer that hung up.
            let end = std::time::Instant::now() + reply.delay;
            let mut probe = [0u8; 1];
            let _ = r.get_ref().set_nonblocking(true);
            while std::time::Instant::now() < end {
                match r.get_ref().peek(&mut probe) {
                    Ok(0) => {
                        aborted.fetch_add(1, Ordering::SeqCst);
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                        return;
                    }
                    _ => thread::sleep(Duration::from_millis(5)),
                }
            }
            let _ = r.get_ref().set_nonblocking(false);
        }
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Length: {}\r\n",
            reply.status,
            reason(reply.status),
            reply.body.len()
        );
        for (n, v) in &reply.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let ok = w.write_all(head.as_bytes()).is_ok() && w.write_all(&reply.body).is_ok();
        in_flight.fetch_sub(1, Ordering::SeqCst);
        if !ok {
            return;
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

fn read_request(r: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut it = line.trim_end().splitn(3, ' ');
    let method = it.next()?.to_string();
    let target = it.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        let (n, v) = h.split_once(':')?;
        headers.push((n.to_string(), v.trim().to_string()));
    }
    let len = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Recorded {
        method,
        target,
        headers,
        body,
    })
}
