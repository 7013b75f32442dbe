//! Tool schema rules (§9.2) and validation of example instances against tool schemas.
//!
//! Nothing here fetches: a `$ref` whose target is outside the schema is preserved,
//! reported as a warning, and left out of the schema copy that instances are
//! validated against (so validation is knowingly incomplete, never silently wrong).

use super::at;
use crate::ctx::Ctx;
pub(crate) use crate::schema_facts::{
    Dialect, HeaderUse, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, RefScan, scan,
};
use mcpdesc_core::local_ref::LocalRefError;
/// Most instance errors reported per validated instance.
const MAX_INSTANCE_ERRORS: usize = 10;
use mcpdesc_core::revision::SUPPORTED_TOOL_SCHEMA_DIALECTS;
use mcpdesc_core::{Feature, RevisionSet};
use serde_json::Value;

/// Whether a tool schema is the Tool's input or output schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Input,
    Output,
}

impl Role {
    fn field(self) -> &'static str {
        match self {
            Role::Input => "inputSchema",
            Role::Output => "outputSchema",
        }
    }
}

/// A checked tool schema, ready to validate example instances.
#[derive(Debug)]
pub(crate) struct ToolSchema<'a> {
    pub value: &'a Value,
    /// Declared supported dialect.
    pub declared: Option<Dialect>,
    /// `$schema` present but unsupported or not a string.
    pub declared_unsupported: bool,
    pub scan: RefScan,
    /// Pre-dialect: the schema is valid under at least one supported dialect.
    pub interpretable: bool,
}

/// The result of validating one instance.
#[derive(Debug)]
pub(crate) enum Verdict {
    Valid,
    /// `(pointer inside the instance, message)`.
    Invalid(Vec<(String, String)>),
    /// Could not be evaluated completely (external refs, schema does not compile).
    Incomplete,
}

/// Validates `instance` against `schema` under `dialect`.
pub(crate) fn validate(
    cx: &mut Ctx<'_>,
    ts: &ToolSchema<'_>,
    dialect: Dialect,
    instance: &Value,
) -> Verdict {
    validate_value(cx, ts.value, &ts.scan, dialect, instance)
}

/// Validates `instance` against any schema value (compiled once per distinct content).
pub(crate) fn validate_value(
    cx: &mut Ctx<'_>,
    schema: &Value,
    scan: &RefScan,
    dialect: Dialect,
    instance: &Value,
) -> Verdict {
    // A looping schema is never compiled or run: validators recurse forever on it.
    if !scan.unresolved_local.is_empty() || scan.truncated || scan.ref_cycle.is_some() {
        return Verdict::Incomplete;
    }
    let Some(v) = cx.schemas.compiled(schema, &scan.external, dialect) else {
        return Verdict::Incomplete;
    };
    let errors: Vec<(String, String)> = if v.is_valid(instance) {
        Vec::new()
    } else {
        v.iter_errors(instance)
            .take(MAX_INSTANCE_ERRORS)
            .map(|e| (e.instance_path().as_str().to_string(), e.to_string()))
            .collect()
    };
    if errors.is_empty() {
        return if scan.external.is_empty() {
            Verdict::Valid
        } else {
            Verdict::Incomplete
        };
    }
    // With external refs left out the schema is weaker; a failure is still certain
    // unless a keyword could turn the missing constraint into a failure.
    if !scan.external.is_empty() && scan.non_monotone {
        return Verdict::Incomplete;
    }
    Verdict::Invalid(errors)
}

/// Checks the Tool's `inputSchema` or `outputSchema` at `tool_ptr` and returns it for
/// example validation. `None` when absent, unresolvable or not an object.
pub(crate) fn check_tool_schema<'a>(
    cx: &mut Ctx<'a>,
    tool: &'a serde_json::Map<String, Value>,
    tool_ptr: &str,
    role: Role,
    scope: RevisionSet,
) -> Option<ToolSchema<'a>> {
    let raw = tool.get(role.field())?;
    let use_ptr = at(tool_ptr, role.field());
    // Resolution errors are reported by the reference rules.
    let (value, comp) = cx.resolve(raw, "schemas").ok()?;
    let ptr = comp.unwrap_or(use_ptr);
    let Some(obj) = value.as_object() else {
        let code = match role {
            Role::Input => "tool-input-schema-not-object",
            Role::Output => "tool-output-schema-not-object",
        };
        cx.error(
            code,
            &ptr,
            format!("`{}` must be a JSON Schema object", role.field()),
        );
        return None;
    };
    let is_object_root = mcpdesc_core::schema::is_object_root(value);
    match role {
        Role::Input if !is_object_root => cx.error(
            "tool-input-schema-not-object",
            type_ptr(&ptr, obj),
            "the `inputSchema` root must describe an object (`\"type\": \"object\"`) (§9.2)",
        ),
        Role::Output if !is_object_root => {
            let revs = scope.without(Feature::OutputSchemaAnyRoot);
            if !revs.is_empty() {
                cx.error(
                    "tool-output-schema-not-object",
                    type_ptr(&ptr, obj),
                    format!("before MCP {} `outputSchema` must declare an object root; this Tool applies to {revs} (§9.2)", Feature::OutputSchemaAnyRoot.since()),
                );
            }
        }
        _ => {}
    }

    // Dialect (§9.2).
    let dialect_revs = scope.with(Feature::ToolSchemaDialect);
    let pre_revs = scope.without(Feature::ToolSchemaDialect);
    let mut declared = None;
    let mut declared_unsupported = false;
    if let Some(s) = obj.get("$schema") {
        let sp = at(&ptr, "$schema");
        if !pre_revs.is_empty() {
            cx.error(
                "tool-schema-dialect-inapplicable",
                &sp,
                format!("`$schema` in a tool schema is defined only {}; this Tool applies to {pre_revs} (§9.2)", Feature::ToolSchemaDialect.phrase()),
            );
        }
        match s.as_str().and_then(Dialect::from_uri) {
            Some(d) => declared = Some(d),
            None => {
                declared_unsupported = true;
                if !dialect_revs.is_empty() {
                    cx.error(
                        "tool-schema-dialect-unsupported",
                        &sp,
                        format!(
                            "unsupported tool-schema dialect {s}; supported: {}",
                            SUPPORTED_TOOL_SCHEMA_DIALECTS.join(", ")
                        ),
                    );
                }
            }
        }
    }
    if !dialect_revs.is_empty() && !declared_unsupported {
        let d = declared.unwrap_or_else(Dialect::default_dialect);
        for (p, m) in cx.schemas.meta_errors(d, value) {
            cx.error(
                "tool-schema-invalid",
                format!("{ptr}{p}"),
                format!(
                    "`{}` is not valid {} (required for {dialect_revs}): {m}",
                    role.field(),
                    d.name()
                ),
            );
        }
    }
    let mut interpretable = true;
    if !pre_revs.is_empty() {
        let shape_ok = check_shape(cx, obj, &ptr, role, pre_revs);
        // Valid under either dialect. The one just checked above for the dialect
        // revisions (usually 2020-12) goes first: it is cached, and when it holds the
        // other is never computed. Same verdict in any order.
        let mut dialects = [Dialect::Draft7, Dialect::Draft202012];
        if declared.unwrap_or_else(Dialect::default_dialect) == Dialect::Draft202012 {
            dialects.reverse();
        }
        interpretable = dialects
            .iter()
            .any(|d| cx.schemas.meta_errors(*d, value).is_empty());
        if shape_ok && !interpretable && declared.is_none() {
            cx.warn(
                "tool-schema-uninterpretable",
                &ptr,
                format!(
                    "`{}` is valid under neither JSON Schema draft-07 nor 2020-12; MCP {pre_revs} define no dialect for tool schemas, so its keywords are preserved but cannot be interpreted and validation is incomplete (§9.2)",
                    role.field()
                ),
            );
        }
    }

    let scan = cx.schemas.scan(value);
    for (p, r) in &scan.unresolved_local {
        let at = format!("{ptr}{p}");
        // The referencing module's code and message, then what it means here.
        let missing = LocalRefError::Missing(r.clone());
        if dialect_revs.is_empty() {
            // §9.2: before a dialect is defined only the shape is enforced, and other
            // keywords (`$ref` among them) MUST NOT be rejected by an inferred
            // meta-schema. Like `tool-schema-uninterpretable`, a warning.
            cx.warn(
                missing.code(),
                at,
                format!("{missing}; MCP {pre_revs} define no dialect for tool schemas, so it is preserved, but the schema cannot be evaluated and validation is incomplete (§9.2)"),
            );
        } else {
            cx.error(
                missing.code(),
                at,
                format!("{missing} (required to be valid for MCP {dialect_revs}) (§9.2)"),
            );
        }
    }
    if let Some((p, path)) = &scan.ref_cycle {
        cx.warn(
            "tool-schema-ref-cycle",
            format!("{ptr}{p}"),
            format!("`{}` loops back to itself without consuming any part of the instance ({path}); JSON Schema 2020-12 §9.4.1 leaves such schemas undefined and common validators fail on them, so instances were not validated against it (§9.2)", role.field()),
        );
    }
    for (p, r) in &scan.external {
        cx.warn(
            "tool-schema-ref-external",
            format!("{ptr}{p}"),
            format!("external `$ref` `{r}` is preserved and was not retrieved; embedded-schema validation is incomplete (§9.2)"),
        );
    }
    if scan.truncated {
        cx.warn(
            "payload-validation-limit",
            &ptr,
            format!("schema deeper than {MAX_SCHEMA_DEPTH} levels or larger than {MAX_SCHEMA_NODES} nodes; not fully validated"),
        );
    }
    check_headers(cx, &scan.headers, &ptr, role, scope);
    Some(ToolSchema {
        value,
        declared,
        declared_unsupported,
        scan,
        interpretable,
    })
}

fn type_ptr(ptr: &str, obj: &serde_json::Map<String, Value>) -> String {
    if obj.contains_key("type") {
        at(ptr, "type")
    } else {
        ptr.to_string()
    }
}

/// Pre-dialect shape rules (§9.2): `properties` an object of objects, `required` an
/// array of strings. Returns whether the shape holds.
fn check_shape(
    cx: &mut Ctx<'_>,
    obj: &serde_json::Map<String, Value>,
    ptr: &str,
    role: Role,
    revs: RevisionSet,
) -> bool {
    let mut ok = true;
    if let Some(p) = obj.get("properties") {
        let pp = at(ptr, "properties");
        match p.as_object() {
            Some(m) => {
                for (k, v) in m {
                    if !v.is_object() {
                        ok = false;
                        cx.error(
                            "tool-schema-shape",
                            at(&pp, k),
                            format!(
                                "`{}` property schemas must be objects in MCP {revs} (§9.2)",
                                role.field()
                            ),
                        );
                    }
                }
            }
            None => {
                ok = false;
                cx.error(
                    "tool-schema-shape",
                    pp,
                    format!("`properties` must be an object in MCP {revs} (§9.2)"),
                );
            }
        }
    }
    if let Some(r) = obj.get("required") {
        let rp = at(ptr, "required");
        match r.as_array() {
            Some(a) => {
                for (i, v) in a.iter().enumerate() {
                    if !v.is_string() {
                        ok = false;
                        cx.error(
                            "tool-schema-shape",
                            at(&rp, &i.to_string()),
                            format!("`required` entries must be strings in MCP {revs} (§9.2)"),
                        );
                    }
                }
            }
            None => {
                ok = false;
                cx.error(
                    "tool-schema-shape",
                    rp,
                    format!("`required` must be an array of strings in MCP {revs} (§9.2)"),
                );
            }
        }
    }
    ok
}

/// `x-mcp-header` rules (§9.2).
fn check_headers(
    cx: &mut Ctx<'_>,
    headers: &[HeaderUse],
    ptr: &str,
    role: Role,
    scope: RevisionSet,
) {
    let inapplicable = scope.without(Feature::McpHeader);
    let mut seen: Vec<String> = Vec::new();
    for h in headers {
        let hp = at(&format!("{ptr}{}", h.node), "x-mcp-header");
        if !inapplicable.is_empty() {
            cx.error(
                "mcp-header-inapplicable",
                &hp,
                format!(
                    "`x-mcp-header` is defined only {}; this Tool applies to {inapplicable} (§9.2)",
                    Feature::McpHeader.phrase()
                ),
            );
        }
        match h.value.as_str() {
            Some(name) if mcpdesc_core::http::is_token(name) => {
                let lower = name.to_ascii_lowercase();
                if seen.contains(&lower) {
                    cx.error(
                        "mcp-header-duplicate",
                        &hp,
                        format!("header `{name}` is already mapped by another property of this inputSchema (case-insensitive) (§9.2)"),
                    );
                } else {
                    seen.push(lower);
                }
            }
            _ => cx.error(
                "mcp-header-invalid-value",
                &hp,
                format!(
                    "`x-mcp-header` must be a non-empty HTTP field-name token, found {} (§9.2)",
                    h.value
                ),
            ),
        }
        let placement = if role == Role::Output {
            Some("it annotates `inputSchema` properties only".to_string())
        } else if !h.on_chain {
            Some("the property must be reachable from the schema root through `properties` only (not arrays, composition, conditionals or `$ref`)".to_string())
        } else if !matches!(h.ty.as_deref(), Some("string" | "integer" | "boolean")) {
            Some(format!(
                "the property must have `type` string, integer or boolean, found {}",
                h.ty.as_deref()
                    .map_or("no single type".to_string(), |t| format!("`{t}`"))
            ))
        } else {
            None
        };
        if let Some(why) = placement {
            cx.error(
                "mcp-header-placement",
                &hp,
                format!("misplaced `x-mcp-header`: {why} (§9.2)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    fn tool(revs: &[&str], t: Value) -> Value {
        doc(revs, json!({"tools": [t]}))
    }

    #[test]
    fn input_root_must_be_object() {
        let d = tool(
            &["2026-07-28"],
            json!({"name": "t", "inputSchema": {"type": "string"}}),
        );
        assert!(has(
            &errors(&d),
            "tool-input-schema-not-object",
            "/tools/0/inputSchema/type"
        ));
        let d = tool(
            &["2026-07-28"],
            json!({"name": "t", "inputSchema": {"properties": {}}}),
        );
        assert!(has(
            &errors(&d),
            "tool-input-schema-not-object",
            "/tools/0/inputSchema"
        ));
        let ok = tool(
            &["2026-07-28"],
            json!({"name": "t", "inputSchema": {"type": "object"}}),
        );
        assert!(run(&ok).is_empty());
    }

    #[test]
    fn input_root_checked_after_component_resolution() {
        let d = doc(
            &["2026-07-28"],
            json!({"components": {"schemas": {"S": {"type": "array"}}},
                   "tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/S"}}]}),
        );
        assert!(has(
            &errors(&d),
            "tool-input-schema-not-object",
            "/components/schemas/S/type"
        ));
        // An unresolvable reference is left to the reference rules.
        let d = doc(
            &["2026-07-28"],
            json!({"tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/Nope"}}]}),
        );
        assert!(run(&d).is_empty());
    }

    #[test]
    fn output_root_object_only_before_2026() {
        let t = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array", "items": {"type": "string"}}});
        assert!(has(
            &errors(&tool(&["2025-11-25"], t.clone())),
            "tool-output-schema-not-object",
            "/tools/0/outputSchema/type"
        ));
        assert!(errors(&tool(&["2026-07-28"], t.clone())).is_empty());
        assert!(has(
            &errors(&tool(&["2025-11-25", "2026-07-28"], t)),
            "tool-output-schema-not-object",
            "/tools/0/outputSchema/type"
        ));
    }

    #[test]
    fn dialect_declaration_per_revision() {
        let t = |s: &str| json!({"name": "t", "inputSchema": {"$schema": s, "type": "object"}});
        let d2020 = "https://json-schema.org/draft/2020-12/schema";
        let d7 = "http://json-schema.org/draft-07/schema#";
        assert!(has(
            &errors(&tool(&["2025-06-18"], t(d2020))),
            "tool-schema-dialect-inapplicable",
            "/tools/0/inputSchema/$schema"
        ));
        assert!(run(&tool(&["2025-11-25"], t(d2020))).is_empty());
        assert!(
            run(&tool(&["2026-07-28"], t(d7))).is_empty(),
            "real servers send draft-07"
        );
        let e = errors(&tool(
            &["2026-07-28"],
            t("http://json-schema.org/draft-04/schema#"),
        ));
        assert!(has(
            &e,
            "tool-schema-dialect-unsupported",
            "/tools/0/inputSchema/$schema"
        ));
    }

    #[test]
    fn schema_must_be_valid_under_its_dialect() {
        let t = json!({"name": "t", "inputSchema": {"type": "object", "required": "query"}});
        let e = errors(&tool(&["2026-07-28"], t.clone()));
        assert!(
            has(&e, "tool-schema-invalid", "/tools/0/inputSchema/required"),
            "{e:?}"
        );
        // Pre-dialect revisions: the shape rule, not a meta-schema.
        let e = errors(&tool(&["2024-11-05"], t));
        assert_eq!(
            e,
            vec![(
                "tool-schema-shape".to_string(),
                "/tools/0/inputSchema/required".to_string()
            )]
        );
        let t = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"a": true}}});
        assert!(has(
            &errors(&tool(&["2025-03-26"], t.clone())),
            "tool-schema-shape",
            "/tools/0/inputSchema/properties/a"
        ));
        assert!(
            errors(&tool(&["2026-07-28"], t)).is_empty(),
            "boolean subschemas are valid 2020-12"
        );
    }

    #[test]
    fn pre_dialect_uninterpretable_keywords_warn() {
        let t = json!({"name": "t", "inputSchema": {"type": "object",
            "properties": {"value": {"type": "number", "exclusiveMinimum": true}}, "required": ["value"]}});
        let d = tool(&["2024-11-05"], t.clone());
        assert!(errors(&d).is_empty());
        assert!(has(
            &warnings(&d),
            "tool-schema-uninterpretable",
            "/tools/0/inputSchema"
        ));
        // The same schema is simply invalid where a dialect applies.
        assert!(has(
            &errors(&tool(&["2025-11-25"], t)),
            "tool-schema-invalid",
            "/tools/0/inputSchema/properties/value/exclusiveMinimum"
        ));
        let fine = tool(
            &["2025-06-18"],
            json!({"name": "t", "inputSchema": {"type": "object", "properties": {"v": {"type": "number"}}}}),
        );
        assert!(run(&fine).is_empty());
    }

    #[test]
    fn local_and_external_refs() {
        let t = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"id": {"$ref": "#/$defs/identifier"}}}});
        assert!(has(
            &errors(&tool(&["2026-07-28"], t)),
            "tool-schema-ref-unresolved",
            "/tools/0/inputSchema/properties/id/$ref"
        ));
        let t = json!({"name": "t", "inputSchema": {"type": "object", "$defs": {"identifier": {"type": "string"}},
            "definitions": {"a~b": {"type": "string"}, "c/d": {"type": "string"}},
            "properties": {"id": {"$ref": "#/$defs/identifier"}, "x": {"$ref": "#/definitions/a~0b"}, "y": {"$ref": "#/definitions/c~1d"},
                           "z": {"$ref": "#"}, "w": {"$anchor": "w", "type": "string"}, "v": {"$ref": "#w"}}}});
        assert!(run(&tool(&["2026-07-28"], t)).is_empty());
        let t = json!({"name": "t", "inputSchema": {"type": "object", "properties": {
            "a": {"$ref": "https://schemas.example.com/common.json#/$defs/identifier"},
            "b": {"$ref": "common.json"}}}});
        let d = tool(&["2026-07-28"], t);
        assert!(errors(&d).is_empty());
        let w = warnings(&d);
        assert!(has(
            &w,
            "tool-schema-ref-external",
            "/tools/0/inputSchema/properties/a/$ref"
        ));
        assert!(has(
            &w,
            "tool-schema-ref-external",
            "/tools/0/inputSchema/properties/b/$ref"
        ));
        // Embedded resources are local.
        let t = json!({"name": "t", "inputSchema": {"$id": "https://x.example/root.json", "type": "object",
            "$defs": {"c": {"$id": "common.json", "$defs": {"id": {"type": "string"}}}},
            "properties": {"a": {"$ref": "common.json#/$defs/id"}, "b": {"$ref": "common.json#/$defs/nope"}}}});
        let e = errors(&tool(&["2026-07-28"], t));
        assert_eq!(
            e,
            vec![(
                "tool-schema-ref-unresolved".to_string(),
                "/tools/0/inputSchema/properties/b/$ref".to_string()
            )]
        );
    }

    #[test]
    fn mcp_header_rules() {
        let schema = |props: Value| json!({"name": "t", "inputSchema": {"type": "object", "properties": props}});
        let ok = schema(
            json!({"region": {"type": "string", "x-mcp-header": "X-Region"},
                               "nested": {"type": "object", "properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}}}),
        );
        assert!(run(&tool(&["2026-07-28"], ok.clone())).is_empty());
        assert!(has(
            &errors(&tool(&["2025-11-25"], ok)),
            "mcp-header-inapplicable",
            "/tools/0/inputSchema/properties/region/x-mcp-header"
        ));
        let dup = schema(
            json!({"region": {"type": "string", "x-mcp-header": "X-Region"},
                                "fallbackRegion": {"type": "string", "x-mcp-header": "x-region"}}),
        );
        assert_eq!(
            errors(&tool(&["2026-07-28"], dup)),
            vec![(
                "mcp-header-duplicate".to_string(),
                "/tools/0/inputSchema/properties/fallbackRegion/x-mcp-header".to_string()
            )]
        );
        let bad = schema(json!({"region": {"type": "number", "x-mcp-header": "Invalid Header"}}));
        let e = errors(&tool(&["2026-07-28"], bad));
        assert!(has(
            &e,
            "mcp-header-invalid-value",
            "/tools/0/inputSchema/properties/region/x-mcp-header"
        ));
        assert!(has(
            &e,
            "mcp-header-placement",
            "/tools/0/inputSchema/properties/region/x-mcp-header"
        ));
        let composed = json!({"name": "t", "inputSchema": {"type": "object", "allOf": [{"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}]}});
        assert_eq!(
            errors(&tool(&["2026-07-28"], composed)),
            vec![(
                "mcp-header-placement".to_string(),
                "/tools/0/inputSchema/allOf/0/properties/region/x-mcp-header".to_string()
            )]
        );
        let in_array = schema(
            json!({"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}),
        );
        assert!(has(
            &errors(&tool(&["2026-07-28"], in_array)),
            "mcp-header-placement",
            "/tools/0/inputSchema/properties/list/items/x-mcp-header"
        ));
    }

    /// Loops with no instance step (JSON Schema 2020-12 §9.4.1), written by hand: through
    /// `$ref` alone, through in-place applicators, through an anchor; recursion that steps
    /// into the instance is not one.
    #[test]
    fn ref_loops_without_an_instance_step() {
        let cycle = |s: Value| scan(&s).ref_cycle.map(|(p, _)| p);
        assert_eq!(cycle(json!({"$ref": "#"})), Some("/$ref".into()));
        assert_eq!(
            cycle(json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}})),
            Some("/$defs/A/$ref".into())
        );
        assert_eq!(
            cycle(json!({"$ref": "#/$defs/A", "$defs": {"A": {"not": {"$ref": "#"}}}})),
            Some("/$ref".into())
        );
        assert_eq!(
            cycle(
                json!({"$defs": {"A": {"$anchor": "a", "anyOf": [{"type": "null"}, {"$ref": "#a"}]}}})
            ),
            Some("/$defs/A/anyOf/1/$ref".into())
        );
        assert_eq!(
            cycle(json!({"$defs": {"A": {"if": {"$ref": "#/$defs/A"}}}})),
            Some("/$defs/A/if/$ref".into())
        );
        // Steps into the instance: properties, items, additionalProperties.
        for fine in [
            json!({"type": "object", "properties": {"next": {"$ref": "#"}}}),
            json!({"$defs": {"L": {"type": "array", "items": {"$ref": "#/$defs/L"}}}, "$ref": "#/$defs/L"}),
            json!({"additionalProperties": {"allOf": [{"$ref": "#"}]}}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}}, "$ref": "#/$defs/A"}),
        ] {
            assert_eq!(cycle(fine.clone()), None, "{fine}");
        }
        // The message names the loop.
        let (_, shown) =
            scan(&json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}))
                .ref_cycle
                .unwrap_or_default();
        assert_eq!(shown, "#/$defs/A → #/$defs/B → #/$defs/A");
    }

    #[test]
    fn validates_instances_with_the_declared_dialect() {
        let root = json!({});
        let Some(obj) = root.as_object() else {
            unreachable!()
        };
        let mut cx = Ctx::new(&root, obj);
        let s =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let sc = scan(&s);
        assert!(matches!(
            validate_value(&mut cx, &s, &sc, Dialect::Draft202012, &json!({"n": 1})),
            Verdict::Valid
        ));
        match validate_value(&mut cx, &s, &sc, Dialect::Draft202012, &json!({"n": "x"})) {
            Verdict::Invalid(e) => assert_eq!(e[0].0, "/n"),
            v => panic!("expected invalid, got {v:?}"),
        }
        // draft-07 `items` array form vs 2020-12 `prefixItems`.
        let s = json!({"type": "array", "items": [{"type": "string"}]});
        let sc = scan(&s);
        assert!(matches!(
            validate_value(&mut cx, &s, &sc, Dialect::Draft7, &json!(["a", 1])),
            Verdict::Valid
        ));
        // External refs: weaker schema, incomplete verdict.
        let s =
            json!({"type": "object", "properties": {"id": {"$ref": "https://x.invalid/id.json"}}});
        let sc = scan(&s);
        assert!(matches!(
            validate_value(&mut cx, &s, &sc, Dialect::Draft202012, &json!({"id": 1})),
            Verdict::Incomplete
        ));
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use crate::schema_facts::{ByContent, Cache};
    use serde_json::json;
    use std::collections::hash_map::DefaultHasher;
    use std::hash::Hash as _;
    use std::hash::Hasher as _;

    fn h(v: &Value) -> u64 {
        let mut s = DefaultHasher::new();
        ByContent(v).hash(&mut s);
        s.finish()
    }

    #[test]
    fn content_key_is_exact_and_order_sensitive() {
        let a = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}});
        let same =
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}});
        let reordered =
            json!({"properties": {"n": {"type": "integer", "minimum": 1}}, "type": "object"});
        let float =
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.0}}});
        assert_eq!(ByContent(&a), ByContent(&same));
        assert_eq!(h(&a), h(&same));
        // Member order is part of the key: cached findings keep document order.
        assert_ne!(ByContent(&a), ByContent(&reordered));
        // 1 and 1.0 are different JSON values to serde_json and to the meta-schema's messages.
        assert_ne!(ByContent(&a), ByContent(&float));
        assert_ne!(ByContent(&json!([1, [2]])), ByContent(&json!([[1], 2])));
    }

    #[test]
    fn cached_meta_errors_equal_fresh_ones() {
        let bad = json!({"type": "object", "required": "n", "minProperties": -1});
        let fresh = Dialect::Draft202012.meta_errors(&bad);
        assert!(!fresh.is_empty());
        let mut cache = Cache::default();
        assert_eq!(cache.meta_errors(Dialect::Draft202012, &bad), fresh);
        assert_eq!(cache.meta_errors(Dialect::Draft202012, &bad), fresh);
        assert!(
            cache
                .meta_errors(Dialect::Draft7, &json!({"type": "object"}))
                .is_empty()
        );
    }
}
