//! `cargo xtask mutants [--crate C] [--sample N] [--seed S] [--in-diff REF]`: cargo-mutants
//! on a random, seeded sample of one crate's mutants.
//!
//! `--in-diff REF` samples only the mutants on lines changed since the git revision REF
//! (`git diff REF`, handed to cargo-mutants' own `--in-diff`), so a change can be checked
//! before it lands; without `--crate` it samples each crate the diff touches in turn, and
//! without `--sample` it takes every such mutant.
//!
//! 1. Installs cargo-mutants (`cargo install --locked cargo-mutants`) when missing.
//! 2. Lists the crate's mutants (`cargo mutants --list --json -p C`) and picks N of them
//!    with a seeded RNG (the same seed and source give the same sample).
//! 3. Runs exactly those (one exact `--re` per mutant) with the crate's unit tests plus
//!    the workspace test targets named after it (`tests/` package: `diff` for
//!    `mcpdesc-diff`, `lint` and `lint_oracles` for `mcpdesc-lint`, …) and those listed
//!    for it in `SUITES_OF` (`conformance` and `validations` for `mcpdesc-validate`,
//!    `serve_rest` for `mcpdesc-rest`, …). The CLI tests
//!    build the `mcpdesc` binary from the mutated tree themselves (`mcpdesc_bin()`,
//!    `MCPDESC_BIN` unset here), so every mutant reaches them too.
//!    The baseline (the same tests, unmutated) runs first in the tree itself; three
//!    times its duration (at least 2 minutes) is each mutant's test timeout.
//! 4. Prints caught, missed, timeout and unviable counts and lists the survivors.
//!
//! cargo-mutants' copy of the tree has no `.deps/` (it copies no git-ignored files), so
//! the copy's tests read this checkout's through `MCPDESC_DEPS` (`tests/build.rs`,
//! `mcpdesc_tests::deps_dir`): a suite that needs node, Python or Chromium runs against
//! each mutant as it does here, instead of being ignored. Not part of `cargo xtask test`.

use std::path::{Path, PathBuf};
use std::process::Command;

const USAGE: &str =
    "usage: cargo xtask mutants [--crate C] [--sample N] [--seed S] [--in-diff REF]";

/// The crate sampled when neither `--crate` nor `--in-diff` names one.
const DEFAULT_CRATE: &str = "mcpdesc-diff";
/// The sample size when `--sample` is not given (`--in-diff` alone takes every mutant).
const DEFAULT_SAMPLE: usize = 20;

pub fn run(args: &[String]) -> Result<(), String> {
    let mut krate: Option<String> = None;
    let mut sample: Option<usize> = None;
    let mut seed: Option<u64> = None;
    let mut in_diff: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--crate" => krate = Some(value("--crate")?),
            "--in-diff" => in_diff = Some(value("--in-diff")?),
            "--sample" => {
                sample = Some(
                    value("--sample")?
                        .parse()
                        .map_err(|e| format!("--sample: {e}"))?,
                )
            }
            "--seed" => {
                seed = Some(
                    value("--seed")?
                        .parse()
                        .map_err(|e| format!("--seed: {e}"))?,
                )
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    let root = crate::root();
    let Some(reference) = in_diff else {
        let krate = krate.unwrap_or_else(|| DEFAULT_CRATE.to_string());
        return run_crate(&root, &krate, sample.unwrap_or(DEFAULT_SAMPLE), seed, None);
    };
    let diff = git_diff(&root, &reference)?;
    let crates = match krate {
        Some(k) => vec![k],
        None => changed_crates(&diff),
    };
    if crates.is_empty() {
        println!("mutants: no crate under crates/ changed since {reference}");
        return Ok(());
    }
    let diff_file = crate::target_dir().join("mutants").join("in-diff.patch");
    if let Some(dir) = diff_file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&diff_file, &diff).map_err(|e| format!("{}: {e}", diff_file.display()))?;
    for k in &crates {
        run_crate(
            &root,
            k,
            sample.unwrap_or(usize::MAX),
            seed,
            Some(&diff_file),
        )?;
    }
    Ok(())
}

/// `git diff REF` in `root`: the changes since REF, committed or not.
fn git_diff(root: &Path, reference: &str) -> Result<String, String> {
    let out = Command::new("git")
        .args(["diff", "--no-color", "--no-ext-diff", reference, "--"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("git diff {reference}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git diff {reference} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("git diff {reference}: {e}"))
}

/// The packages (`crates/<name>/…`) whose Rust sources a unified diff changes, in
/// first-seen order. A file only deleted (`+++ /dev/null`) changes no line to mutate.
fn changed_crates(diff: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in diff.lines() {
        let Some(path) = line.strip_prefix("+++ b/") else {
            continue;
        };
        let mut parts = path.split('/');
        if let (Some("crates"), Some(name), Some(_)) = (parts.next(), parts.next(), parts.next())
            && path.ends_with(".rs")
            && !out.iter().any(|k| k == name)
        {
            out.push(name.to_string());
        }
    }
    out
}

/// Samples `sample` of `krate`'s mutants (only those on the lines `diff` changes, when
/// given) and runs them.
fn run_crate(
    root: &Path,
    krate: &str,
    sample: usize,
    seed: u64,
    diff: Option<&Path>,
) -> Result<(), String> {
    let targets = test_targets(root, krate)?;
    ensure_cargo_mutants()?;

    let mut list = mutants_cmd();
    list.args(["--list", "--json", "--package", krate]);
    if let Some(d) = diff {
        list.arg("--in-diff").arg(d);
    }
    let listed = list
        .current_dir(root)
        .output()
        .map_err(|e| format!("cargo mutants --list: {e}"))?;
    if !listed.status.success() {
        return Err(format!(
            "cargo mutants --list failed: {}",
            String::from_utf8_lossy(&listed.stderr)
        ));
    }
    let names = mutant_names(&listed.stdout)?;
    let picked = pick(&names, sample, seed);
    eprintln!(
        "xtask: {krate}: {} mutants, sampled {} with seed {seed}; tests: {krate} --lib, mcpdesc-tests --lib{}",
        names.len(),
        picked.len(),
        targets
            .iter()
            .map(|t| format!(" --test {t}"))
            .collect::<String>()
    );
    if picked.is_empty() {
        if diff.is_some() {
            println!("mutants {krate}: no mutant on the changed lines");
            return Ok(());
        }
        return Err(format!("{krate} has no mutants"));
    }

    // The baseline, here in the tree: the same tests must pass unmutated (cargo-mutants'
    // own baseline would run only the crate's tests, without the target selection
    // below, which that package does not have). Its time sets the per-mutant timeout.
    let selection: Vec<String> = std::iter::once("--lib".to_string())
        .chain(
            targets
                .iter()
                .flat_map(|t| ["--test".to_string(), t.clone()]),
        )
        .collect();
    let started = std::time::Instant::now();
    crate::run(
        crate::cargo()
            .args(["test", "--package", krate, "--package", "mcpdesc-tests"])
            .args(&selection)
            .env_remove("MCPDESC_BIN")
            .env_remove("MCPDESC_REQUIRE_DEPS"),
    )
    .map_err(|e| format!("baseline: {e}"))?;
    let timeout = (3 * started.elapsed().as_secs()).max(120);

    let out_dir = crate::target_dir().join("mutants").join(krate);
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let mut cmd = mutants_cmd();
    cmd.args(["--package", krate])
        .args(["--test-package", &format!("{krate},mcpdesc-tests")])
        .arg("--output")
        .arg(&out_dir)
        .arg("--no-shuffle")
        .args(["--baseline", "skip", "--timeout", &timeout.to_string()]);
    for name in &picked {
        cmd.arg("--re").arg(exact_regex(name));
    }
    // `--cargo-arg`, not `--cargo-test-arg`: the build phase (`cargo test --no-run`) must
    // select the same targets, or it links every test binary of the tests package.
    for a in &selection {
        cmd.arg(format!("--cargo-arg={a}"));
    }
    // The CLI tests must build the mutated binary, never run a prebuilt one; the copy
    // reads this checkout's test prerequisites.
    cmd.env_remove("MCPDESC_BIN")
        .env_remove("MCPDESC_REQUIRE_DEPS")
        .env("MCPDESC_DEPS", root.join(".deps"))
        .current_dir(root);
    eprintln!("xtask: $ {cmd:?}");
    let status = cmd.status().map_err(|e| format!("cargo mutants: {e}"))?;
    // cargo-mutants: 0 all caught, 2 some missed, 3 some timed out; others are failures
    // (1 usage, 4 the tests fail on the unmutated tree).
    let mut outcome = summarize(&out_dir.join("mutants.out"))?;
    // cargo-mutants 27 runs its struct-field-deletion mutants whatever `--re` says:
    // count only the sample, and say what else ran.
    let extra = outcome.keep_only(&picked);
    if !extra.is_empty() {
        println!(
            "not counted ({} outside the sample that cargo-mutants ran anyway):",
            extra.len()
        );
        for m in &extra {
            println!("  {m}");
        }
    }
    println!(
        "mutants {krate} (seed {seed}): {} listed, {} sampled; caught {}, missed {}, timeout {}, unviable {}",
        names.len(),
        picked.len(),
        outcome.caught.len(),
        outcome.missed.len(),
        outcome.timeout.len(),
        outcome.unviable.len()
    );
    let viable = outcome.caught.len() + outcome.missed.len() + outcome.timeout.len();
    if viable > 0 {
        println!(
            "kill rate: {:.0} % of {viable} viable (timeouts count as caught)",
            100.0 * (outcome.caught.len() + outcome.timeout.len()) as f64 / viable as f64
        );
    }
    for m in &outcome.missed {
        println!("survivor: {m}");
    }
    for m in &outcome.timeout {
        println!("timeout: {m}");
    }
    match status.code() {
        Some(0 | 2 | 3) => Ok(()),
        _ => Err(format!(
            "cargo mutants failed ({status}); see {}",
            out_dir.join("mutants.out/debug.log").display()
        )),
    }
}

/// The `tests/` package's test targets for `krate`: the one named after it without the
/// `mcpdesc-` prefix, and those that name starts (`lint` → `lint`, `lint_oracles`).
fn test_targets(root: &Path, krate: &str) -> Result<Vec<String>, String> {
    let manifest = root.join("tests/Cargo.toml");
    let text =
        std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    Ok(targets_of(krate, &test_target_names(&text)))
}

/// Workspace test targets that exercise a crate although they are not named after it.
const SUITES_OF: &[(&str, &[&str])] = &[
    ("mcpdesc-validate", &["conformance", "validations"]),
    ("mcpdesc-rest", &["serve_rest"]),
    ("mcpdesc-auth", &["serve_auth"]),
    ("mcpdesc-ratelimit", &["serve_ratelimit"]),
    ("mcpdesc-core", &["refs", "roundtrip"]),
    ("mcpdesc-pipeline", &["roundtrip"]),
    ("mcpdesc-openapi", &["overlay"]),
];

/// Of the `tests/` package's targets `names`, those of `krate`: named after it (`diff`,
/// `diff_oracles` for `mcpdesc-diff`), or listed for it in [`SUITES_OF`].
fn targets_of(krate: &str, names: &[String]) -> Vec<String> {
    let short = krate
        .strip_prefix("mcpdesc-")
        .unwrap_or(krate)
        .replace('-', "_");
    let listed = SUITES_OF
        .iter()
        .find(|(k, _)| *k == krate)
        .map_or(&[][..], |(_, t)| *t);
    names
        .iter()
        .filter(|n| {
            **n == short || n.starts_with(&format!("{short}_")) || listed.contains(&n.as_str())
        })
        .cloned()
        .collect()
}

/// `name = "…"` of every `[[test]]` table in a Cargo manifest.
fn test_target_names(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_test = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_test = line == "[[test]]";
        } else if in_test
            && let Some(v) = line.strip_prefix("name")
            && let Some(v) = v.trim_start().strip_prefix('=')
        {
            out.push(v.trim().trim_matches('"').to_string());
        }
    }
    out
}

fn mutants_cmd() -> Command {
    let mut c = crate::cargo();
    c.arg("mutants");
    c
}

/// Installs cargo-mutants with `cargo install --locked` unless `cargo mutants` runs.
fn ensure_cargo_mutants() -> Result<(), String> {
    let present = mutants_cmd()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if present {
        return Ok(());
    }
    eprintln!("xtask: cargo-mutants is missing; installing it");
    crate::run(crate::cargo().args(["install", "--locked", "cargo-mutants"]))
}

/// The names `cargo mutants --list --json` gives (the form `--re` matches).
fn mutant_names(json: &[u8]) -> Result<Vec<String>, String> {
    let v: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| format!("cargo mutants --list --json: {e}"))?;
    let list = v
        .as_array()
        .ok_or("cargo mutants --list --json: not an array")?;
    list.iter()
        .map(|m| {
            m.get("name")
                .and_then(|n| n.as_str())
                .map(str::to_string)
                .ok_or_else(|| format!("cargo mutants --list --json: a mutant without a name: {m}"))
        })
        .collect()
}

/// `n` of `names` chosen by a seeded RNG (partial Fisher-Yates over SplitMix64), in
/// listing order.
fn pick(names: &[String], n: usize, seed: u64) -> Vec<String> {
    let mut idx: Vec<usize> = (0..names.len()).collect();
    let mut state = seed;
    let n = n.min(idx.len());
    for i in 0..n {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let j = i + (z % (idx.len() - i) as u64) as usize;
        idx.swap(i, j);
    }
    let mut chosen = idx[..n].to_vec();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| names[i].clone()).collect()
}

/// A regex matching exactly `name`.
fn exact_regex(name: &str) -> String {
    let mut out = String::from("^");
    for c in name.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('$');
    out
}

#[derive(Debug, Default)]
struct Outcome {
    caught: Vec<String>,
    missed: Vec<String>,
    timeout: Vec<String>,
    unviable: Vec<String>,
}

impl Outcome {
    /// Drops every mutant not in `sample`, returning the dropped names.
    fn keep_only(&mut self, sample: &[String]) -> Vec<String> {
        let mut dropped = Vec::new();
        for list in [
            &mut self.caught,
            &mut self.missed,
            &mut self.timeout,
            &mut self.unviable,
        ] {
            list.retain(|m| {
                let keep = sample.contains(m);
                if !keep {
                    dropped.push(m.clone());
                }
                keep
            });
        }
        dropped
    }
}

/// Reads cargo-mutants' `caught.txt`, `missed.txt`, `timeout.txt`, `unviable.txt`.
fn summarize(dir: &Path) -> Result<Outcome, String> {
    let read = |f: &str| -> Result<Vec<String>, String> {
        let p: PathBuf = dir.join(f);
        match std::fs::read_to_string(&p) {
            Ok(s) => Ok(s
                .lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(format!("{}: {e}", p.display())),
        }
    };
    Ok(Outcome {
        caught: read("caught.txt")?,
        missed: read("missed.txt")?,
        timeout: read("timeout.txt")?,
        unviable: read("unviable.txt")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_picks_the_same_distinct_sample_and_another_seed_another() {
        let names: Vec<String> = (0..100).map(|i| format!("m{i}")).collect();
        let a = pick(&names, 20, 7);
        assert_eq!(a, pick(&names, 20, 7));
        assert_eq!(a.len(), 20);
        let mut dedup = a.clone();
        dedup.dedup();
        assert_eq!(dedup.len(), 20, "no mutant twice");
        assert_ne!(a, pick(&names, 20, 8));
        assert_eq!(
            pick(&names, 500, 1).len(),
            100,
            "a sample past the total is all"
        );
    }

    #[test]
    fn only_the_sample_is_counted() {
        let mut o = Outcome {
            caught: vec!["a".into(), "field".into()],
            missed: vec!["b".into()],
            ..Outcome::default()
        };
        assert_eq!(o.keep_only(&["a".into(), "b".into()]), ["field"]);
        assert_eq!(
            (o.caught, o.missed),
            (vec!["a".to_string()], vec!["b".to_string()])
        );
    }

    #[test]
    fn changed_crates_are_the_packages_whose_rust_sources_the_diff_touches() {
        let diff = "diff --git a/crates/mcpdesc-rest/src/body.rs b/crates/mcpdesc-rest/src/body.rs\n\
                    --- a/crates/mcpdesc-rest/src/body.rs\n+++ b/crates/mcpdesc-rest/src/body.rs\n\
                    @@ -1 +1 @@\n-a\n+b\n\
                    --- a/README.md\n+++ b/README.md\n\
                    --- a/crates/mcpdesc-core/Cargo.toml\n+++ b/crates/mcpdesc-core/Cargo.toml\n\
                    --- a/crates/mcpdesc-old/src/lib.rs\n+++ /dev/null\n\
                    --- a/crates/mcpdesc-hosts/src/fit.rs\n+++ b/crates/mcpdesc-hosts/src/fit.rs\n\
                    --- a/crates/mcpdesc-rest/src/plan.rs\n+++ b/crates/mcpdesc-rest/src/plan.rs\n\
                    +++ b/crates/x.rs\n";
        assert_eq!(changed_crates(diff), ["mcpdesc-rest", "mcpdesc-hosts"]);
    }

    #[test]
    fn exact_regex_escapes_the_name() {
        assert_eq!(
            exact_regex("src/a.rs:3:5: replace f -> bool with (true)"),
            r"^src/a\.rs:3:5: replace f \-> bool with \(true\)$"
        );
    }

    #[test]
    fn a_crate_gets_the_suites_named_after_it_and_those_listed_for_it() {
        let names: Vec<String> = [
            "diff",
            "diff_oracles",
            "conformance",
            "validations",
            "serve",
            "serve_rest",
            "differ",
        ]
        .map(String::from)
        .into();
        assert_eq!(targets_of("mcpdesc-diff", &names), ["diff", "diff_oracles"]);
        assert_eq!(
            targets_of("mcpdesc-validate", &names),
            ["conformance", "validations"]
        );
        assert_eq!(targets_of("mcpdesc-rest", &names), ["serve_rest"]);
        assert_eq!(targets_of("mcpdesc-serve", &names), ["serve", "serve_rest"]);
        assert!(targets_of("mcpdesc-sandbox", &names).is_empty());
    }

    #[test]
    fn test_targets_are_read_from_the_test_tables() {
        let manifest = "[lib]\nname = \"x\"\n[[test]]\nname = \"lint\"\npath = \"lint.rs\"\n\
                        [[test]]\nname = \"lint_oracles\"\n[[test]]\nname = \"linter\"\n[dependencies]\nname = \"y\"\n";
        assert_eq!(
            test_target_names(manifest),
            ["lint", "lint_oracles", "linter"]
        );
    }
}
