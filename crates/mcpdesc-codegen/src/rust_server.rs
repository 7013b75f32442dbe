//! Rust server renderer: a crate on rmcp 3.x (`server`) that serves the description as
//! its contract, built into a binary named after the description.
//!
//! `src/generated/` holds what regeneration rewrites: the client's `<Tool>Input`/
//! `<Tool>Output` types (`types.rs`, the same file the Rust client gets), the `Handlers`
//! trait with one method per tool whose default answers from the tool's named examples
//! (`mod.rs`), the runtime (`runtime.rs`) and `contract.json` (the same contract as the
//! TypeScript stub's, [`crate::server::contract`], embedded with `include_str!`: no
//! schema is copied into code). `src/handlers.rs` and `src/main.rs` are the user's:
//! [`ServerGenerated::seeds`], written only when missing ([`crate::write_server`]). The
//! generation step around these files is [`crate::server`]'s.

use crate::escape::Untrusted;
use crate::ir::Ir;
use crate::render::{Ident, filters, untrusted};
use crate::server::{ServerGenerated, StubFiles};
use crate::stub_tool::{StubTool, stub_tools};
use crate::{Error, file};
use askama::Template;
use mcpdesc_core::ProtocolRevision;
use mcpdesc_validate::Validated;

/// Options for the Rust server target.
#[derive(Debug, Clone, Default)]
pub struct RustServerOptions {
    /// Protocol revision whose types the handlers use (default: the newest declared).
    pub protocol_version: Option<ProtocolRevision>,
    /// Cargo package and binary name (default: `<server name>-server`).
    pub crate_name: Option<String>,
}

#[derive(Template)]
#[template(path = "rust-server/Cargo.toml.askama", escape = "none")]
struct CargoTpl {
    package: Untrusted,
    description: Untrusted,
}

#[derive(Template)]
#[template(path = "rust-server/mod.rs.askama", escape = "none")]
struct ModTpl {
    protocol_version: Untrusted,
    content_aliases: Vec<(Untrusted, Ident)>,
    tools: Vec<StubTool>,
}

#[derive(Template)]
#[template(path = "rust-server/runtime.rs.askama", escape = "none")]
struct RuntimeTpl;

#[derive(Template)]
#[template(path = "rust-server/main.rs.askama", escape = "none")]
struct MainTpl {
    server: Untrusted,
}

#[derive(Template)]
#[template(path = "rust-server/handlers.user.rs.askama", escape = "none")]
struct UserHandlersTpl<'a> {
    server: Untrusted,
    first: Option<&'a StubTool>,
}

/// The package (and binary) name: the requested one, else `<server name>-server` (the
/// server name once when it already ends in `server`).
pub fn package_name(requested: Option<&str>, server: &str) -> String {
    if let Some(r) = requested {
        return crate::rust::crate_name(Some(r), server);
    }
    let base = crate::rust::crate_name(None, server);
    let base = base.strip_suffix("-client").unwrap_or(&base);
    if base.ends_with("server") {
        base.to_string()
    } else {
        crate::rust::crate_name(Some(&format!("{base}-server")), server)
    }
}

/// Generates the server crate for `doc` (see the module documentation).
pub fn generate(doc: &Validated<'_>, opts: &RustServerOptions) -> Result<ServerGenerated, Error> {
    crate::server::generate_stub(doc, opts.protocol_version, |ir, description| {
        render(ir, description, opts)
    })
}

fn render(ir: &Ir, description: Untrusted, opts: &RustServerOptions) -> Result<StubFiles, Error> {
    let (types, diagnostics) = crate::rust::types_file(ir)?;
    let name = |id: usize| -> Result<Ident, Error> {
        let t = ir
            .types
            .get(id)
            .ok_or(Error::Internal("dangling type id"))?;
        Ident::rust(&t.names.rust)
    };
    let mut content_aliases = Vec::new();
    for t in ir.tools.iter().filter(|t| !t.structured_output) {
        let doc = ir
            .types
            .get(t.output)
            .and_then(|x| x.doc.clone())
            .unwrap_or_default();
        content_aliases.push((untrusted(doc), name(t.output)?));
    }
    let tools = stub_tools(ir, |n| Ident::rust(&n.rust))?;
    let package = package_name(opts.crate_name.as_deref(), &ir.server.name);
    let server = untrusted(ir.server.label());
    let seeds = vec![
        file(
            "src/handlers.rs",
            UserHandlersTpl {
                server: server.clone(),
                first: tools.first(),
            }
            .render()?,
        ),
        file("src/main.rs", MainTpl { server }.render()?),
    ];
    let files = vec![
        file(
            "Cargo.toml",
            CargoTpl {
                package: untrusted(package),
                description,
            }
            .render()?,
        ),
        file(
            "src/generated/mod.rs",
            ModTpl {
                protocol_version: untrusted(ir.protocol_version.as_str()),
                content_aliases,
                tools,
            }
            .render()?,
        ),
        file("src/generated/types.rs", types),
        file("src/generated/runtime.rs", RuntimeTpl.render()?),
    ];
    Ok(StubFiles {
        files,
        seeds,
        diagnostics,
    })
}
