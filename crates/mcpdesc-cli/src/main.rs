//! `mcpdesc`: a thin binary over the mcpdesc libraries. Each subcommand parses its
//! flags, calls one library function, prints diagnostics and maps the outcome to an
//! exit code: 0 success, 1 unacceptable input, 2 usage or I/O error.

mod args;
mod cmd;
mod util;

use clap::{CommandFactory as _, Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc instead of the system allocator: the importer and the generators build and
/// drop millions of small JSON values on two threads, and glibc's malloc spent about a
/// quarter of `mcpdesc import openapi` on the GitHub spec (perf; see PERFORMANCE.md).
/// Built without transparent huge pages (the workspace's `no_thp` feature): zeroing
/// 2 MiB pages at first touch was a third of the import and half of `diff`.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Convert, validate, import, name, scope and generate code from MCP Descriptions (mcpdesc 0.8.0).
#[derive(Debug, Parser)]
#[command(name = "mcpdesc", version, long_about = None, propagate_version = true)]
#[command(
    after_help = "Exit codes: 0 success; 1 the input is not acceptable; 2 usage or I/O error.\n\
Diagnostics go to stderr as FILE:LINE:COL: error[code]: message (at POINTER).\n\n\
Example:\n  mcpdesc validate server.mcpdesc.yaml"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// A subcommand's help (`--help`, its man page) is the doc comment of its `Args`: its
// first paragraph is the one-line summary, the rest the long description. A doc
// comment on a variant here would replace both with one line.
#[derive(Debug, Subcommand)]
enum Command {
    Convert(cmd::convert::Args),
    Validate(cmd::validate::Args),
    /// Lint descriptions for MCP hosts: quality, host profiles, sizes and token budgets.
    Lint(cmd::lint::Args),
    /// Import tools from OpenAPI documents or tools/list dumps.
    #[command(subcommand)]
    Import(cmd::import::ImportCommand),
    Capture(cmd::capture::Args),
    Names(cmd::names::Args),
    Project(cmd::project::Args),
    Merge(cmd::merge::Args),
    Split(cmd::split::Args),
    /// Export what a conforming server would send (e.g. a tools/list result).
    #[command(subcommand)]
    Export(cmd::export::ExportCommand),
    /// Generate a typed client (Rust or TypeScript).
    #[command(subcommand)]
    Generate(cmd::generate::GenerateCommand),
    /// Render documentation of a description: a self-contained HTML page or Markdown.
    Docs(cmd::docs::Args),
    /// Run a description as an MCP server: a REST gateway from its OpenAPI provenance, or a mock.
    Serve(Box<cmd::serve::Args>),
    /// Report breaking changes between two descriptions, per protocol revision.
    Diff(cmd::diff::Args),
    Completions(cmd::completions::Args),
    Man(cmd::man::Args),
}

fn main() -> ExitCode {
    // Code mode's sandbox worker (started by `serve --discovery code`, one script per
    // process): not a subcommand, so it is in no help, man page or completion.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == "__sandbox-worker")
    {
        return mcpdesc_sandbox::worker::main();
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            if e.use_stderr() && cmd::serve::json_errors_requested() {
                cmd::serve::print_json_error(&e.render().to_string());
            } else {
                let _ = e.print();
            }
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Convert(a) => cmd::convert::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Lint(a) => cmd::lint::run(a),
        Command::Import(a) => cmd::import::run(a),
        Command::Capture(a) => cmd::capture::run(a),
        Command::Names(a) => cmd::names::run(a),
        Command::Project(a) => cmd::project::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Split(a) => cmd::split::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Docs(a) => cmd::docs::run(a),
        Command::Serve(a) => cmd::serve::run(*a),
        Command::Diff(a) => cmd::diff::run(a),
        Command::Completions(a) => cmd::completions::run(a, Cli::command()),
        Command::Man(a) => cmd::man::run(a, Cli::command()),
    };
    // A test hook, in no help: how many whole-document validations the command ran
    // (`tests/validations.rs` holds each command to its input and its output).
    if std::env::var_os("MCPDESC_COUNT_VALIDATIONS").is_some() {
        eprintln!(
            "mcpdesc: validations: {}",
            mcpdesc_validate::runs_in_this_process()
        );
    }
    match result {
        Ok(o) => o.into(),
        Err(util::UsageError(msg)) if cmd::serve::json_errors() => {
            cmd::serve::print_json_error(&format!("mcpdesc: error: {msg}"));
            ExitCode::from(2)
        }
        Err(util::UsageError(msg)) => {
            eprintln!("mcpdesc: error: {msg}");
            ExitCode::from(2)
        }
    }
}
