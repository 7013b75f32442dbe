//! `mcpdesc docs DESCRIPTION -o OUT [--format html|markdown] [--title T]`.

use crate::util::{self, CmdResult, Outcome, Refusal, UsageError};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Render readable documentation of an MCP Description.
///
/// html (default): OUT is a directory that receives one self-contained `index.html`
/// (inline CSS and JS under a strict Content-Security-Policy, no network access when
/// viewed, works from file://): server info, transports, protocol revisions with a
/// revision switcher showing each Effective Protocol View, tools with search and tag
/// filter, schemas as tables, examples, security, resources, prompts, components.
/// markdown: OUT is a `.md` file with the same content. The input is validated first:
/// errors stop generation (exit 1, nothing written), warnings are shown on the page.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mcpdesc docs server.mcpdesc.yaml -o site\n  \
mcpdesc docs server.mcpdesc.yaml -o SERVER.md --format markdown --title \"My server\""
)]
pub struct Args {
    /// MCP Description (JSON or YAML), or `-` for standard input.
    pub description: String,
    /// Output: a directory for html (index.html is written into it), a file for markdown.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DocsFormat::Html)]
    pub format: DocsFormat,
    /// Page title (default: the server's title, else its name).
    #[arg(long)]
    pub title: Option<String>,
}

/// Output formats of `docs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DocsFormat {
    Html,
    Markdown,
}

pub fn run(args: Args) -> CmdResult {
    let Some((decoded, name)) = util::read_description(&args.description)? else {
        return Ok(Outcome::Rejected);
    };
    let format = match args.format {
        DocsFormat::Html => mcpdesc_docs::Format::Html,
        DocsFormat::Markdown => mcpdesc_docs::Format::Markdown,
    };
    let Some(valid) = util::validated(&decoded, &name, Refusal::All) else {
        return Ok(Outcome::Rejected);
    };
    let opts = mcpdesc_docs::Options { title: args.title };
    let generated = mcpdesc_docs::generate(&valid, format, &opts);
    util::print_diagnostics(&name, &generated.diagnostics);
    let Some(text) = generated.output else {
        return Ok(Outcome::Rejected);
    };
    match format {
        mcpdesc_docs::Format::Html => write_site(&args.output, text.as_bytes())?,
        mcpdesc_docs::Format::Markdown => util::write_atomic(&args.output, text.as_bytes())?,
    }
    Ok(util::outcome_of(&generated.diagnostics))
}

/// Puts `index.html` in the directory `out` atomically. A new directory is built as a
/// temporary directory next to `out` and renamed into place; in an existing directory
/// only `index.html` is replaced (temp file, then rename), nothing else is touched.
fn write_site(out: &Path, page: &[u8]) -> Result<(), UsageError> {
    if out.is_dir() {
        return util::write_atomic(&out.join("index.html"), page);
    }
    if out.exists() {
        return Err(UsageError(format!(
            "{}: exists and is not a directory",
            out.display()
        )));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let at = |e: std::io::Error| UsageError(format!("{}: {e}", out.display()));
    let tmp = tempfile::Builder::new()
        .prefix(".mcpdesc-")
        .suffix(".tmp")
        .tempdir_in(&parent)
        .map_err(|e| {
            UsageError(format!(
                "{}: cannot create a temporary directory: {e}",
                parent.display()
            ))
        })?;
    let mut f = std::fs::File::create(tmp.path().join("index.html")).map_err(at)?;
    f.write_all(page).map_err(at)?;
    f.sync_all().map_err(at)?;
    // tempfile makes the directory 0700; the site is an ordinary directory.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).map_err(at)?;
    }
    let dir = tmp.keep();
    std::fs::rename(&dir, out).map_err(|e| {
        let _ = std::fs::remove_dir_all(&dir);
        at(e)
    })
}
