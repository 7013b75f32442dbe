//! Block-style YAML emitter that only produces restricted-profile documents.
//!
//! Layout: 2-space indentation, sequences indented under their key, mappings inside
//! sequences in compact `- key: v` form, empty collections as `[]`/`{}`, one trailing
//! newline. Strings are plain when that is unambiguous, a literal block (`|`, `|-`,
//! `|+`) for simple multi-line text, and double-quoted with JSON-style escapes
//! otherwise. Quoting is deliberately generous: anything YAML 1.1 or the Core schema
//! would read as a non-string (`yes`, `~`, `0x1F`, `2025-06-18`, `.inf`, `<<`) is
//! quoted too, so other YAML tools read our output exactly as we do.
//!
//! Recursion follows the depth of the value, which the decoders bound by
//! [`crate::Limits::max_depth`].

use super::resolve::{Plain, resolve_plain};
use serde_json::Value;

/// Simple keys (implicit `key:`) must fit in 1024 characters (YAML 1.2.2 §7.4);
/// longer keys use the explicit `? key` form.
const MAX_IMPLICIT_KEY_CHARS: usize = 1000;

/// Emits `value` as block-style YAML satisfying the restricted profile (§15.3).
/// Decoding the result with [`super::parse`] gives back exactly `value`.
pub fn to_yaml_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        // A root string is never a block scalar: no parent indentation to hang it on.
        Value::String(s) => {
            out.push_str(&scalar_string(s));
            out.push('\n');
        }
        other => {
            out.push_str(&inline_scalar(other).unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Text of a value that fits on the current line (scalars, `[]`, `{}`), or `None`
/// for a non-empty collection.
fn inline_scalar(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        // serde_json prints integers as-is and finite floats in shortest round-trip
        // form (`1.0`, `1e300`, `-2.5e-8`), all of which match the JSON-schema float
        // pattern and parse back to the same f64.
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_string(s),
        Value::Array(a) if a.is_empty() => "[]".into(),
        Value::Object(m) if m.is_empty() => "{}".into(),
        _ => return None,
    })
}

/// Writes a mapping whose keys sit at column `col`. The caller has already written
/// the indentation (or `- `) for the first key.
fn write_map(out: &mut String, m: &serde_json::Map<String, Value>, col: usize) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            indent(out, col);
        }
        write_key(out, k, col);
        write_value(out, v, col);
    }
}

/// Writes `key:` (or the explicit `? key` form) of a key at column `col`, whose
/// indentation the caller has written.
fn write_key(out: &mut String, k: &str, col: usize) {
    let key = scalar_string(k);
    if key.chars().count() > MAX_IMPLICIT_KEY_CHARS {
        out.push_str("? ");
        out.push_str(&key);
        out.push('\n');
        indent(out, col);
    } else {
        out.push_str(&key);
    }
    out.push(':');
}

/// Writes a sequence whose `-` sit at column `col`; the first `-` is written here,
/// after indentation already written by the caller.
fn write_seq(out: &mut String, a: &[Value], col: usize) {
    for (i, v) in a.iter().enumerate() {
        if i > 0 {
            indent(out, col);
        }
        write_item(out, v, col);
    }
}

/// Writes one sequence item whose `-` sits at column `col` (indentation written by
/// the caller).
fn write_item(out: &mut String, v: &Value, col: usize) {
    out.push('-');
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push(' ');
            write_map(out, m, col + 2);
        }
        Value::Array(inner) if !inner.is_empty() => {
            out.push(' ');
            write_seq(out, inner, col + 2);
        }
        _ => write_value(out, v, col),
    }
}

/// The YAML of a non-empty root mapping, written member by member, so a producer can
/// stream a document whose largest member (a sequence) never exists whole: the
/// pieces, concatenated in order, are exactly [`to_yaml_string`] of the whole mapping.
///
/// - a member: [`root_member`](pieces::root_member);
/// - a sequence member: [`root_key`](pieces::root_key), then for each item `"\n"` before the first
///   and [`root_seq_item`](pieces::root_seq_item) each, or [`EMPTY_SEQ`](pieces::EMPTY_SEQ) when it has none.
///
/// (A root mapping without members is `{}\n`.)
pub mod pieces {
    use super::*;

    /// `key: value` as a member of the root mapping (its lines, final newline included).
    pub fn root_member(key: &str, value: &Value) -> String {
        let mut out = String::new();
        write_key(&mut out, key, 0);
        write_value(&mut out, value, 0);
        out
    }

    /// The key of a root member whose value follows in pieces (`key:`).
    pub fn root_key(key: &str) -> String {
        let mut out = String::new();
        write_key(&mut out, key, 0);
        out
    }

    /// One item of a root member's sequence (`  - …`, final newline included).
    pub fn root_seq_item(value: &Value) -> String {
        let mut out = String::new();
        indent(&mut out, 2);
        write_item(&mut out, value, 2);
        out
    }

    /// What follows [`root_key`] when the sequence is empty.
    pub const EMPTY_SEQ: &str = " []\n";
}

/// Writes what follows `key:` or `-`: ` scalar\n`, or a nested block on the next
/// lines at `col + 2`. `col` is the column of the key or dash.
fn write_value(out: &mut String, v: &Value, col: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, col + 2);
            write_map(out, m, col + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            indent(out, col + 2);
            write_seq(out, a, col + 2);
        }
        Value::String(s) if literal_ok(s) => write_literal(out, s, col + 2),
        _ => {
            out.push(' ');
            out.push_str(&inline_scalar(v).unwrap_or_default());
            out.push('\n');
        }
    }
}

/// A literal block scalar reproduces `s` exactly when: it has a line break; it holds
/// only characters we never escape, no tab and no CR; its first line is non-empty and
/// does not start with a space (so indentation auto-detection sees our indentation);
/// and no line consists of spaces only (those confuse auto-detection too).
fn literal_ok(s: &str) -> bool {
    if !s.contains('\n')
        || s.chars()
            .any(|c| c != '\n' && (needs_escape(c) || c == '\t'))
    {
        return false;
    }
    let first = s.split('\n').next().unwrap_or("");
    if first.is_empty() || first.starts_with(' ') {
        return false;
    }
    !s.split('\n')
        .any(|l| !l.is_empty() && l.bytes().all(|b| b == b' '))
}

fn write_literal(out: &mut String, s: &str, content_col: usize) {
    let body = s.trim_end_matches('\n');
    let trailing = s.len() - body.len();
    out.push_str(match trailing {
        0 => " |-\n",
        1 => " |\n",
        _ => " |+\n",
    });
    for line in body.split('\n') {
        if !line.is_empty() {
            indent(out, content_col);
            out.push_str(line);
        }
        out.push('\n');
    }
    // Keep-chomping: the extra line breaks are empty lines after the content.
    for _ in 1..trailing {
        out.push('\n');
    }
}

/// Characters that cannot appear raw in our output: C0 controls (including line
/// breaks), DEL, C1 controls (NEL too), the Unicode line/paragraph separators, the
/// BOM and the non-characters U+FFFE/U+FFFF (outside YAML's printable set).
fn needs_escape(c: char) -> bool {
    matches!(c, '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// A string as a one-line scalar: plain when safe, double-quoted otherwise.
fn scalar_string(s: &str) -> String {
    if plain_ok(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// Whether `s` can be written as a plain scalar, in key or value position, and read
/// back as the same string by us and by YAML 1.1 / Core-schema tools.
fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if resolve_plain(s) != Plain::Str || looks_non_string_elsewhere(s) {
        return false;
    }
    // Indicators (YAML 1.2.2 §5.3) and anything else that may start something other
    // than a plain scalar, plus digits/signs/dots (numbers, dates, versions in other
    // schemas) and `~`/`=`/`<`.
    if matches!(
        first,
        '-' | '?'
            | ':'
            | ','
            | '['
            | ']'
            | '{'
            | '}'
            | '#'
            | '&'
            | '*'
            | '!'
            | '|'
            | '>'
            | '\''
            | '"'
            | '%'
            | '@'
            | '`'
            | '~'
            | '='
            | '<'
            | '.'
            | '+'
            | '0'..='9' | ' '
    ) {
        return false;
    }
    if s.ends_with([' ', ':']) || s.contains(": ") || s.contains(" #") {
        return false;
    }
    !s.chars().any(|c| needs_escape(c) || c == '\t')
}

/// Words that YAML 1.1 or the Core schema resolve to null/bool (we read them as
/// strings, others would not).
fn looks_non_string_elsewhere(s: &str) -> bool {
    s.len() <= 5
        && matches!(
            s.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
}

/// JSON-compatible double-quoted scalar: `\"`, `\\`, `\b \t \n \f \r` and `\uXXXX`
/// for every other character that [`needs_escape`].
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn layout() {
        let v = json!({
            "a": 1, "b": [1, {"c": "x", "d": []}, [2, 3]], "e": {}, "f": {"g": null},
            "h": "line1\nline2\n", "i": "yes", "j": "0.8.0", "<<": "~", "k": 1.5e300
        });
        let y = to_yaml_string(&v);
        let expected = "a: 1\nb:\n  - 1\n  - c: x\n    d: []\n  - - 2\n    - 3\ne: {}\nf:\n  g: null\nh: |\n  line1\n  line2\ni: \"yes\"\nj: \"0.8.0\"\n\"<<\": \"~\"\nk: 1.5e+300\n";
        assert_eq!(y, expected);
    }

    /// The oracle is the whole-document emitter.
    #[test]
    fn pieces_equal_the_whole_mapping() {
        let long_key = "k".repeat(MAX_IMPLICIT_KEY_CHARS + 1);
        let doc = json!({
            "a": 1, "s": "line1\nline2", "e": [], "m": {"x": [1, {"y": "yes"}]},
            "tools": [{"name": "t", "d": "two\nlines\n"}, [1, [2]], "x", {}, null],
            long_key.clone(): [{"z": 1}], "none": [], "tail": {"k": "v"}
        });
        let Value::Object(m) = &doc else {
            unreachable!()
        };
        let mut got = String::new();
        for (k, v) in m {
            match v {
                Value::Array(items) => {
                    got.push_str(&pieces::root_key(k));
                    if items.is_empty() {
                        got.push_str(pieces::EMPTY_SEQ);
                    } else {
                        got.push('\n');
                    }
                    for item in items {
                        got.push_str(&pieces::root_seq_item(item));
                    }
                }
                _ => got.push_str(&pieces::root_member(k, v)),
            }
        }
        assert_eq!(got, to_yaml_string(&doc));
    }

    #[test]
    fn quoting() {
        for s in [
            "", " a", "a ", "- a", "a: b", "a #b", "true", "True", "null", "~", "1", "1.0", "0x1F",
            "@x", "a\tb",
        ] {
            assert!(!plain_ok(s), "{s:?} must be quoted");
        }
        for s in ["a", "a-b", "https://x.y/z", "a#b", "é", "snake_case", "a:b"] {
            assert!(plain_ok(s), "{s:?} may be plain");
        }
        assert_eq!(
            double_quoted("a\"\\\n\u{1}\u{2028}"),
            "\"a\\\"\\\\\\n\\u0001\\u2028\""
        );
    }
}
