//! Issue 32: servers of MCP 2026-07-28 alone, and generated Rust server stubs.
//!
//! - `capture` of a server that serves 2026-07-28 alone (`mcpdesc serve --mock`, over
//!   stdio and Streamable HTTP): the session revisions it refuses are skipped, each with
//!   a note, and the captured view is the description's export;

use mcpdesc_core::ProtocolRevision;
use serde_json::{Value, json};
use std::path::Path;
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
