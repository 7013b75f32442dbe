//! `mcpdesc generate typescript-server FILE -o DIR [--package-name NAME]
//! [--protocol-version V]`.

use crate::util::CmdResult;
use mcpdesc_codegen::TsServerOptions;
use mcpdesc_core::ProtocolRevision;

/// Generate a TypeScript MCP server package (@modelcontextprotocol/server 2.x) whose
/// contract is the description.
///
/// At every revision the description declares, the server's tools/list (and resources,
/// resource templates and prompts lists) is exactly `mcpdesc export tools-list
/// --protocol-version V`: it serves `src/generated/contract.json`, no second copy of the
/// schemas. Tools are methods of the generated `Handlers` interface with the clients'
/// `<Tool>Input`/`<Tool>Output` types; arguments are validated against the inputSchema
/// before a method runs and its result against the outputSchema before it is sent. A
/// method not implemented answers from the tool's named examples, else with the tool
/// error "not implemented". `src/generated/` is rewritten (atomically) on each run;
/// `src/handlers.ts` and `src/main.ts` are created once and never overwritten.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  mcpdesc generate typescript-server server.mcpdesc.json -o my-server\n  \
cd my-server && npm install && npm run build && node dist/main.js   # stdio\n  \
node dist/main.js --http 127.0.0.1:8000                               # http://127.0.0.1:8000/mcp"
)]
pub struct Args {
    #[command(flatten)]
    pub io: super::Io,
    /// npm package name (default: `<server name>-server`).
    #[arg(long)]
    pub package_name: Option<String>,
    /// Protocol revision whose types the handlers use (default: the newest in the
    /// document). The server serves every declared revision.
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<ProtocolRevision>,
}

pub fn run(args: Args) -> CmdResult {
    let opts = TsServerOptions {
        protocol_version: args.protocol_version,
        package_name: args.package_name.clone(),
    };
    super::generate_into(&args.io, |doc| {
        mcpdesc_codegen::generate_typescript_server(doc, &opts)
    })
}
