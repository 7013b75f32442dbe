//! Semantic equivalence of MCP Descriptions (§4.13): two documents are equivalent when
//! they cover the same revisions and every pair of Effective Protocol Views agrees up
//! to property order, declaration order within collections, the order of security
//! alternatives/schemes/scopes (§7.3), and redundant or omitted scopes.

use crate::kinds::{DeclKind, root_scope};
use crate::project::{ProjectOptions, project_value};
use mcpdesc_core::same_json::json_eq;
use mcpdesc_validate::Validated;
use serde_json::{Map, Value};

/// Whether `a` and `b` are semantically equivalent descriptions (see module docs).
pub fn equivalent(a: &Validated<'_>, b: &Validated<'_>) -> bool {
    first_difference(a, b).is_none()
}

/// Why `a` and `b` are not equivalent: a revision (if the difference is in a view)
/// and a description of the difference. `None` when they are equivalent.
pub fn first_difference(a: &Validated<'_>, b: &Validated<'_>) -> Option<String> {
    difference(a.value(), b.value())
}

/// [`first_difference`] of two documents (the crate's own callers compare what they
/// have validated, or only compare).
pub(crate) fn difference(a: &Value, b: &Value) -> Option<String> {
    let (ra, rb) = (root_scope(a), root_scope(b));
    if ra != rb {
        return Some(format!("protocolVersions differ: {ra} vs {rb}"));
    }
    for rev in ra.iter() {
        let opts = ProjectOptions::default();
        let (Ok(va), Ok(vb)) = (project_value(a, rev, opts), project_value(b, rev, opts)) else {
            return Some(format!("cannot project at {rev}"));
        };
        let (na, nb) = (normalize_view(&va), normalize_view(&vb));
        if !json_eq(&na, &nb) {
            let at = diff_pointer(&na, &nb, String::new());
            return Some(format!(
                "views at {rev} differ (normalized view, at `{at}`)"
            ));
        }
    }
    None
}

/// Whether two single-revision views are equivalent.
pub fn views_equivalent(a: &Value, b: &Value) -> bool {
    json_eq(&normalize_view(a), &normalize_view(b))
}

/// A normal form of a single-revision view: keys sorted, unordered collections sorted,
/// security arrays normalized. Two views are equivalent iff their normal forms are
/// equal as JSON ([`json_eq`], §15's data model: `1` and `1.0` are one number).
pub fn normalize_view(view: &Value) -> Value {
    let mut v = sorted(view);
    let Some(obj) = v.as_object_mut() else {
        return v;
    };
    if let Some(s) = obj.get_mut("security") {
        normalize_security(s);
    }
    if let Some(Value::Array(p)) = obj.get_mut("protocolVersions") {
        p.sort_by_key(canonical_string);
    }
    for kind in DeclKind::TOP_LEVEL {
        if let Some(Value::Array(items)) = obj.get_mut(kind.collection()) {
            for d in items.iter_mut() {
                normalize_decl_in_place(kind, d);
            }
            items.sort_by_key(canonical_string);
        }
    }
    v
}

/// Normal form of one declaration (keys sorted, security and nested elicitations
/// normalized); `protocolVersions` is kept as is.
pub fn normalize_decl(kind: DeclKind, decl: &Value) -> Value {
    let mut d = sorted(decl);
    normalize_decl_in_place(kind, &mut d);
    d
}

fn normalize_decl_in_place(kind: DeclKind, d: &mut Value) {
    let Some(obj) = d.as_object_mut() else { return };
    if let Some(s) = obj.get_mut("security") {
        normalize_security(s);
    }
    if let Some(Value::Array(p)) = obj.get_mut("protocolVersions") {
        p.sort_by_key(canonical_string);
    }
    if kind.is_primitive() {
        if let Some(Value::Array(els)) = obj.get_mut("elicitations") {
            for e in els.iter_mut() {
                normalize_decl_in_place(DeclKind::Elicitation, e);
            }
            els.sort_by_key(canonical_string);
        }
    }
}

/// §7.3: alternative order, scheme-key order and scope order are insignificant.
/// `[]` and `[{}]` stay distinct.
fn normalize_security(s: &mut Value) {
    let Value::Array(alts) = s else { return };
    for req in alts.iter_mut() {
        if let Value::Object(m) = req {
            for scopes in m.values_mut() {
                if let Value::Array(a) = scopes {
                    a.sort_by_key(canonical_string);
                }
            }
        }
    }
    alts.sort_by_key(canonical_string);
}

/// A copy of `v` whose object keys are in sorted order (recursively).
pub(crate) fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::with_capacity(m.len());
            for k in keys {
                out.insert(k.clone(), sorted(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// A text of `v`, equal for two values exactly when they are equal as JSON
/// ([`json_eq`]: members in any order, `1` = `1.0`): core's one canonical text, a key
/// for sorting and grouping, not JSON to show.
pub fn canonical_string(v: &Value) -> String {
    mcpdesc_core::same_json::canonical_text(v)
}

/// The JSON pointer (in `a`) of the first place where `a` and `b` differ, `""` if the
/// roots differ in type. Object keys are compared by name, arrays by index.
pub fn diff_pointer(a: &Value, b: &Value, at: String) -> String {
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => {
            for (k, va) in ma {
                let p = mcpdesc_core::pointer::push(&at, k);
                match mb.get(k) {
                    None => return p,
                    Some(vb) if !json_eq(va, vb) => return diff_pointer(va, vb, p),
                    _ => {}
                }
            }
            match mb.keys().find(|k| !ma.contains_key(*k)) {
                Some(k) => mcpdesc_core::pointer::push(&at, k),
                None => at,
            }
        }
        (Value::Array(xa), Value::Array(xb)) => {
            for (i, (va, vb)) in xa.iter().zip(xb).enumerate() {
                if !json_eq(va, vb) {
                    return diff_pointer(va, vb, mcpdesc_core::pointer::push(&at, i.to_string()));
                }
            }
            mcpdesc_core::pointer::push(&at, xa.len().min(xb.len()).to_string())
        }
        _ => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> Value {
        json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
               "protocolVersions": ["2025-06-18", "2025-11-25"]})
    }

    #[test]
    fn explicit_full_scope_equals_omitted_scope() {
        let mut a = base();
        a["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
        let mut b = base();
        b["tools"] = json!([
            {"inputSchema": {"type": "object"}, "name": "t", "protocolVersions": ["2025-11-25"]},
            {"name": "t", "protocolVersions": ["2025-06-18"], "inputSchema": {"type": "object"}}
        ]);
        assert!(difference(&a, &b).is_none());
        b["tools"][0]["description"] = json!("x");
        assert!(difference(&a, &b).is_some());
    }

    #[test]
    fn security_order_is_insignificant_but_empty_forms_are_distinct() {
        let mut a = base();
        a["security"] = json!([{"o": ["b", "a"]}, {"k": []}]);
        let mut b = base();
        b["security"] = json!([{"k": []}, {"o": ["a", "b"]}]);
        assert!(difference(&a, &b).is_none());
        a["security"] = json!([]);
        b["security"] = json!([{}]);
        assert!(difference(&a, &b).is_some());
        b.as_object_mut().map(|o| o.remove("security"));
        assert!(difference(&a, &b).is_some());
    }

    #[test]
    fn diff_pointer_names_the_field() {
        let a = json!({"tools": [{"name": "t", "title": "A"}]});
        let b = json!({"tools": [{"name": "t", "title": "B"}]});
        assert_eq!(diff_pointer(&a, &b, String::new()), "/tools/0/title");
    }
}
