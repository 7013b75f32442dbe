//! `mcpdesc generate rust-server FILE -o DIR [--crate-name NAME]
//! [--protocol-version V]`.

use crate::util::CmdResult;
use mcpdesc_codegen::RustServerOptions;
use mcpdesc_core::ProtocolRevision;

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
    #[command(flatten)]
    pub io: super::Io,
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
    super::generate_into(&args.io, |doc| {
        mcpdesc_codegen::generate_rust_server(doc, &opts)
    })
}
