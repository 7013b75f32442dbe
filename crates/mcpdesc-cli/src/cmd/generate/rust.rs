//! `mcpdesc generate rust FILE -o DIR [--crate-name NAME] [--protocol-version V]`.

use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_codegen::{Generated, RustOptions};
use mcpdesc_core::ProtocolRevision;
use std::path::{Path, PathBuf};

/// Generate a typed Rust client crate (rmcp) for the tools of an MCP Description.
///
/// The description is projected to one protocol revision; every tool becomes a typed
/// async method of `Client` with `<Tool>Input`/`<Tool>Output` types. The crate is
/// standalone (its own `[workspace]`) and builds with `cargo check` and clippy under
/// `-D warnings`. Schema constructs the generator cannot type exactly become
/// `serde_json::Value` with a warning. Nothing is written when the input has errors.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc generate rust server.mcpdesc.json -o my-client --crate-name my-client\n  \
cd my-client && cargo check"
)]
pub struct Args {
    /// MCP Description (JSON or YAML), or `-` for standard input.
    pub input: String,
    /// Output directory (created if missing; generated files are replaced atomically).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Cargo package name (default: `<server name>-client`).
    #[arg(long)]
    pub crate_name: Option<String>,
    /// Protocol revision to generate for (default: the newest in the document).
    #[arg(long)]
    pub protocol_version: Option<ProtocolRevision>,
}

pub fn run(args: Args) -> CmdResult {
    let opts = RustOptions {
        protocol_version: args.protocol_version,
        crate_name: args.crate_name.clone(),
    };
    generate_into(&args.input, &args.output, |doc| {
        mcpdesc_codegen::generate_rust(doc, &opts)
    })
}

/// Shared by `generate rust` and `generate typescript`: read, decode, generate, print
/// diagnostics, write the files under `output`.
pub(super) fn generate_into(
    input: &str,
    output: &Path,
    generate: impl FnOnce(&serde_json::Value) -> Result<Generated, mcpdesc_codegen::Error>,
) -> CmdResult {
    let Some((_, decoded, name)) = util::read_document(input)? else {
        return Ok(Outcome::Rejected);
    };
    let generated = generate(&decoded.value).map_err(|e| UsageError(e.to_string()))?;
    let mut diags = generated.diagnostics;
    decoded.annotate(&mut diags);
    util::print_diagnostics(&name, &diags);
    if generated.files.is_empty() {
        return Ok(Outcome::Rejected);
    }
    if output.exists() && !output.is_dir() {
        return Err(UsageError(format!(
            "{}: exists and is not a directory",
            output.display()
        )));
    }
    mcpdesc_codegen::write_files(output, &generated.files)
        .map_err(|e| UsageError(e.to_string()))?;
    Ok(util::outcome_of(&diags))
}
