//! `mcpdesc project FILE --protocol-version V [-o OUTPUT]`: the Effective Protocol View (§4.12).

use crate::args::Output;
use crate::util::{self, CmdResult, Outcome, Refusal};
use mcpdesc_core::ProtocolRevision;

/// Project a description onto one protocol revision (Effective Protocol View, §4.12).
///
/// Validates the input, keeps the transports, capabilities, primitives and nested
/// elicitations whose scope includes the revision (without their `protocolVersions`),
/// sets root `protocolVersions` to `[V]`, omits emptied collections, keeps everything
/// else (info, security, tags, components, extensions) and validates the view.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc project server.mcpdesc.yaml --protocol-version 2025-06-18 -o server-2025-06-18.yaml"
)]
pub struct Args {
    /// Input description (JSON or YAML), or `-` for standard input.
    pub file: String,
    /// The MCP protocol revision to project onto (must be in root protocolVersions).
    #[arg(long = "protocol-version", value_name = "V")]
    pub protocol_version: ProtocolRevision,
    /// Output file, .json, .yaml or .yml: the extension gives the format (default:
    /// standard output, in the input's format). Written atomically.
    #[arg(short, long, value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
}

pub fn run(args: Args) -> CmdResult {
    util::check_not_same_file(&args.file, args.output.as_ref(), false)?;
    let Some((decoded, name)) = util::read_description(&args.file)? else {
        return Ok(Outcome::Rejected);
    };
    let Some(valid) = util::validated(&decoded, &name, Refusal::Errors) else {
        return Ok(Outcome::Rejected);
    };
    match mcpdesc_scope::project(&valid, args.protocol_version) {
        Ok(view) => {
            util::write_value(view.value(), args.output.as_ref(), decoded.format)?;
            Ok(Outcome::Success)
        }
        Err(d) => {
            let mut diags = [d];
            valid.annotate(&mut diags);
            util::print_diagnostics(&name, &diags);
            Ok(Outcome::Rejected)
        }
    }
}
