//! `mcpdesc export tools-list FILE --protocol-version V [-o OUTPUT]`.

use crate::cmd::project::RejectedAtLeast;
use crate::util::{self, CmdResult, Outcome};
use mcpdesc_core::{Format, ProtocolRevision};
use std::path::PathBuf;

/// The tools/list result a conforming server would send at one revision.
///
/// The tools of the Effective Protocol View as MCP Tool objects: description-only
/// metadata (examples, interactionExamples, elicitations, tags, security,
/// clientRequirements, deprecated, `x-*`) removed, `$componentRef` schemas inlined,
/// `_meta` kept. Written as JSON (or YAML when OUTPUT ends in .yaml/.yml).
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
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    util::check_not_same_file(&args.file, args.output.as_deref(), false)?;
    let Some((decoded, name)) = util::read_description(&args.file)? else {
        return Ok(Outcome::Rejected);
    };
    match mcpdesc_scope::export_tools_list(&decoded.value, args.protocol_version) {
        Ok(list) => {
            let format = args
                .output
                .as_deref()
                .and_then(|p| Format::from_path(&p.to_string_lossy()))
                .unwrap_or(Format::Json);
            let text = mcpdesc_core::emit::to_format(&list, format);
            util::write_output(args.output.as_deref(), text.as_bytes())?;
            Ok(Outcome::Success)
        }
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            util::print_diagnostics(&name, &diags);
            Ok(util::outcome_of(&diags).max_rejected())
        }
    }
}
