//! [`ReqwestClient`] against a local HTTP/1.1 server written here: what goes on the
//! wire, read limits, the same-origin redirect rule, and how failures are worded.

use crate::{Body, ReqwestClient};
use crate::{HttpClient, HttpRequest, ReadLimits};
use mcpdesc_core::provenance::Method;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves each connection with `answer(request_head_and_body)`, recording requests.
async fn server(
    answer: impl Fn(&str, u16) -> Option<String> + Send + Sync + 'static,
) -> (u16, Arc<Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = l.local_addr().expect("addr").port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            let log = Arc::clone(&log);
            let answer = Arc::clone(&answer);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let n = s.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).to_string();
                    let Some(end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let len = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length: ")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if buf.len() < end + 4 + len {
                        continue;
                    }
                    log.lock().expect("lock").push(text.clone());
                    match answer(&text, port) {
                        Some(r) => {
                            let _ = s.write_all(r.as_bytes()).await;
                            let _ = s.shutdown().await;
                        }
                        // Never answer.
                        None => tokio::time::sleep(Duration::from_secs(30)).await,
                    }
                    return;
                }
            });
        }
    });
    (port, seen)
}

fn reply(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// A bare GET of `url`: no headers, body or credentials.
pub(super) fn get(url: String) -> HttpRequest {
    HttpRequest {
        method: Method::Get,
        log_url: url.clone(),
        url,
        headers: Vec::new(),
        body: None,
        oauth: Vec::new(),
        exchange: Vec::new(),
    }
}

const LIMITS: ReadLimits = ReadLimits {
    success: 1024,
    other: Some(1024),
};

fn client(timeout: Duration) -> ReqwestClient {
    ReqwestClient::new(timeout).expect("a client")
}

#[tokio::test]
async fn the_request_goes_out_as_built_and_the_response_comes_back_as_read() {
    let (port, seen) =
        server(|_, _| Some(reply("200 OK", "content-type: text/plain\r\n", "hello"))).await;
    let req = HttpRequest {
        method: Method::Post,
        url: format!("http://127.0.0.1:{port}/p?q=1"),
        log_url: String::new(),
        headers: vec![("X-A".into(), "1".into())],
        body: Some(Body {
            content_type: "application/json".into(),
            bytes: b"{\"a\":1}".to_vec(),
        }),
        oauth: Vec::new(),
        exchange: Vec::new(),
    };
    let c = client(Duration::from_secs(10));
    let r = c.send(&req, Some("tok"), LIMITS).await.expect("answered");
    assert_eq!(
        (
            r.status,
            r.reason.as_deref(),
            r.content_type.as_deref(),
            r.body.as_slice(),
            r.truncated
        ),
        (
            200,
            Some("OK"),
            Some("text/plain"),
            b"hello".as_slice(),
            false
        )
    );
    let got = seen.lock().expect("lock")[0].to_ascii_lowercase();
    assert!(got.starts_with("post /p?q=1 http/1.1\r\n"), "{got}");
    for line in [
        "x-a: 1\r\n",
        "authorization: bearer tok\r\n",
        "content-type: application/json\r\n",
        "user-agent: mcpdesc-serve/",
    ] {
        assert!(got.contains(line), "{line} in {got}");
    }
    assert!(got.ends_with("\r\n\r\n{\"a\":1}"), "{got}");
    assert!(!got.contains("referer"), "{got}");
}

#[tokio::test]
async fn bodies_past_the_limit_fail_on_success_and_are_cut_otherwise() {
    let (port, _) = server(|head, _| {
        let status = if head.starts_with("GET /ok") {
            "200 OK"
        } else {
            "500 Internal Server Error"
        };
        Some(reply(status, "", "0123456789"))
    })
    .await;
    let c = client(Duration::from_secs(10));
    let limits = ReadLimits {
        success: 4,
        other: Some(3),
    };
    let e = c
        .send(&get(format!("http://127.0.0.1:{port}/ok")), None, limits)
        .await
        .expect_err("too large");
    assert_eq!(
        e.0,
        "the API's response is larger than 4 bytes (the gateway's response size limit)"
    );
    let r = c
        .send(&get(format!("http://127.0.0.1:{port}/err")), None, limits)
        .await
        .expect("cut");
    assert_eq!(
        (r.status, r.body.as_slice(), r.truncated),
        (500, b"012".as_slice(), true)
    );
    // Exactly at the limit: whole, not cut.
    let exact = ReadLimits {
        success: 10,
        other: Some(10),
    };
    let r = c
        .send(&get(format!("http://127.0.0.1:{port}/err")), None, exact)
        .await
        .expect("whole");
    assert_eq!((r.body.len(), r.truncated), (10, false));
    // No limit for other statuses: the success limit applies to every status.
    let strict = ReadLimits {
        success: 4,
        other: None,
    };
    assert!(
        c.send(&get(format!("http://127.0.0.1:{port}/err")), None, strict)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn redirects_are_followed_on_the_same_origin_only_and_at_most_five_times() {
    let (port, seen) = server(|head, port| {
        let path = head.split(' ').nth(1).unwrap_or("/");
        Some(match path {
            "/away" => reply(
                "302 Found",
                &format!("location: http://localhost:{port}/x\r\n"),
                "",
            ),
            "/loop" => reply("302 Found", "location: /loop\r\n", ""),
            p if p.starts_with("/hop") => {
                let n: usize = p[4..].parse().unwrap_or(0);
                if n == 0 {
                    reply("200 OK", "", "arrived")
                } else {
                    reply("302 Found", &format!("location: /hop{}\r\n", n - 1), "")
                }
            }
            _ => reply("404 Not Found", "", ""),
        })
    })
    .await;
    let c = client(Duration::from_secs(10));
    let at = |p: &str| get(format!("http://127.0.0.1:{port}{p}"));
    let r = c.send(&at("/hop5"), None, LIMITS).await.expect("5 hops");
    assert_eq!(r.body, b"arrived");
    let e = c
        .send(&at("/hop6"), None, LIMITS)
        .await
        .expect_err("6 hops");
    assert_eq!(e.0, "the API redirected more than 5 times");
    let e = c
        .send(&at("/away"), None, LIMITS)
        .await
        .expect_err("another origin");
    assert_eq!(
        e.0,
        format!(
            "the API redirected from http://127.0.0.1:{port} to http://localhost:{port}; only same-origin redirects are followed"
        )
    );
    assert!(
        seen.lock()
            .expect("lock")
            .iter()
            .all(|r| !r.to_ascii_lowercase().contains("host: localhost")),
        "nothing was sent to the other origin"
    );
}

#[tokio::test]
async fn transport_failures_say_what_happened_without_the_url() {
    // A port nothing listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let c = client(Duration::from_secs(10));
    let e = c
        .send(
            &get(format!("http://127.0.0.1:{port}/x?key=secret")),
            None,
            LIMITS,
        )
        .await
        .expect_err("refused");
    assert!(
        e.0.starts_with(&format!("could not connect to http://127.0.0.1:{port}: ")),
        "{}",
        e.0
    );
    assert!(!e.0.contains("secret"), "{}", e.0);
    // A server that never answers.
    let (port, _) = server(|_, _| None).await;
    let c = client(Duration::from_millis(300));
    let e = c
        .send(
            &get(format!("http://127.0.0.1:{port}/x?key=secret")),
            None,
            LIMITS,
        )
        .await
        .expect_err("timeout");
    assert_eq!(
        e.0,
        format!(
            "the API at http://127.0.0.1:{port} did not answer within 0.3 s (the gateway's request timeout)"
        )
    );
    // Not an http(s) URL.
    let e = c
        .send(&get("ftp://a.example/x".into()), None, LIMITS)
        .await
        .expect_err("ftp");
    assert_eq!(e.0, "`ftp://a.example/x` is not an http(s) URL");
    assert_eq!(format!("{c:?}"), "ReqwestClient { timeout: 300ms, .. }");
}
