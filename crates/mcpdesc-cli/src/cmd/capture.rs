//! `mcpdesc capture` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Capture arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`capture` is not implemented yet".into()))
}
