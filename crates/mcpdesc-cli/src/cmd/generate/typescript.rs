//! `mcpdesc generate typescript FILE -o DIR [--package-name NAME] [--protocol-version V]`.

use crate::util::CmdResult;
use mcpdesc_codegen::TsOptions;
use mcpdesc_core::ProtocolRevision;
use std::path::PathBuf;

/// Generate a typed TypeScript client package (@modelcontextprotocol/sdk) for the tools
/// of an MCP Description.
///
/// The description is projected to one protocol revision; every tool becomes a typed
/// async method of `McpClient` with `<Tool>Input`/`<Tool>Output` type aliases; tool
/// errors throw `ToolError`. The package compiles with `tsc` under strict settings and
/// NodeNext module resolution. Nothing is written when the input has errors.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc generate typescript server.mcpdesc.json -o my-client --package-name @acme/my-client\n  \
cd my-client && npm install && npx tsc -p ."
)]
pub struct Args {
    /// MCP Description (JSON or YAML), or `-` for standard input.
    pub input: String,
    /// Output directory (created if missing; generated files are replaced atomically).
    #[arg(short, long, value_hint = clap::ValueHint::DirPath)]
    pub output: PathBuf,
    /// npm package name (default: `<server name>-client`).
    #[arg(long)]
    pub package_name: Option<String>,
    /// Protocol revision to generate for (default: the newest in the document).
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<ProtocolRevision>,
}

pub fn run(args: Args) -> CmdResult {
    let opts = TsOptions {
        protocol_version: args.protocol_version,
        package_name: args.package_name.clone(),
    };
    super::generate_into(&args.input, &args.output, |doc| {
        mcpdesc_codegen::generate_typescript(doc, &opts)
    })
}
