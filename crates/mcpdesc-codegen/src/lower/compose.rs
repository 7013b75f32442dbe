//! Unions (`oneOf`/`anyOf`, multi-`type`), `allOf` merging, and the order in which
//! untagged alternatives are tried.

use super::shape::is_ignorable;
use super::{Ctx, Lowerer, Shape, schema_doc, schema_doc_of, warn};
use crate::ir::*;
use crate::names;
use mcpdesc_core::pointer;
use serde_json::{Map, Value};

impl<'a> Lowerer<'a> {
    /// `oneOf`/`anyOf` whose alternatives only add constraints (`required`, …) to the
    /// enclosing schema: ignoring them is looser, so the enclosing schema is lowered alone.
    pub(super) fn constraint_only_arms(&self, obj: &Map<String, Value>) -> bool {
        ["oneOf", "anyOf"]
            .iter()
            .filter_map(|k| obj.get(*k))
            .all(|arms| {
                arms.as_array().is_some_and(|a| {
                    a.iter().all(|arm| {
                        arm.as_object().is_some_and(|m| {
                            !m.is_empty()
                                && m.keys().all(|k| {
                                    matches!(
                                        k.as_str(),
                                        "required"
                                            | "minProperties"
                                            | "maxProperties"
                                            | "not"
                                            | "description"
                                            | "title"
                                            | "$comment"
                                    )
                                })
                        })
                    })
                })
            })
            && (obj.contains_key("properties")
                || obj.get("type").and_then(Value::as_str) == Some("object"))
    }

    /// Resolves a local `$ref` alternative to (schema, absolute pointer, ctx-relative ptr).
    fn peel(&self, ctx: &Ctx<'a>, s: &'a Value, ptr: &str) -> (&'a Value, String) {
        let f = ctx.refs.follow(s);
        let at = match f.pointer {
            Some(p) => format!("{}{}", ctx.base, p),
            None => ptr.to_string(),
        };
        (f.schema, at)
    }

    /// The tag property shared by all alternatives, if any.
    fn find_tag(arms: &[&Value]) -> Option<(String, Vec<String>)> {
        let first = arms.first()?.get("properties")?.as_object()?;
        'cand: for name in first.keys() {
            let mut values = Vec::new();
            for arm in arms {
                let is_object = arm
                    .get("type")
                    .and_then(Value::as_str)
                    .is_none_or(|t| t == "object");
                let required = arm
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(name)));
                let prop = arm.get("properties").and_then(|p| p.get(name));
                let value = prop.and_then(|p| {
                    p.get("const").and_then(Value::as_str).or_else(|| {
                        p.get("enum")
                            .and_then(Value::as_array)
                            .filter(|a| a.len() == 1)
                            .and_then(|a| a[0].as_str())
                    })
                });
                let plain = ["oneOf", "anyOf", "allOf", "$ref", "if"]
                    .iter()
                    .all(|k| arm.get(*k).is_none());
                match value {
                    Some(v) if is_object && required && plain && !values.iter().any(|x| x == v) => {
                        values.push(v.to_string())
                    }
                    _ => continue 'cand,
                }
            }
            return Some((name.clone(), values));
        }
        None
    }

    pub(super) fn union(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        kw: &str,
        ptr: &str,
        hint: &str,
        depth: usize,
    ) -> Shape {
        let at = pointer::push(ptr, kw);
        let Some(arms) = obj
            .get(kw)
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
        else {
            return self.any(
                "codegen-invalid-schema",
                format!("`{kw}` must be a non-empty array"),
                &at,
            );
        };
        let mut nullable = false;
        let mut peeled: Vec<(&'a Value, String, &'a Value, String)> = Vec::new();
        for (i, arm) in arms.iter().enumerate() {
            let p = pointer::push(&at, i.to_string());
            let (t, abs) = self.peel(ctx, arm, &p);
            let is_null = t.get("type").and_then(Value::as_str) == Some("null")
                || t.get("const").is_some_and(Value::is_null);
            if is_null {
                nullable = true;
            } else {
                peeled.push((t, abs, arm, p));
            }
        }
        let sh = if peeled.is_empty() {
            Shape::Ty(Ty::Null)
        } else if peeled.len() == 1 {
            let (_, _, arm, p) = &peeled[0];
            self.shape(ctx, arm, p, hint, depth + 1)
        } else if let Some((tag, values)) =
            Self::find_tag(&peeled.iter().map(|x| x.0).collect::<Vec<_>>())
        {
            let mut variants = Vec::new();
            for ((t, abs, _, _), value) in peeled.iter().zip(values) {
                let Some(m) = t.as_object() else { continue };
                let vhint = format!("{hint}{}", names::pascal(&value, "Variant"));
                let fields = self.fields(ctx, m, abs, &vhint, depth + 1, Some(&tag));
                let extra = self.extra(ctx, m, abs, &vhint, depth + 1);
                variants.push(Variant {
                    names: Names::default(),
                    doc: schema_doc(t),
                    tag_value: Some(value),
                    payload: Payload::Fields(Object { fields, extra }),
                });
            }
            Shape::Kind(Kind::Union(Union {
                tag: Some(tag),
                variants,
            }))
        } else {
            let mut variants = Vec::new();
            for (i, (_, _, arm, p)) in peeled.iter().enumerate() {
                let ty = self.lower(ctx, arm, p, &format!("{hint}Variant{i}"), depth + 1);
                if ty == Ty::Any {
                    // One alternative accepts anything, so the union does.
                    return Shape::Ty(Ty::Any);
                }
                variants.push(Variant {
                    names: Names::default(),
                    doc: None,
                    tag_value: None,
                    payload: Payload::Type(ty),
                });
            }
            Shape::Kind(Kind::Union(Union {
                tag: None,
                variants,
            }))
        };
        if nullable {
            self.nullable(sh, ptr, hint, || schema_doc_of(obj))
        } else {
            sh
        }
    }

    pub(super) fn all_of(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        ptr: &str,
        hint: &str,
        depth: usize,
    ) -> Shape {
        let at = pointer::push(ptr, "allOf");
        let Some(arms) = obj
            .get("allOf")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
        else {
            return self.any(
                "codegen-invalid-schema",
                "`allOf` must be a non-empty array",
                &at,
            );
        };
        // One alternative and nothing else that shapes the value (OpenAPI's way to give a
        // `$ref` a description or make it nullable): the alternative itself, so a
        // referenced component stays its one named type instead of a merged copy.
        if let [arm] = arms.as_slice()
            && obj
                .keys()
                .all(|k| k == "allOf" || k.starts_with("x-") || is_ignorable(k))
        {
            return self.shape(ctx, arm, &pointer::push(&at, "0"), hint, depth + 1);
        }
        // Merge object arms (and this schema's own properties) into one object.
        let mut parts: Vec<(&'a Map<String, Value>, String)> = vec![(obj, ptr.to_string())];
        for (i, arm) in arms.iter().enumerate() {
            let (t, abs) = self.peel(ctx, arm, &pointer::push(&at, i.to_string()));
            let Some(m) = t.as_object() else {
                return self.any(
                    "codegen-unsupported-composition",
                    "`allOf` with a non-object alternative is typed as any JSON value",
                    &at,
                );
            };
            let shaped = [
                "oneOf",
                "anyOf",
                "allOf",
                "items",
                "prefixItems",
                "enum",
                "const",
            ]
            .iter()
            .any(|k| m.contains_key(*k))
                || m.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t != "object");
            if shaped {
                return self.any(
                    "codegen-unsupported-composition",
                    "`allOf` is supported only for object alternatives; typed as any JSON value",
                    &at,
                );
            }
            parts.push((m, abs));
        }
        let mut fields: Vec<Field> = Vec::new();
        let mut extra_typed: Option<Extra> = None;
        let mut required: Vec<String> = Vec::new();
        for (m, abs) in &parts {
            if let Some(r) = m.get("required").and_then(Value::as_array) {
                required.extend(r.iter().filter_map(Value::as_str).map(str::to_string));
            }
            for f in self.fields(ctx, m, abs, hint, depth + 1, None) {
                if let Some(existing) = fields.iter().position(|x| x.wire == f.wire) {
                    if fields[existing].ty != f.ty {
                        self.diags.push(warn("codegen-allof-conflict", format!("property {:?} is declared differently in several `allOf` alternatives; typed as any JSON value", f.wire), abs));
                        fields[existing].ty = Ty::Any;
                    }
                } else {
                    fields.push(f);
                }
            }
            // `additionalProperties: false` in one alternative forbids the others'
            // properties in JSON Schema; keeping the object open is looser, never stricter.
            let closed = m.get("additionalProperties") == Some(&Value::Bool(false));
            if !closed
                && (m.contains_key("additionalProperties") || m.contains_key("patternProperties"))
            {
                extra_typed = Some(self.extra(ctx, m, abs, hint, depth + 1));
            }
        }
        for f in &mut fields {
            f.required = f.required || required.contains(&f.wire);
        }
        let extra = extra_typed.unwrap_or(Extra::Open);
        if fields.is_empty() {
            return Shape::Ty(match extra {
                Extra::Typed(t) => Ty::Map {
                    values: Box::new(t),
                },
                _ => Ty::Map {
                    values: Box::new(Ty::Any),
                },
            });
        }
        Shape::Kind(Kind::Object(Object { fields, extra }))
    }
}

fn rank(ir: &Ir, ty: &Ty) -> (u8, usize) {
    match ty {
        Ty::Null => (0, 0),
        Ty::Bool => (1, 0),
        Ty::Literal { .. } | Ty::Enum { .. } => (2, 0),
        Ty::Int { .. } => (3, 0),
        Ty::Number => (4, 0),
        Ty::Named { id } => match ir.types.get(*id).map(|t| &t.kind) {
            Some(Kind::StrEnum { .. }) => (5, 0),
            Some(Kind::Object(o)) => (
                9,
                usize::MAX - o.fields.iter().filter(|f| f.required).count(),
            ),
            Some(Kind::Union(_)) => (10, 0),
            _ => (11, 0),
        },
        Ty::String => (6, 0),
        Ty::Tuple { .. } => (7, 0),
        Ty::Array { .. } => (8, 0),
        Ty::Nullable { inner } => rank(ir, inner),
        Ty::Map { .. } => (12, 0),
        Ty::Any => (13, 0),
    }
}

/// Untagged alternatives are tried in order: most specific first.
pub(super) fn sort_untagged(ir: &mut Ir) {
    for i in 0..ir.types.len() {
        let Kind::Union(u) = &ir.types[i].kind else {
            continue;
        };
        if u.tag.is_some() {
            continue;
        }
        let mut vs = u.variants.clone();
        vs.sort_by_key(|v| match &v.payload {
            Payload::Type(t) => rank(ir, t),
            Payload::Fields(_) => (9, 0),
        });
        if let Kind::Union(u) = &mut ir.types[i].kind {
            u.variants = vs;
        }
    }
}
