//! Local JSON Schema `$ref` resolution inside one embedded schema (a Tool's
//! `inputSchema` or `outputSchema`, §9.2): the one policy every crate follows.
//!
//! - **Local only.** A reference resolves when it is a URI fragment (`#…`); anything
//!   else is [`LocalRefError::External`] (nothing is fetched, §17.7).
//! - **Fragments are RFC 6901 §6 pointers**, percent-decoded first
//!   (`#/$defs/a%20b` names `a b`); `#` is the schema root. A plain-name fragment
//!   (`#foo`, an `$anchor`) is [`LocalRefError::Anchor`].
//! - **A missing target** is [`LocalRefError::Missing`], never a panic or a guess.
//! - **Chains** (a target that is itself a `$ref`) are followed by [`follow`] up to
//!   [`MAX_REF_CHAIN`] hops (the same bound as `$componentRef` chains, §17.7); a chain
//!   that comes back to a pointer it passed is [`LocalRefError::Cycle`].

use crate::pointer;
use crate::refs::MAX_REF_CHAIN;
use serde_json::Value;
use std::collections::HashSet;

/// Why a local `$ref` does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalRefError {
    /// Not a fragment: another document, which is never fetched.
    #[error("`$ref` {0:?} is not local to its schema (external references are not fetched)")]
    External(String),
    /// A plain-name fragment (`#anchor`), not a JSON pointer.
    #[error("`$ref` {0:?} names an anchor, not a JSON pointer")]
    Anchor(String),
    /// The pointer names nothing in the schema.
    #[error("`$ref` {0:?} does not resolve inside its schema")]
    Missing(String),
    /// Following the chain came back to a pointer already passed.
    #[error("`$ref` chain loops at {0:?}")]
    Cycle(String),
    /// More than [`MAX_REF_CHAIN`] hops.
    #[error("`$ref` chain longer than {MAX_REF_CHAIN} references: not followed")]
    TooDeep,
}

/// The `$ref` string of a schema object, if it has one.
pub fn ref_of(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()
}

/// The JSON pointer (relative to the schema root) that local reference `r` names.
///
/// ```
/// use mcpdesc_core::local_ref::{pointer_of, LocalRefError};
/// assert_eq!(pointer_of("#/$defs/a%20b").as_deref(), Ok("/$defs/a b"));
/// assert_eq!(pointer_of("#").as_deref(), Ok(""));
/// assert!(matches!(pointer_of("#node"), Err(LocalRefError::Anchor(_))));
/// assert!(matches!(pointer_of("other.json#/a"), Err(LocalRefError::External(_))));
/// ```
pub fn pointer_of(r: &str) -> Result<String, LocalRefError> {
    if !r.starts_with('#') {
        return Err(LocalRefError::External(r.to_string()));
    }
    pointer::decode_fragment(r).ok_or_else(|| LocalRefError::Anchor(r.to_string()))
}

/// The target of local reference `r` in `root` (one hop), with its pointer.
pub fn target<'a>(root: &'a Value, r: &str) -> Result<(&'a Value, String), LocalRefError> {
    let p = pointer_of(r)?;
    match root.pointer(&p) {
        Some(t) => Ok((t, p)),
        None => Err(LocalRefError::Missing(r.to_string())),
    }
}

/// Where following a schema's `$ref` chain ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Followed<'a> {
    /// The last schema reached: the first one without a `$ref`, or the one whose
    /// `$ref` could not be followed (see `stopped`).
    pub schema: &'a Value,
    /// Its pointer relative to the root, `None` when no hop was taken.
    pub pointer: Option<String>,
    /// Why the chain stopped before a schema without `$ref`, if it did.
    pub stopped: Option<LocalRefError>,
}

/// Follows `schema`'s `$ref` chain through `root` (siblings of `$ref` are not read).
///
/// ```
/// use mcpdesc_core::local_ref::follow;
/// use serde_json::json;
/// let root = json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}}});
/// let schema = json!({"$ref": "#/$defs/A"});
/// let f = follow(&root, &schema);
/// assert_eq!(f.schema, &json!({"type": "string"}));
/// assert_eq!(f.pointer.as_deref(), Some("/$defs/B"));
/// assert_eq!(f.stopped, None);
/// ```
pub fn follow<'a>(root: &'a Value, schema: &'a Value) -> Followed<'a> {
    let mut cur = schema;
    let mut at: Option<String> = None;
    let mut seen: HashSet<String> = HashSet::new();
    let mut hops = 0;
    while let Some(r) = ref_of(cur) {
        if hops == MAX_REF_CHAIN {
            return stop(cur, at, LocalRefError::TooDeep);
        }
        hops += 1;
        match target(root, r) {
            Ok((t, p)) => {
                if !seen.insert(p.clone()) {
                    return stop(cur, at, LocalRefError::Cycle(r.to_string()));
                }
                cur = t;
                at = Some(p);
            }
            Err(e) => return stop(cur, at, e),
        }
    }
    Followed {
        schema: cur,
        pointer: at,
        stopped: None,
    }
}

/// A local reference written against a schema root that has moved to `under` (a JSON
/// pointer such as `/properties/result`, as a wrapper object schema holds the old root),
/// rewritten to reach the same target. References into `$defs`/`definitions` are kept:
/// the wrapper keeps the definitions at its own root. `None` when `r` needs no change
/// (not a local pointer, or into the definitions).
///
/// ```
/// use mcpdesc_core::local_ref::rebase;
/// assert_eq!(rebase("#", "/properties/result").as_deref(), Some("#/properties/result"));
/// assert_eq!(rebase("#/items", "/properties/result").as_deref(), Some("#/properties/result/items"));
/// assert_eq!(rebase("#/$defs/A", "/properties/result"), None);
/// ```
pub fn rebase(r: &str, under: &str) -> Option<String> {
    let p = pointer_of(r).ok()?;
    let into_defs = pointer::tokens(&p)
        .first()
        .is_some_and(|t| t == "$defs" || t == "definitions");
    (!into_defs).then(|| format!("#{under}{}", &r[1..]))
}

fn stop<'a>(schema: &'a Value, pointer: Option<String>, e: LocalRefError) -> Followed<'a> {
    Followed {
        schema,
        pointer,
        stopped: Some(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn root() -> Value {
        json!({
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/a%20b"}},
            "$defs": {
                "a b": {"$ref": "#/$defs/c~1d"},
                "c/d": {"type": "integer"},
                "loop1": {"$ref": "#/$defs/loop2"},
                "loop2": {"$ref": "#/$defs/loop1"},
                "self": {"$ref": "#/$defs/self"},
                "dangling": {"$ref": "#/$defs/nothing"},
                "to-root": {"$ref": "#"},
                "%": {"const": "percent"},
                "ext": {"$ref": "https://example.com/s.json#/a"}
            }
        })
    }

    #[test]
    fn one_hop_targets() {
        let r = root();
        assert_eq!(
            target(&r, "#/$defs/c~1d").map(|(v, p)| (v.clone(), p)),
            Ok((json!({"type": "integer"}), "/$defs/c~1d".to_string()))
        );
        assert_eq!(target(&r, "#").map(|(_, p)| p), Ok(String::new()));
        // Percent-decoding comes first: `%25` is `%`.
        assert_eq!(
            target(&r, "#/$defs/%25").map(|(v, _)| v.clone()),
            Ok(json!({"const": "percent"}))
        );
        assert_eq!(
            target(&r, "#/$defs/nope"),
            Err(LocalRefError::Missing("#/$defs/nope".into()))
        );
        assert_eq!(
            target(&r, "#anchor"),
            Err(LocalRefError::Anchor("#anchor".into()))
        );
        assert_eq!(
            target(&r, "defs.json#/a"),
            Err(LocalRefError::External("defs.json#/a".into()))
        );
        assert_eq!(target(&r, ""), Err(LocalRefError::External(String::new())));
    }

    #[test]
    fn chains_cycles_and_dangling_targets() {
        let r = root();
        let f = follow(&r, &r["properties"]["x"]);
        assert_eq!(f.schema, &json!({"type": "integer"}));
        assert_eq!(f.pointer.as_deref(), Some("/$defs/c~1d"));
        assert_eq!(f.stopped, None);

        let f = follow(&r, &r["$defs"]["loop1"]);
        assert!(matches!(f.stopped, Some(LocalRefError::Cycle(_))), "{f:?}");
        assert!(ref_of(f.schema).is_some());

        let f = follow(&r, &r["$defs"]["self"]);
        assert!(matches!(f.stopped, Some(LocalRefError::Cycle(_))), "{f:?}");

        let f = follow(&r, &r["$defs"]["dangling"]);
        assert_eq!(
            f.stopped,
            Some(LocalRefError::Missing("#/$defs/nothing".into()))
        );
        assert_eq!(f.schema, &r["$defs"]["dangling"]);
        assert_eq!(f.pointer, None);

        let f = follow(&r, &r["$defs"]["ext"]);
        assert!(matches!(f.stopped, Some(LocalRefError::External(_))));

        // `#` reaches the root, which has no `$ref`.
        let f = follow(&r, &r["$defs"]["to-root"]);
        assert_eq!(f.schema, &r);
        assert_eq!(f.pointer.as_deref(), Some(""));

        let plain = json!({"type": "string"});
        let f = follow(&r, &plain);
        assert_eq!((f.schema, f.pointer, f.stopped), (&plain, None, None));
    }

    #[test]
    fn rebasing_under_a_wrapper() {
        let under = "/properties/result";
        for (r, want) in [
            ("#", Some("#/properties/result")),
            ("#/properties/a", Some("#/properties/result/properties/a")),
            ("#/items/0", Some("#/properties/result/items/0")),
            ("#/a%20b", Some("#/properties/result/a%20b")),
            ("#/$defs/A", None),
            ("#/$defs", None),
            ("#/definitions/A", None),
            ("#/%24defs/A", None),
            ("#/$defsX", Some("#/properties/result/$defsX")),
            ("#anchor", None),
            ("other.json#/a", None),
        ] {
            assert_eq!(rebase(r, under).as_deref(), want, "{r}");
        }
    }

    #[test]
    fn long_chains_stop_at_the_bound() {
        let mut defs = serde_json::Map::new();
        for i in 0..MAX_REF_CHAIN + 5 {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert(format!("d{}", MAX_REF_CHAIN + 5), json!({"type": "null"}));
        let r = json!({"$defs": defs});
        let f = follow(&r, &r["$defs"]["d0"]);
        assert_eq!(f.stopped, Some(LocalRefError::TooDeep));
        // A chain within the bound is followed to its end.
        let f = follow(&r, &r["$defs"]["d10"]);
        assert_eq!(f.schema, &json!({"type": "null"}));
    }
}
