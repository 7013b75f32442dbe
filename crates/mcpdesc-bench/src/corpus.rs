//! Corpus runs: import every OpenAPI document under a folder, in parallel, validate
//! each result, catch panics, and summarize.
//!
//! Tooling, not library: it lives here (with its progress bar, terminal detection and
//! panic catching) so that `mcpdesc-openapi` and everything that links it, the CLI
//! included, stay free of it. `cargo xtask corpus` runs the `corpus` example of this
//! crate; the workspace tests call [`run_files`] on a fixed subset.
//!
//! A file is a candidate when its extension is `.json`, `.yaml` or `.yml`; a
//! candidate whose root has neither `openapi` nor `swagger` (a `package.json`, a
//! referenced fragment) is counted as skipped, not as a failure.

use mcpdesc_openapi::{DiscardSink, ImportError, ImportOptions, Source, ValueSink, import};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What happened to one spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecResult {
    /// Imported; the output conforms. Carries warning codes.
    Conforming { warnings: Vec<String>, tools: usize },
    /// Imported, but the validator rejected the output: error codes.
    NonConforming { errors: Vec<String> },
    /// Imported and conforming, but the caller's check of the description found
    /// problems (see [`run_files_checked`]).
    CheckFailed { problems: Vec<String> },
    /// The input was unusable: the cause (diagnostic code).
    Failed { cause: String },
    /// Not an OpenAPI document.
    Skipped,
    /// The importer panicked (always a bug).
    Panicked { message: String },
}

/// Summary of a corpus run.
#[derive(Debug, Clone, Default)]
pub struct CorpusReport {
    pub results: Vec<(PathBuf, SpecResult)>,
    pub elapsed: Duration,
    pub min_conforming: f64,
}

impl CorpusReport {
    pub fn specs(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.1 != SpecResult::Skipped)
            .count()
    }
    pub fn conforming(&self) -> usize {
        self.results
            .iter()
            .filter(|r| matches!(r.1, SpecResult::Conforming { .. }))
            .count()
    }
    pub fn panics(&self) -> usize {
        self.results
            .iter()
            .filter(|r| matches!(r.1, SpecResult::Panicked { .. }))
            .count()
    }
    pub fn tools(&self) -> usize {
        self.results
            .iter()
            .map(|r| {
                if let SpecResult::Conforming { tools, .. } = r.1 {
                    tools
                } else {
                    0
                }
            })
            .sum()
    }
    /// Conforming share of the specs (1.0 when there are none).
    pub fn conforming_share(&self) -> f64 {
        let n = self.specs();
        if n == 0 {
            1.0
        } else {
            self.conforming() as f64 / n as f64
        }
    }
    /// No panics and the conforming share reaches the minimum.
    pub fn passed(&self) -> bool {
        self.panics() == 0 && self.conforming_share() >= self.min_conforming
    }

    /// The summary table.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let skipped = self.results.len() - self.specs();
        let _ = writeln!(
            s,
            "specs        {:>7}   (skipped, not OpenAPI: {skipped})",
            self.specs()
        );
        let _ = writeln!(
            s,
            "conforming   {:>7}   ({:.2}%, minimum {:.2}%)",
            self.conforming(),
            self.conforming_share() * 100.0,
            self.min_conforming * 100.0
        );
        let _ = writeln!(s, "tools        {:>7}", self.tools());
        let _ = writeln!(s, "panics       {:>7}", self.panics());
        let _ = writeln!(s, "time         {:>7.2}s", self.elapsed.as_secs_f64());
        let mut warn: BTreeMap<&str, usize> = BTreeMap::new();
        let mut fail: BTreeMap<String, usize> = BTreeMap::new();
        for (_, r) in &self.results {
            match r {
                SpecResult::Conforming { warnings, .. } => {
                    for w in warnings {
                        *warn.entry(w.as_str()).or_default() += 1;
                    }
                }
                SpecResult::NonConforming { errors } => {
                    for e in errors {
                        *fail.entry(format!("non-conforming: {e}")).or_default() += 1;
                    }
                }
                SpecResult::CheckFailed { .. } => {
                    *fail.entry("check failed".into()).or_default() += 1
                }
                SpecResult::Failed { cause } => {
                    *fail.entry(format!("unusable: {cause}")).or_default() += 1
                }
                SpecResult::Panicked { .. } => *fail.entry("panic".into()).or_default() += 1,
                SpecResult::Skipped => {}
            }
        }
        if !warn.is_empty() {
            let _ = writeln!(s, "\nwarnings by code (specs)");
            for (k, v) in &warn {
                let _ = writeln!(s, "  {k:<40} {v:>6}");
            }
        }
        if !fail.is_empty() {
            let _ = writeln!(s, "\nfailures by cause (specs)");
            for (k, v) in &fail {
                let _ = writeln!(s, "  {k:<60} {v:>6}");
            }
            let _ = writeln!(s, "\nfirst failures");
            for (p, r) in self
                .results
                .iter()
                .filter(|r| !matches!(r.1, SpecResult::Conforming { .. } | SpecResult::Skipped))
                .take(20)
            {
                let _ = writeln!(s, "  {}: {r:?}", p.display());
            }
        }
        let _ = writeln!(
            s,
            "\nresult: {}",
            if self.passed() { "PASS" } else { "FAIL" }
        );
        s
    }
}

/// Every candidate file under `dir`, sorted (deterministic).
pub fn list_specs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                let ext = p
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or("")
                    .to_ascii_lowercase();
                if matches!(ext.as_str(), "json" | "yaml" | "yml") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// At most `n` of `files`, spread evenly over the (sorted) list: a deterministic
/// subset that samples every part of a corpus, not just its first folders.
pub fn evenly_spaced(files: Vec<PathBuf>, n: usize) -> Vec<PathBuf> {
    let len = files.len();
    if n == 0 || n >= len {
        return files;
    }
    files
        .into_iter()
        .enumerate()
        .filter(|(i, _)| (i * n) % len < n)
        .map(|(_, p)| p)
        .collect()
}

/// A check of an imported, conforming description: the problems it finds (none: it
/// passes). Runs on the corpus threads.
pub type Check = dyn Fn(&Value) -> Vec<String> + Sync;

/// Imports one file, catching panics.
pub fn run_one(path: &Path, opts: &ImportOptions) -> SpecResult {
    run_one_checked(path, opts, None)
}

/// [`run_one`], then `check` on the description when it conforms (the description is
/// then kept in memory; without a check it is only counted).
pub fn run_one_checked(path: &Path, opts: &ImportOptions, check: Option<&Check>) -> SpecResult {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                return SpecResult::Failed {
                    cause: format!("io: {e}"),
                };
            }
        };
        let source = Source::Bytes {
            bytes: &bytes,
            path: Some(path),
        };
        let imported = match check {
            None => import(source, opts, &mut DiscardSink).map(|r| (r.diagnostics, r.stats, None)),
            Some(_) => {
                let mut doc = ValueSink::new();
                import(source, opts, &mut doc).map(|r| (r.diagnostics, r.stats, doc.into_value()))
            }
        };
        match imported {
            Ok((diagnostics, stats, value)) => {
                if let (Some(check), Some(v), true) = (check, &value, stats.conforming) {
                    let problems = check(v);
                    if !problems.is_empty() {
                        return SpecResult::CheckFailed { problems };
                    }
                }
                let o = mcpdesc_openapi::ImportReport { diagnostics, stats };
                if o.stats.conforming {
                    let mut w: Vec<String> = o
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == mcpdesc_core::Severity::Warning)
                        .map(|d| d.code.clone())
                        .collect();
                    w.sort();
                    w.dedup();
                    SpecResult::Conforming {
                        warnings: w,
                        tools: o.stats.tools,
                    }
                } else {
                    let mut e: Vec<String> = o
                        .diagnostics
                        .iter()
                        .filter(|d| d.is_error())
                        .map(|d| d.code.clone())
                        .collect();
                    e.sort();
                    e.dedup();
                    SpecResult::NonConforming { errors: e }
                }
            }
            Err(ImportError::Unusable(d)) => {
                let code = d.first().map(|d| d.code.clone()).unwrap_or_default();
                if code == "openapi-not-openapi" {
                    SpecResult::Skipped
                } else {
                    SpecResult::Failed { cause: code }
                }
            }
            Err(e) => SpecResult::Failed {
                cause: e.to_string(),
            },
        }
    }));
    match r {
        Ok(x) => x,
        Err(p) => {
            let message = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            SpecResult::Panicked { message }
        }
    }
}

/// Imports + validates every spec under `dir` in parallel.
pub fn run_corpus(
    dir: &Path,
    opts: &ImportOptions,
    min_conforming: f64,
    progress: bool,
) -> CorpusReport {
    run_files(list_specs(dir), opts, min_conforming, progress)
}

/// Imports + validates the given files in parallel.
pub fn run_files(
    files: Vec<PathBuf>,
    opts: &ImportOptions,
    min_conforming: f64,
    progress: bool,
) -> CorpusReport {
    run_files_checked(files, opts, min_conforming, progress, None)
}

/// [`run_files`], with `check` run on every conforming description (a failed check
/// counts as not conforming).
pub fn run_files_checked(
    files: Vec<PathBuf>,
    opts: &ImportOptions,
    min_conforming: f64,
    progress: bool,
    check: Option<&Check>,
) -> CorpusReport {
    use rayon::prelude::*;
    let start = Instant::now();
    let bar = (progress && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} {elapsed_precise} {wide_msg}",
        ) {
            b.set_style(style);
        }
        b
    });
    let done = AtomicUsize::new(0);
    // Quiet the default panic hook while running: panics are collected and reported.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    // Largest files first, each taken by the next free thread (`par_bridge` pulls in
    // order): the few huge specs (Microsoft Graph beta, 47 MB, ~20 s) start at once
    // instead of ending the run alone on one core; results return to the given order.
    let mut order: Vec<(u64, usize, PathBuf)> = files
        .into_iter()
        .enumerate()
        .map(|(i, p)| (std::fs::metadata(&p).map_or(0, |m| m.len()), i, p))
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut results: Vec<(usize, PathBuf, SpecResult)> = order
        .into_iter()
        .par_bridge()
        .map(|(_, i, p)| {
            let r = run_one_checked(&p, opts, check);
            done.fetch_add(1, Ordering::Relaxed);
            if let Some(b) = &bar {
                b.inc(1);
            }
            (i, p, r)
        })
        .collect();
    results.sort_by_key(|r| r.0);
    let results: Vec<(PathBuf, SpecResult)> = results.into_iter().map(|(_, p, r)| (p, r)).collect();
    std::panic::set_hook(hook);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    CorpusReport {
        results,
        elapsed: start.elapsed(),
        min_conforming,
    }
}
