//! `mcpdesc convert` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Convert arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`convert` is not implemented yet".into()))
}
