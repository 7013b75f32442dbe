//! `mcpdesc convert INPUT [-o OUTPUT] [--to json|yaml] [--in-place]`: lossless JSON ↔ YAML.

use crate::args::Output;
use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::Format;

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
    /// Output file, .json, .yaml or .yml: the extension gives the format (default:
    /// standard output). Written atomically.
    #[arg(short, long, value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
    /// Output format on standard output (default: the input's). A file's format is its
    /// extension's; --to may only repeat it.
    #[arg(long, value_enum)]
    pub to: Option<OutFormat>,
    /// Allow OUTPUT to be the INPUT file.
    #[arg(long)]
    pub in_place: bool,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutFormat {
    Json,
    Yaml,
}

impl From<OutFormat> for Format {
    fn from(f: OutFormat) -> Format {
        match f {
            OutFormat::Json => Format::Json,
            OutFormat::Yaml => Format::Yaml,
        }
    }
}

pub fn run(args: Args) -> CmdResult {
    let to = args.to.map(Format::from);
    if let (Some(to), Some(Output::File { path, format })) = (to, &args.output) {
        if to != *format {
            return Err(UsageError(format!(
                "--to {} contradicts the extension of `{}`; a file's format is its extension's",
                format_name(to),
                path.display()
            )));
        }
    }
    util::check_not_same_file(&args.input, args.output.as_ref(), args.in_place)?;
    let Some((doc, decoded, _)) = util::read_document(&args.input)? else {
        return Ok(Outcome::Rejected);
    };
    let stdout = to.unwrap_or(decoded.format);
    util::write_value(&doc.to_value(), args.output.as_ref(), stdout)?;
    Ok(Outcome::Success)
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Json => "json",
        Format::Yaml => "yaml",
    }
}
