//! One schema → a type: scalars, arrays and tuples, objects and maps, enums and consts.

use super::{Ctx, Lowerer, MAX_SCHEMA_DEPTH, Shape, schema_doc};
use crate::ir::*;
use crate::names;
use mcpdesc_core::{pointer, schema};
use serde_json::{Map, Value};

/// Whether a keyword only constrains or annotates values: ignoring it makes a type
/// looser, never stricter, so it is dropped without a diagnostic. The JSON Schema
/// annotations ([`schema::is_annotation`]) and [`LOOSENING`].
pub(super) fn is_ignorable(keyword: &str) -> bool {
    schema::is_annotation(keyword) || LOOSENING.contains(&keyword)
}

/// Keywords other than annotations whose absence only loosens a type: identifiers,
/// definitions, `format` and the value assertions no target type models.
const LOOSENING: &[&str] = &[
    "&str] = &[",
    "$schema",
    "$id",
    "$anchor",
    "$defs",
    "definitions",
    "format",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "not",
    "required",
    "dependentRequired",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicAnchor",
    "$vocabulary",
];

/// Keywords that change the shape of valid values and that this lowering does not
/// model: a schema using them becomes `Any`.
const UNSUPPORTED: &[&str] = &[
    "if",
    "then",
    "else",
    "dependentSchemas",
    "$dynamicRef",
    "$recursiveRef",
    "dependencies",
];

impl<'a> Lowerer<'a> {
    pub(super) fn shape(
        &mut self,
        ctx: &Ctx<'a>,
        s: &'a Value,
        ptr: &str,
        hint: &str,
        depth: usize,
    ) -> Shape {
        if depth > MAX_SCHEMA_DEPTH {
            return self.any(
                "codegen-schema-too-deep",
                format!(
                    "schema nested deeper than {MAX_SCHEMA_DEPTH} levels; typed as any JSON value"
                ),
                ptr,
            );
        }
        let obj = match s {
            Value::Bool(_) => return Shape::Ty(Ty::Any),
            Value::Object(m) => m,
            _ => {
                return self.any(
                    "codegen-invalid-schema",
                    "not a JSON Schema (object or boolean); typed as any JSON value",
                    ptr,
                );
            }
        };
        if let Some(k) = UNSUPPORTED.iter().find(|k| obj.contains_key(**k)) {
            return self.any(
                "codegen-unsupported-keyword",
                format!("`{k}` is not supported by code generation; typed as any JSON value"),
                &pointer::push(ptr, k),
            );
        }
        if let Some(r) = obj.get("$ref") {
            return self.reference(ctx, obj, r, ptr, depth);
        }
        if let Some(c) = obj.get("const") {
            return match c {
                Value::String(v) => Shape::Kind(Kind::StrEnum {
                    variants: vec![EnumVariant {
                        wire: v.clone(),
                        names: Names::default(),
                    }],
                }),
                Value::Null => Shape::Ty(Ty::Null),
                Value::Array(_) | Value::Object(_) => self.any(
                    "codegen-unsupported-const",
                    "structured `const` values are typed as any JSON value",
                    &pointer::push(ptr, "const"),
                ),
                v => Shape::Ty(Ty::Literal { value: v.clone() }),
            };
        }
        if let Some(e) = obj.get("enum") {
            return self.enumeration(e, ptr, hint);
        }
        let has_one = obj.contains_key("oneOf");
        let has_any = obj.contains_key("anyOf");
        let has_all = obj.contains_key("allOf");
        if (has_one || has_any) && !self.constraint_only_arms(obj) {
            if has_one && has_any || has_all {
                return self.any(
                    "codegen-unsupported-composition",
                    "combined `allOf`/`oneOf`/`anyOf` are typed as any JSON value",
                    ptr,
                );
            }
            if obj.contains_key("properties")
                || obj.contains_key("items")
                || obj.contains_key("prefixItems")
            {
                return self.any(
                    "codegen-unsupported-composition",
                    "a union with sibling `properties`/`items` is typed as any JSON value",
                    ptr,
                );
            }
            let kw = if has_one { "oneOf" } else { "anyOf" };
            return self.union(ctx, obj, kw, ptr, hint, depth);
        }
        if has_all {
            return self.all_of(ctx, obj, ptr, hint, depth);
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.typed(ctx, obj, t, ptr, hint, depth),
            Some(Value::Array(ts)) => {
                let mut kinds: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                kinds.dedup();
                let nullable = kinds.contains(&"null");
                kinds.retain(|k| *k != "null");
                let sh = match kinds.as_slice() {
                    [] => Shape::Ty(Ty::Null),
                    [one] => self.typed(ctx, obj, one, ptr, hint, depth),
                    many => {
                        let mut variants = Vec::new();
                        for k in many {
                            let ty = match self.typed(
                                ctx,
                                obj,
                                k,
                                ptr,
                                &format!("{hint}{}", names::pascal(k, "")),
                                depth,
                            ) {
                                Shape::Ty(t) => t,
                                Shape::Kind(kind) => {
                                    let id = self.new_type(
                                        format!("{hint}{}", names::pascal(k, "")),
                                        ptr.to_string(),
                                        None,
                                    );
                                    self.types[id].kind = kind;
                                    Ty::Named { id }
                                }
                            };
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
                    }
                };
                if nullable {
                    self.nullable(sh, ptr, hint, || schema_doc(s))
                } else {
                    sh
                }
            }
            Some(_) => self.any(
                "codegen-invalid-schema",
                "`type` must be a string or an array of strings",
                &pointer::push(ptr, "type"),
            ),
            None => {
                if ["properties", "additionalProperties", "patternProperties"]
                    .iter()
                    .any(|k| obj.contains_key(*k))
                {
                    self.object(ctx, obj, ptr, hint, depth)
                } else if obj.contains_key("items") || obj.contains_key("prefixItems") {
                    Shape::Ty(self.array(ctx, obj, ptr, hint, depth))
                } else {
                    Shape::Ty(Ty::Any)
                }
            }
        }
    }

    /// Makes a shape nullable, naming it first when it is a kind.
    pub(super) fn nullable(
        &mut self,
        sh: Shape,
        ptr: &str,
        hint: &str,
        doc: impl FnOnce() -> Option<String>,
    ) -> Shape {
        match sh {
            Shape::Ty(t) => Shape::Ty(t.nullable()),
            Shape::Kind(k) => {
                let id = self.new_type(hint.to_string(), ptr.to_string(), doc());
                self.types[id].kind = k;
                Shape::Ty(Ty::Named { id }.nullable())
            }
        }
    }

    fn enumeration(&mut self, e: &Value, ptr: &str, hint: &str) -> Shape {
        let at = pointer::push(ptr, "enum");
        let Some(vals) = e.as_array().filter(|a| !a.is_empty()) else {
            return self.any(
                "codegen-invalid-schema",
                "`enum` must be a non-empty array",
                &at,
            );
        };
        let nullable = vals.iter().any(Value::is_null);
        let non_null: Vec<&Value> = vals.iter().filter(|v| !v.is_null()).collect();
        let sh = if non_null.is_empty() {
            Shape::Ty(Ty::Null)
        } else if non_null.iter().all(|v| v.is_string()) {
            let mut variants: Vec<EnumVariant> = Vec::new();
            for v in non_null.iter().filter_map(|v| v.as_str()) {
                if !variants.iter().any(|x| x.wire == v) {
                    variants.push(EnumVariant {
                        wire: v.to_string(),
                        names: Names::default(),
                    });
                }
            }
            Shape::Kind(Kind::StrEnum { variants })
        } else if non_null.iter().all(|v| !v.is_object() && !v.is_array()) {
            if non_null.len() == 1 {
                Shape::Ty(Ty::Literal {
                    value: non_null[0].clone(),
                })
            } else {
                Shape::Ty(Ty::Enum {
                    values: non_null.into_iter().cloned().collect(),
                })
            }
        } else {
            return self.any(
                "codegen-unsupported-enum",
                "`enum` with structured values is typed as any JSON value",
                &at,
            );
        };
        match sh {
            Shape::Kind(k) if nullable => {
                // A nullable string enum: name the enum, wrap it.
                let id = self.new_type(hint.to_string(), ptr.to_string(), None);
                self.types[id].kind = k;
                Shape::Ty(Ty::Named { id }.nullable())
            }
            Shape::Ty(t) if nullable => Shape::Ty(t.nullable()),
            other => other,
        }
    }

    fn typed(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        t: &str,
        ptr: &str,
        hint: &str,
        depth: usize,
    ) -> Shape {
        match t {
            "string" => Shape::Ty(Ty::String),
            "boolean" => Shape::Ty(Ty::Bool),
            "number" => Shape::Ty(Ty::Number),
            "null" => Shape::Ty(Ty::Null),
            "integer" => Shape::Ty(Ty::Int { int: int_kind(obj) }),
            "array" => Shape::Ty(self.array(ctx, obj, ptr, hint, depth)),
            "object" => self.object(ctx, obj, ptr, hint, depth),
            other => self.any(
                "codegen-invalid-schema",
                format!("unknown type {other:?}; typed as any JSON value"),
                &pointer::push(ptr, "type"),
            ),
        }
    }

    fn array(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        ptr: &str,
        hint: &str,
        depth: usize,
    ) -> Ty {
        let item_hint = format!("{hint}Item");
        // 2020-12 `prefixItems` + `items`; draft-07 array-form `items` + `additionalItems`.
        let (prefix, prefix_kw, rest_kw) = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(p)), _) => (Some(p), "prefixItems", "items"),
            (_, Some(Value::Array(p))) => (Some(p), "items", "additionalItems"),
            _ => (None, "", ""),
        };
        if let Some(prefix) = prefix {
            let mut items = Vec::new();
            for (i, it) in prefix.iter().enumerate() {
                let p = pointer::push(&pointer::push(ptr, prefix_kw), i.to_string());
                items.push(self.lower(ctx, it, &p, &format!("{item_hint}{i}"), depth + 1));
            }
            let rest = match obj.get(rest_kw) {
                Some(Value::Bool(false)) => None,
                None | Some(Value::Bool(true)) => Some(Box::new(Ty::Any)),
                Some(s) => Some(Box::new(self.lower(
                    ctx,
                    s,
                    &pointer::push(ptr, rest_kw),
                    &item_hint,
                    depth + 1,
                ))),
            };
            let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let min = usize::try_from(min).unwrap_or(usize::MAX).min(items.len());
            return Ty::Tuple { items, min, rest };
        }
        let items = match obj.get("items") {
            Some(s) => self.lower(ctx, s, &pointer::push(ptr, "items"), &item_hint, depth + 1),
            None => Ty::Any,
        };
        Ty::Array {
            items: Box::new(items),
        }
    }

    pub(super) fn extra(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        ptr: &str,
        hint: &str,
        depth: usize,
    ) -> Extra {
        let mut typed: Vec<Ty> = Vec::new();
        if let Some(Value::Object(pp)) = obj.get("patternProperties") {
            for (pat, s) in pp {
                let p = pointer::push(&pointer::push(ptr, "patternProperties"), pat);
                typed.push(self.lower(ctx, s, &p, &format!("{hint}Value"), depth + 1));
            }
        }
        match obj.get("additionalProperties") {
            Some(Value::Bool(false)) if typed.is_empty() => return Extra::Closed,
            Some(Value::Bool(false)) => {}
            None | Some(Value::Bool(true)) => {
                if typed.is_empty() {
                    return Extra::Open;
                }
                typed.push(Ty::Any);
            }
            Some(s) => typed.push(self.lower(
                ctx,
                s,
                &pointer::push(ptr, "additionalProperties"),
                &format!("{hint}Value"),
                depth + 1,
            )),
        }
        typed.dedup();
        match typed.len() {
            1 => Extra::Typed(typed.remove(0)),
            // Several value schemas: any of them may apply, so any value is allowed.
            _ => Extra::Typed(Ty::Any),
        }
    }

    pub(super) fn fields(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        ptr: &str,
        hint: &str,
        depth: usize,
        skip: Option<&str>,
    ) -> Vec<Field> {
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        let Some(Value::Object(props)) = obj.get("properties") else {
            return fields;
        };
        for (wire, ps) in props {
            if Some(wire.as_str()) == skip {
                continue;
            }
            let p = pointer::push(&pointer::push(ptr, "properties"), wire);
            let fhint = format!("{hint}{}", names::pascal(wire, "Field"));
            let ty = self.lower(ctx, ps, &p, &fhint, depth + 1);
            fields.push(Field {
                wire: wire.clone(),
                names: Names::default(),
                ty,
                required: required.contains(&wire.as_str()),
                doc: schema_doc(ps),
                default: ps.get("default").cloned(),
                deprecated: ps
                    .get("deprecated")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            });
        }
        fields
    }

    fn object(
        &mut self,
        ctx: &Ctx<'a>,
        obj: &'a Map<String, Value>,
        ptr: &str,
        hint: &str,
        depth: usize,
    ) -> Shape {
        let has_props = obj
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|m| !m.is_empty());
        let extra = self.extra(ctx, obj, ptr, hint, depth);
        if !has_props {
            return match extra {
                Extra::Closed => Shape::Kind(Kind::Object(Object {
                    fields: vec![],
                    extra,
                })),
                Extra::Open => Shape::Ty(Ty::Map {
                    values: Box::new(Ty::Any),
                }),
                Extra::Typed(t) => Shape::Ty(Ty::Map {
                    values: Box::new(t),
                }),
            };
        }
        let fields = self.fields(ctx, obj, ptr, hint, depth, None);
        Shape::Kind(Kind::Object(Object { fields, extra }))
    }
}

fn int_kind(obj: &Map<String, Value>) -> IntKind {
    let min = obj.get("minimum").and_then(Value::as_f64);
    let max = obj.get("maximum");
    match obj.get("format").and_then(Value::as_str) {
        Some("int32" | "int16" | "int8") => return IntKind::I32,
        Some("uint32" | "uint16" | "uint8") => return IntKind::U32,
        Some("uint64") => return IntKind::U64,
        _ => {}
    }
    // Only widen past i64 when the schema says values can exceed it and are unsigned.
    match (min, max.and_then(past_i64_within_u64)) {
        (Some(lo), Some(true)) if lo >= 0.0 => IntKind::U64,
        _ => IntKind::I64,
    }
}

/// Whether the number `v` is above `i64::MAX` and at most `u64::MAX`, compared exactly:
/// an integer literal as itself, a float by the powers of two that bound the ranges
/// (`i64::MAX as f64` rounds up to 2^63, so a float test against it would miss
/// `maximum: 2^63`). `None` when `v` is not a number.
fn past_i64_within_u64(v: &Value) -> Option<bool> {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    if let Some(u) = v.as_u64() {
        return Some(u > i64::MAX as u64);
    }
    if v.is_i64() {
        return Some(false);
    }
    let f = v.as_f64()?;
    Some((TWO_POW_63..TWO_POW_64).contains(&f))
}
