//! Structural layer: the official mcpdesc 0.8.0 JSON Schema (§16.1 item 7).
//!
//! The schema is vendored in this crate (`schema/mcp-description-0.8.0.schema.json`, so
//! the crate packages on its own), byte for byte the official file that the workspace
//! also vendors with the fixtures in `tests/fixtures/spec/` (from mcpdesc/mcpdesc.org, see
//! its `SOURCE.md`; `tests/conformance.rs` checks the two copies are identical). It is
//! embedded at build time and compiled once per process. Every `$ref` in it is local (`#/$defs/...`) and the
//! 2020-12 meta-schema is bundled by `jsonschema`, so compilation never needs a retriever;
//! we still install the offline retriever so that nothing could ever fetch (§4.7).
//!
//! Raw `jsonschema` errors are mapped to diagnostics with stable codes. `oneOf`/`anyOf`
//! failures are reduced to the errors of the branch the instance most plausibly meant, so a
//! stdio transport without `command` reports "missing `command`", not three shape failures.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ValidationError};
use mcpdesc_core::{Diagnostic, pointer};
use serde_json::Value;
use std::sync::OnceLock;

/// The official schema text, byte-for-byte as published.
pub const SCHEMA_TEXT: &str = include_str!("../schema/mcp-description-0.8.0.schema.json");

/// The schema's root `$id`.
pub const SCHEMA_ID: &str = "https://mcpdesc.org/schema/mcp-description/0.8.0.json";

/// Upper bound on nested `oneOf`/`anyOf` reduction (the schema nests a handful deep).
const MAX_BRANCH_DEPTH: usize = 32;

/// The compiled official schema.
pub struct StructuralSchema {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for StructuralSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StructuralSchema")
            .field("id", &SCHEMA_ID)
            .finish()
    }
}

impl StructuralSchema {
    /// The process-wide compiled schema (compiled on first use).
    pub fn get() -> &'static StructuralSchema {
        static SCHEMA: OnceLock<StructuralSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            // The embedded schema is a build-time constant checked by this crate's tests;
            // failure here is a packaging bug, not an input problem.
            #[allow(clippy::expect_used)]
            let schema: Value =
                serde_json::from_str(SCHEMA_TEXT).expect("embedded mcpdesc schema is valid JSON");
            #[allow(clippy::expect_used)]
            let validator = jsonschema::options()
                .with_draft(Draft::Draft202012)
                .should_validate_formats(true)
                .offline()
                .build(&schema)
                .expect("embedded mcpdesc schema compiles");
            StructuralSchema { validator }
        })
    }

    /// True when the document satisfies the schema (fast path, no error collection).
    pub fn is_valid(&self, doc: &Value) -> bool {
        self.validator.is_valid(doc)
    }

    /// Schema diagnostics for `doc`, most specific branch only for `oneOf`/`anyOf`.
    pub fn check(&self, doc: &Value) -> Vec<Diagnostic> {
        if self.validator.is_valid(doc) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for err in self.validator.iter_errors(doc) {
            map_error(&err, 0, &mut out);
        }
        out.sort_by(|a, b| (&a.pointer, &a.code).cmp(&(&b.pointer, &b.code)));
        out.dedup_by(|a, b| a.pointer == b.pointer && a.code == b.code && a.message == b.message);
        out
    }
}

/// A string `format` the official schema asserts (it uses exactly these two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringFormat {
    /// `format: email` (Contact `email`).
    Email,
    /// `format: uri` (URLs in info, security flows, icons, ...).
    Uri,
}

/// Whether `value` satisfies `format` exactly as [`StructuralSchema`] checks it: the same
/// validator crate, draft and options, so a producer that copies a string from its input
/// (an importer copying `info.contact.email`) can keep it only when the output will
/// conform. A hand-written approximation drifted from the validator twice (fuzzer
/// findings: a 100-character domain label, quotes in a domain).
pub fn format_holds(format: StringFormat, value: &str) -> bool {
    static EMAIL: OnceLock<jsonschema::Validator> = OnceLock::new();
    static URI: OnceLock<jsonschema::Validator> = OnceLock::new();
    let (cell, name) = match format {
        StringFormat::Email => (&EMAIL, "email"),
        StringFormat::Uri => (&URI, "uri"),
    };
    cell.get_or_init(|| {
        // A two-keyword constant schema: failure is a packaging bug, not an input problem.
        #[allow(clippy::expect_used)]
        jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .offline()
            .build(&serde_json::json!({"type": "string", "format": name}))
            .expect("a format schema compiles")
    })
    .is_valid(&Value::String(value.to_string()))
}

fn instance_pointer(err: &ValidationError<'_>) -> String {
    err.instance_path().as_str().to_string()
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expected_types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => t.to_string(),
        TypeKind::Multiple(set) => {
            let v: Vec<String> = set.iter().map(|t| t.to_string()).collect();
            v.join(" or ")
        }
    }
}

fn map_error(err: &ValidationError<'_>, level: usize, out: &mut Vec<Diagnostic>) {
    let ptr = instance_pointer(err);
    let instance = err.instance();
    match err.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            for prop in unexpected {
                let (code, what) = if prop.starts_with("x-") {
                    ("extension-not-allowed", "specification extension")
                } else {
                    ("unknown-property", "property")
                };
                out.push(
                    Diagnostic::error(
                        code,
                        format!("{what} `{prop}` is not allowed on this object (§3.8, §14.2)"),
                    )
                    .at(pointer::push(&ptr, prop)),
                );
            }
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            out.push(
                Diagnostic::error(
                    "schema-required",
                    format!("required property `{name}` is missing"),
                )
                .at(pointer::push(&ptr, name)),
            );
        }
        ValidationErrorKind::Type { kind } => out.push(
            Diagnostic::error(
                "schema-type",
                format!(
                    "expected {}, found {}",
                    expected_types(kind),
                    type_name(instance)
                ),
            )
            .at(ptr),
        ),
        ValidationErrorKind::Enum { options } => out.push(
            Diagnostic::error("schema-enum", format!("{instance} is not one of {options}")).at(ptr),
        ),
        ValidationErrorKind::Constant { expected_value } => out.push(
            Diagnostic::error(
                "schema-const",
                format!("{instance} is not {expected_value}"),
            )
            .at(ptr),
        ),
        ValidationErrorKind::PropertyNames { error } => {
            // The inner error's instance is the offending key; point at that member.
            let key = error.instance().as_str().unwrap_or_default().to_string();
            out.push(
                Diagnostic::error(
                    "schema-property-name",
                    format!("property name `{key}` does not match the required pattern"),
                )
                .at(pointer::push(&ptr, &key)),
            );
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            if level >= MAX_BRANCH_DEPTH || context.is_empty() {
                out.push(
                    Diagnostic::error("schema-shape", "value matches none of the allowed shapes")
                        .at(ptr),
                );
                return;
            }
            // Depth of the instance the `oneOf`/`anyOf` applies to.
            let base = depth(err);
            let best = best_branch(context, base);
            if context[best].is_empty() {
                out.push(
                    Diagnostic::error("schema-shape", "value matches none of the allowed shapes")
                        .at(ptr),
                );
                return;
            }
            // When even the best branch is another shape, only its discriminator problem
            // is worth reporting (not the members that shape would also need).
            let branch = &context[best];
            let all_mismatch = branch_key(branch, base).0;
            for e in branch
                .iter()
                .filter(|e| !all_mismatch || is_mismatch(e, base))
            {
                map_error(e, level + 1, out);
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => out.push(
            Diagnostic::error(
                "schema-one-of",
                "value matches more than one of the exclusive shapes",
            )
            .at(ptr),
        ),
        ValidationErrorKind::MinItems { limit } => out.push(
            Diagnostic::error(
                "schema-min-items",
                format!("array must have at least {limit} item(s)"),
            )
            .at(ptr),
        ),
        ValidationErrorKind::MinProperties { limit } => out.push(
            Diagnostic::error(
                "schema-min-properties",
                format!("object must have at least {limit} member(s)"),
            )
            .at(ptr),
        ),
        ValidationErrorKind::UniqueItems => {
            out.push(Diagnostic::error("schema-unique-items", "array items must be unique").at(ptr))
        }
        ValidationErrorKind::Format { format } => out.push(
            Diagnostic::error(
                "schema-format",
                format!("{instance} is not a valid `{format}`"),
            )
            .at(ptr),
        ),
        ValidationErrorKind::Pattern { pattern } => out.push(
            Diagnostic::error(
                "schema-pattern",
                format!("{instance} does not match `{pattern}`"),
            )
            .at(ptr),
        ),
        ValidationErrorKind::FalseSchema => {
            out.push(Diagnostic::error("schema-not-allowed", "no value is allowed here").at(ptr))
        }
        ValidationErrorKind::Not { schema } => {
            // The schema uses `not: {required: [p]}` to forbid one member in a branch
            // (form elicitations without `url`, inline values without `$componentRef`):
            // point at that member.
            let forbidden = schema
                .get("required")
                .and_then(Value::as_array)
                .filter(|r| r.len() == 1)
                .and_then(|r| r[0].as_str());
            match forbidden {
                Some(p) if instance.get(p).is_some() => out.push(
                    Diagnostic::error("schema-not", format!("`{p}` must not be present here"))
                        .at(pointer::push(&ptr, p)),
                ),
                _ => out.push(
                    Diagnostic::error("schema-not", "value has a form that is excluded here")
                        .at(ptr),
                ),
            }
        }
        other => {
            let keyword = other.keyword().to_string();
            out.push(
                Diagnostic::error(format!("schema-{}", kebab(&keyword)), err.to_string()).at(ptr),
            );
        }
    }
}

/// camelCase keyword → kebab-case code suffix.
fn kebab(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        }
    }
    out
}

/// Picks the branch of a failed `oneOf`/`anyOf` the instance most plausibly meant.
///
/// A branch whose discriminator (`const`/`enum` on a direct member, or the instance's own
/// type) does not match is a different shape, not a broken instance of it; among the
/// remaining branches, the one with the fewest errors wins, then the deepest.
fn best_branch(context: &[Vec<ValidationError<'static>>], base: usize) -> usize {
    let mut best = 0;
    let mut best_key = (true, usize::MAX, 0usize);
    for (i, errs) in context.iter().enumerate() {
        let key = branch_key(errs, base);
        let better = (key.0, key.1, std::cmp::Reverse(key.2))
            < (best_key.0, best_key.1, std::cmp::Reverse(best_key.2));
        if i == 0 || better {
            best = i;
            best_key = key;
        }
    }
    best
}

fn depth(e: &ValidationError<'_>) -> usize {
    e.instance_path().as_str().matches('/').count()
}

/// Whether an error says "this is another shape" rather than "this shape is broken":
/// a discriminator (`const`/`enum` on the instance or a direct member), the instance's
/// own type, a Reference Object vs inline value, or a member the branch forbids.
fn is_mismatch(e: &ValidationError<'_>, base: usize) -> bool {
    let d = depth(e);
    match e.kind() {
        ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. } => d <= base + 1,
        ValidationErrorKind::Type { .. } => d == base,
        ValidationErrorKind::Required { property } => {
            d == base && property.as_str() == Some("$componentRef")
        }
        ValidationErrorKind::Not { .. } => d == base,
        _ => false,
    }
}

fn branch_key(errs: &[ValidationError<'static>], base: usize) -> (bool, usize, usize) {
    let mismatch = errs.iter().any(|e| is_mismatch(e, base));
    let max_depth = errs.iter().map(depth).max().unwrap_or(0);
    (mismatch, errs.len(), max_depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(doc: &Value) -> Vec<(String, String)> {
        StructuralSchema::get()
            .check(doc)
            .into_iter()
            .map(|d| (d.code, d.pointer))
            .collect()
    }

    fn base() -> Value {
        json!({"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"}, "protocolVersions": ["2026-07-28"]})
    }

    #[test]
    fn schema_compiles_and_accepts_minimal_document() {
        assert!(StructuralSchema::get().is_valid(&base()));
    }

    /// `format_holds` agrees with the whole-schema check at the two places the schema
    /// asserts a format, on strings either side of each rule (hand-picked: RFC 5321/1035
    /// label lengths, quotes, spaces, relative references).
    #[test]
    fn format_holds_agrees_with_the_official_schema() {
        let long_label = format!("a@{}.com", "x".repeat(64));
        let max_label = format!("a@{}.com", "x".repeat(63));
        let emails = [
            "a@b.io",
            "first.last@example.com",
            "a.b.io",
            "pets@examp\"swagger\"le.com",
            long_label.as_str(),
            max_label.as_str(),
            "a b@c.io",
            "",
        ];
        for e in emails {
            let mut doc = base();
            doc["info"]["contact"] = json!({"email": e});
            assert_eq!(
                format_holds(StringFormat::Email, e),
                StructuralSchema::get().is_valid(&doc),
                "email {e:?}"
            );
        }
        assert!(format_holds(StringFormat::Email, "a@b.io"));
        assert!(!format_holds(StringFormat::Email, &long_label));
        let uris = [
            "https://x.io/a?b=c#d",
            "https://x.io/o\"boolean\"orize",
            "https://x.io/a b",
            "/relative/only",
            "urn:isbn:0451450523",
            "https://[::1",
        ];
        for u in uris {
            let mut doc = base();
            doc["info"]["websiteUrl"] = json!(u);
            assert_eq!(
                format_holds(StringFormat::Uri, u),
                StructuralSchema::get().is_valid(&doc),
                "uri {u:?}"
            );
        }
        assert!(format_holds(StringFormat::Uri, "https://x.io/a?b=c#d"));
        assert!(!format_holds(StringFormat::Uri, "/relative/only"));
    }

    #[test]
    fn transport_one_of_reports_the_meant_branch() {
        let mut doc = base();
        doc["transports"] = json!([{"type": "stdio", "args": []}]);
        assert_eq!(
            codes(&doc),
            vec![("schema-required".into(), "/transports/0/command".into())]
        );
    }

    #[test]
    fn unknown_and_extension_properties_on_closed_objects() {
        let mut doc = base();
        doc["info"]["acme"] = json!(1);
        doc["tools"] =
            json!([{"name": "t", "inputSchema": {"type": "object"}, "acmeRisk": "high"}]);
        let c = codes(&doc);
        assert!(
            c.contains(&("unknown-property".into(), "/info/acme".into())),
            "{c:?}"
        );
        assert!(
            c.contains(&("unknown-property".into(), "/tools/0/acmeRisk".into())),
            "{c:?}"
        );
    }

    #[test]
    fn property_name_errors_point_at_the_key() {
        let mut doc = base();
        doc["securitySchemes"] = json!({"bad name": {"type": "http", "scheme": "bearer"}});
        assert_eq!(
            codes(&doc),
            vec![(
                "schema-property-name".into(),
                "/securitySchemes/bad name".into()
            )]
        );
    }

    #[test]
    fn reference_objects_take_no_extensions() {
        let mut doc = base();
        doc["components"] = json!({"schemas": {"A": {"type": "object"}}});
        doc["tools"] = json!([{"name": "t",
            "inputSchema": {"$componentRef": "#/components/schemas/A", "x-a": 1}}]);
        assert_eq!(
            codes(&doc),
            vec![(
                "extension-not-allowed".into(),
                "/tools/0/inputSchema/x-a".into()
            )]
        );
    }

    #[test]
    fn forbidden_member_of_a_branch_is_pointed_at() {
        let mut doc = base();
        doc["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"},
            "elicitations": [{"name": "e", "mode": "form", "message": "m",
                              "requestedSchema": {"type": "object", "properties": {}},
                              "url": "https://x.example/"}]}]);
        assert_eq!(
            codes(&doc),
            vec![("schema-not".into(), "/tools/0/elicitations/0/url".into())]
        );
    }

    #[test]
    fn kebab_codes() {
        assert_eq!(kebab("additionalProperties"), "additional-properties");
        assert_eq!(kebab("$ref"), "ref");
    }
}
