//! # mcpdesc-validate
//!
//! Conformance checking of MCP Description 0.8.0 documents (spec §16.1): the official
//! JSON Schema (structural layer, [`structural`], vendored in this crate) plus the
//! semantic rules of the specification — document-level rules in `rules`, embedded
//! payloads (tool schemas, examples, elicitations) in [`payload`], `_meta` in [`meta`].
//!
//! The semantic layer is one walk (`walk.rs`) with one context (`ctx.rs`): the
//! primitive declarations are collected once, each with its effective scope under one
//! rule (§4.10, within the parent's scope), and every rule family reads them from there.
//! Revision facts come only from [`mcpdesc_core::revision`], declaration kinds from
//! [`mcpdesc_core::DeclKind`], the `_meta` vocabulary from [`mcpdesc_core::meta`].
//!
//! The validator works on the decoded JSON data model (`serde_json::Value`, key order
//! preserved) because every rule reports a JSON pointer.
//!
//! ```
//! let doc = serde_json::json!({
//!     "mcpdesc": "0.8.0",
//!     "info": {"name": "n", "version": "1"},
//!     "protocolVersions": ["2026-07-28"],
//!     "tools": []
//! });
//! let diags = mcpdesc_validate::validate_value(&doc);
//! assert_eq!(diags[0].code, "empty-collection");
//! assert_eq!(diags[0].pointer, "/tools");
//! ```
//!
//! Consumers take a [`Validated`] handle, made by [`Validator::check`] (or
//! [`Validator::check_decoded`], which keeps the source positions): the document, its
//! warnings, its revisions and positions, and the proof it was validated, so no
//! consumer validates it again.
//!
//! Diagnostics are sorted by the position of their pointer in the document, then by code,
//! so the output is deterministic. A structural error at the same pointer as a semantic
//! error restates it and is dropped (the semantic code is the more specific one).

mod ctx;
pub mod meta;
pub mod parts;
pub mod payload;
mod rules;
mod schema_facts;
pub mod structural;
#[cfg(test)]
mod tests_rules;
#[cfg(test)]
mod tests_support;
mod validated;
mod walk;

pub use parts::{PartReport, ToolParts};
pub use rules::identifiers::{
    CatalogueEntry, EXTENSION_CATALOGUE, EXTENSION_CATALOGUE_DATE, EXTENSION_CATALOGUE_SOURCE,
    Maturity,
};
pub use structural::{StringFormat, StructuralSchema, format_holds};
pub use validated::{Validated, runs_in_this_process, runs_on_this_thread};

use mcpdesc_core::model::Document;
use mcpdesc_core::{Diagnostic, pointer};
use serde_json::Value;

/// A reusable validator. The official schema is compiled once per process (on the first
/// `Validator::new`), so constructing and copying validators is free.
#[derive(Debug, Clone, Copy)]
pub struct Validator {
    schema: &'static StructuralSchema,
}

impl Default for Validator {
    fn default() -> Self {
        Self::new()
    }
}

impl Validator {
    /// Returns the validator, compiling the embedded schema on first use.
    pub fn new() -> Self {
        Validator {
            schema: StructuralSchema::get(),
        }
    }

    /// Full check (structural + semantic), deterministically sorted.
    pub fn validate_value(&self, doc: &Value) -> Vec<Diagnostic> {
        validated::count_run();
        let (structural, semantic) = self.layers(doc);
        let mut out: Vec<Diagnostic> = structural
            .into_iter()
            .filter(|s| !is_restated(s, semantic.iter()))
            .collect();
        out.extend(semantic);
        sort_diagnostics(doc, &mut out);
        out
    }

    /// Starts a validation whose `tools` arrive in parts (see [`parts`]); `skeleton`
    /// is the document without its tools. `None` when it is not an object.
    pub fn tool_parts(&self, skeleton: Value) -> Option<ToolParts> {
        ToolParts::new(*self, skeleton)
    }

    /// Both layers, unsorted and unfiltered. Nothing semantic is said about a document
    /// that is not an object.
    fn layers(&self, doc: &Value) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        self.layers_sharing(doc, None)
    }

    /// [`Validator::layers`], deciding `$defs` members with `shared`'s verdicts when
    /// given (the parts of one document).
    fn layers_sharing(
        &self,
        doc: &Value,
        shared: Option<&schema_facts::DefVerdicts>,
    ) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        let structural = self.structural(doc);
        let semantic = match doc.as_object() {
            Some(obj) => {
                let mut cx = ctx::Ctx::new(doc, obj);
                if let Some(s) = shared {
                    cx.schemas.share(s);
                }
                walk::run(&mut cx);
                cx.finish()
            }
            None => Vec::new(),
        };
        (structural, semantic)
    }

    /// Full check of a typed document: [`Validator::validate_value`] on its JSON form.
    /// (Producers in this workspace validate the `Value` they emit directly.)
    pub fn validate(&self, doc: &Document) -> Vec<Diagnostic> {
        self.validate_value(&doc.to_value())
    }

    /// Structural layer only: the official JSON Schema.
    pub fn structural(&self, doc: &Value) -> Vec<Diagnostic> {
        self.schema.check(doc)
    }

    /// Semantic layer only (document rules + payload rules), unsorted. Assumes nothing
    /// about structural validity: rules skip values of unexpected shape.
    pub fn semantic(&self, doc: &Value) -> Vec<Diagnostic> {
        let Some(obj) = doc.as_object() else {
            return Vec::new();
        };
        let mut cx = ctx::Ctx::new(doc, obj);
        walk::run(&mut cx);
        cx.finish()
    }
}

/// Validates a decoded document (structural + semantic rules), sorted by document order.
pub fn validate_value(doc: &Value) -> Vec<Diagnostic> {
    Validator::new().validate_value(doc)
}

/// True when `diags` contains no error (warnings allowed): the document conforms.
pub fn conforms(diags: &[Diagnostic]) -> bool {
    !mcpdesc_core::has_errors(diags)
}

/// Position of a pointer in document order: the index of each token among its parent's
/// members. A token that does not exist (e.g. a missing required property) sorts after
/// the existing members of its parent.
fn order_key(doc: &Value, ptr: &str) -> Vec<usize> {
    let mut key = Vec::new();
    let mut cur = Some(doc);
    for tok in pointer::tokens(ptr) {
        let (idx, next) = match cur {
            Some(Value::Object(m)) => match m.keys().position(|k| *k == tok) {
                Some(i) => (i, m.get(&tok)),
                None => (m.len(), None),
            },
            Some(Value::Array(a)) => match tok.parse::<usize>() {
                Ok(i) if i < a.len() => (i, a.get(i)),
                _ => (a.len(), None),
            },
            _ => (usize::MAX, None),
        };
        key.push(idx);
        cur = next;
    }
    key
}

/// A structural error at the same pointer as a semantic error restates it: the
/// semantic code is the more specific one.
fn is_restated<'d>(
    structural: &Diagnostic,
    mut semantic: impl Iterator<Item = &'d Diagnostic>,
) -> bool {
    semantic.any(|m| m.is_error() && m.pointer == structural.pointer)
}

/// Sorts by document position of the pointer, then code, then message; drops exact repeats.
fn sort_diagnostics(doc: &Value, diags: &mut Vec<Diagnostic>) {
    let keyed: Vec<(Vec<usize>, Diagnostic)> = diags
        .drain(..)
        .map(|d| (order_key(doc, &d.pointer), d))
        .collect();
    diags.extend(sort_keyed(keyed));
}

/// [`sort_diagnostics`] on diagnostics that carry their order keys.
fn sort_keyed(mut keyed: Vec<(Vec<usize>, Diagnostic)>) -> Vec<Diagnostic> {
    keyed.sort_by(|(ka, a), (kb, b)| {
        ka.cmp(kb)
            .then_with(|| a.code.cmp(&b.code))
            .then_with(|| a.message.cmp(&b.message))
    });
    keyed.dedup_by(|(_, a), (_, b)| a == b);
    keyed.into_iter().map(|(_, d)| d).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn order_follows_the_document_not_the_alphabet() {
        let doc = json!({"b": {"z": 1, "a": 2}, "a": [0, 1]});
        assert!(order_key(&doc, "/b/z") < order_key(&doc, "/b/a"));
        assert!(order_key(&doc, "/b") < order_key(&doc, "/a/0"));
        assert!(order_key(&doc, "/b") < order_key(&doc, "/b/z"));
        assert!(order_key(&doc, "/b/missing") > order_key(&doc, "/b/a"));
    }

    #[test]
    fn non_object_root_stops_after_the_schema() {
        let d = validate_value(&json!([1]));
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].code.as_str(), d[0].pointer.as_str()),
            ("schema-type", "")
        );
    }

    #[test]
    fn semantic_restatement_replaces_the_schema_error() {
        let doc = json!({"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"},
                         "protocolVersions": ["2027-01-01"]});
        let d = validate_value(&doc);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            (d[0].code.as_str(), d[0].pointer.as_str()),
            ("unknown-protocol-revision", "/protocolVersions/0")
        );
    }
}
