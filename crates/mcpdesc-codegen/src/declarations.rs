//! Compact TypeScript declarations of a chosen set of tools, for code mode
//! (`mcpdesc serve --discovery code`): what `search_api` shows a model so that it can write
//! a script against `api`.
//!
//! They come from the same [`Ir`] and naming as `generate typescript` (type names, field
//! names and documentation, the TypeScript type of every schema), rendered by the same
//! code, but shaped for a context window rather than for a package:
//! - one `declare const api: { … }` with a method per tool, `name(args: Input):
//!   Promise<Output>`, under the name the tool is *served* by (a host-fitted server may
//!   rename tools), documented with the tool's title and description;
//! - each named type the chosen tools need is declared once (`type X = …;`), however many
//!   tools use it;
//! - types deeper than [`DeclOptions::max_depth`] named-type hops from a tool's input or
//!   output are cut, as `export --budget` cuts deep schemas: a reference to one is
//!   `unknown /* Name: not expanded */`, which accepts any value (a script that uses a
//!   cut part must narrow it itself);
//! - a tool without an output schema resolves to `unknown`: code mode resolves its call to
//!   the result's text, parsed as JSON when it is JSON.

use crate::Error;
use crate::escape;
use crate::ir::{Extra, Ir, Kind, Ty, TypeId};
use crate::typescript::{Ctx, compact_doc};
use std::collections::{HashSet, VecDeque};

/// How deep the declarations go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclOptions {
    /// Named-type hops from a tool's `Input`/`Output` type (depth 0) that are declared;
    /// references to deeper named types become `unknown` with a comment. An alias
    /// (`type GetPetOutput = Pet`) is no hop. The default is 1: ten of the GitHub
    /// description's issue, pull and repo tools are 76 KB at 1, 87 KB at 2 and 43 KB at 0
    /// (its response objects are wide and every field is documented).
    pub max_depth: usize,
}

impl Default for DeclOptions {
    fn default() -> Self {
        DeclOptions { max_depth: 1 }
    }
}

/// One tool to declare: the IR tool's wire name and the name it is served by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclTool<'a> {
    /// [`crate::ir::Tool::wire_name`]: the tool's name in the description.
    pub wire_name: &'a str,
    /// The property of `api` that calls it.
    pub served_name: &'a str,
}

/// What a tool without an output schema resolves to, as its method's documentation says.
pub const UNSTRUCTURED_NOTE: &str =
    "No output schema: resolves to the result's text, parsed as JSON when it is JSON.";

/// The named types that `ty` references directly.
fn refs(ty: &Ty, out: &mut Vec<TypeId>) {
    match ty {
        Ty::Named { id } => out.push(*id),
        Ty::Array { items } => refs(items, out),
        Ty::Map { values } => refs(values, out),
        Ty::Nullable { inner } => refs(inner, out),
        Ty::Tuple { items, rest, .. } => {
            items.iter().for_each(|t| refs(t, out));
            if let Some(r) = rest {
                refs(r, out);
            }
        }
        Ty::Any
        | Ty::Null
        | Ty::Bool
        | Ty::Int { .. }
        | Ty::Number
        | Ty::String
        | Ty::Literal { .. }
        | Ty::Enum { .. } => {}
    }
}

/// The named types that a named type's body references directly.
fn kind_refs(kind: &Kind) -> Vec<TypeId> {
    let mut out = Vec::new();
    let object = |o: &crate::ir::Object, out: &mut Vec<TypeId>| {
        o.fields.iter().for_each(|f| refs(&f.ty, out));
        if let Extra::Typed(t) = &o.extra {
            refs(t, out);
        }
    };
    match kind {
        Kind::Object(o) => object(o, &mut out),
        Kind::Alias { ty } => refs(ty, &mut out),
        Kind::Union(u) => {
            for v in &u.variants {
                match &v.payload {
                    crate::ir::Payload::Fields(o) => object(o, &mut out),
                    crate::ir::Payload::Type(t) => refs(t, &mut out),
                }
            }
        }
        Kind::StrEnum { .. } | Kind::ContentBlocks => {}
    }
    out
}

/// Whether every field of a tool's input is optional (the method's `args` may be left out).
fn all_optional(kind: &Kind) -> bool {
    match kind {
        Kind::Object(o) => o.fields.iter().all(|f| !f.required),
        _ => false,
    }
}

/// The declarations of `tools` (in that order) from `ir`. A tool the IR does not have is
/// an [`Error::Internal`] (the caller chose tools of another view).
pub fn declarations(ir: &Ir, tools: &[DeclTool<'_>], opts: &DeclOptions) -> Result<String, Error> {
    let mut chosen = Vec::with_capacity(tools.len());
    for t in tools {
        let tool = ir
            .tools
            .iter()
            .find(|x| x.wire_name == t.wire_name)
            .ok_or(Error::Internal(
                "a declared tool is not in the lowered view",
            ))?;
        chosen.push((tool, t.served_name));
    }
    // Breadth first from every chosen tool's input and output: each type at its least depth.
    let mut declared: HashSet<TypeId> = HashSet::new();
    let mut order: Vec<TypeId> = Vec::new();
    let mut queue: VecDeque<(TypeId, usize)> = VecDeque::new();
    for (tool, _) in &chosen {
        queue.push_back((tool.input, 0));
        if tool.structured_output {
            queue.push_back((tool.output, 0));
        }
    }
    while let Some((id, depth)) = queue.pop_front() {
        let Some(t) = ir.types.get(id) else {
            return Err(Error::Internal("dangling type id"));
        };
        if depth > opts.max_depth || matches!(t.kind, Kind::ContentBlocks) || !declared.insert(id) {
            continue;
        }
        order.push(id);
        // Another name for a type is no hop: `type GetPetOutput = Pet` costs no depth.
        let next = if matches!(t.kind, Kind::Alias { .. }) {
            depth
        } else {
            depth + 1
        };
        for r in kind_refs(&t.kind) {
            if !declared.contains(&r) {
                queue.push_back((r, next));
            }
        }
    }
    let cx = Ctx {
        ir,
        declared: Some(&declared),
        compact_docs: true,
    };
    let roots: HashSet<TypeId> = chosen
        .iter()
        .flat_map(|(t, _)| [t.input, t.output])
        .collect();
    let mut out = String::new();
    for id in order {
        let t = &ir.types[id];
        let Some(body) = cx.decl(t)? else { continue };
        if !roots.contains(&id) {
            let block = escape::ts::doc(t.doc.as_deref().unwrap_or(""), "", &[]);
            out.push_str(&compact_doc(&block, ""));
        }
        out.push_str(&format!("type {} = {body};\n", t.names.ts));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str("declare const api: {\n");
    for (tool, served) in &chosen {
        // The title, unless the description already starts with it (importers often
        // repeat an operation's summary there), then the description.
        let description = tool.description.as_deref().filter(|d| !d.trim().is_empty());
        let title = tool
            .title
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .filter(|t| !description.is_some_and(|d| d.trim_start().starts_with(t.trim())));
        let mut doc: Vec<&str> = [title, description].into_iter().flatten().collect();
        if !tool.structured_output {
            doc.push(UNSTRUCTURED_NOTE);
        }
        let tags: &[&str] = if tool.deprecated {
            &["@deprecated"]
        } else {
            &[]
        };
        out.push_str(&escape::ts::doc(&doc.join("\n\n"), "  ", tags));
        let input = &ir.types[tool.input];
        let opt = if all_optional(&input.kind) { "?" } else { "" };
        let output = if tool.structured_output {
            ir.types[tool.output].names.ts.clone()
        } else {
            "unknown".to_string()
        };
        out.push_str(&format!(
            "  {}(args{opt}: {}): Promise<{output}>;\n",
            escape::ts::prop_key(served),
            input.names.ts
        ));
    }
    out.push_str("};\n");
    Ok(out)
}

/// [`declarations`] of the tools named `tools` (served under their own names) of `doc`'s
/// view at `rev` (default: the newest revision), lowered here; for tests and one-off use
/// (a server lowers once and calls [`declarations`] per request).
pub fn declarations_of(
    doc: &mcpdesc_validate::Validated<'_>,
    rev: Option<mcpdesc_core::ProtocolRevision>,
    tools: &[&str],
    opts: &DeclOptions,
) -> Result<String, Error> {
    let views = crate::lower::Views::project(doc, rev)
        .map_err(|_| Error::Internal("the revision is not one the description declares"))?;
    let lowered = crate::lower::lower(&views);
    let chosen: Vec<DeclTool<'_>> = tools
        .iter()
        .map(|t| DeclTool {
            wire_name: t,
            served_name: t,
        })
        .collect();
    declarations(&lowered.ir, &chosen, opts)
}
