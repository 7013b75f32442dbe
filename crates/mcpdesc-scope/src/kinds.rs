//! Scope mutation on declarations. The declaration-kind table itself lives in
//! [`mcpdesc_core::decl`].

use mcpdesc_core::RevisionSet;
pub use mcpdesc_core::decl::{DeclKind, decl_scope, is_extension, root_scope, scope_json};
use serde_json::Value;

/// Sets (or replaces) `protocolVersions` on a declaration object, placing a new key
/// right after the kind's anchor property (an existing key keeps its position).
pub(crate) fn set_scope(kind: DeclKind, decl: &mut Value, scope: RevisionSet) {
    let Some(obj) = decl.as_object_mut() else {
        return;
    };
    if let Some(slot) = obj.get_mut("protocolVersions") {
        *slot = scope_json(scope);
        return;
    }
    let mut out = serde_json::Map::with_capacity(obj.len() + 1);
    let anchor = kind.scope_anchor().filter(|a| obj.contains_key(*a));
    if anchor.is_none() {
        out.insert("protocolVersions".into(), scope_json(scope));
    }
    for (k, v) in std::mem::take(obj) {
        let is_anchor = anchor == Some(k.as_str());
        out.insert(k, v);
        if is_anchor {
            out.insert("protocolVersions".into(), scope_json(scope));
        }
    }
    *obj = out;
}

/// Removes `protocolVersions` from a declaration object.
pub(crate) fn clear_scope(decl: &mut Value) {
    if let Some(obj) = decl.as_object_mut() {
        obj.shift_remove("protocolVersions");
    }
}
