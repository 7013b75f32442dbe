//! `mcpdesc lint FILE... [--host H]... [--format text|json] [--max-tools N]
//! [--deny RULE]... [--allow RULE]... [--server-prefix NAME]`.

use crate::args::{HostArg, OutputFormat, RuleArg};
use crate::util::{self, CmdResult, Outcome};
use mcpdesc_core::{Diagnostic, Limits, Severity, decode_bytes};
use mcpdesc_lint::{LintOptions, lint};
use mcpdesc_validate::Validator;

/// Lint MCP Descriptions for the hosts that will receive them: quality rules for every
/// host (descriptions, annotations, HTML, enum-like strings), each `--host` profile's
/// rules (names, titles, annotations, unions, `$ref`, strict mode, tool counts) and
/// the size of every tool and of the whole tools/list at each protocol revision, in
/// bytes and estimated tokens (the estimator is stated in the README).
///
/// Exit status: 0 when no finding is at error level, 1 otherwise, 2 on usage or I/O
/// errors. `--format json` prints the same line per file as `validate --format json`
/// (`valid` = no error-level finding).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mcpdesc lint server.mcpdesc.yaml --host claude-code --host kiro --server-prefix github\n  \
mcpdesc lint --format json --deny html-in-description --allow param-description-missing a.mcpdesc.json"
)]
pub struct Args {
    /// Files to lint (`-` for standard input).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// A host profile whose rules apply (repeatable): claude-directory, claude-code,
    /// chatgpt, openai-strict, gemini-cli, cursor, kiro, vscode.
    #[arg(long = "host", value_name = "H")]
    pub hosts: Vec<HostArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Warn when a revision has more tools than N.
    #[arg(long = "max-tools", value_name = "N")]
    pub max_tools: Option<usize>,
    /// Raise a rule's findings to error (repeatable).
    #[arg(long, value_name = "RULE")]
    pub deny: Vec<RuleArg>,
    /// Drop a rule's findings (repeatable).
    #[arg(long, value_name = "RULE")]
    pub allow: Vec<RuleArg>,
    /// The server name the host puts in front of tool names (counts against the
    /// name budget of hosts that count it).
    #[arg(long = "server-prefix", value_name = "NAME")]
    pub server_prefix: Option<String>,
    /// `search`: also report the start-up context `mcpdesc serve --discovery search`
    /// gives (the facade's tools/list per revision, against the direct one).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = crate::args::DiscoveryArg::Direct)]
    pub discovery: crate::args::DiscoveryArg,
}

fn summary(file: &str, diags: &[Diagnostic]) -> String {
    let n = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    format!(
        "{file}: {} ({} errors, {} warnings, {} notes)",
        if mcpdesc_core::has_errors(diags) {
            "fails"
        } else {
            "passes"
        },
        n(Severity::Error),
        n(Severity::Warning),
        n(Severity::Info)
    )
}

pub fn run(args: Args) -> CmdResult {
    if args.discovery == crate::args::DiscoveryArg::Code {
        return Err(crate::util::UsageError(
            "lint --discovery code is not available yet; use --discovery search for the start-up context of a small tools/list".into(),
        ));
    }
    let opts = LintOptions {
        hosts: args.hosts.iter().map(|h| h.0).collect(),
        server_prefix: args.server_prefix.clone(),
        max_tools: args.max_tools,
        budget: None,
        allow: args.allow.iter().map(|r| r.0.clone()).collect(),
        deny: args.deny.iter().map(|r| r.0.clone()).collect(),
        discovery_search: args.discovery == crate::args::DiscoveryArg::Search,
    };
    let mut outcome = Outcome::Success;
    for path in &args.files {
        let (bytes, name) = match util::read_input(path) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("mcpdesc: error: {}", e.0);
                outcome = Outcome::Usage;
                continue;
            }
        };
        let format = util::input_format(path, &bytes);
        let diags = match decode_bytes(&bytes, format, &Limits::default()) {
            Err(d) => vec![d],
            // Linted once valid (the one validation); an invalid description gets the
            // validator's errors only.
            Ok(decoded) => {
                let diags = match Validator::new().check_decoded(&decoded) {
                    Ok(valid) => {
                        let mut diags = lint(&valid, &opts).diagnostics;
                        valid.annotate(&mut diags);
                        diags
                    }
                    Err(mut diags) => {
                        diags.retain(Diagnostic::is_error);
                        diags
                    }
                };
                // Reported from here on: free it beside the report and the next file.
                util::free_in_background(decoded);
                diags
            }
        };
        match args.format {
            OutputFormat::Text => {
                util::print_diagnostics(&name, &diags);
                println!("{}", summary(&name, &diags));
            }
            OutputFormat::Json => println!("{}", util::json_line(&name, &diags)),
        }
        if util::outcome_of(&diags) == Outcome::Rejected && outcome == Outcome::Success {
            outcome = Outcome::Rejected;
        }
    }
    Ok(outcome)
}
