//! `mcpdesc split FILE [-o OUTPUT]`: protocol-scoped variants that are each valid.

use crate::args::Output;
use crate::util::{self, CmdResult, Outcome};

/// Split declarations into protocol-scoped variants that are each valid.
///
/// Every declaration that is not valid in every revision of its scope (a `title` with
/// 2024-11-05 in scope, a non-object `outputSchema` before 2026-07-28, `execution`
/// outside 2025-11-25, `$schema` in a tool schema before 2025-11-25, …) becomes the
/// fewest disjoint variants that each keep everything their revisions allow. What each
/// variant lost is reported on stderr as `warning[split-loss]`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  mcpdesc split captured.mcpdesc.json -o split.mcpdesc.json")]
pub struct Args {
    /// Input description (JSON or YAML), or `-` for standard input.
    pub file: String,
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
    match mcpdesc_scope::split(&decoded.value) {
        Ok((doc, losses)) => {
            let mut warnings: Vec<_> = losses.iter().map(|l| l.to_diagnostic()).collect();
            decoded.annotate(&mut warnings);
            util::print_diagnostics(&name, &warnings);
            util::write_value(doc.value(), args.output.as_ref(), decoded.format)?;
            Ok(Outcome::Success)
        }
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            util::print_diagnostics(&name, &diags);
            Ok(Outcome::Rejected)
        }
    }
}
