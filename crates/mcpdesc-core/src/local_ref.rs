//! Local JSON Schema `$ref` resolution inside one embedded schema (a Tool's
//! `inputSchema` or `outputSchema`, §9.2): the one referencing policy every crate
//! follows (validation, codegen, host fitting, diff, docs, search, the gateway).
//!
//! - **Local only.** A reference resolves when it names a place inside the schema: a
//!   URI fragment (`#…`) of the resource it sits in, or the `$id` of a resource embedded
//!   in the schema (resolved against the base URI, RFC 3986 §5). Anything else is
//!   [`LocalRefError::External`] (nothing is fetched, §17.7).
//! - **Fragments** are percent-decoded first (`#/$defs/a%20b` names `a b`, `%25` is
//!   `%`); then an empty fragment is the resource, `/…` is an RFC 6901 pointer into it
//!   (`~1` is `/`, `~0` is `~`), and any other fragment is a plain name: an `$anchor`
//!   (or a draft-07 `"$id": "#name"`) of that resource.
//! - **A missing target** is [`LocalRefError::Missing`], never a panic or a guess; its
//!   code ([`LocalRefError::code`]) and message are the same in every crate.
//! - **Chains** (a target that is itself a `$ref`) are followed by [`Resolver::follow`]
//!   up to [`MAX_REF_CHAIN`] hops, the one bound on reference chains (`$componentRef`
//!   chains, §17.7, and the OpenAPI importer's `$ref` chains use it too); a chain that
//!   comes back to a pointer it passed is [`LocalRefError::Cycle`].
//!
//! Build one [`Resolver`] per schema root and ask it many times; [`target`] and
//! [`follow`] are one-shot forms that index the root on every call.

use crate::pointer;
pub use crate::refs::MAX_REF_CHAIN;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Why a local `$ref` does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalRefError {
    /// Not in the schema: another document, which is never fetched.
    #[error("`$ref` {0:?} is not local to its schema (external references are not fetched)")]
    External(String),
    /// The pointer or anchor names nothing in the schema.
    #[error("`$ref` {0:?} does not resolve inside its schema")]
    Missing(String),
    /// Following the chain came back to a pointer already passed.
    #[error("`$ref` chain loops at {0:?}")]
    Cycle(String),
    /// More than [`MAX_REF_CHAIN`] hops.
    #[error("`$ref` chain longer than {MAX_REF_CHAIN} references: not followed")]
    TooDeep,
}

impl LocalRefError {
    /// The diagnostic code every crate reports this under.
    ///
    /// ```
    /// use mcpdesc_core::local_ref::LocalRefError;
    /// assert_eq!(LocalRefError::Missing("#x".into()).code(), "tool-schema-ref-unresolved");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            LocalRefError::External(_) => "tool-schema-ref-external",
            LocalRefError::Missing(_) => "tool-schema-ref-unresolved",
            LocalRefError::Cycle(_) => "tool-schema-ref-cycle",
            LocalRefError::TooDeep => "tool-schema-ref-too-deep",
        }
    }
}

/// The `$ref` string of a schema object, if it has one.
pub fn ref_of(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()
}

/// The JSON pointer (relative to the schema root) that a fragment-only pointer
/// reference `r` names, by syntax alone: `None` for an anchor (`#name`) or a reference
/// that is not a fragment. [`Resolver`] resolves every form; this is for rewriting
/// references, not for following them.
///
/// ```
/// use mcpdesc_core::local_ref::pointer_of;
/// assert_eq!(pointer_of("#/$defs/a%20b").as_deref(), Some("/$defs/a b"));
/// assert_eq!(pointer_of("#").as_deref(), Some(""));
/// assert_eq!(pointer_of("#node"), None);
/// assert_eq!(pointer_of("other.json#/a"), None);
/// ```
pub fn pointer_of(r: &str) -> Option<String> {
    if !r.starts_with('#') {
        return None;
    }
    pointer::decode_fragment(r)
}

/// Keywords whose value is one subschema (JSON Schema 2020-12 and draft-07).
pub const SUBSCHEMA_ONE: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
pub const SUBSCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
pub const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// One schema resource: the root, or a subschema with its own absolute `$id`.
#[derive(Debug, Clone)]
struct Resource {
    /// Its base URI (absolute, without fragment), when it has one.
    base: Option<String>,
    /// Its pointer inside the root.
    pointer: String,
}

/// The resources, `$id`s and anchors of one schema root, to resolve its references.
#[derive(Debug, Clone)]
pub struct Resolver<'a> {
    root: &'a Value,
    /// `resources[0]` is the root.
    resources: Vec<Resource>,
    /// Absolute `$id` without fragment → index into `resources`.
    ids: HashMap<String, usize>,
    /// (resource index, anchor name) → pointer.
    anchors: HashMap<(usize, String), String>,
    /// Schema objects inside an embedded resource: address → resource index (every
    /// other schema object is in the root resource).
    sites: HashMap<usize, usize>,
    /// Pointers of the schema objects in `sites`, for [`Resolver::target_at`].
    site_pointers: HashMap<String, usize>,
}

/// A schema object's identity while the root is borrowed: the address of its map.
fn addr(m: &Map<String, Value>) -> usize {
    std::ptr::from_ref(m) as usize
}

fn strip_fragment(u: &str) -> &str {
    u.split_once('#').map_or(u, |(d, _)| d)
}

/// Resolves a URI reference against an optional base; `None` when it is relative and
/// there is no base (or it does not parse).
fn resolve_uri(r: &str, base: Option<&str>) -> Option<String> {
    let rref = fluent_uri::UriRef::parse(r).ok()?;
    if rref.has_scheme() {
        return Some(rref.as_str().to_string());
    }
    let base = fluent_uri::Uri::parse(strip_fragment(base?)).ok()?;
    rref.resolve_against(&base)
        .ok()
        .map(|u| u.as_str().to_string())
}

/// Whether any subschema of `root` (through subschema keywords, as [`Resolver::new`]
/// walks) has an `$id` or `$anchor`; the root's own `$id` counts only as a `#name`.
fn has_ids_below(root: &Value) -> bool {
    let mut stack: Vec<(&Value, bool)> = vec![(root, true)];
    while let Some((node, is_root)) = stack.pop() {
        let Some(obj) = node.as_object() else {
            continue;
        };
        // The root's own `$id` is its base (read above), unless it is a `#name` anchor.
        let id_counts = !is_root
            || obj
                .get("$id")
                .and_then(Value::as_str)
                .is_some_and(|id| id.starts_with('#'));
        if (id_counts && obj.contains_key("$id")) || obj.contains_key("$anchor") {
            return true;
        }
        for (k, v) in obj {
            let k = k.as_str();
            if SUBSCHEMA_MAPS.contains(&k) {
                stack.extend(v.as_object().into_iter().flatten().map(|(_, s)| (s, false)));
            } else if SUBSCHEMA_ARRAYS.contains(&k) && v.is_array() {
                stack.extend(v.as_array().into_iter().flatten().map(|s| (s, false)));
            } else if SUBSCHEMA_ONE.contains(&k) {
                stack.push((v, false));
            }
        }
    }
    false
}

impl<'a> Resolver<'a> {
    /// Indexes `root`: its embedded resources (`$id`) and anchors (`$anchor`, draft-07
    /// `"$id": "#name"`), found through subschema keywords only (a `$id` inside a
    /// `const` or `examples` value is data, not a resource).
    pub fn new(root: &'a Value) -> Self {
        let root_base = root
            .get("$id")
            .and_then(Value::as_str)
            .filter(|id| !id.starts_with('#'))
            .and_then(|id| resolve_uri(id, None))
            .map(|u| strip_fragment(&u).to_string());
        let mut r = Resolver {
            root,
            resources: vec![Resource {
                base: root_base.clone(),
                pointer: String::new(),
            }],
            ids: HashMap::new(),
            anchors: HashMap::new(),
            sites: HashMap::new(),
            site_pointers: HashMap::new(),
        };
        if let Some(b) = root_base {
            r.ids.insert(b, 0);
        }
        // Most schemas have no `$id` or `$anchor` below the root: then the index is the
        // root resource alone, and the walk below (a pointer string per subschema) is
        // skipped after a walk that allocates nothing per node.
        if !has_ids_below(root) {
            return r;
        }
        // (node, its pointer, the resource it sits in)
        let mut stack: Vec<(&'a Value, String, usize)> = vec![(root, String::new(), 0)];
        while let Some((node, ptr, mut res)) = stack.pop() {
            let Some(obj) = node.as_object() else {
                continue;
            };
            if let Some(id) = obj.get("$id").and_then(Value::as_str) {
                if let Some(name) = id.strip_prefix('#') {
                    r.anchors
                        .insert((res, pointer::percent_decode(name)), ptr.clone());
                } else if !ptr.is_empty()
                    && let Some(abs) = resolve_uri(id, r.resources[res].base.as_deref())
                {
                    let key = strip_fragment(&abs).to_string();
                    r.resources.push(Resource {
                        base: Some(key.clone()),
                        pointer: ptr.clone(),
                    });
                    res = r.resources.len() - 1;
                    r.ids.insert(key, res);
                }
            }
            if let Some(a) = obj.get("$anchor").and_then(Value::as_str) {
                r.anchors.insert((res, a.to_string()), ptr.clone());
            }
            if res != 0 {
                r.sites.insert(addr(obj), res);
                r.site_pointers.insert(ptr.clone(), res);
            }
            for (k, v) in obj {
                let k = k.as_str();
                if SUBSCHEMA_MAPS.contains(&k) {
                    for (name, sub) in v.as_object().into_iter().flatten() {
                        stack.push((sub, pointer::push(&pointer::push(&ptr, k), name), res));
                    }
                } else if SUBSCHEMA_ARRAYS.contains(&k) && v.is_array() {
                    for (i, sub) in v.as_array().into_iter().flatten().enumerate() {
                        stack.push((
                            sub,
                            pointer::push(&pointer::push(&ptr, k), i.to_string()),
                            res,
                        ));
                    }
                } else if SUBSCHEMA_ONE.contains(&k) {
                    stack.push((v, pointer::push(&ptr, k), res));
                }
            }
        }
        r
    }

    /// The schema root.
    pub fn root(&self) -> &'a Value {
        self.root
    }

    /// Whether `abs` (an absolute URI without fragment) is the `$id` of a resource in
    /// the schema.
    pub fn has_id(&self, abs: &str) -> bool {
        self.ids.contains_key(abs)
    }

    /// The target of `r` written in the root resource (one hop), with its pointer.
    pub fn target(&self, r: &str) -> Result<(&'a Value, String), LocalRefError> {
        self.resolve_in(0, r)
    }

    /// The target of `r` written in the schema object at pointer `site` (one hop).
    pub fn target_at(&self, site: &str, r: &str) -> Result<(&'a Value, String), LocalRefError> {
        self.resolve_in(self.site_pointers.get(site).copied().unwrap_or(0), r)
    }

    /// The target of `r` written in schema `site`, a value inside the root (one hop).
    /// A value outside the root resolves as if written in the root resource.
    pub fn target_from(&self, site: &Value, r: &str) -> Result<(&'a Value, String), LocalRefError> {
        match site.as_object() {
            Some(m) => self.target_in(m, r),
            None => self.resolve_in(0, r),
        }
    }

    /// [`Resolver::target_from`] for a schema object's map.
    pub fn target_in(
        &self,
        site: &Map<String, Value>,
        r: &str,
    ) -> Result<(&'a Value, String), LocalRefError> {
        self.resolve_in(self.sites.get(&addr(site)).copied().unwrap_or(0), r)
    }

    /// The pointer `r` (written in the root resource) names, if it resolves.
    pub fn pointer(&self, r: &str) -> Option<String> {
        self.target(r).ok().map(|(_, p)| p)
    }

    fn resolve_in(&self, res: usize, r: &str) -> Result<(&'a Value, String), LocalRefError> {
        let missing = || LocalRefError::Missing(r.to_string());
        let (res, frag) = if let Some(frag) = r.strip_prefix('#') {
            (res, frag)
        } else {
            let base = self.resources.get(res).and_then(|x| x.base.as_deref());
            let abs = resolve_uri(r, base).ok_or_else(|| LocalRefError::External(r.to_string()))?;
            let Some(&to) = self.ids.get(strip_fragment(&abs)) else {
                return Err(LocalRefError::External(r.to_string()));
            };
            let frag = r.split_once('#').map_or("", |(_, f)| f);
            (to, frag)
        };
        let resource = &self.resources.get(res).ok_or_else(missing)?.pointer;
        let frag = pointer::percent_decode(frag);
        let p = if frag.is_empty() {
            resource.clone()
        } else if frag.starts_with('/') {
            format!("{resource}{frag}")
        } else {
            self.anchors
                .get(&(res, frag))
                .cloned()
                .ok_or_else(missing)?
        };
        self.root.pointer(&p).map(|t| (t, p)).ok_or_else(missing)
    }

    /// Follows `schema`'s `$ref` chain (siblings of `$ref` are not read); `schema` is a
    /// value inside the root, or any value whose references are written in the root
    /// resource.
    pub fn follow(&self, schema: &'a Value) -> Followed<'a> {
        let mut cur = schema;
        let mut at: Option<String> = None;
        let mut seen: HashSet<String> = HashSet::new();
        let mut hops = 0;
        while let Some(r) = ref_of(cur) {
            if hops == MAX_REF_CHAIN {
                return stop(cur, at, LocalRefError::TooDeep);
            }
            hops += 1;
            match self.target_from(cur, r) {
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
}

/// The target of local reference `r` in `root` (one hop), with its pointer: a one-shot
/// [`Resolver::target`].
pub fn target<'a>(root: &'a Value, r: &str) -> Result<(&'a Value, String), LocalRefError> {
    Resolver::new(root).target(r)
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

/// Follows `schema`'s `$ref` chain through `root`: a one-shot [`Resolver::follow`].
///
/// ```
/// use mcpdesc_core::local_ref::follow;
/// use serde_json::json;
/// let root = json!({"$defs": {"A": {"$ref": "#b"}, "B": {"$anchor": "b", "type": "string"}}});
/// let schema = json!({"$ref": "#/$defs/A"});
/// let f = follow(&root, &schema);
/// assert_eq!(f.schema, &json!({"$anchor": "b", "type": "string"}));
/// assert_eq!(f.pointer.as_deref(), Some("/$defs/B"));
/// assert_eq!(f.stopped, None);
/// ```
pub fn follow<'a>(root: &'a Value, schema: &'a Value) -> Followed<'a> {
    Resolver::new(root).follow(schema)
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
    let p = pointer_of(r)?;
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
            Err(LocalRefError::Missing("#anchor".into()))
        );
        assert_eq!(
            target(&r, "defs.json#/a"),
            Err(LocalRefError::External("defs.json#/a".into()))
        );
        assert_eq!(target(&r, ""), Err(LocalRefError::External(String::new())));
    }

    /// The index is skipped only when nothing below the root names itself: a root
    /// `"$id": "#top"` (draft-07's anchor form) and an `$anchor` deep in an `items`
    /// array are still found; an absolute root `$id` is only the base.
    #[test]
    fn anchors_at_the_root_and_deep_inside_arrays() {
        let s = json!({"$id": "#top", "properties": {"a": {"$ref": "#top"}}});
        assert_eq!(target(&s, "#top").map(|(_, p)| p), Ok(String::new()));
        let s = json!({"items": [{"type": "string"}, {"allOf": [{"$anchor": "deep"}]}]});
        assert_eq!(
            target(&s, "#deep").map(|(_, p)| p),
            Ok("/items/1/allOf/0".to_string())
        );
        let s = json!({"$id": "https://x.example/s.json", "$defs": {"a": {"type": "null"}}});
        assert_eq!(
            target(&s, "https://x.example/s.json#/$defs/a").map(|(_, p)| p),
            Ok("/$defs/a".to_string())
        );
        assert_eq!(target(&s, "#a"), Err(LocalRefError::Missing("#a".into())));
    }

    /// Anchors, embedded resources and escaped pointers, against expectations written
    /// from JSON Schema 2020-12 §8.2 and RFC 6901 / RFC 3986 by hand.
    #[test]
    fn anchors_ids_and_escapes() {
        let s = json!({
            "$id": "https://x.example/root.json",
            "type": "object",
            "properties": {
                "p": {"$ref": "#point"},
                "q": {"$ref": "#/$defs/a~1b"},
                "r": {"$ref": "#/$defs/%25"},
                "s": {"$ref": "common.json#/$defs/id"},
                "t": {"$ref": "https://x.example/common.json#name"},
                "u": {"$ref": "#old"},
                "v": {"$ref": "https://x.example/root.json#point"}
            },
            "$defs": {
                "pt": {"$anchor": "point", "type": "object", "required": ["x"]},
                "a/b": {"type": "integer"},
                "%": {"type": "boolean"},
                "old": {"$id": "#old", "type": "null"},
                "c": {
                    "$id": "common.json",
                    "$defs": {"id": {"type": "string"}, "n": {"$anchor": "name", "const": 1}},
                    "properties": {"inner": {"$ref": "#/$defs/id"}, "back": {"$ref": "root.json#point"}}
                }
            },
            "const": {"$anchor": "data", "$id": "https://x.example/data.json"}
        });
        let res = Resolver::new(&s);
        let ptr = |site: &str, r: &str| res.target_at(site, r).map(|(_, p)| p);
        assert_eq!(
            res.target("#point").map(|(_, p)| p).as_deref(),
            Ok("/$defs/pt")
        );
        assert_eq!(ptr("", "#/$defs/a~1b").as_deref(), Ok("/$defs/a~1b"));
        assert_eq!(
            res.target("#/$defs/a~1b").map(|(v, _)| v),
            Ok(&json!({"type": "integer"}))
        );
        assert_eq!(
            res.target("#/$defs/%25").map(|(v, _)| v),
            Ok(&json!({"type": "boolean"}))
        );
        assert_eq!(
            ptr("", "common.json#/$defs/id").as_deref(),
            Ok("/$defs/c/$defs/id")
        );
        assert_eq!(
            ptr("", "https://x.example/common.json#name").as_deref(),
            Ok("/$defs/c/$defs/n")
        );
        assert_eq!(ptr("", "#old").as_deref(), Ok("/$defs/old"));
        assert_eq!(
            ptr("", "https://x.example/root.json#point").as_deref(),
            Ok("/$defs/pt")
        );
        // Inside the embedded resource, fragments are its own.
        assert_eq!(
            ptr("/$defs/c/properties/inner", "#/$defs/id").as_deref(),
            Ok("/$defs/c/$defs/id")
        );
        let inner = &s["$defs"]["c"]["properties"]["inner"];
        assert_eq!(
            res.target_from(inner, "#/$defs/id")
                .map(|(_, p)| p)
                .as_deref(),
            Ok("/$defs/c/$defs/id")
        );
        assert_eq!(
            res.target_from(inner, "root.json#point")
                .map(|(_, p)| p)
                .as_deref(),
            Ok("/$defs/pt")
        );
        assert_eq!(ptr("/$defs/c", "#name").as_deref(), Ok("/$defs/c/$defs/n"));
        // An anchor of another resource is not one of the root's; data is not a schema.
        assert_eq!(
            ptr("", "#name"),
            Err(LocalRefError::Missing("#name".into()))
        );
        assert_eq!(
            ptr("", "#data"),
            Err(LocalRefError::Missing("#data".into()))
        );
        assert_eq!(
            ptr("", "data.json"),
            Err(LocalRefError::External("data.json".into()))
        );
        assert_eq!(
            ptr("", "other.json#/a"),
            Err(LocalRefError::External("other.json#/a".into()))
        );
        // Chains go through anchors and resources alike.
        let f = res.follow(&s["properties"]["p"]);
        assert_eq!((f.pointer.as_deref(), f.stopped), (Some("/$defs/pt"), None));
        let f = res.follow(&s["properties"]["s"]);
        assert_eq!(f.schema, &json!({"type": "string"}));
        assert_eq!(
            LocalRefError::Missing("#x".into()).to_string(),
            "`$ref` \"#x\" does not resolve inside its schema"
        );
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
