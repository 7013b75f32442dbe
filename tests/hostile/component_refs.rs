//! `$componentRef` cycles and long chains in MCP Descriptions (§17.4, §17.7) through
//! every subcommand that resolves references: a cycle is a clean `component-ref-cycle`
//! diagnostic and exit 1 with nothing written; a long chain resolves; a chain past the
//! implementation's bound is a processing limit. Never a hang or a stack overflow.

use crate::{assert_rejected, run, truncate};
use mcpdesc_tests::fixture;

/// Subcommands that resolve `$componentRef`s, with their output (if any) in `out`.
fn resolving_commands(file: &str, out: &str) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["validate", file]),
        s(&[
            "project",
            file,
            "--protocol-version",
            "2026-07-28",
            "-o",
            &format!("{out}/p.json"),
        ]),
        s(&["merge", file, "-o", &format!("{out}/m.json")]),
        s(&["split", file, "-o", &format!("{out}/s.json")]),
        s(&[
            "export",
            "tools-list",
            file,
            "--protocol-version",
            "2026-07-28",
            "-o",
            &format!("{out}/e.json"),
        ]),
        s(&["generate", "rust", file, "-o", &format!("{out}/rs")]),
        s(&["generate", "typescript", file, "-o", &format!("{out}/ts")]),
    ]
}

fn reject_in_every_resolving_command(fixture_name: &str, code: &str) {
    let file = fixture(&format!("hostile/{fixture_name}"))
        .display()
        .to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("mkdir");
    for cmd in resolving_commands(&file, &out.display().to_string()) {
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        assert_rejected(&args, &[code]);
    }
    let left: Vec<_> = std::fs::read_dir(&out)
        .expect("read_dir")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "rejected input produced output: {left:?}");
}

#[test]
fn component_ref_cycles_are_diagnostics_everywhere() {
    // A → B → C → A, Self → Self, and a Tool Example that references itself.
    reject_in_every_resolving_command("component-ref-cycles.json", "component-ref-cycle");
    // The cycle is reported where it is used, naming the whole loop.
    let r = run(&[
        "validate",
        &fixture("hostile/component-ref-cycles.json")
            .display()
            .to_string(),
    ]);
    assert!(
        r.stderr.contains("#/components/schemas/A -> #/components/schemas/B -> #/components/schemas/C -> #/components/schemas/A")
            && r.stderr.contains("(at /tools/0/inputSchema)")
            && r.stderr.contains("(at /tools/2/examples/e)"),
        "{}",
        truncate(&r.stderr)
    );
}

/// Every resolving command accepts `file`: exit 0, no error, no `$componentRef` finding.
fn accept_in_every_resolving_command(file: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("mkdir");
    for cmd in resolving_commands(file, &out.display().to_string()) {
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        let r = run(&args);
        assert!(
            r.code == Some(0)
                && !r.stderr.contains("error[")
                && !r.stderr.contains("component-ref"),
            "mcpdesc {args:?}: exit {:?}\nstderr: {}",
            r.code,
            truncate(&r.stderr)
        );
    }
}

#[test]
fn component_ref_chains_resolve_and_past_the_limit_are_a_processing_limit() {
    // 200 acyclic hops: §17.4 follows component-to-component references transitively,
    // whatever the length, so every command accepts it.
    let file = fixture("hostile/component-ref-chain.json")
        .display()
        .to_string();
    accept_in_every_resolving_command(&file);

    // Past the implementation's bound (§17.7): generated, MAX_REF_CHAIN + 100 hops.
    let hops = mcpdesc_core::refs::MAX_REF_CHAIN + 100;
    let mut schemas = serde_json::Map::new();
    for i in 0..hops {
        schemas.insert(
            format!("L{i}"),
            serde_json::json!({"$componentRef": format!("#/components/schemas/L{}", i + 1)}),
        );
    }
    schemas.insert(format!("L{hops}"), serde_json::json!({"type": "object"}));
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "component-ref-chain-past-the-limit", "version": "1.0.0"},
        "protocolVersions": ["2026-07-28"],
        "components": {"schemas": schemas},
        "tools": [{"name": "long_chain", "inputSchema": {"$componentRef": "#/components/schemas/L0"}}]
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("chain.json");
    std::fs::write(&path, doc.to_string()).expect("write");
    let file = path.display().to_string();
    // `validate`: the limit is not a document error; one warning for the document.
    let r = run(&["validate", &file]);
    assert_eq!(r.code, Some(0), "{}", truncate(&r.stderr));
    assert_eq!(
        r.stderr.matches("warning[component-ref-too-deep]").count(),
        1,
        "{}",
        truncate(&r.stderr)
    );
    assert!(!r.stderr.contains("error["), "{}", truncate(&r.stderr));
    // Commands that need the resolved schema stop with the limit as an error, bounded
    // and without output; the others carry the reference through unchanged.
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("mkdir");
    for cmd in resolving_commands(&file, &out.display().to_string()) {
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        match args[0] {
            "export" | "generate" => assert_rejected(&args, &["component-ref-too-deep"]),
            _ => {
                let r = run(&args);
                assert_eq!(r.code, Some(0), "mcpdesc {args:?}: {}", truncate(&r.stderr));
            }
        }
    }
    for produced in ["e.json", "rs", "ts"] {
        assert!(
            !out.join(produced).exists(),
            "a stopped command wrote {produced}"
        );
    }
}
