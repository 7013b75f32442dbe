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
//! All targets are built once (`cargo fuzz build`, one target dir) and the binaries run
//! directly, one after the other, with one rayon thread (the OpenAPI importer is
//! parallel; a fuzzer must not take every core of a shared CI box). An input running
//! longer than 10 s is a finding (a hang). The OpenAPI target also gets a dictionary of
//! OpenAPI/JSON Schema keywords (`xtask/fuzz/dicts/import_openapi.dict`).
//!
//! New corpus entries go to `.deps/fuzz-corpus/TARGET` (scratch); the committed seeds in
//! `xtask/fuzz/corpus/TARGET` are only read. Crashes land in `target/fuzz-artifacts/TARGET`
//! and each becomes a regression test in `tests/hostile/`.

use std::path::PathBuf;
use std::process::Command;

const CARGO_FUZZ_VERSION: &str = "0.13.1";
/// Every fuzz target of `xtask/fuzz/` (what `cargo xtask test` smoke-runs).
pub const TARGETS: &[&str] = &[
    "decode_json",
    "decode_yaml",
    "import_openapi",
    "import_dump",
    "lower_schema",
    "gateway_request",
];

/// Seconds per target of the smoke run in `cargo xtask test`.
pub const SMOKE_SECS: u64 = 10;

/// Per-input time limit: an input that takes longer is a finding (a hang), not a slow run.
const INPUT_TIMEOUT_SECS: u64 = 10;

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
    // One build of every target, then each built binary runs for `secs`.
    let cargo_fuzz = cargo_fuzz()?;
    crate::run(fuzz_command(&cargo_fuzz).arg("build").args(common_flags()))?;
    let mut failed = Vec::new();
    for t in &targets {
        if let Err(e) = fuzz_one(t, secs) {
            eprintln!("xtask: {e}");
            failed.push(t.as_str());
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("fuzz targets with findings: {}", failed.join(", ")))
    }
}

/// `cargo fuzz` with `RUSTC_BOOTSTRAP=1` (cargo-fuzz passes `-Z` flags; this stays
/// confined to the fuzz build).
fn fuzz_command(cargo_fuzz: &PathBuf) -> Command {
    let mut cmd = Command::new(cargo_fuzz);
    cmd.current_dir(crate::root()).env("RUSTC_BOOTSTRAP", "1");
    cmd
}

/// The host target triple (`cargo fuzz build` builds for it, into `<target-dir>/<triple>`).
fn host_triple() -> Result<String, String> {
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("-vV")
        .output()
        .map_err(|e| format!("rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV printed no host triple".to_string())
}

/// Flags of `cargo fuzz build`.
fn common_flags() -> Vec<std::ffi::OsString> {
    vec![
        "--fuzz-dir".into(),
        "xtask/fuzz".into(),
        "--sanitizer".into(),
        "none".into(),
        "--target-dir".into(),
        crate::target_dir().join("fuzz").into_os_string(),
    ]
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
    let dict = root.join("xtask/fuzz/dicts").join(format!("{target}.dict"));
    // The binary `cargo fuzz build` produced: running it directly (rather than through
    // `cargo fuzz run`) guarantees one build for all targets, even when sources change
    // between runs.
    let bin = crate::target_dir()
        .join("fuzz")
        .join(host_triple()?)
        .join("release")
        .join(target);
    let before = artifact_names(&artifacts);
    let mut cmd = Command::new(&bin);
    cmd.current_dir(&root)
        .env("RAYON_NUM_THREADS", "1")
        .arg(format!("-max_total_time={secs}"))
        .arg(format!("-timeout={INPUT_TIMEOUT_SECS}"))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .arg("-print_final_stats=1");
    if dict.is_file() {
        cmd.arg(format!("-dict={}", dict.display()));
    }
    cmd.arg(&scratch).arg(&seeds);
    let out = cmd
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let log = String::from_utf8_lossy(&out.stderr);
    // libFuzzer's final `stat::NAME: VALUE` lines (`-print_final_stats=1`).
    let stat = |name: &str| {
        log.lines()
            .filter_map(|l| {
                l.strip_prefix("stat::")?
                    .strip_prefix(name)?
                    .strip_prefix(':')
            })
            .map(str::trim)
            .next_back()
            .unwrap_or("?")
    };
    let execs = stat("number_of_executed_units");
    let per_sec = stat("average_exec_per_sec");
    // Only artifacts of this run count: older ones (already triaged into regression
    // tests) stay for reference until someone deletes them.
    let findings = artifact_names(&artifacts).difference(&before).count();
    println!(
        "fuzz {target}: {secs} s, {execs} executions ({per_sec}/s), {findings} findings in {}",
        artifacts.display()
    );
    if !out.status.success() || findings > 0 {
        eprintln!("{}", failure_report(&log));
        return Err(format!("fuzz target {target} found a failure"));
    }
    Ok(())
}

/// What a failed run says about its failure: the panic message in full (a CI log shows
/// only what we print, and the oracle's message is the part that says what broke), then
/// libFuzzer's last lines (the artifact's path, the stats). The backtrace is left out.
fn failure_report(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let mut out: Vec<&str> = Vec::new();
    if let Some(start) = lines.iter().position(|l| l.contains("panicked at")) {
        let end = lines[start..]
            .iter()
            .position(|l| l.starts_with("stack backtrace:") || l.starts_with("note: run with"))
            .map_or(lines.len(), |n| start + n);
        out.extend(lines[start..end].iter().take(200));
        out.push("...");
    }
    let tail_from = lines.len().saturating_sub(12);
    out.extend(&lines[tail_from..]);
    out.join("\n")
}

fn artifact_names(dir: &std::path::Path) -> std::collections::BTreeSet<std::ffi::OsString> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::failure_report;

    /// The shape of a libFuzzer log after a panicking oracle (shortened from CI's log of
    /// stop 26): the report keeps the message, drops the backtrace, keeps the tail.
    #[test]
    fn the_report_keeps_the_panic_message_and_drops_the_backtrace() {
        let mut log = vec![
            "INFO: Running with entropic power schedule (0xFF, 100).",
            "#1024\tpulse  cov: 100 ft: 200",
            "thread '<unnamed>' (25909) panicked at fuzz_targets/import_openapi.rs:22:9:",
            "importer accepted the input but produced a non-conforming description: [",
            "    Diagnostic {",
            "        code: \"schema-type\",",
            "    },",
            "]",
            "stack backtrace:",
        ];
        let frames = vec!["   0: __rustc::rust_begin_unwind"; 40];
        log.extend(frames);
        log.extend([
            "SUMMARY: libFuzzer: deadly signal",
            "artifact_prefix='/t/'; Test unit written to /t/crash-0a2c",
            "stat::number_of_executed_units: 14487",
        ]);
        let report = failure_report(&log.join("\n"));
        assert!(report.contains("panicked at fuzz_targets/import_openapi.rs:22:9:"));
        assert!(
            report.contains("        code: \"schema-type\","),
            "{report}"
        );
        assert!(report.contains("Test unit written to /t/crash-0a2c"));
        assert!(report.contains("stat::number_of_executed_units: 14487"));
        assert!(!report.contains("stack backtrace:"), "{report}");
        assert!(!report.contains("pulse"), "{report}");
        assert!(report.lines().count() < 25, "{report}");
    }

    /// A run that died without a panic (a timeout, an out-of-memory) still shows its tail.
    #[test]
    fn without_a_panic_the_report_is_the_tail() {
        let log: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        let report = failure_report(&log.join("\n"));
        assert_eq!(report.lines().next(), Some("line 18"));
        assert_eq!(report.lines().last(), Some("line 29"));
    }
}
