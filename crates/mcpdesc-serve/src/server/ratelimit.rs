//! `--rate-limit`: where the HTTP transport admits an MCP request (every `POST /mcp…`,
//! after the Host/Origin and auth checks, before the body is read). The limiter itself
//! (GCRA, in memory or in Redis) is [`mcpdesc_ratelimit`].
//!
//! Over the budget: `429 Too Many Requests` with `Retry-After` (whole seconds, rounded
//! up, at least 1) and a small JSON body; nothing of the request is read or run. The
//! shared store unreachable with `--rate-limit-on-store-error closed`: `503 Service
//! Unavailable` with `Retry-After: 1` (the caller did nothing wrong: it is not a 429).
//! Health endpoints and metadata never reach this.

use super::Server;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use mcpdesc_ratelimit::{Admission, Caller, Limiter, retry_after_secs};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;

/// The connection's peer address, put in each request's extensions by the accept loop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Peer(pub SocketAddr);

/// Whose budget `req` counts against: the authenticated caller (the token's `sub`, else
/// its `client_id`: [`auth::Caller::key`](super::auth::Caller::key)), put in the request's
/// extensions by the auth check that runs first; else the peer address (behind a proxy
/// that is the proxy's: put the limit on the proxy, or authenticate callers).
pub(crate) fn caller(req: &Request<Incoming>) -> Option<Caller> {
    if let Some(c) = req.extensions().get::<Arc<super::auth::Caller>>() {
        return Some(Caller::subject(&c.key()));
    }
    req.extensions()
        .get::<Peer>()
        .map(|p| Caller::peer(p.0.ip()))
}

/// `None` when `req` is admitted; else the answer that refuses it.
pub(crate) async fn admit(
    limiter: &Limiter,
    req: &Request<Incoming>,
    server: &Arc<Server>,
) -> Option<Response<Full<Bytes>>> {
    // A request without a peer is not one from the network (an in-process test): there
    // is nobody to count it against.
    let caller = caller(req)?;
    let checked = limiter.check(&caller).await;
    if let Some(line) = &checked.log {
        server.log().warn(line);
    }
    match checked.admission {
        Admission::Allowed => None,
        Admission::Limited { retry_after } => {
            server.opts.telemetry.record_rate_limited();
            let secs = retry_after_secs(retry_after);
            Some(refusal(
                StatusCode::TOO_MANY_REQUESTS,
                secs,
                json!({
                    "error": "rate_limited",
                    "message": format!(
                        "Too Many Requests: over the rate limit of {} (burst {}); retry after {secs} s",
                        limiter.config().rate,
                        limiter.config().burst()
                    ),
                    "retryAfterSeconds": secs,
                }),
            ))
        }
        Admission::StoreUnavailable => Some(refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            1,
            json!({
                "error": "rate_limit_unavailable",
                "message": "Service Unavailable: the rate limit's store cannot be reached; retry shortly",
                "retryAfterSeconds": 1,
            }),
        )),
    }
}

fn refusal(status: StatusCode, retry_after: u64, body: serde_json::Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body.to_string())));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(RETRY_AFTER, HeaderValue::from(retry_after));
    r
}
