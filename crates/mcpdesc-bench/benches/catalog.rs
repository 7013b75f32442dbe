//! Large-catalog benchmarks (issue 21) on the GitHub description: building the tool
//! search index (every tool's text analyzed, and with the hybrid search every tool
//! embedded; target ≤ 100 ms) and one search, lexical and hybrid (target p50 ≤ 1 ms),
//! with a set of requests written the way users write them.
//!
//! Run: `cargo bench -p mcpdesc-bench --bench catalog`.

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdesc_bench::{github_spec, import_description};
use mcpdesc_catalog::search::{Entry, Filter, Index, ToolText};
use serde_json::Value;
use std::hint::black_box;
use std::time::Duration;

const QUERIES: &[&str] = &[
    "close the issue about the login bug",
    "who reviewed my pull request",
    "list the workflow runs that failed today",
    "add a collaborator to the repository",
    "repos_get",
    "star a repo",
];

fn entries(doc: &Value) -> Vec<Entry> {
    let mut seen = std::collections::HashSet::new();
    doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let name = t["name"].as_str()?;
            seen.insert(name).then(|| Entry {
                text: ToolText::of_tool(name, doc, t),
                toolsets: mcpdesc_catalog::toolsets_of(t)
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
                read_only: mcpdesc_catalog::is_read_only(t),
            })
        })
        .collect()
}

fn catalog(c: &mut Criterion) {
    let mut g = c.benchmark_group("catalog");
    let doc = match github_spec().map(|p| import_description(&p)) {
        Some(Ok(d)) => d,
        _ => {
            eprintln!(
                "mcpdesc-bench: GitHub spec not found or not imported (run `cargo xtask deps`); skipping the catalog benches"
            );
            return g.finish();
        }
    };
    g.bench_function("github/index-build", |b| {
        b.iter(|| Index::build(entries(black_box(&doc)), None))
    });
    g.bench_function("github/index-build-hybrid", |b| {
        b.iter(|| {
            Index::build(
                entries(black_box(&doc)),
                Some(Box::new(mcpdesc_catalog::semantic::Embeddings::embedded())),
            )
        })
    });
    // What `serve --discovery search` builds at start (issue 31): the hybrid index, with
    // every tool's provenance read and its dependency links computed on the second
    // thread after the embedding (`Index::build_with`).
    g.bench_function("github/index-build-hybrid-requires", |b| {
        b.iter(|| {
            Index::build_with(
                entries(black_box(&doc)),
                Some(Box::new(mcpdesc_catalog::semantic::Embeddings::embedded())),
                || {
                    let shapes: Vec<_> = doc["tools"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|t| {
                            mcpdesc_catalog::deps::Shape::of_tool(
                                t["name"].as_str().unwrap_or(""),
                                &doc,
                                t,
                            )
                        })
                        .collect();
                    mcpdesc_catalog::deps::link(&shapes)
                },
            )
        })
    });
    // The dependency links (issue 31) of every GitHub tool alone (34 ms on 2026-12-04).
    g.bench_function("github/deps-link", |b| {
        b.iter(|| {
            let shapes: Vec<_> = doc["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    mcpdesc_catalog::deps::Shape::of_tool(
                        t["name"].as_str().unwrap_or(""),
                        black_box(&doc),
                        t,
                    )
                })
                .collect();
            mcpdesc_catalog::deps::link(&shapes)
        })
    });
    let lexical = Index::build(entries(&doc), None);
    let hybrid = Index::build(
        entries(&doc),
        Some(Box::new(mcpdesc_catalog::semantic::Embeddings::embedded())),
    );
    for (i, q) in QUERIES.iter().enumerate() {
        g.bench_function(format!("github/search-{i}"), |b| {
            b.iter(|| lexical.search(black_box(q), 10, &Filter::default()))
        });
        g.bench_function(format!("github/search-hybrid-{i}"), |b| {
            b.iter(|| hybrid.search(black_box(q), 10, &Filter::default()))
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = catalog
}
criterion_main!(benches);
