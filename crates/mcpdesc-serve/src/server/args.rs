//! Argument validation: `tools/call` arguments against the tool's `inputSchema`, before
//! anything is sent upstream.
//!
//! Dialect: the schema's own `$schema` when it names one of
//! [`SUPPORTED_TOOL_SCHEMA_DIALECTS`], else [`DEFAULT_TOOL_SCHEMA_DIALECT`] (JSON Schema
//! 2020-12). Revisions from [`Feature::ToolSchemaDialect`] on define that default; earlier
//! ones define none (§9.2), and 2020-12 is what the importer writes and what the
//! validator checks named-example inputs with, so a conforming example input is always
//! accepted here. Formats are annotations (the `jsonschema` defaults per draft, the same
//! options the validator compiles tool schemas with). Nothing is fetched: an external
//! `$ref` makes the schema not compile, and such a tool's arguments go unvalidated with
//! a warning in the log (the upstream still sees only what the provenance maps).
//!
//! [`Feature::ToolSchemaDialect`]: mcpdesc_core::Feature::ToolSchemaDialect

use mcpdesc_core::revision::{DEFAULT_TOOL_SCHEMA_DIALECT, SUPPORTED_TOOL_SCHEMA_DIALECTS};
use serde_json::{Map, Value};
use std::fmt;

/// Most violations reported in one tool error (the model needs the first few).
pub const MAX_REPORTED: usize = 10;

/// A compiled `inputSchema`.
pub struct ArgsValidator {
    validator: jsonschema::Validator,
}

impl fmt::Debug for ArgsValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArgsValidator").finish_non_exhaustive()
    }
}

/// One way the arguments break the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the arguments (`""` for the arguments object itself).
    pub pointer: String,
    /// The failing schema keyword (`required`, `type`, `maximum`, …).
    pub keyword: String,
    /// JSON pointer of that keyword in the `inputSchema`.
    pub schema_pointer: String,
    pub message: String,
}

impl ArgsValidator {
    /// Compiles `schema`; the error says why it does not compile.
    pub fn compile(schema: &Value) -> Result<ArgsValidator, String> {
        let draft = dialect(schema);
        jsonschema::options()
            .with_draft(draft)
            .build(schema)
            .map(|validator| ArgsValidator { validator })
            .map_err(|e| e.to_string())
    }

    /// The violations of `arguments`, at most [`MAX_REPORTED`]; empty when valid.
    pub fn check(&self, arguments: &Map<String, Value>) -> Vec<Violation> {
        // `Value::Object` borrows nothing from the map: build the instance once.
        let instance = Value::Object(arguments.clone());
        if self.validator.is_valid(&instance) {
            return Vec::new();
        }
        self.validator
            .iter_errors(&instance)
            .take(MAX_REPORTED)
            .map(|e| {
                let schema_pointer = e.schema_path().as_str().to_string();
                let keyword = schema_pointer
                    .rsplit('/')
                    .next()
                    .map(mcpdesc_core::pointer::unescape)
                    .unwrap_or_default();
                Violation {
                    pointer: e.instance_path().as_str().to_string(),
                    keyword,
                    schema_pointer,
                    message: e.to_string(),
                }
            })
            .collect()
    }
}

/// The draft a tool schema is evaluated under.
fn dialect(schema: &Value) -> jsonschema::Draft {
    let named = schema
        .get("$schema")
        .and_then(Value::as_str)
        .filter(|u| SUPPORTED_TOOL_SCHEMA_DIALECTS.contains(u))
        .unwrap_or(DEFAULT_TOOL_SCHEMA_DIALECT);
    if named.contains("draft-07") {
        jsonschema::Draft::Draft7
    } else if named.contains("2019-09") {
        jsonschema::Draft::Draft201909
    } else {
        jsonschema::Draft::Draft202012
    }
}

/// The text of the tool error for `violations` of `tool`'s input: one line per
/// violation naming the argument and the rule, so the model can correct itself.
pub fn describe(tool: &str, violations: &[Violation]) -> String {
    let mut s = format!(
        "Invalid arguments for tool `{tool}` (checked against its inputSchema; nothing was sent):"
    );
    for v in violations {
        let at = if v.pointer.is_empty() {
            "the arguments object".to_string()
        } else {
            format!("argument `{}`", v.pointer)
        };
        s.push_str(&format!(
            "\n- {at}: {} (rule `{}` at inputSchema `{}`)",
            v.message, v.keyword, v.schema_pointer
        ));
    }
    if violations.len() >= MAX_REPORTED {
        s.push_str(&format!(
            "\n(only the first {MAX_REPORTED} problems are listed)"
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    // Expectations written from JSON Schema 2020-12 §6 (validation keywords), not
    // from the crate's output format.
    #[test]
    fn names_the_argument_and_the_rule() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "limit": {"type": "integer", "maximum": 100},
            "tag": {"type": "string", "enum": ["a", "b"]}
        }, "required": ["name"], "additionalProperties": false});
        let v = ArgsValidator::compile(&schema).expect("compiles");
        assert!(
            v.check(&args(json!({"name": "n", "limit": 100})))
                .is_empty()
        );
        let got = v.check(&args(
            json!({"name": "n", "limit": 101, "tag": "c", "extra": 1}),
        ));
        let mut pairs: Vec<(String, String)> = got
            .iter()
            .map(|x| (x.pointer.clone(), x.keyword.clone()))
            .collect();
        pairs.sort();
        assert_eq!(
            pairs,
            [
                ("".to_string(), "additionalProperties".to_string()),
                ("/limit".to_string(), "maximum".to_string()),
                ("/tag".to_string(), "enum".to_string())
            ]
        );
        let missing = v.check(&args(json!({})));
        assert_eq!(missing[0].keyword, "required");
        assert_eq!(missing[0].pointer, "");
        let text = describe("t", &got);
        assert!(
            text.contains("argument `/limit`") && text.contains("rule `maximum`"),
            "{text}"
        );
    }

    #[test]
    fn draft_07_schemas_use_draft_07() {
        // draft-07 `items` as an array is tuple validation; in 2020-12 it would be invalid.
        let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"p": {"type": "array", "items": [{"type": "string"}]}}});
        let v = ArgsValidator::compile(&schema).expect("draft-07 compiles");
        assert!(v.check(&args(json!({"p": ["x", 1]}))).is_empty());
        assert_eq!(v.check(&args(json!({"p": [1]})))[0].keyword, "type");
    }

    #[test]
    fn external_refs_do_not_compile_and_are_never_fetched() {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": "https://example.invalid/s.json"}}});
        assert!(ArgsValidator::compile(&schema).is_err());
    }
}
