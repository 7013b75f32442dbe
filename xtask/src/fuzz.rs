//! `cargo xtask fuzz TARGET --time N`: runs a cargo-fuzz (libFuzzer) target of
//! `xtask/fuzz/` for N seconds, then prints executions and findings.
//!
//! The machine has one stable toolchain. cargo-fuzz passes a few unstable `-Z` flags,
//! so the fuzz build (and only it) runs with `RUSTC_BOOTSTRAP=1`; we use
//! `--sanitizer none` because the code under test is `#![forbid(unsafe_code)]` Rust,
//! where libFuzzer's coverage guidance plus panics/aborts find what matters and
//! AddressSanitizer mostly costs speed. cargo-fuzz itself is installed (pinned) into
//! `.deps/cargo`.
//!
//! New corpus entries go to `.deps/fuzz-corpus/TARGET` (scratch); the committed seeds in
//! `xtask/fuzz/corpus/TARGET` are only read. Crashes land in `target/fuzz-artifacts/TARGET`
//! and each becomes a regression test in `tests/hostile/`.

use std::path::PathBuf;
use std::process::Command;

const CARGO_FUZZ_VERSION: &str = "0.13.1";
pub const TARGETS: &[&str] = &["decode_json", "decode_yaml"];

pub fn run(args: &[String]) -> Result<(), String> {
    let mut target = None;
    let mut secs: u64 = 60;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time" => {
                secs = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--time needs a number of seconds")?;
            }
            t if target.is_none() => target = Some(t.to_string()),
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    let targets: Vec<String> = match target.as_deref() {
        None | Some("all") => TARGETS.iter().map(|s| s.to_string()).collect(),
        Some(t) if TARGETS.contains(&t) => vec![t.to_string()],
        Some(t) => {
            return Err(format!(
                "unknown fuzz target `{t}` (known: {})",
                TARGETS.join(", ")
            ));
        }
    };
    for t in targets {
        fuzz_one(&t, secs)?;
    }
    Ok(())
}

fn cargo_fuzz() -> Result<PathBuf, String> {
    let root = crate::root().join(".deps/cargo");
    let bin = root.join("bin/cargo-fuzz");
    if !bin.exists() {
        crate::run(
            Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                .args([
                    "install",
                    "--locked",
                    "--version",
                    CARGO_FUZZ_VERSION,
                    "cargo-fuzz",
                    "--root",
                ])
                .arg(&root),
        )?;
    }
    Ok(bin)
}

fn fuzz_one(target: &str, secs: u64) -> Result<(), String> {
    let root = crate::root();
    let scratch = root.join(".deps/fuzz-corpus").join(target);
    let artifacts = crate::target_dir().join("fuzz-artifacts").join(target);
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&artifacts).map_err(|e| e.to_string())?;
    let seeds = root.join("xtask/fuzz/corpus").join(target);
    let out = Command::new(cargo_fuzz()?)
        .current_dir(&root)
        .env("RUSTC_BOOTSTRAP", "1")
        .args([
            "run",
            "--fuzz-dir",
            "xtask/fuzz",
            "--sanitizer",
            "none",
            "--target-dir",
        ])
        .arg(crate::target_dir().join("fuzz"))
        .arg(target)
        .arg(&scratch)
        .arg(&seeds)
        .arg("--")
        .arg(format!("-max_total_time={secs}"))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .arg("-print_final_stats=1")
        .output()
        .map_err(|e| format!("cargo fuzz: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    let execs = log
        .lines()
        .filter_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .map(str::trim)
        .last()
        .unwrap_or("?");
    let findings = std::fs::read_dir(&artifacts)
        .map(|d| d.count())
        .unwrap_or(0);
    println!(
        "fuzz {target}: {secs} s, {execs} executions, {findings} findings in {}",
        artifacts.display()
    );
    if !out.status.success() || findings > 0 {
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        return Err(format!("fuzz target {target} found a failure"));
    }
    Ok(())
}
