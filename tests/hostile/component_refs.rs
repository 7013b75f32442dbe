//! `$componentRef` cycles and over-long chains in MCP Descriptions (§17.4, §17.7)
//! through every subcommand that resolves references: a clean `component-ref-*`
//! diagnostic and exit 1, never a hang or a stack overflow, and nothing written.

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

#[test]
fn component_ref_chains_longer_than_the_limit_are_diagnostics_everywhere() {
    // 200 acyclic hops: more than MAX_REF_CHAIN (64), so bounded and reported.
    reject_in_every_resolving_command("component-ref-chain.json", "component-ref-too-deep");
}
