//! `cargo run --release -p mcpdesc-openapi --example corpus -- DIR [MIN_CONFORMING] [EVERY_NTH]`
//! Imports and validates every OpenAPI document under DIR (the xtask wires the same
//! library call as `cargo xtask corpus`).

use mcpdesc_openapi::{ImportOptions, corpus};

/// The CLI's allocator, so corpus times are what `mcpdesc import openapi` users see.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: corpus DIR [MIN_CONFORMING] [EVERY_NTH]");
        return ExitCode::from(2);
    };
    let min: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0.995);
    let nth: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let files: Vec<PathBuf> = corpus::list_specs(&dir).into_iter().step_by(nth).collect();
    let report = corpus::run_files(files, &ImportOptions::default(), min, true);
    print!("{}", report.render());
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
