//! The model file's format and the tokenizer's vocabulary on hand-built inputs, with
//! hand-computed expectations (the survivors of a mutation sample of this crate: the
//! error messages, a zero row scale, `token_vector`'s row arithmetic, `Tokenizer::id`).

use mcpdesc_embed::{ModelError, StaticModel, Tokenizer, VocabError};

/// The five special tokens the tokenizer needs, ids 0..5.
const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";

/// `MCPDVEC1`, rows, dim, the row scales, then the int8 rows (PROVENANCE.md's layout).
fn vectors(dim: u32, scales: &[f32], q: &[i8]) -> &'static [u8] {
    let mut b = b"MCPDVEC1".to_vec();
    b.extend((scales.len() as u32).to_le_bytes());
    b.extend(dim.to_le_bytes());
    for s in scales {
        b.extend(s.to_le_bytes());
    }
    b.extend(q.iter().map(|&v| v as u8));
    Box::leak(b.into_boxed_slice())
}

fn error(v: &'static [u8], vocab: &'static str) -> ModelError {
    match StaticModel::from_bytes(v, vocab) {
        Ok(_) => panic!("decoded"),
        Err(e) => e,
    }
}

#[test]
fn token_vector_is_its_own_row_times_its_scale() {
    // Row i of a 5 × 2 model is (q[2i], q[2i+1]) · scale[i].
    let m = StaticModel::from_bytes(
        vectors(
            2,
            &[0.5, 2.0, 0.25, 1.0, 4.0],
            &[1, -2, 3, 4, -8, 12, 0, 1, 5, -1],
        ),
        VOCAB,
    )
    .expect("decodes");
    assert_eq!(m.token_vector(0), Some(vec![0.5, -1.0]));
    assert_eq!(m.token_vector(1), Some(vec![6.0, 8.0]));
    assert_eq!(m.token_vector(2), Some(vec![-2.0, 3.0]));
    assert_eq!(m.token_vector(4), Some(vec![20.0, -4.0]));
    assert_eq!(m.token_vector(5), None, "past the vocabulary");
}

#[test]
fn a_zero_scale_is_a_valid_row_and_a_negative_or_nan_one_is_not() {
    // A row whose entries are all zero has scale max|v| / 127 = 0.
    let m = StaticModel::from_bytes(vectors(1, &[0.0, 1.0, 1.0, 1.0, 1.0], &[0; 5]), VOCAB);
    assert_eq!(m.map(|m| m.token_vector(0)).ok(), Some(Some(vec![0.0])));
    for (bad, row) in [(-1.0, 2), (f32::NAN, 3), (f32::INFINITY, 0)] {
        let mut scales = [1.0; 5];
        scales[row] = bad;
        assert_eq!(
            error(vectors(1, &scales, &[0; 5]), VOCAB),
            ModelError::BadScale { row }
        );
    }
}

#[test]
fn model_errors_say_what_is_wrong() {
    let cases = [
        (
            error(b"not a model", VOCAB),
            "vectors.bin: not an MCPDVEC1 file",
        ),
        (
            error(&vectors(2, &[1.0; 5], &[0; 10])[..40], VOCAB),
            "vectors.bin: 40 bytes, the header says 46",
        ),
        (
            error(vectors(1, &[1.0; 3], &[0; 3]), VOCAB),
            "vocab.txt has 5 tokens, vectors.bin 3 rows",
        ),
        (
            error(vectors(1, &[1.0, -1.0, 1.0, 1.0, 1.0], &[0; 5]), VOCAB),
            "vectors.bin: row 1 has a bad scale",
        ),
        (
            error(vectors(1, &[1.0; 2], &[0; 2]), "[PAD]\n[PAD]\n"),
            "vocab.txt:2: token \"[PAD]\" appears twice",
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want);
    }
}

#[test]
fn vocab_errors_say_what_is_wrong() {
    let dup = Tokenizer::from_vocab("[PAD]\nx\n[UNK]\nx\n").err();
    assert_eq!(
        dup.clone(),
        Some(VocabError::Duplicate {
            token: "x".into(),
            line: 4
        })
    );
    assert_eq!(
        dup.map(|e| e.to_string()).as_deref(),
        Some("vocab.txt:4: token \"x\" appears twice")
    );
    let missing = Tokenizer::from_vocab("[PAD]\n[UNK]\n[CLS]\n[MASK]\n").err();
    assert_eq!(missing.clone(), Some(VocabError::Missing("[SEP]")));
    assert_eq!(
        missing.map(|e| e.to_string()).as_deref(),
        Some("vocab.txt: special token [SEP] is missing")
    );
}

#[test]
fn a_tokens_id_is_its_line_index_in_vocab_txt() {
    // Line numbers in model/vocab.txt (1-based) minus one: `grep -n`.
    let t = StaticModel::embedded().tokenizer();
    assert_eq!(t.id("[PAD]"), Some(0));
    assert_eq!(t.id("[UNK]"), Some(100));
    assert_eq!(t.id("[CLS]"), Some(101));
    assert_eq!(t.id("the"), Some(1996));
    assert_eq!(t.id("##s"), Some(2015));
    assert_eq!(t.id("no such token"), None);
    let small = Tokenizer::from_vocab(VOCAB).expect("loads");
    assert_eq!(small.id("[MASK]"), Some(4));
    assert_eq!(small.unk_id(), 1);
}
