//! `mcpdesc serve --host H [--budget BYTES]`: the served `tools/list` is exactly what
//! `mcpdesc export tools-list --host H` emits at that revision (the definition),
//! a renamed tool answers to its new name only, and a description the host cannot take
//! is refused at start naming the tool.

use crate::harness::*;
use mcpdesc_live::client::Transport as _;
use mcpdesc_tests::mcpdesc_bin;
use serde_json::{Value, json};
use std::process::Command;

fn export(file: &str, rev: &str, host: &str) -> Value {
    let out = Command::new(mcpdesc_bin())
        .args([
            "export",
            "tools-list",
            file,
            "--protocol-version",
            rev,
            "--host",
            host,
        ])
        .output()
        .expect("run export");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("export is JSON")
}

#[test]
fn host_fitted_lists_are_the_host_export_and_renamed_tools_answer_to_new_names() {
    if !mcpdesc_bin().is_file() {
        return mcpdesc_tests::missing("the mcpdesc binary");
    }
    let fx = mcp_fixture("host-fit.mcpdesc.yaml").display().to_string();
    for rev in ["2025-06-18", "2025-11-25"] {
        let mut t = spawn_cli(&[&fx, "--mock", "--host", "kiro", "--protocol-versions", rev]);
        let init = rpc(
            &mut t,
            1,
            "initialize",
            json!({"protocolVersion": rev, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], rev, "{init}");
        let list = rpc(&mut t, 2, "tools/list", json!({}));
        assert_eq!(
            list["result"]["tools"],
            export(&fx, rev, "kiro")["tools"],
            "at {rev}"
        );
        // Hand-written: Kiro takes no hyphens or dots, so the first tool is renamed.
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names.len(), 2);
        assert!(names.contains(&"list_pets"), "{names:?}");
        let renamed = names
            .iter()
            .find(|n| **n != "list_pets")
            .expect("the renamed tool")
            .to_string();
        assert!(
            !renamed.contains(['-', '.']) && renamed.contains("pet"),
            "{renamed}"
        );
        let r = rpc(
            &mut t,
            3,
            "tools/call",
            json!({"name": renamed, "arguments": {"id": 1}}),
        );
        assert_eq!(r["result"]["content"][1]["text"], "Rex", "{r}");
        let r = rpc(
            &mut t,
            4,
            "tools/call",
            json!({"name": "get-pet.by.id", "arguments": {"id": 1}}),
        );
        assert_eq!(r["error"]["code"], -32602, "the old name is gone: {r}");
        t.close();
        let log = t.stderr();
        assert!(
            log.contains("get-pet.by.id"),
            "the rename is reported: {log}"
        );
    }
}

#[test]
fn a_description_the_host_cannot_take_is_refused_naming_the_tool() {
    if !mcpdesc_bin().is_file() {
        return mcpdesc_tests::missing("the mcpdesc binary");
    }
    let fx = mcp_fixture("host-fit.mcpdesc.yaml").display().to_string();
    let out = Command::new(mcpdesc_bin())
        .args(["serve", &fx, "--mock", "--host", "openai-strict"])
        .output()
        .expect("run serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("list_pets"), "{err}");
    assert!(err.contains("fit-strict-not-liftable"), "{err}");
}
