//! Streamable HTTP at `/mcp` (in-process server, raw HTTP/1.1 client): sessions for the
//! handshake revisions, single exchanges for 2026-07-28, and inbound security.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::*;
use mcpdesc_serve::HttpOptions;
use serde_json::{Value, json};
use std::sync::Arc;

fn init_msg(rev: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": rev, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn req(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Opens a session at `rev`; returns its id.
fn session(addr: std::net::SocketAddr, rev: &str) -> String {
    let r = post(addr, &[], &init_msg(rev));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), Some("application/json"));
    let sid = r
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    let n = post(
        addr,
        &[("Mcp-Session-Id", &sid), ("MCP-Protocol-Version", rev)],
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!((n.status, n.body.len()), (202, 0));
    sid
}

/// The handshake revisions over Streamable HTTP: sessions, lists equal to the export,
/// calls, DELETE; 2024-11-05 is never negotiated over HTTP.
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn handshake_revisions_over_http() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 1);
    let srv = HttpServer::start(&rt, &server, HttpOptions::default());
    let mut oracle = ShapeOracle::default();
    for rev in [V2025_03_26, V2025_06_18, V2025_11_25] {
        let sid = session(srv.addr, rev.as_str());
        assert_eq!(sid.len(), 32);
        assert!(sid.bytes().all(|b| b.is_ascii_hexdigit()));
        let h = [
            ("Mcp-Session-Id", sid.as_str()),
            ("MCP-Protocol-Version", rev.as_str()),
        ];
        // Page through tools/list (page size 1).
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        for id in 2.. {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
            let r = post(srv.addr, &h, &req(id, "tools/list", params));
            assert_eq!(r.status, 200);
            let v = r.json();
            oracle.record("tools/list", rev, &v);
            tools.extend(v["result"]["tools"].as_array().cloned().unwrap_or_default());
            cursor = v["result"].get("nextCursor").cloned();
            if cursor.is_none() {
                break;
            }
        }
        let exported = mcpdesc_tests::export_tools_list(&doc, rev).expect("exports");
        assert_eq!(Value::Array(tools), exported["tools"], "at {rev}");
        let c = post(
            srv.addr,
            &h,
            &req(
                50,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hello"}}),
            ),
        );
        let v = c.json();
        oracle.record("tools/call", rev, &v);
        assert_eq!(v["result"]["content"][1]["text"], "hello", "{v}");
        // End the session; it is gone afterwards.
        let d = http(srv.addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &sid)], b"");
        assert_eq!(d.status, 200);
        assert_eq!(
            post(srv.addr, &h, &req(51, "tools/list", json!({}))).status,
            404
        );
    }
    // 2024-11-05 has no Streamable HTTP: the server answers with its newest handshake revision.
    let r = post(srv.addr, &[], &init_msg("2024-11-05"));
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-11-25");
    oracle.check();
}

#[test]
fn http_request_rules() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 100);
    let srv = HttpServer::start(&rt, &server, HttpOptions::default());
    let a = srv.addr;
    let list = req(2, "tools/list", json!({}));
    // No session: 400; unknown session: 404.
    assert_eq!(post(a, &[], &list).status, 400);
    assert_eq!(
        post(
            a,
            &[("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")],
            &list
        )
        .status,
        404
    );
    let sid = session(a, "2025-06-18");
    // A protocol-version header that is not the negotiated revision: 400.
    for v in ["2025-11-25", "2099-01-01"] {
        let r = post(
            a,
            &[("Mcp-Session-Id", &sid), ("MCP-Protocol-Version", v)],
            &list,
        );
        assert_eq!(r.status, 400, "{v}");
    }
    // Without the header (allowed: a 2025-03-26-style client), the session's revision applies.
    assert_eq!(post(a, &[("Mcp-Session-Id", &sid)], &list).status, 200);
    // Methods, path, media types, size, JSON.
    let r = http(a, "GET", "/mcp", &[("Accept", "text/event-stream")], b"");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST, DELETE"));
    assert_eq!(http(a, "PUT", "/mcp", &[], b"{}").status, 405);
    assert_eq!(
        http(
            a,
            "POST",
            "/other",
            &[("Content-Type", "application/json")],
            b"{}"
        )
        .status,
        404
    );
    assert_eq!(
        http(a, "POST", "/mcp", &[("Content-Type", "text/plain")], b"{}").status,
        415
    );
    let body = serde_json::to_vec(&init_msg("2025-06-18")).expect("json");
    let r = http(
        a,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "text/html"),
        ],
        &body,
    );
    assert_eq!(r.status, 406);
    let r = http(
        a,
        "POST",
        "/mcp",
        &[("Content-Type", "application/json")],
        b"{oops",
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    let huge = vec![b' '; mcpdesc_serve::MAX_MESSAGE_BYTES + 10];
    assert_eq!(
        http(
            a,
            "POST",
            "/mcp",
            &[("Content-Type", "application/json")],
            &huge
        )
        .status,
        413
    );
    // DELETE without or with an unknown session.
    assert_eq!(http(a, "DELETE", "/mcp", &[], b"").status, 400);
    assert_eq!(
        http(a, "DELETE", "/mcp", &[("Mcp-Session-Id", "nope")], b"").status,
        404
    );
    // Batches only in a 2025-03-26 session.
    let batch = json!([req(3, "ping", json!({})), req(4, "tools/list", json!({}))]);
    let r = post(a, &[("Mcp-Session-Id", &sid)], &batch);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32600))
    );
    let old = session(a, "2025-03-26");
    let r = post(a, &[("Mcp-Session-Id", &old)], &batch);
    assert_eq!(r.status, 200);
    assert_eq!(r.json().as_array().map(Vec::len), Some(2));
}

/// 2026-07-28 single exchanges: envelope + routing headers, status per error code.
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn stateless_exchanges_over_http() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 100);
    let srv = HttpServer::start(&rt, &server, HttpOptions::default());
    let a = srv.addr;
    let mut oracle = ShapeOracle::default();
    let env = envelope(V2026_07_28);
    let modern = |method: &str, params: Value, extra: &[(&str, &str)]| {
        let mut p = params;
        p["_meta"] = env.clone();
        let mut h = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        h.extend_from_slice(extra);
        post(a, &h, &req(9, method, p))
    };
    let d = modern("server/discover", json!({}), &[]);
    assert_eq!(d.status, 200);
    assert!(
        d.header("mcp-session-id").is_none(),
        "no sessions at 2026-07-28"
    );
    oracle.record("server/discover", V2026_07_28, &d.json());
    let l = modern("tools/list", json!({}), &[]);
    let v = l.json();
    oracle.record("tools/list", V2026_07_28, &v);
    assert_eq!(
        v["result"]["tools"],
        mcpdesc_tests::export_tools_list(&doc, V2026_07_28).expect("exports")["tools"]
    );
    assert_eq!(v["result"]["cacheScope"], "private");
    let c = modern(
        "tools/call",
        json!({"name": "list_words", "arguments": {"region": "eu"}}),
        &[("Mcp-Name", "list_words"), ("Mcp-Param-Region", "eu")],
    );
    assert_eq!(c.status, 200, "{}", String::from_utf8_lossy(&c.body));
    oracle.record("tools/call", V2026_07_28, &c.json());
    // Header mismatches are -32020 with HTTP 400.
    let mismatch = |r: RawResponse| {
        assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
        assert_eq!(r.json()["error"]["code"], -32020);
    };
    mismatch(modern(
        "tools/list",
        json!({}),
        &[("Mcp-Method", "tools/list")],
    ));
    mismatch({
        let mut p = json!({});
        p["_meta"] = env.clone();
        post(
            a,
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "prompts/list"),
            ],
            &req(9, "tools/list", p),
        )
    });
    mismatch(modern(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
        &[("Mcp-Name", "add")],
    ));
    mismatch(modern(
        "tools/call",
        json!({"name": "list_words", "arguments": {"region": "eu"}}),
        &[("Mcp-Name", "list_words")],
    ));
    mismatch(modern(
        "tools/call",
        json!({"name": "list_words", "arguments": {"region": "eu"}}),
        &[("Mcp-Name", "list_words"), ("Mcp-Param-Region", "us")],
    ));
    mismatch(modern(
        "tools/call",
        json!({"name": "list_words", "arguments": {}}),
        &[("Mcp-Name", "list_words"), ("Mcp-Param-Region", "us")],
    ));
    // The name may travel base64-wrapped.
    let ok = modern(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hello"}}),
        &[("Mcp-Name", "=?base64?ZWNobw==?=")],
    );
    assert_eq!(ok.status, 200);
    // Status per code: -32601 → 404, -32602 → 400.
    assert_eq!(modern("no/such", json!({}), &[]).status, 404);
    let r = modern(
        "tools/call",
        json!({"name": "nope", "arguments": {}}),
        &[("Mcp-Name", "nope")],
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32602))
    );
    // Notifications are acknowledged; batches are refused.
    let n = post(
        a,
        &[("MCP-Protocol-Version", "2026-07-28")],
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),
    );
    assert_eq!((n.status, n.body.len()), (202, 0));
    let b = post(
        a,
        &[("MCP-Protocol-Version", "2026-07-28")],
        &json!([req(1, "tools/list", json!({}))]),
    );
    assert_eq!(
        (b.status, b.json()["error"]["code"].clone()),
        (400, json!(-32600))
    );
    // An envelope without the version header is a header mismatch.
    let mut p = json!({});
    p["_meta"] = env.clone();
    let r = post(a, &[("Mcp-Method", "tools/list")], &req(3, "tools/list", p));
    assert_eq!(r.json()["error"]["code"], -32020);
    oracle.check();
}

/// Origin / Host checks (DNS rebinding) and the bearer-token gate.
#[test]
fn inbound_security() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 100);
    let srv = HttpServer::start(&rt, &server, HttpOptions::default());
    let a = srv.addr;
    let init = init_msg("2025-06-18");
    for (origin, status) in [
        ("http://localhost:6274", 200),
        ("http://127.0.0.1:3000", 200),
        ("https://[::1]", 200),
        ("https://evil.example", 403),
        ("http://127.0.0.1.evil.example", 403),
        ("null", 403),
        ("file://", 403),
    ] {
        assert_eq!(
            post(a, &[("Origin", origin)], &init).status,
            status,
            "Origin {origin}"
        );
    }
    // Bound to loopback, the Host must be a loopback name (a rebinding page's Host is its own).
    assert_eq!(post(a, &[("Host", "evil.example:8080")], &init).status, 403);
    assert_eq!(post(a, &[("Host", "localhost:1")], &init).status, 200);

    let token = HttpOptions {
        inbound_token: Some("s3cret-token".into()),
        ..HttpOptions::default()
    };
    let gated = HttpServer::start(&rt, &server, token.clone());
    let r = post(gated.addr, &[], &init);
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some("Bearer realm=\"mcpdesc serve\"")
    );
    let r = post(gated.addr, &[("Authorization", "Bearer wrong")], &init);
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some("Bearer realm=\"mcpdesc serve\", error=\"invalid_token\"")
    );
    assert_eq!(
        post(
            gated.addr,
            &[("Authorization", "Basic czNjcmV0LXRva2Vu")],
            &init
        )
        .status,
        401
    );
    assert_eq!(
        post(
            gated.addr,
            &[("Authorization", "Bearer s3cret-token")],
            &init
        )
        .status,
        200
    );
    assert_eq!(
        post(
            gated.addr,
            &[("Authorization", "bearer s3cret-token")],
            &init
        )
        .status,
        200
    );
    // The gate holds for every method, before anything else is looked at.
    assert_eq!(http(gated.addr, "GET", "/mcp", &[], b"").status, 401);

    // A non-loopback bind: no Host check, Origin must be the server's own; gated.
    let open = HttpServer::start_at(&rt, &server, token, "0.0.0.0:0");
    let port = open.addr.port();
    let to = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let auth = ("Authorization", "Bearer s3cret-token");
    assert_eq!(
        post(to, &[auth, ("Host", "gateway.example:9")], &init).status,
        200
    );
    assert_eq!(
        post(
            to,
            &[
                auth,
                ("Host", "gateway.example:9"),
                ("Origin", "http://localhost:1")
            ],
            &init
        )
        .status,
        403
    );
    assert_eq!(
        post(
            to,
            &[
                auth,
                ("Host", "gateway.example:9"),
                ("Origin", "http://gateway.example:9")
            ],
            &init
        )
        .status,
        200
    );
    assert_eq!(
        post(to, &[("Host", "gateway.example:9")], &init).status,
        401
    );

    // Forwarded Authorization as the only gate: a request without one is refused.
    let fwd = HttpOptions {
        forward_headers: vec!["Authorization".into()],
        ..HttpOptions::default()
    };
    let open = HttpServer::start_at(&rt, &server, fwd, "0.0.0.0:0");
    let to = std::net::SocketAddr::from(([127, 0, 0, 1], open.addr.port()));
    assert_eq!(post(to, &[], &init).status, 401);
    assert_eq!(
        post(to, &[("Authorization", "Bearer caller")], &init).status,
        200
    );
}

/// Only `--forward-header` headers reach the backend, from the inbound HTTP request.
#[test]
fn only_named_headers_are_forwarded() {
    let rt = Arc::new(rt());
    let up = Upstream::start(
        200,
        "{\"id\": 7, \"name\": \"Rex\"}",
        std::time::Duration::ZERO,
    );
    let doc =
        load(&mcpdesc_tests::workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"));
    let (server, _) = server_with(&doc, rest(Some(up.base_url()), &doc), None, 100);
    let srv = HttpServer::start(
        &rt,
        &server,
        HttpOptions {
            forward_headers: vec!["x-tenant".into()],
            ..HttpOptions::default()
        },
    );
    let sid = session(srv.addr, "2025-06-18");
    let r = post(
        srv.addr,
        &[
            ("Mcp-Session-Id", &sid),
            ("X-Tenant", "acme"),
            ("X-Other", "no"),
            ("Cookie", "session=inbound"),
            ("Authorization", "Bearer inbound"),
        ],
        &req(
            2,
            "tools/call",
            json!({"name": "get_pet", "arguments": {"id__path": 7}}),
        ),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let heads = up.request_heads();
    assert_eq!(heads.len(), 1, "{heads:?}");
    let head = heads[0].join("\n").to_ascii_lowercase();
    assert!(head.contains("x-tenant: acme"), "{head}");
    for leak in [
        "x-other",
        "session=inbound",
        "bearer inbound",
        "mcp-session-id",
    ] {
        assert!(!head.contains(leak), "`{leak}` leaked upstream: {head}");
    }
}

fn serve_cli(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let out = std::process::Command::new(mcpdesc_tests::mcpdesc_bin())
        .arg("serve")
        .args(args)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A gateway holding credentials is never open to whoever can reach it: the CLI refuses
/// to start (exit 2) on a non-loopback address without a gate, with a gate that would
/// leak, or with a forwarding gate while holding credentials of its own.
#[test]
fn cli_refuses_open_gateways() {
    if !mcpdesc_tests::mcpdesc_bin().is_file() {
        return mcpdesc_tests::missing("the mcpdesc binary");
    }
    let pet = mcpdesc_tests::workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml");
    let pet = pet.display().to_string();
    let fx = mcp_fixture("every-revision.mcpdesc.yaml")
        .display()
        .to_string();
    for (args, env, needle) in [
        (
            vec![pet.as_str(), "--http", "0.0.0.0:0"],
            vec![],
            "--inbound-token-env VAR",
        ),
        (
            vec![
                pet.as_str(),
                "--http",
                "0.0.0.0:0",
                "--inbound-token-env",
                "MCPDESC_TEST_UNSET_TOKEN_VAR",
            ],
            vec![],
            "is not set",
        ),
        (
            vec![
                pet.as_str(),
                "--http",
                "127.0.0.1:0",
                "--inbound-token-env",
                "T",
                "--forward-header",
                "Authorization",
            ],
            vec![("T", "s3cr3t-value-9")],
            "both use the Authorization header",
        ),
        (
            vec![
                pet.as_str(),
                "--http",
                "0.0.0.0:0",
                "--forward-header",
                "authorization",
            ],
            vec![("MCPDESC_CREDENTIAL_API_KEY", "s3cr3t-value-9")],
            "no credentials of its own",
        ),
        (
            vec![
                pet.as_str(),
                "--http",
                "0.0.0.0:0",
                "--forward-header",
                "Authorization",
                "--header",
                "X-Key:v",
            ],
            vec![],
            "no credentials of its own",
        ),
        (
            vec![
                fx.as_str(),
                "--mock",
                "--http",
                "127.0.0.1:0",
                "--protocol-versions",
                "2024-11-05",
            ],
            vec![],
            "no Streamable HTTP",
        ),
        (
            vec![
                fx.as_str(),
                "--mock",
                "--protocol-versions",
                "2025-06-18,2099-01-01",
            ],
            vec![],
            "unknown MCP protocol revision",
        ),
        (
            vec![pet.as_str(), "--protocol-versions", "2024-11-05"],
            vec![],
            "not a subset",
        ),
        (vec!["-"], vec![], "standard input in stdio mode"),
        (
            vec![pet.as_str(), "--inbound-token-env", "T"],
            vec![("T", "x")],
            "--http",
        ),
        (
            vec![
                pet.as_str(),
                "--credential",
                "api_key=MCPDESC_TEST_UNSET_KEY_VAR",
            ],
            vec![],
            "is not set",
        ),
        (vec![pet.as_str(), "--page-size", "0"], vec![], "positive"),
    ] {
        let (code, err) = serve_cli(&args, &env);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: expected `{needle}` in: {err}"
        );
        assert!(
            !err.contains("s3cr3t-value-9"),
            "no secret in messages: {err}"
        );
    }
    // An invalid description is refused with its diagnostics (exit 1), before serving.
    let bad = mcp_fixture("../../spec/fixtures/expected-invalid");
    let first = std::fs::read_dir(&bad)
        .expect("fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .min()
        .expect("an invalid fixture");
    let (code, err) = serve_cli(&[&first.display().to_string(), "--mock"], &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error["), "{err}");
}
