//! [`Validated`]: a description the validator has accepted, as the one input type of
//! every consumer (scope, codegen, docs, diff, lint, serve).
//!
//! A `Validated` is made only by validating ([`Validator::check`],
//! [`Validator::check_decoded`]) or by a typed derivation from validated witnesses, each
//! handed only the witnesses' documents: [`Validated::projection`] (an Effective
//! Protocol View, §4.12, valid by construction) and [`Validated::composition`] (several
//! descriptions served as one). There is no way to wrap an arbitrary value. Consumers
//! take `&Validated` and never validate again: each command validates its input once.

use crate::Validator;
use mcpdesc_core::{Decoded, Diagnostic, ProtocolRevision, RevisionSet, SourceMap};
use serde_json::Value;
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A description that conforms to mcpdesc 0.8.0: no error-level diagnostic.
///
/// It keeps the validator's warnings and infos ([`Validated::diagnostics`]), the root
/// revision set and, when it was checked from a [`Decoded`] input, the source map that
/// gives its pointers a line and column ([`Validated::annotate`]).
#[derive(Debug, Clone)]
pub struct Validated<'a> {
    value: Doc<'a>,
    diagnostics: Vec<Diagnostic>,
    revisions: RevisionSet,
    positions: Option<&'a SourceMap>,
}

/// How a [`Validated`] holds its document.
#[derive(Debug, Clone)]
enum Doc<'a> {
    Borrowed(&'a Value),
    Owned(Value),
    /// Shared with other owners (a server and its backend).
    Shared(Arc<Value>),
}

impl std::ops::Deref for Doc<'_> {
    type Target = Value;
    fn deref(&self) -> &Value {
        match self {
            Doc::Borrowed(v) => v,
            Doc::Owned(v) => v,
            Doc::Shared(v) => v,
        }
    }
}

impl<'a> Validated<'a> {
    fn new(value: Doc<'a>, diagnostics: Vec<Diagnostic>) -> Self {
        let revisions = root_revisions(&value);
        Validated {
            value,
            diagnostics,
            revisions,
            positions: None,
        }
    }

    /// The document.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The validator's warnings and infos (no errors: there are none), in document
    /// order, with line:column when the handle has positions. Empty for a derived handle
    /// ([`Validated::projection`], [`Validated::composition`]), which is valid by
    /// construction and not validated again.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The revisions of root `protocolVersions` (§4.10).
    pub fn revisions(&self) -> RevisionSet {
        self.revisions
    }

    /// The source map of the text the document was decoded from, if known.
    pub fn positions(&self) -> Option<&'a SourceMap> {
        self.positions
    }

    /// Adds the document's positions to diagnostics whose pointers are into it (a
    /// no-op without positions).
    pub fn annotate(&self, diags: &mut [Diagnostic]) {
        if let Some(map) = self.positions {
            map.annotate(&self.value, diags);
        }
    }

    /// The same handle with the positions of the text `value` was decoded from; the
    /// kept diagnostics get their line:column.
    pub fn with_positions(mut self, map: &'a SourceMap) -> Self {
        self.positions = Some(map);
        map.annotate(&self.value, &mut self.diagnostics);
        self
    }

    /// Takes the diagnostics out (e.g. to print them), leaving none.
    pub fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.diagnostics)
    }

    /// The Effective Protocol View of this description at `rev` (§4.12), as `project`
    /// computes it from this handle's document, without validating it: the view of a
    /// valid source is valid (the validator checks every declaration at each revision
    /// of its scope, and projection keeps exactly the declarations of one revision, with
    /// what that revision defines). `tests/serve/protocol.rs` and `tests/scope.rs` check
    /// this on every fixture at every revision.
    ///
    /// `project` receives this handle's document and nothing else; the result is tied to
    /// `rev`, which must be one of [`Validated::revisions`] (`None` otherwise, and when
    /// `project` declines). It has no diagnostics and no positions (its pointers are not
    /// the source's).
    pub fn projection(
        &self,
        rev: ProtocolRevision,
        project: impl FnOnce(&Value) -> Option<Value>,
    ) -> Option<Validated<'static>> {
        if !self.revisions.contains(rev) {
            return None;
        }
        let view = project(&self.value)?;
        let derived = Validated::new(Doc::Owned(view), Vec::new());
        (derived.revisions == RevisionSet::single(rev)).then_some(derived)
    }

    /// The composition of several validated descriptions served as one (§4.13's rules
    /// for unscoped metadata; each member's tools under its own names): `compose`
    /// receives the members' documents, in order, and nothing else. The composition of
    /// valid descriptions is valid (`mcpdesc-serve`'s `compose` tests check it), so it is
    /// not validated again. The result is shared (a server keeps it beside its
    /// backends) and has no diagnostics and no positions. `None` without members.
    pub fn composition<E>(
        members: &[Validated<'_>],
        compose: impl FnOnce(&[&Value]) -> Result<Value, E>,
    ) -> Option<Result<Validated<'static>, E>> {
        if members.is_empty() {
            return None;
        }
        let docs: Vec<&Value> = members.iter().map(|m| m.value()).collect();
        Some(compose(&docs).map(|doc| Validated::new(Doc::Shared(Arc::new(doc)), Vec::new())))
    }

    /// A handle for `value` without validating it: only with the `fuzzing` feature,
    /// which the fuzz targets enable to drive consumers past the validator.
    #[cfg(feature = "fuzzing")]
    pub fn assume_valid(value: &'a Value) -> Validated<'a> {
        Validated::new(Doc::Borrowed(value), Vec::new())
    }

    /// The handle with its document owned (copied when borrowed); positions are dropped.
    pub fn into_owned(self) -> Validated<'static> {
        let value = match self.value {
            Doc::Borrowed(v) => Doc::Owned(v.clone()),
            Doc::Owned(v) => Doc::Owned(v),
            Doc::Shared(v) => Doc::Shared(v),
        };
        Validated {
            value,
            diagnostics: self.diagnostics,
            revisions: self.revisions,
            positions: None,
        }
    }

    /// The document, owned (copied when borrowed or shared with another owner).
    pub fn into_value(self) -> Value {
        match self.value {
            Doc::Borrowed(v) => v.clone(),
            Doc::Owned(v) => v,
            Doc::Shared(v) => Arc::unwrap_or_clone(v),
        }
    }

    /// The same handle with its document held shared (copied once when borrowed); then
    /// [`Validated::shared`] gives that one document, never a copy. Positions are
    /// dropped.
    pub fn into_shared(self) -> Validated<'static> {
        let value = match self.value {
            Doc::Shared(v) => v,
            Doc::Borrowed(v) => Arc::new(v.clone()),
            Doc::Owned(v) => Arc::new(v),
        };
        Validated {
            value: Doc::Shared(value),
            diagnostics: self.diagnostics,
            revisions: self.revisions,
            positions: None,
        }
    }

    /// The document as a shared value (copied once unless it was checked shared, see
    /// [`Validator::check_shared`]).
    pub fn shared(&self) -> Arc<Value> {
        match &self.value {
            Doc::Shared(v) => Arc::clone(v),
            other => Arc::new((**other).clone()),
        }
    }
}

impl AsRef<Value> for Validated<'_> {
    fn as_ref(&self) -> &Value {
        &self.value
    }
}

impl Validator {
    /// Validates `doc` (structural + semantic, as [`Validator::validate_value`]) and
    /// returns the handle consumers take, or every diagnostic (sorted, warnings
    /// included) when any is an error.
    pub fn check<'a>(&self, doc: &'a Value) -> Result<Validated<'a>, Vec<Diagnostic>> {
        self.check_doc(Doc::Borrowed(doc))
    }

    /// [`Validator::check`] of an owned document.
    pub fn check_owned(&self, doc: Value) -> Result<Validated<'static>, Vec<Diagnostic>> {
        self.check_doc(Doc::Owned(doc))
    }

    /// [`Validator::check`] of a shared document (a server keeps it beside its backend).
    pub fn check_shared(&self, doc: Arc<Value>) -> Result<Validated<'static>, Vec<Diagnostic>> {
        self.check_doc(Doc::Shared(doc))
    }

    /// [`Validator::check`] of a decoded input: the handle has its positions, and the
    /// diagnostics (in either case) carry line:column.
    pub fn check_decoded<'a>(
        &self,
        decoded: &'a Decoded,
    ) -> Result<Validated<'a>, Vec<Diagnostic>> {
        match self.check(&decoded.value) {
            Ok(v) => Ok(v.with_positions(&decoded.source_map)),
            Err(mut diags) => {
                decoded.annotate(&mut diags);
                Err(diags)
            }
        }
    }

    fn check_doc<'a>(&self, doc: Doc<'a>) -> Result<Validated<'a>, Vec<Diagnostic>> {
        let diagnostics = self.validate_value(&doc);
        if mcpdesc_core::has_errors(&diagnostics) {
            return Err(diagnostics);
        }
        Ok(Validated::new(doc, diagnostics))
    }
}

/// Root `protocolVersions` as a set (empty when absent or malformed).
fn root_revisions(doc: &Value) -> RevisionSet {
    doc.get("protocolVersions")
        .map_or(RevisionSet::EMPTY, RevisionSet::from_json)
}

thread_local! {
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

/// Whole-document validations in this process (every thread).
static PROCESS_RUNS: AtomicU64 = AtomicU64::new(0);

/// Counts one whole-document validation on this thread and in the process.
pub(crate) fn count_run() {
    RUNS.with(|r| r.set(r.get() + 1));
    PROCESS_RUNS.fetch_add(1, Ordering::Relaxed);
}

/// How many whole-document validations ([`Validator::validate_value`], and so
/// [`Validator::check`]) this thread has run. For tests that prove an entry point
/// taking a [`Validated`] does not validate again: read it before and after the call.
pub fn runs_on_this_thread() -> u64 {
    RUNS.with(Cell::get)
}

/// How many whole-document validations this process has run, on every thread (a
/// validation in parts, [`crate::ToolParts::finish`], is one). The `mcpdesc` binary
/// prints it when asked (`tests/validations.rs` counts each command's validations).
#[doc(hidden)]
pub fn runs_in_this_process() -> u64 {
    PROCESS_RUNS.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"},
               "protocolVersions": ["2025-06-18", "2025-11-25"],
               "tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
    }

    #[test]
    fn check_gives_a_handle_for_a_valid_document_and_counts_one_run() {
        let d = doc();
        let before = runs_on_this_thread();
        let v = Validator::new().check(&d).expect("valid");
        assert_eq!(runs_on_this_thread(), before + 1);
        assert_eq!(v.value(), &d);
        assert_eq!(v.revisions().len(), 2);
        assert!(v.positions().is_none());
        assert!(v.diagnostics().iter().all(|d| !d.is_error()));
    }

    #[test]
    fn check_refuses_with_every_diagnostic() {
        let mut d = doc();
        d["tools"] = json!([]);
        let errs = Validator::new().check(&d).expect_err("empty tools");
        assert_eq!(errs, crate::validate_value(&d));
        assert!(errs.iter().any(|e| e.code == "empty-collection"));
    }

    #[test]
    fn check_decoded_carries_positions() {
        let text = "{\n  \"mcpdesc\": \"0.8.0\",\n  \"info\": {\"name\": \"n\", \"version\": \"1\"},\n  \"protocolVersions\": [\"2026-07-28\"],\n  \"tools\": []\n}\n";
        let decoded = mcpdesc_core::decode(
            text,
            mcpdesc_core::Format::Json,
            &mcpdesc_core::Limits::default(),
        )
        .expect("decodes");
        let errs = Validator::new()
            .check_decoded(&decoded)
            .expect_err("empty tools");
        let e = errs
            .iter()
            .find(|e| e.pointer == "/tools")
            .expect("at /tools");
        assert_eq!(e.line, Some(5));
    }
}
