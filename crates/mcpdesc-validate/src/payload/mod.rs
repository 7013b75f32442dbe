//! Rules on embedded payloads: tool schemas, examples, elicitations.
//!
//! Everything a document carries that is not MCP Description structure but a JSON
//! Schema or a literal MCP payload: Tool `inputSchema`/`outputSchema` (§9.2), Tool
//! examples and interaction examples (§9.3, §9.4), Resource and Resource Template
//! examples (§10.4), completion examples (§10.4.6, §11.4), Prompt examples (§11.3) and
//! Elicitation Declarations (§12). `$componentRef` use sites are resolved first
//! (§17.3); a reference that does not resolve is skipped here (the reference rules
//! report it). Revision facts come only from [`mcpdesc_core::revision`].
//!
//! These rules run per declaration inside the validator's one walk (see the crate
//! docs), on the same context and the same effective scopes as the document rules.
//!
//! # Diagnostic codes
//!
//! | Code | Severity | Meaning |
//! |------|----------|---------|
//! | `tool-input-schema-not-object` | error | `inputSchema` root is not `type: "object"` (§9.2) |
//! | `tool-output-schema-not-object` | error | `outputSchema` root is not an object in a revision before `OutputSchemaAnyRoot` |
//! | `tool-schema-dialect-inapplicable` | error | `$schema` in a tool schema in a revision without `ToolSchemaDialect` |
//! | `tool-schema-dialect-unsupported` | error | declared `$schema` is not a supported tool-schema dialect |
//! | `tool-schema-invalid` | error | the schema is invalid under its declared or default dialect's meta-schema |
//! | `tool-schema-shape` | error | pre-dialect shape: `properties` not an object of objects, `required` not an array of strings |
//! | `tool-schema-uninterpretable` | warning | pre-dialect schema valid under no supported dialect: its constraints cannot be interpreted |
//! | `tool-schema-ref-unresolved` | error; warning where only pre-dialect revisions apply | a local `$ref` in a tool schema does not resolve (§9.2: before `ToolSchemaDialect` other keywords are preserved, not rejected) |
//! | `tool-schema-ref-cycle` | warning | `$ref`s (with in-place applicators) loop back with no instance step; undefined (JSON Schema 2020-12 §9.4.1), instances not validated |
//! | `tool-schema-ref-external` | warning | an external `$ref` is preserved, never fetched: validation is incomplete |
//! | `mcp-header-inapplicable` | error | `x-mcp-header` in a revision without `McpHeader` |
//! | `mcp-header-invalid-value` | error | `x-mcp-header` is not a non-empty HTTP field-name token |
//! | `mcp-header-duplicate` | error | `x-mcp-header` repeats another header of the same `inputSchema` case-insensitively |
//! | `mcp-header-placement` | error | `x-mcp-header` not on a string/integer/boolean property reached through `properties` only |
//! | `example-name-invalid` | error | an example, scenario or completion-example name does not match `^[A-Za-z0-9._-]+$` |
//! | `tool-example-shape` | error | Tool (interaction) example lacks `input`/`result`/`steps` or has the wrong type |
//! | `tool-example-input-mismatch` | error | `input` does not validate against `inputSchema` |
//! | `tool-example-output-mismatch` | error | `structuredContent` does not validate against `outputSchema` |
//! | `tool-example-structured-content-missing` | error | success result without `structuredContent` though the Tool has `outputSchema` |
//! | `tool-example-error-structured-content` | error | execution-error result (`isError: true`) with `structuredContent` |
//! | `tool-example-validation-incomplete` | warning | example compatibility could not be fully evaluated (pre-dialect revision, external `$ref`) |
//! | `tool-result-content-missing` | error | Tool result without a `content` array |
//! | `structured-content-inapplicable` | error | `structuredContent` in a revision without `StructuredContent` |
//! | `result-type-missing` | error | completed result lacks `resultType: "complete"` in a revision with `ResultType` |
//! | `result-type-inapplicable` | error | `resultType` in a revision without `ResultType` |
//! | `result-json-rpc-envelope` | error | result carries JSON-RPC envelope fields (`jsonrpc`, `id`, `method`, `error`) |
//! | `result-not-completed` | error | result carries task/input-required state or a non-`complete` `resultType` |
//! | `content-type-inapplicable` | error | content block `type` not defined in some revision of the scope |
//! | `content-field-inapplicable` | error | content field not defined in some revision (`annotations.lastModified`, `icons`) |
//! | `base64-invalid` | error | `blob`/`data` is not valid base64 |
//! | `payload-meta-inapplicable` | error | `_meta` on a result, content block or contents in a revision without `Meta` |
//! | `invalid-meta-key` | error | `_meta` key syntax (as on declarations) |
//! | `payload-meta-reserved-key` | error | reserved `_meta` key misused in a result (`serverInfo` shape/revision/placement, request-only keys) |
//! | `payload-meta-unknown-reserved-key` | warning | unrecognized key under an MCP-reserved `_meta` prefix (preserved) |
//!
//! (The `_meta` rows are decided by [`crate::meta::check_meta`], the one `_meta` check.)
//! | `legacy-payload-validation-incomplete` | warning | payloads in legacy revisions (before `CompleteSemanticValidation`) get only structural and selected checks |
//! | `interaction-example-shape` | error | interaction example `steps` missing or empty |
//! | `interaction-step-inapplicable` | error | step kind or field not defined in some revision (elicitation, URL mode, sampling tools) |
//! | `interaction-declaration-unknown` | error | step `declaration` names no Elicitation Declaration of the Tool |
//! | `interaction-declaration-mismatch` | error | step request incompatible with its declaration (mode, schema, URL) |
//! | `interaction-elicitation-response` | error | response `content` missing on accepted form, or present on decline/cancel/URL |
//! | `interaction-elicitation-content-mismatch` | error | accepted form `content` does not conform to `requestedSchema` |
//! | `interaction-roots-uri` | error | a root URI is not a `file://` URI |
//! | `interaction-client-requirements-contradiction` | warning | scenario uses a client capability the Tool's `clientRequirements` omit |
//! | `resource-example-shape` | error | Resource example lacks `result`/`uri` or has the wrong type |
//! | `resource-example-contents` | error | read result without a non-empty `contents` array |
//! | `resource-contents-invalid` | error | contents entry without `uri` or without exactly one of `text`/`blob` |
//! | `resource-example-uri-invalid` | error | example or contents `uri` is not a valid URI |
//! | `resource-example-cache-fields` | error | `ttlMs`/`cacheScope` missing or invalid where required, or present before |
//! | `resource-example-requested-uri-missing` | warning | no contents entry identifies the requested URI |
//! | `resource-example-mime-mismatch` | warning | requested entry's `mimeType` differs from the declaration's |
//! | `resource-example-size-mismatch` | warning | requested entry's byte size differs from the Resource `size` |
//! | `uri-template-invalid` | error | `uriTemplate` is not an RFC 6570 template |
//! | `uri-template-mismatch` | error | template example `uri` is not an expansion of `uriTemplate` |
//! | `completion-example-shape` | error | completion example `argument`/`context`/`result.completion.values` malformed |
//! | `completion-example-inapplicable` | error | completion example in a revision without `Completions` |
//! | `completion-context-inapplicable` | error | `context` in a revision without `CompletionContext` |
//! | `completion-argument-unknown` | error | `argument.name` is no Prompt argument / template variable |
//! | `completion-context-unknown` | error | a `context.arguments` key is no Prompt argument / template variable |
//! | `completion-context-duplicates-argument` | error | the completed argument also appears in `context` |
//! | `prompt-example-shape` | error | Prompt example `arguments` not a map of strings, `result`/`messages` malformed |
//! | `prompt-example-argument-unknown` | error | example argument not declared by the Prompt |
//! | `prompt-example-argument-missing` | error | required Prompt argument absent from the example |
//! | `elicitation-name-invalid` | error | Elicitation Declaration name does not match `^[A-Za-z0-9._-]+$` |
//! | `elicitation-name-duplicate` | error | two Elicitation Declarations of one primitive share a name |
//! | `elicitation-scope-outside-parent` | error | declaration `protocolVersions` empty or not within the primitive's scope |
//! | `elicitation-mode-fields` | error | form without `requestedSchema`, form with `url`, URL with `requestedSchema` |
//! | `elicitation-mode-inapplicable` | error | mode not defined in some (non-legacy) revision of the scope |
//! | `elicitation-validation-incomplete` | warning | declaration applies to a legacy revision that defines no elicitation |
//! | `elicitation-url-invalid` | error | `url` is not a syntactically valid URI |
//! | `elicitation-form-schema` | error | `requestedSchema` outside the restricted vocabulary of some revision |
//! | `elicitation-form-required-unknown` | error | `required` names an undeclared property |
//! | `elicitation-enum-names-mismatch` | error | `enumNames` count differs from `enum` count |
//! | `elicitation-form-default` | error | default not among the declared choices, or of the wrong type |
//! | `elicitation-form-bounds` | error | a minimum constraint exceeds its maximum |
//! | `payload-validation-limit` | warning | a processing bound was reached; the rest was not validated |

mod content;
mod elicitation;
mod prompts;
mod resources;
pub(crate) mod schema;
mod tools;
pub mod uri_template;

use crate::ctx::{Ctx, Primitive};
pub(crate) use mcpdesc_core::refs::is_local_name;
use mcpdesc_core::{DeclKind, RevisionSet, pointer};
use serde_json::Value;

/// Every payload rule of one primitive declaration.
pub(crate) fn check_declaration<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>) {
    match p.kind {
        DeclKind::Tool => tools::check_tool(cx, p),
        DeclKind::Resource => resources::check_resource(cx, p),
        DeclKind::ResourceTemplate => resources::check_template(cx, p),
        DeclKind::Prompt => prompts::check_prompt(cx, p),
        _ => {}
    }
    elicitation::check_elicitations(cx, p);
    legacy_warning(cx, p);
}

/// `base + "/" + escape(token)`.
pub(crate) fn at(base: &str, token: &str) -> String {
    pointer::push(base, token)
}

/// Checks the names of a named example map and returns its entries.
pub(crate) fn named_entries<'v>(
    cx: &mut Ctx<'_>,
    map: &'v Value,
    map_ptr: &str,
    what: &str,
) -> Vec<(&'v String, &'v Value)> {
    let Some(m) = map.as_object() else {
        return Vec::new();
    };
    for name in m.keys() {
        if !is_local_name(name) {
            cx.error(
                "example-name-invalid",
                at(map_ptr, name),
                format!("{what} name `{name}` does not match ^[A-Za-z0-9._-]+$"),
            );
        }
    }
    m.iter().collect()
}

/// Whether the primitive carries any payload whose revision-specific rules are
/// incompletely checkable in a legacy revision.
fn legacy_warning(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    let legacy: RevisionSet = p.scope.iter().filter(|r| r.is_legacy()).collect();
    if legacy.is_empty() {
        return;
    }
    let carried: Vec<&str> = ["examples", "interactionExamples", "completionExamples"]
        .into_iter()
        .filter(|k| p.value.contains_key(*k))
        .collect();
    if carried.is_empty() {
        return;
    }
    cx.warn(
        "legacy-payload-validation-incomplete",
        &p.pointer,
        format!(
            "{} of this declaration apply to legacy MCP {legacy}: only structural and selected checks were applied; validation is incomplete (§3.5, §16.2)",
            carried.join(", ")
        ),
    );
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;
    use mcpdesc_core::Diagnostic;
    use serde_json::json;

    /// Wraps primitives in a minimal document with root coverage `revs`.
    pub(crate) fn doc(revs: &[&str], body: Value) -> Value {
        let mut d = json!({"mcpdesc": "0.8.0", "info": {"name": "t", "version": "1"}, "protocolVersions": revs});
        if let (Some(o), Some(b)) = (d.as_object_mut(), body.as_object()) {
            for (k, v) in b {
                o.insert(k.clone(), v.clone());
            }
        }
        d
    }

    /// Runs the payload rules (only) of every declaration of a document.
    pub(crate) fn run(d: &Value) -> Vec<Diagnostic> {
        let Some(obj) = d.as_object() else {
            return Vec::new();
        };
        let mut cx = Ctx::new(d, obj);
        for p in cx.primitives().iter() {
            check_declaration(&mut cx, p);
        }
        cx.finish()
    }

    /// `(code, pointer)` of every error.
    pub(crate) fn errors(d: &Value) -> Vec<(String, String)> {
        run(d)
            .into_iter()
            .filter(|d| d.is_error())
            .map(|d| (d.code, d.pointer))
            .collect()
    }

    /// `(code, pointer)` of every warning.
    pub(crate) fn warnings(d: &Value) -> Vec<(String, String)> {
        run(d)
            .into_iter()
            .filter(|d| !d.is_error())
            .map(|d| (d.code, d.pointer))
            .collect()
    }

    /// Whether `list` has `(code, pointer)`.
    pub(crate) fn has(list: &[(String, String)], code: &str, ptr: &str) -> bool {
        list.iter().any(|(c, p)| c == code && p == ptr)
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use serde_json::json;

    #[test]
    fn local_names() {
        assert!(super::is_local_name("paris.complete"));
        assert!(super::is_local_name("a-b_c.1"));
        assert!(!super::is_local_name("contains spaces"));
        assert!(!super::is_local_name(""));
    }

    #[test]
    fn legacy_payloads_warn_once_per_primitive() {
        let d = doc(
            &["2025-03-26"],
            json!({"prompts": [{"name": "p", "arguments": [{"name": "a"}], "completionExamples": {"x": {
                "argument": {"name": "a", "value": "v"}, "result": {"completion": {"values": ["v1"]}}}}}]}),
        );
        assert_eq!(
            warnings(&d),
            vec![(
                "legacy-payload-validation-incomplete".to_string(),
                "/prompts/0".to_string()
            )]
        );
        assert!(errors(&d).is_empty());
        let modern = doc(
            &["2025-06-18"],
            json!({"prompts": [{"name": "p", "arguments": [{"name": "a"}], "completionExamples": {"x": {
                "argument": {"name": "a", "value": "v"}, "result": {"completion": {"values": ["v1"]}}}}}]}),
        );
        assert!(run(&modern).is_empty());
    }
}
