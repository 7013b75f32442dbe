//! `mcpdesc names` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Names arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`names` is not implemented yet".into()))
}
