//! The `diff` row of `cargo xtask bench` (issue 20): `mcpdesc diff OLD NEW --format json`
//! of two real majors of the GitHub description, `@octokit/openapi` 22.0.0 → 23.x, each
//! imported with the default options (`cargo xtask deps` installs both: 22 under the npm
//! alias `octokit-openapi-22`). About 600 breaking findings. Target: ≤ 1 s wall time,
//! validation of both inputs included. `mcpdesc validate NEW` runs interleaved with it,
//! so the row also gives the ratio to one validation of the same machine and moment.
//!
//! A measurement, not a test: a missed target is printed loudly; the command exits 0.

use super::{Program, Row, Sample, measure, median};
use std::path::Path;
use std::process::Command;

/// Target: wall time of the diff, seconds.
const DIFF_WALL_TARGET_S: f64 = 1.0;

/// Imports both majors into `work`, then measures `validate NEW` and `diff OLD NEW`
/// `runs` times each, interleaved, after one warm-up run. Returns whether the target
/// was met; `None` when the older major is not installed.
pub fn run(
    mcpdesc: &Path,
    new_spec: &Path,
    runs: usize,
    time_bin: &Path,
    work: &Path,
) -> Result<Option<bool>, String> {
    let Some(node_modules) = new_spec.ancestors().find(|p| p.ends_with("node_modules")) else {
        return Ok(None);
    };
    let old_spec = node_modules.join("octokit-openapi-22/generated/api.github.com.json");
    if !old_spec.is_file() {
        eprintln!(
            "xtask bench: {} not found (run `cargo xtask deps`); skipping the diff row",
            old_spec.display()
        );
        return Ok(None);
    }
    let (old, new) = (work.join("github-22.json"), work.join("github-23.json"));
    for (spec, out) in [(old_spec.as_path(), &old), (new_spec, &new)] {
        crate::run(
            Command::new(mcpdesc)
                .args(["import", "openapi"])
                .arg(spec)
                .arg("-o")
                .arg(out),
        )?;
    }
    let programs = [
        Program {
            name: "mcpdesc validate NEW (for scale)".into(),
            argv: vec![mcpdesc.into(), "validate".into(), new.clone().into()],
        },
        Program {
            name: "mcpdesc diff 22 → 23 --format json".into(),
            argv: vec![
                mcpdesc.into(),
                "diff".into(),
                "--format".into(),
                "json".into(),
                "--fail-on".into(),
                "none".into(),
                old.into(),
                new.into(),
            ],
        },
    ];
    eprintln!(
        "xtask bench: diff of two GitHub majors ({runs} runs each after a warm-up, interleaved)"
    );
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(), Vec::new()];
    for round in 0..=runs {
        for (i, p) in programs.iter().enumerate() {
            let s = measure(p, time_bin, work).map_err(|e| format!("{}: {e}", p.name))?;
            if round > 0 {
                samples[i].push(s);
            }
        }
    }
    let rows: Vec<Row> = programs
        .iter()
        .zip(&samples)
        .map(|(p, s)| Row {
            name: p.name.clone(),
            wall: median(s.iter().map(|x| x.wall).collect()),
            rss_kib: median(s.iter().filter_map(|x| x.rss_kib).collect()),
            failed: None,
        })
        .collect();
    let (validate, diff) = (&rows[0], &rows[1]);
    let ok = diff.wall.is_some_and(|w| w <= DIFF_WALL_TARGET_S);
    println!();
    println!("`mcpdesc diff` of @octokit/openapi 22 → 23 (imports of both):");
    println!();
    println!("| program | median wall | peak RSS | wall / validate | target |");
    println!("|---|---:|---:|---:|---|");
    for r in &rows {
        let ratio = match (r.wall, validate.wall) {
            (Some(x), Some(b)) if b > 0.0 => format!("{:.2}×", x / b),
            _ => "n/a".into(),
        };
        let target = if std::ptr::eq(r, diff) {
            format!(
                "wall ≤ {DIFF_WALL_TARGET_S} s: {}",
                if ok { "PASS" } else { "FAIL" }
            )
        } else {
            String::new()
        };
        println!(
            "| {} | {} | {} | {ratio} | {target} |",
            r.name,
            r.wall.map_or("n/a".into(), |w| format!("{w:.3} s")),
            r.rss_kib
                .map_or("n/a".into(), |k| format!("{:.0} MiB", k / 1024.0)),
        );
    }
    println!();
    Ok(Some(ok))
}
