//! Names: every identifier of the IR, one allocator per namespace and language, first
//! come first served, every rename reported.

use super::warn;
use crate::ir::*;
use crate::names::{self, Allocator};
use mcpdesc_core::{Diagnostic, pointer};

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
pub(super) fn assign_names(ir: &mut Ir, diags: &mut Vec<Diagnostic>) {
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
