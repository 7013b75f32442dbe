//! ARCHITECTURE.md's crate table against `cargo metadata`: every workspace crate has one
//! row, its listed workspace dependencies are exactly its real (normal) ones, and each
//! dependency sits on a lower layer. The table is read from the document, so a crate
//! added to the workspace fails here until it is listed.

use mcpdesc_tests::workspace_root;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// `(layer, dependencies)` by crate name, from the table's rows.
fn table() -> BTreeMap<String, (String, BTreeSet<String>)> {
    let text =
        std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut rows = BTreeMap::new();
    let start = text
        .find("| layer | crate | workspace dependencies |")
        .expect("the crate table");
    for line in text[start..].lines().skip(2) {
        let Some(inner) = line.strip_prefix('|').and_then(|l| l.strip_suffix('|')) else {
            break;
        };
        let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 3, "row {line:?}");
        let name = cells[1].trim_matches('`').to_string();
        let deps: BTreeSet<String> = match cells[2] {
            "none" => BTreeSet::new(),
            list => list.split(',').map(|d| short(d.trim())).collect(),
        };
        let dup = rows.insert(name.clone(), (cells[0].to_string(), deps));
        assert!(dup.is_none(), "{name} has two rows");
    }
    rows
}

fn short(name: &str) -> String {
    name.strip_prefix("mcpdesc-").unwrap_or(name).to_string()
}

/// Workspace crates and their normal workspace dependencies, from `cargo metadata`.
fn metadata() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let packages = m["packages"].as_array().expect("packages");
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["kind"].is_null())
                .filter_map(|d| d["name"].as_str())
                .filter(|d| names.contains(d))
                .map(short)
                .collect();
            (p["name"].as_str().unwrap_or_default().to_string(), deps)
        })
        .collect()
}

fn rank(layer: &str) -> u32 {
    match layer {
        "entry" | "outside" => u32::MAX,
        n => n.parse().unwrap_or_else(|_| panic!("layer {n:?}")),
    }
}

#[test]
fn the_crate_table_is_the_workspace() {
    let table = table();
    let real = metadata();
    let listed: BTreeSet<&String> = table.keys().collect();
    let actual: BTreeSet<&String> = real.keys().collect();
    assert_eq!(
        listed, actual,
        "ARCHITECTURE.md lists other crates than the workspace has"
    );
    let mut wrong = Vec::new();
    for (name, deps) in &real {
        let (layer, listed) = &table[name];
        if listed != deps {
            wrong.push(format!("{name}: listed {listed:?}, real {deps:?}"));
        }
        for d in deps {
            let full = format!("mcpdesc-{d}");
            let dl = table
                .get(&full)
                .or_else(|| table.get(d))
                .map(|(l, _)| l.as_str());
            if let Some(dl) = dl
                && rank(layer) != u32::MAX
                && rank(dl) >= rank(layer)
            {
                wrong.push(format!(
                    "{name} (layer {layer}) depends on {d} (layer {dl})"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
