//! `mcpdesc generate rust|typescript`.

use crate::util::CmdResult;

pub mod rust;
pub mod typescript;

#[derive(Debug, clap::Subcommand)]
pub enum GenerateCommand {
    /// Generate a typed Rust client crate (rmcp).
    Rust(rust::Args),
    /// Generate a typed TypeScript client package (@modelcontextprotocol/sdk).
    Typescript(typescript::Args),
}

pub fn run(cmd: GenerateCommand) -> CmdResult {
    match cmd {
        GenerateCommand::Rust(a) => rust::run(a),
        GenerateCommand::Typescript(a) => typescript::run(a),
    }
}
