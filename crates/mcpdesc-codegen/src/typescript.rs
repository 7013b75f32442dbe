//! TypeScript renderer: IR → a package using the v2 SDK's `@modelcontextprotocol/client`
//! (default) or the 1.x `@modelcontextprotocol/sdk` ([`TsSdk`]).

use crate::escape::{self, Untrusted};
use crate::ir::*;
use crate::render::{Code, Dispatch, Ident, Reshape, Reshapes, doc_text, filters, untrusted};
use crate::{Error, GeneratedFile};
use askama::Template;
use mcpdesc_core::{Diagnostic, ProtocolRevision};

/// Options for the TypeScript target.
#[derive(Debug, Clone, Default)]
pub struct TsOptions {
    /// Protocol revision to project to (default: the newest in the document).
    pub protocol_version: Option<ProtocolRevision>,
    /// npm package name (default: from the server name).
    pub package_name: Option<String>,
    /// Which TypeScript SDK the client is written for.
    pub sdk: TsSdk,
}

/// The TypeScript MCP SDK a generated client uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TsSdk {
    /// `@modelcontextprotocol/client` 2.x: negotiates with `versionNegotiation: {mode:
    /// 'auto'}` (2026-07-28 through `server/discover`, older revisions through
    /// `initialize`), with connect options for headers, an auth provider and trace context.
    #[default]
    V2,
    /// `@modelcontextprotocol/sdk` 1.x (newest revision 2025-11-25).
    V1,
}

struct TDecl {
    doc: Untrusted,
    name: Ident,
    ty: Code,
}

struct TTool {
    doc: Untrusted,
    deprecated: bool,
    name: Ident,
    wire: Untrusted,
    input: Ident,
    output: Ident,
    structured: bool,
    /// Revisions where the tool is not in the description.
    absent: Vec<Untrusted>,
    /// `switch (this.#revision)` cases (revisions, `Decode` value).
    arms: Vec<(Vec<Untrusted>, Code)>,
}

#[derive(Template)]
#[template(path = "typescript/index.ts.askama", escape = "none")]
struct IndexTpl {
    /// Written for the v2 SDK ([`TsSdk::V2`]).
    v2: bool,
    /// The description declares 2026-07-28 (v2 clients negotiate with `mode: 'auto'`).
    modern: bool,
    doc: Untrusted,
    package: Untrusted,
    protocol_version: Untrusted,
    /// Newest first.
    protocol_versions: Vec<Untrusted>,
    decls: Vec<TDecl>,
    /// Some method reshapes results (the module-private `Decode` type exists).
    decodes: bool,
    has_unwrap: bool,
    has_wrap: bool,
    tools: Vec<TTool>,
    has_structured: bool,
    has_content: bool,
}

#[derive(Template)]
#[template(path = "typescript/package.json.askama", escape = "none")]
struct PackageTpl {
    v2: bool,
    package: Untrusted,
    description: Untrusted,
}

#[derive(Template)]
#[template(path = "typescript/tsconfig.json.askama", escape = "none")]
struct TsconfigTpl;

/// npm package name from a requested name or the server name (lowercase, URL-safe;
/// an `@scope/` prefix is kept when well-formed).
pub fn package_name(requested: Option<&str>, server: &str) -> String {
    let clean = |s: &str| -> String {
        let mut out: String = s
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        out = out.trim_matches(['-', '_', '.']).to_string();
        while out.contains("--") {
            out = out.replace("--", "-");
        }
        out
    };
    let name = match requested {
        Some(r) => match r.strip_prefix('@').and_then(|x| x.split_once('/')) {
            Some((scope, n)) if !clean(scope).is_empty() && !clean(n).is_empty() => {
                format!("@{}/{}", clean(scope), clean(n))
            }
            _ => clean(r),
        },
        None => {
            let base = clean(server);
            format!("{}-client", if base.is_empty() { "mcp" } else { &base })
        }
    };
    let mut name = if name.is_empty() {
        "mcp-client".to_string()
    } else {
        name
    };
    name.truncate(214);
    name
}

pub(crate) struct Ctx<'a> {
    pub(crate) ir: &'a Ir,
    /// The named types that are declared (`None`: all of them); a reference to any
    /// other is rendered `unknown` with a comment naming it (the compact declarations of
    /// [`crate::declarations`] cut deep types this way).
    pub(crate) declared: Option<&'a std::collections::HashSet<TypeId>>,
    /// A one-line JSDoc block (`/** text */`) for a one-line field doc (code mode's
    /// declarations, which a model reads in its context window).
    pub(crate) compact_docs: bool,
}

impl Ctx<'_> {
    fn name(&self, id: TypeId) -> Result<Ident, Error> {
        let t = self
            .ir
            .types
            .get(id)
            .ok_or(Error::Internal("dangling type id"))?;
        Ident::ts(&t.names.ts)
    }

    fn literal(v: &serde_json::Value) -> String {
        match v {
            serde_json::Value::String(s) => escape::ts::str_lit(s),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            serde_json::Value::Null => "null".into(),
            _ => "unknown".into(),
        }
    }

    pub(crate) fn ty(&self, ty: &Ty) -> Result<String, Error> {
        Ok(match ty {
            Ty::Any => "unknown".into(),
            Ty::Null => "null".into(),
            Ty::Bool => "boolean".into(),
            Ty::Int { .. } | Ty::Number => "number".into(),
            Ty::String => "string".into(),
            Ty::Literal { value } => Self::literal(value),
            Ty::Enum { values } => values
                .iter()
                .map(Self::literal)
                .collect::<Vec<_>>()
                .join(" | "),
            Ty::Array { items } => format!("Array<{}>", self.ty(items)?),
            Ty::Tuple { items, min, rest } => {
                let mut parts = Vec::new();
                for (i, t) in items.iter().enumerate() {
                    let opt = if i >= *min { "?" } else { "" };
                    parts.push(format!("{}{opt}", self.ty(t)?));
                }
                if let Some(r) = rest {
                    parts.push(format!("...Array<{}>", self.ty(r)?));
                }
                format!("[{}]", parts.join(", "))
            }
            Ty::Map { values } => format!("{{ [key: string]: {} }}", self.ty(values)?),
            Ty::Nullable { inner } => format!("{} | null", self.ty(inner)?),
            Ty::Named { id } => match self.declared {
                Some(d) if !d.contains(id) => {
                    format!("unknown /* {}: not expanded */", self.name(*id)?)
                }
                _ => self.name(*id)?.to_string(),
            },
        })
    }

    /// An object type literal; `lead` are extra members first (a union tag).
    fn object(&self, o: &Object, lead: &[String], indent: &str) -> Result<String, Error> {
        let inner = format!("{indent}  ");
        let mut out = String::from("{\n");
        for l in lead {
            out.push_str(&format!("{inner}{l};\n"));
        }
        for f in &o.fields {
            let block = escape::ts::doc(
                doc_text(f.doc.as_deref(), f.default.as_ref(), false).raw(),
                &inner,
                if f.deprecated { &["@deprecated"] } else { &[] },
            );
            out.push_str(&if self.compact_docs {
                compact_doc(&block, &inner)
            } else {
                block
            });
            let opt = if f.required { "" } else { "?" };
            out.push_str(&format!(
                "{inner}{}{opt}: {};\n",
                escape::ts::prop_key(&f.names.ts),
                self.ty(&f.ty)?
            ));
        }
        match &o.extra {
            // `unknown` keeps every declared property type compatible (TS2411).
            Extra::Typed(_) => out.push_str(&format!("{inner}[key: string]: unknown;\n")),
            Extra::Closed | Extra::Open => {}
        }
        out.push_str(indent);
        out.push('}');
        Ok(out)
    }

    pub(crate) fn decl(&self, t: &NamedType) -> Result<Option<String>, Error> {
        Ok(Some(match &t.kind {
            Kind::ContentBlocks => "Array<ContentBlock>".into(),
            Kind::Object(o) if o.fields.is_empty() && matches!(o.extra, Extra::Closed) => {
                "Record<string, never>".into()
            }
            Kind::Object(o) => self.object(o, &[], "")?,
            Kind::StrEnum { variants } => variants
                .iter()
                .map(|v| escape::ts::str_lit(&v.wire))
                .collect::<Vec<_>>()
                .join(" | "),
            Kind::Alias { ty } => self.ty(ty)?,
            Kind::Union(u) => {
                let mut arms = Vec::new();
                for v in &u.variants {
                    match (&u.tag, &v.payload) {
                        (Some(tag), Payload::Fields(o)) => {
                            let lead = format!(
                                "{}: {}",
                                escape::ts::prop_key(tag),
                                escape::ts::str_lit(v.tag_value.as_deref().unwrap_or_default())
                            );
                            arms.push(self.object(o, &[lead], "  ")?);
                        }
                        (_, Payload::Fields(o)) => arms.push(self.object(o, &[], "  ")?),
                        (_, Payload::Type(ty)) => arms.push(self.ty(ty)?),
                    }
                }
                arms.iter()
                    .map(|a| format!("\n  | {a}"))
                    .collect::<String>()
            }
        }))
    }
}

/// `block` (an [`escape::ts::doc`] block at `indent`) on one line when it holds one line
/// of text: `{indent}/** text */`. The text is the escaped block's, so it still cannot
/// close the comment early.
pub(crate) fn compact_doc(block: &str, indent: &str) -> String {
    let lines: Vec<&str> = block.lines().collect();
    match lines.as_slice() {
        [_, one, _] => match one.trim_start().strip_prefix("* ") {
            Some(text) => format!("{indent}/** {text} */\n"),
            None => block.to_string(),
        },
        _ => block.to_string(),
    }
}

/// Renders the package files (`package.json`, `tsconfig.json`, `src/index.ts`).
pub fn render(ir: &Ir, opts: &TsOptions) -> Result<(Vec<GeneratedFile>, Vec<Diagnostic>), Error> {
    let cx = Ctx {
        ir,
        declared: None,
        compact_docs: false,
    };
    let mut decls = Vec::new();
    for t in &ir.types {
        if let Some(ty) = cx.decl(t)? {
            decls.push(TDecl {
                doc: untrusted(t.doc.clone().unwrap_or_default()),
                name: Ident::ts(&t.names.ts)?,
                ty: Code(ty),
            });
        }
    }
    let mut tools = Vec::new();
    let reshapes = Reshapes::of(ir);
    let revisions = |revs: &[&str]| revs.iter().map(|r| untrusted(*r)).collect::<Vec<_>>();
    for t in &ir.tools {
        let dispatch = Dispatch::of(t);
        let arms = dispatch
            .arms
            .iter()
            .map(|(revs, reshape)| {
                let decode = match reshape {
                    Reshape::Unwrap(p) => format!("{{ unwrap: {} }}", escape::ts::str_lit(p)),
                    Reshape::Wrap(p) => format!("{{ wrap: {} }}", escape::ts::str_lit(p)),
                };
                (revisions(revs), Code(decode))
            })
            .collect();
        tools.push(TTool {
            absent: revisions(&dispatch.absent),
            arms,
            doc: untrusted(t.doc.clone()),
            deprecated: t.deprecated,
            name: Ident::ts(&t.names.ts)?,
            wire: untrusted(t.wire_name.clone()),
            input: cx.name(t.input)?,
            output: cx.name(t.output)?,
            structured: t.structured_output,
        });
    }
    let package = package_name(opts.package_name.as_deref(), &ir.server.name);
    let v2 = opts.sdk == TsSdk::V2;
    let index = IndexTpl {
        v2,
        modern: ir
            .protocol_versions
            .contains(&ProtocolRevision::V2026_07_28),
        doc: untrusted(ir.doc.clone()),
        package: untrusted(package.clone()),
        protocol_version: untrusted(ir.protocol_version.as_str()),
        protocol_versions: ir
            .protocol_versions
            .iter()
            .rev()
            .map(|r| untrusted(r.as_str()))
            .collect(),
        decls,
        decodes: reshapes.any(),
        has_unwrap: reshapes.unwrap,
        has_wrap: reshapes.wrap,
        has_structured: tools.iter().any(|t| t.structured),
        has_content: tools.iter().any(|t| !t.structured),
        tools,
    }
    .render()?;
    let pkg = PackageTpl {
        v2,
        package: untrusted(package),
        description: untrusted(ir.summary.clone()),
    }
    .render()?;
    let tsconfig = TsconfigTpl.render()?;
    Ok((
        vec![
            GeneratedFile {
                path: "package.json".into(),
                contents: pkg,
            },
            GeneratedFile {
                path: "tsconfig.json".into(),
                contents: tsconfig,
            },
            GeneratedFile {
                path: "src/index.ts".into(),
                contents: index,
            },
        ],
        Vec::new(),
    ))
}
