//! `mcpdesc import tools-list DUMP... [-o OUTPUT] [--protocol-version V] [--server-name N]`.

use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::{Format, ProtocolRevision, Severity};
use mcpdesc_live::{FileDiagnostic, ImportOptions, import_dumps};
use std::path::PathBuf;

/// Import saved tools/list dumps (one per protocol revision) as one MCP Description.
///
/// Accepted dump shapes: a bare tools/list result (also what `mcp-inspector --cli
/// --method tools/list` prints), a JSON-RPC response, a JSON array of pages or of
/// tools, and a JSON Lines session transcript (initialize request/response,
/// notifications, tools/list pages in any order, unrelated traffic; also what
/// `mcpdesc capture --save-transcripts` writes). Pages are joined in cursor order.
///
/// Each dump's revision is the protocolVersion of the initialize RESULT in it (for a
/// 2026-07-28 stateless transcript: the revision its tools/list requests carried),
/// else --protocol-version. Fields that revision does not define are dropped with one
/// warning per tool and field. Dumps of one revision must agree. Same-name tools equal
/// across revisions become one declaration; differing ones become protocol-scoped
/// variants. Tool names are never changed. Info comes from serverInfo, else
/// --server-name (then info.version is "0.0.0", with a warning). Nothing is written
/// unless the result validates.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
mcpdesc import tools-list session-2024-11-05.jsonl session-2025-06-18.jsonl -o server.mcpdesc.yaml\n  \
mcp-inspector --cli node server.js --method tools/list > tools.json\n  \
mcpdesc import tools-list tools.json --protocol-version 2025-11-25 --server-name my-server")]
pub struct Args {
    /// Dump files (`-` for standard input), one or more.
    #[arg(required = true, value_name = "DUMP")]
    pub dumps: Vec<String>,
    /// Output file (default: standard output, JSON). `.yaml`/`.yml` → YAML. Written atomically.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Revision of dumps that do not record the negotiated one.
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<String>,
    /// Server name when no dump carries serverInfo.
    #[arg(long, value_name = "N")]
    pub server_name: Option<String>,
}

/// Prints diagnostics as `FILE:LINE:COL: severity[code]: message (at POINTER)`.
pub fn print(diags: &[FileDiagnostic]) {
    for d in diags {
        eprintln!("{}", d.render());
    }
}

/// Output format from the OUTPUT extension (JSON by default).
pub fn out_format(output: Option<&std::path::Path>) -> Format {
    output
        .and_then(|p| Format::from_path(&p.to_string_lossy()))
        .unwrap_or(Format::Json)
}

pub fn run(args: Args) -> CmdResult {
    let protocol_version = match &args.protocol_version {
        Some(v) => Some(
            v.parse::<ProtocolRevision>()
                .map_err(|e| UsageError(e.to_string()))?,
        ),
        None => None,
    };
    let mut inputs = Vec::new();
    for d in &args.dumps {
        let (bytes, name) = util::read_input(d)?;
        inputs.push((name, bytes));
    }
    let opts = ImportOptions {
        protocol_version,
        server_name: args.server_name.clone(),
        ..Default::default()
    };
    match import_dumps(&inputs, &opts) {
        Ok(outcome) => {
            print(&outcome.diagnostics);
            let doc = outcome.document.to_value();
            let text = mcpdesc_core::emit::to_format(&doc, out_format(args.output.as_deref()));
            util::write_output(args.output.as_deref(), text.as_bytes())?;
            Ok(Outcome::Success)
        }
        Err(diags) => {
            print(&diags);
            if !diags
                .iter()
                .any(|d| d.diagnostic.severity == Severity::Error)
            {
                eprintln!("mcpdesc: error: import failed");
            }
            Ok(Outcome::Rejected)
        }
    }
}
