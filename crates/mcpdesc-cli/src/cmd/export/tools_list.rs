//! `mcpdesc export/tools_list` (not implemented yet).

use crate::util::{CmdResult, UsageError};

/// Arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err(UsageError("`export/tools_list` is not implemented yet".into()))
}
