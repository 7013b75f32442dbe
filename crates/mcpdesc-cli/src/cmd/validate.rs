//! `mcpdesc validate FILE|DIR... [--format text|json]`: mcpdesc 0.8.0 conformance (§16.1).

use crate::args::OutputFormat;
use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::{Diagnostic, Severity};
use mcpdesc_validate::Validator;
use std::path::Path;

/// Validate MCP Descriptions against mcpdesc 0.8.0 (schema and semantic rules).
///
/// The official JSON Schema plus every semantic rule: scopes, coverage, security,
/// capabilities, revision applicability, components, tool schemas, examples,
/// elicitations…
///
/// Each FILE is decoded as JSON or restricted YAML (by extension, else by content). A
/// DIR stands for every `*.json`, `*.yaml` and `*.yml` file under it, recursively, in
/// sorted path order; hidden entries (`.git`, `.eslintrc.json`), `target` and
/// `node_modules` folders and links to folders are skipped. A DIR without such files is
/// a usage error.
///
/// Exit status: 0 when every file conforms (warnings allowed), 1 when any file has an
/// error (including a decode error), 2 on usage or I/O errors (the other files are
/// still validated and reported).
///
/// `--format text` (default): diagnostics on stderr as
/// `FILE:LINE:COL: severity[code]: message (at POINTER)`, one summary line per file on
/// stdout (`FILE: valid (N warnings)` / `FILE: invalid (N errors, M warnings)`).
///
/// `--format json`: one JSON object per file per line on stdout:
/// `{"file": …, "valid": bool, "diagnostics": [{"severity", "code", "message",
/// "pointer", "line", "column"}]}`; `line`/`column` are 1-based, `null` when unknown.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mcpdesc validate server.mcpdesc.yaml\n  \
mcpdesc validate --format json a.mcpdesc.json b.mcpdesc.yaml\n  \
mcpdesc validate descriptions/\n  \
cat server.mcpdesc.json | mcpdesc validate -")]
pub struct Args {
    /// Files or directories to validate (`-` for standard input).
    #[arg(required = true, value_name = "FILE|DIR", value_hint = clap::ValueHint::AnyPath)]
    pub files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// Decodes and validates one input; diagnostics carry line/column where known.
fn check(validator: &Validator, path: &str, bytes: &[u8]) -> Vec<Diagnostic> {
    match util::decode_input(path, bytes) {
        Err(d) => vec![d],
        Ok(decoded) => {
            let mut diags = validator.validate_value(&decoded.value);
            decoded.annotate(&mut diags);
            diags
        }
    }
}

fn summary(file: &str, diags: &[Diagnostic]) -> String {
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let w = if warnings == 1 { "warning" } else { "warnings" };
    if errors == 0 {
        format!("{file}: valid ({warnings} {w})")
    } else {
        let e = if errors == 1 { "error" } else { "errors" };
        format!("{file}: invalid ({errors} {e}, {warnings} {w})")
    }
}

/// The files an argument stands for: itself, or the description files under a directory.
fn files_of(arg: &str) -> Result<Vec<String>, UsageError> {
    let dir = Path::new(arg);
    if arg == "-" || !dir.is_dir() {
        return Ok(vec![arg.to_string()]);
    }
    let files = mcpdesc_pipeline::description_files(dir).map_err(|e| UsageError(e.to_string()))?;
    if files.is_empty() {
        return Err(UsageError(format!(
            "{arg}: a directory without description files (*.json, *.yaml, *.yml)"
        )));
    }
    files
        .iter()
        .map(|p| {
            p.to_str()
                .map(str::to_string)
                .ok_or_else(|| UsageError::at(p.display(), "the path is not UTF-8"))
        })
        .collect()
}

pub fn run(args: Args) -> CmdResult {
    let validator = Validator::new();
    let mut outcome = Outcome::Success;
    // A usage or I/O error does not stop the run: the other files still get their verdicts.
    let usage = |e: UsageError| {
        eprintln!("mcpdesc: error: {}", e.0);
        Outcome::Usage
    };
    let mut paths = Vec::new();
    for arg in &args.files {
        match files_of(arg) {
            Ok(files) => paths.extend(files),
            Err(e) => outcome = outcome.max(usage(e)),
        }
    }
    for path in &paths {
        let (bytes, name) = match util::read_input(path) {
            Ok(x) => x,
            Err(e) => {
                outcome = outcome.max(usage(e));
                continue;
            }
        };
        let diags = check(&validator, path, &bytes);
        match args.format {
            OutputFormat::Text => {
                util::print_diagnostics(&name, &diags);
                println!("{}", summary(&name, &diags));
            }
            OutputFormat::Json => println!("{}", util::json_line(&name, &diags)),
        }
        outcome = outcome.max(util::outcome_of(&diags));
    }
    Ok(outcome)
}
