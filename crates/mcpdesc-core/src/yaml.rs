//! Restricted YAML profile (§15.3) decoder and block-style emitter. (In progress.)

use crate::diagnostic::Diagnostic;
use crate::limits::Limits;
use crate::source::SourceMap;
use serde_json::Value;

/// Parses one restricted-profile YAML document.
pub fn parse(_text: &str, _limits: &Limits) -> Result<(Value, SourceMap), Diagnostic> {
    Err(Diagnostic::error("yaml-unsupported", "YAML decoding is not implemented yet"))
}
