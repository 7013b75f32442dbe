//! Normalization and shortening of one name (see the crate docs for the scheme).

use crate::translit;
use heck::ToSnakeCase;
use sha2::{Digest, Sha256};

/// Default name length limit (characters, prefix included). The MCP specification
/// allows longer names, but 64 is the limit hosts enforce in practice.
pub const DEFAULT_MAX_LEN: usize = 64;

/// The smallest budget left for a name after the prefix: a disambiguated, shortened
/// name is `head_<hash6>_tail_<hash6>` and 20 leaves head and tail 6 characters.
pub const MIN_BASE_LEN: usize = 20;

/// The smallest budget [`shorten`] can meet: `h_<hash6>_t`.
pub const MIN_SHORTEN_BUDGET: usize = HASH_LEN + 4;

/// Length of the hexadecimal content and key hashes.
pub const HASH_LEN: usize = 6;

/// Prepended when a normalized name would start with a digit (`123abc` → `n_123abc`).
pub const DIGIT_PREFIX: &str = "n_";

/// Stem of the name given when nothing usable is left (`😀` → `tool_<hash6>`).
pub const FALLBACK_STEM: &str = "tool";

/// Errors of the naming API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The prefix is not of the form `^[a-z][a-z0-9_]*$`.
    #[error(
        "name prefix `{prefix}` is not host-safe (it must match ^[a-z][a-z0-9_]*$); try `{suggestion}`"
    )]
    InvalidPrefix { prefix: String, suggestion: String },
    /// `max` leaves less than [`MIN_BASE_LEN`] characters after the prefix.
    #[error("name limit {max} is too small: with the {prefix_len}-character prefix it leaves fewer than {min} characters", min = MIN_BASE_LEN)]
    LimitTooSmall { max: usize, prefix_len: usize },
    /// Collision resolution did not converge (needs ~2^24 colliding names; never
    /// observed, but the loop is bounded instead of trusting luck).
    #[error("could not find unique names after {rounds} rounds of re-hashing")]
    Unresolvable { rounds: usize },
}

impl NameError {
    /// Stable diagnostic code.
    pub fn code(&self) -> &'static str {
        match self {
            NameError::InvalidPrefix { .. } => "name-prefix-invalid",
            NameError::LimitTooSmall { .. } => "name-limit-too-small",
            NameError::Unresolvable { .. } => "name-unresolvable",
        }
    }
}

/// Limit and prefix shared by every naming function. Validated on construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameOptions {
    max_len: usize,
    prefix: String,
}

impl Default for NameOptions {
    fn default() -> Self {
        NameOptions {
            max_len: DEFAULT_MAX_LEN,
            prefix: String::new(),
        }
    }
}

impl NameOptions {
    /// Options with limit `max_len` (prefix included) and a literal `prefix` that is
    /// prepended to every name (`""` for none).
    ///
    /// ```
    /// use mcpdesc_names::NameOptions;
    /// assert!(NameOptions::new(64, "gh_").is_ok());
    /// assert!(NameOptions::new(64, "GH-").is_err()); // suggests `gh_`
    /// assert!(NameOptions::new(30, "a_long_prefix_").is_err()); // leaves < 20
    /// ```
    pub fn new(max_len: usize, prefix: &str) -> Result<Self, NameError> {
        if !prefix.is_empty() && !is_host_safe(prefix, usize::MAX) {
            let mut suggestion = ascii_words(prefix);
            if suggestion.is_empty() {
                suggestion = "p".into();
            }
            if !suggestion.starts_with(|c: char| c.is_ascii_lowercase()) {
                suggestion.insert_str(0, DIGIT_PREFIX);
            }
            suggestion.push('_');
            return Err(NameError::InvalidPrefix {
                prefix: prefix.into(),
                suggestion,
            });
        }
        if max_len < prefix.len() + MIN_BASE_LEN {
            return Err(NameError::LimitTooSmall {
                max: max_len,
                prefix_len: prefix.len(),
            });
        }
        Ok(NameOptions {
            max_len,
            prefix: prefix.into(),
        })
    }
    /// The limit, prefix included.
    pub fn max_len(&self) -> usize {
        self.max_len
    }
    /// The literal prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
    /// Characters left for the part after the prefix.
    pub fn base_budget(&self) -> usize {
        self.max_len - self.prefix.len()
    }
}

/// Whether `name` matches `^[a-z][a-z0-9_]*$` and has at most `max` characters.
///
/// ```
/// use mcpdesc_names::is_host_safe;
/// assert!(is_host_safe("get_pet_by_id", 64));
/// assert!(!is_host_safe("getPetById", 64));
/// assert!(!is_host_safe("get-pet", 64));
/// assert!(!is_host_safe("1pet", 64));
/// assert!(!is_host_safe("pets", 3));
/// ```
pub fn is_host_safe(name: &str, max: usize) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= max
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// First `len` hex digits of SHA-256 of `input`. SHA-256 rather than a std hasher:
/// the names must not change across platforms, Rust versions or runs, and anyone can
/// recompute them (`printf %s "$input" | sha256sum | cut -c1-6`).
pub fn hash_hex(input: &str, len: usize) -> String {
    let digest = Sha256::digest(input.as_bytes());
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s.truncate(len);
    s
}

/// Step 1+2: fold to ASCII words and snake_case them (no prefix, no length limit).
/// Returns `[a-z0-9]+(_[a-z0-9]+)*` or `""`.
fn ascii_words(raw: &str) -> String {
    let chars: Vec<char> = raw.chars().collect();
    let mut ascii = String::with_capacity(raw.len());
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            ascii.push(c);
        } else if c.is_ascii() || !translit::is_combining(c) {
            let next_is_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            match (!c.is_ascii())
                .then(|| translit::fold(c, next_is_lower))
                .flatten()
            {
                Some(folded) => ascii.push_str(folded),
                None => ascii.push(' '),
            }
        }
    }
    let ascii = plural_acronyms(&ascii);
    // heck splits `aB`, `ABc` (→ `A`,`Bc`) and digit→capital (`v2Users`), never
    // letter→digit (`sha256`, `v2`). Its output on [A-Za-z0-9 ] input is [a-z0-9_].
    let snake = ascii.to_snake_case();
    let words: Vec<&str> = snake.split('_').filter(|w| !w.is_empty()).collect();
    words.join("_")
}

/// `IDs`, `URLs`, `APIs` (a capital run of 2+ followed by a lone `s`) → `Ids`, so heck
/// keeps the plural in one word (`getIDs` → `get_ids`, not `get_i_ds`).
fn plural_acronyms(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_uppercase() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_uppercase() {
            i += 1;
        }
        let plural_s = i < b.len() && b[i] == b's';
        let ends_word = b.get(i + 1).is_none_or(|n| !n.is_ascii_lowercase());
        if i - start >= 2 && plural_s && ends_word {
            for c in &mut out[start + 1..i] {
                c.make_ascii_lowercase();
            }
        }
    }
    // Only ASCII letters were changed, so the bytes are still valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// The normalized name without prefix or length limit: ASCII snake_case words,
/// `n_` before a leading digit, `tool_<hash6 of raw>` when nothing is left.
///
/// ```
/// use mcpdesc_names::normalize_base;
/// assert_eq!(normalize_base("getHTTPResponse"), "get_http_response");
/// assert_eq!(normalize_base("GET /pets/{petId}"), "get_pets_pet_id");
/// assert_eq!(normalize_base("123abc"), "n_123abc");
/// ```
pub fn normalize_base(raw: &str) -> String {
    let words = ascii_words(raw);
    if words.is_empty() {
        return format!("{FALLBACK_STEM}_{}", hash_hex(raw, HASH_LEN));
    }
    if words.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("{DIGIT_PREFIX}{words}");
    }
    words
}

/// Shortens a normalized base to at most `budget` characters (values below
/// [`MIN_SHORTEN_BUDGET`] count as that minimum):
/// `head_<hash6>_tail`, see the crate docs. Names within the budget are returned as is.
pub fn shorten(base: &str, budget: usize) -> String {
    if base.len() <= budget {
        return base.to_string();
    }
    let budget = budget.max(MIN_SHORTEN_BUDGET);
    let hash = hash_hex(base, HASH_LEN);
    let room = budget - HASH_LEN - 2;
    let words: Vec<&str> = base.split('_').filter(|w| !w.is_empty()).collect();

    // Head: whole leading words within two thirds of the room; the first word is cut
    // only when it alone does not fit.
    let head_budget = room - (room / 3).max(1);
    let mut head = String::new();
    let mut head_words = 0;
    for w in &words {
        let extra = if head.is_empty() {
            w.len()
        } else {
            w.len() + 1
        };
        if head.len() + extra > head_budget {
            break;
        }
        if !head.is_empty() {
            head.push('_');
        }
        head.push_str(w);
        head_words += 1;
    }
    if head_words == 0 {
        head = base.get(..head_budget).unwrap_or(base).to_string();
        head_words = 1;
    }

    // Tail: whole trailing words (not already in the head) in what the head left;
    // the last word's end when it alone does not fit.
    let tail_budget = room - head.len();
    let mut tail: Vec<&str> = Vec::new();
    let mut tail_len = 0;
    for w in words.iter().skip(head_words).rev() {
        let extra = if tail.is_empty() {
            w.len()
        } else {
            w.len() + 1
        };
        if tail_len + extra > tail_budget {
            break;
        }
        tail.push(w);
        tail_len += extra;
    }
    let tail = if tail.is_empty() {
        let last = words.last().copied().unwrap_or(base);
        last.get(last.len().saturating_sub(tail_budget)..)
            .unwrap_or(last)
            .to_string()
    } else {
        tail.reverse();
        tail.join("_")
    };
    format!("{head}_{hash}_{tail}")
}

/// The host-safe name for `raw`: `prefix + shorten(normalize_base(raw'))`, where `raw'`
/// is `raw` without the prefix when it already starts with it (so normalization is
/// idempotent). Always matches `^[a-z][a-z0-9_]*$` and fits `opts.max_len()`.
///
/// ```
/// use mcpdesc_names::{normalize, NameOptions};
/// let opts = NameOptions::default();
/// assert_eq!(normalize("repos/get-content", &opts), "repos_get_content");
/// let gh = NameOptions::new(64, "gh_").unwrap();
/// assert_eq!(normalize("getPetById", &gh), "gh_get_pet_by_id");
/// assert_eq!(normalize("gh_get_pet_by_id", &gh), "gh_get_pet_by_id");
/// ```
pub fn normalize(raw: &str, opts: &NameOptions) -> String {
    prefixed(&normalize_base(unprefixed(raw, opts)), opts)
}

/// `raw` without the configured prefix, if it has it.
pub(crate) fn unprefixed<'a>(raw: &'a str, opts: &NameOptions) -> &'a str {
    match raw.strip_prefix(opts.prefix()) {
        Some(rest) if !opts.prefix().is_empty() => rest,
        _ => raw,
    }
}

/// The name of a [`normalize_base`] result: the prefix, then the base shortened to fit.
pub(crate) fn prefixed(base: &str, opts: &NameOptions) -> String {
    format!("{}{}", opts.prefix(), shorten(base, opts.base_budget()))
}
