//! Where the tool objects of an import go: kept as values (the whole document), written
//! as pretty JSON around the skeleton (streaming), or only counted (corpus runs).
//!
//! The parallel workers prepare each operation's tools for the sink's kind
//! ([`SinkKind::prepare`]: pretty JSON fragments are serialized on the workers), and
//! the sink takes them in operation order ([`Sink::accept`]).

use crate::ImportError;
use crate::pretty::{self, PrettyDoc};
use serde_json::{Map, Value};

/// Where the tool objects of an import go.
pub(crate) enum Sink<'w> {
    /// Kept as values, for the whole document.
    Values(Vec<Value>),
    /// Written as pretty JSON, the skeleton around them.
    Json(PrettyDoc<'w>),
    /// Counted only (corpus runs: the verdict is what counts).
    Discard,
}

impl std::fmt::Debug for Sink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Sink::Values(_) => "Sink::Values",
            Sink::Json(_) => "Sink::Json",
            Sink::Discard => "Sink::Discard",
        })
    }
}

/// What a sink wants of the tools (shared with the parallel workers).
#[derive(Debug, Clone, Copy)]
pub(crate) enum SinkKind {
    Values,
    Json,
    Discard,
}

impl SinkKind {
    pub(crate) fn prepare(self, tools: Vec<Value>) -> Prepared {
        match self {
            SinkKind::Values => Prepared::Values(tools),
            SinkKind::Json => Prepared::Json(tools.iter().map(pretty::tool_fragment).collect()),
            SinkKind::Discard => Prepared::Count(tools.len()),
        }
    }
}

/// One operation's tool objects on their way to the sink (prepared in parallel).
#[derive(Debug)]
pub(crate) enum Prepared {
    Values(Vec<Value>),
    Json(Vec<Vec<u8>>),
    Count(usize),
}

impl Sink<'_> {
    pub(crate) fn kind(&self) -> SinkKind {
        match self {
            Sink::Values(_) => SinkKind::Values,
            Sink::Json(_) => SinkKind::Json,
            Sink::Discard => SinkKind::Discard,
        }
    }

    /// Before the first tool: the skeleton's members up to `tools`.
    pub(crate) fn head(&mut self, skeleton: &Map<String, Value>) -> Result<(), ImportError> {
        match self {
            Sink::Json(w) => w.head(skeleton).map_err(ImportError::Write),
            _ => Ok(()),
        }
    }

    /// Takes one operation's tools; returns how many tool objects they are.
    pub(crate) fn accept(&mut self, p: Prepared) -> Result<usize, ImportError> {
        match (self, p) {
            (Sink::Values(all), Prepared::Values(tools)) => {
                let n = tools.len();
                all.extend(tools);
                Ok(n)
            }
            (Sink::Json(w), Prepared::Json(fragments)) => {
                for f in &fragments {
                    w.tool(f).map_err(ImportError::Write)?;
                }
                Ok(fragments.len())
            }
            (_, Prepared::Count(n)) => Ok(n),
            // A sink only ever gets what its own kind prepared: a mismatch is a bug,
            // reported instead of panicking.
            (sink, _) => Err(ImportError::Write(std::io::Error::other(format!(
                "internal error: {sink:?} was handed tools prepared for another sink"
            )))),
        }
    }

    /// After the last tool: the skeleton's members after `tools`.
    pub(crate) fn tail(&mut self, skeleton: &Map<String, Value>) -> Result<(), ImportError> {
        match self {
            Sink::Json(w) => w.tail(skeleton).map_err(ImportError::Write),
            _ => Ok(()),
        }
    }

    /// The tools a [`Sink::Values`] kept (none for the other kinds).
    pub(crate) fn into_values(self) -> Vec<Value> {
        match self {
            Sink::Values(tools) => tools,
            _ => Vec::new(),
        }
    }
}
