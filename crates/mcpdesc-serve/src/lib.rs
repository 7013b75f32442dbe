//! # mcpdesc-serve
//!
//! Runs an MCP Description as a real MCP server (issue 13): `tools/list` at each
//! negotiated revision is exactly the description's `tools/list` export, and
//! `tools/call` is answered by a backend:
//! - [`rest`]: the REST gateway. Pure functions turn arguments + the tool's
//!   `x-mcpdesc-openapi` provenance ([`mcpdesc_core::provenance`]) + credentials into an
//!   HTTP request value, and an HTTP response into a Tool Result; an upstream client
//!   sends the request under the gateway's safety rules.
//! - [`mock`]: answers from the tool's named examples (§9.3), marked as illustrative.
//!
//! Both answer a [`call::ToolCall`] with a [`call::CallOutcome`]. [`server`] is the MCP
//! side: lifecycle and revision negotiation, lists, argument validation, transports
//! (stdio, Streamable HTTP) and their inbound security.

pub mod call;
pub mod mock;
pub mod rest;
pub mod server;
