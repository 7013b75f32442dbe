//! Security schemes applied to the wire (§7; RFC 7617 basic, RFC 6750 bearer, RFC 6749
//! §4.4 client credentials).

use super::recorder::{Recorder, Reply};
use super::*;
use mcpdesc_core::ProtocolRevision::V2026_07_28 as LATEST;
use mcpdesc_rest::Secret;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn schemes(token_url: &str) -> Value {
    json!({
        "key_header": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        "key_query": {"type": "apiKey", "in": "query", "name": "api_key"},
        "key_cookie": {"type": "apiKey", "in": "cookie", "name": "sid"},
        "basic": {"type": "http", "scheme": "basic"},
        "bearer": {"type": "http", "scheme": "bearer"},
        "oauth": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": {"pets:read": "r", "pets:write": "w"}}}},
        "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://id.example/.well-known/openid-configuration"}
    })
}

fn secured(name: &str, security: Value) -> Value {
    let mut t = tool(
        name,
        json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        json!({"method": "GET", "path": "/s", "arguments": {"q": {"in": "query", "name": "q"}}}),
    );
    t["security"] = security;
    t
}

fn creds(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, Secret> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Secret::new(*v)))
        .collect()
}

#[tokio::test]
async fn every_scheme_kind() {
    let rec = Recorder::always(Reply::json(200, "{}"));
    let d = doc(
        vec![
            secured("header_key", json!([{"key_header": []}])),
            secured("query_key", json!([{"key_query": []}])),
            secured("cookie_key", json!([{"key_cookie": []}])),
            secured("basic", json!([{"basic": []}])),
            secured("bearer", json!([{"bearer": []}])),
            secured("oidc", json!([{"oidc": ["openid"]}])),
            secured("oauth_token", json!([{"oauth": ["pets:read"]}])),
            secured("both", json!([{"key_header": [], "key_cookie": []}])),
        ],
        json!({"securitySchemes": schemes("https://auth.example/token")}),
    );
    let opts = RestOptions {
        credentials: creds(&[
            ("key_header", "h-secret"),
            ("key_query", "q s&cret"),
            ("key_cookie", "c-secret"),
            ("basic", "Aladdin:open sesame"),
            ("bearer", "b-secret"),
            ("oidc", "token:o-secret"),
        ]),
        ..at(&rec.base())
    };
    let b = gateway(&d, opts.clone());
    let mut logs = Vec::new();
    for t in [
        "header_key",
        "query_key",
        "cookie_key",
        "basic",
        "bearer",
        "oidc",
        "both",
    ] {
        let out = call(&b, &d, t, json!({"q": "x"}), LATEST).await;
        assert_eq!(out.result.get("isError"), None, "{t}: {:#}", out.result);
        logs.push(out.log);
    }
    let r = rec.requests();
    assert_eq!(r[0].header("X-API-Key"), Some("h-secret"));
    // The API key value is percent-encoded in the query, after the parameters.
    assert_eq!(r[1].target, "/s?q=x&api_key=q%20s%26cret");
    assert_eq!(r[2].header("Cookie"), Some("sid=c-secret"));
    // RFC 7617 §2 example.
    assert_eq!(
        r[3].header("Authorization"),
        Some("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    );
    assert_eq!(r[4].header("Authorization"), Some("Bearer b-secret"));
    assert_eq!(r[5].header("Authorization"), Some("Bearer o-secret"));
    assert_eq!(r[6].header("X-API-Key"), Some("h-secret"));
    assert_eq!(r[6].header("Cookie"), Some("sid=c-secret"));
    // Secrets never reach the log: the query key is redacted.
    assert_eq!(
        logs[1].upstream.as_ref().map(|u| u.url.as_str()),
        Some(format!("{}/s?q=x&api_key=REDACTED", rec.base()).as_str())
    );
    for l in &logs {
        let line = format!("{l} {l:?}");
        for s in [
            "h-secret", "q%20s", "c-secret", "QWxhZGRp", "b-secret", "o-secret",
        ] {
            assert!(!line.contains(s), "secret {s} in log {line}");
        }
    }
    // RestOptions' Debug redacts every credential.
    let dbg = format!("{opts:?}");
    assert!(!dbg.contains("secret") && !dbg.contains("sesame"), "{dbg}");
    // A missing credential is a tool error naming the scheme and how to supply it.
    let out = call(&b, &d, "oauth_token", json!({}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    let t = text(&out.result);
    assert!(
        t.contains("`oauth`") && t.contains("MCPDESC_CREDENTIAL_OAUTH"),
        "{t}"
    );
    assert_eq!(
        rec.requests().len(),
        7,
        "nothing sent for the unmet requirement"
    );
}

#[tokio::test]
async fn forwarded_authorization_and_hop_by_hop() {
    let rec = Recorder::always(Reply::json(200, "{}"));
    let d = doc(
        vec![secured("bearer", json!([{"bearer": []}]))],
        json!({"securitySchemes": schemes("https://auth.example/token")}),
    );
    let opts = RestOptions {
        static_headers: vec![("X-Static".into(), Secret::new("s"))],
        ..at(&rec.base())
    };
    let b = gateway(&d, opts);
    let fwd = vec![
        ("Authorization".to_string(), "Bearer per-user".to_string()),
        ("Connection".to_string(), "close".to_string()),
        ("Transfer-Encoding".to_string(), "chunked".to_string()),
        ("X-Request-Id".to_string(), "r1".to_string()),
    ];
    let out = call_with(&b, &d, "bearer", json!({}), LATEST, &fwd).await;
    assert_eq!(out.result.get("isError"), None, "{:#}", out.result);
    let r = rec.one();
    assert_eq!(r.header("Authorization"), Some("Bearer per-user"));
    assert_eq!(r.header("X-Request-Id"), Some("r1"));
    assert_eq!(r.header("X-Static"), Some("s"));
    assert!(r.header("Transfer-Encoding").is_none());
    assert_ne!(r.header("Connection"), Some("close"));
    // A forwarded value with CR/LF is a tool error.
    let bad = vec![("X-Request-Id".to_string(), "a\r\nX-Evil: 1".to_string())];
    let out = call_with(&b, &d, "bearer", json!({}), LATEST, &bad).await;
    assert_eq!(out.result["isError"], true);
    // `--header` values and names are checked at start.
    let e = RestBackend::new(
        &d,
        RestOptions {
            static_headers: vec![
                ("X-A".into(), Secret::new("a\nb")),
                ("Host".into(), Secret::new("h")),
            ],
            ..RestOptions::default()
        },
    )
    .expect_err("bad --header");
    assert_eq!(e.problems.len(), 2);
    assert!(e.problems.iter().all(|p| matches!(
        p,
        mcpdesc_rest::Problem::Option(o) if o.code() == "serve-header-invalid"
    )));
}

/// RFC 6749 §4.4: the token request, the cache until expiry, one refresh on 401.
#[tokio::test]
async fn oauth_client_credentials() {
    let issued = Arc::new(AtomicUsize::new(0));
    let tokens = {
        let issued = issued.clone();
        Recorder::start(move |_, _| {
            let n = issued.fetch_add(1, Ordering::SeqCst) + 1;
            // The second token expires at once (expires_in below the refresh margin).
            let expires = if n == 2 { 10 } else { 3600 };
            Reply::json(
                200,
                &format!(
                    r#"{{"access_token":"tok-{n}","token_type":"bearer","expires_in":{expires}}}"#
                ),
            )
        })
    };
    let api = Recorder::start(|r, _| {
        // tok-3 is "revoked": the API answers 401 once for it.
        if r.header("Authorization") == Some("Bearer tok-3") {
            Reply::json(401, r#"{"error":"revoked"}"#)
        } else {
            Reply::json(200, "{}")
        }
    });
    let token_url = format!("{}/oauth/token", tokens.base());
    let d = doc(
        vec![secured(
            "pets",
            json!([{"oauth": ["pets:read", "pets:write"]}]),
        )],
        json!({"securitySchemes": schemes(&token_url)}),
    );
    let b = gateway(
        &d,
        RestOptions {
            credentials: creds(&[("oauth", "s6BhdRkqt3:gX1fBat3bV")]),
            ..at(&api.base())
        },
    );
    // 1: fetches tok-1; 2: cached tok-1.
    for _ in 0..2 {
        let out = call(&b, &d, "pets", json!({}), LATEST).await;
        assert_eq!(out.result.get("isError"), None, "{:#}", out.result);
    }
    let t = tokens.requests();
    assert_eq!(t.len(), 1, "the token is cached");
    assert_eq!(t[0].method, "POST");
    assert_eq!(t[0].target, "/oauth/token");
    // RFC 6749 §2.3.1 example client credentials.
    assert_eq!(
        t[0].header("Authorization"),
        Some("Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW")
    );
    assert_eq!(
        t[0].header("Content-Type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        t[0].body_text(),
        "grant_type=client_credentials&scope=pets%3Aread+pets%3Awrite"
    );
    let a = api.requests();
    assert_eq!(a[0].header("Authorization"), Some("Bearer tok-1"));
    assert_eq!(a[1].header("Authorization"), Some("Bearer tok-1"));
    assert_eq!(a.len(), 2);
    drop(b);
    // A fresh gateway: tok-2 expires within the margin, so the next call fetches tok-3,
    // which the API rejects with 401: one refresh (tok-4) and one retry.
    let b = gateway(
        &d,
        RestOptions {
            credentials: creds(&[("oauth", "s6BhdRkqt3:gX1fBat3bV")]),
            ..at(&api.base())
        },
    );
    let out = call(&b, &d, "pets", json!({}), LATEST).await;
    assert_eq!(out.result.get("isError"), None);
    let out = call(&b, &d, "pets", json!({}), LATEST).await;
    assert_eq!(out.result.get("isError"), None, "{:#}", out.result);
    assert_eq!(out.log.upstream.as_ref().map(|u| u.attempts), Some(2));
    let a = api.requests();
    let auths: Vec<_> = a[2..]
        .iter()
        .map(|r| r.header("Authorization").unwrap_or(""))
        .collect();
    assert_eq!(auths, ["Bearer tok-2", "Bearer tok-3", "Bearer tok-4"]);
    assert_eq!(issued.load(Ordering::SeqCst), 4);
    // The token never appears in the log.
    assert!(!format!("{:?}", out.log).contains("tok-"));
}

#[tokio::test]
async fn oauth_token_endpoint_failure_is_a_tool_error() {
    let tokens = Recorder::always(Reply::json(400, r#"{"error":"invalid_client"}"#));
    let api = Recorder::always(Reply::json(200, "{}"));
    let d = doc(
        vec![secured("pets", json!([{"oauth": []}]))],
        json!({"securitySchemes": schemes(&format!("{}/t", tokens.base()))}),
    );
    let b = gateway(
        &d,
        RestOptions {
            credentials: creds(&[("oauth", "id:wrong")]),
            ..at(&api.base())
        },
    );
    let out = call(&b, &d, "pets", json!({}), LATEST).await;
    assert_eq!(out.result["isError"], true);
    let t = text(&out.result);
    assert!(
        t.contains("HTTP 400") && t.contains("invalid_client"),
        "{t}"
    );
    assert!(!t.contains("wrong"), "{t}");
    assert!(api.requests().is_empty());
}

/// An `http` scheme other than basic/bearer: `Authorization: <scheme> <credential>`.
#[tokio::test]
async fn other_http_schemes() {
    let rec = Recorder::always(Reply::json(200, "{}"));
    let d = doc(
        vec![secured("t", json!([{"tok": []}]))],
        json!({"securitySchemes": {"tok": {"type": "http", "scheme": "Token"}}}),
    );
    let b = gateway(
        &d,
        RestOptions {
            credentials: creds(&[("tok", "abc123")]),
            ..at(&rec.base())
        },
    );
    call(&b, &d, "t", json!({}), LATEST).await;
    assert_eq!(rec.one().header("Authorization"), Some("Token abc123"));
}

/// An OAuth 2.0 scheme without a clientCredentials flow (Azure's specs declare implicit
/// or authorization-code flows): the gateway cannot run the flow, so the credential is
/// the access token a user's own tool printed, sent as RFC 6750 bearer token as it is;
/// the `token:` prefix stays accepted. With a clientCredentials flow a bare value that
/// is not `client_id:client_secret` is still refused at start.
#[tokio::test]
async fn oauth_without_client_credentials_takes_the_token_itself() {
    let rec = Recorder::always(Reply::json(200, "{}"));
    let flows = json!({
        "implicit": {"type": "oauth2", "flows": {"implicit": {
            "authorizationUrl": "https://login.example/authorize", "scopes": {"user_impersonation": "u"}}}},
        "code": {"type": "oauth2", "flows": {"authorizationCode": {
            "authorizationUrl": "https://login.example/authorize", "tokenUrl": "https://login.example/token", "scopes": {}}}},
        "password": {"type": "oauth2", "flows": {"password": {
            "tokenUrl": "https://login.example/token", "scopes": {}}}},
    });
    let d = doc(
        vec![
            secured("implicit", json!([{"implicit": ["user_impersonation"]}])),
            secured("code", json!([{"code": []}])),
            secured("password", json!([{"password": []}])),
        ],
        json!({"securitySchemes": flows}),
    );
    let b = gateway(
        &d,
        RestOptions {
            credentials: creds(&[
                ("implicit", "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.e30.c2ln"),
                ("code", "token:prefixed-token"),
                ("password", "opaque:with-colon"),
            ]),
            ..at(&rec.base())
        },
    );
    for t in ["implicit", "code", "password"] {
        let out = call(&b, &d, t, json!({}), LATEST).await;
        assert_eq!(out.result.get("isError"), None, "{t}: {:#}", out.result);
    }
    let auths: Vec<String> = rec
        .requests()
        .iter()
        .map(|r| r.header("Authorization").unwrap_or("").to_string())
        .collect();
    assert_eq!(
        auths,
        [
            "Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.e30.c2ln",
            "Bearer prefixed-token",
            "Bearer opaque:with-colon",
        ]
    );

    // clientCredentials: `client_id:client_secret` or `token:…`, nothing else.
    let cc = doc(
        vec![secured("pets", json!([{"oauth": []}]))],
        json!({"securitySchemes": schemes("https://auth.example/token")}),
    );
    let refused = RestBackend::new(
        &cc,
        RestOptions {
            credentials: creds(&[("oauth", "bare-token")]),
            ..at(&rec.base())
        },
    );
    let Err(diags) = refused else {
        panic!("a bare value for a clientCredentials scheme is refused");
    };
    assert!(
        format!("{diags:?}").contains("serve-credential-invalid"),
        "{diags:?}"
    );
}
