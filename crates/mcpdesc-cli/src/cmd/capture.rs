//! `mcpdesc capture [--protocol-versions all|V,V] [-o OUTPUT] [--save-transcripts DIR]
//! (-- COMMAND ARGS… [--env KEY=VALUE…] | --url URL [--header NAME:VALUE…])`.

use crate::args::{EnvArg, HeaderArg, Output, RevisionSetArg, Seconds};
use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::{Format, RevisionSet};
use mcpdesc_live::{CaptureError, CaptureOptions, Secret, Session, Target, capture};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Capture tools/list from a live MCP server, one session per protocol revision.
///
/// Starts the server as a stdio child process (everything after `--`; a fresh process
/// per session) or connects to a streamable HTTP endpoint (`--url`). Per requested
/// revision it opens one session: `initialize` asking for that revision, then
/// `notifications/initialized`, then `tools/list` through every cursor page. For
/// 2026-07-28 it first tries `server/discover` (stateless lifecycle) and falls back to
/// `initialize`. Tools are recorded under the revision the server NEGOTIATED; when
/// several requests negotiate the same revision their lists must agree and count once.
/// A revision the server says it does not serve (error -32022, e.g. `initialize` to a
/// server of 2026-07-28 only) is skipped with a note; none served is an error.
/// The result is exactly what `mcpdesc import tools-list` makes of the saved
/// transcripts. A server that crashes, hangs (see --timeout) or misbehaves yields an
/// error with its stderr tail and no output file; the child is always killed and reaped.
///
/// Credentials: `--header` (HTTP) and `--env` (stdio) are sent to the server and never
/// printed, saved in transcripts or shown in errors; `--header 'Authorization:${VAR}'`
/// reads the value from the environment so it stays out of argv and shell history.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
mcpdesc capture -o everything.mcpdesc.yaml -- npx -y @modelcontextprotocol/server-everything stdio\n  \
mcpdesc capture --protocol-versions 2025-06-18,2025-11-25 --save-transcripts sessions/ -- python server.py\n  \
mcpdesc capture --url http://127.0.0.1:8000/mcp -o server.mcpdesc.json\n  \
mcpdesc capture --url https://mcp.example.com/mcp --header 'Authorization:${MCP_AUTH}'\n  \
mcpdesc capture --env API_KEY=\"$API_KEY\" -- node server.js")]
pub struct Args {
    /// `all`, or a comma-separated list of revisions to request.
    #[arg(long, value_name = "all|V,V", default_value_t = RevisionSetArg(RevisionSet::ALL))]
    pub protocol_versions: RevisionSetArg,
    /// Output file, .json, .yaml or .yml: the extension gives the format (default:
    /// standard output, JSON). Written atomically.
    #[arg(short, long, value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
    /// Directory for one JSON Lines transcript per session (`session-<requested>.jsonl`),
    /// readable by `mcpdesc import tools-list`.
    #[arg(long, value_name = "DIR")]
    pub save_transcripts: Option<PathBuf>,
    /// Seconds to wait for each response (and each HTTP exchange).
    #[arg(long, value_name = "SECS", default_value_t = Seconds(Duration::from_secs(30)))]
    pub timeout: Seconds,
    /// Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// HTTP header sent with every request to --url (repeatable). VALUE `${VAR}` is read
    /// from the environment variable VAR. Never printed.
    #[arg(long = "header", value_name = "NAME:VALUE", conflicts_with = "command", value_parser = Quiet::<HeaderArg>::new())]
    pub headers: Vec<HeaderArg>,
    /// Environment variable for the stdio server (repeatable). Never printed.
    #[arg(long = "env", value_name = "KEY=VALUE", conflicts_with = "url", value_parser = Quiet::<EnvArg>::new())]
    pub env: Vec<EnvArg>,
    /// The stdio server command and its arguments (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// A clap value parser for values that may hold secrets: like `FromStr`, but its error
/// names the flag and the reason, never the value (clap's own message quotes it).
#[derive(Debug, Clone)]
struct Quiet<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Quiet<T> {
    fn new() -> Self {
        Quiet(std::marker::PhantomData)
    }
}

impl<T> clap::builder::TypedValueParser for Quiet<T>
where
    T: std::str::FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    type Value = T;
    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let flag = arg.map_or_else(|| "the argument".to_string(), |a| a.to_string());
        let parsed = value
            .to_str()
            .ok_or_else(|| "is not valid UTF-8".to_string())
            .and_then(str::parse);
        parsed.map_err(|why| {
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value for '{flag}': {why}\n"),
            )
            .with_cmd(cmd)
        })
    }
}

fn save_transcripts(dir: &Path, sessions: &[Session]) -> Result<(), UsageError> {
    std::fs::create_dir_all(dir).map_err(|e| UsageError::at(dir.display(), e))?;
    for s in sessions {
        util::write_atomic(&dir.join(s.transcript_file_name()), &s.transcript)?;
    }
    Ok(())
}

pub fn run(args: Args) -> CmdResult {
    let target = match (&args.url, args.command.split_first()) {
        (Some(url), _) => Target::Url {
            url: url.clone(),
            headers: args
                .headers
                .iter()
                .map(|h| Ok((h.name.clone(), Secret::new(h.value()?))))
                .collect::<Result<_, String>>()
                .map_err(UsageError)?,
        },
        (None, Some((program, rest))) => Target::Command {
            program: program.clone(),
            args: rest.to_vec(),
            env: args
                .env
                .iter()
                .map(|e| (e.key.clone(), Secret::new(e.value.clone())))
                .collect(),
        },
        (None, None) => {
            return Err(UsageError(
                "give the server command after `--`, or --url".into(),
            ));
        }
    };
    let opts = CaptureOptions {
        revisions: args.protocol_versions.0.iter().collect(),
        timeout: args.timeout.0,
        ..Default::default()
    };
    match capture(&target, &opts) {
        Ok(outcome) => {
            for s in &outcome.sessions {
                eprintln!(
                    "mcpdesc: requested {} → negotiated {} ({:?}): {} tools in {} page(s)",
                    s.requested, s.negotiated, s.lifecycle, s.tools, s.pages
                );
            }
            util::print_file_diagnostics(&outcome.import.diagnostics);
            if let Some(dir) = &args.save_transcripts {
                save_transcripts(dir, &outcome.sessions)?;
            }
            util::write_value(
                outcome.import.description.value(),
                args.output.as_ref(),
                Format::Json,
            )?;
            Ok(Outcome::Success)
        }
        Err(CaptureError::Import {
            diagnostics,
            sessions,
        }) => {
            util::print_file_diagnostics(&diagnostics);
            if let Some(dir) = &args.save_transcripts {
                save_transcripts(dir, &sessions)?;
            }
            eprintln!(
                "mcpdesc: error: the captured tool lists do not make a conforming description; nothing written"
            );
            Ok(Outcome::Rejected)
        }
        Err(CaptureError::Session {
            source: mcpdesc_live::client::ClientError::Spawn { program, source },
            ..
        }) => Err(UsageError(format!("cannot start `{program}`: {source}"))),
        Err(e @ CaptureError::Session { .. }) => {
            eprintln!("mcpdesc: error: {e}");
            Ok(Outcome::Rejected)
        }
        Err(e @ (CaptureError::NoRevisions | CaptureError::ManagedHeader(_))) => {
            Err(UsageError(e.to_string()))
        }
    }
}
