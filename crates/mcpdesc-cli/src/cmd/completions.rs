//! `mcpdesc completions SHELL`: a completion script generated from the clap definitions.

use crate::util::{self, CmdResult, Outcome};
use clap_complete::Shell;

/// Print a shell completion script (bash, zsh, fish, elvish, powershell).
///
/// The script goes to standard output. It is generated from the same definitions that
/// parse the command line, so it never lags behind a flag.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
mcpdesc completions bash > ~/.local/share/bash-completion/completions/mcpdesc\n  \
mcpdesc completions zsh > \"${fpath[1]}/_mcpdesc\"\n  \
mcpdesc completions fish > ~/.config/fish/completions/mcpdesc.fish")]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `command` is the whole `mcpdesc` command line definition.
pub fn run(args: Args, mut command: clap::Command) -> CmdResult {
    // Rendered into memory first: the generators panic on a failed write, and a closed
    // pipe is an I/O error (exit 2), not a crash.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "mcpdesc", &mut script);
    util::write_output(None, &script)?;
    Ok(Outcome::Success)
}
