//! `mcpdesc merge` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Merge arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`merge` is not implemented yet".into()))
}
