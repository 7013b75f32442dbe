//! The one escaping layer per target language.
//!
//! Descriptions are untrusted: every string from a description that reaches generated
//! code (names, descriptions, titles, enum values, defaults) passes through a function
//! of this module. Renderers cannot bypass it: untrusted text is held in
//! [`Untrusted`], which does not implement `Display`, so a template can only print it
//! through a filter that calls into this module.
//!
//! What each function guarantees:
//! - doc comments cannot be closed or broken out of (no raw line breaks in Rust `///`
//!   lines, no `*/` in JSDoc, no bare CR, no bidi overrides or control characters);
//! - Rust doc text that could be Markdown (code fences, indented code, lists) is wrapped
//!   in a ```` ```text ```` fence longer than any backtick run in it, so it can never
//!   become a doctest or trip clippy's Markdown lints;
//! - string literals are escaped (everything outside printable ASCII as a `\u` escape);
//! - identifiers are checked ([`rust::is_ident`], [`ts::is_ident`]).

use std::fmt::Write as _;

/// Text from a description. Deliberately not `Display`: templates must choose an
/// escaping filter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Untrusted(pub String);

impl Untrusted {
    /// The raw text (for escaping functions).
    pub fn raw(&self) -> &str {
        &self.0
    }
}

/// Characters that would let text reorder or hide code when displayed (the
/// "Trojan Source" set rustc lints on), plus other invisible format controls.
fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{061C}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// Splits text into display lines: every line terminator any of our target languages
/// or editors honour (`\r\n`, `\r`, `\n`, VT, FF, NEL, U+2028, U+2029) breaks a line;
/// tabs become four spaces; control and hidden characters become visible `\u{…}` text;
/// trailing whitespace is dropped; leading and trailing blank lines are dropped.
pub fn doc_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines.push(std::mem::take(&mut cur));
            }
            '\n' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                lines.push(std::mem::take(&mut cur))
            }
            '\t' => cur.push_str("    "),
            c if c.is_control() || is_hidden(c) => {
                let _ = write!(cur, "\\u{{{:X}}}", c as u32);
            }
            c => cur.push(c),
        }
    }
    lines.push(cur);
    let mut lines: Vec<String> = lines
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Rust escaping.
pub mod rust {
    use super::doc_lines;
    use std::fmt::Write as _;

    /// Strict and reserved keywords of every edition up to 2024 (including `gen`, `try`,
    /// `async`, `await`, `dyn`) and reserved-for-future words.
    pub const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
        "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do",
        "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
        "gen",
    ];

    /// Keywords that cannot be raw identifiers.
    pub const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

    /// Whether `s` is a valid Rust identifier (plain or raw), ASCII only.
    pub fn is_ident(s: &str) -> bool {
        let (raw, body) = match s.strip_prefix("r#") {
            Some(b) => (true, b),
            None => (false, s),
        };
        let mut cs = body.chars();
        let Some(first) = cs.next() else { return false };
        let shape_ok = (first.is_ascii_alphabetic() || first == '_')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
            && body != "_";
        if !shape_ok {
            return false;
        }
        if raw {
            KEYWORDS.contains(&body) && !NOT_RAW.contains(&body)
        } else {
            !KEYWORDS.contains(&body)
        }
    }

    /// Makes a keyword usable as an identifier: raw where legal, else a `_` suffix.
    pub fn escape_keyword(s: &str) -> String {
        if NOT_RAW.contains(&s) {
            format!("{s}_")
        } else if KEYWORDS.contains(&s) {
            format!("r#{s}")
        } else {
            s.to_string()
        }
    }

    /// A Rust string literal (with quotes) denoting exactly `s`.
    pub fn str_lit(s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                ' '..='~' => out.push(c),
                c => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
            }
        }
        out.push('"');
        out
    }

    /// Whether doc lines are safe to emit as plain Markdown: nothing that Markdown could
    /// turn into a code block, list, heading, link, HTML or emphasis.
    fn is_plain(lines: &[String]) -> bool {
        lines.iter().all(|l| {
            let t = l.trim_start();
            // Leading characters that open lists, headings, quotes, tables or fences.
            let starts_ok = !t.starts_with(['-', '+', '=', '>', '*', '#', '`', '~', '|'])
                && !t.starts_with(|c: char| c.is_ascii_digit());
            starts_ok
                && l.chars().all(|c| {
                    c.is_ascii_alphanumeric()
                        || matches!(
                            c,
                            ' ' | '.'
                                | ','
                                | ':'
                                | ';'
                                | '\''
                                | '"'
                                | '('
                                | ')'
                                | '/'
                                | '?'
                                | '!'
                                | '%'
                                | '+'
                                | '='
                                | '-'
                                | '@'
                                | '$'
                                | '`'
                                | '_'
                                | '*'
                                | '#'
                        )
                })
        })
    }

    /// A doc comment (`///`, or `//!` when `inner`) for `text`, each line prefixed by
    /// `indent`, ending with a newline; empty when `text` is blank.
    pub fn doc(text: &str, indent: &str, inner: bool) -> String {
        let lines = doc_lines(text);
        if lines.is_empty() {
            return String::new();
        }
        let marker = if inner { "//!" } else { "///" };
        let mut out = String::new();
        let mut line = |l: &str| {
            out.push_str(indent);
            out.push_str(marker);
            if !l.is_empty() {
                out.push(' ');
                out.push_str(l);
            }
            out.push('\n');
        };
        if is_plain(&lines) {
            for l in &lines {
                line(l.trim_start());
            }
        } else {
            let longest = lines.iter().map(|l| longest_run(l, '`')).max().unwrap_or(0);
            let fence = "`".repeat(longest.max(2) + 1);
            line(&format!("{fence}text"));
            for l in &lines {
                line(l);
            }
            line(&fence);
        }
        out
    }

    fn longest_run(s: &str, ch: char) -> usize {
        let (mut best, mut cur) = (0, 0);
        for c in s.chars() {
            if c == ch {
                cur += 1;
                best = best.max(cur);
            } else {
                cur = 0;
            }
        }
        best
    }

    /// A TOML basic string (with quotes) denoting exactly `s`.
    pub fn toml_str(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                ' '..='~' => out.push(c),
                c if (c as u32) <= 0xFFFF => {
                    let _ = write!(out, "\\u{:04X}", c as u32);
                }
                c => {
                    let _ = write!(out, "\\U{:08X}", c as u32);
                }
            }
        }
        out.push('"');
        out
    }
}

/// TypeScript escaping.
pub mod ts {
    use super::doc_lines;
    use std::fmt::Write as _;

    /// Reserved words (ECMAScript, strict mode, TypeScript contextual words that are
    /// awkward as names) — never used as bare identifiers.
    pub const RESERVED: &[&str] = &[
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "as",
        "implements",
        "interface",
        "let",
        "package",
        "private",
        "protected",
        "public",
        "static",
        "yield",
        "any",
        "boolean",
        "constructor",
        "declare",
        "get",
        "module",
        "require",
        "number",
        "set",
        "string",
        "symbol",
        "type",
        "from",
        "of",
        "async",
        "await",
        "undefined",
        "unknown",
        "never",
        "object",
        "bigint",
        "keyof",
        "readonly",
        "infer",
        "is",
        "asserts",
        "namespace",
        "abstract",
        "override",
        "satisfies",
        "accessor",
        "arguments",
        "eval",
        "__proto__",
        "prototype",
    ];

    /// Whether `s` is an ASCII identifier that is not a reserved word.
    pub fn is_ident(s: &str) -> bool {
        let mut cs = s.chars();
        let Some(first) = cs.next() else { return false };
        (first.is_ascii_alphabetic() || first == '_' || first == '$')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            && !RESERVED.contains(&s)
    }

    /// A double-quoted string literal denoting exactly `s` (everything outside printable
    /// ASCII as `\uXXXX` UTF-16 escapes, so U+2028/2029 and bidi controls are inert).
    pub fn str_lit(s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                ' '..='~' => out.push(c),
                c => {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf) {
                        let _ = write!(out, "\\u{:04x}", u);
                    }
                }
            }
        }
        out.push('"');
        out
    }

    /// A property key in a type literal: the bare name when it is a plain identifier,
    /// else a string literal.
    pub fn prop_key(wire: &str) -> String {
        let mut cs = wire.chars();
        let bare = cs
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            && wire != "__proto__"
            && wire != "constructor";
        if bare {
            wire.to_string()
        } else {
            str_lit(wire)
        }
    }

    /// A JSDoc block for `text` plus `tags` (e.g. `@deprecated`), each line prefixed by
    /// `indent`, ending with a newline; empty when there is nothing to say. `*/` cannot
    /// occur in the output body, so the comment cannot be closed early.
    pub fn doc(text: &str, indent: &str, tags: &[&str]) -> String {
        let mut lines: Vec<String> = doc_lines(text)
            .into_iter()
            .map(|l| {
                let l = l.replace("*/", "*\\/");
                // A line-leading `@` would be read as a JSDoc tag.
                if l.trim_start().starts_with('@') {
                    l.replacen('@', "\\@", 1)
                } else {
                    l
                }
            })
            .collect();
        for t in tags {
            lines.push((*t).to_string());
        }
        if lines.is_empty() {
            return String::new();
        }
        let mut out = format!("{indent}/**\n");
        for l in lines {
            out.push_str(indent);
            out.push_str(" *");
            if !l.is_empty() {
                out.push(' ');
                out.push_str(&l);
            }
            out.push('\n');
        }
        out.push_str(indent);
        out.push_str(" */\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_doc_cannot_break_out() {
        let nasty = "ok */ fn main(){}\r\nnext\u{2028}fn evil(){}\u{202E}x\u{0}\rlast";
        let d = rust::doc(nasty, "    ", false);
        for line in d.lines() {
            assert!(
                line.starts_with("    ///"),
                "line escaped the comment: {line:?}"
            );
        }
        assert!(
            !d.contains('\r')
                && !d.contains('\u{2028}')
                && !d.contains('\u{202E}')
                && !d.contains('\0')
        );
        assert!(d.contains("\\u{202E}"));
    }

    #[test]
    fn rust_doc_fences_markdown() {
        let d = rust::doc("run:\n```\nstd::process::exit(42)\n````", "", false);
        assert!(d.starts_with("/// `````text\n"), "{d}");
        assert!(d.ends_with("/// `````\n"), "{d}");
        assert_eq!(
            rust::doc("Plain words, fine.", "", false),
            "/// Plain words, fine.\n"
        );
        assert_eq!(rust::doc("  \n ", "", false), "");
    }

    #[test]
    fn string_literals() {
        assert_eq!(
            rust::str_lit("a\"b\\c\n\u{2028}"),
            "\"a\\\"b\\\\c\\n\\u{2028}\""
        );
        assert_eq!(
            ts::str_lit("a\"`${x}\u{2028}😀"),
            "\"a\\\"`${x}\\u2028\\ud83d\\ude00\""
        );
        assert_eq!(rust::toml_str("a\"\u{7}"), "\"a\\\"\\u0007\"");
    }

    #[test]
    fn jsdoc_cannot_close() {
        let d = ts::doc(
            "a */ process.exit(42) /*\u{2029}@deprecated",
            "  ",
            &["@deprecated"],
        );
        assert!(!d[..d.len() - 5].contains("*/"), "{d}");
        assert!(d.contains("\\@deprecated"));
        assert!(d.ends_with("  */\n"));
    }

    #[test]
    fn idents() {
        assert!(rust::is_ident("r#type") && rust::is_ident("foo_bar") && !rust::is_ident("r#self"));
        assert!(
            !rust::is_ident("type")
                && !rust::is_ident("a-b")
                && !rust::is_ident("1a")
                && !rust::is_ident("_")
        );
        assert_eq!(rust::escape_keyword("self"), "self_");
        assert_eq!(rust::escape_keyword("gen"), "r#gen");
        assert!(ts::is_ident("fooBar") && !ts::is_ident("constructor") && !ts::is_ident("a-b"));
        assert_eq!(ts::prop_key("a-b"), "\"a-b\"");
        assert_eq!(ts::prop_key("__proto__"), "\"__proto__\"");
    }
}
