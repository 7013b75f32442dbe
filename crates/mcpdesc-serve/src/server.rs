//! The MCP side of `mcpdesc serve`: lifecycle and revision negotiation, the lists,
//! `tools/call` (argument validation, then the backend), and the transports
//! ([`stdio`], [`http`]).
//!
//! # Lifecycle (per revision, [`mcpdesc_core::Feature`] decides)
//! - Revisions without [`Feature::StatelessLifecycle`] (2024-11-05 … 2025-11-25): the
//!   `initialize` handshake. The server answers with the requested revision when it
//!   serves it, else with the newest handshake revision it serves (MCP lifecycle:
//!   "respond with another protocol version it supports … SHOULD be the latest"); when
//!   it serves none (only 2026-07-28), `initialize` is error -32022 naming the served
//!   revisions. Over Streamable HTTP only revisions with [`Feature::StreamableHttp`]
//!   are offered (2024-11-05 knows only HTTP+SSE: it is served over stdio only).
//!   `ping` is answered before and after initialization.
//! - [`Feature::StatelessLifecycle`] (2026-07-28): no handshake. Every request carries
//!   `params._meta` with `io.modelcontextprotocol/protocolVersion` and
//!   `…/clientCapabilities` (missing: -32602; a version not served: -32022 with
//!   `data: {supported, requested}`); `server/discover` answers `supportedVersions`
//!   (the stateless revisions served), capabilities and instructions.
//! - A connection (stdio, or one HTTP session) is locked to the era it opened with:
//!   `initialize` after enveloped requests is -32022, an enveloped request after
//!   `initialize` is -32600 (as the Python SDK's dual-era server does). `server/discover`
//!   is a probe and locks nothing.
//!
//! # Results
//! Protocol results get what their revision requires: `resultType: "complete"`
//! ([`Feature::ResultType`]), `ttlMs: 0` + `cacheScope: "private"` on lists and
//! discovery ([`Feature::ListResultCache`]; the SDKs' defaults: fresh for no time, not
//! shared across authorization contexts), and the `io.modelcontextprotocol/serverInfo`
//! `_meta` stamp ([`Feature::ServerInfoMeta`], added where a result has none). A
//! `tools/call` result is exactly what the backend returned, plus that stamp.
//!
//! # Errors
//! See [`jsonrpc`] for the codes. `tools/call` of an unknown tool is -32602 in every
//! revision; invalid arguments are a tool execution error (`isError: true`) naming each
//! argument (JSON pointer) and rule, and nothing is sent upstream.
//!
//! `resources/read` and `prompts/get` find the declaration the request reaches (a
//! Resource by `uri`, else the most specific Resource Template the URI is an RFC 6570
//! expansion of; a Prompt by name, with string arguments and every required one
//! present, else -32602) and ask the backend ([`Backend::read`]): the mock answers from
//! named examples (a request it has no example for is -32602 naming what it has); the
//! REST gateway has nothing behind them, so there, and for `completion/complete`
//! always, the answer is -32601: JSON-RPC's "the method does not exist / is not
//! available", which is the truth. A URI no declaration reaches is "Resource not found":
//! -32002 where the revision has that code ([`Feature::ResourceNotFoundCode`]), -32602
//! from 2026-07-28 (SEP-2164).

pub(crate) mod args;
pub mod auth;
pub(crate) mod catalog;
pub(crate) mod code;
pub(crate) mod facade;
pub(crate) mod headers;
pub(crate) mod http;
pub(crate) mod jsonrpc;
pub(crate) mod lifecycle;
pub(crate) mod log;
pub(crate) mod ratelimit;
pub(crate) mod report;
pub(crate) mod session_seal;
pub(crate) mod start;
pub(crate) mod stdio;
pub mod telemetry;
#[cfg(test)]
mod tests_mutants;

use crate::backend::{Backend, DeclRead, ReadAnswer};
use catalog::{Catalog, ToolEntry, View};
use facade::{Facade, FacadeCall};
use jsonrpc::{Message, RequestId, RpcError};
use log::Log;
pub use mcpdesc_catalog::{Selection, SelectionError};
use mcpdesc_core::meta::{CLIENT_CAPABILITIES, PROTOCOL_VERSION, SERVER_INFO};
use mcpdesc_core::{DeclKind, Feature, ProtocolRevision, RevisionSet};
use mcpdesc_rest::call::{CallOutcome, ToolCall};
use mcpdesc_validate::Validated;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use catalog::DEFAULT_PAGE_SIZE;
pub use start::{
    BackendOptions, Member, Options, Prepared, StartError, Transport, prepare, prepare_many,
};

/// Why a [`Server`] cannot be built from its options. The texts name values, not
/// flags: the CLI says which of its flags a value came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// [`ServeOptions::revisions`] is empty or not a subset of the description's.
    #[error("{asked} is not a subset of the description's protocolVersions {declared}")]
    Revisions {
        asked: RevisionSet,
        declared: RevisionSet,
    },
    /// A pin ([`SearchOptions::pins`]) names no served tool.
    #[error("{0}: no served tool has that name")]
    PinUnknown(String),
    /// A pin names one of the facade's own tools.
    #[error("{0}: that name is one of the facade's own tools")]
    PinReserved(String),
    /// The search facade could not be built (its own input schemas do not compile: a
    /// bug).
    #[error("the search facade cannot be built: {0}")]
    Facade(String),
    /// Code mode could not be built (its own input schemas do not compile: a bug).
    #[error("code mode cannot be built: {0}")]
    Code(String),
}

/// Largest JSON-RPC message read from a client (stdio line or HTTP body).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Server settings that are not the backend's or the transport's.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// `--protocol-versions`: the revisions to serve, a subset of the description's
    /// (`None`: all of them).
    pub revisions: Option<RevisionSet>,
    /// `--page-size`: list entries per page (default [`DEFAULT_PAGE_SIZE`]).
    pub page_size: usize,
    /// Where log lines go.
    pub log: Log,
    /// `--host H` / `--budget BYTES` / `--server-prefix NAME`: serve each revision's
    /// `tools/list` rewritten for that host and pruned to that budget
    /// ([`mcpdesc_hosts::fit_tools_list`], what `export tools-list --host` emits), and map
    /// `tools/call` of a renamed tool back to its declaration.
    pub fit: Option<Fit>,
    /// `--toolsets` / `--tools` / `--exclude-tools` / `--read-only`: the tools served.
    pub selection: Selection,
    /// `--discovery`: how the served tools reach the client.
    pub discovery: Discovery,
    /// `--metrics` / `--otlp-endpoint`: metrics and traces (off by default).
    pub telemetry: telemetry::Telemetry,
}

/// How the served tools reach a client.
#[derive(Debug, Clone, Default)]
pub enum Discovery {
    /// Every served tool in `tools/list` (the default).
    #[default]
    Direct,
    /// `--discovery search`: `tools/list` is the search facade's three tools plus the
    /// pinned ones (the crate-private `server::facade`).
    Search(SearchOptions),
    /// `--discovery code`: `tools/list` is code mode's two tools, `search_api` and
    /// `execute` (the crate-private `server::code`).
    Code(CodeOptions),
}

/// `--discovery code` settings.
#[derive(Debug, Clone, Default)]
pub struct CodeOptions {
    /// The limits of one `execute` (`--code-*`).
    pub limits: mcpdesc_sandbox::Limits,
    /// How to start a sandbox worker process (default: this executable with the hidden
    /// `__sandbox-worker` argument, which the `mcpdesc` binary honours).
    pub worker: mcpdesc_sandbox::WorkerCommand,
    /// `--search lexical`: BM25F alone, without the embedding model.
    pub lexical: bool,
}

/// `--discovery search` settings.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// `--pin TOOL`: tools listed as themselves besides the facade.
    pub pins: Vec<String>,
    /// `--search lexical`: BM25F alone, without the embedding model.
    pub lexical: bool,
}

/// What [`ServeOptions::fit`] fits the served `tools/list` to.
#[derive(Debug, Clone, Default)]
pub struct Fit {
    pub host: Option<&'static mcpdesc_hosts::HostProfile>,
    pub server_prefix: Option<String>,
    pub budget: Option<usize>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            revisions: None,
            page_size: DEFAULT_PAGE_SIZE,
            log: Log::Stderr,
            fit: None,
            selection: Selection::default(),
            discovery: Discovery::default(),
            telemetry: telemetry::Telemetry::default(),
        }
    }
}

/// A running description: catalog + backend. Shared by every connection.
#[derive(Debug)]
pub struct Server {
    catalog: Catalog,
    backend: Arc<dyn Backend>,
    log: Log,
    /// `--discovery search`.
    facade: Option<Facade>,
    /// `--discovery code`.
    code: Option<code::CodeMode>,
    /// What the server was built from ([`Server::with_selection`] builds siblings): the
    /// document of `source`, shared.
    doc: Arc<Value>,
    /// The validator's handle of `doc` (shared with siblings). A server exists only for
    /// a validated description; code mode lowers its views from it.
    source: Arc<Validated<'static>>,
    opts: ServeOptions,
}

/// A server built from a description whose validation is still running
/// ([`crate::prepare`] builds beside the validator): it becomes a [`Server`] only with
/// the validator's handle of the same document ([`Unfinished::finish`]).
#[derive(Debug)]
pub(crate) struct Unfinished {
    doc: Arc<Value>,
    backend: Arc<dyn Backend>,
    opts: ServeOptions,
    catalog: Catalog,
    /// The search facade and code mode's index (code mode itself needs the handle);
    /// `None` until the lists are fitted, which needs the handle too
    /// ([`mcpdesc_hosts::fit_tools_list_of`] checks only what fitting changed).
    discovery: Option<DiscoveryParts>,
}

/// The search facade (`--discovery search`), or code mode's index.
type DiscoveryParts = (Option<Facade>, Option<(Facade, CodeOptions)>);

impl Unfinished {
    /// The server, given the validator's handle of the document this was built from.
    /// A handle of another document builds the server again from it.
    pub(crate) fn finish(
        self,
        valid: Validated<'static>,
    ) -> Result<(Server, Vec<mcpdesc_core::Diagnostic>), BuildError> {
        let source = Arc::new(valid.into_shared());
        if !Arc::ptr_eq(&source.shared(), &self.doc) {
            return Server::build(source, self.backend, &self.opts);
        }
        self.assemble(source)
    }

    /// The server of `source`, whose shared document is the one this was built from.
    fn assemble(
        mut self,
        source: Arc<Validated<'static>>,
    ) -> Result<(Server, Vec<mcpdesc_core::Diagnostic>), BuildError> {
        let fit_diagnostics = match &self.opts.fit {
            Some(fit) => self.catalog.fit(fit, &source),
            None => Vec::new(),
        };
        let (facade, code_index) = match self.discovery.take() {
            Some(parts) => parts,
            None => Server::discovery(&self.catalog, &self.opts)?,
        };
        let code = match code_index {
            Some((index, c)) => Some(code::CodeMode::build(
                &self.catalog,
                Arc::clone(&source),
                index,
                &c,
            )?),
            None => None,
        };
        let server = Server {
            catalog: self.catalog,
            backend: self.backend,
            log: self.opts.log.clone(),
            facade,
            code,
            doc: self.doc,
            source,
            opts: self.opts,
        };
        Ok((server, fit_diagnostics))
    }
}

impl Server {
    /// Builds the server for a validated description (the validator's handle; see
    /// [`crate::prepare`], which validates). The revisions served are `opts.revisions`
    /// or every revision of the description.
    pub fn new(
        doc: &Validated<'static>,
        backend: Arc<dyn Backend>,
        opts: &ServeOptions,
    ) -> Result<Server, BuildError> {
        Self::with_fit(doc, backend, opts).map(|(server, _)| server)
    }

    /// [`Server::new`], also returning the diagnostics of fitting the tool lists to
    /// [`ServeOptions::fit`] (renames, prunings, and errors for what cannot be made
    /// acceptable; the caller refuses to serve when there is an error).
    pub fn with_fit(
        doc: &Validated<'static>,
        backend: Arc<dyn Backend>,
        opts: &ServeOptions,
    ) -> Result<(Server, Vec<mcpdesc_core::Diagnostic>), BuildError> {
        Self::build(Arc::new(doc.clone().into_shared()), backend, opts)
    }

    /// [`Server::with_fit`] of a description whose validation runs beside this build
    /// ([`crate::prepare`]): what is built is a server only once the validator's handle
    /// is given ([`Unfinished::finish`]).
    pub(crate) fn unfinished(
        doc: Arc<Value>,
        backend: Arc<dyn Backend>,
        opts: &ServeOptions,
    ) -> Result<Unfinished, BuildError> {
        Self::parts(doc, backend, opts)
    }

    /// The same description and backend serving another selection of tools (the HTTP
    /// paths `/mcp/x/{toolset}` and `/mcp/readonly`); fitting and discovery as this one.
    pub fn with_selection(
        &self,
        selection: Selection,
    ) -> Result<(Server, Vec<mcpdesc_core::Diagnostic>), BuildError> {
        let opts = ServeOptions {
            selection,
            ..self.opts.clone()
        };
        Self::build(Arc::clone(&self.source), Arc::clone(&self.backend), &opts)
    }

    /// The selection served.
    pub fn selection(&self) -> &Selection {
        &self.opts.selection
    }

    /// The search facade, with `--discovery search`.
    pub fn facade(&self) -> Option<&Facade> {
        self.facade.as_ref()
    }

    /// The server of a validated description (shared with siblings) whose document is
    /// held shared ([`Validated::into_shared`]).
    fn build(
        source: Arc<Validated<'static>>,
        backend: Arc<dyn Backend>,
        opts: &ServeOptions,
    ) -> Result<(Server, Vec<mcpdesc_core::Diagnostic>), BuildError> {
        Self::parts(source.shared(), backend, opts)?.assemble(source)
    }

    /// Everything of a server but its handle.
    fn parts(
        doc: Arc<Value>,
        backend: Arc<dyn Backend>,
        opts: &ServeOptions,
    ) -> Result<Unfinished, BuildError> {
        let root = mcpdesc_core::decl::root_scope(&doc);
        let revisions = match opts.revisions {
            None => root,
            Some(asked) if asked.is_subset(root) && !asked.is_empty() => asked,
            Some(asked) => {
                return Err(BuildError::Revisions {
                    asked,
                    declared: root,
                });
            }
        };
        let catalog =
            Catalog::selected(Arc::clone(&doc), revisions, opts.page_size, &opts.selection);
        // Fitted lists change what the facade indexes: it waits for the fitting.
        let discovery = match opts.fit {
            None => Some(Self::discovery(&catalog, opts)?),
            Some(_) => None,
        };
        Ok(Unfinished {
            doc,
            backend,
            opts: opts.clone(),
            catalog,
            discovery,
        })
    }

    /// The search facade or code mode's index over `catalog`, as `opts.discovery` asks.
    fn discovery(catalog: &Catalog, opts: &ServeOptions) -> Result<DiscoveryParts, BuildError> {
        let semantic = |lexical: bool| -> Option<Box<dyn mcpdesc_catalog::search::Semantic>> {
            if lexical {
                None
            } else {
                Some(Box::new(mcpdesc_catalog::semantic::Embeddings::embedded()))
            }
        };
        let (facade, code_index) = match &opts.discovery {
            Discovery::Direct => (None, None),
            Discovery::Search(s) => (
                Some(Facade::build(catalog, &s.pins, semantic(s.lexical))?),
                None,
            ),
            Discovery::Code(c) => {
                let index = Facade::build(catalog, &[], semantic(c.lexical))?;
                (None, Some((index, c.clone())))
            }
        };
        Ok((facade, code_index))
    }

    /// The revisions served.
    pub fn revisions(&self) -> RevisionSet {
        self.catalog.revisions
    }

    /// The catalog (views, server identity).
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub(crate) fn log(&self) -> &Log {
        &self.log
    }

    /// Handles one inbound message of `session`. Requests that take time (`tools/call`)
    /// come back as a [`CallJob`] for the transport to run (and cancel).
    pub(crate) fn handle(&self, session: &Session, msg: Message, inbound: &Inbound) -> Handled {
        match msg {
            Message::Response => Handled::Nothing,
            Message::Notification { method, params } => {
                if method == "notifications/cancelled" {
                    if let Some(id) = params
                        .as_ref()
                        .and_then(|p| p.get("requestId"))
                        .and_then(RequestId::of)
                    {
                        session.cancel(&id);
                    }
                }
                // `notifications/initialized` needs nothing: requests are served as soon
                // as `initialize` is answered. Other notifications are ignored.
                Handled::Nothing
            }
            Message::Request { id, method, params } => {
                let mut obs = self.opts.telemetry.request(
                    &method,
                    &id,
                    params.as_ref(),
                    inbound.trace.as_ref(),
                );
                let answer = self.request(session, &id, &method, params, inbound);
                let era = match session.era() {
                    Era::Legacy(r) => Some(r),
                    _ => None,
                };
                obs.set_revision(era, |r| self.catalog.revisions.contains(r));
                match answer {
                    Ok(Done::Result(v)) => {
                        let failed = v.get("isError") == Some(&Value::Bool(true));
                        obs.finish(failed.then_some("tool_error".into()));
                        Handled::Reply(jsonrpc::response(&id, v))
                    }
                    Ok(Done::Call(mut job)) => {
                        job.obs = obs;
                        Handled::Call(job)
                    }
                    Err(e) => {
                        obs.no_tool();
                        obs.finish(Some(e.code.to_string().into()));
                        Handled::Reply(jsonrpc::error_response(Some(&id), &e))
                    }
                }
            }
        }
    }

    fn request(
        &self,
        session: &Session,
        id: &RequestId,
        method: &str,
        params: Option<Map<String, Value>>,
        inbound: &Inbound,
    ) -> Result<Done, RpcError> {
        let params = params.unwrap_or_default();
        let enveloped = params
            .get("_meta")
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(PROTOCOL_VERSION));
        if method == "initialize" {
            return self.initialize(session, &params).map(Done::Result);
        }
        if enveloped {
            if let Era::Legacy(rev) = session.era() {
                return Err(RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    format!(
                        "Invalid Request: this connection negotiated MCP {rev} with `initialize`; requests carrying the `{PROTOCOL_VERSION}` envelope are not accepted on it"
                    ),
                ));
            }
            let rev = self.envelope_revision(&params)?;
            if method != "server/discover" {
                session.lock_modern();
            }
            return self.dispatch(rev, id, method, params, inbound);
        }
        match session.era() {
            Era::Legacy(rev) => self.dispatch(rev, id, method, params, inbound),
            Era::Modern => Err(RpcError::invalid_params(format!(
                "params._meta must carry `{PROTOCOL_VERSION}` and `{CLIENT_CAPABILITIES}` on every request of this connection (MCP {} stateless lifecycle)",
                Feature::StatelessLifecycle.since()
            ))),
            Era::Fresh => {
                if method == "ping"
                    && self
                        .handshake_revisions(session)
                        .iter()
                        .any(|r| r.has(Feature::Ping))
                {
                    return Ok(Done::Result(json!({})));
                }
                if method == "server/discover" {
                    return Err(RpcError::method_not_found(
                        method,
                        format!(
                            "`server/discover` needs the per-request `_meta` envelope (`{PROTOCOL_VERSION}`, `{CLIENT_CAPABILITIES}`)"
                        ),
                    ));
                }
                Err(RpcError::invalid_params(format!(
                    "not initialized: send `initialize` first, or (MCP {}) carry `{PROTOCOL_VERSION}` and `{CLIENT_CAPABILITIES}` in params._meta",
                    Feature::StatelessLifecycle.since()
                )))
            }
        }
    }

    /// The handshake revisions a session's transport can negotiate.
    fn handshake_revisions(&self, session: &Session) -> RevisionSet {
        let hs = self.catalog.revisions.without(Feature::StatelessLifecycle);
        match session.transport {
            TransportKind::Stdio => hs,
            TransportKind::Http => hs.with(Feature::StreamableHttp),
        }
    }

    fn initialize(
        &self,
        session: &Session,
        params: &Map<String, Value>,
    ) -> Result<Value, RpcError> {
        let requested = params.get("protocolVersion");
        let Some(requested_str) = requested.and_then(Value::as_str) else {
            return Err(RpcError::invalid_params(
                "initialize: `protocolVersion` (a string) is required",
            ));
        };
        match session.era() {
            Era::Modern => {
                return Err(self.unsupported(
                    requested_str,
                    format!(
                        "this connection serves the MCP {} stateless lifecycle; the initialize handshake is not accepted on it",
                        Feature::StatelessLifecycle.since()
                    ),
                ));
            }
            Era::Legacy(rev) => {
                return Err(RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    format!("Invalid Request: this connection is already initialized (MCP {rev})"),
                ));
            }
            Era::Fresh => {}
        }
        let candidates = self.handshake_revisions(session);
        let negotiated = match ProtocolRevision::parse(requested_str) {
            Some(r) if candidates.contains(r) => r,
            _ => match candidates.latest() {
                Some(r) => r,
                None => {
                    return Err(self.unsupported(
                        requested_str,
                        "no revision this server serves here has the initialize handshake",
                    ));
                }
            },
        };
        session.set_era(Era::Legacy(negotiated));
        let view = self.view(negotiated)?;
        let mut result = Map::new();
        result.insert("protocolVersion".into(), json!(negotiated.as_str()));
        result.insert("capabilities".into(), view.capabilities().clone());
        result.insert("serverInfo".into(), self.catalog.server_info.clone());
        if let Some(i) = &self.catalog.instructions {
            result.insert("instructions".into(), json!(i));
        }
        Ok(Value::Object(result))
    }

    /// -32022 with `data: {supported, requested}` (every served revision).
    fn unsupported(&self, requested: &str, why: impl Into<String>) -> RpcError {
        RpcError::new(
            jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version: {}", why.into()),
        )
        .with_data(json!({
            "supported": self.catalog.revisions.to_strings(),
            "requested": requested,
        }))
    }

    /// The revision a 2026-07-28 envelope asks for.
    fn envelope_revision(&self, params: &Map<String, Value>) -> Result<ProtocolRevision, RpcError> {
        let meta = params.get("_meta").and_then(Value::as_object);
        let missing: Vec<&str> = [PROTOCOL_VERSION, CLIENT_CAPABILITIES]
            .into_iter()
            .filter(|k| !meta.is_some_and(|m| m.contains_key(*k)))
            .collect();
        if !missing.is_empty() {
            return Err(RpcError::invalid_params(format!(
                "params._meta is missing the required envelope key(s): {}",
                missing.join(", ")
            )));
        }
        let Some(v) = meta
            .and_then(|m| m.get(PROTOCOL_VERSION))
            .and_then(Value::as_str)
        else {
            return Err(RpcError::invalid_params(format!(
                "`{PROTOCOL_VERSION}` must be a string"
            )));
        };
        match ProtocolRevision::parse(v) {
            Some(r) if self.catalog.revisions.contains(r) && r.has(Feature::StatelessLifecycle) => {
                Ok(r)
            }
            _ => Err(self.unsupported(
                v,
                "that revision is not served with the per-request envelope",
            )),
        }
    }

    fn view(&self, rev: ProtocolRevision) -> Result<&View, RpcError> {
        self.catalog
            .view(rev)
            .ok_or_else(|| RpcError::new(jsonrpc::INTERNAL_ERROR, format!("no view for {rev}")))
    }

    /// A request at a known, served revision.
    fn dispatch(
        &self,
        rev: ProtocolRevision,
        id: &RequestId,
        method: &str,
        params: Map<String, Value>,
        inbound: &Inbound,
    ) -> Result<Done, RpcError> {
        let view = self.view(rev)?;
        let list = |kind: DeclKind| -> Result<Done, RpcError> {
            let page = self.catalog.page(view, kind, params.get("cursor"))?;
            Ok(Done::Result(self.cacheable(rev, page)))
        };
        match method {
            "ping" if rev.has(Feature::Ping) => Ok(Done::Result(json!({}))),
            "server/discover" if rev.has(Feature::StatelessLifecycle) => {
                let mut m = Map::new();
                m.insert(
                    "supportedVersions".into(),
                    json!(
                        self.catalog
                            .revisions
                            .with(Feature::StatelessLifecycle)
                            .to_strings()
                    ),
                );
                m.insert("capabilities".into(), view.capabilities().clone());
                if let Some(i) = &self.catalog.instructions {
                    m.insert("instructions".into(), json!(i));
                }
                Ok(Done::Result(self.cacheable(rev, m)))
            }
            "tools/list" if self.code.is_some() => {
                if let Some(c) = params.get("cursor") {
                    return Err(RpcError::invalid_params(format!(
                        "Invalid cursor {c}: this tools/list has one page"
                    )));
                }
                let code = self.code.as_ref().map(|c| c.tools_list(view));
                Ok(Done::Result(self.cacheable(rev, code.unwrap_or_default())))
            }
            "tools/list" => match &self.facade {
                Some(f) => {
                    if let Some(c) = params.get("cursor") {
                        return Err(RpcError::invalid_params(format!(
                            "Invalid cursor {c}: this tools/list has one page"
                        )));
                    }
                    Ok(Done::Result(
                        self.cacheable(rev, f.tools_list(&self.catalog, view)),
                    ))
                }
                None => list(DeclKind::Tool),
            },
            "resources/list" => list(DeclKind::Resource),
            "resources/templates/list" => list(DeclKind::ResourceTemplate),
            "prompts/list" => list(DeclKind::Prompt),
            "tools/call" => {
                let name = match params.get("name") {
                    Some(Value::String(s)) => s,
                    _ => {
                        return Err(RpcError::invalid_params(
                            "tools/call: `name` (a string) is required",
                        ));
                    }
                };
                let arguments = match params.get("arguments") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(a)) => a.clone(),
                    Some(_) => {
                        return Err(RpcError::invalid_params(
                            "tools/call: `arguments` must be an object",
                        ));
                    }
                };
                // With `--auth-issuer`: what the search facade and code mode may show.
                let access = inbound.access();
                let allowed = |n: &str| match (&access, view.tool(n)) {
                    (Some(a), Some(t)) => a.permits(self, t).is_ok(),
                    _ => true,
                };
                if let Some(code) = &self.code {
                    let answered = match code.call(view, name, &arguments, &allowed) {
                        code::CodeCall::Answered(result, log) => (result, log),
                        code::CodeCall::Execute(script) => {
                            return Ok(Done::Call(CallJob {
                                id: id.clone(),
                                revision: rev,
                                work: Work::Execute(script),
                                meta: None,
                                forwarded_headers: inbound.forwarded_headers.clone(),
                                via: None,
                                obs: telemetry::RequestObs::default(),
                                access: inbound.access(),
                            }));
                        }
                        code::CodeCall::NotCode => {
                            return Err(RpcError::invalid_params(format!(
                                "Unknown tool: {name} (this server lists search_api and execute; call other tools from a script: `await api.{name}({{...}})`)"
                            ))
                            .with_data(json!({"name": name})));
                        }
                    };
                    let mut m = match answered.0 {
                        Value::Object(m) => m,
                        _ => Map::new(),
                    };
                    self.stamp(rev, &mut m);
                    self.log
                        .line(&format!("tools/call {name} [{rev}] -> {}", answered.1));
                    return Ok(Done::Result(Value::Object(m)));
                }
                let mut via = None;
                let (name, arguments) = match &self.facade {
                    Some(f) => match f.call(&self.catalog, view, name, &arguments, &allowed) {
                        FacadeCall::Answered(result, log) => {
                            let mut m = match result {
                                Value::Object(m) => m,
                                _ => Map::new(),
                            };
                            self.stamp(rev, &mut m);
                            self.log
                                .line(&format!("tools/call {name} [{rev}] -> {log}"));
                            return Ok(Done::Result(Value::Object(m)));
                        }
                        FacadeCall::Forward { name, arguments } => {
                            via = Some(mcpdesc_catalog::facade::CALL_TOOL);
                            (name, arguments)
                        }
                        FacadeCall::NotFacade if f.is_pinned(name) => (name.clone(), arguments),
                        FacadeCall::NotFacade => {
                            return Err(RpcError::invalid_params(format!(
                                "Unknown tool: {name} (this server lists search_tools, describe_tools and call_tool; call other tools through call_tool)"
                            ))
                            .with_data(json!({"name": name})));
                        }
                    },
                    None => (name.clone(), arguments),
                };
                let Some(tool) = view.tool(&name) else {
                    return Err(RpcError::invalid_params(format!("Unknown tool: {name}"))
                        .with_data(json!({"name": name})));
                };
                let meta = params.get("_meta").and_then(Value::as_object).cloned();
                Ok(Done::Call(CallJob {
                    id: id.clone(),
                    revision: rev,
                    work: Work::Tool {
                        tool: Arc::clone(tool),
                        arguments,
                    },
                    meta,
                    forwarded_headers: inbound.forwarded_headers.clone(),
                    via,
                    obs: telemetry::RequestObs::default(),
                    access: inbound.access(),
                }))
            }
            "resources/read" | "prompts/get" => self.read(view, method, &params),
            "completion/complete" => Err(not_backed(method)),
            _ => Err(RpcError::method_not_found(
                method,
                format!("`{method}` is not a method this server provides at MCP {rev}"),
            )),
        }
    }

    /// `resources/read` or `prompts/get`: finds the declaration the request reaches in
    /// the view (a Resource by `uri`, else the most specific Resource Template the URI
    /// expands; a Prompt by its served name) and asks the backend (for several
    /// descriptions, the owning description's, through [`crate::compose::Router`]).
    fn read(
        &self,
        view: &View,
        method: &str,
        params: &Map<String, Value>,
    ) -> Result<Done, RpcError> {
        let rev = view.revision;
        let empty = Map::new();
        let (entry, target, arguments) = if method == "resources/read" {
            let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                return Err(RpcError::invalid_params(
                    "resources/read: `uri` (a string) is required",
                ));
            };
            let Some(entry) = view.resource_for(uri) else {
                let code = if rev.has(Feature::ResourceNotFoundCode) {
                    jsonrpc::RESOURCE_NOT_FOUND
                } else {
                    jsonrpc::INVALID_PARAMS
                };
                return Err(RpcError::new(code, format!("Resource not found: {uri}"))
                    .with_data(json!({"uri": uri})));
            };
            (entry, uri, &empty)
        } else {
            let Some(name) = params.get("name").and_then(Value::as_str) else {
                return Err(RpcError::invalid_params(
                    "prompts/get: `name` (a string) is required",
                ));
            };
            let Some(entry) = view.prompt(name) else {
                return Err(RpcError::invalid_params(format!("Unknown prompt: {name}"))
                    .with_data(json!({"name": name})));
            };
            let arguments = match params.get("arguments") {
                None | Some(Value::Null) => &empty,
                Some(Value::Object(a)) if a.values().all(Value::is_string) => a,
                Some(_) => {
                    return Err(RpcError::invalid_params(
                        "prompts/get: `arguments` must be an object of strings",
                    ));
                }
            };
            let missing: Vec<&str> = entry
                .decl()
                .get("arguments")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|a| a.get("required") == Some(&Value::Bool(true)))
                .filter_map(|a| a.get("name").and_then(Value::as_str))
                .filter(|n| !arguments.contains_key(*n))
                .collect();
            if !missing.is_empty() {
                return Err(RpcError::invalid_params(format!(
                    "prompts/get {name}: missing required argument(s): {}",
                    missing.join(", ")
                )));
            }
            (entry, name, arguments)
        };
        let answer = self.backend.read(DeclRead {
            kind: entry.kind(),
            decl: entry.decl(),
            index: entry.index(),
            revision: rev,
            target,
            arguments,
            meta: params.get("_meta").and_then(Value::as_object),
        });
        match answer {
            ReadAnswer::Result(mut m, note) => {
                if rev.has(Feature::ResultType) && !m.contains_key("resultType") {
                    m.insert("resultType".into(), json!("complete"));
                }
                if method == "resources/read" && rev.has(Feature::ResourceResultCache) {
                    m.entry("ttlMs").or_insert(json!(0));
                    m.entry("cacheScope").or_insert(json!("private"));
                }
                self.stamp(rev, &mut m);
                self.log
                    .line(&format!("{method} {target} [{rev}] -> {note}"));
                Ok(Done::Result(Value::Object(m)))
            }
            ReadAnswer::Invalid(why) => {
                self.log
                    .line(&format!("{method} {target} [{rev}] -> refused: {why}"));
                Err(RpcError::invalid_params(why))
            }
            ReadAnswer::NotAvailable => Err(not_backed(method)),
        }
    }

    /// Adds the envelope fields `rev` requires to a list or `server/discover` result.
    fn cacheable(&self, rev: ProtocolRevision, mut m: Map<String, Value>) -> Value {
        if rev.has(Feature::ResultType) && !m.contains_key("resultType") {
            m.insert("resultType".into(), json!("complete"));
        }
        if rev.has(Feature::ListResultCache) {
            m.entry("ttlMs").or_insert(json!(0));
            m.entry("cacheScope").or_insert(json!("private"));
        }
        self.stamp(rev, &mut m);
        Value::Object(m)
    }

    /// The `serverInfo` `_meta` stamp where `rev` defines it and the result has none.
    fn stamp(&self, rev: ProtocolRevision, m: &mut Map<String, Value>) {
        if !rev.has(Feature::ServerInfoMeta) {
            return;
        }
        if let Value::Object(meta) = m.entry("_meta").or_insert_with(|| json!({}))
            && meta.get(SERVER_INFO).is_none_or(Value::is_null)
        {
            meta.insert(SERVER_INFO.into(), self.catalog.server_info.clone());
        }
    }

    /// Runs one `tools/call` (a tool's, or code mode's `execute`) and returns the
    /// JSON-RPC response.
    pub(crate) async fn run_call(self: &Arc<Self>, mut job: CallJob) -> Value {
        let mut obs = std::mem::take(&mut job.obs);
        // Pinned here and passed by reference: the call's future (kilobytes) is not
        // moved again into the context wrapper, which copied it on every call.
        let result = obs.in_context(std::pin::pin!(self.call_result(&job))).await;
        let failed = result.get("isError") == Some(&Value::Bool(true));
        obs.finish(failed.then_some("tool_error".into()));
        jsonrpc::response(&job.id, Value::Object(result))
    }

    async fn call_result(self: &Arc<Self>, job: &CallJob) -> Map<String, Value> {
        match &job.work {
            Work::Tool { tool, arguments } => {
                self.tool_result(ToolJob {
                    revision: job.revision,
                    tool,
                    arguments,
                    meta: job.meta.as_ref(),
                    forwarded_headers: &job.forwarded_headers,
                    via: job.via,
                    caller: job.access.as_ref().map(auth::Access::key),
                    access: job.access.as_ref(),
                })
                .await
            }
            Work::Execute(script) => code::execute(self, job, script).await,
        }
    }

    /// Runs one tool call: validates the arguments, calls the backend, logs one line,
    /// and returns the tool result.
    pub(crate) async fn tool_result(&self, job: ToolJob<'_>) -> Map<String, Value> {
        let (tool, arguments) = (job.tool, job.arguments);
        let started = Instant::now();
        let mut note = None;
        let outcome = match tool.validator() {
            Ok(v) => {
                let violations = v.check(arguments);
                if violations.is_empty() {
                    None
                } else {
                    Some(CallOutcome::tool_error(
                        job.revision,
                        args::describe(&tool.name, &violations),
                    ))
                }
            }
            Err(why) => {
                note = Some(format!(
                    "arguments not validated (the inputSchema does not compile: {why})"
                ));
                None
            }
        };
        let outcome = match outcome {
            Some(o) => o,
            None => {
                let call = ToolCall {
                    tool: tool.decl(),
                    index: tool.index(),
                    revision: job.revision,
                    arguments,
                    forwarded_headers: job.forwarded_headers,
                    meta: job.meta,
                    token_exchange: job.access.and_then(auth::Access::token_exchange),
                };
                self.backend.call(call).await
            }
        };
        let mut result = match outcome.result {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        self.stamp(job.revision, &mut result);
        let via = job.via.map(|v| format!(" via {v}")).unwrap_or_default();
        let mut line = format!(
            "tools/call {}{via} [{}] -> {}",
            tool.name, job.revision, outcome.log
        );
        if let Some(n) = note {
            line.push_str(&format!("; {n}"));
        }
        let elapsed = started.elapsed();
        line.push_str(&format!("; {}", ms(elapsed)));
        if let Some(up) = &outcome.log.upstream {
            self.opts.telemetry.upstream(&tool.name, up);
        }
        if self.log.is_json() {
            let failed = result.get("isError") == Some(&Value::Bool(true));
            let level = if failed {
                log::Level::Warn
            } else {
                log::Level::Info
            };
            self.log.request(&log::RequestLine {
                level,
                message: &line,
                method: "tools/call",
                tool: Some(&tool.name),
                status: if failed { "tool_error" } else { "ok" },
                upstream_status: outcome.log.upstream.as_ref().and_then(|u| u.status),
                duration_ms: Some(elapsed.as_secs_f64() * 1000.0),
                trace_id: telemetry::current_trace_id(),
                caller: job.caller.as_deref(),
            });
        } else {
            self.log.line(&line);
        }
        result
    }
}

/// -32601 for a method whose answers nothing backs (the REST gateway's resources and
/// prompts; completions everywhere).
fn not_backed(method: &str) -> RpcError {
    let what = match method {
        "resources/read" => {
            "resource contents (a mock server answers them from the declarations' named examples)"
        }
        "prompts/get" => {
            "prompt messages (a mock server answers them from the declarations' named examples)"
        }
        _ => "completions",
    };
    RpcError::method_not_found(
        method,
        format!(
            "`{method}` is not available: this server lists the description's declarations, and nothing backs {what}"
        ),
    )
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms total", d.as_secs_f64() * 1000.0)
}

/// A request's answer, before framing.
enum Done {
    Result(Value),
    Call(CallJob),
}

/// What the transport does with one inbound message.
#[derive(Debug)]
pub(crate) enum Handled {
    /// Send this JSON-RPC response.
    Reply(Value),
    /// Send nothing (notification, response).
    Nothing,
    /// Run this call (cancellable) and send its response.
    Call(CallJob),
}

/// A `tools/call` ready to run: owns everything it needs, so a transport can spawn it.
#[derive(Debug)]
pub(crate) struct CallJob {
    pub id: RequestId,
    pub revision: ProtocolRevision,
    pub work: Work,
    /// The request's `params._meta` (the mock reads its example selection there).
    pub meta: Option<Map<String, Value>>,
    pub forwarded_headers: Vec<(String, String)>,
    /// The facade tool the call came through (`call_tool`, code mode's `execute`), for
    /// the log.
    pub via: Option<&'static str>,
    /// The request's metrics and span, finished when the call is.
    pub obs: telemetry::RequestObs,
    /// With `--auth-issuer`: the caller, whose scopes each `api` call of a script needs.
    pub access: Option<auth::Access>,
}

/// One tool call, as [`Server::tool_result`] runs it (for a `tools/call`, or for an `api`
/// call of a code-mode script).
pub(crate) struct ToolJob<'a> {
    pub revision: ProtocolRevision,
    pub tool: &'a Arc<ToolEntry>,
    pub arguments: &'a Map<String, Value>,
    /// The request's `params._meta` (the mock reads its example selection there).
    pub meta: Option<&'a Map<String, Value>>,
    pub forwarded_headers: &'a [(String, String)],
    /// The facade tool the call came through, for the log.
    pub via: Option<&'static str>,
    /// The authenticated caller's log key ([`auth::Caller::key`]), never its token.
    pub caller: Option<String>,
    /// With `--auth-issuer`: the caller (the REST gateway's token exchange reads it).
    pub access: Option<&'a auth::Access>,
}

/// What a [`CallJob`] runs.
#[derive(Debug)]
pub(crate) enum Work {
    /// A served tool with these arguments.
    Tool {
        tool: Arc<ToolEntry>,
        arguments: Map<String, Value>,
    },
    /// Code mode's `execute` of this script.
    Execute(String),
}

/// What the transport knows about an inbound message.
#[derive(Debug, Default, Clone)]
pub(crate) struct Inbound {
    /// `--forward-header` headers of the HTTP request (empty over stdio).
    pub forwarded_headers: Vec<(String, String)>,
    /// The HTTP request's W3C `traceparent` (and `tracestate`), when it has one.
    pub trace: Option<telemetry::TraceHeaders>,
    /// With `--auth-issuer`: who sent the request, as its verified token says.
    pub caller: Option<Arc<auth::Caller>>,
    /// With `--auth-issuer`: the gate that verified `caller` (its scope rules).
    pub gate: Option<Arc<auth::Gate>>,
    /// With `--upstream-token-exchange`: the caller's token, as the exchange's subject.
    pub subject: Option<Arc<mcpdesc_auth::SubjectToken>>,
}

impl Inbound {
    /// The gate and caller, when the request was authenticated.
    pub(crate) fn access(&self) -> Option<auth::Access> {
        Some(auth::Access {
            gate: Arc::clone(self.gate.as_ref()?),
            caller: Arc::clone(self.caller.as_ref()?),
            subject: self.subject.clone(),
        })
    }
}

/// Which transport a session runs on (negotiation depends on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TransportKind {
    Stdio,
    Http,
}

/// The lifecycle era of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// Nothing negotiated yet.
    Fresh,
    /// `initialize` negotiated this revision.
    Legacy(ProtocolRevision),
    /// Requests carry the 2026-07-28 envelope.
    Modern,
}

/// One connection's (stdio) or HTTP session's state: its era and its in-flight calls.
#[derive(Debug)]
pub(crate) struct Session {
    pub transport: TransportKind,
    era: Mutex<Era>,
    inflight: Mutex<HashMap<RequestId, tokio::task::AbortHandle>>,
}

impl Session {
    pub fn new(transport: TransportKind) -> Self {
        Session {
            transport,
            era: Mutex::new(Era::Fresh),
            inflight: Mutex::new(HashMap::new()),
        }
    }

    pub fn era(&self) -> Era {
        self.era.lock().map(|e| *e).unwrap_or(Era::Fresh)
    }

    fn set_era(&self, era: Era) {
        if let Ok(mut e) = self.era.lock() {
            *e = era;
        }
    }

    fn lock_modern(&self) {
        if let Ok(mut e) = self.era.lock()
            && *e == Era::Fresh
        {
            *e = Era::Modern;
        }
    }

    /// Registers an in-flight call; `false` when the id is already in flight.
    pub fn register(&self, id: &RequestId, handle: tokio::task::AbortHandle) -> bool {
        let Ok(mut m) = self.inflight.lock() else {
            return false;
        };
        if m.contains_key(id) {
            return false;
        }
        m.insert(id.clone(), handle);
        true
    }

    /// Forgets a finished call.
    pub fn finished(&self, id: &RequestId) {
        if let Ok(mut m) = self.inflight.lock() {
            m.remove(id);
        }
    }

    /// Whether a call with this id is in flight.
    pub fn in_flight(&self, id: &RequestId) -> bool {
        self.inflight.lock().is_ok_and(|m| m.contains_key(id))
    }

    /// `notifications/cancelled`: aborts the call (dropping its future aborts the
    /// upstream request); no response is sent for it.
    pub fn cancel(&self, id: &RequestId) {
        let handle = self.inflight.lock().ok().and_then(|mut m| m.remove(id));
        if let Some(h) = handle {
            h.abort();
        }
    }

    /// Aborts every in-flight call (the client went away).
    pub fn cancel_all(&self) {
        let handles: Vec<_> = self
            .inflight
            .lock()
            .map(|mut m| m.drain().map(|(_, h)| h).collect())
            .unwrap_or_default();
        for h in handles {
            h.abort();
        }
    }
}
