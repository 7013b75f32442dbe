//! The MCP-side faults of proof 6: cancellation, clients that hang up mid-call, 200
//! concurrent calls, oversized and malformed input, duplicate ids, bounded memory.
//! Answers or clean errors, never a panic.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::*;
use mcpdesc_live::client::{StdioTransport, Transport};
use mcpdesc_serve::HttpOptions;
use mcpdesc_tests::{mcpdesc_bin, missing, workspace_root};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn petstore() -> Value {
    load(&workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"))
}

fn get_pet(id: i64, pet: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "get_pet", "arguments": {"id__path": pet}}})
}

/// Waits until `cond` holds (or fails the test after `TIMEOUT`).
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let until = Instant::now() + TIMEOUT;
    while !cond() {
        assert!(Instant::now() < until, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `notifications/cancelled` aborts the call: the upstream connection is dropped, no
/// response is sent for it, and the connection keeps working.
#[test]
fn cancellation_aborts_the_upstream_request() {
    let rt = Arc::new(rt());
    let slow = Upstream::start(200, "{\"id\": 1}", Duration::from_secs(60));
    let doc = petstore();
    let (server, _) = server_with(&doc, rest(Some(slow.base_url()), &doc), None, 100);
    let mut c = Conn::open(&rt, &server);
    c.open_at(V2025_06_18);
    c.send(&get_pet(41, 1));
    eventually("the call reaches the upstream", || {
        slow.request_lines().len() == 1
    });
    c.notify(
        "notifications/cancelled",
        json!({"requestId": 41, "reason": "user"}),
    );
    eventually("the upstream request is dropped", || {
        slow.dropped.load(Ordering::SeqCst) == 1
    });
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
    assert!(
        c.recv_within(Duration::from_millis(500)).is_none(),
        "no answer for a cancelled request"
    );
    // Cancelling what is not in flight (done, unknown) is harmless.
    c.notify("notifications/cancelled", json!({"requestId": 41}));
    c.notify("notifications/cancelled", json!({"requestId": "nope"}));
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
}

/// A stdio client that closes its side mid-call: the call is aborted and the server ends.
#[test]
fn stdio_end_of_input_aborts_calls_and_ends() {
    let rt = Arc::new(rt());
    let slow = Upstream::start(200, "{\"id\": 1}", Duration::from_secs(60));
    let doc = petstore();
    let (server, _) = server_with(&doc, rest(Some(slow.base_url()), &doc), None, 100);
    let mut c = Conn::open(&rt, &server);
    c.open_at(V2025_06_18);
    c.send(&get_pet(1, 1));
    eventually("the call reaches the upstream", || {
        slow.request_lines().len() == 1
    });
    let ended = c.close_input();
    assert!(
        matches!(ended, Some(Ok(()))),
        "the server ends cleanly: {ended:?}"
    );
    eventually("the upstream request is dropped", || {
        slow.dropped.load(Ordering::SeqCst) == 1
    });
}

/// Over HTTP, a client that disconnects mid-call cancels it (both lifecycles); a
/// `notifications/cancelled` in a session cancels too, and the cancelled POST gets 202.
#[test]
fn http_disconnect_and_cancel_abort_the_upstream_request() {
    let rt = Arc::new(rt());
    let slow = Upstream::start(200, "{\"id\": 1}", Duration::from_secs(60));
    let doc = petstore();
    let (server, _) = server_with(&doc, rest(Some(slow.base_url()), &doc), None, 100);
    let srv = HttpServer::start(&rt, &server, HttpOptions::default());
    // 2026-07-28: a single exchange; the client hangs up.
    let mut body = get_pet(5, 1);
    body["params"]["_meta"] = envelope(V2026_07_28);
    let body = serde_json::to_vec(&body).expect("json");
    let mut s = std::net::TcpStream::connect(srv.addr).expect("connect");
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: get_pet\r\nContent-Length: {}\r\n\r\n",
        srv.addr,
        body.len()
    )
    .expect("write");
    s.write_all(&body).expect("body");
    eventually("the call reaches the upstream", || {
        slow.request_lines().len() == 1
    });
    drop(s);
    eventually("the upstream request is dropped", || {
        slow.dropped.load(Ordering::SeqCst) == 1
    });

    // A session: notifications/cancelled from a second POST.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = post(srv.addr, &[], &init);
    let sid = r.header("mcp-session-id").expect("session").to_string();
    let (addr, sid2) = (srv.addr, sid.clone());
    let waiting =
        std::thread::spawn(move || post(addr, &[("Mcp-Session-Id", &sid2)], &get_pet(9, 2)));
    eventually("the second call reaches the upstream", || {
        slow.request_lines().len() == 2
    });
    let n = post(
        srv.addr,
        &[("Mcp-Session-Id", &sid)],
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),
    );
    assert_eq!(n.status, 202);
    let answered = waiting.join().expect("thread");
    assert_eq!(
        (answered.status, answered.body.len()),
        (202, 0),
        "the cancelled request gets no JSON-RPC answer"
    );
    eventually("the upstream request is dropped", || {
        slow.dropped.load(Ordering::SeqCst) == 2
    });
}

/// 200 calls in flight at once, over stdio and over HTTP: every one answered, each
/// with its own result.
#[test]
fn two_hundred_concurrent_calls() {
    let rt = Arc::new(rt());
    let up = Upstream::start(
        200,
        "{\"id\": 3, \"name\": \"Rex\"}",
        Duration::from_millis(100),
    );
    let doc = petstore();
    let (server, _) = server_with(&doc, rest(Some(up.base_url()), &doc), None, 100);
    let mut c = Conn::open(&rt, &server);
    c.open_at(V2025_06_18);
    for i in 0..200 {
        c.send(&get_pet(1000 + i, i));
    }
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let r = c.recv();
        let id = r["id"].as_i64().expect("id");
        assert_eq!(r["result"]["isError"], Value::Null, "{r}");
        assert_eq!(r["result"]["structuredContent"]["name"], "Rex", "{r}");
        assert!(seen.insert(id), "one answer per id");
    }
    assert_eq!(seen.len(), 200);

    let srv = HttpServer::start(&rt, &server, HttpOptions::default());
    let handles: Vec<_> = (0..200)
        .map(|i| {
            let addr = srv.addr;
            std::thread::spawn(move || {
                let mut m = get_pet(i, i);
                m["params"]["_meta"] = envelope(V2026_07_28);
                let r = post(
                    addr,
                    &[
                        ("MCP-Protocol-Version", "2026-07-28"),
                        ("Mcp-Method", "tools/call"),
                        ("Mcp-Name", "get_pet"),
                    ],
                    &m,
                );
                (i, r.status, r.json())
            })
        })
        .collect();
    for h in handles {
        let (i, status, v) = h.join().expect("thread");
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["id"], i);
        assert_eq!(v["result"]["resultType"], "complete");
        assert_eq!(v["result"]["isError"], Value::Null, "{v}");
        assert_eq!(v["result"]["structuredContent"]["name"], "Rex", "{v}");
    }
    assert_eq!(up.request_lines().len(), 400);
}

/// Oversized lines, deep nesting, invalid UTF-8, duplicate in-flight ids: clean errors,
/// and the connection goes on.
#[test]
fn oversized_and_malformed_input() {
    let rt = Arc::new(rt());
    let slow = Upstream::start(200, "{\"id\": 1}", Duration::from_secs(60));
    let doc = petstore();
    let (server, _) = server_with(&doc, rest(Some(slow.base_url()), &doc), None, 100);
    let mut c = Conn::open(&rt, &server);
    c.open_at(V2025_06_18);
    let mut huge = vec![b'['; mcpdesc_serve::MAX_MESSAGE_BYTES + 1024];
    huge.push(b'\n');
    c.write_raw(&huge);
    let r = c.recv();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("longer than")),
        "{r}"
    );
    let mut deep = "[".repeat(100_000);
    deep.push('\n');
    c.write_raw(deep.as_bytes());
    assert_eq!(c.recv()["error"]["code"], -32700);
    c.write_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n");
    assert_eq!(c.recv()["error"]["code"], -32700);
    c.write_raw(b"   \n\n");
    // The same id twice while the first is in flight.
    c.send(&get_pet(77, 1));
    eventually("the call reaches the upstream", || {
        slow.request_lines().len() == 1
    });
    c.send(&get_pet(77, 2));
    let r = c.recv();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(77), json!(-32600)),
        "{r}"
    );
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
}

fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The real binary under a flood (2,000 calls and 200 MiB of 1 MiB junk lines) keeps
/// answering, and its peak memory grows by far less than the flood: nothing piles up.
#[test]
fn memory_stays_bounded_under_a_flood() {
    let bin = mcpdesc_bin();
    if !bin.is_file() {
        return missing("the mcpdesc binary");
    }
    let fx = mcp_fixture("every-revision.mcpdesc.yaml")
        .display()
        .to_string();
    let args: Vec<String> = ["serve", &fx, "--mock"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut t = StdioTransport::spawn(
        &bin.display().to_string(),
        &args,
        &[],
        64 * 1024,
        Duration::from_secs(2),
    )
    .expect("spawn");
    let pid = t.pid().expect("pid");
    let until = Instant::now() + Duration::from_secs(300);
    let expect = |t: &mut StdioTransport, n: usize| {
        let mut got = 0;
        while got < n {
            let m = t
                .recv(until, "flood", Duration::from_secs(300))
                .expect("answers");
            if m.get("id").is_some() {
                got += 1;
            }
        }
    };
    t.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .expect("send");
    let call = |i: i64| {
        json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hello"}}})
    };
    t.send(&call(1)).expect("send");
    expect(&mut t, 2);
    let baseline = peak_rss_kib(pid);
    let junk = json!({"x": "y".repeat(1 << 20)});
    for i in 2..=2001 {
        t.send(&call(i)).expect("send");
        if i % 10 == 0 {
            t.send(&junk).expect("send junk");
        }
    }
    expect(&mut t, 2000 + 200);
    let peak = peak_rss_kib(pid);
    t.close();
    assert!(
        baseline > 0 && peak >= baseline,
        "VmHWM readable: {baseline} {peak}"
    );
    assert!(
        peak - baseline < 48 * 1024,
        "peak RSS grew by {} KiB under a 200 MiB flood (baseline {baseline} KiB)",
        peak - baseline
    );
}

/// Start-up builds the backend and the server while the validator runs, so the
/// builders see descriptions the validator will refuse: every `expected-invalid`
/// conformance fixture (the official classification, not ours) is refused with its
/// errors by both backends, and nothing panics on the way.
#[test]
fn invalid_descriptions_are_refused_while_building_beside_validation() {
    use mcpdesc_serve::{Options, ServeOptions, StartError, Transport, prepare};
    let dir = workspace_root().join("tests/fixtures/spec/fixtures/expected-invalid");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 50, "{} fixtures", files.len());
    for f in &files {
        let doc = load(f);
        for backend in [mock(), rest(None, &doc)] {
            let r = prepare(
                Arc::new(doc.clone()),
                Options {
                    serve: ServeOptions::default(),
                    backend,
                    transport: Transport::Stdio,
                },
            );
            match r {
                Err(StartError::Rejected(d)) => assert!(
                    mcpdesc_core::has_errors(&d),
                    "{}: refused without an error: {d:?}",
                    f.display()
                ),
                other => panic!("{}: not refused: {other:?}", f.display()),
            }
        }
    }
}
