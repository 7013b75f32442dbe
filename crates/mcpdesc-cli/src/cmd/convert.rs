//! `mcpdesc convert INPUT [-o OUTPUT] [--to json|yaml] [--in-place]`: lossless JSON ↔ YAML.

use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::Format;
use std::path::PathBuf;

/// Convert an MCP Description between JSON and YAML (restricted profile, §15.3).
///
/// The input is decoded (format from its extension, else sniffed from the content),
/// converted to the typed model and emitted again: JSON pretty-printed with 2 spaces,
/// YAML in block style; properties in spec-table order, embedded values in their
/// original order. Nothing is written when the input is not acceptable.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mcpdesc convert server.mcpdesc.yaml -o server.mcpdesc.json\n  \
cat server.mcpdesc.json | mcpdesc convert - --to yaml"
)]
pub struct Args {
    /// Input file, or `-` for standard input.
    pub input: String,
    /// Output file (default: standard output). Written atomically.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format (default: from OUTPUT's extension, else JSON).
    #[arg(long, value_enum)]
    pub to: Option<OutFormat>,
    /// Allow OUTPUT to be the INPUT file.
    #[arg(long)]
    pub in_place: bool,
}

/// Output formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum OutFormat {
    Json,
    Yaml,
}

pub fn run(args: Args) -> CmdResult {
    util::check_not_same_file(&args.input, args.output.as_deref(), args.in_place)?;
    let Some((doc, _, _)) = util::read_document(&args.input)? else {
        return Ok(Outcome::Rejected);
    };
    let out_format = match (args.to, args.output.as_deref()) {
        (Some(OutFormat::Json), _) => Format::Json,
        (Some(OutFormat::Yaml), _) => Format::Yaml,
        (None, Some(p)) => Format::from_path(&p.to_string_lossy()).unwrap_or(Format::Json),
        (None, None) => Format::Json,
    };
    let out = mcpdesc_core::emit::to_format(&doc.to_value(), out_format);
    util::write_output(args.output.as_deref(), out.as_bytes()).map_err(|e| UsageError(e.0))?;
    Ok(Outcome::Success)
}
