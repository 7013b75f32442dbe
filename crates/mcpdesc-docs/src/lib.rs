//! # mcpdesc-docs
//!
//! Readable documentation of an MCP Description: a self-contained HTML page and
//! Markdown.
//!
//! The input is a validated description (the validator's handle,
//! [`mcpdesc_validate::Validated`]; nothing here validates it again): its warnings are
//! shown on the page, with line:column when the handle has positions. The page model ([`model::Page`]) is built from the source
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
//! let valid = mcpdesc_validate::Validator::new().check(&doc).expect("valid");
//! let out = mcpdesc_docs::generate(&valid, mcpdesc_docs::Format::Markdown, &Default::default());
//! let md = out.output.expect("valid input");
//! assert!(md.contains("### echo"));
//! assert!(md.contains(r"\<b\>it\</b\>"));
//! ```

pub mod html;
pub mod markdown;
pub mod model;
pub mod schema;
pub mod text;

#[cfg(test)]
mod tests_mutants;

use mcpdesc_core::Diagnostic;
use mcpdesc_validate::Validated;

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
    /// The page or Markdown text; `None` when rendering failed (`docs-render`).
    pub output: Option<String>,
    /// The validator's warnings and infos, and a rendering error if any.
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

/// Renders a validated description in `format`; its warnings (the handle's
/// diagnostics) are shown on the page and returned.
pub fn generate(doc: &Validated<'_>, format: Format, opts: &Options) -> Generated {
    let mut diagnostics = doc.diagnostics().to_vec();
    let doc = doc.value();
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
