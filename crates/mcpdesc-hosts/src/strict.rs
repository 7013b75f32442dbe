//! What OpenAI structured-outputs strict mode rejects in a schema
//! ([`HostRule::Strict`](crate::HostRule::Strict)), as typed findings: `lint` phrases
//! each one as a diagnostic, fitting refuses a tool that has any (making optional
//! properties required or closing objects would change what the tool accepts).

use crate::schema::walk;
use crate::table::StrictLimits;
use serde_json::Value;

/// One reason strict mode rejects a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictIssue {
    /// `oneOf` (strict mode has `anyOf` only).
    OneOf,
    /// A `$ref` with sibling keywords (strict mode takes a bare `$ref`).
    RefWithSiblings,
    /// An object without `additionalProperties: false`.
    OpenObject,
    /// Properties not in `required` (strict mode requires every property).
    OptionalProperties(Vec<String>),
    /// A whole-schema count over a limit: `what` is "schema nesting depth", "object
    /// properties" or "enum values".
    OverLimit {
        what: &'static str,
        count: usize,
        max: usize,
    },
}

/// One finding: where (`base` + the subschema's pointer) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictFinding {
    pub pointer: String,
    pub issue: StrictIssue,
}

/// Every strict-mode finding on `schema`, whose pointer is `base`: per subschema in
/// walk order (pre-order), then the limits (reported at `base`).
pub fn findings(schema: &Value, base: &str, limits: StrictLimits) -> Vec<StrictFinding> {
    let mut out = Vec::new();
    let mut props = 0usize;
    let mut enums = 0usize;
    let mut depth = 0usize;
    let mut push = |p: &str, issue| {
        out.push(StrictFinding {
            pointer: p.to_string(),
            issue,
        })
    };
    for (p, d, s) in walk(schema, base) {
        depth = depth.max(d);
        enums += s.get("enum").and_then(Value::as_array).map_or(0, Vec::len);
        // What OpenAI's Agents SDK (`ensure_strict_json_schema`) must rewrite before
        // strict mode takes a schema: `oneOf` (strict mode has `anyOf` only) and a
        // `$ref` with sibling keywords (it inlines the target).
        if s.get("oneOf").is_some() {
            push(&p, StrictIssue::OneOf);
        }
        if s.get("$ref").is_some() && s.as_object().is_some_and(|m| m.len() > 1) {
            push(&p, StrictIssue::RefWithSiblings);
        }
        let is_object = s.get("type").and_then(Value::as_str) == Some("object")
            || s.get("properties").is_some();
        if !is_object {
            continue;
        }
        let keys: Vec<&String> = s
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        props += keys.len();
        if s.get("additionalProperties") != Some(&Value::Bool(false)) {
            push(&p, StrictIssue::OpenObject);
        }
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let optional: Vec<String> = keys
            .iter()
            .map(|k| k.as_str())
            .filter(|k| !required.contains(k))
            .map(str::to_string)
            .collect();
        if !optional.is_empty() {
            push(&p, StrictIssue::OptionalProperties(optional));
        }
    }
    for (what, count, max) in [
        ("schema nesting depth", depth, limits.max_depth),
        ("object properties", props, limits.max_properties),
        ("enum values", enums, limits.max_enum_values),
    ] {
        if count > max {
            push(base, StrictIssue::OverLimit { what, count, max });
        }
    }
    out
}
