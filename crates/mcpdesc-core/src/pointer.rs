//! RFC 6901 JSON pointers and the URI-fragment form of RFC 6901 §6 (`#/a%20b/~1c`).
//!
//! The one home of pointer syntax in the workspace: diagnostics, the validator's
//! schema walker, the OpenAPI importer's `$ref` resolution and codegen's local-`$ref`
//! lowering all call these.

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> String {
    let mut s = String::with_capacity(token.len());
    escape_into(&mut s, token);
    s
}

/// Appends one reference token to a pointer being built, escaped: `/` then the
/// token with `~` → `~0`, `/` → `~1` (what [`push`] returns, without a new string).
///
/// ```
/// let mut p = String::from("/a");
/// mcpdesc_core::pointer::append(&mut p, "b/c~d");
/// assert_eq!(p, "/a/b~1c~0d");
/// ```
pub fn append(ptr: &mut String, token: &str) {
    ptr.push('/');
    escape_into(ptr, token);
}

/// Writes `token` escaped to the end of `out`.
fn escape_into(out: &mut String, token: &str) {
    if !token.contains(['~', '/']) {
        out.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Unescapes one reference token (`~1` → `/`, then `~0` → `~`).
pub fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Appends a token to a pointer.
pub fn push(base: &str, token: impl AsRef<str>) -> String {
    let token = token.as_ref();
    let mut s = String::with_capacity(base.len() + token.len() + 1);
    s.push_str(base);
    append(&mut s, token);
    s
}

/// Splits a pointer into unescaped tokens. `""` → `[]`.
pub fn tokens(ptr: &str) -> Vec<String> {
    if ptr.is_empty() {
        return Vec::new();
    }
    ptr.trim_start_matches('/')
        .split('/')
        .map(unescape)
        .collect()
}

/// Decodes `%XX` escapes (RFC 3986 §2.1). An invalid escape stays literal; bytes that
/// do not form UTF-8 after decoding become U+FFFD.
///
/// ```
/// use mcpdesc_core::pointer::percent_decode;
/// assert_eq!(percent_decode("/paths/~1a%7Bid%7D"), "/paths/~1a{id}");
/// assert_eq!(percent_decode("%zz%4"), "%zz%4");
/// ```
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let hex = |c: u8| (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok());
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The JSON pointer a URI fragment denotes (RFC 6901 §6): the fragment after `#`,
/// percent-decoded. Takes the fragment with or without its leading `#`.
/// `None` when the fragment is not a pointer (a plain-name anchor such as `#foo`).
///
/// ```
/// use mcpdesc_core::pointer::decode_fragment;
/// assert_eq!(decode_fragment("#/$defs/a%20b").as_deref(), Some("/$defs/a b"));
/// assert_eq!(decode_fragment("#").as_deref(), Some(""));
/// assert_eq!(decode_fragment("#anchor"), None);
/// ```
pub fn decode_fragment(fragment: &str) -> Option<String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let p = percent_decode(f);
    (p.is_empty() || p.starts_with('/')).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6901_examples() {
        // RFC 6901 §5 and §6 (hand-written from the RFC's tables).
        assert_eq!(tokens("/a~1b"), ["a/b"]);
        assert_eq!(tokens("/m~0n"), ["m~n"]);
        assert_eq!(tokens("/~01"), ["~1"]);
        assert_eq!(decode_fragment("#/c%25d").as_deref(), Some("/c%d"));
        assert_eq!(decode_fragment("#/k%22l").as_deref(), Some("/k\"l"));
        assert_eq!(decode_fragment("#/%20").as_deref(), Some("/ "));
        assert_eq!(push("/a", "b/c~"), "/a/b~1c~0");
    }

    #[test]
    fn percent_edge_cases() {
        assert_eq!(percent_decode("%4"), "%4");
        assert_eq!(percent_decode("a%"), "a%");
        assert_eq!(percent_decode("%41%42"), "AB");
        assert_eq!(percent_decode("%C3%A9"), "é");
        assert_eq!(percent_decode("%FF"), "\u{FFFD}");
    }
}
