//! `mcpdesc export tools-list`.

use crate::util::CmdResult;

pub mod tools_list;

#[derive(Debug, clap::Subcommand)]
pub enum ExportCommand {
    // Help comes from the `Args` doc comment (see `main.rs`).
    ToolsList(tools_list::Args),
}

pub fn run(cmd: ExportCommand) -> CmdResult {
    match cmd {
        ExportCommand::ToolsList(a) => tools_list::run(a),
    }
}
