//! Helpers for this crate's unit tests: minimal documents and code/pointer extraction.

use mcpdesc_core::{Diagnostic, Severity};
use serde_json::{Value, json};

/// A minimal conforming document with the given root `protocolVersions`.
pub fn base(scope: &[&str]) -> Value {
    json!({"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"}, "protocolVersions": scope})
}

fn run(doc: &Value) -> Vec<Diagnostic> {
    crate::validate_value(doc)
}

/// Pointers of the errors with `code`, in reporting order.
pub fn codes_at(doc: &Value, code: &str) -> Vec<String> {
    run(doc)
        .into_iter()
        .filter(|d| d.code == code && d.severity == Severity::Error)
        .map(|d| d.pointer)
        .collect()
}

/// Pointers of the warnings with `code`, in reporting order.
pub fn warnings_at(doc: &Value, code: &str) -> Vec<String> {
    run(doc)
        .into_iter()
        .filter(|d| d.code == code && d.severity == Severity::Warning)
        .map(|d| d.pointer)
        .collect()
}

/// All errors.
pub fn errors(doc: &Value) -> Vec<Diagnostic> {
    run(doc).into_iter().filter(Diagnostic::is_error).collect()
}

/// All warnings.
pub fn warnings(doc: &Value) -> Vec<Diagnostic> {
    run(doc)
        .into_iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect()
}
