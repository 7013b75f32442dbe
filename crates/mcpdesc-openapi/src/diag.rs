//! Diagnostics tagged with the document they point into (the root spec or a file
//! reached through a relative `$ref`), turned into workspace [`Diagnostic`]s with
//! line/column at the end.

use crate::spec::Spec;
use mcpdesc_core::{Diagnostic, Severity};
use mcpdesc_core::{Format, SourceMap};
use std::collections::{HashMap, HashSet};

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
    pub fn has_errors(&self) -> bool {
        self.items
            .iter()
            .any(|(_, d)| d.severity == Severity::Error)
    }

    /// Adds positions, names the file for diagnostics outside the root document,
    /// removes duplicates (a component schema used by many operations is converted
    /// many times) and keeps the first occurrence order.
    pub fn finish(self, spec: Option<&Spec>) -> Vec<Diagnostic> {
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(self.items.len());
        // JSON documents decoded without positions (the fast path): decode them again
        // with the located decoder, once, when a diagnostic needs a line.
        let mut relocated: HashMap<usize, Option<(serde_json::Value, SourceMap)>> = HashMap::new();
        for (doc, mut d) in self.items {
            if let Some(spec) = spec {
                if let Some(sd) = spec.docs.get(doc) {
                    if d.line.is_none() && !d.pointer.is_empty() {
                        if let Some(sm) = &sd.source_map {
                            if let Some(p) = sm.locate(&sd.value, &d.pointer) {
                                d.line = Some(p.line);
                                d.column = Some(p.column);
                            }
                        } else if let Some((v, sm)) =
                            relocated.entry(doc).or_insert_with(|| relocate(sd, spec))
                        {
                            if let Some(p) = sm.locate(v, &d.pointer) {
                                d.line = Some(p.line);
                                d.column = Some(p.column);
                            }
                        }
                    }
                    if doc != 0 {
                        d.message = format!("in `{}`: {}", sd.display, d.message);
                    }
                }
            }
            if seen.insert((d.code.clone(), d.pointer.clone(), d.message.clone())) {
                out.push(d);
            }
        }
        out
    }
}

/// Positions for a JSON document that was decoded without them.
fn relocate(sd: &crate::spec::SourceDoc, _spec: &Spec) -> Option<(serde_json::Value, SourceMap)> {
    let path = sd.path.as_ref()?;
    let fmt = Format::detect(path.to_str(), "");
    if fmt != Format::Json {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let d = mcpdesc_core::decode_bytes(&bytes, fmt, &mcpdesc_core::Limits::default()).ok()?;
    Some((d.value, d.source_map))
}
