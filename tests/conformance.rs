//! Conformance: every official fixture (tests/fixtures/spec/fixtures, 94 files) gets the
//! verdict its directory promises, for the reasons written down below.
//!
//! - expected-valid   → no error and no warning;
//! - expected-warning → at least one warning, no error;
//! - expected-invalid → at least one error.
//!
//! For every invalid and warning fixture, [`EXPECTATIONS`] lists the (code, pointer)
//! findings that must be present. The rows were written by reading each fixture against
//! the spec (not by running the validator), so a rule that fires for the wrong reason, or
//! a verdict reached by accident, fails. A row may name alternatives where two layers can
//! legitimately state the same problem (the schema's generic code, or a payload rule's
//! specific restatement at the same place). A pointer ending in `*` matches by prefix.
//!
//! Rows are tagged with the rule family that owns them (`A`: schema and document rules,
//! `B`: payload rules); both must hold.

use mcpdesc_core::{Diagnostic, Format, Limits, Severity};
use mcpdesc_tests::fixture;
use std::path::{Path, PathBuf};

/// Which rule family a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// Structural schema and document-level rules (must hold).
    A,
    /// Payload rules: tool schemas, examples, elicitations.
    B,
}
use Owner::{A, B};

/// One expected finding: any of the `(code, pointer)` alternatives satisfies it.
type Row = (Owner, &'static [(&'static str, &'static str)]);

/// Expected findings per invalid/warning fixture (file name without directory).
#[rustfmt::skip]
const EXPECTATIONS: &[(&str, &[Row])] = &[
    // ---------------------------------------------------------------- expected-invalid
    ("closed-protocol-enum.json", &[(A, &[("unknown-protocol-revision", "/protocolVersions/0")])]),
    // §14.2: an x-* key in a namespace map is an ordinary component name; `true` is no Tool Example.
    ("component-extension-boundaries.json", &[(A, &[("schema-type", "/components/toolExamples/x-map-extension")])]),
    // The 2026-shaped example is used by a 2025-11-25 Resource (§17.3: validity per use site).
    ("component-protocol-scope.json", &[
        (B, &[("result-type-inapplicable", "/components/resourceExamples/current/result/resultType"),
              ("result-type-inapplicable", "/resources/0/examples/current/result/resultType")]),
        (B, &[("resource-example-cache-fields", "/components/resourceExamples/current/result/*"),
              ("resource-example-cache-fields", "/resources/0/examples/current/result/*")]),
    ]),
    ("component-reference-resolution.json", &[
        (A, &[("component-ref-cycle", "/components/schemas/CycleA")]),
        (A, &[("component-ref-cycle", "/components/schemas/CycleB")]),
        (A, &[("component-ref-missing", "/tools/0/inputSchema")]),
        (A, &[("component-ref-wrong-namespace", "/tools/1/inputSchema")]),
    ]),
    ("duplicate-mcp-header.json", &[(B, &[("mcp-header-duplicate", "/tools/0/inputSchema/properties/fallbackRegion/x-mcp-header")])]),
    ("duplicate-security-scope.json", &[(A, &[("duplicate-security-scope", "/security/0/oauth")])]),
    ("duplicate-tag-reference.json", &[(A, &[("unknown-tag-reference", "/tools/0/tags/0")])]),
    // Form mode with `url` (and a syntactically invalid one).
    ("elicitation-branch-mixing.json", &[
        (B, &[("elicitation-mode-fields", "/resources/0/elicitations/0/url"),
              ("elicitation-mode-fields", "/resources/0/elicitations/0")]),
        (A, &[("schema-not", "/resources/0/elicitations/0/url"),
              ("elicitation-mode-fields", "/resources/0/elicitations/0/url"),
              ("schema-format", "/resources/0/elicitations/0/url"),
              ("elicitation-url-invalid", "/resources/0/elicitations/0/url")]),
    ]),
    ("elicitation-form-semantics.json", &[
        (B, &[("elicitation-enum-names-mismatch", "/prompts/0/elicitations/0/requestedSchema/properties/channel/enumNames")]),
        (B, &[("elicitation-form-default", "/prompts/0/elicitations/0/requestedSchema/properties/channel/default")]),
        (B, &[("elicitation-form-required-unknown", "/prompts/0/elicitations/0/requestedSchema/required/0")]),
        (B, &[("elicitation-name-duplicate", "/prompts/0/elicitations/1/name"),
              ("elicitation-name-duplicate", "/prompts/0/elicitations/1")]),
    ]),
    ("elicitation-scope-outside-parent.json", &[(B, &[
        ("elicitation-scope-outside-parent", "/resourceTemplates/0/elicitations/0/protocolVersions"),
        ("elicitation-scope-outside-parent", "/resourceTemplates/0/elicitations/0/protocolVersions/0"),
    ])]),
    // URL mode does not exist in 2025-06-18 (§12.5).
    ("elicitation-version-mismatch.json", &[(B, &[("elicitation-mode-inapplicable", "/tools/0/elicitations/0/mode")])]),
    ("empty-client-capability-requirements.json", &[(A, &[("empty-client-requirements", "/prompts/0/clientRequirements")])]),
    ("empty-ordinary-nested-collections.json", &[
        (A, &[("empty-collection", "/info/icons")]),
        (A, &[("empty-collection", "/capabilities/0/extensions")]),
        (A, &[("empty-collection", "/tools/0/icons")]),
        (A, &[("empty-collection", "/tools/0/tags")]),
        (A, &[("empty-collection", "/tools/0/elicitations")]),
        (A, &[("empty-collection", "/prompts/0/arguments")]),
    ]),
    ("empty-ordinary-root-collections.json", &[
        (A, &[("empty-collection", "/transports")]),
        (A, &[("empty-collection", "/securitySchemes")]),
        (A, &[("empty-collection", "/capabilities")]),
        (A, &[("empty-collection", "/tools")]),
        (A, &[("empty-collection", "/resources")]),
        (A, &[("empty-collection", "/resourceTemplates")]),
        (A, &[("empty-collection", "/prompts")]),
        (A, &[("empty-collection", "/tags")]),
    ]),
    ("empty-tag-catalog-reference.json", &[
        (A, &[("empty-collection", "/tags")]),
        (A, &[("unknown-tag-reference", "/tools/0/tags/0")]),
    ]),
    ("invalid-completion-example-semantics.json", &[
        (B, &[("completion-example-inapplicable", "/prompts/0/completionExamples/unsupported-version*")]),
        (B, &[("completion-context-inapplicable", "/prompts/1/completionExamples/context-too-early/context")]),
        (B, &[("payload-meta-inapplicable", "/prompts/1/completionExamples/context-too-early/result/_meta")]),
        (B, &[("completion-argument-unknown", "/prompts/2/completionExamples/bad-membership/argument/name")]),
        (B, &[("completion-context-unknown", "/prompts/2/completionExamples/bad-membership/context/arguments/region")]),
        (B, &[("completion-context-duplicates-argument", "/prompts/2/completionExamples/bad-membership/context/arguments/nickname")]),
        (B, &[("result-type-inapplicable", "/prompts/2/completionExamples/bad-membership/result/resultType")]),
        (B, &[("result-json-rpc-envelope", "/prompts/2/completionExamples/bad-membership/result/jsonrpc")]),
        (B, &[("result-type-missing", "/prompts/3/completionExamples/missing-result-type/result*")]),
        (B, &[("uri-template-invalid", "/resourceTemplates/0/uriTemplate")]),
        (B, &[("completion-argument-unknown", "/resourceTemplates/1/completionExamples/bad-variables/argument/name")]),
        (B, &[("completion-context-unknown", "/resourceTemplates/1/completionExamples/bad-variables/context/arguments/workspace")]),
        (B, &[("result-not-completed", "/resourceTemplates/1/completionExamples/bad-variables/result/requestState")]),
    ]),
    ("invalid-mcp-header-placement.json", &[(B, &[("mcp-header-placement", "/tools/0/inputSchema/allOf/0/properties/region/x-mcp-header")])]),
    ("invalid-mcp-header-value.json", &[(B, &[("mcp-header-invalid-value", "/tools/0/inputSchema/properties/region/x-mcp-header")])]),
    ("invalid-prompt-example-semantics.json", &[
        (B, &[("prompt-example-argument-unknown", "/prompts/0/examples/unknown-and-missing/arguments/rogue")]),
        (B, &[("prompt-example-argument-missing", "/prompts/0/examples/unknown-and-missing/arguments*")]),
        (B, &[("result-type-missing", "/prompts/0/examples/unknown-and-missing/result*")]),
        (B, &[("result-type-inapplicable", "/prompts/1/examples/bad-version/result/resultType")]),
        (B, &[("result-json-rpc-envelope", "/prompts/2/examples/bad-envelope/result/jsonrpc")]),
        (B, &[("result-not-completed", "/prompts/3/examples/task-state/result/task")]),
        (B, &[("content-type-inapplicable", "/prompts/4/examples/resource-link-too-new/result/messages/0/content*")]),
    ]),
    ("invalid-resource-annotations.json", &[
        (A, &[("field-revision-mismatch", "/resources/0/annotations/lastModified")]),
        (A, &[("schema-enum", "/resourceTemplates/0/annotations/audience/0")]),
        (A, &[("schema-maximum", "/resourceTemplates/0/annotations/priority")]),
    ]),
    ("invalid-security-scheme-name.json", &[(A, &[("invalid-security-scheme-name", "/securitySchemes/invalid name")])]),
    ("invalid-tool-example-result-semantics.json", &[
        (B, &[("tool-example-structured-content-missing", "/tools/0/examples/missing/result*")]),
        (B, &[("tool-example-error-structured-content", "/tools/1/examples/business-error/result*")]),
        (B, &[("result-json-rpc-envelope", "/tools/2/examples/enveloped/result/jsonrpc")]),
        (B, &[("result-not-completed", "/tools/3/examples/task-result/result/task")]),
    ]),
    ("invalid-tool-interaction-example-semantics.json", &[
        (B, &[("interaction-declaration-unknown", "/tools/0/interactionExamples/broken/steps/0/declaration")]),
        (B, &[("interaction-step-inapplicable", "/tools/0/interactionExamples/broken/steps/0/request/mode")]),
        (B, &[("interaction-declaration-mismatch", "/tools/0/interactionExamples/broken/steps/1/request/requestedSchema")]),
        (B, &[("interaction-elicitation-content-mismatch", "/tools/0/interactionExamples/broken/steps/1/response/content*")]),
        (B, &[("interaction-step-inapplicable", "/tools/0/interactionExamples/broken/steps/2/request/tools")]),
        (B, &[("interaction-roots-uri", "/tools/0/interactionExamples/broken/steps/3/response/roots/0/uri")]),
        (B, &[("tool-example-structured-content-missing", "/tools/0/interactionExamples/broken/result*")]),
    ]),
    ("malformed-completion-examples.json", &[
        (A, &[("empty-collection", "/prompts/0/completionExamples")]),
        (A, &[("unknown-property", "/resourceTemplates/0/completionExamples/bad/$componentRef"),
              ("completion-example-shape", "/resourceTemplates/0/completionExamples/bad/$componentRef")]),
        (A, &[("schema-required", "/resourceTemplates/0/completionExamples/bad/argument/value"),
              ("completion-example-shape", "/resourceTemplates/0/completionExamples/bad/argument*")]),
        (A, &[("schema-required", "/resourceTemplates/0/completionExamples/bad/context/arguments"),
              ("completion-example-shape", "/resourceTemplates/0/completionExamples/bad/context*")]),
        (A, &[("schema-type", "/resourceTemplates/0/completionExamples/bad/result/completion/values/0"),
              ("completion-example-shape", "/resourceTemplates/0/completionExamples/bad/result*")]),
    ]),
    ("malformed-extension-identifier.json", &[(A, &[("invalid-extension-identifier", "/capabilities/0/extensions/missing-prefix")])]),
    ("malformed-pre-dialect-tool-schema-shape.json", &[(B, &[("tool-schema-shape", "/tools/0/inputSchema/required")])]),
    ("malformed-prompt-examples.json", &[
        (A, &[("empty-collection", "/prompts/0/examples")]),
        (A, &[("schema-property-name", "/prompts/1/examples/contains spaces"),
              ("example-name-invalid", "/prompts/1/examples/contains spaces")]),
        (A, &[("schema-type", "/prompts/2/examples/array/arguments"),
              ("prompt-example-shape", "/prompts/2/examples/array/arguments")]),
        (A, &[("schema-required", "/prompts/3/examples/missing/result"),
              ("prompt-example-shape", "/prompts/3/examples/missing*")]),
        (A, &[("schema-type", "/prompts/4/examples/number/arguments/count"),
              ("prompt-example-shape", "/prompts/4/examples/number/arguments*")]),
    ]),
    ("malformed-resource-examples.json", &[
        (A, &[("empty-collection", "/resources/0/examples")]),
        (A, &[("schema-property-name", "/resources/1/examples/invalid name"),
              ("example-name-invalid", "/resources/1/examples/invalid name")]),
        (A, &[("schema-required", "/resources/1/examples/invalid name/result"),
              ("resource-example-shape", "/resources/1/examples/invalid name*")]),
        (A, &[("unknown-property", "/resources/2/examples/both-text-and-blob/result/contents/0/blob"),
              ("resource-contents-invalid", "/resources/2/examples/both-text-and-blob/result/contents/0*")]),
        (A, &[("schema-required", "/resourceTemplates/0/examples/missing-uri/uri"),
              ("resource-example-shape", "/resourceTemplates/0/examples/missing-uri*")]),
        (B, &[("uri-template-invalid", "/resourceTemplates/1/uriTemplate")]),
    ]),
    ("malformed-resource-template-example.json", &[(B, &[("uri-template-invalid", "/resourceTemplates/0/uriTemplate")])]),
    ("malformed-tool-examples.json", &[
        (A, &[("empty-collection", "/tools/0/examples")]),
        (A, &[("schema-property-name", "/tools/1/examples/contains spaces"),
              ("example-name-invalid", "/tools/1/examples/contains spaces")]),
        (A, &[("schema-required", "/tools/2/examples/missing/input"),
              ("tool-example-shape", "/tools/2/examples/missing*")]),
        (A, &[("schema-type", "/tools/3/examples/array/input"),
              ("tool-example-shape", "/tools/3/examples/array/input")]),
        (A, &[("schema-required", "/tools/4/examples/missing/result"),
              ("tool-example-shape", "/tools/4/examples/missing*")]),
    ]),
    ("malformed-tool-interaction-examples.json", &[
        (A, &[("schema-type", "/tools/0/interactionExamples/broken/input"),
              ("tool-example-shape", "/tools/0/interactionExamples/broken/input")]),
        (A, &[("schema-min-items", "/tools/0/interactionExamples/broken/steps"),
              ("interaction-example-shape", "/tools/0/interactionExamples/broken/steps")]),
        (A, &[("unknown-property", "/tools/0/interactionExamples/broken/description")]),
    ]),
    // `required: "query"` is invalid JSON Schema 2020-12 (the 2026-07-28 default dialect).
    ("malformed-tool-schema.json", &[(B, &[("tool-schema-invalid", "/tools/0/inputSchema*")])]),
    ("meta-invalid-key.json", &[(A, &[("invalid-meta-key", "/tools/0/_meta/bad key")])]),
    ("meta-reserved-key-misuse.json", &[
        (A, &[("meta-reserved-key-misuse", "/tools/0/_meta/progressToken")]),
        (B, &[("payload-meta-reserved-key", "/tools/0/examples/invalid-server-info/result/_meta/io.modelcontextprotocol~1serverInfo")]),
    ]),
    ("missing-tool-input-schema.json", &[(A, &[("schema-required", "/tools/0/inputSchema")])]),
    ("non-oauth-scopes.json", &[(A, &[("non-oauth-scopes", "/security/0/bearer")])]),
    ("non-object-output-schema-before-2026.json", &[(B, &[("tool-output-schema-not-object", "/tools/0/outputSchema*")])]),
    ("oauth-flow-missing-required-url.json", &[(A, &[("oauth-flow-missing-url", "/securitySchemes/oauth/flows/authorizationCode/tokenUrl")])]),
    // §14.4: an extension cannot make `inputSchema` optional.
    ("object-level-extension-cannot-weaken-core.json", &[(A, &[("schema-required", "/tools/0/inputSchema")])]),
    ("object-level-extension-in-capability-map.json", &[(A, &[("extension-not-allowed", "/capabilities/0/extensions/x-example-policy")])]),
    // An x-* key of `securitySchemes` names a scheme; its value is no Security Scheme Object.
    ("object-level-extension-in-domain-map.json", &[(A, &[("schema-required", "/securitySchemes/x-example-policy/type")])]),
    ("object-level-extension-in-native-content.json", &[(A, &[("extension-not-allowed", "/tools/0/examples/default/result/content/0/x-example-style")])]),
    ("object-level-extension-in-security-requirement.json", &[(A, &[("extension-not-allowed", "/security/0/x-example-policy")])]),
    ("object-level-unknown-property.json", &[(A, &[("unknown-property", "/tools/0/acmeRisk")])]),
    ("overlapping-capabilities.json", &[(A, &[("overlapping-capability-scope", "/capabilities/1")])]),
    ("overlapping-tool-scope.json", &[(A, &[("overlapping-primitive-scope", "/tools/1")])]),
    ("resource-example-cache-fields.json", &[
        (B, &[("resource-example-cache-fields", "/resources/0/examples/missing/result*")]),
        (A, &[("schema-minimum", "/resources/1/examples/invalid/result/ttlMs"),
              ("resource-example-cache-fields", "/resources/1/examples/invalid/result/ttlMs")]),
        (A, &[("schema-enum", "/resources/1/examples/invalid/result/cacheScope"),
              ("resource-example-cache-fields", "/resources/1/examples/invalid/result/cacheScope")]),
        (B, &[("resource-example-cache-fields", "/resources/2/examples/premature/result*")]),
    ]),
    ("resource-example-result-semantics.json", &[
        (B, &[("result-type-inapplicable", "/resources/0/examples/invalid-result/result/resultType")]),
        (B, &[("result-json-rpc-envelope", "/resources/0/examples/invalid-result/result/jsonrpc")]),
        (B, &[("result-not-completed", "/resources/0/examples/invalid-result/result/task")]),
        (B, &[("base64-invalid", "/resources/0/examples/invalid-result/result/contents/0/blob")]),
        (B, &[("payload-meta-inapplicable", "/resources/1/examples/unsupported-metadata/result/_meta")]),
        (B, &[("payload-meta-inapplicable", "/resources/1/examples/unsupported-metadata/result/contents/0/_meta")]),
        (B, &[("uri-template-mismatch", "/resourceTemplates/0/examples/not-an-expansion/uri")]),
    ]),
    ("revision-inapplicable-execution.json", &[(A, &[("field-revision-mismatch", "/tools/0/execution")])]),
    ("revision-inapplicable-mcp-header.json", &[(B, &[("mcp-header-inapplicable", "/tools/0/inputSchema/properties/region/x-mcp-header")])]),
    ("revision-inapplicable-streamable-http.json", &[(A, &[("transport-revision-mismatch", "/transports/0/type")])]),
    ("revision-inapplicable-tool-schema-dialect.json", &[(B, &[("tool-schema-dialect-inapplicable", "/tools/0/inputSchema/$schema")])]),
    ("revision-incompatible-client-capability-requirements.json", &[(A, &[("client-requirement-revision-mismatch", "/tools/0/clientRequirements/tasks")])]),
    ("revision-incompatible-tool-example.json", &[
        (B, &[("content-type-inapplicable", "/tools/0/examples/future-result/result/content/0*")]),
        (B, &[("structured-content-inapplicable", "/tools/0/examples/future-result/result/structuredContent")]),
        (B, &[("result-type-inapplicable", "/tools/0/examples/future-result/result/resultType")]),
    ]),
    ("root-version-without-transport.json", &[(A, &[("transport-coverage-gap", "/transports")])]),
    ("scoped-version-not-in-root.json", &[(A, &[("protocol-scope-outside-parent", "/transports/0/protocolVersions/0")])]),
    ("tool-example-schema-mismatches.json", &[
        (B, &[("tool-example-input-mismatch", "/tools/0/examples/wrong-types/input*")]),
        (B, &[("tool-example-output-mismatch", "/tools/0/examples/wrong-types/result/structuredContent*")]),
    ]),
    ("unknown-security-reference.json", &[(A, &[("unknown-security-scheme", "/security/0/missing")])]),
    ("unresolved-local-tool-ref.json", &[(B, &[("tool-schema-ref-unresolved", "/tools/0/inputSchema/properties/identifier*")])]),
    // ---------------------------------------------------------------- expected-warning
    ("deprecated-client-capability-requirements.json", &[
        (A, &[("deprecated-client-requirement", "/resources/0/clientRequirements/roots")]),
        (A, &[("deprecated-client-requirement", "/prompts/0/clientRequirements/sampling/context")]),
        (A, &[("unknown-reserved-extension-identifier", "/prompts/0/clientRequirements/extensions/io.modelcontextprotocol~1future-capability")]),
    ]),
    // Valid at 2025-03-26, which gets only structural and selected checks (§16.2).
    ("legacy-completion-examples.json", &[(B, &[("legacy-payload-validation-incomplete", "/resourceTemplates/0*")])]),
    ("legacy-sse-modern-revision.json", &[(A, &[("legacy-sse-transport", "/transports/0/type")])]),
    ("logging-deprecated-2026.json", &[(A, &[("deprecated-logging-capability", "/capabilities/0/logging")])]),
    ("pre-dialect-tool-example.json", &[(B, &[("tool-example-validation-incomplete", "/tools/0/examples/friendly*"),
                                               ("legacy-payload-validation-incomplete", "/tools/0*")])]),
    // `exclusiveMinimum: true` (draft-04 style) is preserved, not rejected, before 2025-11-25 (§9.2).
    ("pre-dialect-tool-schema-shape.json", &[(B, &[("tool-schema-uninterpretable", "/tools/0/inputSchema*")])]),
    ("pre-standard-extension-capabilities.json", &[(A, &[("pre-standard-extension-capabilities", "/capabilities/0/extensions")])]),
    ("resource-example-consistency.json", &[
        (B, &[("resource-example-requested-uri-missing", "/resources/0/examples/collection-snapshot*")]),
        (B, &[("resource-example-mime-mismatch", "/resources/1/examples/different-observation*")]),
        (B, &[("resource-example-size-mismatch", "/resources/1/examples/different-observation*")]),
    ]),
    ("tool-interaction-client-requirements-contradictions.json", &[
        (B, &[("interaction-client-requirements-contradiction", "/tools/0/interactionExamples/contradictory/steps/0*")]),
        (B, &[("interaction-client-requirements-contradiction", "/tools/0/interactionExamples/contradictory/steps/1*")]),
        (B, &[("interaction-client-requirements-contradiction", "/tools/0/interactionExamples/contradictory/steps/2*")]),
        (A, &[("deprecated-client-requirement", "/tools/0/clientRequirements/sampling")]),
    ]),
    ("uncatalogued-oauth-scope.json", &[(A, &[("uncatalogued-security-scope", "/tools/0/security/0/oauth/0")])]),
    ("uncatalogued-openid-scope.json", &[(A, &[("uncatalogued-security-scope", "/security/0/oidc/0")])]),
    ("unknown-reserved-extension-identifier.json", &[(A, &[("unknown-reserved-extension-identifier", "/capabilities/0/extensions/io.modelcontextprotocol~1future-capability")])]),
    ("unknown-reserved-meta-key.json", &[(A, &[("unknown-reserved-meta-key", "/prompts/0/_meta/io.modelcontextprotocol~1future-key")])]),
    ("unresolved-external-tool-example-ref.json", &[
        (B, &[("tool-schema-ref-external", "/tools/0/inputSchema*")]),
        (B, &[("tool-example-validation-incomplete", "/tools/0/examples/external-identifier*")]),
    ]),
    ("unresolved-external-tool-ref.json", &[(B, &[("tool-schema-ref-external", "/tools/0/inputSchema*")])]),
];

/// Expected findings per invalid/warning fixture of `tests/fixtures/validate/` (this
/// validator's own fixtures, one group per fix of issue 12; see its README). Written from
/// the spec sections named there, not from a run.
#[rustfmt::skip]
const VALIDATOR_EXPECTATIONS: &[(&str, &[Row])] = &[
    // ---------------------------------------------------------------- expected-invalid
    // §8.5: from 2025-11-25 `sampling` and `elicitation` are closed types.
    ("client-requirements-closed-types.json", &[
        (A, &[("client-requirement-revision-mismatch", "/tools/0/clientRequirements/elicitation/text")]),
        (A, &[("client-requirement-revision-mismatch", "/tools/0/clientRequirements/sampling/images")]),
    ]),
    // Kept although the reference validator disagrees: 9007199254740993 > 2^53 exactly.
    ("exact-integer-beyond-double.json", &[(B, &[("tool-example-input-mismatch", "/tools/0/examples/one-past-the-maximum/input*")])]),
    // §9.2: 2025-11-25 needs a valid 2020-12 schema, so the unresolved `$ref` stays an error.
    ("mixed-scope-unresolved-local-ref.json", &[(B, &[("tool-schema-ref-unresolved", "/tools/0/inputSchema/properties/id/$ref")])]),
    // Kept although the reference validator disagrees: §9.3, `"three"` is no integer under any dialect.
    ("pre-dialect-integer-example-mismatch.json", &[(B, &[("tool-example-input-mismatch", "/tools/0/examples/text-for-integer/input*")])]),
    // §15.3.3: a plain `.inf` is a non-finite number.
    ("yaml-plain-infinity.yaml", &[(A, &[("non-finite-number", "/tools/0/inputSchema/properties/x/maximum")])]),
    // ---------------------------------------------------------------- expected-warning
    // §16.2 (last paragraph), §3.5: legacy revisions in root coverage, one root warning.
    ("legacy-root-coverage.json", &[(A, &[("legacy-validation-incomplete", "/protocolVersions")])]),
    ("legacy-root-coverage-transport-only.json", &[(A, &[("legacy-validation-incomplete", "/protocolVersions")])]),
    // §9.2 pre-dialect paragraph: preserved, not rejected; validation incomplete.
    ("pre-dialect-unresolved-local-ref.json", &[(B, &[("tool-schema-ref-unresolved", "/tools/0/inputSchema/properties/id/$ref")])]),
    // JSON Schema 2020-12 §9.4.1: loops with no instance step are undefined.
    ("schema-ref-root-cycle.json", &[(B, &[("tool-schema-ref-cycle", "/tools/0/inputSchema/$ref")])]),
    ("schema-ref-self-cycle.json", &[
        (B, &[("tool-schema-ref-cycle", "/tools/0/inputSchema/$defs/A/$ref")]),
        (B, &[("tool-example-validation-incomplete", "/tools/0/examples/one/input")]),
    ]),
    ("schema-ref-two-cycle.json", &[(B, &[("tool-schema-ref-cycle", "/tools/0/inputSchema/$defs/A/$ref"),
                                          ("tool-schema-ref-cycle", "/tools/0/inputSchema/$defs/B/allOf/0/$ref")])]),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Valid,
    Warning,
    Invalid,
}

impl Verdict {
    fn of_dir(dir: &str) -> Verdict {
        match dir {
            "expected-valid" => Verdict::Valid,
            "expected-warning" => Verdict::Warning,
            _ => Verdict::Invalid,
        }
    }
    fn of(errors: usize, warnings: usize) -> Verdict {
        if errors > 0 {
            Verdict::Invalid
        } else if warnings > 0 {
            Verdict::Warning
        } else {
            Verdict::Valid
        }
    }
}

/// Every official fixture: (directory, path), sorted.
fn fixtures() -> Vec<(&'static str, PathBuf)> {
    fixtures_in("spec/fixtures")
}

/// Every fixture under `root` (a folder of `tests/fixtures` with the three verdict
/// directories): (directory, path), sorted.
fn fixtures_in(root: &str) -> Vec<(&'static str, PathBuf)> {
    let mut v = Vec::new();
    for dir in ["expected-invalid", "expected-warning", "expected-valid"] {
        let base = fixture(root).join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&base)
            .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        v.extend(files.into_iter().map(|p| (dir, p)));
    }
    v
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Decode (JSON or restricted YAML) and validate, as `mcpdesc validate` does.
fn diagnose(path: &Path) -> Vec<Diagnostic> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = String::from_utf8_lossy(&bytes);
    let format = Format::detect(path.to_str(), &text);
    match mcpdesc_core::decode_bytes(&bytes, format, &Limits::default()) {
        Ok(d) => mcpdesc_validate::validate_value(&d.value),
        Err(d) => vec![d],
    }
}

fn matches(d: &Diagnostic, code: &str, ptr: &str) -> bool {
    d.code == code
        && match ptr.strip_suffix('*') {
            Some(prefix) => d.pointer.starts_with(prefix),
            None => d.pointer == ptr,
        }
}

#[test]
fn official_fixtures_verdicts_and_reasons() {
    let all = fixtures();
    assert_eq!(
        all.len(),
        94,
        "the vendored official fixture set has 94 files"
    );
    check_verdicts(&all, EXPECTATIONS);
}

/// Each fixture gets its directory's verdict, and every row of `expectations` for it
/// is present with the severity the directory is about.
fn check_verdicts(all: &[(&'static str, PathBuf)], expectations: &[(&str, &[Row])]) {
    let mut failures = Vec::new();
    let mut pending = 0usize;
    let mut table = String::new();
    for (dir, path) in all {
        let name = file_name(path);
        let expected = Verdict::of_dir(dir);
        let diags = diagnose(path);
        let errors: Vec<&Diagnostic> = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        let warnings: Vec<&Diagnostic> = diags
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .collect();
        let got = Verdict::of(errors.len(), warnings.len());
        let mut notes = Vec::new();
        if got != expected {
            let shown: Vec<String> = diags
                .iter()
                .map(|d| format!("{}[{}] {}", d.severity, d.code, d.pointer))
                .collect();
            failures.push(format!(
                "{dir}/{name}: expected {expected:?}, got {got:?}: {shown:?}"
            ));
        }
        let rows = expectations
            .iter()
            .find(|(f, _)| *f == name)
            .map(|(_, r)| *r);
        if expected != Verdict::Valid && rows.is_none_or(|r| r.is_empty()) {
            failures.push(format!("{dir}/{name}: no expectation rows written"));
        }
        // Findings must have the severity the directory is about.
        let relevant: &[&Diagnostic] = if expected == Verdict::Warning {
            &warnings
        } else {
            &errors
        };
        for (owner, alts) in rows.unwrap_or(&[]) {
            if relevant
                .iter()
                .any(|d| alts.iter().any(|(c, p)| matches(d, c, p)))
            {
                continue;
            }
            match owner {
                A => {
                    failures.push(format!("{dir}/{name}: missing {alts:?}"));
                    notes.push(format!("MISSING {alts:?}"));
                }
                B => {
                    pending += 1;
                    failures.push(format!("{dir}/{name}: missing payload finding {alts:?}"));
                    notes.push(format!("MISSING (payload) {alts:?}"));
                }
            }
        }
        table.push_str(&format!(
            "{:<62} {:<8} {:<8} {:>2}E {:>2}W {}\n",
            format!("{dir}/{name}"),
            format!("{expected:?}"),
            if got == expected {
                "ok".to_string()
            } else {
                format!("{got:?}!")
            },
            errors.len(),
            warnings.len(),
            notes.join("; ")
        ));
    }
    // Every row must name a real fixture (catches typos in the table).
    for (name, _) in expectations {
        if !all.iter().any(|(_, p)| file_name(p) == *name) {
            failures.push(format!("expectation for unknown fixture {name}"));
        }
    }
    let verdict_ok = all.len() - failures.iter().filter(|f| f.contains("expected ")).count();
    println!(
        "{table}\nverdicts: {verdict_ok}/{} as expected; payload rows missing: {pending}",
        all.len()
    );
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// This validator's own fixtures (`tests/fixtures/validate/`): each fix of issue 12
/// with fixtures that fail without it, and the negative controls next to them.
#[test]
fn validator_fixtures_verdicts_and_reasons() {
    let all = fixtures_in("validate");
    assert!(all.len() >= 16, "{} fixtures", all.len());
    check_verdicts(&all, VALIDATOR_EXPECTATIONS);
}

/// Why the legacy-coverage warning leaves the 94 official verdicts alone: no
/// expected-valid fixture covers 2024-11-05 or 2025-03-26 (read from the files), and
/// every official fixture that does is invalid or already a warning. The warning is
/// one diagnostic, at the root scope, worded from the revision table.
#[test]
fn legacy_coverage_warns_once_at_the_root() {
    for (dir, path) in fixtures() {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let Ok(d) = mcpdesc_core::decode_bytes(
            &bytes,
            Format::detect(path.to_str(), &text),
            &Limits::default(),
        ) else {
            continue;
        };
        let legacy = ["2024-11-05", "2025-03-26"].iter().any(|r| {
            d.value["protocolVersions"]
                .as_array()
                .is_some_and(|a| a.iter().any(|v| v == r))
        });
        assert!(
            !(legacy && dir == "expected-valid"),
            "{} is expected valid but covers a legacy revision",
            path.display()
        );
    }
    let path = fixture("validate/expected-warning/legacy-root-coverage.json");
    let legacy: Vec<Diagnostic> = diagnose(&path)
        .into_iter()
        .filter(|d| d.code == "legacy-validation-incomplete")
        .collect();
    assert_eq!(legacy.len(), 1, "{legacy:?}");
    assert_eq!(legacy[0].severity, Severity::Warning);
    assert!(
        legacy[0].message.contains("MCP 2024-11-05")
            && !legacy[0].message.contains("2025-06-18,")
            && legacy[0].message.contains("from MCP 2025-06-18 on"),
        "{}",
        legacy[0].message
    );
}

/// §17.4 resolves chains of any length; the validator's bound (`MAX_REF_CHAIN`) is a
/// processing limit (§17.7): past it, one warning for the whole document (not one error
/// per use, as there were 137 on a 200-hop chain), and the document is not declared
/// invalid for it.
#[test]
fn component_ref_chains_past_the_limit_warn_once() {
    use serde_json::{Map, Value, json};
    let chain = |hops: usize, uses: usize| {
        let mut schemas = Map::new();
        for i in 0..hops {
            schemas.insert(
                format!("C{i}"),
                json!({"$componentRef": format!("#/components/schemas/C{}", i + 1)}),
            );
        }
        schemas.insert(format!("C{hops}"), json!({"type": "object"}));
        let tools: Vec<Value> = (0..uses)
            .map(|u| json!({"name": format!("t{u}"), "inputSchema": {"$componentRef": "#/components/schemas/C0"}}))
            .collect();
        json!({"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"},
               "protocolVersions": ["2026-07-28"], "components": {"schemas": schemas}, "tools": tools})
    };
    let limit = mcpdesc_core::refs::MAX_REF_CHAIN;
    // The longest chain the bound allows, used three times: valid.
    let d = mcpdesc_validate::validate_value(&chain(limit - 1, 3));
    assert!(d.is_empty(), "{d:?}");
    // Past it: exactly one warning, at /components.
    let d = mcpdesc_validate::validate_value(&chain(limit + 50, 3));
    let shown: Vec<(String, String, Severity)> = d
        .iter()
        .map(|d| (d.code.clone(), d.pointer.clone(), d.severity))
        .collect();
    assert_eq!(
        shown,
        vec![(
            "component-ref-too-deep".to_string(),
            "/components".to_string(),
            Severity::Warning
        )]
    );
    assert!(
        d[0].message.contains(&limit.to_string()),
        "{}",
        d[0].message
    );
    // In parts (one tool each, checked last first), still once: the pointer is the same
    // from every use site.
    let validator = mcpdesc_validate::Validator::new();
    let mut doc = chain(limit + 50, 3);
    let tools = doc["tools"].take();
    doc["tools"] = json!([]);
    let parts = validator.tool_parts(doc).expect("an object");
    let mut reports: Vec<_> = tools
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .map(|t| parts.check(vec![t.clone()]).0)
        .collect();
    reports.reverse();
    assert_eq!(parts.finish(reports), d);
}

/// YAML `.inf` in a plain scalar is rejected with its line and column (counted by hand
/// in the fixture: line 13, `maximum: .inf` after ten spaces).
#[test]
fn yaml_plain_infinity_is_rejected_where_it_stands() {
    let d = diagnose(&fixture(
        "validate/expected-invalid/yaml-plain-infinity.yaml",
    ));
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        (d[0].code.as_str(), d[0].line, d[0].column),
        ("non-finite-number", Some(13), Some(20))
    );
}

/// The validator crate vendors the official schema so that it packages on its own; it
/// must stay byte for byte the workspace's vendored official file.
#[test]
fn vendored_schema_is_the_official_file() {
    let official = std::fs::read_to_string(fixture("spec/mcp-description-0.8.0.schema.json"))
        .expect("tests/fixtures/spec schema");
    assert!(
        mcpdesc_validate::structural::SCHEMA_TEXT == official,
        "crates/mcpdesc-validate/schema/ differs from tests/fixtures/spec/"
    );
}

/// The CLI contract the conformance hook relies on: `mcpdesc validate --format json FILE`
/// exits 0 for valid/warning fixtures and 1 for invalid ones, with matching severities.
#[test]
fn cli_json_verdicts_match() {
    let bin = mcpdesc_tests::mcpdesc_bin();
    assert!(bin.exists(), "{} is missing", bin.display());
    let mut failures = Vec::new();
    for (dir, path) in fixtures() {
        let out = std::process::Command::new(&bin)
            .args(["validate", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
        let expected = Verdict::of_dir(dir);
        let code = out.status.code();
        let line = String::from_utf8_lossy(&out.stdout);
        let report: serde_json::Value = match serde_json::from_str(line.trim()) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!(
                    "{}: stdout is not one JSON object ({e}): {line}",
                    path.display()
                ));
                continue;
            }
        };
        let sev = |s: &str| {
            report["diagnostics"]
                .as_array()
                .map(|a| a.iter().filter(|d| d["severity"] == s).count())
                .unwrap_or(0)
        };
        let got = Verdict::of(sev("error"), sev("warning"));
        let want_code = if expected == Verdict::Invalid { 1 } else { 0 };
        if got != expected
            || code != Some(want_code)
            || report["valid"] != (expected != Verdict::Invalid)
        {
            failures.push(format!(
                "{}: expected {expected:?}, got {got:?} exit {code:?}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Validation in parts (`mcpdesc_validate::ToolParts`, used by the importer to stream
/// tools) must equal whole-document validation: same diagnostics, same order. The
/// oracle is `validate_value` on the whole document; the inputs are every official
/// fixture, this validator's own fixtures and every spec example plus hand-made documents whose findings cross parts
/// (same-name tools in different parts, a broken component reached from two parts, a
/// restated structural error), each cut into parts of 1, 2, 3 and all tools, checked
/// last part first.
#[test]
fn validation_in_parts_equals_whole_document_validation() {
    use serde_json::{Value, json};
    let mut docs: Vec<(String, Value)> = Vec::new();
    let mut files: Vec<PathBuf> = fixtures()
        .into_iter()
        .chain(fixtures_in("validate"))
        .map(|(_, p)| p)
        .collect();
    for dir in ["spec/examples", "scope"] {
        let base = fixture(dir);
        let mut more: Vec<PathBuf> = std::fs::read_dir(&base)
            .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("json" | "yaml" | "yml")
                    )
            })
            .collect();
        more.sort();
        files.extend(more);
    }
    files.push(mcpdesc_tests::workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"));
    for p in files {
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let text = String::from_utf8_lossy(&bytes);
        let format = Format::detect(p.to_str(), &text);
        if let Ok(d) = mcpdesc_core::decode_bytes(&bytes, format, &Limits::default()) {
            docs.push((file_name(&p), d.value));
        }
    }
    let tool = |name: &str, pv: Option<&[&str]>| {
        let mut t = json!({"name": name, "inputSchema": {"type": "object"}});
        if let Some(pv) = pv {
            t["protocolVersions"] = json!(pv);
        }
        t
    };
    docs.push((
        "hand-made: overlaps and shared components across parts".into(),
        json!({
            "mcpdesc": "0.8.0",
            "info": {"name": "n", "version": "1"},
            "protocolVersions": ["2025-06-18", "2025-11-25"],
            "components": {"schemas": {"bad": {"type": 17}}},
            "tools": [
                tool("a", None),
                tool("b", Some(&["2025-06-18"])),
                {"name": "c", "inputSchema": {"$componentRef": "#/components/schemas/bad"}},
                tool("a", Some(&["2025-11-25"])),
                {"name": "d", "inputSchema": {"$componentRef": "#/components/schemas/bad"}},
                tool("b", Some(&["2025-06-18", "2025-11-25"])),
                {"name": "e"},
                "not a tool",
                {"name": "e", "inputSchema": {"type": "object"}, "protocolVersions": ["2025-06-18"]},
                tool("Not Valid!", None)
            ],
            "tags": [{"name": "t"}, {"name": "t"}]
        }),
    ));
    let validator = mcpdesc_validate::Validator::new();
    let mut compared = 0;
    for (name, doc) in &docs {
        let Some(tools) = doc.get("tools").and_then(Value::as_array) else {
            continue;
        };
        let whole = validator.validate_value(doc);
        for size in [1, 2, 3, tools.len().max(1)] {
            let mut skeleton = doc.clone();
            skeleton["tools"] = json!([]);
            let parts = validator
                .tool_parts(skeleton)
                .expect("the skeleton is an object");
            // Checked last part first (any order and any thread may check), finished in
            // array order.
            let mut reports: Vec<_> = tools
                .chunks(size)
                .rev()
                .map(|part| {
                    let (report, back) = parts.check(part.to_vec());
                    assert_eq!(back, part, "{name}: check gives the tools back");
                    report
                })
                .collect();
            reports.reverse();
            let parted = parts.finish(reports);
            assert_eq!(
                parted, whole,
                "{name}: parts of {size} tool(s) differ from the whole document"
            );
            compared += 1;
        }
    }
    assert!(
        compared >= 40,
        "only {compared} documents with tools were compared"
    );
}
