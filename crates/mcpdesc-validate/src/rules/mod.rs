//! Document-level semantic rules (everything but embedded payloads, see [`crate::payload`]).
//!
//! Each submodule owns the rules of one spec area; [`run`] applies them in a fixed order.

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

use crate::ctx::{Ctx, ptr};
use crate::meta::{MetaContext, check_meta};

/// `_meta` on primitive declarations (§3.5).
fn check_declaration_meta(cx: &mut Ctx<'_>) {
    for p in cx.primitives() {
        if let Some(m) = p.value.get("_meta") {
            let d = check_meta(
                m,
                &ptr(&p.pointer, "_meta"),
                MetaContext::Declaration,
                p.scope,
            );
            cx.out.extend(d);
        }
    }
}

/// Runs every document-level rule.
pub fn run(cx: &mut Ctx<'_>) {
    scopes::check_mcpdesc_version(cx);
    scopes::check_root_scope(cx);
    scopes::check_declaration_scopes(cx);
    transports::check_coverage(cx);
    transports::check_types(cx);
    security::check_schemes(cx);
    security::check_requirements(cx);
    capabilities::check_disjoint(cx);
    capabilities::check_members(cx);
    client_requirements::check(cx);
    primitives::check_variants(cx);
    primitives::check_field_applicability(cx);
    check_declaration_meta(cx);
    tags::check(cx);
    components::check_components(cx);
    components::check_use_sites(cx);
    collections::check(cx);
}
