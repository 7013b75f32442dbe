//! `mcpdesc generate/rust` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`generate/rust` is not implemented yet".into()))
}
