//! `mcpdesc export tools-list FILE --protocol-version V [--host H] [--budget BYTES]
//! [--server-prefix NAME] [-o OUTPUT]`.

use crate::args::{HostArg, Output};
use crate::util::{self, CmdResult, Outcome, Refusal};
use mcpdesc_core::{Format, ProtocolRevision};

/// The tools/list result a conforming server would send at one revision.
///
/// The tools of the Effective Protocol View as MCP Tool objects: description-only
/// metadata (examples, interactionExamples, elicitations, tags, security,
/// clientRequirements, deprecated, `x-*`) removed, `$componentRef` schemas inlined,
/// `_meta` kept. Written as JSON (YAML when OUTPUT ends in .yaml/.yml).
///
/// With `--host H` the list is rewritten so host H accepts it (names renamed with the
/// mapping reported, `$ref`s inlined, equivalent unions lifted, HTML rendered to text,
/// missing annotations reported, never invented) and every tool is pruned to the
/// budget (`--budget BYTES`, default 32768 with a host): output schemas first, then
/// input `$defs` depth, never required input properties. One diagnostic per change on
/// stderr; what cannot be made acceptable is an error naming the tool (exit 1,
/// nothing written).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mcpdesc export tools-list server.mcpdesc.yaml --protocol-version 2025-06-18 > tools-list.json\n  \
mcpdesc export tools-list github.mcpdesc.json --protocol-version 2025-11-25 --host kiro --server-prefix github -o kiro.json"
)]
pub struct Args {
    /// Input description (JSON or YAML), or `-` for standard input.
    pub file: String,
    /// The MCP protocol revision the server negotiated.
    #[arg(long = "protocol-version", value_name = "V")]
    pub protocol_version: ProtocolRevision,
    /// Rewrite the list so this host accepts it.
    #[arg(long, value_name = "H")]
    pub host: Option<HostArg>,
    /// Prune every tool to at most BYTES of compact JSON.
    #[arg(long, value_name = "BYTES")]
    pub budget: Option<usize>,
    /// The server name the host puts in front of tool names.
    #[arg(long = "server-prefix", value_name = "NAME", requires = "host")]
    pub server_prefix: Option<String>,
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
    let Some(valid) = util::validated(&decoded, &name, Refusal::Errors) else {
        return Ok(Outcome::Rejected);
    };
    let list = match mcpdesc_scope::export_tools_list(&valid, args.protocol_version) {
        Ok(list) => list,
        Err(mut diags) => {
            valid.annotate(&mut diags);
            util::print_diagnostics(&name, &diags);
            return Ok(Outcome::Rejected);
        }
    };
    let list = if args.host.is_some() || args.budget.is_some() {
        // The list is the validated description's: fitting checks only what it changes.
        let fitted = mcpdesc_hosts::fit_tools_list_of(
            &valid,
            list,
            args.protocol_version,
            &mcpdesc_hosts::FitOptions {
                host: args.host.map(|h| h.0),
                server_prefix: args.server_prefix.as_deref(),
                budget: args.budget,
            },
        );
        // Pointers are into the tools/list, not the file: no line:column.
        util::print_diagnostics(&name, &fitted.diagnostics);
        if mcpdesc_core::has_errors(&fitted.diagnostics) {
            return Ok(Outcome::Rejected);
        }
        fitted.tools_list
    } else {
        list
    };
    // The list holds what it needs of the description: free the description (on the
    // other core) while the list is written.
    drop(valid);
    util::free_in_background(decoded);
    // A tools/list result is an MCP message: JSON unless the file says YAML.
    util::write_value(&list, args.output.as_ref(), Format::Json)?;
    util::free_at_exit(list);
    Ok(Outcome::Success)
}
