//! Tests of the Streamable HTTP front's helpers for mutants that survived the crate's
//! unit tests (issue 33); expectations written by hand.

use super::*;
use crate::{MockBackend, MockOptions, ServeOptions};
use serde_json::json;

/// A request's header fields as `(name, value)` pairs, names as hyper lower-cases them
/// (RFC 9110 §5.1: field names are case-insensitive), a repeated field once per line;
/// a value that is not visible ASCII text is left out.
#[test]
fn header_pairs_are_every_field_line_with_a_text_value() {
    let mut h = hyper::HeaderMap::new();
    h.insert("Host", HeaderValue::from_static("127.0.0.1:8080"));
    h.append("Accept", HeaderValue::from_static("application/json"));
    h.append("Accept", HeaderValue::from_static("text/event-stream"));
    h.insert(
        "X-Opaque",
        HeaderValue::from_bytes(b"caf\xe9").expect("obs-text is a valid field value"),
    );
    let mut got = header_pairs(&h);
    got.sort();
    let want = [
        ("accept", "application/json"),
        ("accept", "text/event-stream"),
        ("host", "127.0.0.1:8080"),
    ]
    .map(|(n, v)| (n.to_string(), v.to_string()));
    assert_eq!(got, want);
}

fn state() -> State {
    let d = json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "tools": [{"name": "a", "inputSchema": {"type": "object"}}]});
    let valid = mcpdesc_validate::Validator::new()
        .check_owned(d.clone())
        .expect("valid");
    let backend = Arc::new(MockBackend::new(&d, MockOptions::default()).expect("mock"));
    let server = Arc::new(Server::new(&valid, backend, &ServeOptions::default()).expect("server"));
    State {
        auth: None,
        routes: RwLock::new(Arc::new(Routes::new(server))),
        loopback: true,
        gate_authorization: false,
        opts: HttpOptions::default(),
        sessions: Mutex::new(HashMap::new()),
        revoked: Mutex::new(HashMap::new()),
        pending: Arc::new(Semaphore::new(MAX_PENDING_CALLS)),
        lifecycle: Arc::new(Lifecycle::default()),
    }
}

/// A `DELETE`d sealed session stays refused until its expiry; up to `4 × MAX_SESSIONS`
/// (16,384) unexpired revocations are remembered, so well past one session cap's worth.
#[test]
fn revocations_past_the_session_cap_are_remembered() {
    let s = state();
    let created = session_seal::unix_now();
    let n = MAX_SESSIONS + 1;
    for i in 0..n {
        s.revoke(&format!("s{i}"), created);
    }
    let r = s.revoked.lock().expect("lock");
    assert_eq!(r.len(), n);
    assert!(r.contains_key("s0") && r.contains_key(&format!("s{}", n - 1)));
    assert_eq!(
        r.get("s0"),
        Some(&(created + session_seal::SESSION_MAX_AGE.as_secs()))
    );
}
