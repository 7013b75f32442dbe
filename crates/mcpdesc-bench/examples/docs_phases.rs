//! Phase times of `mcpdesc docs` on the GitHub description (validate, model, render).
//! Run: `cargo run --release -p mcpdesc-bench --example docs_phases`.

use std::time::Instant;

fn main() {
    let Some(path) = mcpdesc_bench::github_spec() else {
        eprintln!("GitHub spec not found (run `cargo xtask deps`)");
        return;
    };
    let doc = match mcpdesc_bench::import_description(&path) {
        Ok(d) => d,
        Err(e) => return eprintln!("{e}"),
    };
    for _ in 0..3 {
        let t = Instant::now();
        let diags = mcpdesc_validate::validate_value(&doc);
        let v = t.elapsed();
        let t = Instant::now();
        let page = mcpdesc_docs::model::build(&doc, None, &diags);
        let m = t.elapsed();
        let t = Instant::now();
        let html = mcpdesc_docs::html::render(&page)
            .map(|s| s.len())
            .unwrap_or(0);
        let h = t.elapsed();
        let t = Instant::now();
        let md = mcpdesc_docs::markdown::render(&page)
            .map(|s| s.len())
            .unwrap_or(0);
        let d = t.elapsed();
        let t = Instant::now();
        drop(page);
        let dr = t.elapsed();
        println!(
            "validate {v:?}  model {m:?}  html {h:?} ({html} B)  markdown {d:?} ({md} B)  drop {dr:?}"
        );
    }
}
