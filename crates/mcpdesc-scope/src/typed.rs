//! Convenience wrappers over the typed model ([`mcpdesc_core::model::Document`]).
//! The scope operations work on the data model; these convert at the edges.

use crate::merge::MergeInput;
use crate::split::{SplitLoss, SplitPolicy};
use mcpdesc_core::model::Document;
use mcpdesc_core::{Diagnostic, ProtocolRevision};
use serde_json::Value;

/// [`crate::project`] on a typed document.
pub fn project_document(
    doc: &Document,
    rev: ProtocolRevision,
) -> Result<Document, Vec<Diagnostic>> {
    Document::from_value(crate::project(&doc.to_value(), rev)?)
}

/// [`crate::merge`] on typed documents, each named for diagnostics.
pub fn merge_documents(docs: &[(String, Document)]) -> Result<Document, Vec<Diagnostic>> {
    let inputs: Vec<MergeInput> = docs
        .iter()
        .map(|(n, d)| MergeInput::new(n.clone(), d.to_value()))
        .collect();
    Document::from_value(crate::merge(&inputs)?)
}

/// [`crate::merge_views`] on typed single-revision views.
pub fn merge_document_views(
    views: Vec<(ProtocolRevision, Document)>,
) -> Result<Document, Vec<Diagnostic>> {
    Document::from_value(crate::merge_views(
        views.into_iter().map(|(r, d)| (r, d.to_value())).collect(),
    )?)
}

/// [`crate::split_with`] on a typed document.
pub fn split_document(
    doc: &Document,
    policy: &SplitPolicy,
) -> Result<(Document, Vec<SplitLoss>), Vec<Diagnostic>> {
    let (v, losses) = crate::split_with(&doc.to_value(), policy)?;
    Ok((Document::from_value(v)?, losses))
}

/// [`crate::export_tools_list`] on a typed document.
pub fn export_tools_list_document(
    doc: &Document,
    rev: ProtocolRevision,
) -> Result<Value, Vec<Diagnostic>> {
    crate::export_tools_list(&doc.to_value(), rev)
}
