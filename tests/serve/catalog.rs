//! Large catalogs (issue 21): selections (toolsets, globs, read-only, the HTTP paths) and
//! the search facade (search_tools → describe_tools → call_tool).
//!
//! Oracles: hand-written expectations (the petstore's tools by the HTTP method of their
//! OpenAPI operation; GitHub's operation counts per OpenAPI tag, read from the spec by
//! this test, not through the importer), the server's own direct `tools/list` and
//! `tools/call` (the facade must answer exactly what a direct client gets), and what a
//! recording upstream received.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::{self, *};
use mcpdesc_serve::{Discovery, SearchOptions, Selection, ServeOptions};
use mcpdesc_tests::{fixture, missing, node_modules};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

fn petstore() -> Value {
    load(&fixture("../generated/petstore-3.0.mcpdesc.yaml"))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn selected(doc: &Value, selection: Selection) -> Arc<mcpdesc_serve::Server> {
    server_opts(
        doc,
        mock(),
        ServeOptions {
            selection,
            ..ServeOptions::default()
        },
    )
    .0
}

fn names_at(server: &Arc<mcpdesc_serve::Server>, rev: ProtocolRevision) -> Vec<String> {
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, server);
    let env = c.open_at(rev);
    let (tools, _) = c.list_all(&env, "tools/list", "tools");
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The petstore's read-only tools: its GET, HEAD and OPTIONS operations (the importer's
/// hint rule), by hand from tests/fixtures/openapi/petstore-3.0.yaml.
const PETSTORE_READ_ONLY: &[&str] = &[
    "list_pets",
    "get_pet",
    "get_tree_c3b76d",
    "get_remote",
    "search_things_v2",
    "head_notes",
    "notes_options",
    "get_tree_eed841",
    "generate_the_quarterly_financial_c4dda8_all_subsidiaries_by_year",
];

#[test]
fn read_only_keeps_the_tools_hinted_read_only() {
    let server = selected(
        &petstore(),
        Selection::new(&[], &[], &[], true).expect("selection"),
    );
    let mut got = names_at(&server, V2025_11_25);
    got.sort();
    let mut want = strings(PETSTORE_READ_ONLY);
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn toolsets_globs_and_exclusions_compose() {
    let doc = petstore();
    let pets = selected(
        &doc,
        Selection::new(&strings(&["pets"]), &[], &[], false).expect("selection"),
    );
    assert_eq!(
        names_at(&pets, V2025_11_25),
        ["list_pets", "create_pet", "get_pet"]
    );
    // --tools adds to --toolsets; --exclude-tools wins over both.
    let mixed = selected(
        &doc,
        Selection::new(
            &strings(&["pets"]),
            &strings(&["*_notes", "upload_*"]),
            &strings(&["delete_*", "upload_card"]),
            false,
        )
        .expect("selection"),
    );
    assert_eq!(
        names_at(&mixed, V2025_11_25),
        [
            "list_pets",
            "create_pet",
            "get_pet",
            "upload_photo",
            "head_notes"
        ]
    );
    // A revision's view keeps its own scoping: list_pets is declared per revision.
    let ro = selected(
        &doc,
        Selection::new(&strings(&["pets"]), &[], &[], true).expect("selection"),
    );
    assert_eq!(names_at(&ro, V2026_07_28), ["list_pets", "get_pet"]);
}

#[test]
fn an_unknown_toolset_is_refused_at_start_naming_the_known_ones() {
    let p = mcpdesc_serve::prepare(
        Arc::new(petstore()),
        mcpdesc_serve::Options {
            serve: ServeOptions {
                selection: Selection::new(&strings(&["petz"]), &[], &[], false).expect("selection"),
                ..ServeOptions::default()
            },
            backend: mock(),
            transport: mcpdesc_serve::Transport::Stdio,
        },
    );
    match p {
        Err(mcpdesc_serve::StartError::Toolsets(e)) => assert_eq!(
            e.to_string(),
            "no tool is in toolset `petz`; the toolsets are: adoption, auth, pets"
        ),
        other => panic!("expected a usage error, got {other:?}"),
    }
}

/// GitHub: every toolset serves exactly the operations its OpenAPI tag has, and
/// read-only exactly the GET operations. The counts are read from the OpenAPI document
/// here (the importer is not asked), and a few are written out by hand.
#[test]
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
fn github_toolsets_serve_their_tags_operations() {
    let Some(modules) = node_modules() else {
        return missing(".deps/node (run `cargo xtask deps`)");
    };
    let spec_path = modules.join("@octokit/openapi/generated/api.github.com.json");
    if !spec_path.exists() {
        return missing("@octokit/openapi in .deps/node");
    }
    let spec: Value =
        serde_json::from_slice(&std::fs::read(&spec_path).expect("read")).expect("json");
    let mut per_tag: BTreeMap<String, usize> = BTreeMap::new();
    let mut gets = 0;
    for item in spec["paths"].as_object().expect("paths").values() {
        for (method, op) in item.as_object().expect("path item") {
            if ![
                "get", "put", "post", "delete", "patch", "head", "options", "trace",
            ]
            .contains(&method.as_str())
            {
                continue;
            }
            gets += usize::from(method == "get");
            for t in op["tags"].as_array().into_iter().flatten() {
                *per_tag
                    .entry(t.as_str().expect("tag").to_string())
                    .or_default() += 1;
            }
        }
    }
    // By hand (api.github.com.json of @octokit/openapi as pinned in xtask/deps).
    for (tag, n) in [("issues", 58), ("pulls", 34), ("repos", 204), ("users", 47)] {
        assert_eq!(per_tag[tag], n, "the pinned spec's `{tag}` operations");
    }
    let doc = mcpdesc_tests::import_file(&spec_path, &Default::default())
        .expect("imports")
        .value;
    let table = mcpdesc_serve::toolset_table(&mcpdesc_tests::valid(&doc));
    assert_eq!(
        table.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
        per_tag.keys().cloned().collect::<Vec<_>>()
    );
    let all = selected(&doc, Selection::default());
    let rev = all.revisions().latest().expect("a revision");
    for (tag, n) in [("issues", 58usize), ("actions", 187), ("meta", 5)] {
        let s = selected(
            &doc,
            Selection::new(&strings(&[tag]), &[], &[], false).expect("selection"),
        );
        assert_eq!(names_at(&s, rev).len(), n, "toolset {tag}");
    }
    let ro = selected(
        &doc,
        Selection::new(&[], &[], &[], true).expect("selection"),
    );
    assert_eq!(
        names_at(&ro, rev).len(),
        gets,
        "read-only = the GET operations"
    );
    // The facade's list is small whatever the catalog.
    let facade = server_opts(
        &doc,
        mock(),
        ServeOptions {
            discovery: Discovery::Search(SearchOptions::default()),
            ..ServeOptions::default()
        },
    )
    .0;
    for r in facade.selection_report() {
        assert_eq!(r.kept, 1223, "{r}");
        assert!(r.list.bytes <= 6000, "facade tools/list: {r}");
    }
}

fn facade_server(doc: &Value, pins: &[&str]) -> Arc<mcpdesc_serve::Server> {
    server_opts(
        doc,
        mock(),
        ServeOptions {
            discovery: Discovery::Search(SearchOptions {
                pins: strings(pins),
                ..SearchOptions::default()
            }),
            ..ServeOptions::default()
        },
    )
    .0
}

fn call(c: &mut Conn, env: &Option<Value>, name: &str, args: Value) -> Value {
    c.call(env, "tools/call", json!({"name": name, "arguments": args}))
}

fn text_of(r: &Value) -> String {
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_facade_lists_three_tools_and_the_pins_at_every_revision() {
    let doc = every_revision();
    let server = facade_server(&doc, &["echo"]);
    let direct = selected(&doc, Selection::default());
    let rt = Arc::new(rt());
    for rev in server.revisions().iter() {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let (tools, pages) = c.list_all(&env, "tools/list", "tools");
        assert_eq!(pages.len(), 1);
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(
            names,
            ["search_tools", "describe_tools", "call_tool", "echo"],
            "{rev}"
        );
        // Fields the revision does not define are absent (title and outputSchema since
        // 2025-06-18, annotations since 2025-03-26).
        let has = |k: &str| tools[0].get(k).is_some();
        assert_eq!(has("title"), rev >= V2025_06_18, "{rev}");
        assert_eq!(has("outputSchema"), rev >= V2025_06_18, "{rev}");
        assert_eq!(has("annotations"), rev >= V2025_03_26, "{rev}");
        // One description: no `servers` filter (issue 31).
        assert!(
            tools[0]["inputSchema"]["properties"]
                .get("servers")
                .is_none(),
            "{rev}"
        );
        // The pin is listed exactly as a direct server lists it.
        let mut d = Conn::open(&rt, &direct);
        let denv = d.open_at(rev);
        let (dtools, _) = d.list_all(&denv, "tools/list", "tools");
        let echo = dtools.iter().find(|t| t["name"] == "echo").expect("echo");
        assert_eq!(&tools[3], echo, "{rev}");
    }
}

#[test]
fn search_describe_call_equals_the_direct_answers() {
    let doc = every_revision();
    let server = facade_server(&doc, &[]);
    let direct = selected(&doc, Selection::default());
    let rt = Arc::new(rt());
    for rev in [V2025_06_18, V2026_07_28] {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let r = call(&mut c, &env, "search_tools", json!({"query": "echo"}));
        let found = &r["result"]["structuredContent"]["tools"];
        assert_eq!(found[0]["name"], "echo", "an exact name ranks first: {r}");
        assert_eq!(found[0]["server"], doc["info"]["name"]);
        // One description: no ranking of descriptions (issue 31).
        assert!(
            r["result"]["structuredContent"].get("servers").is_none(),
            "{r}"
        );
        // The same list as text.
        let text: Value = serde_json::from_str(&text_of(&r)).expect("JSON text");
        assert_eq!(&text, &r["result"]["structuredContent"]);

        let mut d = Conn::open(&rt, &direct);
        let denv = d.open_at(rev);
        let (dtools, _) = d.list_all(&denv, "tools/list", "tools");
        let r = call(&mut c, &env, "describe_tools", json!({"names": ["echo"]}));
        let echo = dtools.iter().find(|t| t["name"] == "echo").expect("echo");
        assert_eq!(r["result"]["structuredContent"]["tools"], json!([echo]));

        let args = json!({"text": "hello"});
        let via = call(
            &mut c,
            &env,
            "call_tool",
            json!({"name": "echo", "arguments": args}),
        );
        let straight = call(&mut d, &denv, "echo", args.clone());
        assert_eq!(via["result"], straight["result"], "{rev}");
        // Invalid arguments: the same tool error as a direct call, nothing run.
        let bad = json!({"text": 5});
        let via = call(
            &mut c,
            &env,
            "call_tool",
            json!({"name": "echo", "arguments": bad}),
        );
        let straight = call(&mut d, &denv, "echo", bad.clone());
        assert_eq!(via["result"], straight["result"], "{rev}");
        assert_eq!(via["result"]["isError"], true);
    }
}

#[test]
fn hostile_facade_input_gets_a_tool_error() {
    let doc = every_revision();
    let server = facade_server(&doc, &[]);
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2025_11_25);
    let long = "movie ".repeat(20_000);
    let cases = [
        (
            "search_tools",
            json!({"query": "echo", "limit": 1_000_000_000u64}),
            "maximum",
        ),
        ("search_tools", json!({"query": ""}), "minLength"),
        ("search_tools", json!({"query": "   "}), "blank"),
        ("search_tools", json!({"query": long}), "maxLength"),
        (
            "search_tools",
            json!({"query": "echo", "limit": -1}),
            "minimum",
        ),
        (
            "search_tools",
            json!({"query": "echo", "surprise": 1}),
            "additionalProperties",
        ),
        (
            "describe_tools",
            json!({"names": ["ehco"]}),
            "closest are: echo",
        ),
        ("describe_tools", json!({"names": []}), "minItems"),
        (
            "describe_tools",
            json!({"names": vec!["echo"; 21]}),
            "maxItems",
        ),
        (
            "call_tool",
            json!({"name": "nope", "arguments": {}}),
            "Unknown tool `nope`",
        ),
        ("call_tool", json!({"name": "echo"}), "required"),
        (
            "call_tool",
            json!({"name": "echo", "arguments": {"bogus": true}}),
            "echo",
        ),
        (
            "call_tool",
            json!({"name": "search_tools", "arguments": {}}),
            "facade's own",
        ),
    ];
    for (tool, args, expect) in cases {
        let r = call(&mut c, &env, tool, args.clone());
        assert_eq!(r["result"]["isError"], true, "{tool} {args}: {r}");
        let t = text_of(&r);
        assert!(t.contains(expect), "{tool}: `{expect}` not in {t}");
    }
    // A tool that is not listed is not callable directly.
    let r = call(&mut c, &env, "echo", json!({"text": "x"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // The server still answers.
    let r = call(&mut c, &env, "search_tools", json!({"query": "echo"}));
    assert_eq!(r["result"]["structuredContent"]["tools"][0]["name"], "echo");
}

#[test]
fn call_tool_sends_the_upstream_the_direct_request() {
    let up = Upstream::start(200, r#"{"id": 1, "name": "Rex"}"#, Duration::ZERO);
    let doc = petstore();
    let backend = || rest(Some(up.base_url()), &doc);
    let facade = server_opts(
        &doc,
        backend(),
        ServeOptions {
            discovery: Discovery::Search(SearchOptions::default()),
            ..ServeOptions::default()
        },
    )
    .0;
    let direct = server_opts(&doc, backend(), ServeOptions::default()).0;
    let rt = Arc::new(rt());
    let args = json!({"id__path": 7, "id__query": "a b/ü"});
    let mut d = Conn::open(&rt, &direct);
    let denv = d.open_at(V2025_11_25);
    let straight = call(&mut d, &denv, "get_pet", args.clone());
    let mut c = Conn::open(&rt, &facade);
    let env = c.open_at(V2025_11_25);
    let via = call(
        &mut c,
        &env,
        "call_tool",
        json!({"name": "get_pet", "arguments": args}),
    );
    assert_eq!(via["result"], straight["result"]);
    // A call with a body: the body too, byte for byte.
    let body_args = json!({"name": "Rex", "tag": "dog"});
    let straight_body = call(&mut d, &denv, "create_pet", body_args.clone());
    let via_body = call(
        &mut c,
        &env,
        "call_tool",
        json!({"name": "create_pet", "arguments": body_args}),
    );
    assert_eq!(via_body["result"], straight_body["result"]);
    let heads = up.request_heads();
    assert_eq!(heads.len(), 4, "{heads:?} {straight}");
    assert_eq!(
        heads[0], heads[1],
        "the same request line and headers, byte for byte"
    );
    assert_eq!(heads[2], heads[3], "the same head of the call with a body");
    let bodies = up.bodies.lock().expect("bodies").clone();
    assert!(!bodies[2].is_empty(), "create_pet sends a body");
    assert_eq!(bodies[2], bodies[3], "the same body, byte for byte");
}

#[test]
fn http_paths_serve_fixed_selections() {
    let doc = petstore();
    let server = selected(&doc, Selection::default());
    let rt = Arc::new(rt());
    let h = HttpServer::start(&rt, &server, Default::default());
    let names = |path: &str| -> Result<Vec<String>, u16> {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
        let r = post_path(h.addr, path, &[], &init);
        if r.status != 200 {
            return Err(r.status);
        }
        let sid = r.header("mcp-session-id").expect("session").to_string();
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let r = post_path(
            h.addr,
            path,
            &[
                ("mcp-session-id", &sid),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            &list,
        );
        // A session answers on its own path only.
        let other = if path == "/mcp" {
            "/mcp/readonly"
        } else {
            "/mcp"
        };
        let wrong = post_path(
            h.addr,
            other,
            &[
                ("mcp-session-id", &sid),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            &list,
        );
        assert_eq!(wrong.status, 404, "{path}'s session on {other}");
        Ok(r.json()["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect())
    };
    assert_eq!(names("/mcp").map(|n| n.len()), Ok(17));
    assert_eq!(
        names("/mcp/x/pets"),
        Ok(strings(&["list_pets", "create_pet", "get_pet"]))
    );
    assert_eq!(
        names("/mcp/x/pets/readonly"),
        Ok(strings(&["list_pets", "get_pet"]))
    );
    let mut ro = names("/mcp/readonly").expect("served");
    ro.sort();
    let mut want = strings(PETSTORE_READ_ONLY);
    want.sort();
    assert_eq!(ro, want);
    assert_eq!(names("/mcp/x/nope"), Err(404));
    assert_eq!(names("/mcp/x/"), Err(404));
    assert_eq!(names("/mcp/x/pets/extra"), Err(404));
    assert_eq!(names("/mcpx"), Err(404));
}

/// `lint --discovery search` reports the facade's list as `serve --discovery search`
/// lists it: the same bytes, per revision.
#[test]
fn lint_reports_the_facade_list_that_serve_lists() {
    let doc = petstore();
    let server = facade_server(&doc, &[]);
    let report = mcpdesc_tests::lint(
        &doc,
        &mcpdesc_lint::LintOptions {
            discovery_search: true,
            ..Default::default()
        },
    );
    let rt = Arc::new(rt());
    for rev in server.revisions().iter() {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let (tools, _) = c.list_all(&env, "tools/list", "tools");
        let bytes = json!({ "tools": tools }).to_string().len();
        let line = report
            .diagnostics
            .iter()
            .find(|d| d.code == "facade-context" && d.message.contains(&format!(" at {rev} ")))
            .unwrap_or_else(|| panic!("no facade-context for {rev}"));
        assert!(
            line.message.contains(&format!(" is {bytes} bytes")),
            "{rev}: served {bytes} bytes; lint says {}",
            line.message
        );
    }
}
