//! Rust renderer: IR → a standalone crate using rmcp.

use crate::escape;
use crate::escape::Untrusted;
use crate::ir::*;
use crate::render::{Code, Dispatch, Ident, Reshape, Reshapes, doc_text, filters, untrusted};
use crate::{Error, GeneratedFile};
use askama::Template;
use mcpdesc_core::{Diagnostic, ProtocolRevision};
use std::collections::HashSet;

/// Options for the Rust target.
#[derive(Debug, Clone, Default)]
pub struct RustOptions {
    /// Protocol revision to project to (default: the newest in the document).
    pub protocol_version: Option<ProtocolRevision>,
    /// Cargo package name (default: from the server name).
    pub crate_name: Option<String>,
}

struct RField {
    doc: Untrusted,
    wire: Untrusted,
    name: Ident,
    ty: Code,
    /// Fixed serde attribute tail chosen by the renderer.
    attrs: &'static str,
    vis: &'static str,
}

struct RVariant {
    doc: Untrusted,
    name: Ident,
    wire: Untrusted,
    fields: Vec<RField>,
    payload: Option<Code>,
}

enum Item {
    Struct {
        doc: Untrusted,
        name: Ident,
        default: bool,
        fields: Vec<RField>,
        extra: Option<(Ident, Code)>,
    },
    Newtype {
        doc: Untrusted,
        name: Ident,
        ty: Code,
    },
    Alias {
        doc: Untrusted,
        name: Ident,
        ty: Code,
    },
    StrEnum {
        doc: Untrusted,
        name: Ident,
        single: bool,
        variants: Vec<RVariant>,
    },
    Tagged {
        doc: Untrusted,
        name: Ident,
        tag: Untrusted,
        variants: Vec<RVariant>,
    },
    Untagged {
        doc: Untrusted,
        name: Ident,
        variants: Vec<RVariant>,
    },
}

#[derive(Template)]
#[template(path = "rust/types.rs.askama", escape = "none")]
struct TypesTpl {
    server: Untrusted,
    items: Vec<Item>,
}

struct RTool {
    doc: Untrusted,
    name: Ident,
    wire: Untrusted,
    input: Ident,
    output: Ident,
    structured: bool,
    deprecated: bool,
    /// The revisions (a `match` pattern) where the tool is not in the description.
    absent: Option<Code>,
    /// `match self.revision` arms (pattern, `Decode`) besides `_ => Decode::Same`.
    arms: Vec<(Code, Code)>,
}

#[derive(Template)]
#[template(path = "rust/lib.rs.askama", escape = "none")]
struct LibTpl {
    doc: Untrusted,
    crate_name: Ident,
    protocol_version: Untrusted,
    /// Newest first.
    protocol_versions: Vec<Untrusted>,
    tools: Vec<RTool>,
    /// Some method reshapes results (the private `Decode` enum exists).
    decodes: bool,
    has_unwrap: bool,
    has_wrap: bool,
    content_aliases: Vec<(Untrusted, Ident)>,
    has_structured: bool,
    has_content: bool,
}

#[derive(Template)]
#[template(path = "rust/Cargo.toml.askama", escape = "none")]
struct CargoTpl {
    package: Untrusted,
    description: Untrusted,
}

/// Cargo package name from a requested name or the server name: lowercase ASCII
/// letters, digits, `-` and `_`, starting with a letter.
pub fn crate_name(requested: Option<&str>, server: &str) -> String {
    let raw = requested.unwrap_or(server);
    let mut s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s = s.trim_matches(['-', '_']).to_string();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    if requested.is_none() {
        s = format!("{}-client", if s.is_empty() { "mcp" } else { &s });
    }
    if s.is_empty() || !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        s = format!("mcp-{s}");
    }
    s.truncate(64);
    s.trim_end_matches(['-', '_']).to_string()
}

/// Direct named-type references of a type expression (not behind `Vec`/map).
fn direct(ty: &Ty, out: &mut Vec<TypeId>) {
    match ty {
        Ty::Named { id } => out.push(*id),
        Ty::Nullable { inner } => direct(inner, out),
        Ty::Tuple { items, .. } => items.iter().for_each(|t| direct(t, out)),
        _ => {}
    }
}

fn edges(kind: &Kind) -> Vec<TypeId> {
    let mut out = Vec::new();
    let obj = |o: &Object, out: &mut Vec<TypeId>| o.fields.iter().for_each(|f| direct(&f.ty, out));
    match kind {
        Kind::Object(o) => obj(o, &mut out),
        Kind::Union(u) => {
            for v in &u.variants {
                match &v.payload {
                    Payload::Fields(o) => obj(o, &mut out),
                    Payload::Type(t) => direct(t, &mut out),
                }
            }
        }
        Kind::Alias { ty } => direct(ty, &mut out),
        Kind::StrEnum { .. } | Kind::ContentBlocks => {}
    }
    out
}

/// `reach[a]` contains `b` when type `a` contains `b` by value (transitively): those
/// references need a `Box` when `b` also contains `a`.
fn reachability(ir: &Ir) -> Vec<HashSet<TypeId>> {
    let adj: Vec<Vec<TypeId>> = ir.types.iter().map(|t| edges(&t.kind)).collect();
    (0..adj.len())
        .map(|start| {
            let mut seen = HashSet::new();
            let mut stack = adj[start].clone();
            while let Some(n) = stack.pop() {
                if n < adj.len() && seen.insert(n) {
                    stack.extend(adj[n].iter().copied());
                }
            }
            seen
        })
        .collect()
}

/// Every named type mentioned anywhere in `ty`.
fn mentioned(ty: &Ty, out: &mut Vec<TypeId>) {
    match ty {
        Ty::Named { id } => out.push(*id),
        Ty::Nullable { inner } => mentioned(inner, out),
        Ty::Array { items } => mentioned(items, out),
        Ty::Map { values } => mentioned(values, out),
        Ty::Tuple { items, rest, .. } => {
            items.iter().for_each(|t| mentioned(t, out));
            if let Some(r) = rest {
                mentioned(r, out);
            }
        }
        _ => {}
    }
}

/// Aliases whose expansion reaches themselves through other aliases (Rust forbids
/// recursive type aliases even behind `Vec`): these become newtype structs.
fn recursive_aliases(ir: &Ir) -> HashSet<TypeId> {
    let alias_edges = |id: TypeId| -> Vec<TypeId> {
        let mut out = Vec::new();
        if let Some(Kind::Alias { ty }) = ir.types.get(id).map(|t| &t.kind) {
            mentioned(ty, &mut out);
        }
        out.retain(|n| matches!(ir.types.get(*n).map(|t| &t.kind), Some(Kind::Alias { .. })));
        out
    };
    let mut result = HashSet::new();
    for start in 0..ir.types.len() {
        if !matches!(ir.types[start].kind, Kind::Alias { .. }) {
            continue;
        }
        let mut seen = HashSet::new();
        let mut stack = alias_edges(start);
        while let Some(n) = stack.pop() {
            if n == start {
                result.insert(start);
                break;
            }
            if seen.insert(n) {
                stack.extend(alias_edges(n));
            }
        }
    }
    result
}

struct Ctx<'a> {
    ir: &'a Ir,
    newtypes: HashSet<TypeId>,
    reach: Vec<HashSet<TypeId>>,
    diags: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn name(&self, id: TypeId) -> Result<Ident, Error> {
        let t = self
            .ir
            .types
            .get(id)
            .ok_or(Error::Internal("dangling type id"))?;
        Ident::rust(&t.names.rust)
    }

    /// Rust type for `ty` used inside type `owner` (`boxed` references break cycles).
    fn ty(&mut self, ty: &Ty, owner: TypeId, direct: bool, origin: &str) -> Result<String, Error> {
        Ok(match ty {
            Ty::Any => "serde_json::Value".into(),
            Ty::Null => "()".into(),
            Ty::Bool => "bool".into(),
            Ty::Int { int } => match int {
                IntKind::I32 => "i32",
                IntKind::U32 => "u32",
                IntKind::I64 => "i64",
                IntKind::U64 => "u64",
            }
            .into(),
            Ty::Number => "f64".into(),
            Ty::String => "String".into(),
            Ty::Literal { value } => literal_base(std::slice::from_ref(value)).into(),
            Ty::Enum { values } => literal_base(values).into(),
            Ty::Array { items } => format!("Vec<{}>", self.ty(items, owner, false, origin)?),
            Ty::Tuple { items, min, rest } => {
                if rest.is_none() && *min == items.len() && !items.is_empty() {
                    let parts: Result<Vec<String>, Error> = items
                        .iter()
                        .map(|t| self.ty(t, owner, direct, origin))
                        .collect();
                    let parts = parts?;
                    if parts.len() == 1 {
                        format!("({},)", parts[0])
                    } else {
                        format!("({})", parts.join(", "))
                    }
                } else {
                    self.diags.push(Diagnostic::info("codegen-rust-tuple-loosened", "a tuple with optional or extra items is a `Vec<serde_json::Value>` in Rust").at(origin));
                    "Vec<serde_json::Value>".into()
                }
            }
            Ty::Map { values } => match values.as_ref() {
                Ty::Any => "serde_json::Map<String, serde_json::Value>".into(),
                v => format!(
                    "std::collections::BTreeMap<String, {}>",
                    self.ty(v, owner, false, origin)?
                ),
            },
            Ty::Nullable { inner } => format!("Option<{}>", self.ty(inner, owner, direct, origin)?),
            Ty::Named { id } => {
                let n = self.name(*id)?;
                let cyclic =
                    *id == owner || self.reach.get(*id).is_some_and(|r| r.contains(&owner));
                if direct && cyclic {
                    format!("Box<{n}>")
                } else {
                    n.to_string()
                }
            }
        })
    }

    fn fields(
        &mut self,
        o: &Object,
        owner: TypeId,
        origin: &str,
        vis: &'static str,
    ) -> Result<Vec<RField>, Error> {
        let mut out = Vec::new();
        for f in &o.fields {
            let (ty, attrs) = match (&f.ty, f.required) {
                (Ty::Nullable { inner }, true) => (
                    format!("Option<{}>", self.ty(inner, owner, true, origin)?),
                    ", default",
                ),
                (Ty::Nullable { inner }, false) => (
                    format!("Option<{}>", self.ty(inner, owner, true, origin)?),
                    ", default, skip_serializing_if = \"Option::is_none\"",
                ),
                (t, true) => (self.ty(t, owner, true, origin)?, ""),
                (t, false) => (
                    format!("Option<{}>", self.ty(t, owner, true, origin)?),
                    ", default, skip_serializing_if = \"Option::is_none\"",
                ),
            };
            out.push(RField {
                doc: doc_text(f.doc.as_deref(), f.default.as_ref(), f.deprecated),
                wire: untrusted(f.wire.clone()),
                name: Ident::rust(&f.names.rust)?,
                ty: Code(ty),
                attrs,
                vis,
            });
        }
        Ok(out)
    }
}

/// The loosest plain Rust type holding every listed constant.
fn literal_base(values: &[serde_json::Value]) -> &'static str {
    use serde_json::Value as V;
    if values.iter().all(V::is_boolean) {
        "bool"
    } else if values.iter().all(|v| v.is_i64()) {
        "i64"
    } else if values.iter().all(V::is_number) {
        "f64"
    } else if values.iter().all(V::is_string) {
        "String"
    } else if values.iter().all(V::is_null) {
        "()"
    } else {
        "serde_json::Value"
    }
}

fn items(cx: &mut Ctx<'_>) -> Result<Vec<Item>, Error> {
    let ir = cx.ir;
    let mut out = Vec::new();
    for (id, t) in ir.types.iter().enumerate() {
        let name = Ident::rust(&t.names.rust)?;
        let doc = untrusted(t.doc.clone().unwrap_or_default());
        let origin = t.origin.as_str();
        match &t.kind {
            Kind::ContentBlocks => {}
            Kind::Object(o) => {
                let fields = cx.fields(o, id, origin, "pub ")?;
                let extra = match &o.extra {
                    Extra::Typed(ty) => {
                        let taken: HashSet<&str> =
                            o.fields.iter().map(|f| f.names.rust.as_str()).collect();
                        let mut n = String::from("extra");
                        let mut i = 2;
                        while taken.contains(n.as_str()) {
                            n = format!("extra{i}");
                            i += 1;
                        }
                        let vt = match ty {
                            Ty::Any => "serde_json::Map<String, serde_json::Value>".to_string(),
                            t => format!(
                                "std::collections::BTreeMap<String, {}>",
                                cx.ty(t, id, false, origin)?
                            ),
                        };
                        Some((Ident::rust(&n)?, Code(vt)))
                    }
                    _ => None,
                };
                let default = o
                    .fields
                    .iter()
                    .all(|f| !f.required || matches!(f.ty, Ty::Nullable { .. }));
                out.push(Item::Struct {
                    doc,
                    name,
                    default,
                    fields,
                    extra,
                });
            }
            Kind::Alias { ty } => {
                let cyclic =
                    cx.newtypes.contains(&id) || cx.reach.get(id).is_some_and(|r| r.contains(&id));
                let code = Code(cx.ty(ty, id, true, origin)?);
                if cyclic {
                    out.push(Item::Newtype {
                        doc,
                        name,
                        ty: code,
                    });
                } else {
                    out.push(Item::Alias {
                        doc,
                        name,
                        ty: code,
                    });
                }
            }
            Kind::StrEnum { variants } => {
                let vs = variants
                    .iter()
                    .map(|v| {
                        Ok(RVariant {
                            doc: Untrusted::default(),
                            name: Ident::rust(&v.names.rust)?,
                            wire: untrusted(v.wire.clone()),
                            fields: vec![],
                            payload: None,
                        })
                    })
                    .collect::<Result<Vec<_>, Error>>()?;
                out.push(Item::StrEnum {
                    doc,
                    name,
                    single: vs.len() == 1,
                    variants: vs,
                });
            }
            Kind::Union(u) => {
                let mut vs = Vec::new();
                for v in &u.variants {
                    let vname = Ident::rust(&v.names.rust)?;
                    let vdoc = untrusted(v.doc.clone().unwrap_or_default());
                    match &v.payload {
                        Payload::Fields(o) => {
                            if matches!(o.extra, Extra::Typed(_)) {
                                cx.diags.push(Diagnostic::info("codegen-rust-extra-dropped", "additional properties of a tagged union alternative are not kept in Rust").at(origin));
                            }
                            let fields = cx.fields(o, id, origin, "")?;
                            vs.push(RVariant {
                                doc: vdoc,
                                name: vname,
                                wire: untrusted(v.tag_value.clone().unwrap_or_default()),
                                fields,
                                payload: None,
                            });
                        }
                        Payload::Type(Ty::Null) => vs.push(RVariant {
                            doc: vdoc,
                            name: vname,
                            wire: Untrusted::default(),
                            fields: vec![],
                            payload: None,
                        }),
                        Payload::Type(ty) => {
                            let code = Code(cx.ty(ty, id, true, origin)?);
                            vs.push(RVariant {
                                doc: vdoc,
                                name: vname,
                                wire: Untrusted::default(),
                                fields: vec![],
                                payload: Some(code),
                            });
                        }
                    }
                }
                match &u.tag {
                    Some(tag) => out.push(Item::Tagged {
                        doc,
                        name,
                        tag: untrusted(tag.clone()),
                        variants: vs,
                    }),
                    None => out.push(Item::Untagged {
                        doc,
                        name,
                        variants: vs,
                    }),
                }
            }
        }
    }
    Ok(out)
}

/// The `types.rs` of `ir` (the client's `<Tool>Input`/`<Tool>Output` types, which the
/// server stub shares) and its diagnostics.
pub(crate) fn types_file(ir: &Ir) -> Result<(String, Vec<Diagnostic>), Error> {
    let mut cx = Ctx {
        ir,
        newtypes: recursive_aliases(ir),
        reach: reachability(ir),
        diags: Vec::new(),
    };
    let items = items(&mut cx)?;
    let types = TypesTpl {
        server: untrusted(format!(
            "Types of the tools of the MCP server {}.",
            ir.server.label()
        )),
        items,
    }
    .render()?;
    Ok((types, cx.diags))
}

/// Renders the crate's files (`Cargo.toml`, `src/lib.rs`, `src/types.rs`).
pub fn render(ir: &Ir, opts: &RustOptions) -> Result<(Vec<GeneratedFile>, Vec<Diagnostic>), Error> {
    let mut cx = Ctx {
        ir,
        newtypes: recursive_aliases(ir),
        reach: reachability(ir),
        diags: Vec::new(),
    };
    let items = items(&mut cx)?;
    let types = TypesTpl {
        server: untrusted(format!(
            "Types of the tools of the MCP server {}.",
            ir.server.label()
        )),
        items,
    }
    .render()?;

    let mut tools = Vec::new();
    let mut content_aliases = Vec::new();
    let reshapes = Reshapes::of(ir);
    for t in &ir.tools {
        let output = cx.name(t.output)?;
        if !t.structured_output {
            let doc = ir
                .types
                .get(t.output)
                .and_then(|x| x.doc.clone())
                .unwrap_or_default();
            content_aliases.push((untrusted(doc), output.clone()));
        }
        let dispatch = Dispatch::of(t);
        let pattern = |revs: &[&str]| {
            Code(
                revs.iter()
                    .map(|r| escape::rust::str_lit(r))
                    .collect::<Vec<_>>()
                    .join(" | "),
            )
        };
        let arms = dispatch
            .arms
            .iter()
            .map(|(revs, reshape)| {
                let decode = match reshape {
                    Reshape::Unwrap(p) => format!("Decode::Unwrap({})", escape::rust::str_lit(p)),
                    Reshape::Wrap(p) => format!("Decode::Wrap({})", escape::rust::str_lit(p)),
                };
                (pattern(revs), Code(decode))
            })
            .collect();
        tools.push(RTool {
            absent: (!dispatch.absent.is_empty()).then(|| pattern(&dispatch.absent)),
            arms,
            doc: untrusted(t.doc.clone()),
            name: Ident::rust(&t.names.rust)?,
            wire: untrusted(t.wire_name.clone()),
            input: cx.name(t.input)?,
            output,
            structured: t.structured_output,
            deprecated: t.deprecated,
        });
    }
    let package = crate_name(opts.crate_name.as_deref(), &ir.server.name);
    let crate_ident =
        Ident::rust(&package.replace('-', "_")).or_else(|_| Ident::rust("mcp_client"))?;
    let lib = LibTpl {
        doc: untrusted(ir.doc.clone()),
        crate_name: crate_ident,
        protocol_version: untrusted(ir.protocol_version.as_str()),
        protocol_versions: ir
            .protocol_versions
            .iter()
            .rev()
            .map(|r| untrusted(r.as_str()))
            .collect(),
        decodes: reshapes.any(),
        has_unwrap: reshapes.unwrap,
        has_wrap: reshapes.wrap,
        has_structured: tools.iter().any(|t| t.structured),
        has_content: tools.iter().any(|t| !t.structured),
        tools,
        content_aliases,
    }
    .render()?;
    let cargo = CargoTpl {
        package: untrusted(package),
        description: untrusted(ir.summary.clone()),
    }
    .render()?;
    let files = vec![
        GeneratedFile {
            path: "Cargo.toml".into(),
            contents: cargo,
        },
        GeneratedFile {
            path: "src/lib.rs".into(),
            contents: lib,
        },
        GeneratedFile {
            path: "src/types.rs".into(),
            contents: types,
        },
    ];
    Ok((files, cx.diags))
}
