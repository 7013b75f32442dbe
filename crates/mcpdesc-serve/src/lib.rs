//! # mcpdesc-serve
//!
//! Runs an MCP Description as a real MCP server (issue 13): `tools/list` at each
//! negotiated revision is exactly the description's `tools/list` export, and
//! `tools/call` is answered by a [`Backend`]:
//! - the REST gateway ([`mcpdesc_rest::RestBackend`], its own crate): pure functions
//!   turn arguments + the tool's `x-mcpdesc-openapi` provenance
//!   ([`mcpdesc_core::provenance`]) + credentials into an HTTP request value, and an
//!   HTTP response into a Tool Result; an HTTP client sends the request under the
//!   gateway's safety rules.
//! - [`MockBackend`] (`--mock`): answers from the tool's named examples (§9.3), marked
//!   as illustrative.
//!
//! Both answer a [`ToolCall`](mcpdesc_rest::call::ToolCall) with a
//! [`CallOutcome`](mcpdesc_rest::call::CallOutcome). This crate is the MCP side:
//! lifecycle and revision negotiation, lists, argument validation, transports (stdio,
//! Streamable HTTP) and their inbound security.
//!
//! What the CLI calls: [`prepare`] then [`Prepared::serve`]. For embedding and tests:
//! [`Server`] (built by [`prepare`]), [`serve_stdio`], [`serve_http`].

mod backend;
pub mod compose;
mod mock;
mod server;

pub use backend::{Backend, DeclRead, ReadAnswer};
pub use mcpdesc_auth::ClientCredential;
pub use mcpdesc_sandbox::Limits as CodeLimits;
pub use mcpdesc_sandbox::WorkerCommand as CodeWorker;
pub use mock::{MockBackend, MockError, MockOptions, SELECT_META_KEY};
pub use server::auth::{AuthOptions, Caller, ListMode};
pub use server::http::{
    ExposureError, HttpOptions, serve as serve_http, serve_with as serve_http_with,
};
pub use server::lifecycle::{
    DEFAULT_DRAIN_TIMEOUT, Gate, Lifecycle, Readiness, ReloadFn, Reloaded,
};
pub use server::log::Log;
pub use server::report::{RevisionReport, ToolsetRow, toolset_table};
pub use server::session_seal::{KeyError as SessionKeyError, SESSION_MAX_AGE, SessionKey};
pub use server::stdio::serve as serve_stdio;
pub use server::telemetry::{Telemetry, TelemetryError, TelemetryOptions};
pub use server::{
    BackendOptions, BuildError, CodeOptions, DEFAULT_PAGE_SIZE, Discovery, Fit, MAX_MESSAGE_BYTES,
    Member, Options, Prepared, SearchOptions, Selection, SelectionError, ServeOptions, Server,
    StartError, Transport, prepare, prepare_many,
};
