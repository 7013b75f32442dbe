//! [`RestBackend::call`] over a scripted client: the requests it sends (OAuth 2.0
//! client-credentials token requests of RFC 6749 §4.4 included), how often, with which
//! read limits, and the tool errors when sending fails.

use super::*;
use crate::Secret;
use ProtocolRevision::V2026_07_28;

fn oauth_doc() -> Value {
    let mut d = doc(get("/x", json!({})), json!({}));
    d["securitySchemes"] = json!({"oauth": {"type": "oauth2", "flows": {"clientCredentials": {
        "tokenUrl": "https://auth.example/token", "scopes": {"read": "", "write": ""}}}}});
    d["security"] = json!([{"oauth": ["write", "read"]}]);
    d
}

fn oauth_opts() -> RestOptions {
    RestOptions {
        credentials: [("oauth".to_string(), Secret::new("s6BhdRkqt3:gX1fBat3bV"))].into(),
        ..RestOptions::default()
    }
}

fn token(t: &str, expires_in: Option<u64>) -> Result<HttpResponse, SendError> {
    let mut v = json!({"access_token": t, "token_type": "Bearer"});
    if let Some(e) = expires_in {
        v["expires_in"] = json!(e);
    }
    Ok(response(
        200,
        Some("application/json"),
        v.to_string().as_bytes(),
    ))
}

fn ok() -> Result<HttpResponse, SendError> {
    Ok(response(200, Some("text/plain"), b"done"))
}

/// (URL, bearer) of every request the client saw.
fn sent(c: &Scripted) -> Vec<(String, Option<String>)> {
    c.seen().into_iter().map(|(r, b, _)| (r.url, b)).collect()
}

#[tokio::test]
async fn a_client_credentials_token_is_fetched_cached_and_refreshed_once_on_401() {
    let d = oauth_doc();
    let c = Scripted::new(vec![
        token("T1", Some(3600)),
        Ok(response(401, None, b"")),
        token("T2", Some(3600)),
        ok(),
        // The second call: the cached token.
        ok(),
    ]);
    let b = backend_with(&d, oauth_opts(), Arc::clone(&c));
    let o = call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(o.result["content"][0]["text"], "done");
    assert_eq!(o.log.upstream.as_ref().map(|u| u.attempts), Some(2));
    let o = call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(o.log.upstream.as_ref().map(|u| u.attempts), Some(1));
    let api = format!("{BASE}/x");
    let tok = "https://auth.example/token".to_string();
    assert_eq!(
        sent(&c),
        [
            (tok.clone(), None),
            (api.clone(), Some("T1".into())),
            (tok, None),
            (api.clone(), Some("T2".into())),
            (api, Some("T2".into())),
        ]
    );
    // RFC 6749 §4.4.2 with the §2.3.1 example client: Basic auth, form body, the
    // requirement's scopes; read with the token endpoint's limit.
    let (req, _, limits) = c.seen()[0].clone();
    assert_eq!(req.method.as_str(), "POST");
    assert_eq!(
        req.headers,
        [
            (
                "Authorization".to_string(),
                "Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW".to_string()
            ),
            ("Accept".to_string(), "application/json".to_string())
        ]
    );
    let body = req.body.expect("a form body");
    assert_eq!(body.content_type, "application/x-www-form-urlencoded");
    assert_eq!(
        String::from_utf8(body.bytes).expect("text"),
        "grant_type=client_credentials&scope=write+read"
    );
    assert_eq!(
        limits,
        ReadLimits {
            success: 256 * 1024,
            other: None
        }
    );
}

#[tokio::test]
async fn a_token_close_to_expiry_is_fetched_again_and_one_without_expiry_is_kept() {
    let d = oauth_doc();
    // Expires within the 30 s margin: not reused.
    let c = Scripted::new(vec![
        token("T1", Some(10)),
        ok(),
        token("T2", None),
        ok(),
        ok(),
    ]);
    let b = backend_with(&d, oauth_opts(), Arc::clone(&c));
    for _ in 0..3 {
        call(&b, &d, V2026_07_28, json!({})).await;
    }
    let bearers: Vec<Option<String>> = sent(&c).into_iter().map(|(_, b)| b).collect();
    assert_eq!(
        bearers,
        [
            None,
            Some("T1".into()),
            None,
            Some("T2".into()),
            Some("T2".into())
        ]
    );
}

#[tokio::test]
async fn a_second_401_is_the_answer() {
    let d = oauth_doc();
    let unauthorized = || Ok(response(401, Some("text/plain"), b"no"));
    let c = Scripted::new(vec![
        token("T1", None),
        unauthorized(),
        token("T2", None),
        unauthorized(),
    ]);
    let b = backend_with(&d, oauth_opts(), Arc::clone(&c));
    let o = call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(
        o.result["content"][0]["text"],
        "The API answered HTTP 401 Unauthorized.\n\nno"
    );
    assert_eq!(o.log.upstream.as_ref().map(|u| u.attempts), Some(2));
    assert_eq!(c.seen().len(), 4);
    // Without OAuth, a 401 is answered at once.
    let d = doc(get("/x", json!({})), json!({}));
    let c = Scripted::new(vec![unauthorized()]);
    let b = backend_with(&d, RestOptions::default(), Arc::clone(&c));
    let o = call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(o.result["isError"], true);
    assert_eq!(o.log.upstream.as_ref().map(|u| u.attempts), Some(1));
}

#[tokio::test]
async fn token_endpoint_failures_are_tool_errors_naming_the_scheme() {
    let d = oauth_doc();
    for (answer, want) in [
        (
            Ok(response(
                400,
                Some("application/json"),
                br#"{"error":"invalid_client"}"#,
            )),
            "token request for scheme `oauth`: the token endpoint answered HTTP 400 (invalid_client)",
        ),
        (
            Ok(response(
                200,
                Some("application/json"),
                br#"{"token_type":"bearer"}"#,
            )),
            "token request for scheme `oauth`: the token endpoint's answer has no `access_token`",
        ),
        (
            Ok(response(
                200,
                Some("application/json"),
                br#"{"access_token":"a b","token_type":"bearer"}"#,
            )),
            "token request for scheme `oauth`: the token endpoint's `access_token` has characters a header cannot carry",
        ),
        (
            Ok(response(
                200,
                Some("application/json"),
                br#"{"access_token":"t"}"#,
            )),
            "token request for scheme `oauth`: the token endpoint's answer has no `token_type`",
        ),
        (
            Err(SendError("could not connect".into())),
            "token request for scheme `oauth` failed: could not connect",
        ),
    ] {
        let c = Scripted::new(vec![answer]);
        let b = backend_with(&d, oauth_opts(), Arc::clone(&c));
        let o = call(&b, &d, V2026_07_28, json!({})).await;
        assert_eq!(o.result["content"][0]["text"], want);
        assert_eq!(o.result["isError"], true);
        assert_eq!(o.log.error.as_deref(), Some(want));
        // Nothing reached the API.
        assert_eq!(c.seen().len(), 1);
        assert_eq!(
            o.log.upstream.as_ref().map(|u| (u.status, u.attempts)),
            Some((None, 0))
        );
    }
    // Every visible ASCII character can be in a token (RFC 6750 b64token and more):
    // `!` and `~` are sent as they came.
    let c = Scripted::new(vec![token("!a~", None), ok()]);
    let b = backend_with(&d, oauth_opts(), Arc::clone(&c));
    call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(c.seen()[1].1.as_deref(), Some("!a~"));
    // `expires_in` as a string is read too (some servers send one).
    let c = Scripted::new(vec![
        Ok(response(
            200,
            Some("application/json"),
            br#"{"access_token":"T","token_type":"bearer","expires_in":"3600"}"#,
        )),
        ok(),
        ok(),
    ]);
    let b = backend_with(&d, oauth_opts(), Arc::clone(&c));
    call(&b, &d, V2026_07_28, json!({})).await;
    call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(c.seen().len(), 3, "the token was cached");
}

#[tokio::test]
async fn a_failed_exchange_is_a_tool_error_and_limits_follow_the_options() {
    let d = doc(get("/x", json!({})), json!({}));
    let c = Scripted::new(vec![Err(SendError("the API at x did not answer".into()))]);
    let opts = RestOptions {
        max_response_bytes: 1000,
        concurrency: Some(0),
        ..RestOptions::default()
    };
    let b = backend_with(&d, opts, Arc::clone(&c));
    let o = call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(
        o.result,
        json!({"content": [{"type": "text", "text": "the API at x did not answer"}], "isError": true, "resultType": "complete"})
    );
    assert_eq!(o.log.error.as_deref(), Some("the API at x did not answer"));
    assert_eq!(
        o.log
            .upstream
            .as_ref()
            .map(|u| (u.status, u.attempts, u.url.clone())),
        Some((None, 1, format!("{BASE}/x")))
    );
    assert_eq!(
        c.seen()[0].2,
        ReadLimits {
            success: 1000,
            other: Some(1000)
        }
    );
    // The default: error bodies are read up to 256 KiB.
    let c = Scripted::new(vec![ok()]);
    let b = backend_with(&d, RestOptions::default(), Arc::clone(&c));
    call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(
        c.seen()[0].2,
        ReadLimits {
            success: crate::DEFAULT_MAX_RESPONSE_BYTES,
            other: Some(256 * 1024)
        }
    );
    // A call that cannot be built sends nothing.
    let d = doc(
        get("/x/{id}", json!({"id": {"in": "path"}})),
        json!({"id": {}}),
    );
    let c = Scripted::new(vec![]);
    let b = backend_with(&d, RestOptions::default(), Arc::clone(&c));
    let o = call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(
        o.log.error.as_deref(),
        Some("argument `id` is required: it is path parameter `id`")
    );
    assert!(o.log.is_error && o.log.upstream.is_none() && c.seen().is_empty());
    assert_eq!(o.result["isError"], true);
}

#[tokio::test]
async fn only_declared_servers_base_url_and_allowed_hosts_are_reached() {
    // A server URL that is not http(s) is never used, and says so at start.
    let d = doc(
        json!({"method": "GET", "path": "/x", "servers": ["ftp://files.example/pub"]}),
        json!({}),
    );
    let b = RestBackend::new(&d, RestOptions::default()).expect("starts");
    let w: Vec<(&str, &str, &str)> = b
        .warnings()
        .iter()
        .map(|w| (w.code.as_str(), w.pointer.as_str(), w.message.as_str()))
        .collect();
    assert_eq!(
        w,
        [
            (
                "serve-server-refused",
                "/tools/0",
                "server `ftp://files.example/pub` is not an http(s) URL; it is never used"
            ),
            (
                "serve-tool-no-server",
                "/tools/0/x-mcpdesc-openapi",
                "tool `t`: no usable server (`ftp://files.example/pub`: not an absolute http(s) URL), and no base URL is configured"
            )
        ]
    );
    // --base-url's origin is allowed.
    let c = Scripted::new(vec![ok()]);
    let opts = RestOptions {
        base_url: Some("http://localhost:7/api".into()),
        ..RestOptions::default()
    };
    let b = backend_with(&d, opts, Arc::clone(&c));
    let o = call(&b, &d, V2026_07_28, json!({})).await;
    assert_eq!(o.result["content"][0]["text"], "done");
    assert_eq!(sent(&c), [("http://localhost:7/api/x".to_string(), None)]);
}
