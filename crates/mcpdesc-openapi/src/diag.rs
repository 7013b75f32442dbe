//! Diagnostics tagged with the document they point into (the root spec or a file
//! reached through a relative `$ref`). [`crate::spec::Spec::finish_diagnostics`] turns
//! them into workspace [`Diagnostic`]s with line/column and file names at the end.

use mcpdesc_core::Diagnostic;

/// Collected diagnostics: `(document index, diagnostic)`.
#[derive(Debug, Default)]
pub struct Diags {
    pub items: Vec<(usize, Diagnostic)>,
}

impl Diags {
    pub fn push(&mut self, doc: usize, d: Diagnostic) {
        self.items.push((doc, d));
    }
    pub fn warn(&mut self, doc: usize, code: &str, msg: impl Into<String>, ptr: impl Into<String>) {
        self.items
            .push((doc, Diagnostic::warning(code, msg).at(ptr)));
    }
    pub fn info(&mut self, doc: usize, code: &str, msg: impl Into<String>, ptr: impl Into<String>) {
        self.items.push((doc, Diagnostic::info(code, msg).at(ptr)));
    }
    pub fn extend(&mut self, other: Diags) {
        self.items.extend(other.items);
    }
}
