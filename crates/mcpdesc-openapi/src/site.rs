//! What every part of one operation's conversion reads: where the operation is
//! ([`OpSite`]), the context all operations share ([`Shared`]), and two small readers.
//! The parts (`input`, `output`, `servers`) and their assembly (`op`) import this
//! module; it imports none of them.

use crate::security;
use mcpdesc_core::provenance::{Method, Server};
use serde_json::{Map, Value, json};

/// An operation found in `paths`.
#[derive(Debug, Clone)]
pub struct OpSite<'a> {
    pub path: &'a str,
    pub method: Method,
    /// Document and pointer of the Path Item (after following a Path Item `$ref`).
    pub item_doc: usize,
    pub item: &'a Map<String, Value>,
    /// Pointer of the operation (in `item_doc`).
    pub op_ptr: String,
    pub op: &'a Map<String, Value>,
    /// Pointer of the operation as the user sees it: `/paths/~1pets/get` in the root doc.
    pub display_ptr: String,
}

impl OpSite<'_> {
    pub fn operation_id(&self) -> Option<&str> {
        self.op
            .get("operationId")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    }
    pub fn tags(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Some(Value::Array(a)) = self.op.get("tags") {
            for t in a.iter().filter_map(Value::as_str) {
                if !t.is_empty() && !out.iter().any(|x| x == t) {
                    out.push(t.to_string());
                }
            }
        }
        out
    }
    /// Method + path (`GET /pets`), the disambiguation key for names.
    pub fn key(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
    /// Name source: `x-mcp.name`, operationId, or method + path (`get /pets`).
    pub fn raw_name(&self) -> String {
        self.op
            .get("x-mcp")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .or_else(|| self.operation_id().map(String::from))
            .unwrap_or_else(|| {
                format!(
                    "{} {}",
                    self.method.as_str().to_ascii_lowercase(),
                    self.path
                )
            })
    }
}

/// Context shared by every operation.
#[derive(Debug)]
pub struct Shared {
    /// The root's servers (operations without their own use these).
    pub root_servers: Vec<Server>,
    pub schemes: security::SchemeNames,
    /// 2.0 root `consumes` / `produces`.
    pub consumes: Vec<String>,
    pub produces: Vec<String>,
    /// Converted component schemas, shared by all operations.
    pub defs: crate::schema::DefCache,
    /// Size budget of one tool's `$defs` per direction (JSON values).
    pub schema_budget: usize,
}

/// The object form of a boolean schema (`true` → `{}`, `false` → `{"not": {}}`).
pub(crate) fn object_form(v: Value) -> Value {
    match v {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({"not": {}}),
        other => other,
    }
}

/// A list of strings of an operation (2.0 `consumes` / `produces`).
pub(crate) fn op_list(op: &Map<String, Value>, k: &str) -> Option<Vec<String>> {
    op.get(k).and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect()
    })
}
