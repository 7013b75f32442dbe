//! `mcpdesc names FILE [--max N] [--name-prefix P] [--fix -o OUT]`: report (and fix)
//! tool names that are not host-safe. The logic lives in `mcpdesc-names`.

use crate::args::Output;
use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_names::{DEFAULT_MAX_LEN, NameOptions, check_tool_names, fix_tool_names};

/// Report tool names that are not host-safe, and optionally rewrite them.
///
/// Host-safe: matches `^[a-z][a-z0-9_]*$`, at most --max characters (prefix included),
/// starts with --name-prefix when one is given, and is not reused by another tool with
/// an overlapping protocol scope (same-name tools with disjoint protocolVersions are
/// protocol variants of one tool). Without --fix: prints one diagnostic per problem and
/// exits 1 if there is any. With --fix: rewrites every offending name deterministically
/// (snake_case, ASCII, shortened as `head_<hash6>_tail`, collisions suffixed with a hash,
/// never a counter), avoiding the names that are kept, gives protocol variants the same
/// new name, records the old name in `x-mcpdesc-original-name`, and writes OUT (format
/// from its extension; `-`: standard output, in the input's format). OUT is not written
/// when the names cannot be fixed (a tool without a name, or overlapping duplicates).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mcpdesc names server.mcpdesc.json\n  \
mcpdesc names server.mcpdesc.yaml --max 48 --fix -o fixed.mcpdesc.yaml\n  \
mcpdesc names server.mcpdesc.json --name-prefix gh_ --fix -o -")]
pub struct Args {
    /// The MCP Description (JSON or YAML), or `-` for standard input.
    pub file: String,
    /// Longest allowed name in characters, prefix included.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LEN)]
    pub max: usize,
    /// Literal prefix every tool name must start with (must match `^[a-z][a-z0-9_]*$`;
    /// counted in --max). --fix prepends it.
    #[arg(long, value_name = "P", default_value = "")]
    pub name_prefix: String,
    /// Rewrite the names that are not host-safe and write the result to OUT.
    #[arg(long, requires = "output")]
    pub fix: bool,
    /// Where --fix writes the description: .json, .yaml or .yml (the extension gives the
    /// format), or `-` for standard output. Written atomically.
    #[arg(short, long, value_name = "OUT", requires = "fix", value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
    /// Allow OUT to be FILE.
    #[arg(long, requires = "fix")]
    pub in_place: bool,
}

pub fn run(args: Args) -> CmdResult {
    let opts =
        NameOptions::new(args.max, &args.name_prefix).map_err(|e| UsageError(e.to_string()))?;
    if args.fix {
        util::check_not_same_file(&args.file, args.output.as_ref(), args.in_place)?;
    }
    // Only MCP Descriptions have tool names to check: anything that is not even
    // shaped like one (a scalar, an array, a wrongly typed `tools`) is rejected.
    let Some((_, decoded, display)) = util::read_document(&args.file)? else {
        return Ok(Outcome::Rejected);
    };

    if !args.fix {
        let mut diags = check_tool_names(&decoded.value, &opts);
        decoded.annotate(&mut diags);
        util::print_diagnostics(&display, &diags);
        return Ok(util::outcome_of(&diags));
    }

    let mut value = decoded.value.clone();
    match fix_tool_names(&mut value, &opts) {
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            util::print_diagnostics(&display, &diags);
            Ok(Outcome::Rejected)
        }
        Ok(renames) => {
            util::write_value(&value, args.output.as_ref(), decoded.format)?;
            let mut notes: Vec<_> = renames.iter().map(|r| r.to_diagnostic()).collect();
            decoded.annotate(&mut notes);
            util::print_diagnostics(&display, &notes);
            Ok(Outcome::Success)
        }
    }
}
