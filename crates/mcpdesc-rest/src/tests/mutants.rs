//! Tests for mutants that survived the crate's tests (issue 33); each expectation is
//! written by hand from the rule quoted beside it.

/// README (`mcpdesc serve`): `--max-response-bytes` defaults to 16 MiB.
#[test]
fn the_default_response_budget_is_16_mib() {
    assert_eq!(crate::DEFAULT_MAX_RESPONSE_BYTES, 16_777_216);
}

/// Only a server URL of another scheme is refused at start ("not an http(s) URL; it is
/// never used"): a relative reference (RFC 3986 §4.2, no scheme) is no such URL, and
/// with a base URL configured the tool has its server, so nothing is said.
#[test]
fn a_relative_server_is_not_refused_as_another_scheme() {
    use super::{BASE, doc};
    use crate::{RestBackend, RestOptions};
    use serde_json::json;
    let d = doc(
        json!({"method": "GET", "path": "/x", "servers": ["/v1"]}),
        json!({}),
    );
    let opts = RestOptions {
        base_url: Some(BASE.into()),
        ..RestOptions::default()
    };
    let b = RestBackend::new(&d, opts).expect("starts");
    let codes: Vec<&str> = b.warnings().iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, Vec::<&str>::new());
}

/// The head of the one request a local server receives (answered `204 No Content`).
async fn one_request_head(
    send: impl std::future::Future<Output = Result<crate::HttpResponse, crate::SendError>>,
    listener: tokio::net::TcpListener,
) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let serve = async {
        let (mut s, _) = listener.accept().await.expect("a connection");
        let mut head = Vec::new();
        let mut chunk = [0u8; 1024];
        while !head.ends_with(b"\r\n\r\n") {
            let n = s.read(&mut chunk).await.expect("read");
            assert!(n > 0, "the request ended early");
            head.extend_from_slice(&chunk[..n]);
        }
        s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
            .await
            .expect("write");
        String::from_utf8_lossy(&head).to_ascii_lowercase()
    };
    let (sent, head) = tokio::join!(send, serve);
    assert_eq!(sent.expect("answered").status, 204);
    head
}

/// A caller's trace context that nothing here records (no tracer provider is installed
/// in these tests) is passed upstream as it is: W3C Trace Context §3.2's example
/// `traceparent` and its `tracestate` (§3.3's example entries), unchanged. Without a
/// context, neither header is sent.
#[tokio::test]
async fn a_callers_context_not_recorded_here_is_passed_upstream_as_it_is() {
    use crate::{HttpClient as _, ReadLimits, ReqwestClient};
    use opentelemetry::Context;
    use opentelemetry::context::FutureExt as _;
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    };
    use std::str::FromStr as _;
    let limits = ReadLimits {
        success: 1024,
        other: None,
    };
    let client = ReqwestClient::new(std::time::Duration::from_secs(30)).expect("a client");
    let caller = SpanContext::new(
        TraceId::from(0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736_u128),
        SpanId::from(0x00f0_67aa_0ba9_02b7_u64),
        TraceFlags::SAMPLED,
        true,
        TraceState::from_str("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7").expect("a tracestate"),
    );
    for under_caller in [true, false] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!(
            "http://127.0.0.1:{}/x",
            listener.local_addr().expect("addr").port()
        );
        let req = super::client::get(url);
        let cx = if under_caller {
            Context::new().with_remote_span_context(caller.clone())
        } else {
            Context::new()
        };
        let send = client.send(&req, None, limits).with_context(cx);
        let head = one_request_head(send, listener).await;
        let traceparent =
            "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n";
        let tracestate = "tracestate: congo=t61rcwkgmze,rojo=00f067aa0ba902b7\r\n";
        assert_eq!(head.contains(traceparent), under_caller, "{head}");
        assert_eq!(head.contains(tracestate), under_caller, "{head}");
        assert_eq!(head.contains("traceparent:"), under_caller, "{head}");
        assert_eq!(head.contains("tracestate:"), under_caller, "{head}");
    }
}

/// Under the server's recording [`crate::trace::TraceScope`] the upstream request is a
/// CLIENT span of the SERVER span's trace: its `traceparent` (W3C Trace Context §3.2:
/// version, trace id, parent id, flags) carries the SERVER span's trace id, the id the
/// recorder gave the CLIENT span and the sampled flag; its `tracestate` is the SERVER
/// span's. The recorder then gets that span: the SERVER span as its parent, the method,
/// the URL, host and port, and the response's status. An unsampled scope passes its own
/// context on (flags `00`) and records nothing.
#[tokio::test]
async fn a_recorded_scope_gets_a_client_span_that_the_traceparent_names() {
    use crate::trace::{ClientSpan, ClientSpans, TraceScope};
    use crate::{HttpClient as _, ReadLimits, ReqwestClient};
    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
    use std::str::FromStr as _;
    use std::sync::Mutex;
    struct Spans(Mutex<Vec<ClientSpan>>);
    impl ClientSpans for Spans {
        fn new_span_id(&self) -> SpanId {
            SpanId::from(0x1122_3344_5566_7788_u64)
        }
        fn record(&self, span: ClientSpan) {
            self.0.lock().expect("lock").push(span);
        }
    }
    let limits = ReadLimits {
        success: 1024,
        other: None,
    };
    let client = ReqwestClient::new(std::time::Duration::from_secs(30)).expect("a client");
    for sampled in [true, false] {
        let spans: &'static Spans = Box::leak(Box::new(Spans(Mutex::new(Vec::new()))));
        let server = SpanContext::new(
            TraceId::from(0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736_u128),
            SpanId::from(0x00f0_67aa_0ba9_02b7_u64),
            if sampled {
                TraceFlags::SAMPLED
            } else {
                TraceFlags::default()
            },
            false,
            TraceState::from_str("rojo=00f067aa0ba902b7").expect("a tracestate"),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let url = format!("http://127.0.0.1:{port}/x?q=1");
        let req = super::client::get(url.clone());
        let scope = TraceScope {
            context: server,
            spans: Some(spans),
        };
        assert!(format!("{scope:?}").contains("recorded: true"), "{scope:?}");
        let head = one_request_head(scope.run(client.send(&req, None, limits)), listener).await;
        let expected = if sampled {
            "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-1122334455667788-01\r\n"
        } else {
            "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00\r\n"
        };
        assert!(head.contains(expected), "{head}");
        assert!(
            head.contains("tracestate: rojo=00f067aa0ba902b7\r\n"),
            "{head}"
        );
        let recorded = spans.0.lock().expect("lock");
        if !sampled {
            assert!(recorded.is_empty(), "{recorded:?}");
            continue;
        }
        let [span] = recorded.as_slice() else {
            panic!("one CLIENT span, not {recorded:?}")
        };
        assert_eq!(span.parent_span_id, SpanId::from(0x00f0_67aa_0ba9_02b7_u64));
        assert_eq!(
            span.context.span_id(),
            SpanId::from(0x1122_3344_5566_7788_u64)
        );
        assert_eq!(
            span.context.trace_id(),
            TraceId::from(0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736_u128)
        );
        assert!(span.context.is_sampled());
        assert_eq!((span.method, span.url_full.as_str()), ("GET", url.as_str()));
        assert_eq!(
            (span.server_address.as_str(), span.server_port),
            ("127.0.0.1", port)
        );
        assert_eq!(span.status, Some(204));
        assert!(span.start <= span.end);
    }
}
