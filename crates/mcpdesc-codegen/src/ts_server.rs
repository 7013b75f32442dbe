//! TypeScript server renderer: a package on the v2 SDK's `@modelcontextprotocol/server`
//! that serves the description as its contract.
//!
//! `src/generated/` holds what regeneration rewrites: the client's `<Tool>Input`/
//! `<Tool>Output` types (`types.ts`), the `Handlers` interface with one method per tool and
//! `DefaultHandlers` answering from named examples (`handlers.ts`), the runtime
//! (`runtime.ts`) and `contract.json`: per declared revision, exactly what `mcpdesc export
//! tools-list --protocol-version V` gives (and the resources, resource templates and
//! prompts lists of that revision's view), served as they are by the SDK's low-level
//! `Server`. No schema is copied into code. `src/handlers.ts` and `src/main.ts` are the
//! user's: [`ServerGenerated::seeds`], written only when missing ([`write_server`]).

use crate::escape::Untrusted;
use crate::ir::{Decode, Ir};
use crate::render::{Code, Ident, doc_text, filters, untrusted};
use crate::typescript::Ctx;
use crate::{Error, Generated, GeneratedFile};
use askama::Template;
use mcpdesc_core::{DeclKind, Diagnostic, ProtocolRevision, refs};
use mcpdesc_validate::Validated;
use serde_json::{Map, Value, json};
use std::path::Path;

/// Options for the TypeScript server target.
#[derive(Debug, Clone, Default)]
pub struct TsServerOptions {
    /// Protocol revision whose types the handlers use (default: the newest declared).
    pub protocol_version: Option<ProtocolRevision>,
    /// npm package name (default: `<server name>-server`).
    pub package_name: Option<String>,
}

/// A generated server: files regeneration rewrites, and the user's files it creates once.
#[derive(Debug, Clone)]
pub struct ServerGenerated {
    /// `package.json`, `tsconfig.json` and `src/generated/*`, rewritten on each run.
    pub generated: Generated,
    /// `src/handlers.ts` and `src/main.ts`: written only when they do not exist.
    pub seeds: Vec<GeneratedFile>,
}

struct TDecl {
    doc: Untrusted,
    name: Ident,
    ty: Code,
}

struct STool {
    doc: Untrusted,
    deprecated: bool,
    name: Ident,
    wire: Untrusted,
    input: Ident,
    output: Ident,
}

#[derive(Template)]
#[template(path = "typescript-server/types.ts.askama", escape = "none")]
struct TypesTpl {
    protocol_version: Untrusted,
    decls: Vec<TDecl>,
}

#[derive(Template)]
#[template(path = "typescript-server/handlers.ts.askama", escape = "none")]
struct HandlersTpl {
    tools: Vec<STool>,
}

#[derive(Template)]
#[template(path = "typescript-server/handlers.user.ts.askama", escape = "none")]
struct UserHandlersTpl<'a> {
    server: Untrusted,
    first: Option<&'a STool>,
}

#[derive(Template)]
#[template(path = "typescript-server/main.ts.askama", escape = "none")]
struct MainTpl;

#[derive(Template)]
#[template(path = "typescript-server/runtime.ts.askama", escape = "none")]
struct RuntimeTpl;

#[derive(Template)]
#[template(path = "typescript-server/package.json.askama", escape = "none")]
struct PackageTpl {
    package: Untrusted,
    description: Untrusted,
}

#[derive(Template)]
#[template(path = "typescript/tsconfig.json.askama", escape = "none")]
struct TsconfigTpl;

/// Generates the server package for `doc` (see the module documentation).
pub fn generate(doc: &Validated<'_>, opts: &TsServerOptions) -> Result<ServerGenerated, Error> {
    let mut seeds = Vec::new();
    let generated = crate::generate_with(doc, opts.protocol_version, |ir| {
        let (files, user, diags) = render(doc, ir, opts)?;
        seeds = user;
        Ok((files, diags))
    })?;
    if generated.files.is_empty() {
        seeds.clear();
    }
    Ok(ServerGenerated { generated, seeds })
}

/// The contract: per declared revision the lists a server sends, and per tool of `ir`
/// whether its output is structured and its named examples.
pub fn contract(doc: &Validated<'_>, ir: &Ir) -> Result<Value, Vec<Diagnostic>> {
    let value = doc.value();
    let mut revisions = Map::new();
    let has = |kind: DeclKind| {
        value
            .get(kind.collection())
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    let others = [
        DeclKind::Resource,
        DeclKind::ResourceTemplate,
        DeclKind::Prompt,
    ];
    for rev in &ir.protocol_versions {
        let mut r = Map::new();
        r.insert("tools".into(), mcpdesc_scope::export_tools_list(doc, *rev)?);
        let view = if others.iter().any(|k| has(*k)) {
            Some(mcpdesc_scope::project(doc, *rev).map_err(|d| vec![d])?)
        } else {
            None
        };
        for kind in others {
            let list = match &view {
                Some(v) => mcpdesc_scope::list_of_view(kind, v)?,
                None => json!({ kind.collection(): [] }),
            };
            r.insert(kind.collection().into(), list);
        }
        let mut reshape = Map::new();
        for t in ir.tools.iter().filter(|t| t.structured_output) {
            let how = t
                .results
                .iter()
                .find(|x| x.revision == *rev)
                .map(|x| &x.decode);
            match how {
                Some(Decode::Unwrap { property }) => {
                    reshape.insert(t.wire_name.clone(), json!({ "unwrap": property }));
                }
                Some(Decode::Wrap { property }) => {
                    reshape.insert(t.wire_name.clone(), json!({ "wrap": property }));
                }
                _ => {}
            }
        }
        r.insert("reshape".into(), Value::Object(reshape));
        revisions.insert(rev.as_str().into(), Value::Object(r));
    }
    let mut tools = Map::new();
    for t in &ir.tools {
        let examples = value
            .pointer(&t.origin)
            .and_then(|d| d.get("examples"))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(name, ex)| {
                        let (ex, _) = refs::resolve(value, ex, "toolExamples").ok()?;
                        let mut e = Map::new();
                        e.insert("name".into(), Value::String(name.clone()));
                        for k in ["input", "result"] {
                            if let Some(v) = ex.get(k) {
                                e.insert(k.into(), v.clone());
                            }
                        }
                        Some(Value::Object(e))
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        tools.insert(
            t.wire_name.clone(),
            json!({ "structured": t.structured_output, "examples": examples }),
        );
    }
    let newest_first: Vec<&str> = ir
        .protocol_versions
        .iter()
        .rev()
        .map(|r| r.as_str())
        .collect();
    Ok(json!({
        "serverInfo": mcpdesc_scope::server_info(value),
        "protocolVersions": newest_first,
        "revisions": revisions,
        "tools": tools,
    }))
}

type Rendered = (Vec<GeneratedFile>, Vec<GeneratedFile>, Vec<Diagnostic>);

fn render(doc: &Validated<'_>, ir: &Ir, opts: &TsServerOptions) -> Result<Rendered, Error> {
    let contract = match contract(doc, ir) {
        Ok(c) => c,
        Err(diags) => return Ok((Vec::new(), Vec::new(), diags)),
    };
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
    let name = |id: usize| -> Result<Ident, Error> {
        let t = ir
            .types
            .get(id)
            .ok_or(Error::Internal("dangling type id"))?;
        Ident::ts(&t.names.ts)
    };
    let mut tools = Vec::new();
    for t in &ir.tools {
        tools.push(STool {
            doc: untrusted(t.doc.clone()),
            deprecated: t.deprecated,
            name: Ident::ts(&t.names.ts)?,
            wire: untrusted(t.wire_name.clone()),
            input: name(t.input)?,
            output: name(t.output)?,
        });
    }
    let package = opts.package_name.clone().unwrap_or_else(|| {
        let base = crate::typescript::package_name(None, &ir.server.name);
        match base.strip_suffix("-client") {
            Some(b) => format!("{b}-server"),
            None => base,
        }
    });
    let package = crate::typescript::package_name(Some(&package), &ir.server.name);
    let description = doc_text(
        Some(&format!(
            "MCP server for {} (from its MCP Description)",
            ir.server.label()
        )),
        None,
        false,
    );
    let file = |path: &str, contents: String| GeneratedFile {
        path: path.into(),
        contents,
    };
    let mut contract_text =
        serde_json::to_string_pretty(&contract).map_err(|_| Error::Internal("contract JSON"))?;
    contract_text.push('\n');
    let seeds = vec![
        file(
            "src/handlers.ts",
            UserHandlersTpl {
                server: untrusted(ir.server.label()),
                first: tools.first(),
            }
            .render()?,
        ),
        file("src/main.ts", MainTpl.render()?),
    ];
    let files = vec![
        file(
            "package.json",
            PackageTpl {
                package: untrusted(package),
                description,
            }
            .render()?,
        ),
        file("tsconfig.json", TsconfigTpl.render()?),
        file(
            "src/generated/types.ts",
            TypesTpl {
                protocol_version: untrusted(ir.protocol_version.as_str()),
                decls,
            }
            .render()?,
        ),
        file("src/generated/handlers.ts", HandlersTpl { tools }.render()?),
        file("src/generated/runtime.ts", RuntimeTpl.render()?),
        file("src/generated/contract.json", contract_text),
    ];
    Ok((files, seeds, Vec::new()))
}

/// Writes a generated server under `dir`: every generated file atomically (as
/// [`crate::write_files`]), then each seed only if no file is at its path (a user's
/// handlers are never overwritten). Returns the seeds' paths that were kept as they were.
pub fn write_server(dir: &Path, g: &ServerGenerated) -> Result<Vec<String>, Error> {
    crate::write_files(dir, &g.generated.files)?;
    let (new, kept): (Vec<_>, Vec<_>) = g
        .seeds
        .iter()
        .cloned()
        .partition(|f| !dir.join(&f.path).exists());
    for f in &new {
        crate::write_new_file(dir, f)?;
    }
    Ok(kept.into_iter().map(|f| f.path).collect())
}
