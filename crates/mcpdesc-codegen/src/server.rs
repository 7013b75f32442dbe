//! What the server targets ([`crate::rust_server`], [`crate::ts_server`]) share: the
//! contract (per declared revision, exactly what `export_tools_list` gives, and the
//! resources, resource templates and prompts lists of that revision's view), the one
//! stub-generation step that projects, lowers, builds the contract and writes it as
//! `src/generated/contract.json` around a target's own files, and writing a stub without
//! touching the user's files.

use crate::escape::Untrusted;
use crate::ir::{Decode, Ir};
use crate::render::doc_text;
use crate::{Error, Generated, GeneratedFile};
use mcpdesc_core::{DeclKind, Diagnostic, ProtocolRevision, refs};
use mcpdesc_validate::Validated;
use serde_json::{Map, Value, json};
use std::path::Path;

/// A generated server: files regeneration rewrites, and the user's files it creates once.
#[derive(Debug, Clone)]
pub struct ServerGenerated {
    /// The manifest and `src/generated/*`, rewritten on each run.
    pub generated: Generated,
    /// The user's handlers and entry point: written only when they do not exist.
    pub seeds: Vec<GeneratedFile>,
}

impl From<Generated> for ServerGenerated {
    /// A generation with no user's files (a client).
    fn from(generated: Generated) -> ServerGenerated {
        ServerGenerated {
            generated,
            seeds: Vec::new(),
        }
    }
}

/// What a server target renders around the contract.
pub(crate) struct StubFiles {
    /// Rewritten on each run (`src/generated/contract.json` is added after them).
    pub files: Vec<GeneratedFile>,
    /// The user's files, created once.
    pub seeds: Vec<GeneratedFile>,
    /// Anything worth telling about the rendering.
    pub diagnostics: Vec<Diagnostic>,
}

/// The one stub-generation step: projects and lowers `doc` at `rev` (the revision whose
/// types the handlers use), builds the contract, and unless either reported errors
/// renders the target's files with `render` (given the IR and the package description
/// text) followed by `src/generated/contract.json`.
pub(crate) fn generate_stub(
    doc: &Validated<'_>,
    rev: Option<ProtocolRevision>,
    render: impl FnOnce(&Ir, Untrusted) -> Result<StubFiles, Error>,
) -> Result<ServerGenerated, Error> {
    let mut seeds = Vec::new();
    let generated = crate::generate_with(doc, rev, |ir| {
        let contract = match contract(doc, ir) {
            Ok(c) => c,
            Err(diags) => return Ok((Vec::new(), diags)),
        };
        let description = doc_text(
            Some(&format!(
                "MCP server for {} (from its MCP Description)",
                ir.server.label()
            )),
            None,
            false,
        );
        let mut out = render(ir, description)?;
        let mut text = serde_json::to_string_pretty(&contract)
            .map_err(|_| Error::Internal("contract JSON"))?;
        text.push('\n');
        out.files
            .push(crate::file("src/generated/contract.json", text));
        seeds = out.seeds;
        Ok((out.files, out.diagnostics))
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
