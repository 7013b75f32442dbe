//! Issue 32: servers of MCP 2026-07-28 alone, and generated Rust server stubs.
//!
//! - `capture` of a server that serves 2026-07-28 alone (`mcpdesc serve --mock`, over
//!   stdio and Streamable HTTP): the session revisions it refuses are skipped, each with
//!   a note, and the captured view is the description's export;
//! - `generate rust-server`: the stubs of the spec examples and codegen fixtures build
//!   (clippy `-D warnings`) and `capture` of each gives back the description's export at
//!   every declared revision; the generated Rust client and the Python SDK reach a stub
//!   over stdio and HTTP at 2026-07-28 and at 2025-11-25; the user's handlers survive
//!   regeneration and a changed schema breaks the build there only; snapshots of the
//!   generated tree.
//!
//! The generated crates share one target directory (`check_config().cargo_target_dir`)
//! and are built as few cargo invocations as possible (the stubs of the examples as
//! members of one workspace).

use mcpdesc_codegen::{Generated, RustOptions};
use mcpdesc_core::ProtocolRevision;
use mcpdesc_tests::{check_config, fixture, missing, snapshot_dir, workspace_root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A description that declares 2026-07-28 alone (written by hand for this test).
fn modern_only() -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "only-modern", "version": "1.0.0"},
        "protocolVersions": ["2026-07-28"],
        "tools": [{
            "name": "echo",
            "title": "Echo",
            "description": "Echoes a message.",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
        }]
    })
}

/// `mcpdesc ARGS…` → (success, stdout, stderr).
fn mcpdesc(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let out = Command::new(mcpdesc_tests::mcpdesc_bin())
        .args(args)
        .output()
        .expect("mcpdesc runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `mcpdesc serve … --http 127.0.0.1:0` as a child; the URL from its start-up line.
struct ServeHttp {
    child: std::process::Child,
    url: String,
}

impl ServeHttp {
    fn spawn(args: &[&std::ffi::OsStr]) -> ServeHttp {
        use std::io::BufRead as _;
        let mut child = Command::new(mcpdesc_tests::mcpdesc_bin())
            .arg("serve")
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn mcpdesc serve --http");
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
                    panic!("mcpdesc serve --http did not start:\n{}", log.join("\n"));
                }
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
        ServeHttp { child, url }
    }
}

impl Drop for ServeHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write_json(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(v).expect("json")).expect("writes");
}

/// The bug of issue 32's follow-up: `capture --protocol-versions all` of a server that
/// serves 2026-07-28 alone failed on the first session revision (its `initialize` is
/// answered with -32022 Unsupported protocol version, `data.supported:
/// ["2026-07-28"]`). Now each refused revision is a `revision-not-served` note, the
/// capture declares 2026-07-28 alone and its export is the description's; over stdio and
/// Streamable HTTP. Asking only for revisions the server refuses still fails, naming the
/// answer.
#[test]
fn capture_all_of_a_server_of_2026_07_28_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let desc = dir.path().join("only.mcpdesc.json");
    let doc = modern_only();
    write_json(&desc, &doc);
    let expected =
        mcpdesc_tests::export_tools_list(&doc, ProtocolRevision::V2026_07_28).expect("exports");
    let bin = mcpdesc_tests::mcpdesc_bin();
    let http = ServeHttp::spawn(&[desc.as_os_str(), "--mock".as_ref()]);
    let stdio: [&std::ffi::OsStr; 5] = [
        "--".as_ref(),
        bin.as_os_str(),
        "serve".as_ref(),
        "--mock".as_ref(),
        desc.as_os_str(),
    ];
    let url: [&std::ffi::OsStr; 2] = ["--url".as_ref(), http.url.as_ref()];
    for target in [&stdio[..], &url[..]] {
        let out = dir.path().join("captured.json");
        let _ = std::fs::remove_file(&out);
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "capture".as_ref(),
            "--protocol-versions".as_ref(),
            "all".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        args.extend_from_slice(target);
        let (ok, _, err) = mcpdesc(&args);
        assert!(ok, "{target:?}: {err}");
        for rev in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            assert!(
                err.contains(&format!(
                    "info[revision-not-served]: requested {rev}, the server answered that it does not serve that revision (it serves 2026-07-28)"
                )),
                "{target:?}: {err}"
            );
        }
        assert!(
            err.contains("requested 2026-07-28 → negotiated 2026-07-28 (Stateless): 1 tools"),
            "{err}"
        );
        let captured = mcpdesc_tests::load_description(&out);
        assert_eq!(
            captured["protocolVersions"],
            json!(["2026-07-28"]),
            "{captured}"
        );
        let again = mcpdesc_tests::export_tools_list(&captured, ProtocolRevision::V2026_07_28)
            .expect("exports");
        assert_eq!(again, expected, "{target:?}");

        // Only refused revisions: an error naming the server's answer, no output.
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "capture".as_ref(),
            "--protocol-versions".as_ref(),
            "2025-06-18,2025-11-25".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        let _ = std::fs::remove_file(&out);
        args.extend_from_slice(target);
        let (ok, _, err) = mcpdesc(&args);
        assert!(!ok, "{target:?}: {err}");
        assert!(
            err.contains("session requesting 2025-06-18")
                && err.contains("-32022")
                && err.contains("Unsupported protocol version"),
            "{target:?}: {err}"
        );
        assert!(!out.exists(), "nothing is written");
    }
}

fn load(name: &str) -> Value {
    mcpdesc_tests::load_description(&fixture(&format!("codegen/{name}.json")))
}

/// `mcpdesc generate rust-server DESC -o DIR [--crate-name NAME]`, asserting it
/// succeeds; returns its standard error.
fn generate_rust_server(desc: &Path, dir: &Path, crate_name: Option<&str>) -> String {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "generate".as_ref(),
        "rust-server".as_ref(),
        desc.as_os_str(),
        "-o".as_ref(),
        dir.as_os_str(),
    ];
    if let Some(n) = crate_name {
        args.push("--crate-name".as_ref());
        args.push(n.as_ref());
    }
    let (ok, _, err) = mcpdesc(&args);
    assert!(ok, "generate rust-server {}: {err}", desc.display());
    err
}

/// `cargo SUBCOMMAND ARGS` on `manifest` in the shared target directory, warnings denied.
/// Returns (success, combined output).
fn cargo(sub: &str, manifest: &Path, args: &[&str]) -> (bool, String) {
    let cfg = check_config();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .arg(sub)
        .arg("--manifest-path")
        .arg(manifest)
        .args(args)
        .env("CARGO_TARGET_DIR", &cfg.cargo_target_dir)
        .env("RUSTFLAGS", "-D warnings")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// A built binary of the shared target directory.
fn binary(name: &str) -> PathBuf {
    check_config().cargo_target_dir.join("debug").join(name)
}

fn declared_revisions(doc: &Value) -> Vec<String> {
    doc["protocolVersions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// `mcpdesc capture` of the stdio server `program` at every revision `desc` declares,
/// transcripts saved under `dir`; then, per declared revision, the `tools/list` result
/// the server sent (in its order) and the export of the captured description (in name
/// order) both equal `mcpdesc export tools-list --protocol-version V` of `desc`.
fn capture_equals_export(desc: &Path, dir: &Path, program: &Path) {
    let doc = mcpdesc_tests::load_description(desc);
    let revisions = declared_revisions(&doc);
    let captured = dir.join("captured.mcpdesc.json");
    let transcripts = dir.join("transcripts");
    let _ = std::fs::remove_dir_all(&transcripts);
    let (ok, _, err) = mcpdesc(&[
        "capture".as_ref(),
        "--protocol-versions".as_ref(),
        revisions.join(",").as_ref(),
        "--save-transcripts".as_ref(),
        transcripts.as_os_str(),
        "-o".as_ref(),
        captured.as_os_str(),
        "--".as_ref(),
        program.as_os_str(),
    ]);
    assert!(ok, "capture of {}: {err}", program.display());
    let captured_doc = mcpdesc_tests::load_description(&captured);
    let by_name = |v: &Value| {
        let mut tools = v["tools"].as_array().cloned().unwrap_or_default();
        tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        tools
    };
    for rev in &revisions {
        let r: ProtocolRevision = rev.parse().expect("known revision");
        let expected = mcpdesc_tests::export_tools_list(&doc, r).expect("exports");
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
            "{}: {rev}: one tools/list page",
            desc.display()
        );
        assert_eq!(
            lists[0]["tools"],
            expected["tools"],
            "{}: the stub's tools/list at {rev} is the export",
            desc.display()
        );
        let again = mcpdesc_tests::export_tools_list(&captured_doc, r).expect("exports");
        assert_eq!(
            by_name(&again),
            by_name(&expected),
            "{}: the captured description's export at {rev}",
            desc.display()
        );
    }
}

/// The generated Rust server trees (issue 32): every file of the `revisions` fixture's
/// stub (two revisions, a reshaped output, an example, a tool at one revision) and of
/// `everything`'s (many tools, content and structured outputs), the user's seeds
/// included. Read them when they change.
#[test]
fn snapshots_of_rust_server_trees() {
    for name in ["revisions", "everything"] {
        let doc = load(name);
        let valid = mcpdesc_validate::Validator::new()
            .check(&doc)
            .expect("valid");
        let g =
            mcpdesc_codegen::generate_rust_server(&valid, &Default::default()).expect("generates");
        assert!(
            !g.generated.files.is_empty(),
            "{name}: {:#?}",
            g.generated.diagnostics
        );
        let seeds: Vec<&str> = g.seeds.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(seeds, ["src/handlers.rs", "src/main.rs"], "{name}");
        // One contract for both stubs: the TypeScript server's contract.json, byte for byte.
        let ts = mcpdesc_codegen::generate_typescript_server(&valid, &Default::default())
            .expect("generates");
        let contract = |files: &[mcpdesc_codegen::GeneratedFile]| {
            files
                .iter()
                .find(|f| f.path == "src/generated/contract.json")
                .map(|f| f.contents.clone())
        };
        assert_eq!(
            contract(&g.generated.files),
            contract(&ts.generated.files),
            "{name}"
        );
        // No schema is copied into code: the contract is embedded, not transcribed.
        for f in g.generated.files.iter().filter(|f| f.path.ends_with(".rs")) {
            assert!(!f.contents.contains("\"properties\""), "{name}: {}", f.path);
        }
        insta::with_settings!({snapshot_path => snapshot_dir("codegen"), prepend_module_to_snapshot => false}, {
            for f in g.generated.files.iter().chain(&g.seeds) {
                insta::assert_snapshot!(format!("{name}-rust-server-{}", f.path.replace('/', "-")), f.contents);
            }
        });
    }
}

/// Issue 32: the generated Rust server of each spec example (and the codegen fixtures
/// with examples and revisions) builds with `RUSTFLAGS=-D warnings` and `cargo clippy --
/// -D warnings`, and `capture` of the built stub at every declared revision gives back
/// the description's `export tools-list` at that revision, exactly. The stubs are built
/// as members of one workspace (their `[workspace]` table removed), one cargo run each
/// for clippy and the build.
#[cfg_attr(
    mcpdesc_skip_generated_builds,
    ignore = "MCPDESC_SKIP_GENERATED_BUILDS is set"
)]
#[test]
fn generated_rust_servers_serve_their_contract() {
    let cfg = check_config();
    let mut descs: Vec<PathBuf> = std::fs::read_dir(fixture("spec/examples"))
        .expect("spec examples")
        .flatten()
        .map(|e| e.path())
        .collect();
    descs.sort();
    descs.extend(
        ["revisions", "everything", "py-server"].map(|n| fixture(&format!("codegen/{n}.json"))),
    );
    let base = cfg.work_dir.join("rust-servers");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("mkdir");
    let mut members = Vec::new();
    for desc in &descs {
        let stem = desc.file_stem().and_then(|s| s.to_str()).unwrap_or("x");
        let stem = stem.trim_end_matches(".mcpdesc");
        let name = format!("rs-server-{stem}");
        let dir = base.join(&name);
        generate_rust_server(desc, &dir, Some(&name));
        let manifest = dir.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("Cargo.toml");
        assert!(
            text.contains(&format!("[[bin]]\nname = \"{name}\"")),
            "{text}"
        );
        let member = text
            .trim_end()
            .strip_suffix("[workspace]")
            .map(str::to_string)
            .unwrap_or_else(|| panic!("{name}: a standalone crate ends with [workspace]:\n{text}"));
        std::fs::write(&manifest, member).expect("writes");
        members.push((desc.clone(), dir, name));
    }
    let list: Vec<String> = members.iter().map(|(_, _, n)| format!("\"{n}\"")).collect();
    std::fs::write(
        base.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            list.join(", ")
        ),
    )
    .expect("writes");
    let manifest = base.join("Cargo.toml");
    let (ok, out) = cargo(
        "clippy",
        &manifest,
        &["--workspace", "--quiet", "--", "-D", "warnings"],
    );
    assert!(ok, "clippy:\n{out}");
    let (ok, out) = cargo("build", &manifest, &["--workspace", "--quiet"]);
    assert!(ok, "build:\n{out}");
    for (desc, dir, name) in &members {
        capture_equals_export(desc, dir, &binary(name));
    }
}

/// The `revisions` description with `get_pet`'s output `id` at least 1 (so a handler's
/// typed result can still break the outputSchema).
fn pets() -> Value {
    let mut doc = load("revisions");
    for t in doc["tools"].as_array_mut().expect("tools") {
        if t["name"] == "get_pet" {
            t["outputSchema"]["properties"]["id"]["minimum"] = json!(1);
        }
    }
    doc
}

/// [`pets`] with `get_pet`'s output property `name` renamed `title`.
fn pets_renamed() -> Value {
    let mut doc = pets();
    for t in doc["tools"].as_array_mut().expect("tools") {
        if t["name"] == "get_pet" {
            let out = &mut t["outputSchema"];
            let name = out["properties"]
                .as_object_mut()
                .and_then(|p| p.remove("name"))
                .expect("name");
            out["properties"]["title"] = name;
            out["required"] = json!(["id", "title"]);
        }
    }
    doc
}

const MINE: &str = r#"// mine
use crate::generated::{Handlers, ToolContext, ToolError, types::*};

/// The server's handlers.
pub struct ServerHandlers;

impl Handlers for ServerHandlers {
    async fn get_pet(&self, input: GetPetInput, ctx: &ToolContext) -> Result<GetPetOutput, ToolError> {
        if input.id < 0 {
            return Err(ToolError::new(format!("no pet {} at {}", input.id, ctx.revision)));
        }
        Ok(GetPetOutput { id: input.id, name: format!("pet {}", input.id) })
    }
}
"#;

/// The generated Rust clients against the stub (stdio and HTTP, at the newest revision
/// and at 2025-11-25) and against `serve --mock --http` of the 2026-07-28-only
/// description; one JSON line.
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
    let (stub, stub_url, mock_url) = (args[0].as_str(), args[1].as_str(), args[2].as_str());
    let mut out = serde_json::Map::new();
    for (label, revision) in [("modern", None), ("session", Some("2025-11-25"))] {
        let none: [&str; 0] = [];
        out.insert(format!("stdio-{label}"), session(Client::connect_stdio_at(stub, none, revision).await?).await?);
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

/// The Python SDK (`mcp` 2.3.0) against the stub over stdio and HTTP, negotiating
/// `auto` (2026-07-28) and `legacy` (the handshake); one JSON line.
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
    stub, url = sys.argv[1], sys.argv[2]
    out = {}
    for mode in ["auto", "legacy"]:
        out["stdio-" + mode] = await session(StdioServerParameters(command=stub, args=[]), mode)
        out["http-" + mode] = await session(url, mode)
    print(json.dumps(out))

anyio.run(main)
"#;

/// A stub's `--http 127.0.0.1:0` as a child; the URL from its start-up line.
struct StubHttp(ServeHttp);

impl StubHttp {
    fn spawn(program: &Path) -> StubHttp {
        use std::io::BufRead as _;
        let mut child = Command::new(program)
            .args(["--http", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn the stub");
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
                    panic!("the stub did not start:\n{}", log.join("\n"));
                }
            }
        };
        std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
        StubHttp(ServeHttp { child, url })
    }
}

/// Writes the generated client crates and an app depending on them under `base`, runs
/// the app with `args` (`cargo run`, the shared target directory) and returns its last
/// line as JSON.
fn run_rust_app(
    base: &Path,
    crates: &[(&str, Generated)],
    main: &str,
    args: &[&std::ffi::OsStr],
) -> Value {
    let mut deps = String::new();
    for (package, g) in crates {
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
                "[package]\nname = \"e2e-server-app\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{deps}serde_json = \"1\"\ntokio = {{ version = \"1\", features = [\"macros\", \"rt\"] }}\n\n[workspace]\n"
            ),
        ),
        ("src/main.rs", main.to_string()),
    ]
    .map(|(path, contents)| mcpdesc_codegen::GeneratedFile {
        path: path.into(),
        contents,
    });
    mcpdesc_codegen::write_files(&app, &files).expect("writes");
    let cfg = check_config();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(app.join("Cargo.toml"))
        .arg("--")
        .args(args)
        .env("CARGO_TARGET_DIR", &cfg.cargo_target_dir)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "e2e app failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("json line")
}

/// Issue 32: a Rust stub's user code survives regeneration and the contract holds it to
/// the description. A hand-written `get_pet` survives `generate rust-server` again; the
/// stub builds as generated (`cargo build`, its own `[workspace]`) into a binary named
/// after the description. The generated Rust client reaches it over stdio and HTTP at
/// 2026-07-28 and at the session revision 2025-11-25: `list_pets` answers from the tool's
/// named example (wrapped as `{"result": …}` at 2025-11-25 and unwrapped by the client),
/// `get_pet` runs the user's code, a result outside the outputSchema (`id` 0 below its
/// minimum 1) is a tool error, a handler's error is a tool error, and `adopt` (no
/// example) is "not implemented" (absent from 2025-11-25, where the client does not call
/// it). The Python SDK gets the same over stdio and HTTP in `auto` and `legacy` mode, and
/// arguments that are not the inputSchema's are a tool error before the handler runs.
/// The same client generated for the 2026-07-28-only description reaches `mcpdesc serve
/// --mock --http` of it. After the description renames `get_pet`'s output property, the
/// build fails in `src/handlers.rs` and nowhere else.
#[cfg_attr(
    any(mcpdesc_missing_venv, mcpdesc_skip_generated_builds),
    ignore = "needs .deps/venv (cargo xtask deps) and MCPDESC_SKIP_GENERATED_BUILDS unset"
)]
#[test]
fn generated_rust_server_keeps_user_code_and_checks_it() {
    let py = workspace_root().join(".deps/venv/bin/python");
    if !py.is_file() {
        return missing("the Python venv with mcp (.deps/venv)");
    }
    let cfg = check_config();
    let base = cfg.work_dir.join("rs-server-user-code");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("mkdir");
    let desc = base.join("pets.mcpdesc.json");
    write_json(&desc, &pets());
    let stub = base.join("stub");
    generate_rust_server(&desc, &stub, None);
    let seeded = std::fs::read_to_string(stub.join("src/handlers.rs")).expect("handlers.rs");
    assert!(
        seeded.contains("impl Handlers for ServerHandlers {"),
        "{seeded}"
    );
    std::fs::write(stub.join("src/handlers.rs"), MINE).expect("writes");
    let err = generate_rust_server(&desc, &stub, None);
    assert!(err.contains("kept src/handlers.rs"), "{err}");
    assert_eq!(
        std::fs::read_to_string(stub.join("src/handlers.rs")).expect("reads"),
        MINE,
        "regeneration overwrote the user's handlers"
    );
    let manifest = stub.join("Cargo.toml");
    let (ok, out) = cargo("clippy", &manifest, &["--quiet", "--", "-D", "warnings"]);
    assert!(ok, "clippy:\n{out}");
    let (ok, out) = cargo("build", &manifest, &["--quiet"]);
    assert!(ok, "build:\n{out}");
    let program = binary("pets-server");
    assert!(
        program.is_file(),
        "the binary is named after the description"
    );

    let only = mcpdesc_tests::project(&load("revisions"), ProtocolRevision::V2026_07_28)
        .expect("projects");
    let only_path = base.join("only.mcpdesc.json");
    write_json(&only_path, &only);
    let http = StubHttp::spawn(&program);
    let mock = ServeHttp::spawn(&[only_path.as_os_str(), "--mock".as_ref()]);
    let client = |doc: &Value, name: &str| {
        let g = mcpdesc_codegen::generate_rust(
            &mcpdesc_tests::valid(doc),
            &RustOptions {
                crate_name: Some(name.into()),
                ..Default::default()
            },
        )
        .expect("generates");
        assert!(!g.files.is_empty(), "{name}: {:#?}", g.diagnostics);
        g
    };
    let v = run_rust_app(
        &base.join("rust"),
        &[
            ("pets-client", client(&pets(), "pets-client")),
            ("pets-only-client", client(&only, "pets-only-client")),
        ],
        RUST_CLIENT_MAIN,
        &[program.as_os_str(), http.0.url.as_ref(), mock.url.as_ref()],
    );
    let example = json!([{"id": 1, "name": "Rex"}]);
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

    let script = base.join("py_client.py");
    std::fs::write(&script, PY_CLIENT).expect("writes");
    let out = Command::new(&py)
        .arg(&script)
        .arg(&program)
        .arg(&http.0.url)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p: Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("json line");
    for transport in ["stdio", "http"] {
        for (mode, rev) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
            let r = &p[format!("{transport}-{mode}")];
            assert_eq!(r["negotiated"], rev, "{p}");
            let tools = if rev == "2026-07-28" {
                json!(["adopt", "get_pet", "list_pets"])
            } else {
                json!(["get_pet", "list_pets"])
            };
            assert_eq!(r["tools"], tools, "{p}");
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
    drop(http);

    // The description changes: get_pet's output property `name` is now `title`.
    write_json(&desc, &pets_renamed());
    generate_rust_server(&desc, &stub, None);
    assert_eq!(
        std::fs::read_to_string(stub.join("src/handlers.rs")).expect("reads"),
        MINE
    );
    let (ok, out) = cargo(
        "build",
        &manifest,
        &["--quiet", "--message-format", "short"],
    );
    assert!(!ok, "the build should fail at the handler:\n{out}");
    let errors: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("error"))
        .filter(|l| l.contains(".rs:"))
        .collect();
    assert!(!errors.is_empty(), "{out}");
    assert!(
        errors.iter().all(|l| l.starts_with("src/handlers.rs:")),
        "errors outside the handler:\n{out}"
    );
}
