//! `mcpdesc project FILE --protocol-version V [-o OUTPUT]`: the Effective Protocol View (§4.12).

use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::{Diagnostic, Format, ProtocolRevision};
use std::path::{Path, PathBuf};

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
    /// Output file (default: standard output); format from its extension, else the input's.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    util::check_not_same_file(&args.file, args.output.as_deref(), false)?;
    let Some((decoded, name)) = util::read_description(&args.file)? else {
        return Ok(Outcome::Rejected);
    };
    match mcpdesc_scope::project(&decoded.value, args.protocol_version) {
        Ok(view) => {
            write(&view, args.output.as_deref(), decoded.format)?;
            Ok(Outcome::Success)
        }
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            util::print_diagnostics(&name, &diags);
            Ok(util::outcome_of(&diags).max_rejected())
        }
    }
}

/// Emits `value` to OUTPUT (format from its extension, else `input_format`) or stdout.
pub(crate) fn write(
    value: &serde_json::Value,
    output: Option<&Path>,
    input_format: Format,
) -> Result<(), UsageError> {
    let format = output
        .filter(|p| p.as_os_str() != "-")
        .and_then(|p| Format::from_path(&p.to_string_lossy()))
        .unwrap_or(input_format);
    let text = mcpdesc_core::emit::to_format(value, format);
    util::write_output(output, text.as_bytes())
}

/// Errors from the scope library always mean "rejected", even if (defensively) none
/// of them has error severity.
pub(crate) trait RejectedAtLeast {
    fn max_rejected(self) -> Outcome;
}

impl RejectedAtLeast for Outcome {
    fn max_rejected(self) -> Outcome {
        match self {
            Outcome::Success => Outcome::Rejected,
            o => o,
        }
    }
}

/// Prints diagnostics that carry no file of their own (merge spans several inputs).
pub(crate) fn print_unlocated(diags: &[Diagnostic]) {
    util::print_diagnostics("mcpdesc", diags);
}
