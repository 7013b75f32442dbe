//! What answers `tools/call`: the [`Backend`] trait, implemented by the REST gateway
//! ([`mcpdesc_rest::RestBackend`], here) and the mock ([`crate::mock::MockBackend`],
//! in its own module, which depends on this one and not the reverse).
//!
//! # Where things live, and why
//! - [`ToolCall`] and [`CallOutcome`] (the call and its answer) live in `mcpdesc-rest`
//!   (`mcpdesc_rest::call`), because the gateway builds them; this crate depends on
//!   `mcpdesc-rest` and never the reverse, so layering stays one-way.
//! - The trait lives here, with the server that calls it. Rust's orphan rule allows
//!   `impl Backend for RestBackend` here because the trait is local, so the gateway
//!   needs to know nothing about the server. (Had the trait lived in `mcpdesc-rest`,
//!   the mock would have had to implement a REST crate's trait.)
//!
//! # One index
//! The server's catalog is the only (tool name, revision) index: it finds the tool's
//! declaration and hands the backend its position in the description's `tools`
//! ([`ToolCall::index`]). A backend keys what it prepared per declaration (the
//! gateway's request plans) by that position; it never looks a name up again.
//!
//! # Several descriptions
//! A backend answers for one description; a server holding several descriptions holds
//! one backend per description (each with its own servers, credentials and limits), and
//! its catalog says which description a tool belongs to.

use mcpdesc_core::{DeclKind, ProtocolRevision};
use mcpdesc_rest::call::{CallOutcome, ToolCall};
use mcpdesc_rest::{BoxFuture, RestBackend};
use serde_json::{Map, Value};
use std::fmt;

/// Answers the `tools/call`s of one description. The server has found the tool (the
/// declaration at [`ToolCall::index`], projected at the call's revision) and validated
/// the arguments against its `inputSchema`. The answer is always a Tool Result:
/// failures are tool errors (`isError: true`). Dropping the future cancels the call.
pub trait Backend: Send + Sync + fmt::Debug {
    /// One `tools/call`.
    fn call<'a>(&'a self, call: ToolCall<'a>) -> BoxFuture<'a, CallOutcome>;

    /// One `resources/read` or `prompts/get`, routed by the server to the declaration
    /// that answers it. The default is [`ReadAnswer::NotAvailable`]: the REST gateway
    /// has nothing behind resource contents or prompt messages (an OpenAPI import
    /// declares tools only). Synchronous: the one backend that answers, the mock, reads
    /// named examples and does no I/O.
    fn read(&self, read: DeclRead<'_>) -> ReadAnswer {
        let _ = read;
        ReadAnswer::NotAvailable
    }
}

/// A `resources/read` or `prompts/get` the server has found the declaration of.
#[derive(Debug, Clone, Copy)]
pub struct DeclRead<'a> {
    /// [`DeclKind::Resource`], [`DeclKind::ResourceTemplate`] or [`DeclKind::Prompt`].
    pub kind: DeclKind,
    /// The declaration as the negotiated revision's view has it.
    pub decl: &'a Value,
    /// Its position in its collection of the description (as [`ToolCall::index`]).
    pub index: usize,
    /// The negotiated revision.
    pub revision: ProtocolRevision,
    /// The requested URI (`resources/read`) or prompt name as served (`prompts/get`).
    pub target: &'a str,
    /// `prompts/get`'s `arguments` (empty for `resources/read`), checked by the server:
    /// string values, every required argument present.
    pub arguments: &'a Map<String, Value>,
    /// The request's `params._meta`.
    pub meta: Option<&'a Map<String, Value>>,
}

/// A backend's answer to a [`DeclRead`].
#[derive(Debug, Clone, PartialEq)]
pub enum ReadAnswer {
    /// The completed result (the server adds what the revision's envelope needs) and a
    /// note for the log line.
    Result(Map<String, Value>, String),
    /// The request cannot be answered as asked: JSON-RPC -32602 with this message.
    Invalid(String),
    /// Nothing backs this method (-32601, as for a description served alone).
    NotAvailable,
}

impl Backend for RestBackend {
    fn call<'a>(&'a self, call: ToolCall<'a>) -> BoxFuture<'a, CallOutcome> {
        Box::pin(RestBackend::call(self, call))
    }
}
