//! `mcpdesc split` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Split arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`split` is not implemented yet".into()))
}
