//! Emitting the data model: pretty JSON (2 spaces, trailing newline) and block-style
//! YAML in the restricted profile (§15.3). Both are deterministic; key order is the
//! order of the value (spec-table order for the typed model, preserved order inside
//! embedded values).

use serde_json::Value;

/// Pretty-printed JSON with a trailing newline.
pub fn to_json(value: &Value) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_string());
    s.push('\n');
    s
}

/// Block-style YAML that re-decodes to the same value.
pub fn to_yaml(value: &Value) -> String {
    crate::yaml::to_yaml_string(value)
}

/// Emits in the given format.
pub fn to_format(value: &Value, format: crate::Format) -> String {
    match format {
        crate::Format::Json => to_json(value),
        crate::Format::Yaml => to_yaml(value),
    }
}
