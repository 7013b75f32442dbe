//! `mcpdesc import tools-list DUMP... [-o OUTPUT] [--protocol-version V] [--server-name N]`.

use crate::args::Output;
use crate::util::{self, CmdResult, Outcome};
use mcpdesc_core::{Format, ProtocolRevision, Severity};
use mcpdesc_live::{ImportOptions, import_dumps};

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
    /// Output file, .json, .yaml or .yml: the extension gives the format (default:
    /// standard output, JSON). Written atomically.
    #[arg(short, long, value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
    /// Revision of dumps that do not record the negotiated one.
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<ProtocolRevision>,
    /// Server name when no dump carries serverInfo.
    #[arg(long, value_name = "N")]
    pub server_name: Option<String>,
}

pub fn run(args: Args) -> CmdResult {
    let mut inputs = Vec::new();
    for d in &args.dumps {
        let (bytes, name) = util::read_input(d)?;
        inputs.push((name, bytes));
    }
    let opts = ImportOptions {
        protocol_version: args.protocol_version,
        server_name: args.server_name.clone(),
        ..Default::default()
    };
    match import_dumps(&inputs, &opts) {
        Ok(outcome) => {
            util::print_file_diagnostics(&outcome.diagnostics);
            util::write_value(
                outcome.description.value(),
                args.output.as_ref(),
                Format::Json,
            )?;
            Ok(Outcome::Success)
        }
        Err(mut diags) => {
            phrase(&mut diags);
            util::print_file_diagnostics(&diags);
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

/// The importer says what is missing; the CLI names the flag that supplies it.
fn phrase(diags: &mut [mcpdesc_live::FileDiagnostic]) {
    for d in diags {
        let flag = match d.diagnostic.code.as_str() {
            "protocol-version-required" => "--protocol-version",
            "server-name-required" => "--server-name",
            _ => continue,
        };
        d.diagnostic.message.push_str(&format!(" (pass {flag})"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::Diagnostic;
    use mcpdesc_live::FileDiagnostic;

    #[test]
    fn the_cli_names_the_flag_the_importer_does_not() {
        let d = |code: &str, msg: &str| FileDiagnostic {
            file: None,
            diagnostic: Diagnostic::error(code, msg),
        };
        let mut diags = vec![
            d("server-name-required", "no server name was given"),
            d("protocol-version-required", "no revision was given"),
            d("other", "unchanged"),
        ];
        phrase(&mut diags);
        let messages: Vec<&str> = diags
            .iter()
            .map(|d| d.diagnostic.message.as_str())
            .collect();
        assert_eq!(
            messages,
            [
                "no server name was given (pass --server-name)",
                "no revision was given (pass --protocol-version)",
                "unchanged"
            ]
        );
    }
}
