//! Start-up: validate the description, build the backend and the server, check the
//! transport's rules, then serve. What the CLI calls.

use super::http::{self, ExposureError, HttpOptions};
use super::lifecycle::Lifecycle;
use super::{BuildError, ServeOptions, Server, Unfinished};
use crate::backend::Backend;
use crate::mock::{MockBackend, MockError, MockOptions};
use mcpdesc_catalog::SelectionError;
use mcpdesc_core::{Diagnostic, Feature, RevisionSet};
use mcpdesc_rest::{GatewayError, RestBackend, RestOptions};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;

/// What answers `tools/call`.
#[derive(Debug, Clone)]
pub enum BackendOptions {
    /// The REST gateway.
    Rest(RestOptions),
    /// `--mock`.
    Mock(MockOptions),
}

/// Where the server listens.
#[derive(Debug, Clone)]
pub enum Transport {
    /// Standard input/output (the default).
    Stdio,
    /// `--http ADDR`: Streamable HTTP at `http://ADDR/mcp`.
    Http { addr: SocketAddr, opts: HttpOptions },
}

/// Everything `mcpdesc serve` was asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub serve: ServeOptions,
    pub backend: BackendOptions,
    pub transport: Transport,
}

/// Why the server did not start or stopped. The texts name values, not flags: the CLI
/// says which of its flags a value came from.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The description is not acceptable (its diagnostics; exit 1).
    #[error("the description is not acceptable ({} diagnostics)", .0.len())]
    Rejected(Vec<Diagnostic>),
    /// The REST gateway refused the description or its options (exit 1).
    #[error(transparent)]
    Gateway(GatewayError),
    /// A mock example selection names no tool or no example (exit 1).
    #[error("the mock's example selections do not fit the description")]
    Mock(Vec<MockError>),
    /// [`ServeOptions::selection`] names a toolset no tool is in (exit 2).
    #[error(transparent)]
    Toolsets(SelectionError),
    /// The server options do not fit the description (exit 2).
    #[error(transparent)]
    Build(BuildError),
    /// Streamable HTTP was asked for, and no served revision has it (exit 2).
    #[error(
        "the served revisions {served} have no Streamable HTTP transport (it exists {})",
        Feature::StreamableHttp.phrase()
    )]
    NoHttpRevision { served: RevisionSet },
    /// The HTTP listener would be exposed without a gate (exit 2).
    #[error(transparent)]
    Exposure(ExposureError),
    /// Binding the HTTP listener failed (exit 2).
    #[error("{addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// Reading or writing failed (exit 2).
    #[error(transparent)]
    Io(std::io::Error),
    /// One of several descriptions ([`prepare_many`]) failed; `member` is its position.
    #[error("description {}: {error}", .member + 1)]
    Member {
        member: usize,
        error: Box<StartError>,
    },
    /// The descriptions cannot be served together (exit 2).
    #[error(transparent)]
    Compose(crate::compose::ComposeError),
}

/// A server ready to serve.
#[derive(Debug)]
pub struct Prepared {
    server: Arc<Server>,
    transport: Transport,
    /// Warnings of the validator and the backend (the CLI prints them with positions).
    pub warnings: Vec<Diagnostic>,
    /// With several descriptions ([`prepare_many`]): each one's warnings (validator,
    /// backend), positioned in that description.
    pub member_warnings: Vec<Vec<Diagnostic>>,
    mode: &'static str,
}

/// Validates `doc` (refusing it with its diagnostics when it does not conform), builds
/// the backend and the server, and checks the transport's rules: `--http` needs a
/// served revision with Streamable HTTP, and a non-loopback address needs a gate
/// (`check_exposure`, [`ExposureError`]). The server keeps the document (shared, not copied):
/// its views point into it.
pub fn prepare(doc: Arc<Value>, opts: Options) -> Result<Prepared, StartError> {
    opts.serve
        .selection
        .check_toolsets(&doc)
        .map_err(StartError::Toolsets)?;
    // Validation and building the backend and the server are independent reads of the
    // document: run them side by side (start-up on a large description is most of what
    // a client waits for). The builders read the document as untrusted input, so
    // building from a description the validator then refuses is harmless; the refusal
    // comes first.
    let (checked, built) = std::thread::scope(|scope| {
        let validation =
            scope.spawn(|| mcpdesc_validate::Validator::new().check_shared(Arc::clone(&doc)));
        let built = build(&doc, opts.backend, &opts.serve);
        let checked = validation
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (checked, built)
    });
    let mut valid = checked.map_err(StartError::Rejected)?;
    let mut warnings = valid.take_diagnostics();
    let (unfinished, backend_warnings, holds_credentials, mode) = built?;
    // Fitting the lists to a host needs the handle: it checks only what it changed.
    let (server, fitting) = unfinished.finish(valid).map_err(StartError::Build)?;
    if mcpdesc_core::has_errors(&fitting) {
        return Err(StartError::Rejected(fitting));
    }
    warnings.extend(backend_warnings);
    warnings.extend(fitting);
    check_transport(&server, &opts.transport, holds_credentials)?;
    Ok(Prepared {
        server: Arc::new(server),
        transport: opts.transport,
        warnings,
        member_warnings: Vec::new(),
        mode,
    })
}

/// The transport's rules: Streamable HTTP needs a served revision that has it, and a
/// non-loopback address needs a gate ([`http::check_exposure`]).
fn check_transport(
    server: &Server,
    transport: &Transport,
    holds_credentials: bool,
) -> Result<(), StartError> {
    if let Transport::Http { addr, opts: h } = transport {
        let over_http = server.revisions().with(Feature::StreamableHttp);
        if over_http.is_empty() {
            return Err(StartError::NoHttpRevision {
                served: server.revisions(),
            });
        }
        http::check_exposure(*addr, h, holds_credentials).map_err(StartError::Exposure)?;
    }
    Ok(())
}

/// One description of a server that serves several ([`prepare_many`]).
#[derive(Debug, Clone)]
pub struct Member {
    /// The description.
    pub doc: Arc<Value>,
    /// The prefix of its served tool names (`None`: from its `info.name`; see
    /// [`compose`](crate::compose)).
    pub prefix: Option<String>,
    /// Its backend, with its own servers, credentials and limits.
    pub backend: BackendOptions,
}

/// Several descriptions served as one MCP server (issue 21 §2). Each description is
/// validated on its own (a refusal is [`StartError::Member`], naming it), gets its own
/// backend, and its tools are served under prefixed names ([`compose`](crate::compose));
/// a `tools/call` reaches only the backend of the tool's own description.
pub fn prepare_many(
    members: Vec<Member>,
    serve: ServeOptions,
    transport: Transport,
) -> Result<Prepared, StartError> {
    let in_member = |m: usize| {
        move |e: StartError| StartError::Member {
            member: m,
            error: Box::new(e),
        }
    };
    let mut member_warnings = Vec::new();
    let mut witnesses = Vec::new();
    for (m, member) in members.iter().enumerate() {
        let mut valid = mcpdesc_validate::Validator::new()
            .check_shared(Arc::clone(&member.doc))
            .map_err(|diags| in_member(m)(StartError::Rejected(diags)))?;
        member_warnings.push(valid.take_diagnostics());
        witnesses.push(valid);
    }
    // The composition of valid descriptions is valid (`compose`'s tests check it), so it
    // is not validated again.
    let mut routes = None;
    let composed = mcpdesc_validate::Validated::composition(&witnesses, |docs| {
        let sources: Vec<(&Value, Option<&str>)> = docs
            .iter()
            .zip(&members)
            .map(|(d, m)| (*d, m.prefix.as_deref()))
            .collect();
        let c = crate::compose::compose(&sources)?;
        routes = Some(c.routes);
        Ok(c.doc)
    });
    drop(witnesses);
    let (valid, routes) = match (composed, routes) {
        (Some(Ok(valid)), Some(routes)) => (valid, routes),
        (Some(Err(e)), _) => return Err(StartError::Compose(e)),
        // No member vouches for it: the composition of none is validated.
        _ => {
            let c = crate::compose::compose(&[]).map_err(StartError::Compose)?;
            let valid = mcpdesc_validate::Validator::new()
                .check_owned(c.doc)
                .map_err(StartError::Rejected)?;
            (valid.into_shared(), c.routes)
        }
    };
    let doc = valid.shared();
    serve
        .selection
        .check_toolsets(&doc)
        .map_err(StartError::Toolsets)?;
    let mut backends: Vec<Arc<dyn Backend>> = Vec::new();
    let mut holds_credentials = false;
    for (m, member) in members.into_iter().enumerate() {
        let backend: Arc<dyn Backend> = match member.backend {
            BackendOptions::Rest(r) => {
                holds_credentials |= !r.credentials.is_empty() || !r.static_headers.is_empty();
                let b = RestBackend::shared(member.doc, r)
                    .map_err(|e| in_member(m)(StartError::Gateway(e)))?;
                member_warnings[m].extend(b.warnings().iter().cloned());
                Arc::new(b)
            }
            // The mock answers from the composed tools (their examples are inlined and
            // their names are the served ones).
            BackendOptions::Mock(o) => {
                Arc::new(MockBackend::new(&doc, o).map_err(|e| in_member(m)(StartError::Mock(e)))?)
            }
        };
        backends.push(backend);
    }
    let router = crate::compose::Router::new(backends, routes);
    let (server, fitting) =
        Server::with_fit(&valid, Arc::new(router), &serve).map_err(StartError::Build)?;
    if mcpdesc_core::has_errors(&fitting) {
        return Err(StartError::Rejected(fitting));
    }
    check_transport(&server, &transport, holds_credentials)?;
    Ok(Prepared {
        server: Arc::new(server),
        transport,
        warnings: fitting,
        member_warnings,
        mode: "several descriptions",
    })
}

/// The backend and the server [`crate::prepare`] serves (with the backend's warnings, whether
/// it holds credentials of its own, and what it is, for the start-up line).
fn build(
    doc: &Arc<Value>,
    backend: BackendOptions,
    serve: &ServeOptions,
) -> Result<(Unfinished, Vec<Diagnostic>, bool, &'static str), StartError> {
    let (backend, warnings, holds_credentials, mode): (Arc<dyn Backend>, _, _, _) = match backend {
        BackendOptions::Rest(r) => {
            let holds = !r.credentials.is_empty() || !r.static_headers.is_empty();
            let b = RestBackend::shared(Arc::clone(doc), r).map_err(StartError::Gateway)?;
            let warnings = b.warnings().to_vec();
            (Arc::new(b), warnings, holds, "REST gateway")
        }
        BackendOptions::Mock(m) => (
            Arc::new(MockBackend::new(doc, m).map_err(StartError::Mock)?),
            Vec::new(),
            false,
            "mock (named examples)",
        ),
    };
    let server = Server::unfinished(Arc::clone(doc), backend, serve).map_err(StartError::Build)?;
    Ok((server, warnings, holds_credentials, mode))
}

impl Prepared {
    /// The server (tests drive it directly).
    pub fn server(&self) -> &Arc<Server> {
        &self.server
    }

    /// The server and the transport (a reload takes the server over; see
    /// [`Lifecycle`](super::lifecycle::Lifecycle)).
    pub fn into_parts(self) -> (Arc<Server>, Transport) {
        (self.server, self.transport)
    }

    /// Serves until the input ends (stdio) or the process is interrupted (HTTP), on a
    /// multi-threaded runtime of its own.
    pub fn serve(self) -> Result<(), StartError> {
        self.serve_with(Lifecycle::with_signals())
    }

    /// [`Prepared::serve`], operated over HTTP as `lifecycle` says (drain timeout,
    /// reload, sealed sessions, readiness gates).
    pub fn serve_with(self, lifecycle: Lifecycle) -> Result<(), StartError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(StartError::Io)?;
        rt.block_on(self.serve_async_with(Arc::new(lifecycle)))
    }

    /// [`Prepared::serve`] on the caller's runtime.
    pub async fn serve_async(self) -> Result<(), StartError> {
        self.serve_async_with(Arc::new(Lifecycle::with_signals()))
            .await
    }

    /// [`Prepared::serve_with`] on the caller's runtime.
    pub async fn serve_async_with(self, lifecycle: Arc<Lifecycle>) -> Result<(), StartError> {
        let s = &self.server;
        let what = format!(
            "{} ({}): {} tools, MCP {}",
            s.catalog()
                .server_info
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            self.mode,
            s.catalog().tool_count(),
            s.revisions()
        );
        s.log()
            .line(&format!("selection: {}", s.selection().describe()));
        // The sizes take a serialization of every served list: off the start-up path.
        let reporter = Arc::clone(s);
        std::thread::spawn(move || {
            for r in reporter.selection_report() {
                reporter.log().line(&r.to_string());
            }
        });
        match self.transport {
            Transport::Stdio => {
                s.log().line(&format!("serving {what} over stdio"));
                super::stdio::serve(Arc::clone(s), tokio::io::stdin(), tokio::io::stdout())
                    .await
                    .map_err(StartError::Io)
            }
            Transport::Http { addr, opts } => {
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|source| StartError::Bind { addr, source })?;
                let local = listener.local_addr().map_err(StartError::Io)?;
                let stdio_only = s.revisions().without(Feature::StreamableHttp);
                let note = if stdio_only.is_empty() {
                    String::new()
                } else {
                    format!(" ({stdio_only} only over stdio: no Streamable HTTP there)")
                };
                s.log().line(&format!(
                    "serving {what} at http://{local}{}{note}",
                    http::PATH
                ));
                http::serve_with(Arc::clone(s), listener, opts, lifecycle)
                    .await
                    .map_err(StartError::Io)
            }
        }
    }
}
