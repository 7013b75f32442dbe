//! Component bookkeeping shared by projection and merge (§17.5, §17.6): which
//! components the retained declarations reach, and pruning of the rest.

use crate::kinds::DeclKind;
use mcpdesc_core::refs;
use serde_json::Value;
use std::collections::BTreeSet;

/// `(namespace, name)` of a component.
pub(crate) type ComponentId = (String, String);

/// The Reference Objects at use sites of one primitive declaration (§17.3): tool
/// schemas, `examples` values, elicitation `requestedSchema`s. References nested inside
/// embedded JSON Schemas are not MCP Description references and are not followed.
pub(crate) fn use_site_refs(kind: DeclKind, decl: &Value, out: &mut Vec<String>) {
    let mut push = |v: Option<&Value>| {
        if let Some(r) = v.and_then(refs::component_ref) {
            out.push(r.to_string());
        }
    };
    if kind == DeclKind::Tool {
        push(decl.get("inputSchema"));
        push(decl.get("outputSchema"));
    }
    if kind.example_namespace().is_some() {
        if let Some(ex) = decl.get("examples").and_then(Value::as_object) {
            for v in ex.values() {
                push(Some(v));
            }
        }
    }
    if kind.is_primitive() {
        if let Some(els) = decl.get("elicitations").and_then(Value::as_array) {
            for e in els {
                push(e.get("requestedSchema"));
            }
        }
    }
}

/// Every component transitively reached from the retained declarations of `doc`.
pub(crate) fn reachable(doc: &Value) -> BTreeSet<ComponentId> {
    let mut pending = Vec::new();
    for kind in DeclKind::PRIMITIVES {
        for decl in doc
            .get(kind.collection())
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            use_site_refs(kind, decl, &mut pending);
        }
    }
    let mut seen = BTreeSet::new();
    // Follows component-to-component references; `seen` bounds the walk (cycles end it).
    while let Some(r) = pending.pop() {
        let Ok((ns, name)) = refs::parse_ref(&r) else {
            continue;
        };
        if !seen.insert((ns.to_string(), name.to_string())) {
            continue;
        }
        let target = doc
            .get("components")
            .and_then(|c| c.get(ns))
            .and_then(|m| m.get(name));
        if let Some(next) = target.and_then(refs::component_ref) {
            pending.push(next.to_string());
        }
    }
    seen
}

/// Removes components not reachable from retained declarations; omits emptied
/// namespace maps and an emptied Components Object (outer `x-*` keep it alive).
pub(crate) fn prune(doc: &mut Value) {
    let keep = reachable(doc);
    let Some(root) = doc.as_object_mut() else {
        return;
    };
    let Some(comps) = root.get_mut("components").and_then(Value::as_object_mut) else {
        return;
    };
    for ns in refs::NAMESPACES {
        let Some(map) = comps.get_mut(ns).and_then(Value::as_object_mut) else {
            continue;
        };
        map.retain(|name, _| keep.contains(&(ns.to_string(), name.clone())));
        if map.is_empty() {
            comps.shift_remove(ns);
        }
    }
    if comps.is_empty() {
        root.shift_remove("components");
    }
}
