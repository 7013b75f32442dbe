//! Lifecycle, lists and JSON-RPC errors over stdio (in-process), at every revision.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::{self, *};
use mcpdesc_core::{DeclKind, RevisionSet};
use serde_json::{Value, json};
use std::sync::Arc;

/// Descriptions the list tests run over: the hand-written one, the imported petstores,
/// and every valid official fixture and example.
fn descriptions() -> Vec<(String, Value)> {
    let mut out = vec![("every-revision".to_string(), every_revision())];
    for v in ["2.0", "3.0", "3.1"] {
        let p = mcpdesc_tests::workspace_root()
            .join(format!("tests/generated/petstore-{v}.mcpdesc.yaml"));
        out.push((format!("petstore-{v}"), load(&p)));
    }
    out.extend(mcpdesc_tests::official_valid_documents());
    out
}

fn revisions_of(doc: &Value) -> RevisionSet {
    RevisionSet::from_json(&doc["protocolVersions"])
}

/// `tools/list` at each revision, all pages, is exactly `mcpdesc export tools-list` at
/// that revision; the other lists are the projected declarations' MCP values; every
/// page has its revision's result shape (Python SDK models).
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn lists_are_the_export_at_every_revision() {
    let rt = Arc::new(rt());
    let mut oracle = ShapeOracle::default();
    let mut checked = 0;
    for (name, doc) in descriptions() {
        let (server, _) = server_with(&doc, mock(), None, 2);
        for rev in revisions_of(&doc).iter() {
            let mut c = Conn::open(&rt, &server);
            let env = c.open_at(rev);
            let (tools, pages) = c.list_all(&env, "tools/list", "tools");
            for p in &pages {
                oracle.record("tools/list", rev, &json!({"result": p}));
            }
            let exported = mcpdesc_tests::export_tools_list(&doc, rev)
                .unwrap_or_else(|e| panic!("{name} @ {rev}: export: {e:?}"));
            assert_eq!(
                Value::Array(tools),
                exported["tools"],
                "{name} @ {rev}: tools/list"
            );
            let source = mcpdesc_tests::valid(&doc);
            let view = mcpdesc_scope::project(&source, rev).expect("projects");
            for (method, kind) in [
                ("resources/list", DeclKind::Resource),
                ("resources/templates/list", DeclKind::ResourceTemplate),
                ("prompts/list", DeclKind::Prompt),
            ] {
                let (items, pages) = c.list_all(&env, method, kind.collection());
                for p in &pages {
                    oracle.record(method, rev, &json!({"result": p}));
                }
                let expected = mcpdesc_scope::list_of_view(kind, &view).expect("lists");
                assert_eq!(
                    Value::Array(items),
                    expected[kind.collection()],
                    "{name} @ {rev}: {method}"
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 40,
        "only {checked} (description, revision) pairs"
    );
    oracle.check();
}

/// The hand-written expectations for the hand-written description (independent of the
/// export code).
#[test]
fn tools_list_matches_hand_written_expectations() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 100);
    for rev in ProtocolRevision::ALL {
        let expected = load(&mcp_fixture(&format!("expected/tools-{rev}.json")));
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let r = c.call(&env, "tools/list", json!({}));
        assert_eq!(r["result"]["tools"], expected["tools"], "at {rev}");
        assert!(r["result"].get("nextCursor").is_none());
    }
    // Resources, templates and prompts at 2025-06-18, by hand (§10.1.1, §10.2.1, §11.2).
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2025_06_18);
    assert_eq!(
        c.call(&env, "resources/list", json!({}))["result"],
        json!({"resources": [{"uri": "file:///notes.txt", "name": "notes", "description": "Notes.",
            "mimeType": "text/plain", "annotations": {"audience": ["user"]}}]})
    );
    assert_eq!(
        c.call(&env, "resources/templates/list", json!({}))["result"],
        json!({"resourceTemplates": [{"uriTemplate": "notes://{id}", "name": "note", "mimeType": "text/plain"}]})
    );
    assert_eq!(
        c.call(&env, "prompts/list", json!({}))["result"],
        json!({"prompts": [{"name": "summarize", "description": "Summarize text.",
            "arguments": [{"name": "text", "required": true}]}]})
    );
}

fn init(c: &mut Conn, requested: &str) -> Value {
    c.request(
        "initialize",
        json!({"protocolVersion": requested, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    )
}

/// `initialize` per the MCP lifecycle: the requested revision when served, else the
/// newest handshake revision served; none (2026-07-28 only): -32022.
#[test]
fn initialize_negotiates_per_the_lifecycle() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let all = |r: &str| {
        let (server, _) = server_with(&doc, mock(), None, 100);
        let mut c = Conn::open(&rt, &server);
        init(&mut c, r)
    };
    // (served, requested, negotiated): written from the lifecycle section of each revision.
    for (requested, negotiated) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
        ("DRAFT", "2025-11-25"),
    ] {
        let r = all(requested);
        assert_eq!(
            r["result"]["protocolVersion"], negotiated,
            "requested {requested}: {r}"
        );
    }
    let only = |set: &str, requested: &str| {
        let (server, _) = server_with(&doc, mock(), Some(set.parse().expect("set")), 100);
        let mut c = Conn::open(&rt, &server);
        init(&mut c, requested)
    };
    assert_eq!(
        only("2025-06-18", "2025-11-25")["result"]["protocolVersion"],
        "2025-06-18"
    );
    assert_eq!(
        only("2025-06-18", "2024-11-05")["result"]["protocolVersion"],
        "2025-06-18"
    );
    assert_eq!(
        only("2024-11-05,2025-03-26", "2025-06-18")["result"]["protocolVersion"],
        "2025-03-26"
    );
    let r = only("2026-07-28", "2025-11-25");
    assert_eq!(r["error"]["code"], -32022, "{r}");
    assert_eq!(
        r["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );

    // The whole result, by hand: capabilities are what serve provides, serverInfo the
    // Implementation part of Info (Icon extensions dropped), instructions kept.
    let r = all("2025-06-18");
    assert_eq!(
        r["result"],
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "serverInfo": {"name": "serve-fixture", "title": "Serve Fixture", "version": "0.1.0",
                "description": "A hand-written description for the protocol tests of mcpdesc serve.",
                "websiteUrl": "https://serve.example",
                "icons": [{"src": "https://serve.example/icon.png", "mimeType": "image/png"}]},
            "instructions": "Call echo to repeat text; add sums two integers."
        })
    );
    // Missing or non-string protocolVersion.
    let (server, _) = server_with(&doc, mock(), None, 100);
    let mut c = Conn::open(&rt, &server);
    let r = c.request("initialize", json!({"capabilities": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // A second initialize on the same connection.
    let mut c = Conn::open(&rt, &server);
    init(&mut c, "2025-06-18");
    assert_eq!(init(&mut c, "2025-06-18")["error"]["code"], -32600);
}

/// 2026-07-28: `server/discover`, the per-request envelope, result envelopes, era locks.
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn stateless_lifecycle() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 100);
    let mut oracle = ShapeOracle::default();
    let env = envelope(V2026_07_28);
    let server_info = json!({"name": "serve-fixture", "title": "Serve Fixture", "version": "0.1.0",
        "description": "A hand-written description for the protocol tests of mcpdesc serve.",
        "websiteUrl": "https://serve.example",
        "icons": [{"src": "https://serve.example/icon.png", "mimeType": "image/png"}]});

    let mut c = Conn::open(&rt, &server);
    let d = c.request("server/discover", json!({"_meta": env}));
    oracle.record("server/discover", V2026_07_28, &d);
    assert_eq!(
        d["result"],
        json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "instructions": "Call echo to repeat text; add sums two integers.",
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info}
        })
    );
    // Discovery is a probe: the handshake still works afterwards.
    assert_eq!(
        init(&mut c, "2025-06-18")["result"]["protocolVersion"],
        "2025-06-18"
    );
    // …and then this connection is locked to the handshake era.
    let r = c.request("tools/list", json!({"_meta": env}));
    assert_eq!(r["error"]["code"], -32600, "{r}");

    let mut c = Conn::open(&rt, &server);
    let r = c.request("tools/list", json!({"_meta": env}));
    oracle.record("tools/list", V2026_07_28, &r);
    let res = &r["result"];
    assert_eq!(res["resultType"], "complete");
    assert_eq!(
        (res["ttlMs"].clone(), res["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"],
        server_info
    );
    // Locked to the stateless era now: no handshake, and every request needs the envelope.
    let r = init(&mut c, "2025-06-18");
    assert_eq!(r["error"]["code"], -32022, "{r}");
    assert_eq!(r["error"]["data"]["requested"], "2025-06-18");
    let r = c.request("tools/list", json!({}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // `ping` does not exist at 2026-07-28.
    assert_eq!(
        c.request("ping", json!({"_meta": env}))["error"]["code"],
        -32601
    );

    // Envelope faults.
    let mut c = Conn::open(&rt, &server);
    let half = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let r = c.request("tools/list", json!({"_meta": half}));
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("clientCapabilities")),
        "{r}"
    );
    let old = envelope(V2025_06_18);
    let r = c.request("tools/list", json!({"_meta": old}));
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(
        r["error"]["data"],
        json!({"supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"], "requested": "2025-06-18"})
    );
    let r = c.request("server/discover", json!({}));
    assert_eq!(
        r["error"]["code"], -32601,
        "discover without the envelope: {r}"
    );
    // A server that does not serve 2026-07-28 answers enveloped requests -32022 with
    // its handshake revisions, which lets auto-negotiating clients fall back.
    let (old_only, _) = server_with(
        &doc,
        mock(),
        Some("2025-06-18,2025-11-25".parse().expect("set")),
        100,
    );
    let mut c = Conn::open(&rt, &old_only);
    let r = c.request("server/discover", json!({"_meta": env}));
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(
        r["error"]["data"]["supported"],
        json!(["2025-06-18", "2025-11-25"])
    );
    assert_eq!(
        init(&mut c, "2025-11-25")["result"]["protocolVersion"],
        "2025-11-25"
    );
    oracle.check();
}

/// JSON-RPC and MCP errors, per the table in mcpdesc-serve's JSON-RPC module (`server/jsonrpc.rs`).
#[test]
fn errors_have_the_codes_each_revision_specifies() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 2);
    for rev in ProtocolRevision::ALL {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let code = |c: &mut Conn, method: &str, params: Value| -> i64 {
            let r = c.call(&env, method, params);
            r["error"]["code"]
                .as_i64()
                .unwrap_or_else(|| panic!("{method} @ {rev}: not an error: {r}"))
        };
        assert_eq!(code(&mut c, "no/such", json!({})), -32601, "{rev}");
        // The mock answers resources/read and prompts/get from named examples; the
        // fixture's `notes` resource and `summarize` prompt have none (-32602), an
        // undeclared URI is "Resource not found" (-32002 until 2026-07-28 retired it,
        // then -32602), and a missing required prompt argument is -32602.
        let not_found = if rev == V2026_07_28 { -32602 } else { -32002 };
        for (m, params, want) in [
            (
                "resources/read",
                json!({"uri": "file:///notes.txt"}),
                -32602,
            ),
            (
                "resources/read",
                json!({"uri": "file:///nowhere"}),
                not_found,
            ),
            (
                "prompts/get",
                json!({"name": "summarize", "arguments": {"text": "t"}}),
                -32602,
            ),
            ("prompts/get", json!({"name": "summarize"}), -32602),
            ("prompts/get", json!({"name": "nope"}), -32602),
        ] {
            assert_eq!(code(&mut c, m, params), want, "{m} @ {rev}");
        }
        for m in [
            "completion/complete",
            "logging/setLevel",
            "resources/subscribe",
        ] {
            assert_eq!(
                code(
                    &mut c,
                    m,
                    json!({"uri": "file:///notes.txt", "name": "summarize"})
                ),
                -32601,
                "{m} @ {rev}"
            );
        }
        assert_eq!(
            code(
                &mut c,
                "tools/call",
                json!({"name": "nope", "arguments": {}})
            ),
            -32602,
            "{rev}"
        );
        assert_eq!(
            code(&mut c, "tools/call", json!({"arguments": {}})),
            -32602,
            "{rev}"
        );
        assert_eq!(
            code(
                &mut c,
                "tools/call",
                json!({"name": "add", "arguments": [1]})
            ),
            -32602,
            "{rev}"
        );
        assert_eq!(
            code(
                &mut c,
                "tools/list",
                json!({"cursor": "1.0000000000000000"})
            ),
            -32602,
            "{rev}"
        );
        assert_eq!(
            code(&mut c, "tools/list", json!({"cursor": 7})),
            -32602,
            "{rev}"
        );
        // A cursor from another revision's list is not valid here.
        let other = if rev == V2026_07_28 {
            V2025_11_25
        } else {
            V2026_07_28
        };
        let mut o = Conn::open(&rt, &server);
        let oenv = o.open_at(other);
        let next = o.call(&oenv, "tools/list", json!({}))["result"]["nextCursor"].clone();
        assert!(next.is_string());
        assert_eq!(
            code(&mut c, "tools/list", json!({"cursor": next})),
            -32602,
            "{rev}"
        );
        let r = c.call(&env, "completion/complete", json!({}));
        assert_eq!(r["error"]["data"], json!({"method": "completion/complete"}));
    }
    let mut c = Conn::open(&rt, &server);
    // Before initialize: ping works, anything else is -32602.
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
    assert_eq!(c.request("tools/list", json!({}))["error"]["code"], -32602);
    // Framing faults: -32700 / -32600 with id null when no id can be read.
    c.write_raw(b"{not json\n");
    let r = c.recv();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (Value::Null, json!(-32700)),
        "{r}"
    );
    for bad in [
        json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}),
        json!({"jsonrpc": "1.0", "id": 5, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 6}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]}),
        json!("ping"),
        json!(42),
    ] {
        c.send(&bad);
        let r = c.recv();
        assert_eq!(r["error"]["code"], -32600, "{bad}: {r}");
    }
    // Responses and unknown notifications get no answer; the next request still does.
    c.send(&json!({"jsonrpc": "2.0", "id": 99, "result": {}}));
    c.notify("notifications/unknown", json!({}));
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
}

/// JSON-RPC batches exist only in MCP 2025-03-26 (added there, removed in 2025-06-18).
#[test]
fn batches_only_where_the_revision_has_them() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, _) = server_with(&doc, mock(), None, 100);
    let batch = json!([
        {"jsonrpc": "2.0", "id": "a", "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hello"}}},
        {"jsonrpc": "2.0", "id": "c", "method": "nope"}
    ]);
    let mut c = Conn::open(&rt, &server);
    c.open_at(V2025_03_26);
    c.send(&batch);
    let r = c.recv();
    let arr = r
        .as_array()
        .unwrap_or_else(|| panic!("a batch answer: {r}"));
    let mut ids: Vec<String> = arr
        .iter()
        .map(|m| m["id"].as_str().unwrap_or("?").to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, ["a", "b", "c"]);
    for m in arr {
        match m["id"].as_str() {
            Some("a") => assert_eq!(m["result"]["tools"][0]["name"], "echo"),
            Some("b") => assert_eq!(m["result"]["content"][1]["text"], "hello"),
            _ => assert_eq!(m["error"]["code"], -32601),
        }
    }
    c.send(&json!([]));
    assert_eq!(c.recv()["error"]["code"], -32600);
    for rev in [V2024_11_05, V2025_06_18, V2025_11_25] {
        let mut c = Conn::open(&rt, &server);
        c.open_at(rev);
        c.send(&batch);
        let r = c.recv();
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::Null, json!(-32600)),
            "{rev}: {r}"
        );
    }
    // Before initialize (which cannot be batched).
    let mut c = Conn::open(&rt, &server);
    c.send(&json!([{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}}]));
    assert_eq!(c.recv()["error"]["code"], -32600);
}

/// Arguments are validated against inputSchema before anything is sent: the tool
/// error names each argument (JSON pointer) and rule.
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn arguments_are_validated_first_and_nothing_is_sent() {
    let rt = Arc::new(rt());
    let up = Upstream::start(
        200,
        "{\"id\": 1, \"name\": \"Rex\"}",
        std::time::Duration::ZERO,
    );
    let doc =
        load(&mcpdesc_tests::workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"));
    let (server, log) = server_with(&doc, rest(Some(up.base_url()), &doc), None, 100);
    let mut oracle = ShapeOracle::default();
    for rev in revisions_of(&doc).iter() {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let r = c.call(
            &env,
            "tools/call",
            json!({"name": "get_pet", "arguments": {"id__path": "seven", "extra": true}}),
        );
        oracle.record("tools/call", rev, &r);
        let res = &r["result"];
        assert_eq!(res["isError"], true, "{r}");
        assert!(res.get("structuredContent").is_none());
        let text = res["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("argument `/id__path`") && text.contains("rule `type`"),
            "{text}"
        );
        assert!(
            text.contains("rule `additionalProperties`") || text.contains("extra"),
            "{text}"
        );
        assert_eq!(res.get("resultType").is_some(), rev == V2026_07_28, "{rev}");
    }
    assert!(
        up.request_lines().is_empty(),
        "nothing may reach the upstream: {:?}",
        up.request_lines()
    );
    let lines = log.lock().map(|v| v.clone()).unwrap_or_default();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("tools/call get_pet [2025-06-18] -> not sent upstream")),
        "{lines:?}"
    );
    oracle.check();
}
