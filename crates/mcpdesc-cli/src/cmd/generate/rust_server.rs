//! `mcpdesc generate rust-server FILE -o DIR [--crate-name NAME]
//! [--protocol-version V]`.

use crate::util::{self, CmdResult, Outcome, Refusal, UsageError};
use mcpdesc_codegen::RustServerOptions;
use mcpdesc_core::ProtocolRevision;
use std::path::PathBuf;

/// Generate a Rust MCP server crate (rmcp 3.x) whose contract is the description.
///
/// At every revision the description declares, the server's tools/list (and resources,
/// resource templates and prompts lists) is exactly `mcpdesc export tools-list
/// --protocol-version V`: it serves `src/generated/contract.json` (embedded in the
/// binary), no second copy of the schemas. Tools are methods of the generated `Handlers`
/// trait with the Rust client's `<Tool>Input`/`<Tool>Output` types; arguments are
/// validated against the inputSchema before a method runs and its result against the
/// outputSchema before it is sent. A method not implemented answers from the tool's
/// named examples, else with the tool error "not implemented". `src/generated/` and
/// `Cargo.toml` are rewritten (atomically) on each run; `src/handlers.rs` and
/// `src/main.rs` are created once and never overwritten. `cargo build` makes a binary
/// named after the description.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc generate rust-server server.mcpdesc.json -o my-server\n  \
cd my-server && cargo build --release && ./target/release/<name>-server   # stdio\n  \
./target/release/<name>-server --http 127.0.0.1:8000                     # http://127.0.0.1:8000/mcp"
)]
pub struct Args {
    /// MCP Description (JSON or YAML), or `-` for standard input.
    pub input: String,
    /// Output directory (created if missing).
    #[arg(short, long, value_hint = clap::ValueHint::DirPath)]
    pub output: PathBuf,
    /// Cargo package and binary name (default: `<server name>-server`).
    #[arg(long)]
    pub crate_name: Option<String>,
    /// Protocol revision whose types the handlers use (default: the newest in the
    /// document). The server serves every declared revision.
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<ProtocolRevision>,
}

pub fn run(args: Args) -> CmdResult {
    let opts = RustServerOptions {
        protocol_version: args.protocol_version,
        crate_name: args.crate_name.clone(),
    };
    let Some((decoded, name)) = util::read_description(&args.input)? else {
        return Ok(Outcome::Rejected);
    };
    let Some(valid) = util::validated(&decoded, &name, Refusal::Errors) else {
        return Ok(Outcome::Rejected);
    };
    let generated = mcpdesc_codegen::generate_rust_server(&valid, &opts)
        .map_err(|e| UsageError(e.to_string()))?;
    let mut diags = generated.generated.diagnostics.clone();
    valid.annotate(&mut diags);
    util::print_diagnostics(&name, &diags);
    if generated.generated.files.is_empty() {
        return Ok(Outcome::Rejected);
    }
    let output = &args.output;
    if output.exists() && !output.is_dir() {
        return Err(UsageError::at(
            output.display(),
            "exists and is not a directory",
        ));
    }
    let kept =
        mcpdesc_codegen::write_server(output, &generated).map_err(|e| UsageError(e.to_string()))?;
    for path in kept {
        eprintln!("kept {path} (yours: never overwritten)");
    }
    Ok(util::outcome_of(&diags))
}
