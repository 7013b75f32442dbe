//! The crate against oracles it did not produce: the reference tokenizer's ids (HF
//! `tokenizers` with the sentence model's own `tokenizer.json`) and the distillation
//! pipeline's own embeddings (numpy, over the committed `model/vectors.bin`). Both
//! fixtures are written by `xtask/embed/distill.py fixtures`.

use mcpdesc_embed::StaticModel;
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn ids(v: &Value) -> Vec<u32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_u64)
                .map(|i| i as u32)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn tokenizer_matches_hf_tokenizers() {
    let f = fixture("tokenize.json");
    let cases = f["cases"].as_array().cloned().unwrap_or_default();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let tok = StaticModel::embedded().tokenizer();
    let mut failures = Vec::new();
    for c in &cases {
        let text = c["text"].as_str().unwrap_or_default();
        let want = ids(&c["ids"]);
        let got = tok.encode(text);
        if got != want {
            let spell = |v: &[u32]| {
                v.iter()
                    .map(|&i| tok.token(i).unwrap_or("?"))
                    .collect::<Vec<_>>()
            };
            failures.push(format!(
                "{text:?}\n  want {want:?} {:?}\n  got  {got:?} {:?}",
                spell(&want),
                spell(&got)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn embeddings_match_the_distillation_pipeline() {
    let f = fixture("embed.json");
    let cases = f["cases"].as_array().cloned().unwrap_or_default();
    assert!(cases.len() >= 5);
    let m = StaticModel::embedded();
    for c in &cases {
        let text = c["text"].as_str().unwrap_or_default();
        assert_eq!(m.tokenizer().encode(text), ids(&c["ids"]), "{text:?} ids");
        let want: Vec<f64> = c["embedding"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let got = m.embed(text);
        assert_eq!(got.len(), want.len(), "{text:?} dim");
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (f64::from(*g) - w).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-3, "{text:?}: max |diff| {worst}");
    }
}

#[test]
fn related_texts_are_closer_than_unrelated_ones() {
    // Hand-written expectations of what any sentence model must get right.
    let m = StaticModel::embedded();
    let sim = |a: &str, b: &str| mcpdesc_embed::cosine(&m.embed(a), &m.embed(b));
    let q = "who directed this film";
    assert!(sim(q, "movie credits: cast and crew") > sim(q, "delete a webhook"));
    let q = "text my customer that the order shipped";
    assert!(sim(q, "send an SMS message") > sim(q, "list repository branches"));
}
