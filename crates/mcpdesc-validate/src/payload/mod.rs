//! Rules on embedded payloads: tool schemas, examples, elicitations (owned by validate-b).
use mcpdesc_core::{Diagnostic, RevisionSet};
use serde_json::Value;
/// Context for payload rules: the whole document (for $componentRef resolution) and the root scope.
pub struct PayloadCtx<'a> { pub root: &'a Value, pub root_scope: RevisionSet }
/// Runs every payload rule over the document. Called once by `validate_value`.
pub fn check(_ctx: &PayloadCtx<'_>) -> Vec<Diagnostic> { Vec::new() }
