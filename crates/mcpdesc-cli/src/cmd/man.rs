//! `mcpdesc man [COMMAND]...`: manual pages generated from the clap definitions.

use crate::util::{self, CmdResult, Outcome, UsageError};

/// Print the manual page of mcpdesc or of one of its subcommands (roff).
///
/// The page (section 1) goes to standard output. It is generated from the same
/// definitions that parse the command line: mcpdesc(1), or with COMMAND the page of a
/// subcommand (`mcpdesc man import openapi` prints mcpdesc-import-openapi(1)), which is
/// the page the SUBCOMMANDS section of its parent refers to.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
mcpdesc man | man -l -\n  \
mcpdesc man > ~/.local/share/man/man1/mcpdesc.1\n  \
mcpdesc man import openapi > ~/.local/share/man/man1/mcpdesc-import-openapi.1")]
pub struct Args {
    /// The subcommand whose page to print (default: mcpdesc itself).
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `command` is the whole `mcpdesc` command line definition.
pub fn run(args: Args, mut command: clap::Command) -> CmdResult {
    // Building fills in every subcommand's display name (`mcpdesc-import-openapi`),
    // which becomes its page's title. `help` is no page of its own.
    command = command.disable_help_subcommand(true);
    command.build();
    let source = format!(
        "{} {}",
        command.get_name(),
        command.get_version().unwrap_or_default()
    );
    let mut page = &command;
    for name in &args.command {
        page = page.find_subcommand(name).ok_or_else(|| {
            let known: Vec<_> = page
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| c.get_name())
                .collect();
            UsageError(format!(
                "no subcommand `{name}` of `{}` (known: {})",
                page.get_bin_name().unwrap_or(page.get_name()),
                known.join(", ")
            ))
        })?;
    }
    let mut roff = Vec::new();
    clap_mangen::Man::new(page.clone())
        .source(source)
        .render(&mut roff)
        .map_err(|e| UsageError::at("<man page>", e))?;
    util::write_output(None, &roff)?;
    Ok(Outcome::Success)
}
