//! `cargo xtask check-generated [--rust-only|--ts-only]`: compile proofs of generated
//! clients, the same ones CI runs in `tests/codegen.rs`, plus the committed example
//! clients of `cargo xtask regen`:
//!
//! - every codegen fixture (`tests/fixtures/codegen/*.json`) is generated as a Rust crate
//!   (`cargo check` + `cargo clippy -- -D warnings`, standalone, `RUSTFLAGS=-D warnings`,
//!   one shared target dir so rmcp builds once) and as a TypeScript package (`tsc
//!   --noEmit` under the strict tsconfig, as ES module and as CommonJS), and the Tool
//!   Examples round-trip through the generated Rust types;
//! - the committed clients under `tests/generated/` get the same compile checks, from a
//!   scratch copy (checking writes `Cargo.lock` and links `node_modules`).
//!
//! TypeScript and the SDK come from `.deps/node`, installed first (pinned versions).

use mcpdesc_codegen_check::{self as check, CheckConfig, FixtureReport, StepReport};
use std::path::{Path, PathBuf};

pub fn run(args: &[String]) -> Result<(), String> {
    let (rust, ts) = match args {
        [] => (true, true),
        [a] if a == "--rust-only" => (true, false),
        [a] if a == "--ts-only" => (false, true),
        _ => return Err("usage: cargo xtask check-generated [--rust-only|--ts-only]".into()),
    };
    let root = crate::root();
    if ts {
        crate::deps::install(&root)?;
    }
    let mut cfg = CheckConfig::for_workspace(&root);
    cfg.cargo_target_dir = crate::target_dir().join("generated-clients");
    cfg.work_dir = crate::target_dir().join("generated");

    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(root.join("tests/fixtures/codegen"))
        .map_err(|e| format!("tests/fixtures/codegen: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    fixtures.sort();
    let mut reports =
        check::check_generated(&fixtures, &cfg, rust, ts).map_err(|e| e.to_string())?;
    reports.extend(committed_clients(&root, &cfg, rust, ts)?);

    let mut failed = 0;
    for r in &reports {
        for s in &r.steps {
            println!(
                "{} {:>6.1}s  {}",
                if s.ok { "ok  " } else { "FAIL" },
                s.seconds,
                s.step
            );
            if !s.ok {
                failed += 1;
                println!("{}\n", indent(&s.output));
            }
        }
        for t in &r.round_trips {
            if let Err(e) = &t.result {
                failed += 1;
                println!("FAIL round trip {} ({}): {e}", t.rust_type, t.origin);
            }
        }
    }
    let trips: usize = reports.iter().map(|r| r.round_trips.len()).sum();
    println!(
        "check-generated: {} project(s), {} step(s), {trips} round trip(s), {failed} failure(s)",
        reports.len(),
        reports.iter().map(|r| r.steps.len()).sum::<usize>()
    );
    if failed == 0 {
        Ok(())
    } else {
        Err("generated code does not compile or round-trip".into())
    }
}

/// Compile checks of the clients committed under `tests/generated/` (see `regen`).
fn committed_clients(
    root: &Path,
    cfg: &CheckConfig,
    rust: bool,
    ts: bool,
) -> Result<Vec<FixtureReport>, String> {
    let committed = root.join("tests/generated");
    let mut reports = Vec::new();
    for (suffix, wanted) in [("-rust", rust), ("-ts", ts)] {
        if !wanted {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&committed) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir() && p.to_string_lossy().ends_with(suffix))
            .collect();
        dirs.sort();
        for dir in dirs {
            let name = format!(
                "tests/generated/{}",
                dir.file_name().and_then(|s| s.to_str()).unwrap_or("?")
            );
            let copy = cfg.work_dir.join(format!(
                "committed-{}",
                dir.file_name().unwrap_or_default().to_string_lossy()
            ));
            copy_tree(&dir, &copy)?;
            let steps: Vec<StepReport> = if suffix == "-rust" {
                check::check_rust(&name, &copy, cfg)
            } else {
                check::check_typescript(&name, &copy, cfg)
            };
            reports.push(FixtureReport {
                name,
                steps,
                round_trips: Vec::new(),
            });
        }
    }
    Ok(reports)
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
