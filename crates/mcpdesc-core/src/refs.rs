//! `$componentRef` resolution (§17.2, §17.4): local JSON pointers into
//! `#/components/<namespace>/<name>`, followed transitively, cycles rejected, no I/O.

use serde_json::Value;
use std::collections::HashSet;

/// The five component namespaces (§17.1).
pub const NAMESPACES: [&str; 5] = [
    "schemas",
    "toolExamples",
    "resourceExamples",
    "resourceTemplateExamples",
    "promptExamples",
];

/// Upper bound on reference chains (§17.7 asks implementations to bound reference
/// depth); longer chains are not followed and give [`RefError::TooDeep`]. §17.4 itself
/// requires transitive resolution of any length, so this is a limit of the
/// implementation, not a rule of the format: it sits far beyond any real document
/// (chains there are one or two hops) and only stops adversarial input. Membership is
/// checked in a hash set, so a chain costs time linear in its length.
pub const MAX_REF_CHAIN: usize = 1024;

/// Why a Reference Object could not be resolved. Each maps to a distinct diagnostic code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// Not of the form `#/components/<namespace>/<name>` (or remote/relative-file/outside components).
    #[error("malformed $componentRef `{0}`: expected `#/components/<namespace>/<name>`")]
    Malformed(String),
    /// The target does not exist.
    #[error("$componentRef `{0}` does not resolve: no such component")]
    Missing(String),
    /// The target is in another namespace than the use site permits.
    #[error(
        "$componentRef `{found}` targets namespace `{found_ns}`, but this use site needs `{expected}`"
    )]
    WrongNamespace {
        found: String,
        found_ns: String,
        expected: String,
    },
    /// The chain of references loops.
    #[error("$componentRef cycle: {}", .0.join(" -> "))]
    Cycle(Vec<String>),
    /// The chain is longer than [`MAX_REF_CHAIN`]: an implementation limit, not a
    /// document error (the document may well be valid).
    #[error(
        "$componentRef chain longer than {MAX_REF_CHAIN} references: not followed (a processing limit of this implementation)"
    )]
    TooDeep,
    /// A Reference Object with sibling properties (§17.2: exactly one property).
    #[error("a Reference Object must contain only `$componentRef`")]
    Siblings,
}

impl RefError {
    /// Stable diagnostic code.
    pub fn code(&self) -> &'static str {
        match self {
            RefError::Malformed(_) => "component-ref-malformed",
            RefError::Missing(_) => "component-ref-missing",
            RefError::WrongNamespace { .. } => "component-ref-wrong-namespace",
            RefError::Cycle(_) => "component-ref-cycle",
            RefError::TooDeep => "component-ref-too-deep",
            RefError::Siblings => "component-ref-siblings",
        }
    }
}

/// The local-name grammar `^[A-Za-z0-9._-]+$` of component names (§17.1), security
/// scheme names (§7.1), named-example and scenario names (§9.3, §10.4.1) and
/// Elicitation Declaration names (§12.2).
pub fn is_local_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The `$componentRef` string of a Reference Object, if `v` is one.
pub fn component_ref(v: &Value) -> Option<&str> {
    v.as_object()?.get("$componentRef")?.as_str()
}

/// Whether `v` is (meant as) a Reference Object: an object with a `$componentRef` key.
pub fn is_reference(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.contains_key("$componentRef"))
}

/// Parses `#/components/<ns>/<name>` into (namespace, name).
pub fn parse_ref(r: &str) -> Result<(&str, &str), RefError> {
    let rest = r
        .strip_prefix("#/components/")
        .ok_or_else(|| RefError::Malformed(r.to_string()))?;
    let (ns, name) = rest
        .split_once('/')
        .ok_or_else(|| RefError::Malformed(r.to_string()))?;
    if !NAMESPACES.contains(&ns) || !is_local_name(name) {
        return Err(RefError::Malformed(r.to_string()));
    }
    Ok((ns, name))
}

/// Resolves `value` at a use site that permits references into `namespace`.
///
/// A non-reference value is returned as is. A reference is followed through
/// component-to-component references until an inline value; returns that value and
/// the JSON pointer of the component that holds it (e.g. `/components/schemas/A`).
pub fn resolve<'a>(
    root: &'a Value,
    value: &'a Value,
    namespace: &str,
) -> Result<(&'a Value, Option<String>), RefError> {
    let mut cur = value;
    // The chain in order (for the cycle message) and as a set (for the cycle check).
    let mut chain: Vec<&'a str> = Vec::new();
    let mut seen: HashSet<&'a str> = HashSet::new();
    let mut target = None;
    while let Some(obj) = cur.as_object().filter(|m| m.contains_key("$componentRef")) {
        let Some(r) = obj.get("$componentRef").and_then(Value::as_str) else {
            return Err(RefError::Malformed(
                obj.get("$componentRef")
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
            ));
        };
        if obj.len() != 1 {
            return Err(RefError::Siblings);
        }
        if !seen.insert(r) {
            chain.push(r);
            return Err(RefError::Cycle(
                chain.into_iter().map(str::to_string).collect(),
            ));
        }
        if chain.len() >= MAX_REF_CHAIN {
            return Err(RefError::TooDeep);
        }
        chain.push(r);
        let (ns, name) = parse_ref(r)?;
        if ns != namespace {
            return Err(RefError::WrongNamespace {
                found: r.to_string(),
                found_ns: ns.to_string(),
                expected: namespace.to_string(),
            });
        }
        cur = root
            .get("components")
            .and_then(|c| c.get(ns))
            .and_then(|m| m.get(name))
            .ok_or_else(|| RefError::Missing(r.to_string()))?;
        target = Some((ns, name));
    }
    let at = target.map(|(ns, name)| format!("/components/{ns}/{}", crate::pointer::escape(name)));
    Ok((cur, at))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_transitively_and_detects_problems() {
        let doc = json!({"components": {
            "schemas": {"A": {"$componentRef": "#/components/schemas/B"}, "B": {"type": "object"},
                        "C": {"$componentRef": "#/components/schemas/D"}, "D": {"$componentRef": "#/components/schemas/C"}},
            "toolExamples": {"E": {"input": {}, "result": {"content": []}}}
        }});
        let r = json!({"$componentRef": "#/components/schemas/A"});
        let (v, at) = resolve(&doc, &r, "schemas").expect("resolves");
        assert_eq!(v, &json!({"type": "object"}));
        assert_eq!(at.as_deref(), Some("/components/schemas/B"));
        let cyc = json!({"$componentRef": "#/components/schemas/C"});
        assert!(matches!(
            resolve(&doc, &cyc, "schemas"),
            Err(RefError::Cycle(_))
        ));
        let wrong = json!({"$componentRef": "#/components/toolExamples/E"});
        assert_eq!(
            resolve(&doc, &wrong, "schemas").unwrap_err().code(),
            "component-ref-wrong-namespace"
        );
        let missing = json!({"$componentRef": "#/components/schemas/Z"});
        assert_eq!(
            resolve(&doc, &missing, "schemas").unwrap_err().code(),
            "component-ref-missing"
        );
        let remote = json!({"$componentRef": "https://x/y.json#/components/schemas/A"});
        assert_eq!(
            resolve(&doc, &remote, "schemas").unwrap_err().code(),
            "component-ref-malformed"
        );
        let sib = json!({"$componentRef": "#/components/schemas/A", "x-a": 1});
        assert_eq!(
            resolve(&doc, &sib, "schemas").unwrap_err().code(),
            "component-ref-siblings"
        );
        let inline = json!({"type": "string"});
        assert_eq!(
            resolve(&doc, &inline, "schemas").expect("inline").0,
            &inline
        );
    }

    /// A document with the chain `C0 -> C1 -> ... -> C{hops}` ending in an object schema.
    fn chain(hops: usize) -> Value {
        let mut schemas = serde_json::Map::new();
        for i in 0..hops {
            schemas.insert(
                format!("C{i}"),
                json!({"$componentRef": format!("#/components/schemas/C{}", i + 1)}),
            );
        }
        schemas.insert(format!("C{hops}"), json!({"type": "object"}));
        json!({"components": {"schemas": schemas}})
    }

    #[test]
    fn long_chains_resolve_up_to_the_limit() {
        let start = json!({"$componentRef": "#/components/schemas/C0"});
        // 200 hops: far more than any real document, and resolved (§17.4).
        let doc = chain(200);
        let (v, at) = resolve(&doc, &start, "schemas").expect("200 hops resolve");
        assert_eq!(v, &json!({"type": "object"}));
        assert_eq!(at.as_deref(), Some("/components/schemas/C200"));
        // Exactly MAX_REF_CHAIN references (the use site's plus MAX_REF_CHAIN - 1 hops).
        let doc = chain(MAX_REF_CHAIN - 1);
        assert!(resolve(&doc, &start, "schemas").is_ok());
        let doc = chain(MAX_REF_CHAIN);
        assert_eq!(
            resolve(&doc, &start, "schemas").unwrap_err(),
            RefError::TooDeep
        );
    }

    #[test]
    fn cycles_name_the_whole_loop() {
        let doc = json!({"components": {"schemas": {
            "X": {"$componentRef": "#/components/schemas/A"},
            "A": {"$componentRef": "#/components/schemas/B"},
            "B": {"$componentRef": "#/components/schemas/A"},
            "S": {"$componentRef": "#/components/schemas/S"}
        }}});
        let x = json!({"$componentRef": "#/components/schemas/X"});
        assert_eq!(
            resolve(&doc, &x, "schemas").unwrap_err(),
            RefError::Cycle(
                [
                    "#/components/schemas/X",
                    "#/components/schemas/A",
                    "#/components/schemas/B",
                    "#/components/schemas/A"
                ]
                .map(String::from)
                .to_vec()
            )
        );
        let s = json!({"$componentRef": "#/components/schemas/S"});
        assert_eq!(
            resolve(&doc, &s, "schemas").unwrap_err(),
            RefError::Cycle(["#/components/schemas/S"; 2].map(String::from).to_vec())
        );
    }

    #[test]
    fn inline_values_resolve_to_themselves() {
        let doc = json!({});
        let inline = json!({"type": "string"});
        assert_eq!(
            resolve(&doc, &inline, "schemas").expect("inline").0,
            &inline
        );
    }
}
