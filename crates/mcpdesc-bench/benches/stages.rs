//! Library-stage benchmarks (issue 7): parse, convert, name, validate, lower, render;
//! and issue 14's diff.
//!
//! Inputs: a synthetic 1,000-tool description (always) and the GitHub REST spec from
//! `.deps` (or `$MCPDESC_GITHUB_SPEC`); benches that need the spec print why they skip
//! when it is absent. Sample counts and times are kept small so that `cargo xtask bench`
//! finishes in minutes on a 2-core machine: these are medians to compare, not proofs.
//!
//! Run: `cargo bench -p mcpdesc-bench` (add `-- --quick` for a faster, noisier pass).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcpdesc_bench::{
    github_spec, import_description, operation_ids, synthetic_description, with_changed_tools,
};
use mcpdesc_core::{Format, Limits};
use serde_json::Value;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The GitHub spec path, its bytes, and the description imported from it.
struct Github {
    path: PathBuf,
    bytes: Vec<u8>,
    spec: Value,
    description: Value,
}

fn github() -> Option<&'static Github> {
    static G: OnceLock<Option<Github>> = OnceLock::new();
    G.get_or_init(|| {
        let Some(path) = github_spec() else {
            eprintln!(
                "mcpdesc-bench: GitHub spec not found (run `cargo xtask deps` or set {}); skipping the GitHub benches",
                mcpdesc_bench::GITHUB_SPEC_ENV
            );
            return None;
        };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("mcpdesc-bench: {}: {e}; skipping the GitHub benches", path.display());
                return None;
            }
        };
        let spec: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("mcpdesc-bench: {}: {e}; skipping the GitHub benches", path.display());
                return None;
            }
        };
        let description = match import_description(&path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mcpdesc-bench: import failed: {e}; skipping the GitHub benches");
                return None;
            }
        };
        Some(Github {
            path,
            bytes,
            spec,
            description,
        })
    })
    .as_ref()
}

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    let mut inputs = vec![("synthetic-1k", synthetic_description(1000))];
    if let Some(gh) = github() {
        inputs.push(("github", gh.description.clone()));
    }
    let limits = Limits::default();
    for (name, doc) in &inputs {
        for format in [Format::Json, Format::Yaml] {
            let text = mcpdesc_core::emit::to_format(doc, format);
            let label = if format == Format::Json {
                "json"
            } else {
                "yaml"
            };
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(BenchmarkId::new(label, name), &text, |b, text| {
                b.iter(|| mcpdesc_core::decode(black_box(text), format, &limits))
            });
        }
    }
    g.finish();
}

fn convert(c: &mut Criterion) {
    let Some(gh) = github() else { return };
    let mut g = c.benchmark_group("convert");
    g.throughput(Throughput::Bytes(gh.bytes.len() as u64));
    let no_validate = mcpdesc_openapi::ImportOptions {
        validate: false,
        ..Default::default()
    };
    let import = |opts: &mcpdesc_openapi::ImportOptions| {
        let source = mcpdesc_openapi::Source::Bytes {
            bytes: black_box(&gh.bytes),
            path: Some(&gh.path),
        };
        let mut doc = mcpdesc_openapi::ValueSink::new();
        let report = mcpdesc_openapi::import(source, opts, &mut doc);
        (report, doc.into_value())
    };
    g.bench_function("github/import-no-validate", |b| {
        b.iter(|| import(&no_validate))
    });
    let defaults = mcpdesc_openapi::ImportOptions::default();
    g.bench_function("github/import-default", |b| b.iter(|| import(&defaults)));
    g.finish();
}

fn name(c: &mut Criterion) {
    let Some(gh) = github() else { return };
    let ids = operation_ids(&gh.spec);
    let mut g = c.benchmark_group("name");
    g.throughput(Throughput::Elements(ids.len() as u64));
    let opts = mcpdesc_names::NameOptions::default();
    g.bench_function(
        BenchmarkId::new("assign", format!("github-{}-ops", ids.len())),
        |b| b.iter(|| mcpdesc_names::assign_names(black_box(&ids), &opts)),
    );
    g.finish();
}

fn validate(c: &mut Criterion) {
    let mut g = c.benchmark_group("validate");
    let v = mcpdesc_validate::Validator::new();
    let synthetic = synthetic_description(1000);
    g.throughput(Throughput::Elements(1000));
    g.bench_function("synthetic-1k-tools", |b| {
        b.iter(|| v.validate_value(black_box(&synthetic)))
    });
    if let Some(gh) = github() {
        let n = gh.description["tools"].as_array().map_or(0, Vec::len);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("github-{n}-tools"), |b| {
            b.iter(|| v.validate_value(black_box(&gh.description)))
        });
    }
    g.finish();
}

fn codegen(c: &mut Criterion) {
    let Some(gh) = github() else { return };
    let doc = &gh.description;
    let mut g = c.benchmark_group("codegen");
    let validator = mcpdesc_validate::Validator::new();
    let valid = match validator.check(doc) {
        Ok(valid) => valid,
        Err(d) => {
            eprintln!("mcpdesc-bench: the GitHub description does not validate: {d:?}");
            return;
        }
    };
    let views = match mcpdesc_codegen::lower::Views::project(&valid, None) {
        Ok(views) => views,
        Err(d) => {
            eprintln!("mcpdesc-bench: the GitHub description does not project: {d:?}");
            return;
        }
    };
    // What `generate` does before lowering: validate once, project the handle.
    g.bench_function("github/project", |b| {
        b.iter(|| {
            let valid = validator.check(black_box(doc)).expect("valid");
            mcpdesc_codegen::lower::Views::project(&valid, None).is_ok()
        })
    });
    g.bench_function("github/lower", |b| {
        b.iter(|| mcpdesc_codegen::lower::lower(black_box(&views)))
    });
    let lowered = mcpdesc_codegen::lower::lower(&views);
    if !mcpdesc_core::has_errors(&lowered.diagnostics) {
        let ir = &lowered.ir;
        let rust = mcpdesc_codegen::RustOptions::default();
        let ts = mcpdesc_codegen::TsOptions::default();
        g.bench_function("github/render-rust", |b| {
            b.iter(|| mcpdesc_codegen::rust::render(black_box(ir), &rust))
        });
        g.bench_function("github/render-typescript", |b| {
            b.iter(|| mcpdesc_codegen::typescript::render(black_box(ir), &ts))
        });
        // The target (< 1 s): both clients from the description, end to end.
        g.bench_function("github/generate-rust+typescript", |b| {
            b.iter(|| {
                let valid = validator.check(black_box(doc)).expect("valid");
                let (r, t) = mcpdesc_codegen::generate_clients(&valid, &rust, &ts);
                (r.map(|g| g.files.len()), t.map(|g| g.files.len()))
            })
        });
    } else {
        eprintln!(
            "mcpdesc-bench: lowering the GitHub description failed: {:?}",
            lowered.diagnostics
        );
    }
    g.finish();
}

/// Issue 14's target (< 1 s): the GitHub description against a copy with 1% of its tools
/// changed, both inputs validated first (what `mcpdesc diff` does after parsing), and
/// the comparison alone.
fn diff(c: &mut Criterion) {
    let Some(gh) = github() else { return };
    let old = &gh.description;
    let new = with_changed_tools(old, 100);
    let opts = mcpdesc_diff::DiffOptions::default();
    let mut g = c.benchmark_group("diff");
    let v = mcpdesc_validate::Validator::new();
    g.bench_function("github-1pct-changed", |b| {
        b.iter(|| {
            let (o, n) = std::thread::scope(|s| {
                let n = s.spawn(|| v.check(black_box(&new)).expect("valid"));
                (
                    v.check(black_box(old)).expect("valid"),
                    n.join().expect("joins"),
                )
            });
            mcpdesc_diff::diff(&o, &n, &opts).map(|r| r.findings.len())
        })
    });
    let (o, n) = (v.check(old).expect("valid"), v.check(&new).expect("valid"));
    g.bench_function("github-1pct-changed/compare-only", |b| {
        b.iter(|| mcpdesc_diff::diff(black_box(&o), black_box(&n), &opts).map(|r| r.findings.len()))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = stages;
    config = config();
    targets = parse, convert, name, validate, codegen, diff
}
criterion_main!(stages);
