//! Each command validates its input once, and its output once where it produces a
//! description that is not derived from a validated one (issue 30). The `mcpdesc`
//! binary prints its count of whole-document validations to stderr when
//! `MCPDESC_COUNT_VALIDATIONS` is set; the expected counts are written by hand from
//! what each command reads and produces:
//! - a command that only reads a description (validate, lint, project, export,
//!   generate, docs, serve): one per input description;
//! - a producer that builds a new description (merge, import, capture, split): one for the
//!   result, plus one per input description it reads;
//! - a derivation of a validated input (projection, host fitting, composition) is
//!   not validated again: a fitted list re-checks only the tools fitting changed;
//! - convert and names read no validated handle: none.

use mcpdesc_tests::{fixture, mcpdesc_bin};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Runs `mcpdesc ARGS` with standard input empty; returns its exit code and the count.
fn count(args: &[&str]) -> (Option<i32>, u64) {
    let out = Command::new(mcpdesc_bin())
        .args(args)
        .env("MCPDESC_COUNT_VALIDATIONS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("runs mcpdesc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let n = stderr
        .lines()
        .find_map(|l| l.strip_prefix("mcpdesc: validations: "))
        .unwrap_or_else(|| panic!("{args:?}: no count on stderr:\n{stderr}"))
        .parse()
        .expect("a number");
    (out.status.code(), n)
}

fn path(rel: &str) -> String {
    fixture(rel).display().to_string()
}

#[test]
fn each_command_validates_its_input_once_and_its_output_once() {
    let desc = path("spec/examples/multi-version.yaml");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = |name: &str| -> String {
        let p: PathBuf = dir.path().join(name);
        p.display().to_string()
    };
    let a = path("scope/merge/a-2025-06-18.json");
    let b = path("scope/merge/b-2025-11-25.json");
    let petstore = path("openapi/petstore-3.0.yaml");
    let dump = path("live/dumps/bare-result.json");
    let transcript = path("live/dumps/transcript.jsonl");
    let (ts, rs, html) = (out("ts"), out("rs"), out("docs.html"));
    let rev = ["--protocol-version", "2026-07-28"];
    let cases: Vec<(Vec<&str>, u64)> = vec![
        (vec!["validate", &desc], 1),
        (vec!["convert", &desc], 0),
        (vec!["names", &desc], 0),
        (vec!["lint", &desc], 1),
        (vec!["project", &desc, rev[0], rev[1]], 1),
        (vec!["export", "tools-list", &desc, rev[0], rev[1]], 1),
        (
            vec![
                "export",
                "tools-list",
                &desc,
                rev[0],
                rev[1],
                "--host",
                "kiro",
            ],
            1,
        ),
        (
            vec![
                "export",
                "tools-list",
                &desc,
                rev[0],
                rev[1],
                "--budget",
                "2000",
            ],
            1,
        ),
        (vec!["generate", "typescript", &desc, "-o", &ts], 1),
        (vec!["generate", "rust", &desc, "-o", &rs], 1),
        (vec!["docs", &desc, "-o", &html], 1),
        (vec!["diff", &desc, &desc], 2),
        // the input is not validated: making it valid is what split is for
        (vec!["split", &desc], 1),
        (vec!["merge", &desc], 2),
        (vec!["merge", &a, &b], 3),
        (vec!["import", "openapi", &petstore], 1),
        (
            vec![
                "import",
                "tools-list",
                &dump,
                "--protocol-version",
                "2025-11-25",
                "--server-name",
                "weather",
            ],
            1,
        ),
        (
            vec![
                "import",
                "tools-list",
                &transcript,
                "--server-name",
                "weather",
            ],
            1,
        ),
        (vec!["serve", &desc, "--mock", "--list-toolsets"], 1),
        (vec!["serve", &desc, "--mock"], 1),
        (vec!["serve", &desc, "--mock", "--host", "kiro"], 1),
    ];
    let mut wrong = Vec::new();
    for (args, expected) in &cases {
        let (code, n) = count(args);
        assert_eq!(code, Some(0), "{args:?} failed");
        if n != *expected {
            wrong.push(format!("{args:?}: {n} validations, expected {expected}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Fitting the list of a validated description checks only the tools fitting changed
/// (and the cross-tool rule over all): on every official valid document, at each of its
/// revisions, for every host and a tight budget, it gives exactly what fitting the same
/// list and validating the whole result gives (the independent path), and it runs no
/// whole-document validation.
#[test]
fn fitting_a_validated_list_checks_what_it_changed_as_a_whole_check_would() {
    use mcpdesc_hosts::{FitOptions, HOSTS, fit_tools_list, fit_tools_list_of};
    let mut fitted = 0;
    for (name, doc) in mcpdesc_tests::official_valid_documents() {
        let valid = mcpdesc_tests::valid(&doc);
        for rev in valid.revisions().iter() {
            let Ok(list) = mcpdesc_scope::export_tools_list(&valid, rev) else {
                continue;
            };
            let budgets = [None, Some(300)];
            for host in HOSTS.iter().map(Some).chain([None]) {
                for budget in budgets {
                    if host.is_none() && budget.is_none() {
                        continue;
                    }
                    let opts = FitOptions {
                        host,
                        server_prefix: Some("srv"),
                        budget,
                    };
                    let whole = fit_tools_list(list.clone(), rev, &opts);
                    let before = mcpdesc_validate::runs_on_this_thread();
                    let of = fit_tools_list_of(&valid, list.clone(), rev, &opts);
                    assert_eq!(
                        mcpdesc_validate::runs_on_this_thread(),
                        before,
                        "{name} {rev}: a whole validation"
                    );
                    let id = host.map_or("-", |h| h.id);
                    assert_eq!(of.tools_list, whole.tools_list, "{name} {rev} {id}");
                    assert_eq!(of.renames, whole.renames, "{name} {rev} {id}");
                    assert_eq!(of.diagnostics, whole.diagnostics, "{name} {rev} {id}");
                    fitted += 1;
                }
            }
        }
    }
    assert!(fitted > 100, "only {fitted} fittings");
}

/// The tools fitting leaves as they were are vouched for by the witness and not checked
/// again; a tool it rewrites is. Both tools below lack `inputSchema`; only the one whose
/// HTML description fitting renders is reported.
#[test]
fn fitting_rechecks_a_rewritten_tool_and_not_an_untouched_one() {
    use mcpdesc_core::ProtocolRevision::V2025_11_25;
    let doc = serde_json::json!({"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
    let valid = mcpdesc_tests::valid(&doc);
    let list = serde_json::json!({"tools": [
        {"name": "rewritten", "description": "<b>bold</b> text"},
        {"name": "untouched", "description": "plain"}
    ]});
    let opts = mcpdesc_hosts::FitOptions {
        host: mcpdesc_hosts::host("kiro"),
        server_prefix: None,
        budget: None,
    };
    let f = mcpdesc_hosts::fit_tools_list_of(&valid, list.clone(), V2025_11_25, &opts);
    let invalid: Vec<&str> = f
        .diagnostics
        .iter()
        .filter(|d| d.code == "fit-invalid")
        .map(|d| d.pointer.as_str())
        .collect();
    assert!(!invalid.is_empty(), "{:#?}", f.diagnostics);
    assert!(
        invalid.iter().all(|p| p.starts_with("/tools/0")),
        "{invalid:?}"
    );
    // Without the witness the whole list is checked: both are reported.
    let whole = mcpdesc_hosts::fit_tools_list(list, V2025_11_25, &opts);
    assert!(
        whole
            .diagnostics
            .iter()
            .any(|d| d.code == "fit-invalid" && d.pointer.starts_with("/tools/1")),
        "{:#?}",
        whole.diagnostics
    );
}

/// `capture` validates what it captured once (two sessions, two views, one merge).
#[test]
#[cfg_attr(
    mcpdesc_missing_venv,
    ignore = ".deps/venv is missing: run `cargo xtask deps`"
)]
fn capture_validates_its_result_once() {
    let python = mcpdesc_tests::deps_dir().join("venv/bin/python");
    let server = path("live/servers/py_server.py");
    let python = python.display().to_string();
    let (code, n) = count(&[
        "capture",
        "--protocol-versions",
        "2025-06-18,2025-11-25",
        "--",
        &python,
        &server,
        "stdio",
    ]);
    assert_eq!(code, Some(0), "capture failed");
    assert_eq!(n, 1, "validations of capture");
}
