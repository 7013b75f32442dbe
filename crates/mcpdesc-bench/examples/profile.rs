//! One-shot stage timings for profiling (`perf record` this binary, release build):
//!
//! ```text
//! cargo run --release -p mcpdesc-bench --example profile -- [STAGE] [ROUNDS]
//! ```
//!
//! STAGE is `import`, `import-phases`, `validate-1k`, `validate-github`, `codegen`,
//! `diff` or `all` (default). `import-phases` streams the GitHub import as `mcpdesc
//! import openapi -o X.json` does (into a discarding writer) and prints each phase's wall
//! time and the process's RSS and peak RSS after it, through `ImportOptions::on_phase`.
//! `diff` compares the GitHub description with a copy whose every 100th tool changed,
//! without and with validation.
use mcpdesc_bench::{github_spec, synthetic_description, with_changed_tools};
use std::time::{Duration, Instant};

/// Prints one import phase with the process's memory (Linux `/proc`).
fn print_phase(phase: mcpdesc_openapi::Phase, took: Duration) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mem = |k: &str| {
        status
            .lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    println!(
        "import phase {:<10} {:>8.1} ms  rss {:>4} MiB  peak {:>4} MiB",
        phase.as_str(),
        took.as_secs_f64() * 1000.0,
        mem("VmRSS:"),
        mem("VmHWM:")
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stage = args.first().map_or("all", String::as_str);
    let rounds: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let want = |s: &str| stage == "all" || stage == s;
    let v = mcpdesc_validate::Validator::new();
    if want("validate-1k") {
        let doc = synthetic_description(1000);
        for _ in 0..rounds {
            let t = Instant::now();
            let d = v.validate_value(&doc);
            println!(
                "validate synthetic 1,000 tools: {:?} ({} diagnostics)",
                t.elapsed(),
                d.len()
            );
        }
    }
    let Some(path) = github_spec() else {
        eprintln!("profile: GitHub spec not found; only the synthetic stage ran");
        return;
    };
    if want("import-phases") {
        let opts = mcpdesc_openapi::ImportOptions {
            on_phase: Some(print_phase),
            ..Default::default()
        };
        for _ in 0..rounds {
            let t = Instant::now();
            let mut out = mcpdesc_openapi::JsonSink::new(std::io::sink());
            match mcpdesc_openapi::import(mcpdesc_openapi::Source::Path(&path), &opts, &mut out) {
                Ok(r) => println!(
                    "import GitHub streamed: {:?} ({} tool objects)",
                    t.elapsed(),
                    r.stats.tool_objects
                ),
                Err(e) => eprintln!("profile: import failed: {e}"),
            }
        }
        if stage == "import-phases" {
            return;
        }
    }
    let opts = mcpdesc_openapi::ImportOptions::default();
    let mut description = None;
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        let mut out = mcpdesc_openapi::ValueSink::new();
        if let Err(e) =
            mcpdesc_openapi::import(mcpdesc_openapi::Source::Path(&path), &opts, &mut out)
        {
            eprintln!("profile: import failed: {e}");
            return;
        }
        if want("import") {
            println!("import GitHub (default options): {:?}", t.elapsed());
        }
        description = out.into_value();
        if !want("import") {
            break;
        }
    }
    let Some(doc) = description else { return };
    if want("validate-github") {
        for _ in 0..rounds {
            let t = Instant::now();
            let d = v.validate_value(&doc);
            println!(
                "validate GitHub description: {:?} ({} diagnostics)",
                t.elapsed(),
                d.len()
            );
        }
    }
    if want("diff") {
        let new = with_changed_tools(&doc, 100);
        let opts = mcpdesc_diff::DiffOptions::default();
        for _ in 0..rounds {
            let t = Instant::now();
            let (o, n) = match (v.check(&doc), v.check(&new)) {
                (Ok(o), Ok(n)) => (o, n),
                _ => {
                    eprintln!("profile: the diff inputs do not validate");
                    return;
                }
            };
            let tv = t.elapsed();
            let t = Instant::now();
            let r = mcpdesc_diff::diff(&o, &n, &opts);
            let tc = t.elapsed();
            println!(
                "diff GitHub vs 1% changed: compare {tc:?} ({} findings), with validation (one after the other) {:?}",
                r.map_or(0, |r| r.findings.len()),
                tv + tc
            );
        }
    }
    if want("codegen") {
        for _ in 0..rounds {
            let t = Instant::now();
            let valid = match v.check(&doc) {
                Ok(valid) => valid,
                Err(d) => {
                    eprintln!("profile: validation failed: {d:?}");
                    return;
                }
            };
            let views = match mcpdesc_codegen::lower::Views::project(&valid, None) {
                Ok(v) => v,
                Err(d) => {
                    eprintln!("profile: projection failed: {d:?}");
                    return;
                }
            };
            let tp = t.elapsed();
            let t = Instant::now();
            let ir = mcpdesc_codegen::lower::lower(&views).ir;
            let tl = t.elapsed();
            let t = Instant::now();
            let r = mcpdesc_codegen::rust::render(&ir, &Default::default());
            let tr = t.elapsed();
            let t = Instant::now();
            let ts = mcpdesc_codegen::typescript::render(&ir, &Default::default());
            let tt = t.elapsed();
            println!(
                "codegen GitHub: validate + project {tp:?}, lower {tl:?}, render rust {tr:?} ({} files), render ts {tt:?} ({} files)",
                r.map_or(0, |f| f.0.len()),
                ts.map_or(0, |f| f.0.len())
            );
            let t = Instant::now();
            let both =
                mcpdesc_codegen::generate_clients(&valid, &Default::default(), &Default::default());
            println!(
                "codegen GitHub: generate_clients (Rust + TypeScript) of the validated handle {:?} (ok: {})",
                t.elapsed(),
                both.0.is_ok() && both.1.is_ok()
            );
        }
    }
}
