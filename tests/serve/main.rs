//! `mcpdesc serve`, the MCP side (issue 13): lifecycle per revision, lists equal to the
//! export, `tools/call` validation, the mock, both transports and their security, MCP
//! faults, real clients, the capture round trip and one end-to-end Prism run.
//!
//! Oracles, none produced by the server: hand-written expectations from the MCP
//! revisions and mcpdesc 0.8.0 (`tests/fixtures/serve/mcp/expected/`, inline tables),
//! `mcpdesc export tools-list` (the definition of `tools/list`), the Python
//! `mcp` SDK's per-revision result models, real MCP clients (TypeScript SDK, Python
//! SDK, MCP Inspector, mcpdesc's generated clients), `mcpdesc capture`, and Prism's
//! request validation against the original OpenAPI document.
//!
//! Tests that need `.deps` are ignored, with the reason, when tests/build.rs found
//! them missing; one that runs without them fails.

mod catalog;
mod clients;
mod code;
mod faults;
mod fit;
mod harness;
mod http;
mod mock;
mod prism;
mod protocol;
mod roundtrip;
mod several;
