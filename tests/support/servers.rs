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
/// order, envelope aside — see [`without_envelope`] — nothing more, nothing less) and the export of the captured
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("json line")
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
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(app.join("Cargo.toml"))
        .arg("--")
        .args(args)
        .env("CARGO_TARGET_DIR", &check_config().cargo_target_dir)
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
