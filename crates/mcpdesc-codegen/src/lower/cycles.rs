//! Alias cycles: a type that refers to itself without an object or array in between
//! has no finite JSON value; the back edge becomes `Any` with a diagnostic.

use super::{Lowerer, warn};
use crate::ir::*;

/// Direct (non-indirected) named-type edges of aliases and untagged unions: a cycle of
/// these has no finite JSON value or would make deserialization loop.
fn direct_refs(ty: &Ty, out: &mut Vec<TypeId>) {
    match ty {
        Ty::Named { id } => out.push(*id),
        Ty::Nullable { inner } => direct_refs(inner, out),
        _ => {}
    }
}

pub(super) fn break_alias_cycles(lw: &mut Lowerer<'_>) {
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
