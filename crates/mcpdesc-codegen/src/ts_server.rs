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
//! user's: [`ServerGenerated::seeds`], written only when missing ([`crate::write_server`]). The
//! contract and the generation step around these files are [`crate::server`]'s.

use crate::escape::Untrusted;
use crate::ir::Ir;
use crate::render::{Code, Ident, filters, untrusted};
use crate::server::{ServerGenerated, StubFiles};
use crate::stub_tool::{StubTool, stub_tools};
use crate::typescript::Ctx;
use crate::{Error, file};
use askama::Template;
use mcpdesc_core::ProtocolRevision;
use mcpdesc_validate::Validated;

/// Options for the TypeScript server target.
#[derive(Debug, Clone, Default)]
pub struct TsServerOptions {
    /// Protocol revision whose types the handlers use (default: the newest declared).
    pub protocol_version: Option<ProtocolRevision>,
    /// npm package name (default: `<server name>-server`).
    pub package_name: Option<String>,
}

struct TDecl {
    doc: Untrusted,
    name: Ident,
    ty: Code,
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
    tools: Vec<StubTool>,
}

#[derive(Template)]
#[template(path = "typescript-server/handlers.user.ts.askama", escape = "none")]
struct UserHandlersTpl<'a> {
    server: Untrusted,
    first: Option<&'a StubTool>,
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
    crate::server::generate_stub(doc, opts.protocol_version, |ir, description| {
        render(ir, description, opts)
    })
}

fn render(ir: &Ir, description: Untrusted, opts: &TsServerOptions) -> Result<StubFiles, Error> {
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
    let tools = stub_tools(ir, |n| Ident::ts(&n.ts))?;
    let package = opts.package_name.clone().unwrap_or_else(|| {
        let base = crate::typescript::package_name(None, &ir.server.name);
        match base.strip_suffix("-client") {
            Some(b) => format!("{b}-server"),
            None => base,
        }
    });
    let package = crate::typescript::package_name(Some(&package), &ir.server.name);
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
    ];
    Ok(StubFiles {
        files,
        seeds,
        diagnostics: Vec::new(),
    })
}
