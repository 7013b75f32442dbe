//! `mcpdesc docs` benchmarks (issue 15): the GitHub description (1,500 tools imported
//! from 1,223 operations at three revisions) to the HTML page and to Markdown, the
//! validation included. Target: the page generates in under 1 s.
//!
//! Run: `cargo bench -p mcpdesc-bench --bench docs`.

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdesc_bench::{github_spec, import_description, synthetic_description};
use std::hint::black_box;
use std::time::Duration;

fn docs(c: &mut Criterion) {
    let mut g = c.benchmark_group("docs");
    let synthetic = synthetic_description(1_000);
    // Each iteration validates once, as `mcpdesc docs` does, then renders the handle.
    let validator = mcpdesc_validate::Validator::new();
    g.bench_function("synthetic-1k-tools/html", |b| {
        b.iter(|| {
            let valid = validator.check(black_box(&synthetic)).expect("valid");
            mcpdesc_docs::generate(&valid, mcpdesc_docs::Format::Html, &Default::default())
        })
    });
    let description = match github_spec().map(|p| import_description(&p)) {
        Some(Ok(d)) => d,
        Some(Err(e)) => {
            eprintln!("mcpdesc-bench: import failed: {e}; skipping the GitHub docs benches");
            return g.finish();
        }
        None => {
            eprintln!(
                "mcpdesc-bench: GitHub spec not found (run `cargo xtask deps`); skipping the GitHub docs benches"
            );
            return g.finish();
        }
    };
    for (name, format) in [
        ("html", mcpdesc_docs::Format::Html),
        ("markdown", mcpdesc_docs::Format::Markdown),
    ] {
        g.bench_function(format!("github/{name}"), |b| {
            b.iter(|| {
                let valid = validator.check(black_box(&description)).expect("valid");
                let out = mcpdesc_docs::generate(&valid, format, &Default::default());
                assert!(out.output.is_some());
                out
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = docs
}
criterion_main!(benches);
