//! The one diagnostic type of the workspace.
//!
//! Every stage (parsing, validation, import, scopes, codegen) reports problems as
//! [`Diagnostic`]s: a severity, a stable kebab-case code, a message, the JSON pointer
//! of the offending value and, when the document came from text, its line and column.
//! Tests assert on codes and pointers, never on message prose.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The document (or input) is not acceptable.
    Error,
    /// Non-fatal: the document still conforms (spec §16.2 warning conditions).
    Warning,
    /// Purely informative.
    Info,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        })
    }
}

/// One finding about an input.
///
/// ```
/// use mcpdesc_core::{Diagnostic, Severity};
/// let d = Diagnostic::error("unknown-property", "property `foo` is not defined on Tool")
///     .at("/tools/0/foo");
/// assert_eq!(d.severity, Severity::Error);
/// assert_eq!(d.pointer, "/tools/0/foo");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable kebab-case identifier, e.g. `yaml-alias`, `overlapping-tool-scope`.
    pub code: String,
    pub message: String,
    /// RFC 6901 JSON pointer into the document ("" is the root).
    pub pointer: String,
    /// 1-based line in the source text, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column (in characters) in the source text, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code: code.into(),
            message: message.into(),
            pointer: String::new(),
            line: None,
            column: None,
        }
    }
    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }
    pub fn warning(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }
    pub fn info(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Info, code, message)
    }
    /// Sets the JSON pointer.
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = pointer.into();
        self
    }
    /// Sets the source position (1-based).
    pub fn with_position(mut self, line: u32, column: u32) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// Renders as `FILE:LINE:COL: severity[code]: message (at POINTER)`, on one line.
    ///
    /// Messages and pointers quote input (names, keys); control characters, line and
    /// paragraph separators and bidi controls in them are shown as `\u{..}` escapes, so
    /// a hostile document cannot forge further diagnostic lines or reorder the
    /// terminal's text.
    pub fn render(&self, file: &str) -> String {
        let mut s = inert(file);
        if let (Some(l), Some(c)) = (self.line, self.column) {
            s.push_str(&format!(":{l}:{c}"));
        }
        s.push_str(&format!(
            ": {}[{}]: {}",
            self.severity,
            inert(&self.code),
            inert(&self.message)
        ));
        if !self.pointer.is_empty() {
            s.push_str(&format!(" (at {})", inert(&self.pointer)));
        }
        s
    }
}

/// `text` with control, line-separator and bidi-control characters shown as `\u{..}`
/// escapes: what every one-line renderer of document-derived text uses (diagnostics
/// here, `mcpdesc diff` reports), so hostile input cannot forge lines or reorder them.
pub fn inert(text: &str) -> String {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
            )
            || ('\u{202A}'..='\u{202E}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    if !text.chars().any(unsafe_char) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render("<input>"))
    }
}

/// True when any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// Builds RFC 6901 pointers: `pointer::push("/tools/0", "a/b")` → `/tools/0/a~1b`.
pub use crate::pointer;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendering_keeps_hostile_text_on_one_inert_line() {
        let d = Diagnostic::warning("x", "name `a\nb.json: valid (0 warnings)`")
            .at("/tools/0/inputSchema/properties/\u{202E}evil\r");
        let r = d.render("in\n.json");
        assert_eq!(r.lines().count(), 1, "{r}");
        assert!(!r.contains('\u{202E}') && !r.contains('\r'), "{r}");
        assert_eq!(
            r,
            "in\\u{a}.json: warning[x]: name `a\\u{a}b.json: valid (0 warnings)` \
             (at /tools/0/inputSchema/properties/\\u{202e}evil\\u{d})"
        );
        // ordinary text is untouched
        let plain = Diagnostic::error("c", "tab-free «ünïcode» 😀").at("/a~1b");
        assert_eq!(
            plain.render("f"),
            "f: error[c]: tab-free «ünïcode» 😀 (at /a~1b)"
        );
    }
}
