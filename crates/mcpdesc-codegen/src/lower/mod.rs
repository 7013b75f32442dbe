//! Lowering: the [`Views`] of a description → [`Ir`]. The types are those of the target
//! revision's view; every other declared revision's view says how its results decode.
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
//!
//! The lowering is split by concern, after typify's converter: `tools` selects the
//! tools of the view and lowers their roots, `shape` lowers one schema (scalars, arrays,
//! objects, enums), `compose` the unions and `allOf`, `identity` local `$ref`s and the
//! identity that makes a repeated definition one type, `cycles` breaks alias cycles,
//! `naming` allocates every identifier, and `revisions` compares the revisions' output
//! schemas.

mod compose;
mod cycles;
mod identity;
mod naming;
mod revisions;
mod shape;
mod tools;
mod views;

pub use tools::lower;
pub use views::Views;

use crate::ir::*;
use mcpdesc_core::Diagnostic;
use serde_json::{Map, Value};
use std::collections::HashMap;

use identity::{Definitions, Identity};

/// Deepest schema nesting we follow; deeper schemas become `Any` with a diagnostic.
pub const MAX_SCHEMA_DEPTH: usize = 40;

/// The result of lowering a description.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub ir: Ir,
    pub diagnostics: Vec<Diagnostic>,
}

/// Where a schema lives: the schema resource root (for `#…` references) and its
/// absolute pointer in the description.
struct Ctx<'a> {
    root: &'a Value,
    /// Resolves `$ref`s inside `root` (the one referencing module).
    refs: mcpdesc_core::local_ref::Resolver<'a>,
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

struct Lowerer<'a> {
    types: Vec<Pending>,
    by_origin: HashMap<String, TypeId>,
    /// Named definitions by content (see [`Lowerer::identity`]): the same `$defs` entry
    /// repeated in several self-contained tool schemas is one type, not `Pet`, `Pet2`…
    by_identity: HashMap<Identity<'a>, TypeId>,
    /// The `$defs` entries of the view's tool schemas, for tool roots that are components.
    definitions: Definitions<'a>,
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

impl<'a> Lowerer<'a> {
    fn new() -> Lowerer<'a> {
        Lowerer {
            types: Vec::new(),
            by_origin: HashMap::new(),
            by_identity: HashMap::new(),
            definitions: Definitions::default(),
            diags: Vec::new(),
        }
    }

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
}
