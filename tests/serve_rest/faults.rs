//! Proof 6, HTTP side: the gateway answers or errors cleanly, never panics, and keeps
//! memory bounded.

use super::recorder::{Recorder, Reply};
use super::*;
use mcpdesc_core::ProtocolRevision::V2026_07_28 as LATEST;
use std::sync::Arc;
use std::time::Duration;

fn plain(name: &str, path: &str) -> Value {
    tool(
        name,
        json!({"type": "object", "properties": {"id": {"type": "string"}}}),
        json!({"method": "GET", "path": path,
               "arguments": {"id": {"in": "path", "name": "id"}}}),
    )
}

fn d() -> Value {
    doc(
        vec![plain("get", "/items/{id}"), plain("slow", "/slow/{id}")],
        json!({}),
    )
}

#[tokio::test]
async fn upstream_down() {
    // A port nothing listens on: bind, note the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let d = d();
    let b = gateway(&d, at(&format!("http://127.0.0.1:{port}")));
    let out = call(&b, &d, "get", json!({"id": "1"}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    let t = text(&out.result);
    assert!(
        t.starts_with("could not connect to http://127.0.0.1:"),
        "{t}"
    );
    assert_eq!(out.log.upstream.as_ref().map(|u| u.status), Some(None));
    assert_valid(&d, "get", &json!({"id": "1"}), &out.result, LATEST);
}

#[tokio::test]
async fn tls_failure() {
    // An https base URL at a plain-HTTP listener: the handshake fails.
    let rec = Recorder::always(Reply::json(200, "{}"));
    let d = d();
    let b = gateway(&d, at(&format!("https://127.0.0.1:{}", rec.port)));
    let out = call(&b, &d, "get", json!({"id": "1"}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    let t = text(&out.result);
    assert!(
        t.starts_with("TLS handshake failed with https://127.0.0.1:"),
        "{t}"
    );
}

#[tokio::test]
async fn slow_past_the_timeout() {
    let rec = Recorder::start(|_, _| Reply {
        delay: Duration::from_secs(5),
        ..Reply::json(200, "{}")
    });
    let d = d();
    let b = gateway(
        &d,
        RestOptions {
            timeout: Duration::from_millis(300),
            ..at(&rec.base())
        },
    );
    let started = std::time::Instant::now();
    let out = call(&b, &d, "slow", json!({"id": "1"}), LATEST).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(out.result["isError"], true);
    assert!(
        text(&out.result).contains("did not answer within 0.3 s"),
        "{:#}",
        out.result
    );
}

#[tokio::test]
async fn huge_bodies_are_bounded() {
    let huge = vec![b'x'; 8 * 1024 * 1024];
    let rec = {
        let huge = huge.clone();
        Recorder::start(move |r, _| {
            if r.path().starts_with("/items/err") {
                Reply::with(500, "text/plain", &huge)
            } else {
                Reply::with(200, "text/plain", &huge)
            }
        })
    };
    let d = d();
    let b = gateway(
        &d,
        RestOptions {
            max_response_bytes: 1024 * 1024,
            ..at(&rec.base())
        },
    );
    let out = call(&b, &d, "get", json!({"id": "ok"}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    assert!(
        text(&out.result).contains("larger than 1048576 bytes"),
        "{:#}",
        out.result
    );
    let out = call(&b, &d, "get", json!({"id": "err"}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    let t = text(&out.result);
    assert!(t.starts_with("The API answered HTTP 500"), "{}", &t[..60]);
    assert!(t.len() < 10_000, "error text bounded: {}", t.len());
}

#[tokio::test]
async fn redirects_same_origin_only_and_at_most_five() {
    let other = Recorder::always(Reply::json(200, r#"{"stolen":true}"#));
    let other_base = other.base();
    let rec = Recorder::start(move |r, _| {
        let p = r.path().to_string();
        if let Some(n) = p.strip_prefix("/items/hop") {
            let n: u32 = n.parse().unwrap_or(0);
            return if n == 0 {
                Reply::json(200, r#"{"done":true}"#)
            } else {
                Reply::redirect(302, &format!("/items/hop{}", n - 1))
            };
        }
        if p == "/items/away" {
            return Reply::redirect(307, &format!("{other_base}/steal"));
        }
        Reply::json(404, "{}")
    });
    let d = doc(
        vec![plain("get", "/items/{id}")],
        json!({"securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}}, "security": [{"k": []}]}),
    );
    let b = gateway(
        &d,
        RestOptions {
            credentials: [("k".to_string(), mcpdesc_rest::Secret::new("secret"))].into(),
            // The other origin is even allowed: redirects still stay on their origin.
            allow_hosts: vec![other.base()],
            ..at(&rec.base())
        },
    );
    let out = call(&b, &d, "get", json!({"id": "hop5"}), LATEST).await;
    assert!(
        out.result.get("isError").is_none(),
        "5 hops are followed: {:#}",
        out.result
    );
    let out = call(&b, &d, "get", json!({"id": "hop6"}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    assert!(
        text(&out.result).contains("more than 5 times"),
        "{:#}",
        out.result
    );
    let out = call(&b, &d, "get", json!({"id": "away"}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    assert!(
        text(&out.result).contains("only same-origin redirects"),
        "{:#}",
        out.result
    );
    // Nothing, credentials least of all, reached the other origin.
    assert!(other.requests().is_empty());
    // Every hop on the same origin carried the key.
    assert!(
        rec.requests()
            .iter()
            .all(|r| r.header("X-Key") == Some("secret"))
    );
}

#[tokio::test]
async fn path_values_cannot_escape() {
    let rec = Recorder::always(Reply::json(200, "{}"));
    let d = d();
    let b = gateway(&d, at(&format!("{}/api", rec.base())));
    for v in ["../admin", "%2F..%2Fadmin", "a?b=1#c", "a/b", "..."] {
        let out = call(&b, &d, "get", json!({"id": v}), LATEST).await;
        assert!(out.result.get("isError").is_none(), "{v}: {:#}", out.result);
    }
    // A whole segment `.` or `..` cannot be sent safely (`%2E%2E` is read as `..` by
    // WHATWG URL parsing): a tool error, nothing sent.
    for v in ["..", "."] {
        let out = call(&b, &d, "get", json!({"id": v}), LATEST).await;
        assert_eq!(out.result["isError"], true, "{v}");
        assert!(
            text(&out.result).contains("dot-segment"),
            "{:#}",
            out.result
        );
    }
    let targets: Vec<String> = rec.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(
        targets,
        [
            "/api/items/..%2Fadmin",
            "/api/items/%252F..%252Fadmin",
            "/api/items/a%3Fb%3D1%23c",
            "/api/items/a%2Fb",
            "/api/items/...",
        ]
    );
}

#[tokio::test]
async fn two_hundred_concurrent_calls_within_the_bound() {
    let rec = Recorder::start(|_, _| Reply {
        delay: Duration::from_millis(20),
        ..Reply::json(200, r#"{"ok":1}"#)
    });
    let d = Arc::new(d());
    let b = Arc::new(gateway(
        &d,
        RestOptions {
            concurrency: Some(8),
            ..at(&rec.base())
        },
    ));
    let mut tasks = Vec::new();
    for i in 0..200 {
        let (b, d) = (b.clone(), d.clone());
        tasks.push(tokio::spawn(async move {
            call(&b, &d, "get", json!({"id": i.to_string()}), LATEST).await
        }));
    }
    let mut ok = 0;
    for t in tasks {
        let out = t.await.expect("no panic");
        if out.result.get("isError").is_none() {
            ok += 1;
        }
    }
    assert_eq!(ok, 200);
    assert_eq!(rec.requests().len(), 200);
    let max = rec.in_flight_max.load(std::sync::atomic::Ordering::SeqCst);
    assert!((1..=8).contains(&max), "in flight at once: {max}");
}

#[tokio::test]
async fn dropping_the_call_aborts_the_upstream_request() {
    let rec = Recorder::start(|_, _| Reply {
        delay: Duration::from_secs(10),
        ..Reply::json(200, "{}")
    });
    let d = d();
    let b = gateway(&d, at(&rec.base()));
    let r = tokio::time::timeout(
        Duration::from_millis(300),
        call(&b, &d, "slow", json!({"id": "1"}), LATEST),
    )
    .await;
    assert!(r.is_err(), "the call was cut off");
    // The recorder sees the connection close long before its reply is due.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while rec.aborted.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "upstream connection not closed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(rec.requests().len(), 1);
}

#[tokio::test]
async fn no_server_no_provenance_unknown_tool() {
    let d = doc(
        vec![
            plain("relative", "/items/{id}"),
            json!({"name": "captured", "inputSchema": {"type": "object"}}),
        ],
        json!({}),
    );
    // No base URL and no server: the tool errors, the gateway starts with a warning.
    let b = gateway(&d, RestOptions::default());
    assert!(
        b.warnings()
            .iter()
            .any(|w| w.code == "serve-tool-no-server"),
        "{:?}",
        b.warnings()
    );
    let out = call(&b, &d, "relative", json!({"id": "1"}), LATEST).await;
    // What the model reads names the missing setting, never a command-line flag.
    let t = text(&out.result);
    assert!(
        t.contains("no base URL is configured") && !t.contains("--"),
        "{t}"
    );
    let out = call(&b, &d, "captured", json!({}), LATEST).await;
    let t = text(&out.result);
    assert!(
        t.contains("a mock can answer it") && !t.contains("--"),
        "{t}"
    );
    // Malformed provenance refuses the description with a located diagnostic.
    let bad = doc(
        vec![tool(
            "t",
            json!({"type": "object"}),
            json!({"method": "FETCH", "path": "/"}),
        )],
        json!({}),
    );
    let e = RestBackend::new(&bad, RestOptions::default()).expect_err("refused");
    let mcpdesc_rest::Problem::Description(d) = &e.problems[0] else {
        panic!("a description problem: {e:?}");
    };
    assert_eq!(d.code, "provenance-invalid");
    assert_eq!(d.pointer, "/tools/0/x-mcpdesc-openapi/method");
    // A non-http server is never used.
    let ftp = doc(
        vec![tool(
            "t",
            json!({"type": "object"}),
            json!({"method": "GET", "path": "/", "servers": ["ftp://files.example/"]}),
        )],
        json!({}),
    );
    let b = gateway(&ftp, RestOptions::default());
    assert!(
        b.warnings()
            .iter()
            .any(|w| w.code == "serve-server-refused")
    );
    let out = call(&b, &ftp, "t", json!({}), LATEST).await;
    assert_eq!(out.result["isError"], true);
}
