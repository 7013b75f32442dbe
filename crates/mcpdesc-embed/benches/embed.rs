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
    // `MCPDESC_EMBED_TEXTS=FILE`: a JSON array of real tool texts (e.g. the GitHub
    // import's, written by `search_eval --texts-of`); else 1,223 synthetic ones.
    let texts = std::env::var_os("MCPDESC_EMBED_TEXTS")
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|s| serde_json::from_str::<Vec<String>>(&s).ok())
        .unwrap_or_else(tool_texts);
    let label = format!("embed {} tool texts", texts.len());
    let mut g = c.benchmark_group("index");
    g.sample_size(20);
    g.bench_function(&label, |b| {
        b.iter(|| texts.iter().map(|t| m.embed(t)).collect::<Vec<_>>())
    });
    g.finish();
}

criterion_group!(embed, benches);
criterion_main!(embed);
