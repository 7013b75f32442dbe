//! `mcpdesc import openapi|tools-list`.

use crate::util::CmdResult;

pub mod openapi;
pub mod tools_list;

#[derive(Debug, clap::Subcommand)]
pub enum ImportCommand {
    /// Import OpenAPI (Swagger 2.0, OpenAPI 3.0, 3.1) operations as tools.
    Openapi(openapi::Args),
    /// Import tools/list dumps (one per protocol revision) as one description.
    ToolsList(tools_list::Args),
}

pub fn run(cmd: ImportCommand) -> CmdResult {
    match cmd {
        ImportCommand::Openapi(a) => openapi::run(a),
        ImportCommand::ToolsList(a) => tools_list::run(a),
    }
}
