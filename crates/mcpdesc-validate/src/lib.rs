//! # mcpdesc-validate
//!
//! Conformance checking of MCP Description 0.8.0 documents: the official JSON
//! Schema (structural layer) plus the semantic rules of the specification.

pub mod payload;

use mcpdesc_core::{Diagnostic, RevisionSet};
use serde_json::Value;

/// Validates a decoded document (structural + semantic rules).
pub fn validate_value(doc: &Value) -> Vec<Diagnostic> {
    let ctx = payload::PayloadCtx {
        root: doc,
        root_scope: RevisionSet::ALL,
    };
    payload::check(&ctx)
}
