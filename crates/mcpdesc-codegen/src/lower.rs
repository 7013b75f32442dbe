//! Lowering: description (one protocol revision) → [`Ir`].
//!
//! Rules (the IR may be looser than a schema, never stricter):
//! - `$ref` to a local JSON pointer (`#`, `#/$defs/X`, `#/definitions/X`, any pointer)
//!   becomes a named type, memoized by absolute document pointer, so recursion works and
//!   a shared component is one type;
//! - objects with properties become named object types; objects without properties
//!   become maps; `additionalProperties`/`patternProperties` schemas type the extra
//!   properties;
//! - `oneOf`/`anyOf` become tagged unions when every alternative is an object sharing a
//!   required `const` string property, untagged unions otherwise; `null` alternatives and
//!   `type: [.., "null"]` make the type nullable;
//! - `allOf` of objects is merged; everything else the IR cannot express exactly becomes
//!   [`Ty::Any`] with a diagnostic carrying the schema pointer.

use crate::ir::*;
use crate::names::{self, Allocator};
use mcpdesc_core::SameJson;
use mcpdesc_core::{Diagnostic, Feature, ProtocolRevision, RevisionSet, pointer, refs};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Deepest schema nesting we follow; deeper schemas become `Any` with a diagnostic.
pub const MAX_SCHEMA_DEPTH: usize = 40;

/// Keywords that only constrain or annotate values; ignoring them makes a type looser,
/// never stricter, so they are dropped without a diagnostic.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
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

/// The result of lowering a description.
#[derive(Debug, Clone)]
pub struct Lowered {
    /// `None` when lowering could not start (e.g. unknown protocol version).
    pub ir: Option<Ir>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Where a schema lives: the schema resource root (for `#…` references) and its
/// absolute pointer in the description.
struct Ctx<'a> {
    root: &'a Value,
    base: String,
}

enum Shape {
    Ty(Ty),
    Kind(Kind),
}

struct Pending {
    base: String,
    doc: Option<String>,
    origin: String,
    kind: Kind,
}

/// A definition's identity (see [`Lowerer::identity`]). It used to be the definitions
/// serialized into one string; comparing the JSON in place gives the same equality
/// without serializing every reachable definition once per use site (a third of
/// lowering time on the GitHub description).
#[derive(PartialEq, Eq, Hash)]
struct Identity<'a> {
    base: String,
    target: SameJson<'a>,
    reached: Vec<(String, SameJson<'a>)>,
}

struct Lowerer<'a> {
    doc: &'a Value,
    types: Vec<Pending>,
    by_origin: HashMap<String, TypeId>,
    /// Named definitions by content (see [`Lowerer::identity`]): the same `$defs` entry
    /// repeated in several self-contained tool schemas is one type, not `Pet`, `Pet2`…
    by_identity: HashMap<Identity<'a>, TypeId>,
    diags: Vec<Diagnostic>,
}

fn warn(code: &str, msg: impl Into<String>, at: &str) -> Diagnostic {
    Diagnostic::warning(code, msg).at(at)
}

fn str_field(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn schema_doc(s: &Value) -> Option<String> {
    s.as_object().and_then(schema_doc_of)
}

/// [`schema_doc`] of a schema object (no need to wrap, i.e. clone, it into a `Value`).
fn schema_doc_of(s: &Map<String, Value>) -> Option<String> {
    let title = s
        .get("title")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty());
    let desc = s
        .get("description")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty());
    match (title, desc) {
        (Some(t), Some(d)) if t != d => Some(format!("{t}\n\n{d}")),
        (_, Some(d)) => Some(d.to_string()),
        (Some(t), None) => Some(t.to_string()),
        (None, None) => None,
    }
}

/// Decodes a URI fragment JSON pointer (`%25` escapes) into a plain pointer.
fn decode_fragment(f: &str) -> String {
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
    fn new_type(&mut self, base: String, origin: String, doc: Option<String>) -> TypeId {
        self.types.push(Pending {
            base,
            doc,
            origin,
            kind: Kind::Alias { ty: Ty::Any },
        });
        self.types.len() - 1
    }

    fn any(&mut self, code: &str, msg: impl Into<String>, at: &str) -> Shape {
        self.diags.push(warn(code, msg, at));
        Shape::Ty(Ty::Any)
    }

    /// Lowers a schema in an anonymous position (property, item, variant…).
    fn lower(&mut self, ctx: &Ctx<'a>, s: &'a Value, ptr: &str, hint: &str, depth: usize) -> Ty {
        match self.shape(ctx, s, ptr, hint, depth) {
            Shape::Ty(t) => t,
            Shape::Kind(k) => {
                let id = self.new_type(hint.to_string(), ptr.to_string(), schema_doc(s));
                self.types[id].kind = k;
                Ty::Named { id }
            }
        }
    }

    /// Lowers a schema as the body of named type `id`.
    fn define(&mut self, id: TypeId, ctx: &Ctx<'a>, s: &'a Value, ptr: &str, depth: usize) {
        let hint = self.types[id].base.clone();
        let kind = match self.shape(ctx, s, ptr, &hint, depth) {
            Shape::Kind(k) => k,
            Shape::Ty(ty) => Kind::Alias { ty },
        };
        self.types[id].kind = kind;
    }

    /// The named type for the schema at absolute pointer `abs` (memoized).
    fn named(
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

    fn shape(&mut self, ctx: &Ctx<'a>, s: &'a Value, ptr: &str, hint: &str, depth: usize) -> Shape {
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
    fn nullable(
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

    /// `oneOf`/`anyOf` whose alternatives only add constraints (`required`, …) to the
    /// enclosing schema: ignoring them is looser, so the enclosing schema is lowered alone.
    fn constraint_only_arms(&self, obj: &Map<String, Value>) -> bool {
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

    /// What makes a referenced definition the same type wherever it appears: its name,
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

    fn reference(
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

    fn extra(
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

    fn fields(
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

    /// Resolves a local `$ref` alternative to (schema, absolute pointer, ctx-relative ptr).
    fn peel(&self, ctx: &Ctx<'a>, s: &'a Value, ptr: &str) -> (&'a Value, String) {
        let mut cur = s;
        let mut at = ptr.to_string();
        for _ in 0..16 {
            let Some(r) = cur.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(frag) = r.strip_prefix('#') else {
                break;
            };
            let p = decode_fragment(frag);
            let Some(t) = ctx.root.pointer(&p) else { break };
            cur = t;
            at = format!("{}{}", ctx.base, p);
        }
        (cur, at)
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

    fn union(
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

    fn all_of(
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
        let mut closed = false;
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
            if m.get("additionalProperties") == Some(&Value::Bool(false)) {
                closed = true;
            } else if m.contains_key("additionalProperties") || m.contains_key("patternProperties")
            {
                extra_typed = Some(self.extra(ctx, m, abs, hint, depth + 1));
            }
        }
        for f in &mut fields {
            f.required = f.required || required.contains(&f.wire);
        }
        // `additionalProperties: false` in one alternative forbids the others' properties
        // in JSON Schema; keeping the object open is looser, never stricter.
        let _ = closed;
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

fn int_kind(obj: &Map<String, Value>) -> IntKind {
    let min = obj.get("minimum").and_then(Value::as_f64);
    let max = obj.get("maximum").and_then(Value::as_f64);
    match obj.get("format").and_then(Value::as_str) {
        Some("int32" | "int16" | "int8") => return IntKind::I32,
        Some("uint32" | "uint16" | "uint8") => return IntKind::U32,
        Some("uint64") => return IntKind::U64,
        _ => {}
    }
    // Only widen past i64 when the schema says values can exceed it and are unsigned.
    match (min, max) {
        (Some(lo), Some(hi)) if lo >= 0.0 && hi > i64::MAX as f64 && hi <= u64::MAX as f64 => {
            IntKind::U64
        }
        _ => IntKind::I64,
    }
}

/// Lowers the tools of `doc` (a description as JSON) in the effective protocol view of
/// `version` (default: the newest revision in root `protocolVersions`).
pub fn lower(doc: &Value, version: Option<&str>) -> Lowered {
    let mut diags = Vec::new();
    let root_set = RevisionSet::from_json(doc.get("protocolVersions").unwrap_or(&Value::Null));
    let v = match version {
        Some(s) => match ProtocolRevision::parse(s) {
            Some(v) if root_set.contains(v) => v,
            Some(_) => {
                diags.push(Diagnostic::error("codegen-protocol-version-not-in-document", format!("protocol version `{s}` is not in the document's root `protocolVersions` ({root_set})")).at("/protocolVersions"));
                return Lowered {
                    ir: None,
                    diagnostics: diags,
                };
            }
            None => {
                diags.push(Diagnostic::error(
                    "codegen-unknown-protocol-version",
                    format!("unknown MCP protocol revision `{s}`"),
                ));
                return Lowered {
                    ir: None,
                    diagnostics: diags,
                };
            }
        },
        None => match root_set.latest() {
            Some(v) => v,
            None => {
                diags.push(Diagnostic::error("codegen-no-protocol-versions", "the document declares no known protocol revision in root `protocolVersions`").at("/protocolVersions"));
                return Lowered {
                    ir: None,
                    diagnostics: diags,
                };
            }
        },
    };
    let info = doc.get("info").unwrap_or(&Value::Null);
    let server = Server {
        name: str_field(info, "name").unwrap_or_default(),
        version: str_field(info, "version").unwrap_or_default(),
        title: str_field(info, "title"),
        description: str_field(info, "description"),
    };
    let mut lw = Lowerer {
        doc,
        types: Vec::new(),
        by_origin: HashMap::new(),
        by_identity: HashMap::new(),
        diags,
    };
    let empty = Vec::new();
    let tools_json = doc.get("tools").and_then(Value::as_array).unwrap_or(&empty);

    // Select the tools of this view, and give each a unique stem (`GetData`, `GetData2`).
    struct Sel<'a> {
        idx: usize,
        tool: &'a Value,
        stem: String,
    }
    let mut stems = Allocator::default();
    let mut seen_wire: Vec<&str> = Vec::new();
    let mut sel: Vec<Sel<'_>> = Vec::new();
    for (idx, tool) in tools_json.iter().enumerate() {
        let scope = RevisionSet::effective(tool.get("protocolVersions"), root_set);
        if !scope.contains(v) {
            continue;
        }
        let at = format!("/tools/{idx}");
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            lw.diags.push(
                Diagnostic::error("codegen-tool-without-name", "tool has no `name`; skipped")
                    .at(at),
            );
            continue;
        };
        if seen_wire.contains(&name) {
            lw.diags.push(
                Diagnostic::error(
                    "codegen-duplicate-tool",
                    format!("tool {name:?} is declared twice for protocol version {v}; skipped"),
                )
                .at(at),
            );
            continue;
        }
        seen_wire.push(name);
        let pascal = names::pascal(name, "Tool");
        let (key, renamed) = stems.claim(&names::snake(&pascal, "tool"), |s| s.to_string());
        // Stem from the unique snake key so every language derives the same words.
        let stem = names::pascal(&key, "Tool");
        if renamed {
            lw.diags.push(warn("codegen-name-collision", format!("tool {name:?} maps to the same identifier as an earlier tool; its generated names use `{stem}`"), &at));
        }
        sel.push(Sel { idx, tool, stem });
    }

    // Tool types first, so `<Tool>Input`/`<Tool>Output` win name allocation.
    let mut ids = Vec::new();
    for s in &sel {
        let at = format!("/tools/{}", s.idx);
        let inp = lw.new_type(
            format!("{}Input", s.stem),
            format!("{at}/inputSchema"),
            None,
        );
        let out = lw.new_type(
            format!("{}Output", s.stem),
            format!("{at}/outputSchema"),
            None,
        );
        ids.push((inp, out));
    }
    let mut tools = Vec::new();
    for (s, (inp, out)) in sel.iter().zip(ids) {
        let at = format!("/tools/{}", s.idx);
        let name = s
            .tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        // inputSchema (maybe a $componentRef).
        let input_schema = match s.tool.get("inputSchema") {
            Some(raw) => match refs::resolve(doc, raw, "schemas") {
                Ok((schema, comp)) => {
                    let base = comp.unwrap_or_else(|| format!("{at}/inputSchema"));
                    lw.types[inp].origin = base.clone();
                    lw.by_origin.insert(base.clone(), inp);
                    let ctx = Ctx {
                        root: schema,
                        base: base.clone(),
                    };
                    lw.define(inp, &ctx, schema, &base, 0);
                    SchemaAt::Pointer(base)
                }
                Err(e) => {
                    lw.diags.push(
                        Diagnostic::error(e.code(), e.to_string()).at(format!("{at}/inputSchema")),
                    );
                    SchemaAt::Any
                }
            },
            None => {
                lw.diags.push(
                    Diagnostic::error(
                        "codegen-missing-input-schema",
                        "tool has no `inputSchema`; its input is typed as any JSON object",
                    )
                    .at(&at),
                );
                SchemaAt::Any
            }
        };
        // Tool inputs are JSON objects on the wire: anything else becomes an open map.
        let object_like = match &lw.types[inp].kind {
            Kind::Object(_) => true,
            Kind::Alias { ty: Ty::Map { .. } } => true,
            Kind::Union(u) => u.tag.is_some(),
            _ => false,
        };
        if !object_like {
            if !matches!(lw.types[inp].kind, Kind::Alias { ty: Ty::Any }) {
                lw.diags.push(warn("codegen-input-not-object", "inputSchema does not describe a plain object; the input is typed as any JSON object", &format!("{at}/inputSchema")));
            }
            lw.types[inp].kind = Kind::Alias {
                ty: Ty::Map {
                    values: Box::new(Ty::Any),
                },
            };
        }
        lw.types[inp].doc = Some(format!("Input of the `{name}` tool."));
        // outputSchema, only where the revision defines it.
        let mut output_schema = None;
        match s.tool.get("outputSchema") {
            Some(raw) if v.has(Feature::OutputSchema) => match refs::resolve(doc, raw, "schemas") {
                Ok((schema, comp)) => {
                    let base = comp.unwrap_or_else(|| format!("{at}/outputSchema"));
                    lw.types[out].origin = base.clone();
                    lw.by_origin.insert(base.clone(), out);
                    let ctx = Ctx { root: schema, base: base.clone() };
                    lw.define(out, &ctx, schema, &base, 0);
                    output_schema = Some(SchemaAt::Pointer(base));
                }
                Err(e) => {
                    lw.diags.push(Diagnostic::error(e.code(), e.to_string()).at(format!("{at}/outputSchema")));
                    output_schema = Some(SchemaAt::Any);
                }
            },
            Some(_) => lw.diags.push(Diagnostic::info("codegen-output-schema-ignored", format!("`outputSchema` is not defined in protocol version {v}; the tool returns content blocks")).at(format!("{at}/outputSchema"))),
            None => {}
        }
        if output_schema.is_none() {
            lw.types[out].kind = Kind::ContentBlocks;
            lw.types[out].origin = at.clone();
        }
        lw.types[out].doc = Some(if output_schema.is_some() {
            format!("Structured output of the `{name}` tool.")
        } else {
            format!("Content blocks returned by the `{name}` tool.")
        });
        tools.push(Tool {
            wire_name: name,
            names: Names::default(),
            title: str_field(s.tool, "title"),
            description: str_field(s.tool, "description"),
            deprecated: s
                .tool
                .get("deprecated")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            origin: at,
            input: inp,
            output: out,
            structured_output: output_schema.is_some(),
            input_schema,
            output_schema,
        });
    }
    let _ = lw.doc;
    break_alias_cycles(&mut lw);
    let mut ir = Ir {
        protocol_version: v.as_str().to_string(),
        server,
        tools,
        types: lw
            .types
            .into_iter()
            .map(|p| NamedType {
                names: Names {
                    rust: p.base.clone(),
                    ts: p.base,
                },
                doc: p.doc,
                origin: p.origin,
                kind: p.kind,
            })
            .collect(),
    };
    let mut diags = lw.diags;
    sort_untagged(&mut ir);
    assign_names(&mut ir, &mut diags);
    Lowered {
        ir: Some(ir),
        diagnostics: diags,
    }
}

/// Direct (non-indirected) named-type edges of aliases and untagged unions: a cycle of
/// these has no finite JSON value or would make deserialization loop.
fn direct_refs(ty: &Ty, out: &mut Vec<TypeId>) {
    match ty {
        Ty::Named { id } => out.push(*id),
        Ty::Nullable { inner } => direct_refs(inner, out),
        _ => {}
    }
}

fn break_alias_cycles(lw: &mut Lowerer<'_>) {
    let n = lw.types.len();
    let edges = |k: &Kind| -> Vec<TypeId> {
        let mut out = Vec::new();
        match k {
            Kind::Alias { ty } => direct_refs(ty, &mut out),
            Kind::Union(Union {
                tag: None,
                variants,
            }) => {
                for v in variants {
                    if let Payload::Type(t) = &v.payload {
                        direct_refs(t, &mut out);
                    }
                }
            }
            _ => {}
        }
        out
    };
    // Iterative DFS colouring; a back edge's target is replaced by `Any`.
    let mut state = vec![0u8; n];
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(TypeId, Vec<TypeId>, usize)> =
            vec![(start, edges(&lw.types[start].kind), 0)];
        state[start] = 1;
        while let Some((node, succ, i)) = stack.last_mut() {
            if *i < succ.len() {
                let next = succ[*i];
                *i += 1;
                if next >= n {
                    continue;
                }
                match state[next] {
                    0 => {
                        state[next] = 1;
                        let e = edges(&lw.types[next].kind);
                        stack.push((next, e, 0));
                    }
                    1 => {
                        let origin = lw.types[next].origin.clone();
                        lw.diags.push(warn("codegen-type-cycle", "type refers to itself without an object or array in between; typed as any JSON value", &origin));
                        lw.types[next].kind = Kind::Alias { ty: Ty::Any };
                    }
                    _ => {}
                }
            } else {
                state[*node] = 2;
                stack.pop();
            }
        }
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
fn sort_untagged(ir: &mut Ir) {
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

fn variant_word(ir_names: &[Names], ty: &Ty, rust: bool) -> String {
    match ty {
        Ty::Named { id } => ir_names
            .get(*id)
            .map(|n| if rust { n.rust.clone() } else { n.ts.clone() })
            .unwrap_or_default(),
        Ty::Any => "Value".into(),
        Ty::Null => "Null".into(),
        Ty::Bool => "Bool".into(),
        Ty::Int { .. } => "Integer".into(),
        Ty::Number => "Number".into(),
        Ty::String => "String".into(),
        Ty::Literal { .. } => "Literal".into(),
        Ty::Enum { .. } => "Enum".into(),
        Ty::Array { .. } => "Array".into(),
        Ty::Tuple { .. } => "Tuple".into(),
        Ty::Map { .. } => "Map".into(),
        Ty::Nullable { inner } => variant_word(ir_names, inner, rust),
    }
}

/// Fills every `Names` of the IR: one allocator per namespace and language, first come
/// first served, every rename reported.
fn assign_names(ir: &mut Ir, diags: &mut Vec<Diagnostic>) {
    // Types.
    let mut rust_types = Allocator::new(names::RUST_RESERVED_TYPES);
    let mut ts_types = Allocator::new(names::TS_RESERVED_TYPES);
    let mut counter = 0usize;
    for t in &mut ir.types {
        let mut base = names::pascal(&t.names.rust, "");
        if base.is_empty() {
            counter += 1;
            base = format!("Anonymous{counter}");
        }
        let (r, rr) = rust_types.claim(&base, names::rust_ident);
        let (s, sr) = ts_types.claim(&base, names::ts_ident);
        if rr || sr {
            diags.push(warn("codegen-name-collision", format!("type name `{base}` is already taken; this type is named `{r}` in Rust and `{s}` in TypeScript"), &t.origin));
        }
        t.names = Names { rust: r, ts: s };
    }
    let type_names: Vec<Names> = ir.types.iter().map(|t| t.names.clone()).collect();
    // Members.
    for t in &mut ir.types {
        let origin = t.origin.clone();
        match &mut t.kind {
            Kind::Object(o) => name_fields(o, &origin, diags),
            Kind::StrEnum { variants } => {
                let mut a = Allocator::new(&[]);
                for v in variants {
                    let (r, renamed) = a.claim(&names::pascal(&v.wire, "Value"), names::rust_ident);
                    if renamed {
                        diags.push(
                            Diagnostic::info(
                                "codegen-name-collision",
                                format!("enum value {:?} is named `{r}` in Rust", v.wire),
                            )
                            .at(&origin),
                        );
                    }
                    v.names = Names {
                        rust: r,
                        ts: v.wire.clone(),
                    };
                }
            }
            Kind::Union(u) => {
                let mut a = Allocator::new(&[]);
                for v in &mut u.variants {
                    let (base_r, base_t) = match (&v.tag_value, &v.payload) {
                        (Some(tv), _) => {
                            (names::pascal(tv, "Variant"), names::pascal(tv, "Variant"))
                        }
                        (None, Payload::Type(ty)) => (
                            variant_word(&type_names, ty, true),
                            variant_word(&type_names, ty, false),
                        ),
                        (None, Payload::Fields(_)) => ("Variant".into(), "Variant".into()),
                    };
                    let (r, _) = a.claim(&base_r, names::rust_ident);
                    v.names = Names {
                        rust: r,
                        ts: base_t,
                    };
                    if let Payload::Fields(o) = &mut v.payload {
                        name_fields(o, &origin, diags);
                    }
                }
            }
            Kind::Alias { .. } | Kind::ContentBlocks => {}
        }
    }
    // Methods.
    let mut rust_m = Allocator::new(names::RUST_RESERVED_METHODS);
    let mut ts_m = Allocator::new(names::TS_RESERVED_METHODS);
    for tool in &mut ir.tools {
        let stem = ir
            .types
            .get(tool.input)
            .map(|t| t.names.rust.trim_end_matches("Input").to_string())
            .unwrap_or_default();
        let stem = if stem.is_empty() {
            names::pascal(&tool.wire_name, "Tool")
        } else {
            stem
        };
        let (r, rr) = rust_m.claim(&names::snake(&stem, "tool"), names::rust_ident);
        let (s, sr) = ts_m.claim(&names::camel(&stem, "tool"), names::ts_ident);
        if rr || sr {
            diags.push(warn(
                "codegen-name-collision",
                format!(
                    "method for tool `{}` is named `{r}` in Rust and `{s}` in TypeScript",
                    tool.wire_name
                ),
                &tool.origin,
            ));
        }
        tool.names = Names { rust: r, ts: s };
    }
}

fn name_fields(o: &mut Object, origin: &str, diags: &mut Vec<Diagnostic>) {
    let mut a = Allocator::new(&[]);
    for f in &mut o.fields {
        let (r, renamed) = a.claim(&names::snake(&f.wire, "field"), names::rust_ident);
        if renamed {
            diags.push(warn("codegen-name-collision", format!("property {:?} maps to an identifier already used in this object; its Rust field is `{r}`", f.wire), &pointer::push(&pointer::push(origin, "properties"), &f.wire)));
        }
        f.names = Names {
            rust: r,
            ts: f.wire.clone(),
        };
    }
}
