//! What the tests of generated servers and clients share (`tests/codegen.rs`,
//! `tests/codegen_servers.rs`): a server listening on Streamable HTTP as a child, `capture`
//! of a server compared with the description's export, and running a TypeScript app on
//! generated packages.

use crate::{check_config, mcpdesc_bin};
use mcpdesc_codegen::Generated;
use mcpdesc_codegen_check::CheckConfig;
use mcpdesc_core::ProtocolRevision;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

/// The JSON object a test client printed as its last line; panics with its output when
/// the client failed.
fn last_json_line(out: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("json line")
}

/// A server started with `--http 127.0.0.1:0` as a child (killed on drop), and the
/// `http://…/mcp` URL of its start-up line.
#[derive(Debug)]
pub struct HttpChild {
    child: std::process::Child,
    /// The server's endpoint.
    pub url: String,
}

impl HttpChild {
    /// `mcpdesc serve ARGS… --http 127.0.0.1:0`.
    pub fn serve(args: &[&OsStr]) -> HttpChild {
        let mut cmd = Command::new(mcpdesc_bin());
        cmd.arg("serve").args(args);
        HttpChild::spawn(cmd)
    }

    /// `PROGRAM --http 127.0.0.1:0` (a built server stub).
    pub fn program(program: &Path) -> HttpChild {
        HttpChild::spawn(Command::new(program))
    }

    /// `PROGRAM ARGS… --http 127.0.0.1:0` (e.g. `node dist/main.js`, a TypeScript stub).
    pub fn command(program: &OsStr, args: &[&OsStr]) -> HttpChild {
        let mut cmd = Command::new(program);
        cmd.args(args);
        HttpChild::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> HttpChild {
        use std::io::BufRead as _;
        let what = format!("{cmd:?}");
        let mut child = cmd
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
        let err = child.stderr.take().expect("stderr");
        let mut lines = std::io::BufReader::new(err).lines();
        let mut log = Vec::new();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(u) = line
                        .split_whitespace()
                        .find(|u| u.starts_with("http://") && u.ends_with("/mcp"))
                    {
                        break u.to_string();
                    }
                    log.push(line);
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("{what} --http did not start:\n{}", log.join("\n"));
                }
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
        HttpChild { child, url }
    }
}

impl Drop for HttpChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The members of a list result that are the transport's envelope, not the list
/// (`resultType` and the cache hints of 2026-07-28).
const ENVELOPE: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// A list result without its envelope: the [`ENVELOPE`] members and the protocol's own
/// `_meta` entries (`io.modelcontextprotocol/…`, e.g. the server info of 2026-07-28);
/// any other `_meta` entry stays (a server's own, or a leak).
fn without_envelope(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(m) = result.as_object_mut() {
        m.retain(|k, _| !ENVELOPE.contains(&k.as_str()));
        if let Some(meta) = m.get_mut("_meta").and_then(Value::as_object_mut) {
            meta.retain(|k, _| !k.starts_with("io.modelcontextprotocol/"));
            if meta.is_empty() {
                m.remove("_meta");
            }
        }
    }
    result
}

/// `mcpdesc capture` at every revision `desc` declares of the server `target` reaches
/// (`["--", PROGRAM, ARGS…]` over stdio or `["--url", URL]`), transcripts saved under
/// `dir`; then, per declared revision, the `tools/list` result the server sent (in its
/// order, envelope aside — see `without_envelope` — nothing more, nothing less) and the export of the captured
/// description (in name order) both equal `mcpdesc export tools-list --protocol-version
/// V` of `desc`.
pub fn capture_equals_export(desc: &Path, dir: &Path, target: &[&OsStr]) {
    let doc = crate::load_description(desc);
    let revisions: Vec<String> = doc["protocolVersions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let captured = dir.join("captured.mcpdesc.json");
    let transcripts = dir.join("transcripts");
    let _ = std::fs::remove_dir_all(&transcripts);
    let _ = std::fs::remove_file(&captured);
    let out = Command::new(mcpdesc_bin())
        .args(["capture", "--protocol-versions", &revisions.join(",")])
        .arg("--save-transcripts")
        .arg(&transcripts)
        .arg("-o")
        .arg(&captured)
        .args(target)
        .output()
        .expect("mcpdesc runs");
    assert!(
        out.status.success(),
        "capture of {target:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let captured_doc = crate::load_description(&captured);
    let by_name = |v: &Value| {
        let mut tools = v["tools"].as_array().cloned().unwrap_or_default();
        tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        tools
    };
    for rev in &revisions {
        let r: ProtocolRevision = rev.parse().expect("known revision");
        let expected = crate::export_tools_list(&doc, r).expect("exports");
        let transcript = std::fs::read_to_string(transcripts.join(format!("session-{rev}.jsonl")))
            .unwrap_or_else(|e| panic!("{}: transcript {rev}: {e}", dir.display()));
        let lists: Vec<Value> = transcript
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|m| {
                m.get("result")
                    .filter(|r| r.get("tools").is_some())
                    .cloned()
            })
            .collect();
        assert_eq!(
            lists.len(),
            1,
            "{}: {rev}: one tools/list page ({target:?})",
            desc.display()
        );
        assert_eq!(
            without_envelope(&lists[0]),
            expected,
            "{}: the server's tools/list at {rev} is the export ({target:?})",
            desc.display()
        );
        let again = crate::export_tools_list(&captured_doc, r).expect("exports");
        assert_eq!(
            by_name(&again),
            by_name(&expected),
            "{}: the captured description's export at {rev} ({target:?})",
            desc.display()
        );
    }
}

/// Writes and compiles (`tsc`) each generated package (`(folder, generation)`) under
/// `base`, runs `script` (an ES module beside them) with node and `args`, and returns
/// its last line of output as JSON; fails the test when anything fails.
pub fn run_ts_app(
    cfg: &CheckConfig,
    tsc: &Path,
    base: &Path,
    packages: &[(&str, Generated)],
    script: &str,
    args: &[&OsStr],
) -> Value {
    let _ = std::fs::remove_dir_all(base);
    let node_modules = cfg.node_dir.join("node_modules");
    for (dir, g) in packages {
        let d = base.join(dir);
        mcpdesc_codegen::write_files(&d, &g.files).expect("writes");
        link(&node_modules, &d.join("node_modules"));
        let out = Command::new("node")
            .arg(tsc)
            .arg("-p")
            .arg(d.join("tsconfig.json"))
            .output()
            .expect("tsc runs");
        assert!(
            out.status.success(),
            "tsc {dir}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::write(base.join("package.json"), "{\"type\": \"module\"}\n").expect("writes");
    std::fs::write(base.join("e2e.mjs"), script).expect("writes");
    link(&node_modules, &base.join("node_modules"));
    let out = Command::new("node")
        .arg(base.join("e2e.mjs"))
        .args(args)
        .current_dir(base)
        .output()
        .expect("node runs");
    last_json_line(&out)
}

/// A symbolic link at `link` to `target`, unless something is there already.
pub fn link(target: &Path, link: &Path) {
    if !link.exists() {
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, link).expect("symlink");
    }
}

/// Writes the generated Rust crates (`(package, generation)`) and an app depending on
/// them (`main` its `src/main.rs`, `name` its package) under `base`, runs it with `args`
/// (`cargo run`, the generated crates' shared target directory) and returns its standard
/// output; fails the test when it fails.
pub fn run_rust_app<S: AsRef<str>>(
    base: &Path,
    name: &str,
    crates: &[(S, Generated)],
    main: &str,
    args: &[&OsStr],
) -> String {
    let mut deps = String::new();
    for (package, g) in crates {
        let package = package.as_ref();
        let d = base.join(package);
        let _ = std::fs::remove_dir_all(&d);
        mcpdesc_codegen::write_files(&d, &g.files).expect("writes");
        deps.push_str(&format!("{package} = {{ path = \"../{package}\" }}\n"));
    }
    let app = base.join("app");
    let _ = std::fs::remove_dir_all(&app);
    let files = [
        (
            "Cargo.toml",
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{deps}serde_json = \"1\"\ntokio = {{ version = \"1\", features = [\"macros\", \"rt\"] }}\n\n[workspace]\n"
            ),
        ),
        ("src/main.rs", main.to_string()),
    ]
    .map(|(path, contents)| mcpdesc_codegen::GeneratedFile {
        path: path.into(),
        contents,
    });
    mcpdesc_codegen::write_files(&app, &files).expect("writes");
    let out = check_config()
        .cargo()
        .args(["run", "--quiet", "--manifest-path"])
        .arg(app.join("Cargo.toml"))
        .arg("--")
        .args(args)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "e2e app failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The names of the `revisions` fixture's tools (the pets the server-stub tests serve) at
/// `rev`, sorted: `adopt` exists at 2026-07-28 only. Written by hand from the fixture.
pub fn pets_tools_at(rev: &str) -> Value {
    if rev == "2026-07-28" {
        serde_json::json!(["adopt", "get_pet", "list_pets"])
    } else {
        serde_json::json!(["get_pet", "list_pets"])
    }
}

/// `list_pets`' named example `first` in the `revisions` fixture (written by hand).
fn pets_example() -> Value {
    serde_json::json!([{"id": 1, "name": "Rex"}])
}

/// The generated Rust client of a pets stub: over stdio (`PROGRAM ARGS…`) and HTTP, at the
/// newest revision and at 2025-11-25, then the client generated for the 2026-07-28-only
/// projection against `serve --mock --http` of it; one JSON line. Arguments: the stub's
/// URL, the mock's URL, then the stub's command line.
const RUST_CLIENT_MAIN: &str = r#"
use pets_client::{AdoptInput, Client, Error, GetPetInput, ListPetsInput};

fn err(e: Error) -> String {
    match e {
        Error::ToolUnavailable { .. } => format!("ToolUnavailable: {e}"),
        Error::Tool { .. } => format!("Tool: {e}"),
        e => format!("other: {e}"),
    }
}

async fn session(c: Client) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let negotiated = c.protocol_version();
    let pets = c.list_pets(ListPetsInput { limit: Some(1) }).await?;
    let pet = c.get_pet(GetPetInput { id: 7 }).await?;
    let wrong = match c.get_pet(GetPetInput { id: 0 }).await { Ok(p) => format!("accepted {p:?}"), Err(e) => err(e) };
    let failed = match c.get_pet(GetPetInput { id: -1 }).await { Ok(p) => format!("accepted {p:?}"), Err(e) => err(e) };
    let adopt = match c.adopt(AdoptInput { id: 1 }).await { Ok(b) => format!("ok {}", b.len()), Err(e) => err(e) };
    c.close().await?;
    Ok(serde_json::json!({"negotiated": negotiated, "pets": serde_json::to_value(&pets)?, "pet": serde_json::to_value(&pet)?, "wrong": wrong, "failed": failed, "adopt": adopt}))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (stub_url, mock_url, stub, stub_args) = (args[0].as_str(), args[1].as_str(), args[2].as_str(), &args[3..]);
    let mut out = serde_json::Map::new();
    for (label, revision) in [("modern", None), ("session", Some("2025-11-25"))] {
        out.insert(format!("stdio-{label}"), session(Client::connect_stdio_at(stub, stub_args, revision).await?).await?);
        out.insert(format!("http-{label}"), session(Client::connect_http_at(stub_url, revision).await?).await?);
    }
    let only = pets_only_client::Client::connect_http(mock_url).await?;
    let pets = only.list_pets(pets_only_client::ListPetsInput { limit: Some(1) }).await?;
    out.insert("mock-only".into(), serde_json::json!({"negotiated": only.protocol_version(), "pets": serde_json::to_value(&pets)?}));
    only.close().await?;
    println!("{}", serde_json::Value::Object(out));
    Ok(())
}
"#;

/// The generated Rust client against a pets stub whose `get_pet` answers `{id, name: "pet
/// ID"}`, fails a result outside the outputSchema for id 0 and raises "no pet ID at REV"
/// for a negative id (`stub` its stdio command line, `url` its HTTP endpoint), over stdio
/// and HTTP at 2026-07-28 and at the session revision 2025-11-25: `list_pets` answers from
/// the tool's named example (wrapped as `{"result": …}` at 2025-11-25 and unwrapped by the
/// client), `get_pet` runs the user's code, a result outside the outputSchema is a tool
/// error, a handler's error is a tool error, and `adopt` (no example) is "not implemented"
/// (absent from 2025-11-25, where the client does not call it). The same client generated
/// for `doc`'s 2026-07-28 projection reaches `mcpdesc serve --mock --http` of it. `doc` is
/// the description the stub serves; the crates and app live under `base`.
pub fn check_rust_client_on_pets(base: &Path, doc: &Value, stub: &[&OsStr], url: &str) {
    use mcpdesc_codegen::RustOptions;
    use serde_json::json;
    let only = crate::project(doc, ProtocolRevision::V2026_07_28).expect("projects");
    std::fs::create_dir_all(base).expect("mkdir");
    let only_path = base.join("only.mcpdesc.json");
    std::fs::write(&only_path, serde_json::to_string(&only).expect("json")).expect("writes");
    let mock = HttpChild::serve(&[only_path.as_os_str(), "--mock".as_ref()]);
    let client = |doc: &Value, name: &str| {
        let g = mcpdesc_codegen::generate_rust(
            &crate::valid(doc),
            &RustOptions {
                crate_name: Some(name.into()),
                ..Default::default()
            },
        )
        .expect("generates");
        assert!(!g.files.is_empty(), "{name}: {:#?}", g.diagnostics);
        g
    };
    let mut args: Vec<&OsStr> = vec![url.as_ref(), mock.url.as_ref()];
    args.extend_from_slice(stub);
    let stdout = run_rust_app(
        &base.join("rust"),
        "e2e-server-app",
        &[
            ("pets-client", client(doc, "pets-client")),
            ("pets-only-client", client(&only, "pets-only-client")),
        ],
        RUST_CLIENT_MAIN,
        &args,
    );
    let v: Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("json line");
    let example = pets_example();
    for transport in ["stdio", "http"] {
        for (label, rev) in [("modern", "2026-07-28"), ("session", "2025-11-25")] {
            let r = &v[format!("{transport}-{label}")];
            assert_eq!(r["negotiated"], rev, "{v}");
            assert_eq!(r["pets"], example, "{transport} {rev}: {v}");
            assert_eq!(r["pet"], json!({"id": 7, "name": "pet 7"}), "{v}");
            let wrong = r["wrong"].as_str().unwrap_or_default();
            assert!(
                wrong.starts_with("Tool:") && wrong.contains("does not match its outputSchema"),
                "{transport} {rev}: {wrong}"
            );
            assert_eq!(
                r["failed"],
                format!("Tool: tool `get_pet` returned an error: no pet -1 at {rev}"),
                "{v}"
            );
            let adopt = r["adopt"].as_str().unwrap_or_default();
            if rev == "2026-07-28" {
                assert_eq!(
                    adopt, "Tool: tool `adopt` returned an error: not implemented",
                    "{v}"
                );
            } else {
                assert!(adopt.starts_with("ToolUnavailable"), "{v}");
            }
        }
    }
    assert_eq!(v["mock-only"]["negotiated"], "2026-07-28", "{v}");
    assert_eq!(v["mock-only"]["pets"], example, "{v}");
}

/// The Python SDK (`mcp` 2.3.0) against a pets stub over stdio and HTTP, negotiating
/// `auto` (2026-07-28) and `legacy` (the handshake); one JSON line. Arguments: the stub's
/// URL, then its command line.
const PY_CLIENT: &str = r#"
import json, sys
import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

async def session(server, mode):
    async with Client(server, mode=mode) as c:
        r = {"negotiated": c.protocol_version}
        listed = await c.list_tools()
        r["tools"] = sorted(t.name for t in listed.tools)
        pet = await c.call_tool("get_pet", {"id": 7})
        r["pet"] = pet.structured_content
        bad = await c.call_tool("get_pet", {"id": "seven"})
        r["invalid"] = [bad.is_error, bad.content[0].text]
        pets = await c.call_tool("list_pets", {"limit": 1})
        r["pets"] = pets.structured_content
        try:
            adopt = await c.call_tool("adopt", {"id": 1})
            r["adopt"] = [adopt.is_error, adopt.content[0].text if adopt.content else ""]
        except Exception as e:
            r["adopt"] = ["raised", str(e)]
        return r

async def main():
    url, stub, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    out = {}
    for mode in ["auto", "legacy"]:
        out["stdio-" + mode] = await session(StdioServerParameters(command=stub, args=args), mode)
        out["http-" + mode] = await session(url, mode)
    print(json.dumps(out))

anyio.run(main)
"#;

/// The Python SDK (`py`, the venv's interpreter) against a pets stub like
/// [`check_rust_client_on_pets`]'s (`stub` its stdio command line, `url` its HTTP
/// endpoint), over stdio and HTTP in `auto` (2026-07-28) and `legacy` (2025-11-25) mode: it
/// lists the revision's tools, `get_pet` runs the user's code, arguments that are not the
/// inputSchema's are a tool error before the handler runs, `list_pets` answers from its
/// named example (wrapped as `{"result": …}` at 2025-11-25), and `adopt` is the tool error
/// "not implemented" at 2026-07-28 and an unknown tool at 2025-11-25. The script is
/// written under `base`.
pub fn check_python_sdk_on_pets(py: &Path, base: &Path, stub: &[&OsStr], url: &str) {
    use serde_json::json;
    std::fs::create_dir_all(base).expect("mkdir");
    let script = base.join("py_client.py");
    std::fs::write(&script, PY_CLIENT).expect("writes");
    let out = Command::new(py)
        .arg(&script)
        .arg(url)
        .args(stub)
        .output()
        .expect("python runs");
    let p = last_json_line(&out);
    let example = pets_example();
    for transport in ["stdio", "http"] {
        for (mode, rev) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
            let r = &p[format!("{transport}-{mode}")];
            assert_eq!(r["negotiated"], rev, "{p}");
            assert_eq!(r["tools"], pets_tools_at(rev), "{p}");
            assert_eq!(r["pet"], json!({"id": 7, "name": "pet 7"}), "{p}");
            assert_eq!(r["invalid"][0], true, "{p}");
            let invalid = r["invalid"][1].as_str().unwrap_or_default();
            assert!(
                invalid.contains("invalid arguments for tool \"get_pet\""),
                "{p}"
            );
            let pets = if rev == "2026-07-28" {
                example.clone()
            } else {
                json!({"result": example})
            };
            assert_eq!(r["pets"], pets, "{transport} {mode}: {p}");
            if rev == "2026-07-28" {
                assert_eq!(r["adopt"], json!([true, "not implemented"]), "{p}");
            } else {
                // Not in the 2025-11-25 view: a JSON-RPC error, no handler ran.
                assert_eq!(r["adopt"][0], "raised", "{p}");
                let why = r["adopt"][1].as_str().unwrap_or_default();
                assert!(why.contains("unknown tool: adopt"), "{p}");
            }
        }
    }
}
