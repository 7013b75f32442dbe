//! `mcpdesc export tools-list FILE --protocol-version V [-o OUTPUT]`.

use crate::args::Output;
use crate::util::{self, CmdResult, Outcome};
use mcpdesc_core::{Format, ProtocolRevision};

/// The tools/list result a conforming server would send at one revision.
///
/// The tools of the Effective Protocol View as MCP Tool objects: description-only
/// metadata (examples, interactionExamples, elicitations, tags, security,
/// clientRequirements, deprecated, `x-*`) removed, `$componentRef` schemas inlined,
/// `_meta` kept. Written as JSON (YAML when OUTPUT ends in .yaml/.yml).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc export tools-list server.mcpdesc.yaml --protocol-version 2025-06-18 > tools-list.json"
)]
pub struct Args {
    /// Input description (JSON or YAML), or `-` for standard input.
    pub file: String,
    /// The MCP protocol revision the server negotiated.
    #[arg(long = "protocol-version", value_name = "V")]
    pub protocol_version: ProtocolRevision,
    /// Output file, .json, .yaml or .yml: the extension gives the format (default:
    /// standard output, JSON). Written atomically.
    #[arg(short, long, value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
}

pub fn run(args: Args) -> CmdResult {
    util::check_not_same_file(&args.file, args.output.as_ref(), false)?;
    let Some((decoded, name)) = util::read_description(&args.file)? else {
        return Ok(Outcome::Rejected);
    };
    match mcpdesc_scope::export_tools_list(&decoded.value, args.protocol_version) {
        Ok(list) => {
            // A tools/list result is an MCP message: JSON unless the file says YAML.
            util::write_value(&list, args.output.as_ref(), Format::Json)?;
            Ok(Outcome::Success)
        }
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            util::print_diagnostics(&name, &diags);
            Ok(Outcome::Rejected)
        }
    }
}
