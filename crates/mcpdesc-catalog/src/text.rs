//! The one text analyzer of the search: identifiers and prose → index terms.
//!
//! Words are runs of letters and digits; each word is split again at identifier
//! boundaries (`listRepoIssues` → `list`, `Repo`, `Issues`; `HTTPServer` → `HTTP`,
//! `Server`; `v2beta` → `v`, `2`, `beta`), lower-cased, dropped when a stop word, and
//! stemmed with the Snowball English stemmer (Porter2), so `issues`, `issue` and `issued`
//! meet. Queries and documents go through the same function.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;

/// English function words that carry no intent in a request or an API text. Kept short
/// on purpose: words such as `get`, `list`, `create`, `all`, `new` or `first` are what
/// tell two operations of the same resource apart, so they are terms, not stop words.
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do",
    "does", "for", "from", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me",
    "my", "of", "on", "or", "our", "please", "should", "so", "some", "that", "the", "their",
    "them", "then", "there", "these", "this", "those", "to", "us", "was", "we", "were", "what",
    "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

fn stemmer() -> &'static Stemmer {
    static S: OnceLock<Stemmer> = OnceLock::new();
    S.get_or_init(|| Stemmer::create(Algorithm::English))
}

fn is_stop(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The longest word indexed (longer runs are cut): bounds the work per hostile token.
const MAX_WORD: usize = 64;

/// Words analyzed per thread before the memo is cleared (bounds its memory; a catalog's
/// vocabulary is a few tens of thousands of words).
const MEMO_WORDS: usize = 100_000;

thread_local! {
    /// Lower-cased word → its term (`None`: a stop word). Stemming is most of the work
    /// of indexing a catalog, and a catalog repeats its words (`repo`, `owner`, `list`)
    /// across every tool.
    static MEMO: std::cell::RefCell<std::collections::HashMap<String, Option<String>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Calls `f` with the term of the lower-cased word `lower`, unless it is a stop word.
fn with_term(lower: &str, f: &mut dyn FnMut(&str)) {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        // One hash of the word when it is known (the common case), two when it is new.
        if let Some(t) = m.get(lower) {
            if let Some(t) = t {
                f(t);
            }
            return;
        }
        let t = (!is_stop(lower))
            .then(|| stemmer().stem(lower).into_owned())
            .filter(|s| !s.is_empty());
        if let Some(t) = &t {
            f(t);
        }
        if m.len() >= MEMO_WORDS {
            m.clear();
        }
        m.insert(lower.to_string(), t);
    })
}

/// Calls `f` with every term of `text`, in order. The term is borrowed for the call
/// only: indexing a catalog allocates per distinct word, not per occurrence.
pub fn terms(text: &str, mut f: impl FnMut(&str)) {
    // The current word, lower-cased as it grows, and its length in UTF-8 bytes before
    // lower-casing (what MAX_WORD bounds).
    let mut lower = String::new();
    let mut len = 0usize;
    let mut flush = |lower: &mut String, len: &mut usize| {
        if !lower.is_empty() {
            with_term(lower, &mut f);
            lower.clear();
        }
        *len = 0;
    };
    // The previous character of the current run of letters and digits.
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            flush(&mut lower, &mut len);
            prev = None;
            continue;
        }
        if let Some(p) = prev
            && boundary(p, c, chars.peek().copied())
        {
            flush(&mut lower, &mut len);
        }
        if len < MAX_WORD {
            if c.is_ascii() {
                lower.push(c.to_ascii_lowercase());
            } else {
                lower.extend(c.to_lowercase());
            }
            len += c.len_utf8();
        }
        prev = Some(c);
    }
    flush(&mut lower, &mut len);
}

/// Whether an identifier word ends between `prev` and `c` (`next` follows `c`).
fn boundary(prev: char, c: char, next: Option<char>) -> bool {
    (prev.is_lowercase() && c.is_uppercase())
        || (prev.is_alphabetic() && c.is_numeric())
        || (prev.is_numeric() && c.is_alphabetic())
        // `HTTPServer`: the last capital of a run starts the next word.
        || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
}

/// Every term of `text`, in order.
pub fn analyze(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    terms(text, |t| out.push(t.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn identifiers_split_at_their_boundaries() {
        assert_eq!(analyze("listRepoIssues"), ["list", "repo", "issu"]);
        assert_eq!(analyze("repos_list_for_org"), ["repo", "list", "org"]);
        assert_eq!(analyze("HTTPServer"), ["http", "server"]);
        assert_eq!(analyze("oauth2Token"), ["oauth", "2", "token"]);
        assert_eq!(
            analyze("/repos/{owner}/{repo}/pulls"),
            ["repo", "owner", "repo", "pull"]
        );
        assert_eq!(
            analyze("get-structured-content"),
            ["get", "structur", "content"]
        );
    }

    #[test]
    fn prose_is_stemmed_and_stop_words_dropped() {
        // Porter2: "directed" and "director" differ, "movies" and "movie" meet.
        assert_eq!(analyze("Who directed the movies?"), ["direct", "movi"]);
        assert_eq!(analyze("the movie"), ["movi"]);
        assert!(analyze("of the and to").is_empty());
        assert!(analyze("").is_empty());
        assert!(analyze("  \u{200b} !!").is_empty());
    }

    #[test]
    fn hostile_words_are_bounded() {
        let long = "a".repeat(100_000);
        let t = analyze(&long);
        assert_eq!(t.len(), 1);
        assert!(t[0].len() <= MAX_WORD);
        // The cut counts the word's bytes: 32 two-byte letters.
        let wide = "é".repeat(100);
        assert_eq!(analyze(&wide), ["é".repeat(MAX_WORD / 2)]);
    }
}
