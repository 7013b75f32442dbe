//! Local `$ref`s and type identity: a referenced definition is one named type per
//! identity, so repeats across self-contained tool schemas share a type.

use super::shape::is_ignorable;
use super::{Ctx, Lowerer, Shape, schema_doc};
use crate::ir::*;
use crate::names;
use mcpdesc_core::local_ref::{LocalRefError, Resolver};
use mcpdesc_core::{SameJson, pointer};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Keywords of a schema resource root that say nothing about the root's own shape: a
/// root without them is compared with a `$defs` entry (an importer inlines a component
/// `Pet` as a tool's output root and repeats it as `$defs/Pet` in the tools that
/// reference it).
const RESOURCE_KEYWORDS: &[&str] = &["$schema", "$defs", "definitions"];

/// The JSON a named type is made of: a definition as it is, or a schema resource root
/// without its [`RESOURCE_KEYWORDS`]. Compared and hashed member by member as
/// [`SameJson`] compares (order included), so a root equals a definition with the same
/// members.
#[derive(Debug, Clone, Copy)]
pub(super) enum Content<'a> {
    Whole(&'a Value),
    Root(&'a Map<String, Value>),
}

impl<'a> Content<'a> {
    /// Members, when the content is an object.
    fn members(self) -> Option<impl Iterator<Item = (&'a String, &'a Value)>> {
        let (map, root) = match self {
            Content::Whole(Value::Object(m)) => (m, false),
            Content::Whole(_) => return None,
            Content::Root(m) => (m, true),
        };
        Some(
            map.iter()
                .filter(move |(k, _)| !(root && RESOURCE_KEYWORDS.contains(&k.as_str()))),
        )
    }

    /// The values this content is made of (where its local `$ref`s are).
    fn values(self) -> Vec<&'a Value> {
        match (self, self.members()) {
            (_, Some(m)) => m.map(|(_, v)| v).collect(),
            (Content::Whole(v), None) => vec![v],
            (Content::Root(_), None) => Vec::new(),
        }
    }
}

impl PartialEq for Content<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.members(), other.members()) {
            (Some(a), Some(b)) => {
                let (a, b): (Vec<_>, Vec<_>) = (a.collect(), b.collect());
                a.len() == b.len()
                    && a.iter()
                        .zip(&b)
                        .all(|((ka, va), (kb, vb))| ka == kb && SameJson(va) == SameJson(vb))
            }
            (None, None) => match (self, other) {
                (Content::Whole(a), Content::Whole(b)) => SameJson(a) == SameJson(b),
                _ => false,
            },
            _ => false,
        }
    }
}

impl Eq for Content<'_> {}

impl std::hash::Hash for Content<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match (self, self.members()) {
            (_, Some(members)) => {
                h.write_u8(6);
                for (k, v) in members {
                    k.hash(h);
                    SameJson(v).hash(h);
                }
            }
            (Content::Whole(v), None) => SameJson(v).hash(h),
            (Content::Root(_), None) => {}
        }
    }
}

/// A named type's identity (see [`Lowerer::identity`]). It used to be the definitions
/// serialized into one string; comparing the JSON in place gives the same equality
/// without serializing every reachable definition once per use site (a third of
/// lowering time on the GitHub description).
#[derive(PartialEq, Eq, Hash)]
pub(super) struct Identity<'a> {
    base: String,
    target: Content<'a>,
    reached: Vec<(String, SameJson<'a>)>,
}

/// Every `$defs`/`definitions` entry of the view's tool schemas, by content: what a tool
/// root is looked up in to find the component it is.
#[derive(Default)]
pub(super) struct Definitions<'a> {
    /// Name, definition and the schema resource root it is in.
    by_content: HashMap<Content<'a>, Vec<(&'a str, &'a Value, &'a Value)>>,
}

impl<'a> Definitions<'a> {
    /// Indexes the definitions of one schema resource `root`.
    pub(super) fn add(&mut self, root: &'a Value) {
        for kw in ["$defs", "definitions"] {
            let Some(defs) = root.get(kw).and_then(Value::as_object) else {
                continue;
            };
            for (name, def) in defs {
                self.by_content
                    .entry(Content::Whole(def))
                    .or_default()
                    .push((name, def, root));
            }
        }
    }

    /// The name of the first indexed definition (in document order) that is the same
    /// type as the schema resource `root`: equal JSON, and equal definitions reached
    /// through local `$ref`s, by pointer.
    fn name_of(&self, refs: &Resolver<'a>) -> Option<&'a str> {
        let Value::Object(m) = refs.root() else {
            return None;
        };
        let content = Content::Root(m);
        let candidates = self.by_content.get(&content)?;
        let reached = Lowerer::reached(refs, content);
        candidates.iter().find_map(|&(name, def, def_root)| {
            let def_refs = Resolver::new(def_root);
            (Lowerer::reached(&def_refs, Content::Whole(def)) == reached).then_some(name)
        })
    }
}

impl<'a> Lowerer<'a> {
    /// The named type for the schema at absolute pointer `abs` (memoized).
    pub(super) fn named(
        &mut self,
        ctx: &Ctx<'a>,
        target: &'a Value,
        abs: &str,
        base: String,
        depth: usize,
    ) -> TypeId {
        self.named_as(ctx, target, Content::Whole(target), abs, base, depth)
    }

    /// The named type for a tool's schema resource root (`ctx.root`, at `abs`) when it is
    /// a component: referenced by `$componentRef` (`component`: the component pointer),
    /// named by the importer's provenance (`hint`), or equal to a `$defs` entry of the
    /// view. `None` when it is none of these: the root is the tool's own type.
    pub(super) fn component_root(
        &mut self,
        ctx: &Ctx<'a>,
        component: Option<&str>,
        hint: Option<&str>,
    ) -> Option<TypeId> {
        let Value::Object(m) = ctx.root else {
            return None;
        };
        let name = match (component, hint) {
            (Some(c), _) => pointer::tokens(c).last().cloned(),
            (None, Some(h)) => Some(h.to_string()),
            (None, None) => self.definitions.name_of(&ctx.refs).map(str::to_string),
        }?;
        let base = names::pascal(&name, "Def");
        Some(self.named_as(ctx, ctx.root, Content::Root(m), &ctx.base, base, 0))
    }

    fn named_as(
        &mut self,
        ctx: &Ctx<'a>,
        target: &'a Value,
        content: Content<'a>,
        abs: &str,
        base: String,
        depth: usize,
    ) -> TypeId {
        if let Some(&id) = self.by_origin.get(abs) {
            return id;
        }
        let identity = Identity {
            reached: Self::reached(&ctx.refs, content),
            base,
            target: content,
        };
        if let Some(&id) = self.by_identity.get(&identity) {
            self.by_origin.insert(abs.to_string(), id);
            return id;
        }
        let id = self.new_type(identity.base.clone(), abs.to_string(), schema_doc(target));
        self.by_origin.insert(abs.to_string(), id);
        self.by_identity.insert(identity, id);
        self.define(id, ctx, target, abs, depth + 1);
        id
    }

    /// What makes a named type the same wherever it appears: its name, its own JSON
    /// ([`Content`]), and every definition it reaches through local `$ref`s, each keyed
    /// by its pointer in the schema resource `root`. Two types with equal identities
    /// lower to equal types because every reference inside them resolves, by the same
    /// pointer, to the same JSON; so sharing one type is exact (no silent merging of
    /// different same-named types). This is the last part: the reached definitions.
    fn reached(refs: &Resolver<'a>, content: Content<'a>) -> Vec<(String, SameJson<'a>)> {
        let mut reached: std::collections::BTreeMap<String, &'a Value> = Default::default();
        let mut todo = content.values();
        while let Some(v) = todo.pop() {
            let mut stack = vec![v];
            while let Some(n) = stack.pop() {
                match n {
                    Value::Object(m) => {
                        if let Some(r) = m.get("$ref").and_then(Value::as_str)
                            && let Ok((t, p)) = refs.target_from(n, r)
                            && !reached.contains_key(&p)
                        {
                            reached.insert(p, t);
                            todo.push(t);
                        }
                        stack.extend(m.values());
                    }
                    Value::Array(a) => stack.extend(a),
                    _ => {}
                }
            }
        }
        reached.into_iter().map(|(p, v)| (p, SameJson(v))).collect()
    }

    pub(super) fn reference(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        r: &'a Value,
        ptr: &str,
        depth: usize,
    ) -> Shape {
        let at = pointer::push(ptr, "$ref");
        let Some(r) = r.as_str() else {
            return self.any("codegen-invalid-schema", "`$ref` must be a string", &at);
        };
        let shape_siblings: Vec<&String> = obj
            .keys()
            .filter(|k| k.as_str() != "$ref" && !k.starts_with("x-") && !is_ignorable(k))
            .collect();
        if !shape_siblings.is_empty() {
            return self.any(
                "codegen-ref-siblings",
                format!(
                    "`$ref` next to `{}` is typed as any JSON value",
                    shape_siblings[0]
                ),
                &at,
            );
        }
        let (target, p) = match ctx.refs.target_in(obj, r) {
            Ok(found) => found,
            Err(LocalRefError::External(_)) => {
                return self.any(
                    "codegen-ref-external",
                    format!("external `$ref` {r:?} is not fetched; typed as any JSON value"),
                    &at,
                );
            }
            // The one resolver's code and message, as validation reports them.
            Err(e) => {
                return self.any(e.code(), format!("{e}; typed as any JSON value"), &at);
            }
        };
        // Follow pure `$ref` chains here so alias loops are caught before naming.
        let abs = format!("{}{}", ctx.base, p);
        let last = pointer::tokens(&p).last().cloned().unwrap_or_default();
        let base = if p.is_empty() {
            // `#`: the schema resource itself, already named when it is a tool root.
            String::from("Root")
        } else {
            names::pascal(&last, "Def")
        };
        if !self.by_origin.contains_key(&abs) && self.types.len() > 100_000 {
            return self.any(
                "codegen-too-many-types",
                "too many named types; typed as any JSON value",
                &at,
            );
        }
        let id = self.named(ctx, target, &abs, base, depth);
        Shape::Ty(Ty::Named { id })
    }
}
