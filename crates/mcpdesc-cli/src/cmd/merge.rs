//! `mcpdesc merge FILE... [-o OUTPUT]`: one description with disjoint protocol-scoped variants (§4.13).

use crate::args::Output;
use crate::util::{self, CmdResult, Outcome};
use mcpdesc_core::Format;
use mcpdesc_scope::MergeInput;

/// Merge descriptions into one with disjoint protocol-scoped variants (§4.13).
///
/// Every input is validated. Inputs covering the same revision must describe it
/// equivalently; info, instructions, root extensions, security, securitySchemes and
/// the tag catalogue must be equal; same-name components must be equal. Equivalent
/// declarations are collapsed by unioning their scopes; differing ones stay as
/// disjoint variants. Conflicts name both inputs and the JSON pointers.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc merge server-2025-06-18.json server-2025-11-25.json -o server.json"
)]
pub struct Args {
    /// Input descriptions (JSON or YAML).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Output file, .json, .yaml or .yml: the extension gives the format (default:
    /// standard output, in the first input's format). Written atomically.
    #[arg(short, long, value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
}

pub fn run(args: Args) -> CmdResult {
    let mut inputs = Vec::new();
    let mut format = None;
    for f in &args.files {
        util::check_not_same_file(f, args.output.as_ref(), false)?;
        let Some((decoded, name)) = util::read_description(f)? else {
            return Ok(Outcome::Rejected);
        };
        format.get_or_insert(decoded.format);
        inputs.push(MergeInput::new(name, decoded.value));
    }
    match mcpdesc_scope::merge(&inputs) {
        Ok(merged) => {
            util::write_value(
                merged.value(),
                args.output.as_ref(),
                format.unwrap_or(Format::Json),
            )?;
            Ok(Outcome::Success)
        }
        Err(diags) => {
            // The diagnostics name the inputs in their messages; no single file is theirs.
            util::print_diagnostics("mcpdesc", &diags);
            Ok(Outcome::Rejected)
        }
    }
}
