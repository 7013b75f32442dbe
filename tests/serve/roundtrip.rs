//! Proof 5: `mcpdesc capture --protocol-versions all -- mcpdesc serve D` gives back D's
//! tools at every revision (the comparison `export` makes: the `tools/list` export of
//! the capture equals D's, revision by revision), over stdio and over HTTP.

use crate::harness::*;
use mcpdesc_core::{ProtocolRevision, RevisionSet};
use mcpdesc_tests::{fixture, mcpdesc_bin, missing, workspace_root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn capture(revisions: &str, target: &[String], out: &Path) {
    let o = Command::new(mcpdesc_bin())
        .args(["capture", "--protocol-versions", revisions, "-o"])
        .arg(out)
        .args(target)
        .output()
        .expect("run mcpdesc capture");
    assert!(
        o.status.success(),
        "capture {target:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn same_tools_at_every_revision(name: &str, original: &Value, captured: &Value, over: RevisionSet) {
    let revs = RevisionSet::from_json(&captured["protocolVersions"]);
    assert_eq!(
        revs,
        RevisionSet::from_json(&original["protocolVersions"]).intersection(over),
        "{name}: revisions"
    );
    // Tool order carries no meaning (§3.6; merge orders variants its own way): compare
    // the exports as maps by tool name.
    let by_name = |list: Value| -> std::collections::BTreeMap<String, Value> {
        list["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                (
                    t["name"].as_str().unwrap_or_default().to_string(),
                    t.clone(),
                )
            })
            .collect()
    };
    for rev in revs.iter() {
        let a =
            by_name(mcpdesc_tests::export_tools_list(original, rev).expect("exports the original"));
        let b =
            by_name(mcpdesc_tests::export_tools_list(captured, rev).expect("exports the capture"));
        assert!(
            !a.is_empty() || !original["tools"].is_array(),
            "{name} @ {rev}: no tools?"
        );
        assert_eq!(a, b, "{name} @ {rev}");
    }
    assert_eq!(
        captured["info"]["name"], original["info"]["name"],
        "{name}: identity"
    );
}

#[test]
fn capture_of_serve_is_the_description() {
    if !mcpdesc_bin().is_file() {
        return missing("the mcpdesc binary");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // (name, description, serve flags). `all` is requested from each; a description that
    // serves only 2026-07-28 has no handshake to answer the older sessions with (-32022,
    // and `capture` stops at the first failed session), so it is captured at its own
    // revision.
    let cases: Vec<(String, PathBuf, Vec<&str>)> = vec![
        (
            "every-revision".into(),
            mcp_fixture("every-revision.mcpdesc.yaml"),
            vec!["--mock"],
        ),
        (
            "petstore-3.0 (gateway)".into(),
            workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"),
            vec![],
        ),
        (
            "petstore-2.0 (gateway)".into(),
            workspace_root().join("tests/generated/petstore-2.0.mcpdesc.yaml"),
            vec![],
        ),
        (
            "multi-version".into(),
            fixture("spec/examples/multi-version.yaml"),
            vec!["--mock"],
        ),
        (
            "full-featured".into(),
            fixture("spec/examples/full-featured.yaml"),
            vec!["--mock"],
        ),
        (
            "named-tool-examples".into(),
            fixture("spec/fixtures/expected-valid/named-tool-examples.json"),
            vec!["--mock"],
        ),
    ];
    let bin = mcpdesc_bin().display().to_string();
    for (i, (name, path, extra)) in cases.iter().enumerate() {
        let original = load(path);
        // stdio
        let out = dir.path().join(format!("stdio-{i}.json"));
        let mut target = vec![
            "--".to_string(),
            bin.clone(),
            "serve".into(),
            path.display().to_string(),
        ];
        target.extend(extra.iter().map(|s| s.to_string()));
        target.extend(["--page-size".into(), "3".into()]);
        let revisions = if RevisionSet::from_json(&original["protocolVersions"])
            .without(mcpdesc_core::Feature::StatelessLifecycle)
            .is_empty()
        {
            "2026-07-28"
        } else {
            "all"
        };
        capture(revisions, &target, &out);
        let captured: Value =
            serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
        same_tools_at_every_revision(name, &original, &captured, RevisionSet::ALL);
        // Streamable HTTP (no 2024-11-05 there).
        let mut args = vec![path.display().to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let srv = ServeHttp::spawn(&args);
        let out = dir.path().join(format!("http-{i}.json"));
        capture(revisions, &["--url".to_string(), srv.url.clone()], &out);
        let captured: Value =
            serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
        let over_http = RevisionSet::ALL.with(mcpdesc_core::Feature::StreamableHttp);
        same_tools_at_every_revision(
            &format!("{name} over HTTP"),
            &original,
            &captured,
            over_http,
        );
    }
}

/// The 2026-07-28 session of a capture uses the stateless lifecycle (`server/discover`
/// and the envelope), the others the handshake.
#[test]
fn capture_sessions_follow_each_lifecycle() {
    if !mcpdesc_bin().is_file() {
        return missing("the mcpdesc binary");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = dir.path().join("sessions");
    let fx = mcp_fixture("every-revision.mcpdesc.yaml")
        .display()
        .to_string();
    let o = Command::new(mcpdesc_bin())
        .args(["capture", "-o"])
        .arg(dir.path().join("c.json"))
        .arg("--save-transcripts")
        .arg(&sessions)
        .args([
            "--",
            &mcpdesc_bin().display().to_string(),
            "serve",
            &fx,
            "--mock",
        ])
        .output()
        .expect("capture");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for rev in ProtocolRevision::ALL {
        let t = std::fs::read_to_string(sessions.join(format!("session-{rev}.jsonl")))
            .expect("transcript");
        let methods: Vec<String> = t
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|m| m.get("method").and_then(Value::as_str).map(str::to_string))
            .collect();
        let stateless = rev.has(mcpdesc_core::Feature::StatelessLifecycle);
        assert_eq!(
            methods.contains(&"server/discover".to_string()),
            stateless,
            "{rev}: {methods:?}"
        );
        assert_eq!(
            methods.contains(&"initialize".to_string()),
            !stateless,
            "{rev}: {methods:?}"
        );
    }
}

/// `capture` of a search-facade server and of a toolset URL gives back what they serve:
/// the facade's list at every revision (compared with an in-process facade server), and
/// the toolset's tools as the original exports them.
#[test]
fn capture_of_the_facade_and_of_a_toolset_url_round_trips() {
    if !mcpdesc_bin().is_file() {
        return missing("the mcpdesc binary");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml");
    let original = load(&path);
    let bin = mcpdesc_bin().display().to_string();
    let out = dir.path().join("facade.json");
    let target: Vec<String> = [
        "--",
        bin.as_str(),
        "serve",
        &path.display().to_string(),
        "--mock",
        "--discovery",
        "search",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    capture("all", &target, &out);
    let captured: Value =
        serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
    let (server, _) = server_opts(
        &original,
        mock(),
        mcpdesc_serve::ServeOptions {
            discovery: mcpdesc_serve::Discovery::Search(Default::default()),
            ..Default::default()
        },
    );
    let rt = std::sync::Arc::new(rt());
    for rev in RevisionSet::from_json(&original["protocolVersions"]).iter() {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let (served, _) = c.list_all(&env, "tools/list", "tools");
        let exported = mcpdesc_tests::export_tools_list(&captured, rev).expect("exports");
        assert_eq!(exported["tools"], Value::Array(served), "facade @ {rev}");
    }
    // A toolset URL is a server of that toolset's tools.
    let srv = ServeHttp::spawn(&[path.display().to_string(), "--mock".into()]);
    let out = dir.path().join("pets.json");
    capture(
        "all",
        &["--url".to_string(), format!("{}/x/pets", srv.url)],
        &out,
    );
    let captured: Value =
        serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
    for rev in RevisionSet::from_json(&captured["protocolVersions"]).iter() {
        let want: Vec<Value> =
            mcpdesc_tests::export_tools_list(&original, rev).expect("exports")["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| {
                    ["list_pets", "create_pet", "get_pet"]
                        .contains(&t["name"].as_str().unwrap_or(""))
                })
                .cloned()
                .collect();
        let got = mcpdesc_tests::export_tools_list(&captured, rev).expect("exports");
        // Tool order carries no meaning in a captured (merged) description.
        let sorted = |mut v: Vec<Value>| {
            v.sort_by_key(|t| t["name"].as_str().unwrap_or_default().to_string());
            v
        };
        let got = sorted(got["tools"].as_array().cloned().unwrap_or_default());
        assert_eq!(got, sorted(want), "/mcp/x/pets @ {rev}");
    }
}
