//! `mcpdesc generate rust FILE -o DIR [--crate-name NAME] [--protocol-version V]`.

use crate::util::CmdResult;
use mcpdesc_codegen::RustOptions;
use mcpdesc_core::ProtocolRevision;

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
    #[command(flatten)]
    pub io: super::Io,
    /// Cargo package name (default: `<server name>-client`).
    #[arg(long)]
    pub crate_name: Option<String>,
    /// Protocol revision to generate for (default: the newest in the document).
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<ProtocolRevision>,
}

pub fn run(args: Args) -> CmdResult {
    let opts = RustOptions {
        protocol_version: args.protocol_version,
        crate_name: args.crate_name.clone(),
    };
    super::generate_into(&args.io, |doc| {
        mcpdesc_codegen::generate_rust(doc, &opts).map(Into::into)
    })
}
