//! The HTML page: one `index.html`, self-contained.
//!
//! The skeleton (head, header with the server's identity, the section frames) is the
//! askama template `templates/page.html`, HTML-escaped by askama. Declarations are
//! data: the index (every list entry and every view) and one JSON block per detail,
//! each in a `<script type="application/json">` whose text is escaped so it cannot
//! leave the element (see [`script_json`]); `assets/page.js` builds the lists from the
//! index and a detail's tables only when it is opened.
//!
//! Content-Security-Policy: `default-src 'none'`, the inline script and style allowed
//! by their SHA-256 (computed here from the exact bytes), `img-src data:`, no
//! connections, forms, base URL or plugins, and Trusted Types so that the one
//! `innerHTML` sink in the script (descriptions sanitized here by ammonia) is the only
//! one that can exist.

use crate::Error;
use crate::model::Page;
use askama::Template;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

/// The page's stylesheet (inlined verbatim; its hash is in the CSP).
pub const CSS: &str = include_str!("../assets/page.css");
/// The page's script (inlined verbatim; its hash is in the CSP).
pub const JS: &str = include_str!("../assets/page.js");

#[derive(Template)]
#[template(path = "page.html")]
struct PageHtml<'a> {
    page: &'a Page,
    csp: String,
    css: &'a str,
    js: &'a str,
    index: String,
    details: Vec<String>,
}

impl std::fmt::Debug for PageHtml<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageHtml")
            .field("title", &self.page.title)
            .finish_non_exhaustive()
    }
}

/// The Content-Security-Policy of the page.
pub fn csp() -> String {
    format!(
        "default-src 'none'; script-src '{}'; style-src '{}'; img-src data:; \
         connect-src 'none'; font-src 'none'; media-src 'none'; object-src 'none'; \
         frame-src 'none'; worker-src 'none'; manifest-src 'none'; form-action 'none'; \
         base-uri 'none'; require-trusted-types-for 'script'; trusted-types mcpdesc",
        hash_source(JS),
        hash_source(CSS)
    )
}

/// Renders the page.
pub fn render(page: &Page) -> Result<String, Error> {
    let index = script_json(&serde_json::to_string(page)?);
    let details = page
        .details
        .par_iter()
        .map(|d| serde_json::to_string(d).map(|s| script_json(&s)))
        .collect::<Result<Vec<_>, _>>()?;
    let t = PageHtml {
        page,
        csp: csp(),
        css: CSS,
        js: JS,
        index,
        details,
    };
    Ok(t.render()?)
}

/// JSON text made safe inside `<script type="application/json">`: `<`, `>`, `&` and the
/// JavaScript line terminators U+2028/U+2029 become `\u` escapes. They can only occur
/// inside JSON strings, where the escapes mean the same characters, so `</script>`
/// and `<!--` can never appear in the element's text.
pub fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    let bytes = json.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let (len, esc) = match bytes[i] {
            b'<' => (1, "\\u003c"),
            b'>' => (1, "\\u003e"),
            b'&' => (1, "\\u0026"),
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA8) => {
                (3, "\\u2028")
            }
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA9) => {
                (3, "\\u2029")
            }
            _ => {
                i += 1;
                continue;
            }
        };
        // Only ASCII bytes and whole UTF-8 sequences are cut at: slicing stays on
        // character boundaries.
        out.push_str(&json[start..i]);
        out.push_str(esc);
        i += len;
        start = i;
    }
    out.push_str(&json[start..]);
    out
}

/// A CSP hash source (`sha256-<base64>`) of an inline block's exact text.
pub fn hash_source(block: &str) -> String {
    format!("sha256-{}", base64(&Sha256::digest(block.as_bytes())))
}

/// Standard base64 with padding (RFC 4648 §4), for the 32-byte CSP hashes.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
        // sha256("") from FIPS 180-2, base64-encoded.
        assert_eq!(
            hash_source(""),
            "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        );
    }

    #[test]
    fn script_json_cannot_close_the_element() {
        let s = script_json(r#"{"a":"</script><!--&\u2028"}"#);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        let back: serde_json::Value = serde_json::from_str(&s).expect("still JSON");
        assert_eq!(back["a"], "</script><!--&\u{2028}");
    }
}
