//! `mcpdesc generate typescript FILE -o DIR [--package-name NAME] [--protocol-version V]
//! [--sdk v2|v1]`.

use crate::util::CmdResult;
use mcpdesc_codegen::{TsOptions, TsSdk};
use mcpdesc_core::ProtocolRevision;

/// Generate a typed TypeScript client package (@modelcontextprotocol/client 2.x, or
/// @modelcontextprotocol/sdk 1.x with `--sdk v1`) for the tools of an MCP Description.
///
/// The description is projected to one protocol revision; every tool becomes a typed
/// async method of `McpClient` with `<Tool>Input`/`<Tool>Output` type aliases; tool
/// errors throw `ToolError`. With the v2 SDK, `connectStdio`/`connectHttp` negotiate
/// (`server/discover`, then `initialize`), so a 2026-07-28 server is reached at
/// 2026-07-28 and an older one at its revision; they take optional headers, an auth
/// provider and a trace-context source. The package compiles with `tsc` under strict settings and
/// NodeNext module resolution. Nothing is written when the input has errors.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc generate typescript server.mcpdesc.json -o my-client --package-name @acme/my-client\n  \
cd my-client && npm install && npx tsc -p ."
)]
pub struct Args {
    #[command(flatten)]
    pub io: super::Io,
    /// npm package name (default: `<server name>-client`).
    #[arg(long)]
    pub package_name: Option<String>,
    /// Protocol revision to generate for (default: the newest in the document).
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<ProtocolRevision>,
    /// TypeScript SDK to target: `v2` (@modelcontextprotocol/client 2.x) or `v1`
    /// (@modelcontextprotocol/sdk 1.x, newest revision 2025-11-25).
    #[arg(long, value_enum, default_value_t = Sdk::V2)]
    pub sdk: Sdk,
}

/// `--sdk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sdk {
    V2,
    V1,
}

pub fn run(args: Args) -> CmdResult {
    let opts = TsOptions {
        protocol_version: args.protocol_version,
        package_name: args.package_name.clone(),
        sdk: match args.sdk {
            Sdk::V2 => TsSdk::V2,
            Sdk::V1 => TsSdk::V1,
        },
    };
    super::generate_into(&args.io, |doc| {
        mcpdesc_codegen::generate_typescript(doc, &opts).map(Into::into)
    })
}
