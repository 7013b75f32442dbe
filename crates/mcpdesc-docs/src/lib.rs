//! # mcpdesc-docs
//!
//! Readable documentation of an MCP Description: a self-contained HTML page and
//! Markdown.
//!
//! The input is validated first (`mcpdesc-validate`): errors stop generation, warnings
//! are shown on the page. The page model ([`model::Page`]) is built from the source
//! document and its Effective Protocol View at every declared revision
//! (`mcpdesc-scope`), then rendered by [`html`] (one `index.html`: inline CSS and JS
//! allowed by hash in a strict Content-Security-Policy, data embedded as JSON, tables
//! rendered when a declaration is opened) or [`markdown`]. Output is deterministic: the
//! same input gives the same bytes.
//!
//! Descriptions are untrusted. Every string reaches the output through [`text`]: as
//! inert text (HTML- or Markdown-escaped, control and bidi characters made visible) or
//! as Markdown rendered by pulldown-cmark and sanitized by ammonia. The page loads
//! nothing: no CDN, no fonts, no remote icons (only `data:` raster images are shown).
//!
//! ```
//! let doc = serde_json::json!({
//!     "mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},
//!     "protocolVersions": ["2025-11-25"],
//!     "tools": [{"name": "echo", "description": "Echo <b>it</b>", "inputSchema": {"type": "object",
//!         "properties": {"message": {"type": "string"}}, "required": ["message"]}}]
//! });
//! let out = mcpdesc_docs::generate(&doc, mcpdesc_docs::Format::Markdown, &Default::default());
//! let md = out.output.expect("valid input");
//! assert!(md.contains("### echo"));
//! assert!(md.contains(r"\<b\>it\</b\>"));
//! ```

pub mod html;
pub mod markdown;
pub mod model;
pub mod schema;
pub mod text;

use mcpdesc_core::{Diagnostic, has_errors};
use serde_json::Value;

/// What to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// One self-contained `index.html`.
    #[default]
    Html,
    /// One Markdown file.
    Markdown,
}

/// Generation options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Page title (default: the server's title, else its name).
    pub title: Option<String>,
}

/// The result of [`generate`].
#[derive(Debug, Clone)]
pub struct Generated {
    /// The page or Markdown text; `None` when the input has errors.
    pub output: Option<String>,
    /// Validation diagnostics (errors and warnings).
    pub diagnostics: Vec<Diagnostic>,
}

/// Library errors (as opposed to diagnostics about the input).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A template failed to render.
    #[error("template rendering failed: {0}")]
    Template(#[from] askama::Error),
    /// The model could not be serialized as data.
    #[error("serializing page data failed: {0}")]
    Json(#[from] serde_json::Error),
}

/// Validates `doc` and, when it conforms, renders it in `format`.
pub fn generate(doc: &Value, format: Format, opts: &Options) -> Generated {
    generate_with(doc, format, opts, |_| {})
}

/// [`generate`], with `locate` adding source positions to diagnostics before they
/// are shown on the page (the CLI passes `Decoded::annotate`).
pub fn generate_with(
    doc: &Value,
    format: Format,
    opts: &Options,
    locate: impl Fn(&mut [Diagnostic]),
) -> Generated {
    let mut diagnostics = mcpdesc_validate::validate_value(doc);
    locate(&mut diagnostics);
    if has_errors(&diagnostics) {
        return Generated {
            output: None,
            diagnostics,
        };
    }
    let page = model::build(doc, opts.title.as_deref(), &diagnostics);
    let rendered = match format {
        Format::Html => html::render(&page),
        Format::Markdown => markdown::render(&page),
    };
    match rendered {
        Ok(text) => Generated {
            output: Some(text),
            diagnostics,
        },
        Err(e) => {
            diagnostics.push(Diagnostic::error("docs-render", e.to_string()));
            Generated {
                output: None,
                diagnostics,
            }
        }
    }
}
