//! Several descriptions served as one server (issue 21 §2, `mcpdesc_serve::prepare_many`).
//!
//! Oracles: hand-written served names; two recording upstreams, one per description,
//! and which of them received which request and credential.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::*;
use mcpdesc_rest::{RestOptions, Secret};
use mcpdesc_serve::{
    BackendOptions, Member, MockOptions, Prepared, ServeOptions, StartError, Transport,
    prepare_many,
};
use mcpdesc_tests::fixture;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn petstore() -> Arc<Value> {
    Arc::new(load(&fixture("../generated/petstore-3.0.mcpdesc.yaml")))
}

fn rest_at(base: &str, api_key: &str) -> BackendOptions {
    BackendOptions::Rest(RestOptions {
        base_url: Some(base.to_string()),
        credentials: [("api_key".to_string(), Secret::new(api_key))].into(),
        timeout: Duration::from_secs(60),
        ..RestOptions::default()
    })
}

fn member(doc: &Arc<Value>, prefix: &str, backend: BackendOptions) -> Member {
    Member {
        doc: Arc::clone(doc),
        prefix: Some(prefix.to_string()),
        backend,
    }
}

#[test]
fn each_call_reaches_its_own_descriptions_upstream_with_its_own_credential() {
    let (up_a, up_b) = (
        Upstream::start(200, r#"{"id": 1}"#, Duration::ZERO),
        Upstream::start(200, r#"{"id": 2}"#, Duration::ZERO),
    );
    let doc = petstore();
    let (log, _) = mcpdesc_serve::Log::buffer();
    let p = prepare_many(
        vec![
            member(&doc, "alpha", rest_at(&up_a.base_url(), "secret-a")),
            member(&doc, "beta", rest_at(&up_b.base_url(), "secret-b")),
        ],
        ServeOptions {
            log,
            ..ServeOptions::default()
        },
        Transport::Stdio,
    )
    .unwrap_or_else(|e| panic!("prepare_many: {e:?}"));
    let server = Arc::clone(p.server());
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2025_11_25);
    let (tools, _) = c.list_all(&env, "tools/list", "tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    // The petstore lists 17 tools at 2025-11-25 (20 declarations, three tools with a
    // variant per scope), each once per description.
    assert_eq!(names.len(), 2 * 17, "{names:?}");
    for n in [
        "alpha_get_pet",
        "beta_get_pet",
        "alpha_list_pets",
        "beta_list_pets",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    assert!(
        names.iter().all(|n| mcpdesc_names::is_host_safe(n, 64)
            && (n.starts_with("alpha_") || n.starts_with("beta_"))),
        "{names:?}"
    );
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len());

    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "beta_get_pet", "arguments": {"id__path": 7, "id__query": "q"}}),
    );
    assert_eq!(r["result"]["isError"], Value::Null, "{r}");
    assert!(
        up_a.request_heads().is_empty(),
        "nothing reached alpha's upstream"
    );
    let b = up_b.request_heads();
    assert_eq!(b.len(), 1);
    let head = b[0].join("\n").to_ascii_lowercase();
    assert!(head.contains("x-api-key: secret-b"), "{head}");
    assert!(!head.contains("secret-a"), "{head}");

    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "alpha_get_pet", "arguments": {"id__path": 8, "id__query": "q"}}),
    );
    assert_eq!(r["result"]["isError"], Value::Null, "{r}");
    let a = up_a.request_heads();
    assert_eq!(a.len(), 1);
    let head = a[0].join("\n").to_ascii_lowercase();
    assert!(head.contains("x-api-key: secret-a"), "{head}");
    assert!(!head.contains("secret-b"), "{head}");
    assert_eq!(up_b.request_heads().len(), 1);
}

#[test]
fn a_mock_and_a_gateway_serve_side_by_side_and_refusals_name_the_description() {
    let doc = petstore();
    let notes = Arc::new(json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "Notes", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "tools": [{"name": "get_pet", "inputSchema": {"type": "object"},
            "examples": {"one": {"input": {}, "result": {"resultType": "complete",
                "content": [{"type": "text", "text": "a note"}]}}}}]
    }));
    let (log, _) = mcpdesc_serve::Log::buffer();
    let p = prepare_many(
        vec![
            member(
                &notes,
                "notes",
                BackendOptions::Mock(MockOptions::default()),
            ),
            member(&doc, "live", rest_at("http://127.0.0.1:9", "k")),
        ],
        ServeOptions {
            log,
            ..ServeOptions::default()
        },
        Transport::Stdio,
    )
    .unwrap_or_else(|e| panic!("prepare_many: {e:?}"));
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, p.server());
    let env = c.open_at(V2026_07_28);
    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "notes_get_pet", "arguments": {}}),
    );
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("Illustrative result"), "{r}");
    assert_eq!(r["result"]["content"][1]["text"], "a note", "{r}");

    // The second description is invalid: refused, naming it.
    let mut bad = (*doc).clone();
    bad["tools"][0]["inputSchema"] = json!(7);
    let e = prepare_many(
        vec![
            member(&doc, "pets", BackendOptions::Mock(MockOptions::default())),
            member(
                &Arc::new(bad),
                "bad",
                BackendOptions::Mock(MockOptions::default()),
            ),
        ],
        ServeOptions::default(),
        Transport::Stdio,
    )
    .expect_err("refused");
    match e {
        StartError::Member { member: 1, error } => {
            assert!(matches!(*error, StartError::Rejected(_)), "{error:?}")
        }
        other => panic!("{other:?}"),
    }
}

/// `mcpdesc serve --config FILE` (the real binary over stdio): each API of the file with
/// its own base URL, credential (named in the file for `alpha`; the prefixed default
/// variable `MCPDESC_CREDENTIAL_BETA_API_KEY` for `beta`), header and prefix, the
/// description path relative to the file. A call reaches only its own API's upstream,
/// with only its own credential and header. The file's server-wide `protocol-versions`
/// applies (the server answers 2025-06-18 to a client asking for 2025-11-25).
#[test]
fn a_gateway_configuration_gives_each_api_its_own_settings() {
    let (up_a, up_b) = (
        Upstream::start(200, r#"{"id": 1}"#, Duration::ZERO),
        Upstream::start(200, r#"{"id": 2}"#, Duration::ZERO),
    );
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        fixture("../generated/petstore-3.0.mcpdesc.yaml"),
        dir.path().join("petstore.mcpdesc.yaml"),
    )
    .expect("copy");
    let config = dir.path().join("gateway.yaml");
    std::fs::write(
        &config,
        format!(
            "protocol-versions: 2025-06-18\n\
             timeout: 30\n\
             apis:\n\
             - description: petstore.mcpdesc.yaml\n  \
               prefix: alpha\n  \
               base-url: {}\n  \
               credential:\n    \
                 api_key: CFG_ALPHA_KEY\n  \
               header:\n  \
               - 'X-Team: a'\n\
             - description: petstore.mcpdesc.yaml\n  \
               prefix: beta\n  \
               base-url: {}\n",
            up_a.base_url(),
            up_b.base_url()
        ),
    )
    .expect("write");
    let env = [
        ("CFG_ALPHA_KEY".to_string(), Secret::new("secret-a")),
        (
            "MCPDESC_CREDENTIAL_BETA_API_KEY".to_string(),
            Secret::new("secret-b"),
        ),
    ];
    let args = [
        "serve".to_string(),
        "--config".to_string(),
        config.display().to_string(),
    ];
    let mut t = mcpdesc_live::client::StdioTransport::spawn(
        &mcpdesc_tests::mcpdesc_bin().display().to_string(),
        &args,
        &env,
        64 * 1024,
        Duration::from_secs(2),
    )
    .expect("spawn mcpdesc serve --config");
    let init = rpc(
        &mut t,
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    let call = |t: &mut _, id, name: &str| {
        let r = rpc(
            t,
            id,
            "tools/call",
            json!({"name": name, "arguments": {"id__path": 7, "id__query": "q"}}),
        );
        assert_eq!(r["result"]["isError"], Value::Null, "{r}");
    };
    call(&mut t, 2, "beta_get_pet");
    assert!(
        up_a.request_heads().is_empty(),
        "nothing reached alpha's upstream"
    );
    let b = up_b.request_heads();
    assert_eq!(b.len(), 1);
    let head = b[0].join("\n").to_ascii_lowercase();
    assert!(head.contains("x-api-key: secret-b"), "{head}");
    assert!(
        !head.contains("secret-a") && !head.contains("x-team"),
        "{head}"
    );
    call(&mut t, 3, "alpha_get_pet");
    let a = up_a.request_heads();
    assert_eq!(a.len(), 1);
    let head = a[0].join("\n").to_ascii_lowercase();
    assert!(head.contains("x-api-key: secret-a"), "{head}");
    assert!(head.contains("x-team: a"), "{head}");
    assert!(!head.contains("secret-b"), "{head}");
    assert_eq!(up_b.request_heads().len(), 1);
}

/// A bad gateway configuration is a usage error (exit 2) naming each bad setting at its
/// key's line:column in the file, in file order: a value its flag's parser refuses, a server-wide setting in
/// an API entry, an API without a description, and a key that is no setting.
#[test]
fn a_bad_gateway_configuration_names_each_setting_at_its_place() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("gateway.yaml");
    std::fs::write(
        &config,
        "timeout: -3\n\
         apis:\n\
         - description: petstore.mcpdesc.yaml\n  \
           discovery: search\n\
         - prefix: x\n\
         colour: blue\n",
    )
    .expect("write");
    let out = std::process::Command::new(mcpdesc_tests::mcpdesc_bin())
        .args(["serve", "--config"])
        .arg(&config)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 4, "{err}");
    let expect = [
        (
            "gateway.yaml:1:1: error[config-invalid]: invalid value '-3' for '--timeout <SECS>'",
            "(at /timeout)",
        ),
        (
            "gateway.yaml:4:3: error[config-invalid]: `discovery` is not a per-API setting",
            "(at /apis/0/discovery)",
        ),
        (
            "gateway.yaml:5:3: error[config-invalid]: each API names its description file",
            "(at /apis/1/description)",
        ),
        (
            "gateway.yaml:6:1: error[config-invalid]: `colour` is not a setting of `mcpdesc serve`",
            "(at /colour)",
        ),
    ];
    for (line, (place, words)) in lines.iter().zip(expect) {
        assert!(
            line.contains(place) && line.contains(words),
            "{line}\n{err}"
        );
    }
    // The same check of a flag given beside --config: the command line's parser.
    let out = std::process::Command::new(mcpdesc_tests::mcpdesc_bin())
        .args(["serve", "--config"])
        .arg(&config)
        .arg("petstore.mcpdesc.yaml")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// `notes` (prefix `notes`) and `pets` (prefix `pets`), both mocks, behind the search
/// facade over stdio.
fn notes_and_pets_behind_the_facade(notes: &Arc<Value>, pets: &Arc<Value>) -> Prepared {
    let (log, _) = mcpdesc_serve::Log::buffer();
    prepare_many(
        vec![
            member(notes, "notes", BackendOptions::Mock(MockOptions::default())),
            member(pets, "pets", BackendOptions::Mock(MockOptions::default())),
        ],
        ServeOptions {
            log,
            discovery: mcpdesc_serve::Discovery::Search(mcpdesc_serve::SearchOptions::default()),
            ..ServeOptions::default()
        },
        Transport::Stdio,
    )
    .unwrap_or_else(|e| panic!("prepare_many: {e:?}"))
}

/// The search facade over several descriptions: each result's `server` is its own
/// description's `info.name` (hand-written: "Notes" and the petstore's name), a name
/// from one description calls that description's backend through `call_tool`, and a
/// tool's unprefixed name (not a served name) is an unknown name.
#[test]
fn the_search_facade_names_each_results_own_description() {
    let doc = petstore();
    let pet_name = doc["info"]["name"].as_str().expect("info.name").to_string();
    let notes = Arc::new(json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "Notes", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "tools": [{"name": "get_pet", "description": "Get a pet note.",
            "inputSchema": {"type": "object"},
            "examples": {"one": {"input": {}, "result": {"resultType": "complete",
                "content": [{"type": "text", "text": "a note"}]}}}}]
    }));
    let p = notes_and_pets_behind_the_facade(&notes, &doc);
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, p.server());
    let env = c.open_at(V2026_07_28);
    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "search_tools", "arguments": {"query": "get pet", "limit": 50}}),
    );
    let hits = r["result"]["structuredContent"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let server_of = |name: &str| {
        hits.iter()
            .find(|h| h["name"] == name)
            .map(|h| h["server"].clone())
            .unwrap_or_else(|| panic!("{name} in {r}"))
    };
    assert_eq!(server_of("notes_get_pet"), json!("Notes"));
    assert_eq!(server_of("pets_get_pet"), json!(pet_name));
    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "call_tool", "arguments": {"name": "notes_get_pet", "arguments": {}}}),
    );
    assert_eq!(r["result"]["content"][1]["text"], "a note", "{r}");
    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "call_tool", "arguments": {"name": "get_pet", "arguments": {}}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
}

/// The search facade's `servers` (issue 31): with two descriptions `search_tools` takes
/// a `servers` filter (their names enumerated) and its result ranks the descriptions
/// the request is about; expectations by hand from the two descriptions' words: only
/// the Notes description has "memo", only the petstore has "photo", and the one-tool
/// Notes description is the smaller document, so for "memo photo" it ranks first with
/// the best score, 1, and the petstore second below it. Every result validates
/// against the listed outputSchema. Unknown names are tool errors naming the known ones.
#[test]
fn the_search_facade_filters_and_ranks_servers() {
    let doc = petstore();
    let pets = doc["info"]["name"].as_str().expect("info.name").to_string();
    let notes = Arc::new(json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "Notes", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "tools": [{"name": "get_pet_memo", "description": "Read the memo about a pet.",
            "inputSchema": {"type": "object"}}]
    }));
    let p = notes_and_pets_behind_the_facade(&notes, &doc);
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, p.server());
    let env = c.open_at(V2026_07_28);
    let (tools, _) = c.list_all(&env, "tools/list", "tools");
    let search = tools
        .iter()
        .find(|t| t["name"] == "search_tools")
        .expect("search_tools listed");
    let mut known = vec!["Notes".to_string(), pets.clone()];
    known.sort();
    assert_eq!(
        search["inputSchema"]["properties"]["servers"]["items"]["enum"],
        json!(known)
    );
    let output = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&search["outputSchema"])
        .expect("outputSchema compiles");
    let mut search_tools = |args: Value| {
        let r = c.call(
            &env,
            "tools/call",
            json!({"name": "search_tools", "arguments": args}),
        );
        if let Some(sc) = r["result"].get("structuredContent") {
            let problems: Vec<String> = output.iter_errors(sc).map(|e| e.to_string()).collect();
            assert!(problems.is_empty(), "{problems:?}: {sc}");
        }
        r
    };
    let r = search_tools(json!({"query": "memo photo", "limit": 50}));
    let ranked = &r["result"]["structuredContent"]["servers"];
    assert_eq!(ranked[0], json!({"name": "Notes", "score": 1.0}), "{r}");
    assert_eq!(ranked[1]["name"], json!(pets), "{r}");
    let second = ranked[1]["score"].as_f64().unwrap_or(0.0);
    assert!(second > 0.0 && second < 1.0, "{r}");
    assert_eq!(ranked.as_array().map(Vec::len), Some(2), "{r}");
    // Only one description has the word: only it is ranked.
    let r = search_tools(json!({"query": "photo"}));
    assert_eq!(
        r["result"]["structuredContent"]["servers"],
        json!([{"name": pets, "score": 1.0}]),
        "{r}"
    );
    // "pet" is in both; the filter keeps one description's tools, the ranking still
    // names both.
    let servers_of = |r: &Value| -> Vec<String> {
        r["result"]["structuredContent"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| h["server"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let all = search_tools(json!({"query": "pet", "limit": 50}));
    let mut both = servers_of(&all);
    both.sort();
    both.dedup();
    assert_eq!(both, known, "{all}");
    let r = search_tools(json!({"query": "pet", "limit": 50, "servers": ["Notes"]}));
    assert_eq!(servers_of(&r), ["Notes"], "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["tools"][0]["name"],
        "notes_get_pet_memo"
    );
    assert_eq!(
        r["result"]["structuredContent"]["servers"],
        all["result"]["structuredContent"]["servers"]
    );
    let r = search_tools(json!({"query": "pet", "limit": 50, "servers": [pets]}));
    let got = servers_of(&r);
    assert!(!got.is_empty() && got.iter().all(|s| *s == pets), "{r}");
    // An unknown description: a tool error naming it and the known ones.
    let r = search_tools(json!({"query": "pet", "servers": ["Nowhere"]}));
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    for name in ["Nowhere", "Notes", pets.as_str()] {
        assert!(text.contains(name), "{name} not in {text}");
    }
}

/// Code mode over several descriptions (issue 22: `--discovery code` composes with
/// several descriptions): `tools/list` is `search_api` and `execute`, `search_api`
/// declares the prefixed names, and one script calls a tool of each description, each
/// answered by its own backend (the mock's note, and the gateway's upstream with its
/// own credential).
#[test]
fn code_mode_scripts_call_tools_of_every_description() {
    let up = Upstream::start(200, r#"{"id": 2, "name": "Rex"}"#, Duration::ZERO);
    let doc = petstore();
    let notes = Arc::new(json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "Notes", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "tools": [{"name": "get_note", "description": "Get a note.",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            "examples": {"one": {"input": {}, "result": {
                "content": [{"type": "text", "text": "{\"text\":\"a note\"}"}],
                "structuredContent": {"text": "a note"}}}}}]
    }));
    let (log, _) = mcpdesc_serve::Log::buffer();
    let p = prepare_many(
        vec![
            member(
                &notes,
                "notes",
                BackendOptions::Mock(MockOptions::default()),
            ),
            member(&doc, "pets", rest_at(&up.base_url(), "secret-p")),
        ],
        ServeOptions {
            log,
            discovery: mcpdesc_serve::Discovery::Code(mcpdesc_serve::CodeOptions {
                lexical: true,
                // The `mcpdesc` binary's hidden worker (this test binary is not one).
                worker: mcpdesc_serve::CodeWorker::new(mcpdesc_tests::mcpdesc_bin())
                    .arg("__sandbox-worker"),
                ..mcpdesc_serve::CodeOptions::default()
            }),
            ..ServeOptions::default()
        },
        Transport::Stdio,
    )
    .unwrap_or_else(|e| panic!("prepare_many: {e:?}"));
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, p.server());
    let env = c.open_at(V2025_11_25);
    let (tools, _) = c.list_all(&env, "tools/list", "tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["search_api", "execute"]);
    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "search_api", "arguments": {"query": "get a note or a pet", "limit": 50}}),
    );
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("notes_get_note(") && text.contains("pets_get_pet("),
        "{text}"
    );
    let r = c.call(
        &env,
        "tools/call",
        json!({"name": "execute", "arguments": {"code":
            "const n = await api.notes_get_note({});\n\
             const p = await api.pets_get_pet({id__path: 2, id__query: \"q\"});\n\
             return [n.text, p.name];"}}),
    );
    assert_eq!(r["result"].get("isError"), None, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["result"],
        json!(["a note", "Rex"]),
        "{r}"
    );
    let heads = up.request_heads();
    assert_eq!(
        heads.len(),
        1,
        "only the pets call goes upstream: {heads:?}"
    );
    assert!(
        heads[0]
            .join("\n")
            .to_ascii_lowercase()
            .contains("x-api-key: secret-p"),
        "{heads:?}"
    );
}

fn spec_fixture(name: &str) -> Arc<Value> {
    Arc::new(load(&fixture(&format!(
        "spec/fixtures/expected-valid/{name}"
    ))))
}

/// Three mocked descriptions with resources, templates, prompts and instructions: the
/// hand-written serve fixture (`serve_`), the spec's named-resource-examples fixture
/// (`files_`, given instructions here) and its named-prompt-examples fixture (`talk_`).
fn resources_and_prompts_server() -> Arc<mcpdesc_serve::Server> {
    let mut files = (*spec_fixture("named-resource-examples.json")).clone();
    files["instructions"] = json!("Read files.");
    let (log, _) = mcpdesc_serve::Log::buffer();
    let p = prepare_many(
        vec![
            member(
                &Arc::new(every_revision()),
                "serve",
                BackendOptions::Mock(MockOptions::default()),
            ),
            member(
                &Arc::new(files),
                "files",
                BackendOptions::Mock(MockOptions::default()),
            ),
            member(
                &spec_fixture("named-prompt-examples.json"),
                "talk",
                BackendOptions::Mock(MockOptions::default()),
            ),
        ],
        ServeOptions {
            log,
            ..ServeOptions::default()
        },
        Transport::Stdio,
    )
    .unwrap_or_else(|e| panic!("prepare_many: {e:?}"));
    Arc::clone(p.server())
}

fn field<'a>(items: &'a [Value], key: &str) -> Vec<&'a str> {
    items.iter().filter_map(|t| t[key].as_str()).collect()
}

/// Resources keep their URIs, prompts get the description's prefix, instructions are
/// each description's under a heading naming it, and `resources/read` / `prompts/get`
/// are answered by the owning description's mock from its named examples (expectations
/// hand-written from the three fixtures).
#[test]
fn resources_prompts_and_instructions_of_several_descriptions() {
    let server = resources_and_prompts_server();
    let rt = Arc::new(rt());

    let mut c = Conn::open(&rt, &server);
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(
        init["result"]["instructions"],
        "## serve-fixture\n\nCall echo to repeat text; add sums two integers.\n\n\
         ## resource-example-catalogue\n\nRead files.",
        "{init}"
    );
    assert_eq!(
        init["result"]["capabilities"],
        json!({"tools": {}, "resources": {}, "prompts": {}})
    );
    let env = None;
    let (resources, _) = c.list_all(&env, "resources/list", "resources");
    assert_eq!(
        field(&resources, "uri"),
        [
            "file:///notes.txt",
            "file:///project/src/",
            "asset:///pixel.bin"
        ]
    );
    let (templates, _) = c.list_all(&env, "resources/templates/list", "resourceTemplates");
    assert_eq!(field(&templates, "uriTemplate"), ["notes://{id}"]);
    let (prompts, _) = c.list_all(&env, "prompts/list", "prompts");
    assert_eq!(
        field(&prompts, "name"),
        ["serve_summarize", "talk_greeting"]
    );

    let r = c.call(
        &env,
        "resources/read",
        json!({"uri": "file:///project/src/"}),
    );
    let contents = r["result"]["contents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        field(&contents, "uri"),
        [
            "file:///project/src/",
            "file:///project/src/main.rs",
            "file:///project/src/lib.rs"
        ],
        "{r}"
    );
    assert_eq!(contents[0]["text"], "main.rs\nlib.rs\n");
    assert_eq!(
        r["result"]["_meta"],
        json!({"snapshot": "example", "x-mcpdesc/mockExample": "two-files"})
    );
    let r = c.call(&env, "resources/read", json!({"uri": "asset:///pixel.bin"}));
    assert_eq!(r["result"]["contents"][0]["blob"], "AAEC", "{r}");
    let r = c.call(&env, "prompts/get", json!({"name": "talk_greeting"}));
    assert_eq!(
        r["result"]["messages"],
        json!([{"role": "assistant", "content": {"type": "text", "text": "Hello."}}]),
        "{r}"
    );
    // The unprefixed name is no served prompt; a prompt of 2026-07-28 only is not here.
    for name in ["greeting", "talk_city_briefing"] {
        let r = c.call(&env, "prompts/get", json!({"name": name}));
        assert_eq!(r["error"]["code"], -32602, "{name}: {r}");
    }
    // The serve fixture's resource has no examples: its own mock says so.
    let r = c.call(&env, "resources/read", json!({"uri": "file:///notes.txt"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`notes` has no named examples")),
        "{r}"
    );

    // 2026-07-28: the scoped variants of that revision.
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2026_07_28);
    let (templates, _) = c.list_all(&env, "resources/templates/list", "resourceTemplates");
    assert_eq!(
        field(&templates, "uriTemplate"),
        ["notes://{id}", "chess://games/{game_id}"]
    );
    let (prompts, _) = c.list_all(&env, "prompts/list", "prompts");
    assert_eq!(
        field(&prompts, "name"),
        ["serve_summarize", "talk_greeting", "talk_city_briefing"]
    );
    let r = c.call(
        &env,
        "resources/read",
        json!({"uri": "chess://games/example-1234"}),
    );
    assert_eq!(
        (
            r["result"]["contents"][0]["text"].clone(),
            r["result"]["ttlMs"].clone(),
            r["result"]["cacheScope"].clone(),
            r["result"]["resultType"].clone()
        ),
        (
            json!("{\"id\":\"example-1234\",\"result\":\"1-0\"}"),
            json!(300000),
            json!("public"),
            json!("complete")
        ),
        "{r}"
    );
    // A URI the template expands but no example records: no fallback (§10.4.5).
    let r = c.call(
        &env,
        "resources/read",
        json!({"uri": "chess://games/other"}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // A URI nothing declares: not found (-32602 from 2026-07-28).
    let r = c.call(&env, "resources/read", json!({"uri": "chess://nowhere"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.call(
        &env,
        "prompts/get",
        json!({"name": "talk_city_briefing",
               "arguments": {"audience": "engineering", "city": "Paris"}}),
    );
    assert_eq!(
        r["result"]["description"], "Engineering briefing for Paris",
        "{r}"
    );
    assert_eq!(
        r["result"]["messages"][1]["content"]["type"],
        "resource_link"
    );
    // Arguments no example has: refused, never a guessed example.
    let r = c.call(
        &env,
        "prompts/get",
        json!({"name": "talk_city_briefing", "arguments": {"city": "Rome"}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // The $componentRef example of the 2026-07-28 greeting, inlined by the composition.
    let r = c.call(&env, "prompts/get", json!({"name": "talk_greeting"}));
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"], "Hello.",
        "{r}"
    );
}

/// Two descriptions that could both answer one `resources/read` are refused at start,
/// naming both: the same `uri`, and a `uri` one template of the other expands to.
#[test]
fn descriptions_sharing_a_resource_uri_are_refused() {
    use mcpdesc_serve::compose::ComposeError;
    let files = spec_fixture("named-resource-examples.json");
    let mock = || BackendOptions::Mock(MockOptions::default());
    let refused = |members: Vec<Member>| match prepare_many(
        members,
        ServeOptions::default(),
        Transport::Stdio,
    ) {
        Err(StartError::Compose(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        refused(vec![
            member(&files, "a", mock()),
            member(&files, "b", mock())
        ]),
        ComposeError::ResourceOverlap {
            members: (0, 1),
            first: "asset:///pixel.bin".into(),
            second: "asset:///pixel.bin".into()
        }
    );
    let games = Arc::new(json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "games", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "resources": [{"uri": "chess://games/top", "name": "top"}]
    }));
    assert_eq!(
        refused(vec![
            member(&games, "g", mock()),
            member(&files, "f", mock())
        ]),
        ComposeError::ResourceOverlap {
            members: (0, 1),
            first: "chess://games/top".into(),
            second: "chess://games/{game_id}".into()
        }
    );
    // Templates whose literal parts differ are composed.
    let players = Arc::new(json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "players", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "resourceTemplates": [{"uriTemplate": "chess://players/{id}", "name": "player"}]
    }));
    assert!(
        prepare_many(
            vec![member(&players, "p", mock()), member(&files, "f", mock())],
            ServeOptions::default(),
            Transport::Stdio,
        )
        .is_ok()
    );
}

/// The CLI phrases the refusal with both files' names (exit 2).
#[test]
fn the_cli_names_both_files_of_a_shared_resource_uri() {
    let f = fixture("spec/fixtures/expected-valid/named-resource-examples.json");
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for (p, name) in [(&a, "alpha"), (&b, "beta")] {
        let mut d = load(&f);
        d["info"]["name"] = json!(name);
        std::fs::write(p, d.to_string()).expect("write");
    }
    let out = std::process::Command::new(mcpdesc_tests::mcpdesc_bin())
        .arg("serve")
        .args([&a, &b])
        .arg("--mock")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: resource `asset:///pixel.bin`", a.display()))
            && err.contains(&format!("{}: resource `asset:///pixel.bin`", b.display())),
        "{err}"
    );
}
