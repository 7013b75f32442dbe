//! Issue 32: servers of MCP 2026-07-28 alone, and generated Rust server stubs.
//!
//! - `capture` of a server that serves 2026-07-28 alone (`mcpdesc serve --mock`, over
//!   stdio and Streamable HTTP): the session revisions it refuses are skipped, each with
//!   a note, and the captured view is the description's export;
//! - `generate rust-server`: the stubs of the spec examples and codegen fixtures build
//!   (clippy `-D warnings`) and `capture` of each gives back the description's export at
//!   every declared revision, over stdio and HTTP; the generated Rust and TypeScript (v2)
//!   clients and the Python SDK reach a stub over stdio and HTTP at 2026-07-28 and at
//!   2025-11-25; the user's handlers survive
//!   regeneration and a changed schema breaks the build there only; snapshots of the
//!   generated tree.
//!
//! The generated crates share one target directory (`check_config().cargo_target_dir`)
//! and are built as few cargo invocations as possible (the stubs of the examples as
//! members of one workspace).

use mcpdesc_codegen::TsOptions;
use mcpdesc_core::ProtocolRevision;
use mcpdesc_tests::servers::{
    HttpChild, capture_equals_export, check_python_sdk_on_pets, check_rust_client_on_pets,
    pets_tools_at, run_ts_app,
};
use mcpdesc_tests::{check_config, deps_dir, fixture, missing, snapshot_dir};
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
    let http = HttpChild::serve(&[desc.as_os_str(), "--mock".as_ref()]);
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
    let out = cfg
        .cargo()
        .arg(sub)
        .arg("--manifest-path")
        .arg(manifest)
        .args(args)
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
/// -D warnings`, and `capture` of the built stub at every declared revision, over stdio
/// and over Streamable HTTP (`--http`), gives back the description's `export tools-list`
/// at that revision, exactly: `everything`'s tools declare `execution`, which rmcp's typed
/// `Tool` has no member for (2025-11-25, a session revision), and `revisions` is served
/// statelessly at 2026-07-28. The stubs are built as members of one workspace (their
/// `[workspace]` table removed), one cargo run each for clippy and the build.
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
        let program = binary(name);
        capture_equals_export(desc, dir, &["--".as_ref(), program.as_os_str()]);
        let http = HttpChild::program(&program);
        capture_equals_export(desc, dir, &["--url".as_ref(), http.url.as_ref()]);
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

/// The generated v2 TypeScript client (`@modelcontextprotocol/client` 2.4) against the
/// stub over stdio and HTTP, negotiating `auto` (2026-07-28) and `legacy` (the handshake);
/// the same SDK's `Client` lists the tools on each connection. One JSON line.
const TS_CLIENT: &str = r#"
import { McpClient, ToolError } from "./pets/dist/index.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
const [stub, url] = process.argv.slice(2);
const failure = (err) => (err instanceof ToolError ? "ToolError: " : err.name + ": ") + err.message;
async function listed(transport, mode) {
  const c = new Client({ name: "lister", version: "0.0.0" }, { versionNegotiation: { mode } });
  await c.connect(transport);
  const { tools } = await c.listTools();
  await c.close();
  return tools.map((t) => t.name).sort();
}
async function session(c) {
  const r = { negotiated: c.protocolVersion, pets: await c.listPets({ limit: 1 }), pet: await c.getPet({ id: 7 }) };
  try { r.wrong = await c.getPet({ id: 0 }); } catch (err) { r.wrong = failure(err); }
  try { r.adopt = await c.adopt({ id: 1 }); } catch (err) { r.adopt = failure(err); }
  await c.close();
  return r;
}
const out = {};
for (const mode of ["auto", "legacy"]) {
  out["stdio-" + mode] = await session(await McpClient.connectStdio(stub, [], { versionNegotiation: mode }));
  out["stdio-" + mode].tools = await listed(new StdioClientTransport({ command: stub, args: [] }), mode);
  out["http-" + mode] = await session(await McpClient.connectHttp(url, { versionNegotiation: mode }));
  out["http-" + mode].tools = await listed(new StreamableHTTPClientTransport(new URL(url)), mode);
}
console.log(JSON.stringify(out));
"#;

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
/// The generated v2 TypeScript client gets the same over stdio and HTTP at 2026-07-28
/// (`auto`) and 2025-11-25 (`legacy`), where its SDK lists the tools of that revision.
/// The same client generated for the 2026-07-28-only description reaches `mcpdesc serve
/// --mock --http` of it. After the description renames `get_pet`'s output property, the
/// build fails in `src/handlers.rs` and nowhere else.
#[cfg_attr(
    any(
        mcpdesc_missing_venv,
        mcpdesc_missing_node,
        mcpdesc_skip_generated_builds
    ),
    ignore = "needs .deps/venv and .deps/node (cargo xtask deps) and MCPDESC_SKIP_GENERATED_BUILDS unset"
)]
#[test]
fn generated_rust_server_keeps_user_code_and_checks_it() {
    let py = deps_dir().join("venv/bin/python");
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

    let http = HttpChild::program(&program);
    check_rust_client_on_pets(&base, &pets(), &[program.as_os_str()], &http.url);
    check_python_sdk_on_pets(&py, &base, &[program.as_os_str()], &http.url);
    let example = json!([{"id": 1, "name": "Rex"}]);
    if let (Some(tsc), true) = (cfg.tsc(), cfg.has_client_v2()) {
        let client = mcpdesc_codegen::generate_typescript(
            &mcpdesc_tests::valid(&pets()),
            &TsOptions {
                package_name: Some("pets".into()),
                ..Default::default()
            },
        )
        .expect("generates");
        let t = run_ts_app(
            &cfg,
            &tsc,
            &base.join("ts"),
            &[("pets", client)],
            TS_CLIENT,
            &[program.as_os_str(), http.url.as_ref()],
        );
        for transport in ["stdio", "http"] {
            for (mode, rev) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
                let r = &t[format!("{transport}-{mode}")];
                assert_eq!(r["negotiated"], rev, "{t}");
                assert_eq!(r["tools"], pets_tools_at(rev), "{transport} {mode}: {t}");
                assert_eq!(r["pets"], example, "{transport} {mode}: {t}");
                assert_eq!(r["pet"], json!({"id": 7, "name": "pet 7"}), "{t}");
                let wrong = r["wrong"].as_str().unwrap_or_default();
                assert!(
                    wrong.starts_with("ToolError: ")
                        && wrong.contains("does not match its outputSchema"),
                    "{transport} {mode}: {t}"
                );
                let adopt = r["adopt"].as_str().unwrap_or_default();
                if rev == "2026-07-28" {
                    assert!(
                        adopt.starts_with("ToolError: ") && adopt.contains("not implemented"),
                        "{t}"
                    );
                } else {
                    assert!(adopt.starts_with("ToolUnavailableError: "), "{t}");
                }
            }
        }
    } else {
        missing("typescript and @modelcontextprotocol/client (.deps/node)");
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
