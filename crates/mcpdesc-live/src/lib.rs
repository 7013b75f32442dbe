//! # mcpdesc-live
//!
//! Turns what live MCP servers say into one conforming MCP Description:
//!
//! - [`import_dumps`]: saved `tools/list` dumps (every shape people keep: bare results,
//!   JSON-RPC responses, arrays of pages or tools, JSON Lines session transcripts, MCP
//!   Inspector CLI output) → one Effective Protocol View per negotiated revision → merged.
//! - [`capture()`]: runs a server (stdio child process) or connects to one (streamable
//!   HTTP), opens one session per requested revision, pages through `tools/list`, and
//!   feeds the session transcripts to [`import_dumps`] — so a capture is, by
//!   construction, the import of the transcripts it can save.
//!
//! The client is our own small JSON-RPC client, not rmcp: capture must see the raw wire
//! messages (to save transcripts and to report every field a revision does not define),
//! while rmcp's typed `Tool` drops fields it does not model (e.g. `execution`).

pub mod capture;
pub mod client;
pub mod dump;
pub mod import;
pub mod view;

pub use capture::{
    CaptureError, CaptureOptions, CaptureOutcome, MANAGED_HEADERS, Secret, Session, Target, capture,
};
pub use import::{FileDiagnostic, ImportOptions, ImportOutcome, InputRevision, import_dumps};

#[cfg(test)]
mod tests_mutants;
