//! Building a description's root object from parts, in the spec's member order.
//!
//! Producers (the OpenAPI and live importers, serve, tests) assemble documents as
//! `serde_json::Value`s. This is the one place that knows which members a root starts
//! with and in which order they are emitted (the §3.2 table, which the typed model's
//! field order follows), so no producer spells the skeleton out from string keys.

use crate::RevisionSet;
use crate::model::{MCPDESC_VERSION, SCHEMA_URI};
use serde_json::{Map, Value};

/// Root members in emission order (§3.2); extensions (`x-*`) and anything unknown
/// follow them in insertion order.
pub const ROOT_ORDER: &[&str] = &[
    "$schema",
    "mcpdesc",
    "info",
    "protocolVersions",
    "instructions",
    "transports",
    "securitySchemes",
    "security",
    "components",
    "capabilities",
    "tools",
    "resources",
    "resourceTemplates",
    "prompts",
    "tags",
];

/// The root's ordinary declaration collections (§3.3): present means non-empty
/// (§15.6). `security` is not one (`security: []` is significant), nor `components`
/// (its namespaces are collections of their own, [`crate::refs::NAMESPACES`]).
pub const ROOT_COLLECTIONS: [&str; 8] = [
    "transports",
    "securitySchemes",
    "capabilities",
    "tools",
    "resources",
    "resourceTemplates",
    "prompts",
    "tags",
];

/// A root object with `$schema`, `mcpdesc`, `info` and `protocolVersions`.
///
/// ```
/// use mcpdesc_core::{RevisionSet, skeleton};
/// use serde_json::json;
/// let mut doc = skeleton::root(json!({"name": "s", "version": "1"}), RevisionSet::ALL);
/// skeleton::set(&mut doc, "tools", json!([]));
/// skeleton::set(&mut doc, "x-origin", json!({}));
/// skeleton::set(&mut doc, "securitySchemes", json!({}));
/// let keys: Vec<&str> = doc.keys().map(String::as_str).collect();
/// assert_eq!(keys, ["$schema", "mcpdesc", "info", "protocolVersions", "securitySchemes", "tools", "x-origin"]);
/// ```
pub fn root(info: Value, revisions: RevisionSet) -> Map<String, Value> {
    let mut doc = Map::new();
    doc.insert("$schema".into(), Value::String(SCHEMA_URI.into()));
    doc.insert("mcpdesc".into(), Value::String(MCPDESC_VERSION.into()));
    doc.insert("info".into(), info);
    doc.insert(
        "protocolVersions".into(),
        Value::Array(
            revisions
                .iter()
                .map(|r| Value::String(r.as_str().into()))
                .collect(),
        ),
    );
    doc
}

/// Sets a root member: an existing one is replaced in place; a new spec member goes
/// to its §3.2 position, anything else to the end.
pub fn set(doc: &mut Map<String, Value>, key: &str, value: Value) {
    if let Some(slot) = doc.get_mut(key) {
        *slot = value;
        return;
    }
    let Some(rank) = ROOT_ORDER.iter().position(|k| *k == key) else {
        doc.insert(key.to_string(), value);
        return;
    };
    // Index of the first present member that sorts after `key`.
    let at = doc.keys().position(|k| {
        ROOT_ORDER
            .iter()
            .position(|o| o == k)
            .is_none_or(|r| r > rank)
    });
    match at {
        Some(at) => {
            doc.shift_insert(at, key.to_string(), value);
        }
        None => {
            doc.insert(key.to_string(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn root_collections_are_root_members_in_order() {
        let ranks: Vec<usize> = ROOT_COLLECTIONS
            .iter()
            .map(|c| {
                ROOT_ORDER
                    .iter()
                    .position(|k| k == c)
                    .expect("a root member")
            })
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
        for not in ["security", "components", "info", "instructions"] {
            assert!(!ROOT_COLLECTIONS.contains(&not), "{not}");
        }
    }

    #[test]
    fn order_matches_the_typed_model() {
        // The typed model's serialization order is the emission order; build a root
        // in scrambled order and compare with what the model emits.
        let mut doc = root(json!({"name": "n", "version": "1"}), RevisionSet::ALL);
        for k in [
            "tags",
            "x-a",
            "tools",
            "security",
            "prompts",
            "instructions",
        ] {
            let v = match k {
                "instructions" => json!("hi"),
                "security" => json!([]),
                _ if k.starts_with("x-") => json!(1),
                _ => json!([]),
            };
            set(&mut doc, k, v);
        }
        let value = Value::Object(doc.clone());
        let typed = crate::Document::from_value_ref(&value).expect("model");
        let back = serde_json::to_value(&typed).expect("serialize");
        let a: Vec<&String> = doc.keys().collect();
        let b: Vec<&String> = back.as_object().expect("object").keys().collect();
        assert_eq!(a, b);
        // replacing keeps the position
        set(&mut doc, "info", json!({"name": "m", "version": "2"}));
        assert_eq!(doc.keys().nth(2).map(String::as_str), Some("info"));
    }
}
