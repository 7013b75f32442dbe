//! # mcpdesc-codegen
//!
//! Typed MCP clients from an MCP Description: Rust (rmcp) and TypeScript
//! (`@modelcontextprotocol/sdk`).
//!
//! The pipeline flows one way: a validated description (the validator's handle,
//! [`mcpdesc_validate::Validated`]; nothing here validates again) →
//! [`lower::Views::project`] (the Effective Protocol View of one revision, made by
//! `mcpdesc_scope::project`) → [`lower::lower`] →
//! [`ir::Ir`] (plain data) → a renderer ([`rust`], [`typescript`]) using the crate's
//! askama templates (the workspace's top-level `templates/`, packaged through the
//! crate's `templates` symlink) → files. Every string from the description that
//! reaches generated code passes through [`escape`].
//!
//! ```
//! let doc = serde_json::json!({
//!     "mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},
//!     "protocolVersions": ["2025-11-25"],
//!     "tools": [{"name": "echo", "inputSchema": {"type": "object",
//!         "properties": {"message": {"type": "string"}}, "required": ["message"]}}]
//! });
//! let valid = mcpdesc_validate::Validator::new().check(&doc).expect("valid");
//! let out = mcpdesc_codegen::generate_rust(&valid, &Default::default()).expect("generates");
//! let lib = &out.files.iter().find(|f| f.path == "src/lib.rs").expect("lib.rs").contents;
//! assert!(lib.contains("pub async fn echo(&self, input: EchoInput) -> Result<EchoOutput, Error>"));
//! ```

pub mod declarations;
pub mod escape;
pub mod ir;
pub mod lower;
pub mod names;
pub mod render;
pub mod rust;
pub mod rust_server;
pub mod server;
mod stub_tool;
pub mod ts_server;
pub mod typescript;

use mcpdesc_core::{Diagnostic, ProtocolRevision};
use mcpdesc_validate::Validated;
use std::path::{Component, Path};

pub use rust::RustOptions;
pub use rust_server::RustServerOptions;
pub use server::{ServerGenerated, write_server};
pub use ts_server::TsServerOptions;
pub use typescript::{TsOptions, TsSdk};

/// Library errors (as opposed to diagnostics about the input).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A template failed to render.
    #[error("template rendering failed: {0}")]
    Template(#[from] askama::Error),
    /// A name that should have been sanitized is not an identifier (a bug; refuse to emit).
    #[error("internal error: `{0}` is not a valid identifier")]
    BadIdentifier(String),
    /// An internal invariant broke.
    #[error("internal error: {0}")]
    Internal(&'static str),
    /// Writing output failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A generated path would leave the output directory.
    #[error("refusing to write outside the output directory: {0}")]
    UnsafePath(String),
}

/// One generated file; `path` is relative, `/`-separated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: String,
    pub contents: String,
}

/// A generated file at `path` (relative, `/`-separated).
pub(crate) fn file(path: &str, contents: String) -> GeneratedFile {
    GeneratedFile {
        path: path.into(),
        contents,
    }
}

/// The result of generation.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The IR the files were rendered from (absent when lowering failed).
    pub ir: Option<ir::Ir>,
    /// Files to write (empty when there are error diagnostics).
    pub files: Vec<GeneratedFile>,
    /// Everything worth telling the user, errors included.
    pub diagnostics: Vec<Diagnostic>,
}

type Rendered = Result<(Vec<GeneratedFile>, Vec<Diagnostic>), Error>;

/// Projects `doc` to the views of revision `rev` and lowers them; a revision the
/// document does not declare comes back as a diagnostic with no IR.
fn lowered(
    doc: &Validated<'_>,
    rev: Option<ProtocolRevision>,
) -> (Option<ir::Ir>, Vec<Diagnostic>) {
    match lower::Views::project(doc, rev).map(|views| lower::lower(&views)) {
        Ok(l) => (Some(l.ir), l.diagnostics),
        Err(diagnostics) => (None, diagnostics),
    }
}

/// Renders a lowered description unless lowering reported errors.
fn finish(
    ir: Option<ir::Ir>,
    mut diagnostics: Vec<Diagnostic>,
    render: impl FnOnce(&ir::Ir) -> Rendered,
) -> Result<Generated, Error> {
    let files = match &ir {
        Some(ir) if !mcpdesc_core::has_errors(&diagnostics) => {
            let (files, more) = render(ir)?;
            diagnostics.extend(more);
            files
        }
        _ => Vec::new(),
    };
    Ok(Generated {
        ir,
        files,
        diagnostics,
    })
}

/// Generates the Rust client crate for `doc` (a validated description). It is
/// projected first (see [`lower::Views::project`]); a requested revision it does not
/// declare is refused with the projection's diagnostic.
pub fn generate_rust(doc: &Validated<'_>, opts: &RustOptions) -> Result<Generated, Error> {
    let (ir, diagnostics) = lowered(doc, opts.protocol_version);
    finish(ir, diagnostics, |ir| rust::render(ir, opts))
}

/// Projects and lowers `doc` at `rev` and renders with `render` unless lowering
/// reported errors (what every generator does).
pub(crate) fn generate_with(
    doc: &Validated<'_>,
    rev: Option<ProtocolRevision>,
    render: impl FnOnce(&ir::Ir) -> Rendered,
) -> Result<Generated, Error> {
    let (ir, diagnostics) = lowered(doc, rev);
    finish(ir, diagnostics, render)
}

/// Generates the TypeScript server package for `doc` on `@modelcontextprotocol/server`
/// 2.x (see [`ts_server`]); write it with [`write_server`].
pub fn generate_typescript_server(
    doc: &Validated<'_>,
    opts: &TsServerOptions,
) -> Result<ServerGenerated, Error> {
    ts_server::generate(doc, opts)
}

/// Generates the Rust server crate for `doc` on rmcp 3.x (see [`rust_server`]); write
/// it with [`write_server`].
pub fn generate_rust_server(
    doc: &Validated<'_>,
    opts: &RustServerOptions,
) -> Result<ServerGenerated, Error> {
    rust_server::generate(doc, opts)
}

/// Generates the TypeScript client package for `doc` (a description as JSON), like
/// [`generate_rust`].
pub fn generate_typescript(doc: &Validated<'_>, opts: &TsOptions) -> Result<Generated, Error> {
    let (ir, diagnostics) = lowered(doc, opts.protocol_version);
    finish(ir, diagnostics, |ir| typescript::render(ir, opts))
}

/// Both clients at once: the Rust crate and the TypeScript package. When both
/// target the same protocol revision (given or not: no revision means the newest in
/// the document), the description is projected and lowered once and the two renderers
/// run in parallel; otherwise the two generations run in parallel. Same results as
/// [`generate_rust`] and [`generate_typescript`] called one after the other.
pub fn generate_clients(
    doc: &Validated<'_>,
    rust: &RustOptions,
    ts: &TsOptions,
) -> (Result<Generated, Error>, Result<Generated, Error>) {
    let target = |rev| lower::Views::target(doc.value(), rev);
    if target(rust.protocol_version) != target(ts.protocol_version) {
        return rayon::join(|| generate_rust(doc, rust), || generate_typescript(doc, ts));
    }
    let (ir, diagnostics) = lowered(doc, rust.protocol_version);
    let renderable = ir.is_some() && !mcpdesc_core::has_errors(&diagnostics);
    let (r, t) = match &ir {
        Some(ir) if renderable => {
            rayon::join(|| rust::render(ir, rust), || typescript::render(ir, ts))
        }
        _ => (Ok(Default::default()), Ok(Default::default())),
    };
    let give =
        |rendered: Rendered, ir: Option<ir::Ir>| finish(ir, diagnostics.clone(), |_| rendered);
    (give(r, ir.clone()), give(t, ir))
}

/// Whether a generated relative path stays inside its output directory.
fn safe_relative(p: &str) -> bool {
    let path = Path::new(p);
    !p.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Writes `files` under `dir`. Each file is written to a temporary file in its final
/// directory and renamed into place, so readers never see a half-written file; paths
/// that would leave `dir` are refused before anything is written.
pub fn write_files(dir: &Path, files: &[GeneratedFile]) -> Result<(), Error> {
    use std::io::Write as _;
    if let Some(bad) = files.iter().find(|f| !safe_relative(&f.path)) {
        return Err(Error::UnsafePath(bad.path.clone()));
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| Error::Io { path, source }
    };
    for f in files {
        let target = dir.join(&f.path);
        let parent = target.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".mcpdesc-").suffix(".tmp");
        // Generated sources are ordinary files: 0666 minus the umask, as a plain create
        // gives (tempfile's default would be 0600).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let mut tmp = builder.tempfile_in(parent).map_err(io(parent))?;
        tmp.write_all(f.contents.as_bytes()).map_err(io(&target))?;
        tmp.as_file().sync_all().map_err(io(&target))?;
        tmp.persist(&target).map_err(|e| Error::Io {
            path: target.display().to_string(),
            source: e.error,
        })?;
    }
    Ok(())
}

/// Writes `f` under `dir` only if nothing is at its path: through a temporary file in
/// its directory, linked into place without replacing anything (a file created there
/// meanwhile is kept, and the write fails).
pub(crate) fn write_new_file(dir: &Path, f: &GeneratedFile) -> Result<(), Error> {
    use std::io::Write as _;
    if !safe_relative(&f.path) {
        return Err(Error::UnsafePath(f.path.clone()));
    }
    let target = dir.join(&f.path);
    let parent = target.parent().unwrap_or(dir);
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".mcpdesc-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(parent).map_err(io(parent))?;
    tmp.write_all(f.contents.as_bytes()).map_err(io(&target))?;
    tmp.as_file().sync_all().map_err(io(&target))?;
    tmp.persist_noclobber(&target).map_err(|e| Error::Io {
        path: target.display().to_string(),
        source: e.error,
    })?;
    Ok(())
}

#[cfg(test)]
mod tests_mutants;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_paths_are_refused() {
        assert!(safe_relative("src/lib.rs"));
        assert!(
            !safe_relative("../x")
                && !safe_relative("/etc/x")
                && !safe_relative("a/../../b")
                && !safe_relative("")
        );
    }
}
