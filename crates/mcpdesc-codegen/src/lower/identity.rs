//! Local `$ref`s and type identity: a referenced definition is one named type per
//! identity, so repeats across self-contained tool schemas share a type.

use super::shape::ANNOTATIONS;
use super::{Ctx, Lowerer, Shape, schema_doc};
use crate::ir::*;
use crate::names;
use mcpdesc_core::{SameJson, pointer};
use serde_json::{Map, Value};

/// A definition's identity (see [`Lowerer::identity`]). It used to be the definitions
/// serialized into one string; comparing the JSON in place gives the same equality
/// without serializing every reachable definition once per use site (a third of
/// lowering time on the GitHub description).
#[derive(PartialEq, Eq, Hash)]
pub(super) struct Identity<'a> {
    base: String,
    target: SameJson<'a>,
    reached: Vec<(String, SameJson<'a>)>,
}

/// Decodes a URI fragment JSON pointer (`%25` escapes) into a plain pointer.
pub(super) fn decode_fragment(f: &str) -> String {
    let bytes = f.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(
                std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"),
                16,
            )
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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
        if let Some(&id) = self.by_origin.get(abs) {
            return id;
        }
        let identity = Self::identity(ctx.root, target, &base);
        if let Some(&id) = self.by_identity.get(&identity) {
            self.by_origin.insert(abs.to_string(), id);
            return id;
        }
        let id = self.new_type(base, abs.to_string(), schema_doc(target));
        self.by_origin.insert(abs.to_string(), id);
        self.by_identity.insert(identity, id);
        self.define(id, ctx, target, abs, depth + 1);
        id
    }

    /// its own JSON, and every definition it reaches through local `$ref`s, each keyed by
    /// its pointer. Two definitions with equal identities lower to equal types because
    /// every reference inside them resolves, by the same pointer, to the same JSON; so
    /// sharing one type is exact (no silent merging of different same-named types).
    fn identity(root: &'a Value, target: &'a Value, base: &str) -> Identity<'a> {
        let mut reached: std::collections::BTreeMap<String, &'a Value> = Default::default();
        let mut todo = vec![target];
        while let Some(v) = todo.pop() {
            let mut stack = vec![v];
            while let Some(n) = stack.pop() {
                match n {
                    Value::Object(m) => {
                        if let Some(r) = m.get("$ref").and_then(Value::as_str)
                            && let Some(frag) = r.strip_prefix('#')
                        {
                            let p = decode_fragment(frag);
                            if !reached.contains_key(&p)
                                && let Some(t) = root.pointer(&p)
                            {
                                reached.insert(p, t);
                                todo.push(t);
                            }
                        }
                        stack.extend(m.values());
                    }
                    Value::Array(a) => stack.extend(a),
                    _ => {}
                }
            }
        }
        Identity {
            base: base.to_string(),
            target: SameJson(target),
            reached: reached.into_iter().map(|(p, v)| (p, SameJson(v))).collect(),
        }
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
            .filter(|k| {
                k.as_str() != "$ref" && !k.starts_with("x-") && !ANNOTATIONS.contains(&k.as_str())
            })
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
        let Some(frag) = r.strip_prefix('#') else {
            return self.any(
                "codegen-ref-external",
                format!("external `$ref` {r:?} is not fetched; typed as any JSON value"),
                &at,
            );
        };
        let p = decode_fragment(frag);
        if !p.is_empty() && !p.starts_with('/') {
            return self.any(
                "codegen-ref-anchor",
                format!("anchor `$ref` {r:?} is not supported; typed as any JSON value"),
                &at,
            );
        }
        let Some(target) = ctx.root.pointer(&p) else {
            return self.any(
                "codegen-ref-unresolved",
                format!("`$ref` {r:?} does not resolve inside its schema; typed as any JSON value"),
                &at,
            );
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
