//! Workspace-level tests of host-safe tool names (`mcpdesc-names`, `mcpdesc names`).
//!
//! - fixture descriptions in `tests/fixtures/names/*.mcpdesc.json`, each with a
//!   hand-written `*.expected.json` (options, diagnostics as code + pointer, names
//!   after `--fix` or the codes that make `--fix` refuse);
//! - order independence: the same requests in many orders give the same mapping;
//! - the 1,223 operationIds of the GitHub REST spec (`@octokit/openapi` under
//!   `.deps/node`) become unique host-safe names;
//! - CLI wiring of `mcpdesc names` (needs the built binary, like `tests/cli.rs`).

use mcpdesc_core::{Format, Limits, decode};
use mcpdesc_names::{
    NameAllocator, NameOptions, ORIGINAL_NAME_EXTENSION, assign_names, check_tool_names,
    fix_tool_names, is_host_safe,
};
use mcpdesc_tests::{deps_dir, fixture, mcpdesc_bin};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .expect("array of [code, pointer]")
        .iter()
        .map(|p| {
            (
                p[0].as_str().expect("code").to_string(),
                p[1].as_str().expect("ptr").to_string(),
            )
        })
        .collect()
}

fn fixture_stems() -> Vec<String> {
    let dir = fixture("names");
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures/names")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".mcpdesc.json")
                .map(String::from)
        })
        .collect();
    stems.sort();
    assert!(
        stems.len() >= 4,
        "expected the name fixtures in {}",
        dir.display()
    );
    stems
}

fn tool_names(doc: &Value) -> Vec<String> {
    doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn fixtures_check_and_fix_as_expected() {
    for stem in fixture_stems() {
        let doc = read_json(&fixture(&format!("names/{stem}.mcpdesc.json")));
        let exp = read_json(&fixture(&format!("names/{stem}.expected.json")));
        let opts = NameOptions::new(
            exp["max"].as_u64().expect("max") as usize,
            exp["prefix"].as_str().expect("prefix"),
        )
        .expect("valid options");

        let got: Vec<(String, String)> = check_tool_names(&doc, &opts)
            .into_iter()
            .map(|d| (d.code, d.pointer))
            .collect();
        assert_eq!(got, pairs(&exp["check"]), "{stem}: check");

        let mut fixed = doc.clone();
        match fix_tool_names(&mut fixed, &opts) {
            Ok(_) => {
                let want: Vec<String> = serde_json::from_value(exp["fix"]["names"].clone())
                    .unwrap_or_else(|_| panic!("{stem}: fix unexpectedly succeeded"));
                assert_eq!(tool_names(&fixed), want, "{stem}: fixed names");
                assert_eq!(
                    check_tool_names(&fixed, &opts),
                    [],
                    "{stem}: fixed doc is clean"
                );
                // Every renamed tool remembers its name; nothing else changed.
                for (before, after) in doc["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .zip(fixed["tools"].as_array().into_iter().flatten())
                {
                    let mut after = after.clone();
                    if before["name"] != after["name"] {
                        assert_eq!(after[ORIGINAL_NAME_EXTENSION], before["name"], "{stem}");
                        let obj = after.as_object_mut().expect("tool object");
                        obj.remove(ORIGINAL_NAME_EXTENSION);
                        obj.insert("name".into(), before["name"].clone());
                    }
                    assert_eq!(&after, before, "{stem}: only the name changes");
                }
            }
            Err(diags) => {
                let got: Vec<(String, String)> =
                    diags.into_iter().map(|d| (d.code, d.pointer)).collect();
                assert_eq!(got, pairs(&exp["fix"]["error"]), "{stem}: fix refusal");
                assert_eq!(fixed, doc, "{stem}: untouched on refusal");
            }
        }
    }
}

/// xorshift64*: a fixed-seed shuffle, so a failure reproduces.
fn shuffled<T: Clone>(items: &[T], seed: u64) -> Vec<T> {
    let mut v = items.to_vec();
    let mut s = seed.max(1);
    for i in (1..v.len()).rev() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        let j = (s.wrapping_mul(0x2545_F491_4F6C_DD1D) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

fn mapping(items: &[(String, String)], opts: &NameOptions) -> BTreeMap<(String, String), String> {
    let names = assign_names(items, opts).expect("assigns");
    items.iter().cloned().zip(names).collect()
}

/// Requests built to collide: case and separator variants of a few stems, the same
/// raw name under several keys, equal keys, names that equal another's suffixed form,
/// and long names sharing head and tail.
fn collision_heavy() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for stem in [
        "getUser",
        "get-user",
        "GET_USER",
        "get user",
        "get_user",
        "get.user!",
    ] {
        for key in ["GET /user", "GET /users/{id}", "POST /user"] {
            v.push((stem.to_string(), key.to_string()));
        }
    }
    let long = |m: &str| {
        format!("repos-create-or-update-environment-secret-{m}-for-the-authenticated-user")
    };
    for m in ["alpha", "omega", "alpha", "Alpha"] {
        v.push((long(m), format!("PUT /{m}")));
    }
    v.push(("get_user_5184b9".into(), "other".into()));
    v.push(("".into(), "k1".into()));
    v.push(("😀".into(), "k2".into()));
    v
}

#[test]
fn assignment_does_not_depend_on_input_order() {
    let items = collision_heavy();
    for opts in [
        NameOptions::default(),
        NameOptions::new(32, "gh_").expect("opts"),
    ] {
        let reference = mapping(&items, &opts);
        let names: BTreeSet<&String> = reference.values().collect();
        let distinct: BTreeSet<&(String, String)> = items.iter().collect();
        assert_eq!(
            names.len(),
            distinct.len(),
            "one unique name per distinct request"
        );
        assert!(
            names
                .iter()
                .all(|n| is_host_safe(n, opts.max_len()) && n.starts_with(opts.prefix()))
        );
        for seed in 1..=200 {
            assert_eq!(
                mapping(&shuffled(&items, seed), &opts),
                reference,
                "seed {seed}"
            );
        }
        let mut rev = items.clone();
        rev.reverse();
        assert_eq!(mapping(&rev, &opts), reference);
    }
}

fn github_spec() -> Option<PathBuf> {
    let p = deps_dir().join("node/node_modules/@octokit/openapi/generated/api.github.com.json");
    if p.exists() {
        return Some(p);
    }
    mcpdesc_tests::missing(&p.display().to_string());
    None
}

const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// `(operationId, "METHOD /path")` of every operation, in document order.
fn github_operations(spec: &Value) -> Vec<(String, String)> {
    let mut ops = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if HTTP_METHODS.contains(&method.as_str()) {
                let id = op["operationId"].as_str().expect("operationId").to_string();
                ops.push((id, format!("{} {path}", method.to_uppercase())));
            }
        }
    }
    ops
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn github_operation_ids_become_unique_host_safe_names() {
    let Some(path) = github_spec() else { return };
    let spec = read_json(&path);
    let ops = github_operations(&spec);
    assert_eq!(
        ops.len(),
        1223,
        "operations in @octokit/openapi api.github.com.json"
    );

    for (label, opts) in [
        ("default", NameOptions::default()),
        (
            "prefix mcp__github__",
            NameOptions::new(64, "mcp__github__").expect("opts"),
        ),
        ("max 32", NameOptions::new(32, "").expect("opts")),
    ] {
        let start = Instant::now();
        let names = assign_names(&ops, &opts).expect("assigns");
        let elapsed = start.elapsed();
        let unique: BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), ops.len(), "{label}: unique");
        assert!(
            names.iter().all(|n| is_host_safe(n, opts.max_len())),
            "{label}: host-safe"
        );
        let max = names.iter().map(String::len).max().unwrap_or(0);
        let shortened = ops
            .iter()
            .zip(&names)
            .filter(|((id, _), n)| {
                n.len() < opts.prefix().len() + mcpdesc_names::normalize_base(id).len()
            })
            .count();
        let suffixed = {
            let mut a = NameAllocator::new(opts.clone());
            for (id, key) in &ops {
                a.request(id.as_str(), key.as_str());
            }
            a.assign()
                .expect("assigns")
                .iter()
                .filter(|(_, n)| {
                    matches!(
                        n.derivation,
                        mcpdesc_names::Derivation::Disambiguated { .. }
                    )
                })
                .count()
        };
        eprintln!(
            "github [{label}]: {} operations -> {} unique names, max length {max}, {shortened} shortened, {suffixed} hash-suffixed, {:.1} ms",
            ops.len(),
            unique.len(),
            elapsed.as_secs_f64() * 1e3
        );
        // Order independence on the real set too.
        let reference = mapping(&ops, &opts);
        for seed in [7, 42] {
            assert_eq!(
                mapping(&shuffled(&ops, seed), &opts),
                reference,
                "{label}: seed {seed}"
            );
        }
    }

    // Hand-written expectations (scheme in the mcpdesc-names crate docs; hashes from
    // sha256sum of the normalized name).
    let names: BTreeMap<&str, String> = ops
        .iter()
        .map(|(id, _)| id.as_str())
        .zip(assign_names(&ops, &NameOptions::default()).expect("assigns"))
        .collect();
    for (id, want) in [
        ("repos/get-content", "repos_get_content"),
        (
            "actions/list-workflow-runs-for-repo",
            "actions_list_workflow_runs_for_repo",
        ),
        (
            "apps/create-installation-access-token",
            "apps_create_installation_access_token",
        ),
        (
            "actions/get-fork-pr-contributor-approval-permissions-organization",
            "actions_get_fork_pr_contributor_0ca16a_permissions_organization",
        ),
        (
            "actions/set-selected-repositories-self-hosted-runners-organization",
            "actions_set_selected_repositories_self_0beb68_organization",
        ),
    ] {
        assert_eq!(names.get(id).map(String::as_str), Some(want), "{id}");
    }
}

// ---- CLI wiring ----

fn mcpdesc() -> Command {
    let bin = mcpdesc_bin();
    assert!(
        bin.exists(),
        "{} missing: run `cargo xtask test` (it builds the CLI first)",
        bin.display()
    );
    Command::new(bin)
}

/// 1-based line and column of the first occurrence of `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("needle in text");
    let line = text[..at].matches('\n').count() + 1;
    let col = text[..at].rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

#[test]
fn cli_reports_with_positions_and_exit_1() {
    let src = fixture("names/mixed.mcpdesc.json");
    let out = mcpdesc().arg("names").arg(&src).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let text = std::fs::read_to_string(&src).expect("read");
    // The member position is the one of its key.
    let (line, col) = position_of(&text, "\"name\": \"getPetById\"");
    let expected = format!("{}:{line}:{col}: error[name-not-host-safe]:", src.display());
    assert!(
        stderr.contains(&expected),
        "missing `{expected}` in:\n{stderr}"
    );
    assert!(stderr.contains("(at /tools/1/name)"), "{stderr}");
    assert!(
        stderr.contains("error[name-too-long]") && stderr.contains("(at /tools/9/name)"),
        "{stderr}"
    );

    let out = mcpdesc()
        .arg("names")
        .arg(fixture("names/clean.mcpdesc.json"))
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn cli_fix_writes_renamed_json_and_yaml() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exp = read_json(&fixture("names/mixed.expected.json"));
    let want: Vec<String> = serde_json::from_value(exp["fix"]["names"].clone()).expect("names");

    let out_json = dir.path().join("fixed.json");
    let out = mcpdesc()
        .arg("names")
        .arg(fixture("names/mixed.mcpdesc.json"))
        .args(["--fix", "-o"])
        .arg(&out_json)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("info[name-renamed]"));
    let fixed = read_json(&out_json);
    assert_eq!(tool_names(&fixed), want);
    assert_eq!(fixed["tools"][1][ORIGINAL_NAME_EXTENSION], "getPetById");
    let st = mcpdesc()
        .arg("names")
        .arg(&out_json)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0), "the fixed file passes");

    // YAML in, YAML out.
    let src_yaml = dir.path().join("mixed.yaml");
    let doc = read_json(&fixture("names/mixed.mcpdesc.json"));
    std::fs::write(&src_yaml, mcpdesc_core::emit::to_yaml(&doc)).expect("write yaml");
    let out_yaml = dir.path().join("fixed.yaml");
    let st = mcpdesc()
        .arg("names")
        .arg(&src_yaml)
        .args(["--fix", "-o"])
        .arg(&out_yaml)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let text = std::fs::read_to_string(&out_yaml).expect("read");
    let fixed = decode(&text, Format::Yaml, &Limits::default())
        .expect("YAML output")
        .value;
    assert_eq!(tool_names(&fixed), want);
}

#[test]
fn cli_fix_refuses_without_writing_and_checks_usage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("out.json");
    let st = mcpdesc()
        .arg("names")
        .arg(fixture("names/duplicates.mcpdesc.json"))
        .args(["--fix", "-o"])
        .arg(&out_path)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(1));
    assert!(!out_path.exists(), "OUT must not be written on error");
    let leftovers = std::fs::read_dir(dir.path()).expect("ls").count();
    assert_eq!(leftovers, 0, "no temp files left");

    let mixed = fixture("names/mixed.mcpdesc.json");
    for args in [
        vec!["--fix"],                // --fix needs -o
        vec!["-o", "x.json"],         // -o needs --fix
        vec!["--name-prefix", "GH-"], // prefix not host-safe
        vec!["--max", "10"],          // limit too small
    ] {
        let out = mcpdesc()
            .arg("names")
            .arg(&mixed)
            .args(&args)
            .current_dir(dir.path())
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Writing over the input needs --in-place.
    let copy = dir.path().join("copy.json");
    std::fs::copy(&mixed, &copy).expect("copy");
    let st = mcpdesc()
        .arg("names")
        .arg(&copy)
        .args(["--fix", "-o"])
        .arg(&copy)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(2));
    let st = mcpdesc()
        .arg("names")
        .arg(&copy)
        .args(["--fix", "--in-place", "-o"])
        .arg(&copy)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    assert_eq!(
        mcpdesc()
            .arg("names")
            .arg(&copy)
            .status()
            .expect("runs")
            .code(),
        Some(0)
    );
}
