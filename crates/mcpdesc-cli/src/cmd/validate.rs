//! `mcpdesc validate` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Validate arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`validate` is not implemented yet".into()))
}
