//! Plain-scalar resolution under the YAML 1.2.2 JSON schema (§10.2.2), as the
//! restricted profile (§15.3.3) requires.
//!
//! The JSON schema proper resolves only `null`, `true`, `false` and JSON-shaped
//! numbers, and calls every other plain scalar an error. Every MCP Description
//! example writes unquoted strings (`name: chess-coach`, `mcpdesc: 0.8.0`), so the
//! profile clearly means "anything else is a string"; that is what we do. Deliberate
//! consequences, all following the JSON schema rather than the Core schema or YAML 1.1:
//! `~`, `Null`, `NULL`, `True`, `FALSE`, `yes`, `on`, `0x1F`, `0o17`, `1_000`, `+1`,
//! `.5` and `2025-06-18` are strings.
//!
//! One deliberate exception: the YAML 1.2.2 Core-schema spellings of infinity and NaN
//! (`.inf`, `+.inf`, `-.inf`, `.Inf`, `.INF`, `.nan`, `.NaN`, `.NAN`, §10.3.2). The JSON
//! schema does not know them, but an author who writes `maximum: .inf` means a number,
//! not the string ".inf", and §15.3.3 says non-finite numbers MUST be rejected. So they
//! resolve to [`Plain::NonFinite`], which the decoder rejects (quoted, they are strings).
//!
//! One case the JSON schema leaves open is the *empty* plain scalar (an omitted
//! value, `key:`). YAML 1.2.2 §7.2 says such nodes are "commonly resolved to a null
//! value", every mainstream parser does so, and reading it as `""` would be a trap
//! for authors; we resolve it to null.

/// What a plain scalar resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plain {
    Null,
    Bool(bool),
    /// Matches the JSON-schema int or float pattern (the text is the number).
    Number,
    /// A Core-schema infinity or NaN: a number the profile cannot represent.
    NonFinite,
    Str,
}

/// Resolves the text of a plain scalar.
pub(crate) fn resolve_plain(s: &str) -> Plain {
    match s {
        "" | "null" => Plain::Null,
        "true" => Plain::Bool(true),
        "false" => Plain::Bool(false),
        _ if is_json_number(s) => Plain::Number,
        _ if is_core_non_finite(s) => Plain::NonFinite,
        _ => Plain::Str,
    }
}

/// `[-+]?(\.inf|\.Inf|\.INF)` and `\.nan|\.NaN|\.NAN`: the YAML 1.2.2 Core schema's
/// infinity and not-a-number (§10.3.2; YAML 1.1 spells them the same). Other case
/// mixes (`.iNf`) and signed NaN are strings in every YAML schema.
fn is_core_non_finite(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN")
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]*)?([eE][-+]?[0-9]+)?` — the union of the JSON schema's
/// int and float patterns (YAML 1.2.2 §10.2.2). Note `1.` is a float there.
pub(crate) fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let start = i;
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_schema_table() {
        // YAML 1.2.2 §10.2.2 examples and the brief's list of look-alikes.
        for s in ["null", ""] {
            assert_eq!(resolve_plain(s), Plain::Null, "{s:?}");
        }
        assert_eq!(resolve_plain("true"), Plain::Bool(true));
        assert_eq!(resolve_plain("false"), Plain::Bool(false));
        for s in [
            "0", "-0", "3", "-19", "0.", "-0.0", "12e03", "-2E+05", "1.5", "1e999", "1.e5",
        ] {
            assert_eq!(resolve_plain(s), Plain::Number, "{s:?}");
        }
        for s in [
            "~",
            "Null",
            "NULL",
            "True",
            "FALSE",
            "yes",
            "no",
            "on",
            "off",
            "y",
            "0.8.0",
            "0x1F",
            "0o17",
            "1_000",
            "+1",
            ".5",
            "01",
            "-",
            "1e",
            "1e+",
            ".iNf",
            "-.nan",
            "+.NaN",
            "inf",
            ".infinity",
            "2025-06-18",
            "1:20",
            "e5",
            "--1",
        ] {
            assert_eq!(resolve_plain(s), Plain::Str, "{s:?}");
        }
        for s in [
            ".inf", "+.inf", "-.inf", ".Inf", "+.Inf", "-.Inf", ".INF", "+.INF", "-.INF", ".nan",
            ".NaN", ".NAN",
        ] {
            assert_eq!(resolve_plain(s), Plain::NonFinite, "{s:?}");
        }
    }
}
