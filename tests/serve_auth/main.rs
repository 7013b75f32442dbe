//! `mcpdesc serve --http --auth-issuer` against a real authorization server (issue 28):
//! node-oidc-provider (a certified OpenID provider, `tests/fixtures/auth/issuer.mjs`)
//! issues client-credentials tokens, RFC 8707/9068 JWTs for a resource and opaque
//! tokens for introspection; a recording upstream (std only) shows what reaches the API.
//!
//! Oracles the gateway did not produce: the provider's tokens and metadata, tokens
//! minted here by hand (the provider signs with the test key rsa1 of
//! crates/mcpdesc-auth/testdata, so a hostile token can carry a valid signature under
//! the real kid), RFC 9728/6750 texts written out by hand (here and in `support`), and
//! the recorder's wire bytes. The set-up (issuer, server, tokens, descriptions) is in
//! `support`, so each test reads as what it checks.

#[path = "../serve_rest/recorder.rs"]
#[allow(dead_code)]
mod recorder;
mod support;

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpdesc_tests::{deps_dir, workspace_root};
use recorder::Recorder;
use serde_json::{Value, json};
use std::process::Command;
use std::time::Instant;
use support::*;

#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn resource_server_against_a_real_issuer() {
    let notes = Notes::start();
    let issuer = &notes.issuer;
    let up = notes_upstream();
    let serve = notes.serve(
        &up,
        &["--auth-client-credential", "GW_CRED"],
        &[("GW_CRED", "gateway:gateway-secret")],
    );
    let resource = serve.resource();
    let toolset = format!("{}/mcp/x/notes", serve.base);
    let meta_url = serve.meta_url();

    // RFC 9728 metadata, at the path-suffixed URL and (for /mcp) the root one.
    for path in ["/mcp", ""] {
        let m = serve.metadata(path);
        assert_eq!(
            m,
            json!({
                "resource": resource,
                "authorization_servers": [issuer.url],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"],
                "resource_name": m["resource_name"],
            }),
            "{path}"
        );
    }
    assert_eq!(serve.metadata("/mcp/x/notes")["resource"], json!(toolset));
    let r = http(
        &serve.base,
        "GET",
        "/.well-known/oauth-protected-resource/mcp/x/nope",
        &[],
        b"",
    );
    assert_eq!(r.status, 404);

    // No token: 401 pointing at the metadata, no error code.
    let r = serve.rpc("/mcp", None, "tools/list", json!({}));
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{meta_url}\"").as_str())
    );

    // Hostile tokens: each 401 invalid_token.
    let good = json!({"iss": issuer.url, "aud": resource, "sub": "mallory", "client_id": "writer",
        "scope": "notes:read notes:write", "exp": now() + 300, "iat": now()});
    let with = |k: &str, v: Value| {
        let mut c = good.clone();
        c[k] = v;
        c
    };
    let payload = b64(good.to_string().as_bytes());
    let hs256 = {
        let mut h = Header::new(Algorithm::HS256);
        h.kid = Some("rsa1".into());
        h.typ = Some("at+jwt".into());
        let pem = std::fs::read(workspace_root().join("crates/mcpdesc-auth/testdata/rsa1.pub.pem"))
            .expect("pem");
        jsonwebtoken::encode(&h, &good, &EncodingKey::from_secret(&pem)).expect("hs")
    };
    let other_resource = issuer.token(
        "writer",
        "notes:read notes:write",
        Some("http://127.0.0.1:9/other-api"),
    );
    let hostile: Vec<(&str, String)> = vec![
        (
            "forged signature under a known kid",
            sign(RSA2, "rsa1", &good),
        ),
        (
            "alg none",
            format!(
                "{}.{payload}.",
                b64(br#"{"alg":"none","typ":"at+jwt","kid":"rsa1"}"#)
            ),
        ),
        ("HS256 with the public key as secret", hs256),
        (
            "another audience",
            sign(RSA1, "rsa1", &with("aud", json!("http://127.0.0.1:9/mcp"))),
        ),
        (
            "another issuer",
            sign(RSA1, "rsa1", &with("iss", json!("http://127.0.0.1:9"))),
        ),
        (
            "expired",
            sign(RSA1, "rsa1", &with("exp", json!(now() - 120))),
        ),
        (
            "not yet valid",
            sign(RSA1, "rsa1", &with("nbf", json!(now() + 600))),
        ),
        ("malformed", "eyJhbGciOiJSUzI1NiJ9.!!!.xyz".into()),
        (
            "garbage opaque token",
            "d2hhdGV2ZXI-not-a-token-of-this-issuer".into(),
        ),
        (
            "a token for another resource of the same issuer",
            other_resource,
        ),
    ];
    for (what, token) in &hostile {
        let r = serve.rpc("/mcp", Some(token), "tools/list", json!({}));
        assert_eq!(r.status, 401, "{what}: {}", r.text());
        let ch = r.header("www-authenticate").unwrap_or("");
        assert!(
            ch.starts_with("Bearer error=\"invalid_token\"")
                && ch.contains(&format!("resource_metadata=\"{meta_url}\"")),
            "{what}: {ch}"
        );
        assert!(!ch.contains(token.as_str()) && !r.text().contains(token.as_str()));
    }

    // Per-tool scopes: the reader lacks create_note in its list, and calling it is a
    // 403 step-up challenge with nothing sent upstream.
    let reader = issuer.reader(&resource);
    let r = serve.rpc("/mcp", Some(&reader), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(tool_names(&r), ["list_notes"]);
    assert_eq!(r.json()["result"]["cacheScope"], "private");
    let r = serve.call(&reader, "create_note", json!({"text": "hi"}));
    assert_step_up(&r, "notes:write", &meta_url);
    assert!(
        up.requests().is_empty(),
        "the upstream got {:?}",
        up.requests()
    );
    let r = serve.call(&reader, "list_notes", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["result"]["structuredContent"],
        json!({"notes": []}),
        "{}",
        r.text()
    );
    assert_eq!(up.requests().len(), 1);

    // The writer lists and calls the write tool.
    let writer = issuer.writer(&resource);
    assert_eq!(serve.tools(&writer), ["list_notes", "create_note"]);
    let r = serve.call(&writer, "create_note", json!({"text": "hi"}));
    assert_eq!(r.status, 200, "{}", r.text());
    let reqs = up.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].method, "POST");

    // A toolset path is its own resource: the /mcp token is not for it.
    let r = serve.rpc("/mcp/x/notes", Some(&writer), "tools/list", json!({}));
    assert_eq!(r.status, 401);
    let for_toolset = issuer.token("writer", "notes:read notes:write", Some(&toolset));
    let r = serve.rpc("/mcp/x/notes", Some(&for_toolset), "tools/list", json!({}));
    assert_eq!(tool_names(&r), ["list_notes", "create_note"]);

    // Opaque tokens are introspected with the gateway's own credential.
    let opaque = issuer.token("reader", "notes:read", None);
    assert_eq!(opaque.matches('.').count(), 0, "opaque: {opaque}");
    assert_eq!(serve.tools(&opaque), ["list_notes"]);

    // Key rotation: a key published after start signs an accepted token.
    let rotated = sign(RSA2, "rsa2", &good);
    let r = http(&issuer.url, "POST", "/test/rotate", &[], b"");
    assert_eq!(r.status, 204);
    let r = serve.rpc("/mcp", Some(&rotated), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());

    // No passthrough: the upstream saw the gateway's own credential only, and no
    // inbound token is in its requests or in the server's log.
    let mut inbound: Vec<&str> = vec![&reader, &writer, &for_toolset, &opaque, &rotated];
    inbound.extend(hostile.iter().map(|(_, t)| t.as_str()));
    let log = serve.log();
    for req in up.requests() {
        assert_eq!(
            req.header("authorization"),
            Some(format!("Bearer {UPSTREAM_CREDENTIAL}").as_str())
        );
        let wire = format!("{} {:?} {}", req.target, req.headers, req.body_text());
        for t in &inbound {
            assert!(!wire.contains(t), "an inbound token reached the upstream");
        }
    }
    for t in &inbound {
        assert!(!log.contains(t), "an inbound token is in the log");
    }
    assert!(log.contains("auth: refused a token"), "{log}");

    // The official TypeScript client v2 finds its way alone, over /mcp and a toolset
    // path (it asks for the metadata's `scopes_supported`: the writer's).
    for url in [&resource, &toolset] {
        let o = Command::new("node")
            .arg(workspace_root().join("tests/fixtures/auth/ts_client.cjs"))
            .arg(deps_dir().join("node/node_modules"))
            .args([
                url.as_str(),
                "writer",
                "writer-secret",
                "notes:read notes:write",
                &issuer.url,
            ])
            .arg("list_notes")
            .output()
            .expect("node");
        assert!(
            o.status.success(),
            "{url}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out: Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(out["tools"], json!(["list_notes", "create_note"]), "{url}");
        assert_eq!(
            out["result"]["structuredContent"],
            json!({"notes": []}),
            "{url}"
        );
        assert_eq!(out["version"], "2026-07-28", "{url}");
    }
    // Python SDK with a bearer token.
    let py = deps_dir().join("venv/bin/python");
    if py.exists() {
        let o = Command::new(&py)
            .arg(workspace_root().join("tests/fixtures/auth/py_client.py"))
            .args([resource.as_str(), writer.as_str()])
            .output()
            .expect("python");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out: Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(out["tools"], json!(["list_notes", "create_note"]));
        assert_eq!(out["isError"], json!(false));
    }
    let up_now = up.requests();
    for req in &up_now {
        assert_eq!(
            req.header("authorization"),
            Some(format!("Bearer {UPSTREAM_CREDENTIAL}").as_str())
        );
    }
    let log = serve.log();
    for t in [&reader, &writer] {
        assert!(!log.contains(t.as_str()));
    }
}

/// The authenticated caller is whom the rate limit counts and the JSON log names (issue
/// 29 with 28): two callers behind one peer address hold a budget each, and a call's
/// log line carries the caller's key — the token's `sub`, read here from the token the
/// issuer minted — and never the token.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn the_rate_limit_and_the_log_follow_the_authenticated_caller() {
    let notes = Notes::start();
    let up = notes_upstream();
    let serve = notes.serve(&up, &["--rate-limit", "2/min", "--log-format", "json"], &[]);
    let resource = serve.resource();
    let reader = notes.issuer.reader(&resource);
    let writer = notes.issuer.writer(&resource);
    let call = |token: &str| serve.call(token, "list_notes", json!({}));
    assert_eq!(call(&reader).status, 200);
    assert_eq!(call(&reader).status, 200);
    let limited = call(&reader);
    assert_eq!(limited.status, 429, "{}", limited.text());
    assert!(limited.header("retry-after").is_some());
    // Same peer address, another subject: a budget of its own.
    assert_eq!(call(&writer).status, 200, "the writer's own budget");

    let sub = |token: &str| -> String {
        let payload = token.split('.').nth(1).expect("a JWT");
        let claims: Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(payload)
                .expect("base64url"),
        )
        .expect("claims");
        claims["sub"].as_str().expect("sub").to_string()
    };
    let (reader_sub, writer_sub) = (sub(&reader), sub(&writer));
    assert_ne!(reader_sub, writer_sub);
    let until = Instant::now() + TIMEOUT;
    let calls = loop {
        let calls: Vec<Value> = serve
            .log()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["method"] == "tools/call")
            .collect();
        if calls.len() >= 3 || Instant::now() > until {
            break calls;
        }
        std::thread::yield_now();
    };
    let callers: Vec<&str> = calls.iter().filter_map(|v| v["caller"].as_str()).collect();
    assert_eq!(
        callers,
        [
            reader_sub.as_str(),
            reader_sub.as_str(),
            writer_sub.as_str()
        ],
        "{calls:?}"
    );
    let log = serve.log();
    assert!(
        !log.contains(&reader) && !log.contains(&writer),
        "a token in the log"
    );
}

/// The search facade and code mode follow the caller's scopes as `tools/list` does: a
/// read-scoped caller's search_tools, describe_tools and search_api never answer the
/// write tool (nor its schema), and its script's `api` call of it fails naming the
/// missing scope with nothing sent upstream; a write-scoped caller's succeeds.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn search_facade_and_code_mode_follow_the_callers_scopes() {
    let notes = Notes::start();
    let start = |up: &Recorder, discovery: &str| notes.serve(up, &["--discovery", discovery], &[]);
    let call = |serve: &Serve, token: &str, name: &str, args: Value| {
        let r = serve.call(token, name, args);
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        r
    };
    let names = found_tools;

    // --discovery search.
    let up = notes_upstream();
    let serve = start(&up, "search");
    // Ready: the issuer's metadata and JWKS were fetched (the `auth-issuer` gate).
    let r = http(&serve.base, "GET", "/readyz", &[], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    let reader = notes.issuer.reader(&serve.resource());
    let writer = notes.issuer.writer(&serve.resource());
    // The write tool ranks first for this query; the reader still gets `limit` hits,
    // of the tools it may call.
    let q = json!({"query": "create notes", "limit": 1});
    let r = call(&serve, &writer, "search_tools", q.clone());
    assert_eq!(names(&r), ["create_note"], "{}", r.text());
    let r = call(&serve, &reader, "search_tools", q);
    assert_eq!(names(&r), ["list_notes"], "{}", r.text());
    assert!(!r.text().contains("create_note"), "{}", r.text());
    let r = call(
        &serve,
        &reader,
        "search_tools",
        json!({"query": "create notes", "limit": 10}),
    );
    assert_eq!(names(&r), ["list_notes"], "{}", r.text());
    // describe_tools: the write tool is unknown to the reader, its schema never shown,
    // and a near miss does not suggest it.
    let r = call(
        &serve,
        &reader,
        "describe_tools",
        json!({"names": ["list_notes", "create_note"]}),
    );
    assert!(is_tool_error(&r), "{}", r.text());
    assert!(!r.text().contains("inputSchema"), "{}", r.text());
    let r = call(
        &serve,
        &reader,
        "describe_tools",
        json!({"names": ["creat_note"]}),
    );
    assert!(
        is_tool_error(&r) && !r.text().contains("create_note"),
        "{}",
        r.text()
    );
    let r = call(
        &serve,
        &writer,
        "describe_tools",
        json!({"names": ["creat_note"]}),
    );
    assert!(r.text().contains("create_note"), "{}", r.text());
    let r = call(
        &serve,
        &reader,
        "describe_tools",
        json!({"names": ["list_notes"]}),
    );
    assert_eq!(names(&r), ["list_notes"], "{}", r.text());
    let r = call(
        &serve,
        &writer,
        "describe_tools",
        json!({"names": ["create_note"]}),
    );
    assert_eq!(names(&r), ["create_note"], "{}", r.text());
    assert!(r.text().contains("inputSchema"), "{}", r.text());
    assert!(up.requests().is_empty());
    drop(serve);

    // --discovery code.
    let up = notes_upstream();
    let serve = start(&up, "code");
    let reader = notes.issuer.reader(&serve.resource());
    let writer = notes.issuer.writer(&serve.resource());
    for q in ["create notes", ""] {
        let r = call(&serve, &reader, "search_api", json!({"query": q}));
        assert_eq!(names(&r), ["list_notes"], "{}", r.text());
        let t = r.text().to_lowercase();
        assert!(
            !t.contains("create_note") && !t.contains("createnote"),
            "{t}"
        );
        let r = call(&serve, &writer, "search_api", json!({"query": q}));
        assert!(
            names(&r).contains(&"create_note".to_string()),
            "{}",
            r.text()
        );
    }
    // A script's `api` holds what the caller may call, nothing else: the reader's has no
    // create_note, and calling it fails exactly as calling a tool that does not exist.
    let keys = |token: &str| {
        let r = call(
            &serve,
            token,
            "execute",
            json!({"code": "return Object.keys(api).sort();"}),
        );
        r.json()["result"]["structuredContent"]["result"].clone()
    };
    assert_eq!(keys(&reader), json!(["list_notes"]));
    assert_eq!(keys(&writer), json!(["create_note", "list_notes"]));
    let write = "return await api.create_note({text: 'hi'});";
    let r = call(&serve, &reader, "execute", json!({"code": write}));
    assert!(is_tool_error(&r), "{}", r.text());
    let t = result_text(&r);
    assert!(
        !t.contains("insufficient_scope") && !t.contains("notes:write"),
        "{t}"
    );
    let none = "return await api.no_such_tool({text: 'hi'});";
    let r = call(&serve, &reader, "execute", json!({"code": none}));
    assert!(is_tool_error(&r), "{}", r.text());
    assert_eq!(
        t.replace("create_note", "TOOL"),
        result_text(&r).replace("no_such_tool", "TOOL"),
        "a forbidden tool and an absent one fail alike"
    );
    assert!(
        up.requests().is_empty(),
        "the upstream got {:?}",
        up.requests()
    );
    let r = call(
        &serve,
        &reader,
        "execute",
        json!({"code": "return await api.list_notes({});"}),
    );
    assert!(!is_tool_error(&r), "{}", r.text());
    assert_eq!(up.requests().len(), 1);
    let r = call(&serve, &writer, "execute", json!({"code": write}));
    assert!(!is_tool_error(&r), "{}", r.text());
    let reqs = up.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].method, "POST");
    let log = serve.log();
    for t in [&reader, &writer] {
        assert!(!log.contains(t.as_str()));
    }
}

#[test]
fn auth_issuer_refuses_another_use_of_the_authorization_header() {
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    for (extra, why) in [
        (
            vec!["--inbound-token-env", "TOK"],
            "--auth-issuer and --inbound-token-env",
        ),
        (
            vec!["--forward-header", "Authorization"],
            "token passthrough",
        ),
    ] {
        let err = refused_at_start(&desc, &extra, &[("TOK", "x")]);
        assert!(err.contains(why), "{extra:?}: {err}");
    }
}

/// `--upstream-token-exchange oauth` (RFC 8693): the upstream gets, per caller, a token
/// the issuer minted for the upstream (`aud`: the base URL the request goes to) on the
/// caller's behalf (`sub`: the caller's), never the caller's own token nor the gateway's
/// configured credential. A second call within the token's lifetime exchanges nothing
/// (counted at the provider); two callers get different tokens; a refused exchange is a
/// tool error naming it, nothing sent upstream, no token in the answer or the log.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn token_exchange_gives_the_upstream_a_token_for_it_on_the_callers_behalf() {
    let notes = Notes::start();
    let issuer = &notes.issuer;
    let up = notes_upstream();
    let serve = notes.serve(
        &up,
        &[
            "--auth-client-credential",
            "GW_CRED",
            "--upstream-token-exchange",
            "oauth",
        ],
        &[("GW_CRED", "gateway:gateway-secret")],
    );
    let resource = serve.resource();
    let exchanges = || -> u64 {
        http(&issuer.url, "GET", "/test/exchanges", &[], b"").json()["count"]
            .as_u64()
            .expect("count")
    };
    let call = |token: &str| {
        let r = serve.call(token, "list_notes", json!({}));
        assert_eq!(r.status, 200, "{}", r.text());
        r
    };
    let upstream_token = |i: usize| -> String {
        let reqs = up.requests();
        let auth = reqs[i].header("authorization").expect("authorization");
        auth.strip_prefix("Bearer ").expect("bearer").to_string()
    };
    let reader = issuer.reader(&resource);
    let writer = issuer.writer(&resource);
    let reader_sub = verified_claims(&reader)["sub"].clone();
    let writer_sub = verified_claims(&writer)["sub"].clone();
    assert_ne!(reader_sub, writer_sub);
    assert_eq!(exchanges(), 0);

    let r = call(&reader);
    assert_eq!(
        r.json()["result"]["structuredContent"],
        json!({"notes": []}),
        "{}",
        r.text()
    );
    let first = upstream_token(0);
    assert_ne!(first, reader);
    assert_ne!(first, UPSTREAM_CREDENTIAL);
    let claims = verified_claims(&first);
    assert_eq!(claims["aud"], json!(up.base()), "{claims}");
    assert_eq!(claims["sub"], reader_sub, "{claims}");
    assert_eq!(claims["iss"], json!(issuer.url), "{claims}");
    assert_eq!(claims["act"]["sub"], "gateway", "{claims}");
    assert_eq!(exchanges(), 1);

    // Within the token's lifetime: the cached token, no second exchange.
    call(&reader);
    assert_eq!(upstream_token(1), first);
    assert_eq!(exchanges(), 1);

    // Another caller: a token of its own.
    call(&writer);
    let second = upstream_token(2);
    assert_ne!(second, first);
    assert_ne!(second, writer);
    let claims = verified_claims(&second);
    assert_eq!(claims["sub"], writer_sub, "{claims}");
    assert_eq!(claims["aud"], json!(up.base()), "{claims}");
    assert_eq!(exchanges(), 2);

    // An opaque token is a valid caller (introspected) the issuer will not exchange
    // (the fixture exchanges JWT access tokens only): a tool error naming the refusal,
    // nothing sent upstream.
    let opaque = issuer.token("reader", "notes:read", None);
    let r = call(&opaque);
    assert_eq!(r.json()["result"]["isError"], json!(true), "{}", r.text());
    let text = result_text(&r);
    assert!(
        text.contains("exchange") && text.contains("invalid_grant"),
        "{text}"
    );
    assert!(!r.text().contains(&opaque), "{}", r.text());
    assert_eq!(up.requests().len(), 3);

    let log = await_log(&serve, "invalid_grant");
    assert!(log.contains("invalid_grant"), "{log}");
    for t in [&reader, &writer, &opaque, &first, &second] {
        assert!(!log.contains(t.as_str()), "a token in the log");
    }
    for req in up.requests() {
        let wire = format!("{} {:?} {}", req.target, req.headers, req.body_text());
        for t in [&reader, &writer, &opaque] {
            assert!(
                !wire.contains(t.as_str()),
                "an inbound token reached the upstream"
            );
        }
        assert!(!wire.contains(UPSTREAM_CREDENTIAL));
    }
}

/// `--upstream-token-exchange` is refused at start (exit 2, naming why) without the
/// gateway's client credential or for a scheme the description does not declare.
#[test]
fn token_exchange_is_checked_at_start() {
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    for (extra, why) in [
        (
            vec!["--upstream-token-exchange", "oauth"],
            "--upstream-token-exchange needs --auth-client-credential",
        ),
        (
            vec![
                "--upstream-token-exchange",
                "nope",
                "--auth-client-credential",
                "GW",
            ],
            "declares no security scheme `nope`",
        ),
    ] {
        let err = refused_at_start(&desc, &extra, &[("GW", "gateway:gateway-secret")]);
        assert!(err.contains(why), "{extra:?}: {err}");
    }
}

/// Two descriptions served together (issue 28 with issue 21's composition): each
/// tool's scopes are its own description's, although both name their scheme `oauth`;
/// the metadata covers both; toolset paths and `tool-scopes` globs (on the served,
/// prefixed names) follow the same rule; nothing reaches an upstream for a refused call.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn several_descriptions_keep_each_tools_own_scopes() {
    let apis = TwoApis::start();
    let (issuer, up_tasks) = (&apis.issuer, &apis.up_tasks);
    let serve = apis.serve_both(&[]);
    let resource = serve.resource();
    let toolset = format!("{}/mcp/x/tasks", serve.base);
    let meta_url = serve.meta_url();

    // The metadata names every scope of both descriptions.
    assert_eq!(
        serve.metadata("/mcp")["scopes_supported"],
        json!(["notes:read", "notes:write", "tasks:read", "tasks:write"])
    );
    let m = serve.metadata("/mcp/x/tasks");
    assert_eq!(m["resource"], json!(toolset));
    assert_eq!(m["scopes_supported"], json!(["tasks:read", "tasks:write"]));

    let call =
        |token: &str, path: &str, name: &str| serve.call_at(path, token, name, args_for(name));

    // A notes reader (a token of the real issuer): only notes' read tool.
    let reader = issuer.reader(&resource);
    assert_eq!(serve.tools(&reader), ["notes_list_notes"]);
    for (name, scope) in [
        ("notes_create_note", "notes:write"),
        ("tasks_list_tasks", "tasks:read"),
        ("tasks_create_task", "tasks:write"),
    ] {
        assert_step_up(&call(&reader, "/mcp", name), scope, &meta_url);
    }
    apis.assert_nothing_upstream("the notes reader's refused calls");

    // A tasks reader (the issuer's key signs scopes its fixture does not hand out).
    let tasks_reader = issuer.mint("tasks:read", &resource);
    assert_eq!(serve.tools(&tasks_reader), ["tasks_list_tasks"]);
    for (name, scope) in [
        ("tasks_create_task", "tasks:write"),
        ("notes_list_notes", "notes:read"),
    ] {
        assert_step_up(&call(&tasks_reader, "/mcp", name), scope, &meta_url);
    }
    // A notes:write scope does not open the tasks write tool (same scheme name `oauth`).
    let notes_writer = issuer.mint("notes:read notes:write tasks:read", &resource);
    assert_step_up(
        &call(&notes_writer, "/mcp", "tasks_create_task"),
        "tasks:write",
        &meta_url,
    );
    apis.assert_nothing_upstream("the refused calls");

    // The permitted calls reach each one's own upstream with its own credential.
    for (token, name) in [
        (&reader, "notes_list_notes"),
        (&tasks_reader, "tasks_list_tasks"),
    ] {
        let r = call(token, "/mcp", name);
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        assert_ne!(r.json()["result"]["isError"], json!(true), "{}", r.text());
    }
    let writer = issuer.mint("notes:read notes:write tasks:read tasks:write", &resource);
    assert_eq!(
        serve.tools(&writer),
        [
            "notes_list_notes",
            "notes_create_note",
            "tasks_list_tasks",
            "tasks_create_task"
        ]
    );
    for name in ["notes_create_note", "tasks_create_task"] {
        let r = call(&writer, "/mcp", name);
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        assert_ne!(r.json()["result"]["isError"], json!(true), "{}", r.text());
    }
    let (n, t) = (apis.up_notes.requests(), up_tasks.requests());
    assert_eq!(
        n.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(),
        ["GET", "POST"]
    );
    assert_eq!(
        t.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(),
        ["GET", "POST"]
    );
    for r in &n {
        assert_eq!(
            r.header("authorization"),
            Some("Bearer notes-own-credential")
        );
    }
    for r in &t {
        assert_eq!(
            r.header("authorization"),
            Some("Bearer tasks-own-credential")
        );
    }

    // A toolset path follows the same rule.
    let for_toolset = issuer.mint("notes:read notes:write tasks:read", &toolset);
    let r = serve.rpc("/mcp/x/tasks", Some(&for_toolset), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(tool_names(&r), ["tasks_list_tasks"]);
    assert_step_up(
        &call(&for_toolset, "/mcp/x/tasks", "tasks_create_task"),
        "tasks:write",
        &format!(
            "{}/.well-known/oauth-protected-resource/mcp/x/tasks",
            serve.base
        ),
    );
    assert_eq!(up_tasks.requests().len(), 2, "a refused call reached tasks");
    drop(serve);

    // `tool-scopes` globs match the served (prefixed) names: `tasks_*` needs
    // tasks:admin; `list_notes` (a name only inside its description) matches nothing.
    let serve = apis.serve_both(&[
        "--tool-scopes",
        "tasks_*=tasks:admin",
        "--tool-scopes",
        "list_notes=nobody",
    ]);
    let resource = serve.resource();
    let writer = issuer.mint("notes:read notes:write tasks:read tasks:write", &resource);
    assert_eq!(
        serve.tools(&writer),
        ["notes_list_notes", "notes_create_note"]
    );
    let r = serve.call(&writer, "tasks_list_tasks", json!({}));
    assert_step_up(&r, "tasks:admin", &serve.meta_url());
    let admin = issuer.mint("tasks:admin", &resource);
    assert_eq!(
        serve.tools(&admin),
        ["tasks_list_tasks", "tasks_create_task"]
    );
    assert_eq!(
        serve.metadata("/mcp")["scopes_supported"],
        json!(["notes:read", "notes:write", "tasks:admin"])
    );
    assert_eq!(up_tasks.requests().len(), 2, "a refused call reached tasks");
}

/// The search facade and code mode over two descriptions: search never shows a tool of
/// either description the caller may not call, and `call_tool` / `execute` are checked
/// against the tool's own description's scopes, with nothing sent upstream.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn several_descriptions_search_facade_and_code_mode_follow_each_tools_scopes() {
    let apis = TwoApis::start();
    let (issuer, up_notes, up_tasks) = (&apis.issuer, &apis.up_notes, &apis.up_tasks);
    let names = found_tools;

    // --discovery search.
    let serve = apis.serve_both(&["--discovery", "search"]);
    let resource = serve.resource();
    let call = |token: &str, name: &str, args: Value| serve.call(token, name, args);
    let reader = issuer.reader(&resource);
    let tasks_writer = issuer.mint("tasks:read tasks:write", &resource);
    let q = json!({"query": "create tasks notes", "limit": 10});
    let r = call(&reader, "search_tools", q.clone());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(names(&r), ["notes_list_notes"], "{}", r.text());
    assert!(!r.text().contains("tasks_"), "{}", r.text());
    let r = call(&tasks_writer, "search_tools", q);
    assert_eq!(
        names(&r),
        ["tasks_create_task", "tasks_list_tasks"],
        "{}",
        r.text()
    );
    let r = call(
        &reader,
        "describe_tools",
        json!({"names": ["tasks_create_task"]}),
    );
    assert!(
        is_tool_error(&r) && !r.text().contains("inputSchema"),
        "{}",
        r.text()
    );
    // call_tool of the other description's write tool: the step-up 403.
    let r = call(
        &reader,
        "call_tool",
        json!({"name": "tasks_create_task", "arguments": {"text": "hi"}}),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(
        r.header("www-authenticate")
            .is_some_and(|c| c.contains("scope=\"tasks:write\"")),
        "{:?}",
        r.header("www-authenticate")
    );
    let r = call(
        &tasks_writer,
        "call_tool",
        json!({"name": "notes_list_notes", "arguments": {}}),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    apis.assert_nothing_upstream("refused calls");
    let r = call(
        &tasks_writer,
        "call_tool",
        json!({"name": "tasks_create_task", "arguments": {"text": "hi"}}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(!is_tool_error(&r), "{}", r.text());
    assert_eq!(up_tasks.requests().len(), 1);
    assert!(up_notes.requests().is_empty());
    drop(serve);

    // --discovery code.
    let serve = apis.serve_both(&["--discovery", "code"]);
    let call = |token: &str, name: &str, args: Value| serve.call(token, name, args);
    let reader = issuer.reader(&serve.resource());
    let r = call(
        &reader,
        "search_api",
        json!({"query": "create tasks notes"}),
    );
    assert_eq!(names(&r), ["notes_list_notes"], "{}", r.text());
    assert!(!r.text().contains("tasks_"), "{}", r.text());
    let r = call(
        &reader,
        "execute",
        json!({"code": "return Object.keys(api).sort();"}),
    );
    assert_eq!(
        r.json()["result"]["structuredContent"]["result"],
        json!(["notes_list_notes"]),
        "{}",
        r.text()
    );
    let r = call(
        &reader,
        "execute",
        json!({"code": "return await api.tasks_create_task({text: 'hi'});"}),
    );
    assert!(is_tool_error(&r), "{}", r.text());
    let t = result_text(&r);
    assert!(
        !t.contains("insufficient_scope") && !t.contains("tasks:write"),
        "{t}"
    );
    assert_eq!(up_tasks.requests().len(), 1, "a refused call reached tasks");
    let r = call(
        &reader,
        "execute",
        json!({"code": "return await api.notes_list_notes({});"}),
    );
    assert!(!is_tool_error(&r), "{}", r.text());
    assert_eq!(up_notes.requests().len(), 1);
}

/// Spec §7.5 (a primitive's own `security`, then the selected transport's, then the
/// root's) for the transport the gateway serves, the description's `streamable-http`
/// entry, with one description and with two composed. Tasks' root needs `tasks:read`,
/// `create_task` its own `tasks:write`; its streamable-http transport needs `tasks:http`
/// (and its stdio transport nothing, which must not apply). Expectations by hand:
/// `list_tasks` needs `tasks:http`, not `tasks:read`; `create_task` still `tasks:write`.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn the_streamable_http_transports_security_comes_between_the_tool_and_the_root() {
    let apis = TwoApis::start();
    let (issuer, up_tasks) = (&apis.issuer, &apis.up_tasks);
    let (notes, tasks) = (&apis.notes, &apis.tasks);
    let stdio = json!({"type": "stdio", "command": "tasks", "security": []});
    let http_entry = |security: Value| json!({"type": "streamable-http", "url": "https://tasks.example/mcp", "security": security});
    let tasks_http = with_transports(
        tasks,
        "tasks-http",
        json!([stdio, http_entry(json!([{"oauth": ["tasks:http"]}]))]),
    );
    // Each description's upstream credential, alone (unprefixed) and composed.
    let env = [
        TWO_CREDENTIALS[0],
        TWO_CREDENTIALS[1],
        ("MCPDESC_CREDENTIAL_OAUTH", "token:tasks-own-credential"),
    ];
    let scopes_supported = |serve: &Serve| serve.metadata("/mcp")["scopes_supported"].clone();
    let call = |serve: &Serve, token: &str, name: &str| serve.call(token, name, args_for(name));
    // `descs` served one (as itself) or several (composed), with `args`.
    let start = |descs: &[&std::path::Path], args: &[&str]| apis.serve(descs, args, &env);

    // One description, and the same description composed with notes.
    for (many, (list_tasks, create_task)) in [
        (false, ("list_tasks", "create_task")),
        (true, ("tasks_list_tasks", "tasks_create_task")),
    ] {
        let serve = if many {
            start(&[notes, &tasks_http], &[])
        } else {
            start(&[&tasks_http], &[])
        };
        let resource = serve.resource();
        let meta_url = serve.meta_url();
        let before = up_tasks.requests().len();
        assert_eq!(
            scopes_supported(&serve),
            if many {
                json!(["notes:read", "notes:write", "tasks:http", "tasks:write"])
            } else {
                json!(["tasks:http", "tasks:write"])
            },
            "many: {many}"
        );
        // The root's scope no longer opens the inheriting tool.
        let root_reader = issuer.mint("tasks:read", &resource);
        assert!(serve.tools(&root_reader).is_empty(), "many: {many}");
        assert_step_up(
            &call(&serve, &root_reader, list_tasks),
            "tasks:http",
            &meta_url,
        );
        assert_eq!(
            up_tasks.requests().len(),
            before,
            "a refused call reached tasks"
        );
        // The transport's scope does, and not the tool with its own requirement.
        let http_reader = issuer.mint("tasks:http", &resource);
        assert_eq!(serve.tools(&http_reader), [list_tasks]);
        assert_step_up(
            &call(&serve, &http_reader, create_task),
            "tasks:write",
            &meta_url,
        );
        let r = call(&serve, &http_reader, list_tasks);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_ne!(r.json()["result"]["isError"], json!(true), "{}", r.text());
        let writer = issuer.mint("tasks:write", &resource);
        assert_eq!(serve.tools(&writer), [create_task]);
        let r = call(&serve, &writer, create_task);
        assert_eq!(r.status, 200, "{}", r.text());
        let got = up_tasks.requests();
        assert_eq!(
            got[before..]
                .iter()
                .map(|r| r.method.as_str())
                .collect::<Vec<_>>(),
            ["GET", "POST"]
        );
        if many {
            // notes (no transports) keeps its root's and its own.
            let notes_reader = issuer.token("reader", "notes:read", Some(&resource));
            assert_eq!(serve.tools(&notes_reader), ["notes_list_notes"]);
        }
    }

    // `security: []` on the transport: explicitly no authentication beyond a valid
    // token for the inheriting tool.
    let open = with_transports(tasks, "tasks-open", json!([http_entry(json!([]))]));
    let serve = start(&[&open], &[]);
    let resource = serve.resource();
    let nobody = issuer.mint("other", &resource);
    assert_eq!(serve.tools(&nobody), ["list_tasks"]);
    assert_eq!(scopes_supported(&serve), json!(["tasks:write"]));
    drop(serve);

    // Two streamable-http entries that disagree: the inheriting tool fails closed (403
    // naming no scope, listed to no one), for one description and composed; the tool
    // with its own requirement is unaffected.
    let two = with_transports(
        tasks,
        "tasks-two",
        json!([
            http_entry(json!([])),
            http_entry(json!([{"oauth": ["tasks:http"]}]))
        ]),
    );
    for many in [false, true] {
        let serve = if many {
            start(&[notes, &two], &[])
        } else {
            start(&[&two], &[])
        };
        let (list_tasks, create_task) = if many {
            ("tasks_list_tasks", "tasks_create_task")
        } else {
            ("list_tasks", "create_task")
        };
        let resource = serve.resource();
        let meta_url = serve.meta_url();
        let before = up_tasks.requests().len();
        let all = issuer.mint("tasks:read tasks:write tasks:http", &resource);
        assert_eq!(serve.tools(&all), [create_task], "many: {many}");
        let r = call(&serve, &all, list_tasks);
        assert_eq!(r.status, 403, "{}", r.text());
        assert_eq!(
            r.header("www-authenticate"),
            Some(
                format!(
                    "Bearer error=\"insufficient_scope\", error_description=\"the tool's security requirement cannot be read\", resource_metadata=\"{meta_url}\""
                )
                .as_str()
            )
        );
        assert_eq!(
            up_tasks.requests().len(),
            before,
            "a refused call reached tasks"
        );
        let why = "streamable-http transports declare different security";
        let log = await_log(&serve, why);
        assert!(log.contains(why), "{log}");
    }
    // `--auth-list all` lists it (the call is still refused) without the composition's
    // internal marker.
    let serve = start(&[notes, &two], &["--auth-list", "all"]);
    let token = issuer.mint("tasks:http", &serve.resource());
    let r = serve.rpc("/mcp", Some(&token), "tools/list", json!({}));
    assert!(tool_names(&r).contains(&"tasks_list_tasks".to_string()));
    assert!(
        !r.text().contains("x-mcpdesc-security-unresolved"),
        "{}",
        r.text()
    );
    assert_eq!(call(&serve, &token, "tasks_list_tasks").status, 403);
}
