//! Document-level semantic rules (everything but embedded payloads, see [`crate::payload`]).
//!
//! Each submodule owns the rules of one spec area: functions of the document
//! (`fn(&mut Ctx)`) and of one primitive declaration (`fn(&mut Ctx, &Primitive)`), which
//! the crate's one walk (`walk.rs`) calls in a fixed order.
//!
//! # Diagnostic codes
//!
//! | Code | Severity | Rule |
//! |------|----------|------|
//! | `schema-required`, `schema-type`, `schema-enum`, `schema-const`, `schema-format`, `schema-pattern`, `schema-property-name`, `schema-min-items`, `schema-min-properties`, `schema-unique-items`, `schema-minimum`, `schema-maximum`, `schema-not`, `schema-one-of`, `schema-shape`, `schema-<keyword>` | error | official JSON Schema (§16.1 item 7); `oneOf`/`anyOf` reduced to the meant branch |
//! | `unknown-property` | error | property not defined on a closed object (§3.8; from the schema) |
//! | `extension-not-allowed` | error | `x-*` where extensions are not eligible: closed native objects, Reference Objects, Security Requirement Objects, `extensions` maps (§14.2) |
//! | `unsupported-mcpdesc-version` | error | `mcpdesc` is not `0.8.0` (§4.1, §4.8) |
//! | `unknown-protocol-revision` | error | a `protocolVersions` entry outside the closed set (§4.9) |
//! | `duplicate-protocol-revision` | error | a `protocolVersions` entry repeated (§4.9) |
//! | `empty-protocol-scope` | error | `protocolVersions: []` (§4.9, §4.10) |
//! | `legacy-validation-incomplete` | warning | root coverage includes a legacy revision (before `CompleteSemanticValidation`): validation is incomplete (§3.5, §16.2) |
//! | `protocol-scope-outside-parent` | error | a transport/capability/primitive scope entry outside root coverage (§4.10) |
//! | `transport-coverage-gap` | error | `transports` present but some root revision has no transport (§6.5) |
//! | `transport-revision-mismatch` | error | streamable-http applied to 2024-11-05 (§6.2.1) |
//! | `legacy-sse-transport` | warning | SSE associated with 2025-03-26 or later (§6.2.3) |
//! | `unknown-transport-type` | error | transport `type` not streamable-http/stdio/sse (§6.2) |
//! | `invalid-security-scheme-name` | error | scheme name not `^[A-Za-z0-9._-]+$` (§7.1) |
//! | `unknown-security-scheme-type` | error | scheme `type` not http/apiKey/oauth2/openIdConnect (§7.2) |
//! | `oauth-flow-missing-url` | error | OAuth flow without its required URL (§7.2) |
//! | `unknown-security-scheme` | error | requirement names no declared scheme (§7.3) |
//! | `duplicate-security-scope` | error | a requirement's scope array repeats a scope (§7.3) |
//! | `non-oauth-scopes` | error | http/apiKey requirement with scopes (§7.3) |
//! | `uncatalogued-security-scope` | warning | OAuth2/OpenID scope not in the static catalogue (§7.3) |
//! | `overlapping-capability-scope` | error | Capabilities Objects with overlapping scopes (§8.6) |
//! | `capability-revision-mismatch` | error | `completions` before 2025-03-26, core `tasks` outside 2025-11-25 (§8.2, §8.3) |
//! | `pre-standard-extension-capabilities` | warning | `capabilities.extensions` applied to a revision before 2026-07-28 (§8.4) |
//! | `deprecated-logging-capability` | warning | `logging` applied to 2026-07-28 (§8.4) |
//! | `invalid-extension-identifier` | error | `extensions` key not `prefix/name` (§8.4) |
//! | `unknown-reserved-extension-identifier` | warning | uncatalogued identifier under an MCP-reserved prefix (§8.4) |
//! | `experimental-extension-identifier` | warning | catalogued experimental extension (§8.4) |
//! | `empty-client-requirements` | error | `clientRequirements: {}` (§8.5) |
//! | `client-requirements-protocol-versions` | error | `protocolVersions` inside `clientRequirements` (§8.5) |
//! | `client-requirement-revision-mismatch` | error | capability, or member of a closed capability type, not defined by a scope revision's ClientCapabilities (open types, e.g. `sampling` before `SamplingContextTools`, accept any member); 2026-07-28 `roots` not empty (§8.5) |
//! | `invalid-client-requirement-value` | error | marker not an object, `roots.listChanged` not boolean (§8.5) |
//! | `deprecated-client-requirement` | warning | `roots`, `sampling`, `sampling.context/tools` required in 2026-07-28 (§8.5) |
//! | `incomplete-validation` | warning | `clientRequirements` applied to 2024-11-05/2025-03-26: only selected checks (§8.5, §16.2) |
//! | `overlapping-primitive-scope` | error | same-name Tools/Prompts, same-`uri` Resources, same-`uriTemplate` Templates overlap (§9.5, §10.5, §11.1) |
//! | `field-revision-mismatch` | error | `title`, `outputSchema`, `annotations`, `execution`, `icons`, `_meta`, Resource Annotations `lastModified` outside their revisions (§9.1, §10, §11) |
//! | `invalid-meta-key` | error | `_meta` key syntax (§3.5) |
//! | `meta-reserved-key-misuse` | error | known reserved `_meta` key in a wrong context, revision or shape (§3.5) |
//! | `unknown-reserved-meta-key` | warning | unrecognized key under an MCP-reserved `_meta` prefix (§3.5) |
//! | `duplicate-tag` | error | root catalogue repeats a name (§13.2) |
//! | `unknown-tag-reference` | error | primitive tag not in a present catalogue (§13.3) |
//! | `duplicate-tag-reference` | error | a primitive's `tags` repeats a tag (§13.3) |
//! | `invalid-component-name` | error | component name not `^[A-Za-z0-9._-]+$` (§17.1) |
//! | `component-protocol-versions` | error | `protocolVersions` on components or example component values (§17.1) |
//! | `component-ref-malformed`, `component-ref-missing`, `component-ref-wrong-namespace`, `component-ref-cycle` | error | `$componentRef` resolution at the use site (§17.4) |
//! | `component-ref-too-deep` | warning | a `$componentRef` chain exceeds this validator's processing limit (`MAX_REF_CHAIN`, §17.7); once per document, at `/components`; validation is incomplete |
//! | `empty-collection` | error | present but empty ordinary collection (§3.3) |

pub mod capabilities;
pub mod client_requirements;
pub mod collections;
pub mod components;
pub mod identifiers;
pub mod primitives;
pub mod scopes;
pub mod security;
pub mod tags;
pub mod transports;

use crate::ctx::{Ctx, Primitive, ptr};
use crate::meta::{MetaContext, check_meta};

/// `_meta` on a primitive declaration (§3.5).
pub fn check_declaration_meta(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    if let Some(m) = p.value.get("_meta") {
        let d = check_meta(
            m,
            &ptr(&p.pointer, "_meta"),
            MetaContext::Declaration,
            p.scope,
        );
        cx.extend(d);
    }
}
