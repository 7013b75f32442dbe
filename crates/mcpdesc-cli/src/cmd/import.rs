//! `mcpdesc import openapi|tools-list`.

use crate::util::CmdResult;

pub mod openapi;
pub mod tools_list;

#[derive(Debug, clap::Subcommand)]
pub enum ImportCommand {
    // Help comes from each `Args` doc comment (see `main.rs`).
    Openapi(openapi::Args),
    ToolsList(tools_list::Args),
}

pub fn run(cmd: ImportCommand) -> CmdResult {
    match cmd {
        ImportCommand::Openapi(a) => openapi::run(a),
        ImportCommand::ToolsList(a) => tools_list::run(a),
    }
}
