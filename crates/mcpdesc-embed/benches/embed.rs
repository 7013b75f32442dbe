//! `cargo bench -p mcpdesc-embed`: decoding the compiled-in model (what the first
//! `StaticModel::embedded()` costs at start), embedding one query, and embedding a
//! batch of 1,223 tool-like texts (the GitHub import's tool count).
use criterion::{Criterion, criterion_group, criterion_main};
use mcpdesc_embed::{EMBEDDED_VECTORS, EMBEDDED_VOCAB, StaticModel};
use std::hint::black_box;

/// 1,223 texts shaped like a tool's search text (name words, title, description, path).
fn tool_texts() -> Vec<String> {
    let verbs = ["list", "get", "create", "update", "delete", "search"];
    let nouns = [
        "repository",
        "issue",
        "pull request",
        "webhook",
        "release",
        "workflow run",
        "team member",
        "deploy key",
        "gist",
        "check suite",
        "code scanning alert",
    ];
    (0..1223)
        .map(|i| {
            let v = verbs[i % verbs.len()];
            let n = nouns[(i / verbs.len()) % nouns.len()];
            format!(
                "{v} {n} {i} {v} a {n} Lists or changes the {n} of the authenticated user, \
                 with pagination; returns 404 when the {n} does not exist. \
                 /repos/owner/repo/{n}/{i}"
            )
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    c.bench_function("decode embedded model", |b| {
        b.iter(|| StaticModel::from_bytes(black_box(EMBEDDED_VECTORS), black_box(EMBEDDED_VOCAB)))
    });
    let m = StaticModel::embedded();
    c.bench_function("embed one query", |b| {
        b.iter(|| m.embed(black_box("who directed the top-rated movie of 2019?")))
    });
    let texts = tool_texts();
    let mut g = c.benchmark_group("index");
    g.sample_size(20);
    g.bench_function("embed 1,223 tool texts", |b| {
        b.iter(|| texts.iter().map(|t| m.embed(t)).collect::<Vec<_>>())
    });
    g.finish();
}

criterion_group!(embed, benches);
criterion_main!(embed);
