//! # mcpdesc-embed
//!
//! An offline static sentence-embedding model for tool search: one vector per WordPiece
//! token, distilled Model2Vec-style from all-MiniLM-L6-v2 (Apache-2.0) by
//! `xtask/embed/distill.py` (see `model/PROVENANCE.md`). A text's embedding is the mean
//! of its tokens' vectors, L2-normalised, so no transformer runs at search time.
//!
//! The model is compiled into the binary (`include_bytes!`): no file, no network. It is
//! decoded once, on first use of [`StaticModel::embedded`].
//!
//! ```
//! let m = mcpdesc_embed::StaticModel::embedded();
//! let q = m.embed("who directed the movie");
//! let t = m.embed("Get the cast and crew of a film");
//! let u = m.embed("Delete a webhook");
//! assert!(mcpdesc_embed::cosine(&q, &t) > mcpdesc_embed::cosine(&q, &u));
//! ```

mod tokenizer;

pub use tokenizer::{MAX_WORD_CHARS, SPECIAL_TOKENS, Tokenizer, VocabError};

use std::sync::LazyLock;

/// The committed model's token vectors (`model/vectors.bin`, int8 with a scale per row).
pub static EMBEDDED_VECTORS: &[u8] = include_bytes!("../model/vectors.bin");
/// The committed model's vocabulary (`model/vocab.txt`, the sentence model's WordPiece
/// vocabulary, one token per line).
pub static EMBEDDED_VOCAB: &str = include_str!("../model/vocab.txt");

const MAGIC: &[u8; 8] = b"MCPDVEC1";
const HEADER: usize = 16;

/// Why model bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// `vectors.bin` does not start with the format's magic bytes.
    BadMagic,
    /// `vectors.bin` is not `16 + rows * (4 + dim)` bytes long.
    BadLength { expected: usize, actual: usize },
    /// The vocabulary has a different number of tokens than `vectors.bin` has rows.
    RowsMismatch { vocab: usize, rows: usize },
    /// A row scale is not a finite, non-negative number.
    BadScale { row: usize },
    /// The vocabulary itself is unusable.
    Vocab(VocabError),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::BadMagic => write!(f, "vectors.bin: not an MCPDVEC1 file"),
            ModelError::BadLength { expected, actual } => {
                write!(f, "vectors.bin: {actual} bytes, the header says {expected}")
            }
            ModelError::RowsMismatch { vocab, rows } => {
                write!(f, "vocab.txt has {vocab} tokens, vectors.bin {rows} rows")
            }
            ModelError::BadScale { row } => write!(f, "vectors.bin: row {row} has a bad scale"),
            ModelError::Vocab(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ModelError {}

/// A static embedding model: a tokenizer and one quantised vector per token.
#[derive(Debug, Clone)]
pub struct StaticModel {
    tokenizer: Tokenizer,
    dim: usize,
    scales: Vec<f32>,
    /// `rows * dim` signed bytes, row-major.
    vectors: &'static [u8],
}

static EMBEDDED: LazyLock<StaticModel> = LazyLock::new(|| {
    StaticModel::from_bytes(EMBEDDED_VECTORS, EMBEDDED_VOCAB)
        .expect("the committed model decodes (tested by `embedded_model_decodes`)")
});

impl StaticModel {
    /// The model compiled into this crate, decoded on first call.
    pub fn embedded() -> &'static StaticModel {
        &EMBEDDED
    }

    /// Decodes a model from `vectors.bin` bytes and `vocab.txt` text.
    pub fn from_bytes(vectors: &'static [u8], vocab: &'static str) -> Result<Self, ModelError> {
        if vectors.len() < HEADER || &vectors[..8] != MAGIC {
            return Err(ModelError::BadMagic);
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([
                vectors[at],
                vectors[at + 1],
                vectors[at + 2],
                vectors[at + 3],
            ]) as usize
        };
        let rows = u32_at(8);
        let dim = u32_at(12);
        let expected = rows
            .checked_mul(4 + dim)
            .and_then(|n| n.checked_add(HEADER))
            .unwrap_or(usize::MAX);
        if vectors.len() != expected {
            return Err(ModelError::BadLength {
                expected,
                actual: vectors.len(),
            });
        }
        let tokenizer = Tokenizer::from_vocab(vocab).map_err(ModelError::Vocab)?;
        if tokenizer.vocab_size() != rows {
            return Err(ModelError::RowsMismatch {
                vocab: tokenizer.vocab_size(),
                rows,
            });
        }
        let scale_bytes = &vectors[HEADER..HEADER + 4 * rows];
        let mut scales = Vec::with_capacity(rows);
        for (row, b) in scale_bytes.chunks_exact(4).enumerate() {
            let s = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            if !s.is_finite() || s < 0.0 {
                return Err(ModelError::BadScale { row });
            }
            scales.push(s);
        }
        Ok(StaticModel {
            tokenizer,
            dim,
            scales,
            vectors: &vectors[HEADER + 4 * rows..],
        })
    }

    /// Dimensions of every embedding.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The model's tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The (dequantised) vector of token `id`, or `None` past the vocabulary.
    pub fn token_vector(&self, id: u32) -> Option<Vec<f32>> {
        let id = id as usize;
        let row = self.vectors.get(id * self.dim..(id + 1) * self.dim)?;
        let s = self.scales[id];
        Some(row.iter().map(|&q| f32::from(q as i8) * s).collect())
    }

    /// The embedding of `text`: the mean of its tokens' vectors (`[UNK]` skipped),
    /// L2-normalised. A text with no known token gets the zero vector.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let ids = self.tokenizer.encode(text);
        self.embed_ids(&ids)
    }

    /// [`StaticModel::embed`] of already-tokenized ids (ids past the vocabulary and
    /// `[UNK]` are skipped).
    pub fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        self.embed_ids_weighted(ids, |_| 1.0)
    }

    /// [`StaticModel::embed_ids`] with each token's vector scaled by `weight(id)`
    /// before the mean (e.g. an IDF computed over the texts being searched).
    pub fn embed_ids_weighted(&self, ids: &[u32], weight: impl Fn(u32) -> f32) -> Vec<f32> {
        let mut acc = vec![0f32; self.dim];
        let unk = self.tokenizer.unk_id();
        let mut n = 0usize;
        for &id in ids {
            if id == unk {
                continue;
            }
            let i = id as usize;
            let Some(row) = self.vectors.get(i * self.dim..(i + 1) * self.dim) else {
                continue;
            };
            let s = self.scales[i] * weight(id);
            for (a, &q) in acc.iter_mut().zip(row) {
                *a += f32::from(q as i8) * s;
            }
            n += 1;
        }
        if n > 0 {
            // the mean's direction is the sum's: normalising makes the division moot
            normalize(&mut acc);
        }
        acc
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Cosine similarity of two vectors (0 when either is zero or the lengths differ).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_model_decodes() {
        let m = StaticModel::from_bytes(EMBEDDED_VECTORS, EMBEDDED_VOCAB);
        let m = m.as_ref().map_err(ToString::to_string);
        assert_eq!(m.map(StaticModel::dim), Ok(246));
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        assert_eq!(
            StaticModel::from_bytes(b"nope", "a\n").err(),
            Some(ModelError::BadMagic)
        );
        let short: &'static [u8] = b"MCPDVEC1\x01\x00\x00\x00\x02\x00\x00\x00";
        assert!(matches!(
            StaticModel::from_bytes(short, "[UNK]\n"),
            Err(ModelError::BadLength { expected: 22, .. })
        ));
    }

    #[test]
    fn embeddings_are_unit_length_or_zero() {
        let m = StaticModel::embedded();
        let v = m.embed("List the issues of a repository");
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{norm}");
        assert!(m.embed("").iter().all(|&x| x == 0.0));
        assert!(m.embed("[UNK]").iter().all(|&x| x == 0.0));
        assert_eq!(cosine(&v, &m.embed("")), 0.0);
    }
}
