//! `mcpdesc project` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Project arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`project` is not implemented yet".into()))
}
