//! `mcpdesc diff OLD NEW [--format text|json|markdown] [--fail-on breaking|any|none]
//! [--protocol-version V]`: what changed for the agents and clients of the server.

use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::ProtocolRevision;
use mcpdesc_diff::render::{self, Names};
use mcpdesc_diff::{DiffError, DiffOptions, FailOn};

/// Report what changed between two descriptions, per protocol revision, classified as
/// breaking, possibly-breaking, non-breaking or info, with a semver suggestion.
///
/// Both inputs are validated first (an invalid one: exit 1 with its diagnostics on
/// stderr). The report goes to standard output. Exit status: 0 when nothing at or above
/// `--fail-on` was found, 1 when something was, 2 on usage or I/O errors.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
mcpdesc diff committed.mcpdesc.yaml new.mcpdesc.yaml\n  \
mcpdesc diff old.json new.json --format markdown --fail-on none > comment.md\n  \
git show main:server.mcpdesc.yaml | mcpdesc diff - server.mcpdesc.yaml --protocol-version 2025-06-18")]
pub struct Args {
    /// The old (e.g. committed) description, JSON or YAML; `-` for standard input.
    pub old: String,
    /// The new description; `-` for standard input (only one of the two).
    pub new: String,
    /// Report format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// Exit 1 when a finding of this kind is present: `breaking` (breaking or possibly
    /// breaking: anything not proven compatible), `any` (any finding, info included) or
    /// `none`.
    #[arg(long = "fail-on", value_enum, default_value_t = FailOnArg::Breaking)]
    pub fail_on: FailOnArg,
    /// Compare only this protocol revision's views (declared by OLD or NEW).
    #[arg(long = "protocol-version", value_name = "V")]
    pub protocol_version: Option<ProtocolRevision>,
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// One line per finding, `FILE:LINE:COL: class[rule]: …`, then summary and semver.
    Text,
    /// One JSON object (format `mcpdesc-diff/1`, see README).
    Json,
    /// A pull-request comment: summary table, then details per declaration.
    Markdown,
}

/// `--fail-on` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOnArg {
    Breaking,
    Any,
    None,
}

impl From<FailOnArg> for FailOn {
    fn from(f: FailOnArg) -> Self {
        match f {
            FailOnArg::Breaking => FailOn::Breaking,
            FailOnArg::Any => FailOn::Any,
            FailOnArg::None => FailOn::None,
        }
    }
}

pub fn run(args: Args) -> CmdResult {
    if args.old == "-" && args.new == "-" {
        return Err(UsageError(
            "only one of OLD and NEW can be `-` (standard input)".into(),
        ));
    }
    // Read both before giving up, so both inputs' problems are reported.
    let (old, new) = util::read_descriptions(&args.old, &args.new)?;
    let (Some((old, old_name)), Some((new, new_name))) = (old, new) else {
        return Ok(Outcome::Rejected);
    };
    let opts = DiffOptions {
        protocol_version: args.protocol_version,
    };
    let report = match mcpdesc_diff::check_pair(&old, &new)
        .and_then(|(old, new)| mcpdesc_diff::diff(&old, &new, &opts))
    {
        Ok(r) => r,
        Err(DiffError::Invalid { old, new }) => {
            util::print_diagnostics(&old_name, &old);
            util::print_diagnostics(&new_name, &new);
            return Ok(Outcome::Rejected);
        }
        Err(e @ DiffError::RevisionNotDeclared(_)) => return Err(UsageError(e.to_string())),
    };
    let names = Names {
        old: &old_name,
        new: &new_name,
    };
    let text = match args.format {
        ReportFormat::Text => render::text(&report, names),
        ReportFormat::Json => render::json(&report, names),
        ReportFormat::Markdown => render::markdown(&report, names),
    };
    util::write_output(None, text.as_bytes())?;
    util::free_at_exit((old, new));
    Ok(if report.fails(args.fail_on.into()) {
        Outcome::Rejected
    } else {
        Outcome::Success
    })
}
