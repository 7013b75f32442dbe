//! The `commands` group: `mcpdesc lint` and `mcpdesc export tools-list --host
//! claude-code` on the GitHub description (1,223 tools, imported from `@octokit/openapi`),
//! each against `mcpdesc validate` of the same file in the same run (issue 20: at most
//! 2× validate's wall time and peak RSS). Every program runs N times, interleaved
//! (validate, lint, export, validate, …) after one untimed warm-up round, so a loaded
//! machine slows all three alike; the table reports medians and their ratios.

use super::{Opts, Program, Sample, measure_exits, median};
use mcpdesc_core::RevisionSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Issue 20 targets, as ratios to `mcpdesc validate` of the same description.
const WALL_TARGET: f64 = 2.0;
const RSS_TARGET: f64 = 2.0;

/// Runs the group; returns how many targets were missed.
pub fn run(opts: &Opts, mcpdesc: &Path, spec: &Path, work: &Path) -> Result<usize, String> {
    let desc = work.join("github.mcpdesc.json");
    crate::run(
        Command::new(mcpdesc)
            .args(["import", "openapi"])
            .arg(spec)
            .arg("-o")
            .arg(&desc),
    )?;
    // The newest revision the importer declares by default.
    let newest = RevisionSet::import_default()
        .iter()
        .last()
        .ok_or("no default import revision")?;
    let arg = |s: &str| std::ffi::OsString::from(s);
    let program = |name: &str, args: &[&str], file: &PathBuf| Program {
        name: name.into(),
        argv: std::iter::once(mcpdesc.as_os_str().to_owned())
            .chain(args.iter().map(|a| arg(a)))
            .chain(std::iter::once(file.as_os_str().to_owned()))
            .collect(),
    };
    let export_out = work.join("tools-list.json");
    let mut export = program(
        "mcpdesc export tools-list --host claude-code",
        &[
            "export",
            "tools-list",
            "--protocol-version",
            newest.as_str(),
            "--host",
            "claude-code",
            "-o",
        ],
        &export_out,
    );
    export.argv.push(desc.as_os_str().to_owned());
    let programs = [
        program("mcpdesc validate", &["validate"], &desc),
        // Exits 1 when a finding is an error: a verdict, not a failure to run.
        program("mcpdesc lint (default hosts)", &["lint"], &desc),
        export,
    ];
    let time_bin = Path::new("/usr/bin/time");
    let mut samples: Vec<Vec<Sample>> = programs.iter().map(|_| Vec::new()).collect();
    for round in 0..=opts.runs {
        for (i, p) in programs.iter().enumerate() {
            let s = measure_exits(p, time_bin, work, &[0, 1])
                .map_err(|e| format!("{}: {e}", p.name))?;
            if round > 0 {
                samples[i].push(s);
            }
        }
    }
    let rows: Vec<(Option<f64>, Option<f64>)> = samples
        .iter()
        .map(|s| {
            (
                median(s.iter().map(|x| x.wall).collect()),
                median(s.iter().filter_map(|x| x.rss_kib).collect()),
            )
        })
        .collect();
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let mut misses = 0;
    let mut verdict = |r: Option<f64>, t: f64| match r {
        Some(r) if r <= t => format!("{r:.2}× (≤ {t}×): PASS"),
        Some(r) => {
            misses += 1;
            format!("{r:.2}× (≤ {t}×): FAIL")
        }
        None => "n/a".into(),
    };
    println!(
        "\nCommands on the GitHub description ({} runs each after a warm-up, interleaved; {}):\n",
        opts.runs,
        desc.display()
    );
    println!("| program | median wall | peak RSS | wall / validate | RSS / validate |");
    println!("|---|---:|---:|---|---|");
    let (vw, vr) = rows[0];
    for (i, (p, (w, r))) in programs.iter().zip(&rows).enumerate() {
        let (wr, rr) = if i == 0 {
            ("1.00×".to_string(), "1.00×".to_string())
        } else {
            (
                verdict(ratio(*w, vw), WALL_TARGET),
                verdict(ratio(*r, vr), RSS_TARGET),
            )
        };
        println!(
            "| {} | {} | {} | {wr} | {rr} |",
            p.name,
            w.map_or("n/a".into(), |w| format!("{w:.3} s")),
            r.map_or("n/a".into(), |k| format!("{:.0} MiB", k / 1024.0)),
        );
    }
    println!();
    Ok(misses)
}
