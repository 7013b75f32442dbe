//! The BERT uncased tokenizer of all-MiniLM-L6-v2, as its `tokenizer.json` configures HF
//! `tokenizers`: special-token literals split out of the raw text, then `BertNormalizer`
//! (clean text, pad CJK ideographs, strip accents, lowercase), `BertPreTokenizer`
//! (whitespace, then each punctuation character alone) and `WordPiece` (`##`
//! continuation, words over 100 characters and words with no segmentation are `[UNK]`).
//! No `[CLS]`/`[SEP]` are added and nothing is truncated.

use std::collections::HashMap;
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

/// `[UNK]`'s id in the model's vocabulary.
pub const UNK_TOKEN: &str = "[UNK]";
/// The special tokens `tokenizer.json` lists as added tokens with `normalized: false`:
/// they are matched in the raw text, before normalisation, by their exact spelling.
pub const SPECIAL_TOKENS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
/// `max_input_chars_per_word` of the model's WordPiece.
pub const MAX_WORD_CHARS: usize = 100;
const CONTINUATION: &str = "##";

/// A WordPiece vocabulary and the BERT basic tokenizer in front of it.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    ids: HashMap<&'static str, u32>,
    tokens: Vec<&'static str>,
    unk: u32,
    specials: Vec<(&'static str, u32)>,
}

/// Why a vocabulary could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VocabError {
    /// The same token on two lines (1-based).
    Duplicate { token: String, line: usize },
    /// A special token the tokenizer needs is not in the vocabulary.
    Missing(&'static str),
}

impl std::fmt::Display for VocabError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VocabError::Duplicate { token, line } => {
                write!(f, "vocab.txt:{line}: token {token:?} appears twice")
            }
            VocabError::Missing(t) => write!(f, "vocab.txt: special token {t} is missing"),
        }
    }
}

impl std::error::Error for VocabError {}

impl Tokenizer {
    /// A tokenizer over `vocab`, one token per line, the line index being the id (the
    /// `vocab.txt` format of BERT checkpoints).
    pub fn from_vocab(vocab: &'static str) -> Result<Tokenizer, VocabError> {
        let tokens: Vec<&'static str> = vocab.lines().collect();
        let mut ids = HashMap::with_capacity(tokens.len());
        for (i, t) in tokens.iter().enumerate() {
            if ids.insert(*t, i as u32).is_some() {
                return Err(VocabError::Duplicate {
                    token: (*t).to_string(),
                    line: i + 1,
                });
            }
        }
        let mut specials = Vec::with_capacity(SPECIAL_TOKENS.len());
        for s in SPECIAL_TOKENS {
            let id = *ids.get(s).ok_or(VocabError::Missing(s))?;
            specials.push((s, id));
        }
        let unk = *ids.get(UNK_TOKEN).ok_or(VocabError::Missing(UNK_TOKEN))?;
        Ok(Tokenizer {
            ids,
            tokens,
            unk,
            specials,
        })
    }

    /// Number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    /// The id of `[UNK]`.
    pub fn unk_id(&self) -> u32 {
        self.unk
    }

    /// The token spelled by `id`, if it is in the vocabulary.
    pub fn token(&self, id: u32) -> Option<&'static str> {
        self.tokens.get(id as usize).copied()
    }

    /// The id of `token`, if it is in the vocabulary.
    pub fn id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// The token ids of `text`, as the reference tokenizer gives them with
    /// `add_special_tokens=False`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        self.encode_into(text, &mut out);
        out
    }

    /// [`Tokenizer::encode`] appending to `out` (reuses its allocation).
    pub fn encode_into(&self, text: &str, out: &mut Vec<u32>) {
        let mut rest = text;
        let mut normalized = String::new();
        let mut piece = String::new();
        while !rest.is_empty() {
            let (before, special) = self.next_special(rest);
            normalize_into(before, &mut normalized);
            for word in pre_tokenize(&normalized) {
                self.word_piece(word, &mut piece, out);
            }
            match special {
                Some((len, id)) => {
                    out.push(id);
                    rest = &rest[before.len() + len..];
                }
                None => rest = "",
            }
        }
    }

    /// The text up to the leftmost special-token literal, and that literal's length and
    /// id (none of the literals is a prefix of another, so leftmost is leftmost-longest).
    fn next_special<'t>(&self, text: &'t str) -> (&'t str, Option<(usize, u32)>) {
        let bytes = text.as_bytes();
        let mut from = 0;
        while let Some(off) = bytes[from..].iter().position(|&b| b == b'[') {
            let at = from + off;
            for (s, id) in &self.specials {
                if bytes[at..].starts_with(s.as_bytes()) {
                    return (&text[..at], Some((s.len(), *id)));
                }
            }
            from = at + 1;
        }
        (text, None)
    }

    /// Greedy longest-match-first WordPiece of one pre-tokenized word.
    fn word_piece(&self, word: &str, piece: &mut String, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let mark = out.len();
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                piece.clear();
                if start > 0 {
                    piece.push_str(CONTINUATION);
                }
                piece.push_str(&word[start..end]);
                if let Some(&id) = self.ids.get(piece.as_str()) {
                    found = Some(id);
                    break;
                }
                // step back one character
                end = word[..end]
                    .char_indices()
                    .next_back()
                    .map_or(start, |(i, _)| i);
            }
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(mark);
                    out.push(self.unk);
                    return;
                }
            }
        }
    }
}

/// `BertNormalizer` with `clean_text`, `handle_chinese_chars`, `lowercase` on and
/// `strip_accents` unset (so following `lowercase`): `out` is cleared first.
pub fn normalize_into(text: &str, out: &mut String) {
    out.clear();
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_chinese_char(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else if is_whitespace(c) {
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    for c in cleaned.nfd() {
        if get_general_category(c) == GeneralCategory::NonspacingMark {
            continue;
        }
        out.extend(c.to_lowercase());
    }
}

/// `BertPreTokenizer`: split on whitespace (dropped), then every punctuation character
/// is a word of its own.
pub fn pre_tokenize(text: &str) -> impl Iterator<Item = &str> {
    text.split(char::is_whitespace)
        .filter(|w| !w.is_empty())
        .flat_map(split_punctuation)
}

fn split_punctuation(word: &str) -> impl Iterator<Item = &str> {
    let mut rest = word;
    std::iter::from_fn(move || {
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        let end = if is_punctuation(first) {
            first.len_utf8()
        } else {
            chars
                .find(|&(_, c)| is_punctuation(c))
                .map_or(rest.len(), |(i, _)| i)
        };
        let (w, r) = rest.split_at(end);
        rest = r;
        Some(w)
    })
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Cc, Cf, Cn, Co, Cs, except tab, newline and carriage return.
fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::Unassigned
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
    )
}

/// ASCII punctuation (which includes symbols such as `$+<=>^`|~`) or a Unicode P* char.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            get_general_category(c),
            GeneralCategory::ConnectorPunctuation
                | GeneralCategory::DashPunctuation
                | GeneralCategory::OpenPunctuation
                | GeneralCategory::ClosePunctuation
                | GeneralCategory::InitialPunctuation
                | GeneralCategory::FinalPunctuation
                | GeneralCategory::OtherPunctuation
        )
}

/// The CJK Unified Ideographs blocks BERT pads with spaces.
fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizer_cleans_pads_strips_and_lowercases() {
        let mut s = String::new();
        normalize_into("Café\u{200b}日X\tY\u{0}", &mut s);
        assert_eq!(s, "cafe 日 x y");
    }

    #[test]
    fn pre_tokenizer_isolates_punctuation() {
        let words: Vec<&str> = pre_tokenize("a.b,, c$d  e").collect();
        assert_eq!(words, ["a", ".", "b", ",", ",", "c", "$", "d", "e"]);
    }
}
