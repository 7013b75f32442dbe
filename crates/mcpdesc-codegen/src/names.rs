//! Identifier construction and the per-language name allocator.
//!
//! Names are built from untrusted strings in two steps: [`words`] keeps only ASCII
//! letters and digits (everything else separates words), then a case style is applied
//! and keywords are escaped. An [`Allocator`] owns one namespace and resolves
//! collisions deterministically (first come keeps the name, later ones get `2`, `3`…);
//! callers report every rename as a diagnostic.

use crate::escape;
use heck::{ToLowerCamelCase, ToSnakeCase, ToUpperCamelCase};
use std::collections::HashSet;

/// The ASCII words of `raw`, joined by spaces (non-alphanumerics separate words).
pub fn words(raw: &str) -> String {
    raw.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect::<String>()
}

fn nonempty(s: String, fallback: &str) -> String {
    if s.is_empty() {
        fallback.to_string()
    } else {
        s
    }
}

/// `snake_case` base (not keyword-escaped); digits first get a `_` prefix.
pub fn snake(raw: &str, fallback: &str) -> String {
    // Fast path for names that are already snake case (most JSON property names):
    // heck would return them unchanged, without the two allocations per call.
    if is_plain_snake(raw) {
        return raw.to_string();
    }
    let s = nonempty(words(raw).to_snake_case(), fallback);
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

/// `[a-z]+(_[a-z]+)*`: words of lowercase ASCII letters joined by single underscores.
fn is_plain_snake(raw: &str) -> bool {
    let b = raw.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b[b.len() - 1].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || *c == b'_')
        && !raw.contains("__")
}

/// `PascalCase` base; digits first get a `T` prefix.
pub fn pascal(raw: &str, fallback: &str) -> String {
    let s = nonempty(words(raw).to_upper_camel_case(), fallback);
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("T{s}")
    } else {
        s
    }
}

/// `camelCase` base; digits first get a `_` prefix.
pub fn camel(raw: &str, fallback: &str) -> String {
    let s = nonempty(words(raw).to_lower_camel_case(), fallback);
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

/// Rust identifier from a base: raw identifier for keywords, `_` suffix where raw is
/// not allowed.
pub fn rust_ident(base: &str) -> String {
    escape::rust::escape_keyword(base)
}

/// TypeScript identifier from a base: `_` suffix for reserved words.
pub fn ts_ident(base: &str) -> String {
    if escape::ts::RESERVED.contains(&base) {
        format!("{base}_")
    } else {
        base.to_string()
    }
}

/// One namespace of identifiers.
#[derive(Debug, Clone, Default)]
pub struct Allocator {
    taken: HashSet<String>,
}

impl Allocator {
    /// A namespace where `reserved` names are already taken.
    pub fn new(reserved: &[&str]) -> Self {
        Allocator {
            taken: reserved.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Claims `escape(base)`, or `escape(base + "2")`, `escape(base + "3")`… when taken.
    /// Returns the name and whether it differs from the first choice.
    pub fn claim(&mut self, base: &str, escape: impl Fn(&str) -> String) -> (String, bool) {
        let mut n = 1usize;
        loop {
            let cand = if n == 1 {
                escape(base)
            } else {
                escape(&format!("{base}{n}"))
            };
            if self.taken.insert(cand.clone()) {
                return (cand, n > 1);
            }
            n += 1;
        }
    }

    /// Whether a name is taken.
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(name)
    }
}

/// Type names the generated Rust crate uses itself (or that would shadow prelude items
/// the generated code names unqualified).
pub const RUST_RESERVED_TYPES: &[&str] = &[
    "Client",
    "Error",
    "Result",
    "Option",
    "Some",
    "None",
    "Ok",
    "Err",
    "Vec",
    "Box",
    "String",
    "Serialize",
    "Deserialize",
    "ContentBlock",
    "Default",
    "Self",
    "Decode",
];

/// Method names of the generated Rust `Client`.
pub const RUST_RESERVED_METHODS: &[&str] = &[
    "connect_stdio",
    "connect_stdio_at",
    "connect_http",
    "connect_http_at",
    "start",
    "protocol_version",
    "close",
    "call",
    "call_structured",
    "call_content",
    "service",
];

/// Type names the generated TypeScript module declares or imports, and global types
/// the generated code uses.
pub const TS_RESERVED_TYPES: &[&str] = &[
    "McpClient",
    "ToolError",
    "UnsupportedRevisionError",
    "ToolUnavailableError",
    "Decode",
    "Transport",
    "Client",
    "StdioClientTransport",
    "StreamableHTTPClientTransport",
    "CallToolResult",
    "ContentBlock",
    "Promise",
    "Record",
    "Array",
    "Object",
    "String",
    "Number",
    "Boolean",
    "Symbol",
    "Error",
    "Map",
    "Set",
    "Date",
    "JSON",
    "Math",
    "URL",
    "Partial",
    "Required",
    "Readonly",
    "Pick",
    "Omit",
    "Exclude",
    "Extract",
    "NonNullable",
    "ReturnType",
    "Parameters",
    "Awaited",
    "BigInt",
    "Function",
    "RegExp",
    "Iterable",
    "PromiseLike",
];

/// Member names of the generated TypeScript `McpClient` (and `Object.prototype`).
pub const TS_RESERVED_METHODS: &[&str] = &[
    "connectStdio",
    "connectHttp",
    "protocolVersion",
    "close",
    "constructor",
    "prototype",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "name",
    "length",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases() {
        assert_eq!(
            snake("get-structured-content", "tool"),
            "get_structured_content"
        );
        assert_eq!(
            pascal("get-structured-content", "Tool"),
            "GetStructuredContent"
        );
        assert_eq!(
            camel("get-structured-content", "tool"),
            "getStructuredContent"
        );
        assert_eq!(snake("2fa", "f"), "_2fa");
        assert_eq!(pascal("名前", "Type"), "Type");
        assert_eq!(snake("userName", "f"), snake("user_name", "f"));
    }

    /// The fast path answers exactly what heck answers for the names it accepts.
    #[test]
    fn plain_snake_fast_path_agrees_with_heck() {
        for raw in ["id", "user_name", "a_b_c", "x", "node_id", "html_url"] {
            assert!(is_plain_snake(raw), "{raw}");
            assert_eq!(nonempty(words(raw).to_snake_case(), "f"), raw);
        }
        for raw in ["", "_a", "a_", "a__b", "userName", "a1", "A", "a-b", "é"] {
            assert!(!is_plain_snake(raw), "{raw}");
        }
    }

    #[test]
    fn allocator_is_deterministic() {
        let mut a = Allocator::new(&["close"]);
        assert_eq!(a.claim("type", rust_ident), ("r#type".to_string(), false));
        assert_eq!(a.claim("type", rust_ident), ("type2".to_string(), true));
        assert_eq!(a.claim("close", rust_ident), ("close2".to_string(), true));
        assert_eq!(a.claim("self", rust_ident), ("self_".to_string(), false));
    }
}
