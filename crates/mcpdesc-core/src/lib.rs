//! # mcpdesc-core
//!
//! The MCP Description 0.8.0 document model, lossless JSON and restricted-YAML
//! serialization, the table of MCP protocol revision facts, and the workspace's one
//! diagnostic type.
//!
//! This crate does no I/O: callers hand it text and get text back.

pub mod builder;
pub mod decl;
pub mod diagnostic;
pub mod emit;
pub mod html;
pub mod http;
pub mod json;
pub mod limits;
pub mod local_ref;
pub mod media;
pub mod meta;
pub mod model;
pub mod pointer;
pub mod provenance;
pub mod refs;
pub mod revision;
pub mod same_json;
pub mod schema;
pub mod secret;
pub mod skeleton;
pub mod source;
pub mod toolsets;
pub mod yaml;

pub use decl::DeclKind;
pub use diagnostic::{Diagnostic, Severity, has_errors};
pub use limits::Limits;
pub use model::Document;
pub use revision::{Feature, ObjectKind, ProtocolRevision, RevisionSet};
pub use same_json::SameJson;
pub use secret::Secret;
pub use source::{Decoded, Format, Position, SourceMap, decode, decode_bytes};

/// Decodes text and converts it to the typed model, keeping the decoded value (for
/// positions) alongside. Decode errors and model-shape errors come back with
/// line/column.
///
/// ```
/// use mcpdesc_core::{parse_document, Format, Limits};
/// let text = r#"{"mcpdesc": "0.8.0", "info": {"name": "x", "version": "1"}, "protocolVersions": ["2026-07-28"]}"#;
/// let (doc, _decoded) = parse_document(text, Format::Json, &Limits::default()).expect("valid");
/// assert_eq!(doc.info.name, "x");
/// ```
pub fn parse_document(
    text: &str,
    format: Format,
    limits: &Limits,
) -> Result<(Document, Decoded), Vec<Diagnostic>> {
    let decoded = decode(text, format, limits).map_err(|d| vec![d])?;
    match Document::from_value_ref(&decoded.value) {
        Ok(doc) => Ok((doc, decoded)),
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            Err(diags)
        }
    }
}

#[cfg(test)]
mod tests_mutants;
