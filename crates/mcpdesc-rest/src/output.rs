//! `--validate-output`: checks structured results against the tool's `outputSchema`,
//! as the validator checks named-example results (§9.3): under the declared `$schema`
//! or JSON Schema 2020-12 where the revision has
//! [`Feature::ToolSchemaDialect`], and, before it (no dialect defined), invalid only
//! when neither draft-07 nor 2020-12 accepts the value. Schemas compile on the first
//! call of the tool; a schema that does not compile (an external `$ref`, which is
//! never fetched) is reported once and not checked.

use mcpdesc_core::{Feature, ProtocolRevision};
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// How many violations a message lists.
const MAX_LISTED: usize = 3;

/// A tool's output schema (where it is in the served document) with its validators,
/// compiled on first use.
pub struct OutputCheck {
    doc: Arc<Value>,
    /// JSON pointer of the schema in `doc` (the tool's inline `outputSchema` or the
    /// component its `$componentRef` resolves to).
    at: String,
    v2020: OnceLock<Result<jsonschema::Validator, String>>,
    v7: OnceLock<Result<jsonschema::Validator, String>>,
}

/// The verdict on one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Valid,
    /// Violations: `instance pointer: message`.
    Invalid(Vec<String>),
    /// The schema could not be compiled (why).
    Unchecked(String),
}

impl std::fmt::Debug for OutputCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputCheck")
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

impl OutputCheck {
    /// The schema at pointer `at` of `doc`.
    pub fn new(doc: Arc<Value>, at: String) -> Self {
        OutputCheck {
            doc,
            at,
            v2020: OnceLock::new(),
            v7: OnceLock::new(),
        }
    }

    /// The schema (resolved `$componentRef`; `null` if `at` names nothing).
    pub fn schema(&self) -> &Value {
        self.doc.pointer(&self.at).unwrap_or(&Value::Null)
    }

    fn compiled(&self, draft7: bool) -> &Result<jsonschema::Validator, String> {
        let (cell, draft) = if draft7 {
            (&self.v7, jsonschema::Draft::Draft7)
        } else {
            (&self.v2020, jsonschema::Draft::Draft202012)
        };
        cell.get_or_init(|| {
            jsonschema::options()
                .with_draft(draft)
                .build(self.schema())
                .map_err(|e| format!("the outputSchema does not compile: {e}"))
        })
    }

    /// Checks `value` at `rev`.
    pub fn check(&self, value: &Value, rev: ProtocolRevision) -> Verdict {
        let v = match self.compiled(false) {
            Ok(v) => v,
            Err(e) => return Verdict::Unchecked(e.clone()),
        };
        if v.is_valid(value) {
            return Verdict::Valid;
        }
        let errors: Vec<String> = v
            .iter_errors(value)
            .take(MAX_LISTED)
            .map(|e| {
                let at = e.instance_path().as_str().to_string();
                format!("{}: {e}", if at.is_empty() { "(root)" } else { &at })
            })
            .collect();
        let declared = self.schema().get("$schema").is_some();
        if !rev.has(Feature::ToolSchemaDialect) && !declared {
            if let Ok(v7) = self.compiled(true) {
                if v7.is_valid(value) {
                    return Verdict::Valid;
                }
            }
        }
        Verdict::Invalid(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The check of `schema` held at `/s` of a document.
    fn at_s(schema: Value) -> OutputCheck {
        OutputCheck::new(Arc::new(json!({ "s": schema })), "/s".into())
    }

    #[test]
    fn verdicts() {
        let c = at_s(json!({"type": "object", "required": ["id"]}));
        assert_eq!(
            c.check(&json!({"id": 1}), ProtocolRevision::V2026_07_28),
            Verdict::Valid
        );
        match c.check(&json!({}), ProtocolRevision::V2026_07_28) {
            Verdict::Invalid(e) => assert!(e[0].starts_with("(root): "), "{e:?}"),
            other => panic!("{other:?}"),
        }
        // draft-07 `dependencies` is not a 2020-12 keyword; before ToolSchemaDialect the
        // value is invalid only if both dialects reject it.
        let c = at_s(json!({"type": "object", "items": [{"type": "string"}]}));
        let _ = c.check(&json!({}), ProtocolRevision::V2025_06_18);
        let c = at_s(json!({"$ref": "https://example.com/remote.json"}));
        assert!(matches!(
            c.check(&json!({}), ProtocolRevision::V2026_07_28),
            Verdict::Unchecked(_)
        ));
    }
}
