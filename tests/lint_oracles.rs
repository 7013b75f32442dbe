//! Independent checks of the host profiles by the hosts' own code (issue 16, "Proof").
//!
//! Oracles, installed by `cargo xtask deps` at exact versions:
//! - **Gemini CLI** (`@google/gemini-cli-core`, npm): `generateValidName`, the function
//!   Gemini CLI runs on every MCP tool name it registers, and `hasCycleInSchema`, its
//!   check of the `parametersJsonSchema` it sends. Driver: `lint_oracles/gemini_cli.mjs`.
//! - **OpenAI strict mode** (`openai-agents`, PyPI): `MCPUtil.to_function_tool` with
//!   `convert_schemas_to_strict`, which runs `ensure_strict_json_schema` on each MCP
//!   tool's inputSchema and falls back to non-strict when it cannot; and the SDK's own
//!   function-name rules. Driver: `lint_oracles/openai_agents.py`.
//! - The MCP TypeScript SDK's SEP-986 `validateToolName` on every name `export --host`
//!   invents (not a host, a floor every host accepts).
//!
//! The tools fed to them: every lint fixture, the committed `tools/list` captures of the
//! real servers the live tests use, the GitHub import, and a list of awkward names
//! written here as *inputs* (what the real code makes of them is the expectation).
//! The oracle decides; `mcpdesc lint` and `export tools-list --host` are what is checked.

use mcpdesc_core::{Diagnostic, ProtocolRevision};
use mcpdesc_hosts::{FitOptions, HostProfile, fit_tools_list, host};
use mcpdesc_lint::LintOptions;
use mcpdesc_tests::lint;
use mcpdesc_tests::{deps_dir, fixture, mcpdesc_bin, missing, node_modules, workspace_root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const REV: ProtocolRevision = ProtocolRevision::V2025_11_25;

/// One tools/list to check, with the server name the host is told.
struct Source {
    label: String,
    server: &'static str,
    list: Value,
}

/// Names chosen to probe the rules (inputs only): the 63/64 boundaries with the
/// `github` server, characters Gemini keeps or replaces, a leading digit, non-ASCII.
fn awkward_names() -> Value {
    let names = [
        "a".repeat(52),
        "a".repeat(53),
        "b".repeat(64),
        "c".repeat(65),
        "x".repeat(120),
        "repos.get:branch".into(),
        "repos/get".into(),
        "get record".into(),
        "1st_tool".into(),
        "-lead".into(),
        ".lead".into(),
        "café".into(),
        "tool,comma".into(),
        "UPPER_and-Mixed.1".into(),
        // Collisions once Gemini CLI has rewritten: with `repos/get`; with the
        // 120 x's (the middle is cut); a character outside the BMP is two UTF-16 units.
        "repos_get".into(),
        format!("{}z{}", "x".repeat(60), "x".repeat(59)),
        "emoji\u{1F600}".into(),
        "emoji__".into(),
    ];
    let tools: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "description": "An awkward name.", "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}}))
        .collect();
    json!({ "tools": tools })
}

fn imported(args: &[&str], input: &Path, out: &Path) -> Value {
    let o = Command::new(mcpdesc_bin())
        .args(args)
        .arg(input)
        .arg("-o")
        .arg(out)
        .output()
        .expect("mcpdesc import");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&std::fs::read(out).expect("read import")).expect("import JSON")
}

/// Every source, built once per test binary (each import in its own temp folder).
fn sources() -> Option<&'static [Source]> {
    static SOURCES: OnceLock<Option<Vec<Source>>> = OnceLock::new();
    SOURCES
        .get_or_init(|| {
            let github =
                deps_dir().join("node/node_modules/@octokit/openapi/generated/api.github.com.json");
            if !mcpdesc_bin().exists() || !github.exists() {
                return None;
            }
            let mut out = Vec::new();
            let mut fixtures: Vec<PathBuf> = std::fs::read_dir(fixture("lint"))
                .expect("lint fixtures")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            fixtures.sort();
            for p in fixtures {
                let doc: Value =
                    serde_json::from_slice(&std::fs::read(&p).expect("fixture")).expect("JSON");
                // Fixtures written for another revision have no tools/list at this one.
                if let Ok(list) = mcpdesc_tests::export_tools_list(&doc, REV) {
                    out.push(Source {
                        label: format!("fixture {}", p.display()),
                        server: "fixture",
                        list,
                    });
                }
            }
            out.push(Source {
                label: "awkward names".into(),
                server: "github",
                list: awkward_names(),
            });
            let dir = tempfile::tempdir().expect("tmp");
            for (dump, server) in [
                ("inspector-cli-everything.json", "everything"),
                ("inspector-cli-py.json", "py"),
            ] {
                let doc = imported(
                    &[
                        "import",
                        "tools-list",
                        "--protocol-version",
                        REV.as_str(),
                        "--server-name",
                        server,
                    ],
                    &fixture(&format!("live/dumps/{dump}")),
                    &dir.path().join(format!("{server}.json")),
                );
                out.push(Source {
                    label: format!("live server {server}"),
                    server,
                    list: mcpdesc_tests::export_tools_list(&doc, REV).expect("export"),
                });
            }
            let doc = imported(
                &["import", "openapi"],
                &github,
                &dir.path().join("github.json"),
            );
            out.push(Source {
                label: "GitHub import".into(),
                server: "github",
                list: mcpdesc_tests::export_tools_list(&doc, REV).expect("export"),
            });
            Some(out)
        })
        .as_deref()
}

fn tools(list: &Value) -> &[Value] {
    list["tools"].as_array().map_or(&[], Vec::as_slice)
}

fn name(tool: &Value) -> &str {
    tool["name"].as_str().unwrap_or("")
}

/// A tool's inputSchema (MCP requires one; `{}` stands in for a missing one).
fn input_of(tool: &Value) -> Value {
    tool.get("inputSchema").cloned().unwrap_or(json!({}))
}

fn profile(id: &str) -> &'static HostProfile {
    host(id).unwrap_or_else(|| panic!("no host {id}"))
}

/// `lint` of a tools/list for one host: (rule, pointer) of that host's findings.
fn host_lint(list: &Value, h: &str, server: &str) -> Vec<(String, String)> {
    let doc = mcpdesc_hosts::description_of_tools_list(list, REV);
    let o = LintOptions {
        hosts: vec![profile(h)],
        server_prefix: Some(server.to_string()),
        ..Default::default()
    };
    let prefix = format!("{h}:");
    lint(&doc, &o)
        .diagnostics
        .into_iter()
        .filter(|d| d.message.starts_with(&prefix))
        .map(|d| (d.code, d.pointer))
        .collect()
}

fn has(findings: &[(String, String)], rule: &str, ptr: &str) -> bool {
    findings
        .iter()
        .any(|(r, p)| r == rule && (p == ptr || p.starts_with(&format!("{ptr}/"))))
}

fn fitted(list: &Value, h: &str, server: &str) -> mcpdesc_hosts::Fitted {
    fit_tools_list(
        list.clone(),
        REV,
        &FitOptions {
            host: Some(profile(h)),
            server_prefix: Some(server),
            budget: None,
        },
    )
}

/// Whether a fit diagnostic at error level points into tool `i`.
fn fit_error_at(ds: &[Diagnostic], i: usize) -> bool {
    let ptr = format!("/tools/{i}");
    ds.iter()
        .any(|d| d.is_error() && (d.pointer == ptr || d.pointer.starts_with(&format!("{ptr}/"))))
}

/// Runs a driver on `job` (with `out` added) in its own temp folder; returns its output.
fn drive(mut cmd: Command, script: &str, mut job: Value) -> Value {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("out.json");
    let job_path = dir.path().join("job.json");
    job["out"] = json!(out);
    std::fs::write(&job_path, job.to_string()).expect("job");
    let o = cmd
        .arg(workspace_root().join("tests/lint_oracles").join(script))
        .arg(&job_path)
        .output()
        .expect("driver runs");
    assert!(
        o.status.success(),
        "{script} failed: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    serde_json::from_slice(&std::fs::read(&out).expect("driver output")).expect("driver JSON")
}

fn report(what: &str, bad: &[String]) {
    assert!(
        bad.is_empty(),
        "{what}: {} disagreement(s) with the host's own code:\n{}",
        bad.len(),
        bad.iter().take(25).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Gemini CLI's `generateValidName` decides: the host table's `registered_name` is
/// exactly the name it registers for every tool; `host-name-truncated`,
/// `host-name-rewritten` and `host-name-collision` for `gemini-cli` are exactly the
/// names it shortens, whose characters it replaces (where the result shows it) and
/// that it registers a second time; no finding says it rejects a name (it never does);
/// every name `export --host gemini-cli` emits is registered unchanged behind the
/// prefix, and no two collide; `hasCycleInSchema` on an inputSchema is exactly
/// where our fit reports `fit-ref-cycle`. Every name `export --host H` invents, for
/// every host, passes the MCP SDK's SEP-986 `validateToolName`.
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn gemini_cli_core_agrees_with_the_gemini_cli_profile() {
    let Some(modules) = node_modules() else {
        return missing(".deps/node (npm)");
    };
    if !modules
        .join("@google/gemini-cli-core/package.json")
        .is_file()
    {
        return missing("@google/gemini-cli-core in .deps/node");
    }
    let Some(sources) = sources() else {
        return missing("the mcpdesc binary or @octokit/openapi (npm)");
    };
    let gemini = profile("gemini-cli");
    // Queries: every original name, every fitted name (per source), every inputSchema.
    let mut names: Vec<(String, String)> = Vec::new();
    let mut schemas: Vec<Value> = Vec::new();
    let mut invented: Vec<(String, String)> = Vec::new();
    let fits: Vec<mcpdesc_hosts::Fitted> = sources
        .iter()
        .map(|s| fitted(&s.list, "gemini-cli", s.server))
        .collect();
    for (s, f) in sources.iter().zip(&fits) {
        for t in tools(&s.list) {
            names.push((s.server.into(), name(t).into()));
            schemas.push(input_of(t));
        }
        for t in tools(&f.tools_list) {
            names.push((s.server.into(), name(t).into()));
        }
        for h in mcpdesc_hosts::HOSTS {
            for new in fitted(&s.list, h.id, s.server).renames.keys() {
                invented.push((format!("{} ({})", s.label, h.id), new.clone()));
            }
        }
    }
    let job = json!({
        "nodeModules": modules,
        "names": names,
        "schemas": schemas,
        "toolNames": invented.iter().map(|(_, n)| n).collect::<Vec<_>>(),
    });
    let out = drive(Command::new("node"), "gemini_cli.mjs", job);
    eprintln!(
        "oracle: @google/gemini-cli-core {}, @modelcontextprotocol/sdk {}",
        out["version"], out["sdkVersion"]
    );
    let real: Vec<&str> = out["names"]
        .as_array()
        .expect("names")
        .iter()
        .map(|v| v.as_str().expect("name"))
        .collect();
    let cycles: Vec<bool> = out["cycles"]
        .as_array()
        .expect("cycles")
        .iter()
        .map(|v| v.as_bool().expect("bool"))
        .collect();
    assert_eq!(real.len(), names.len());
    let mut bad = Vec::new();
    let (mut n, mut k) = (0, 0);
    let (mut changed, mut shortened, mut cyclic, mut replaced_exported) = (0, 0, 0, 0);
    for (s, f) in sources.iter().zip(&fits) {
        let lint = host_lint(&s.list, "gemini-cli", s.server);
        // Names Gemini CLI registers, first tool for each: a later one is a collision.
        let mut first: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
        for (i, t) in tools(&s.list).iter().enumerate() {
            let tool = name(t);
            let ptr = format!("/tools/{i}/name");
            let shown = gemini.shown_name(Some(s.server), tool);
            let got = real[n];
            n += 1;
            let ours = gemini.registered_name(Some(s.server), tool);
            if ours != got {
                bad.push(format!(
                    "{}: `{tool}`: Gemini CLI registers `{got}`, registered_name says `{ours}`",
                    s.label
                ));
            }
            let collides = first.contains_key(got);
            first.entry(got).or_insert(tool);
            if collides != has(&lint, "host-name-collision", &ptr) {
                bad.push(format!(
                    "{}: `{tool}`: registered as `{got}` {}; host-name-collision {}",
                    s.label,
                    first
                        .get(got)
                        .map_or(String::new(), |f| format!("(first: `{f}`)")),
                    if collides { "missing" } else { "reported" }
                ));
            }
            // Sanitizing keeps the length, so a shorter name is a truncated one.
            let host_shortens = got.chars().count() < shown.chars().count();
            let replaced = !host_shortens && got != shown;
            shortened += usize::from(host_shortens);
            changed += usize::from(host_shortens || replaced);
            // Replacement keeps the length, so an unshortened name shows it (in a
            // shortened one the cut middle may hide it: not compared).
            if !host_shortens && replaced != has(&lint, "host-name-rewritten", &ptr) {
                bad.push(format!(
                    "{}: `{tool}`: Gemini CLI registers `{got}`; host-name-rewritten {}",
                    s.label,
                    if replaced { "missing" } else { "reported" }
                ));
            }
            if host_shortens != has(&lint, "host-name-truncated", &ptr) {
                bad.push(format!(
                    "{}: `{tool}`: Gemini CLI registers `{got}`, our table says `{shown}`; host-name-truncated {}",
                    s.label,
                    if host_shortens { "missing" } else { "reported" }
                ));
            }
            // Gemini CLI rejects no name (it truncates and replaces): no finding may
            // say it does.
            for r in ["host-name-chars", "host-name-too-long"] {
                if has(&lint, r, &ptr) {
                    bad.push(format!(
                        "{}: `{tool}`: {r}, but Gemini CLI registers it as `{got}`",
                        s.label
                    ));
                }
            }
            let cycle = cycles[k];
            k += 1;
            cyclic += usize::from(cycle);
            let ours = f.diagnostics.iter().any(|d| {
                d.code == "fit-ref-cycle" && d.pointer == format!("/tools/{i}/inputSchema")
            });
            if cycle != ours {
                bad.push(format!(
                    "{}: `{tool}`: hasCycleInSchema(inputSchema) = {cycle}, fit-ref-cycle {}",
                    s.label,
                    if ours { "reported" } else { "not reported" }
                ));
            }
        }
        let mut registered = std::collections::BTreeMap::new();
        for t in tools(&f.tools_list) {
            let tool = name(t);
            let shown = gemini.shown_name(Some(s.server), tool);
            let got = real[n];
            n += 1;
            if got.chars().count() < shown.chars().count() {
                bad.push(format!(
                    "{}: export --host gemini-cli emits `{tool}`; Gemini CLI truncates `{shown}` to `{got}`",
                    s.label
                ));
            }
            replaced_exported += usize::from(got != shown);
            if got != shown {
                bad.push(format!(
                    "{}: export --host gemini-cli emits `{tool}`; Gemini CLI registers `{got}`, not `{shown}`",
                    s.label
                ));
            }
            // Two tools registered under one name: Gemini CLI sends the model only one.
            if let Some(other) = registered.insert(got.to_string(), tool.to_string()) {
                bad.push(format!(
                    "{}: export --host gemini-cli emits `{other}` and `{tool}`; Gemini CLI registers both as `{got}`",
                    s.label
                ));
            }
        }
    }
    for ((what, new), ok) in invented
        .iter()
        .zip(out["toolNameValid"].as_array().expect("toolNameValid"))
    {
        if ok != &json!(true) {
            bad.push(format!("{what}: invented name `{new}` fails SEP-986"));
        }
    }
    eprintln!(
        "gemini-cli: {} names, {changed} changed by Gemini CLI ({shortened} shortened), {cyclic} cyclic inputSchemas, \
         {replaced_exported} exported names whose characters Gemini CLI replaces, {} invented names",
        schemas.len(),
        invented.len()
    );
    report("gemini-cli", &bad);
    // The sources must exercise both sides of each rule, or agreement proves little.
    assert!(changed > 0 && changed < schemas.len() && shortened > 0 && !invented.is_empty());
}

/// Sorted `required`, no empty `required`, and no empty root `properties`: the Agents
/// SDK writes `required` in property order and adds `properties: {}`/`required: []`
/// to a schema without properties; neither changes what the schema accepts.
fn normalized(v: &Value, root: bool) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            for (k, x) in m {
                if k == "required"
                    && let Some(a) = x.as_array()
                {
                    if a.is_empty() {
                        continue;
                    }
                    let mut s: Vec<String> = a.iter().map(Value::to_string).collect();
                    s.sort();
                    out.insert(k.clone(), json!(s));
                    continue;
                }
                if root && k == "properties" && x == &json!({}) {
                    continue;
                }
                out.insert(k.clone(), normalized(x, false));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| normalized(x, false)).collect()),
        _ => v.clone(),
    }
}

/// OpenAI's Agents SDK decides (it converts every MCP tool to strict mode and keeps a
/// tool non-strict when it cannot):
/// - every tool `export --host openai-strict` accepts comes back strict and unchanged;
/// - every tool `lint --host openai-strict` flags with `host-strict-object` is changed
///   by the conversion or kept non-strict, and every tool it does not flag comes back
///   strict and unchanged (so the rule is exactly what the SDK enforces);
/// - `host-name-chars` / `host-name-too-long` for `openai-strict` and `chatgpt` are
///   exactly the names outside the SDK's function-name characters / over its length.
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
#[test]
fn openai_agents_sdk_agrees_with_the_openai_profiles() {
    let python = deps_dir().join("venv/bin/python");
    let has_sdk = python.exists()
        && Command::new(&python)
            .args(["-c", "import agents.strict_schema"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !has_sdk {
        return missing("openai-agents in .deps/venv (PyPI)");
    }
    let Some(sources) = sources() else {
        return missing("the mcpdesc binary or @octokit/openapi (npm)");
    };
    // Queries: every original tool, then every tool of the openai-strict export.
    let fits: Vec<mcpdesc_hosts::Fitted> = sources
        .iter()
        .map(|s| fitted(&s.list, "openai-strict", s.server))
        .collect();
    let mut queries = Vec::new();
    for (s, f) in sources.iter().zip(&fits) {
        for t in tools(&s.list).iter().chain(tools(&f.tools_list)) {
            queries.push(json!({"name": name(t), "inputSchema": input_of(t)}));
        }
    }
    let out = drive(
        Command::new(&python),
        "openai_agents.py",
        json!({ "tools": queries }),
    );
    eprintln!("oracle: openai-agents {}", out["version"]);
    let sdk = out["tools"].as_array().expect("tools");
    let chars_ok = out["nameCharsOk"].as_array().expect("nameCharsOk");
    let name_max = out["nameMax"].as_u64().expect("nameMax") as usize;
    assert_eq!(sdk.len(), queries.len());
    // Strict as it stands: converted without error and without change.
    let same = |i: usize, schema: &Value| {
        sdk[i]["error"].is_null()
            && normalized(&sdk[i]["converted"], true) == normalized(schema, true)
    };
    let verdict = |i: usize| match sdk[i]["error"].as_str() {
        Some(e) => format!("raises {e}"),
        None => format!("converts it to {}", sdk[i]["converted"]),
    };
    let mut bad = Vec::new();
    let mut n = 0;
    let (mut accepted, mut flagged, mut total, mut mcp_non_strict) = (0, 0, 0, 0);
    for (s, f) in sources.iter().zip(&fits) {
        let strict_lint = host_lint(&s.list, "openai-strict", s.server);
        let name_lint = [
            host_lint(&s.list, "openai-strict", s.server),
            host_lint(&s.list, "chatgpt", s.server),
        ];
        let originals = tools(&s.list);
        for (i, t) in originals.iter().enumerate() {
            let tool = name(t);
            let input = input_of(t);
            let ptr = format!("/tools/{i}/inputSchema");
            let ours = has(&strict_lint, "host-strict-object", &ptr);
            total += 1;
            flagged += usize::from(ours);
            if ours == same(n + i, &input) {
                bad.push(format!(
                    "{}: `{tool}`: lint {} host-strict-object; the SDK {}; inputSchema {input}",
                    s.label,
                    if ours { "reports" } else { "does not report" },
                    if same(n + i, &input) {
                        "keeps it".to_string()
                    } else {
                        verdict(n + i)
                    },
                ));
            }
            let name_ptr = format!("/tools/{i}/name");
            let chars = chars_ok[n + i] == json!(true);
            let long = tool.chars().count() > name_max;
            for (h, l) in ["openai-strict", "chatgpt"].iter().zip(&name_lint) {
                if chars == has(l, "host-name-chars", &name_ptr)
                    || long != has(l, "host-name-too-long", &name_ptr)
                {
                    bad.push(format!(
                        "{}: `{tool}` for {h}: SDK characters ok {chars}, over {name_max} {long}; lint {:?}",
                        s.label,
                        l.iter()
                            .filter(|(_, p)| p == &name_ptr)
                            .map(|(r, _)| r)
                            .collect::<Vec<_>>()
                    ));
                }
            }
        }
        n += originals.len();
        for (i, t) in tools(&f.tools_list).iter().enumerate() {
            if fit_error_at(&f.diagnostics, i) {
                continue;
            }
            accepted += 1;
            let input = input_of(t);
            if !same(n + i, &input) {
                bad.push(format!(
                    "{}: export --host openai-strict accepts `{}`; the SDK {}; inputSchema {input}",
                    s.label,
                    name(t),
                    verdict(n + i)
                ));
            }
            mcp_non_strict += usize::from(sdk[n + i]["mcpStrict"] != json!(true));
        }
        n += tools(&f.tools_list).len();
    }
    eprintln!(
        "openai-strict: {total} tools, {flagged} flagged host-strict-object, {accepted} accepted by export \
         ({mcp_non_strict} of them kept non-strict by the SDK's MCP path, which also refuses every `$ref`)"
    );
    report("openai-strict", &bad);
    assert!(flagged > 0 && flagged < total && accepted > 0);
}
