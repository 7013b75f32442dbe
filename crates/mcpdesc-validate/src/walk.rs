//! The validator's one walk over a document: one context ([`Ctx`]), one list of primitive
//! declarations with one effective-scope rule ([`crate::ctx::scope_of`]), each declaration
//! visited once by every rule family.
//!
//! Order: the document's own rules (version, root coverage, transports, security,
//! capabilities, the tag catalogue, components, root collections), then each primitive
//! declaration in document order per collection (its scope, security, client
//! requirements, field applicability, `_meta`, tag references, `$componentRef` use
//! sites, collections, then its payloads: schemas, examples, elicitations), then the one
//! rule across declarations (same-identity scope overlap, §9.5, §10.5, §11.5). Only that
//! last rule relates declarations to each other, which is what lets
//! [`crate::ToolParts`] validate tools in parts. The order fixes nothing visible:
//! `validate_value` sorts the result by document position.

use crate::ctx::Ctx;
use crate::payload;
use crate::rules::{
    capabilities, check_declaration_meta, client_requirements, collections, components, primitives,
    scopes, security, tags, transports,
};

/// Runs every semantic rule.
pub(crate) fn run(cx: &mut Ctx<'_>) {
    scopes::check_mcpdesc_version(cx);
    scopes::check_root_scope(cx);
    scopes::check_legacy_coverage(cx);
    scopes::check_root_declaration_scopes(cx);
    transports::check_coverage(cx);
    transports::check_types(cx);
    security::check_schemes(cx);
    security::check_document_requirements(cx);
    capabilities::check_disjoint(cx);
    capabilities::check_members(cx);
    tags::check_catalogue(cx);
    components::check_components(cx);
    collections::check_document(cx);
    for p in cx.primitives().iter() {
        scopes::check_primitive_scope(cx, p);
        security::check_primitive_requirements(cx, p);
        client_requirements::check(cx, p);
        primitives::check_field_applicability(cx, p);
        check_declaration_meta(cx, p);
        tags::check_references(cx, p);
        components::check_use_sites(cx, p);
        collections::check_primitive(cx, p);
        payload::check_declaration(cx, p);
    }
    primitives::check_variants(cx);
}
