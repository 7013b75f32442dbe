//! `mcpdesc serve DESCRIPTION... [flags]` and `mcpdesc serve --config FILE [flags]`:
//! one description, several as one server (`serve_apis`), or a gateway configuration
//! ([`config`]). The flags are [`Args`]; its doc comment is the command's `--help`.

use crate::args::{
    ByteSize, DiscoveryArg, HeaderArg, HostArg, SearchArg, Seconds, ValidateOutputArg, is_env_name,
};
use crate::util::{self, CmdResult, Outcome, UsageError};
use mcpdesc_core::Diagnostic;
use mcpdesc_core::RevisionSet;
use mcpdesc_rest::{
    self as rest, CredentialError, OptionError, Problem, RestOptions, Secret, ValidateOutput,
};
use mcpdesc_serve::compose::ComposeError;
use mcpdesc_serve::{
    BackendOptions, BuildError, CodeLimits as Limits, CodeOptions, DEFAULT_PAGE_SIZE, Discovery,
    ExposureError, Fit, HttpOptions, MockOptions, Options, SearchOptions, ServeOptions, StartError,
    Transport,
};
use std::net::SocketAddr;
use std::sync::Arc;

mod config;

/// Default `--concurrency`.
const DEFAULT_CONCURRENCY: usize = 64;

/// Run a description as a real MCP server: a REST gateway built from its OpenAPI
/// provenance (`x-mcpdesc-openapi`), or a mock answering from its named examples.
///
/// The description is validated first (an invalid one is refused, exit 1).
/// `tools/list` at the negotiated revision is exactly `mcpdesc export tools-list` at
/// that revision (paged by --page-size); `resources/list`, `resources/templates/list`
/// and `prompts/list` list the declarations. Each revision's lifecycle is honoured:
/// `initialize` for 2024-11-05 … 2025-11-25, `server/discover` and the per-request
/// `_meta` envelope for 2026-07-28.
///
/// `tools/call`: the arguments are validated against the tool's inputSchema first (a
/// violation is a tool error naming the argument and the rule; nothing is sent), then
/// the gateway builds the HTTP request from the provenance (OpenAPI style/explode,
/// RFC 3986 encoding, bodies per media type, auth from the tool's security) and maps
/// the response to a Tool Result. With --mock, the tool's named examples answer:
/// an explicit name (request `_meta["x-mcpdesc/mockExample"]`, else --mock-example),
/// else the example whose input equals the arguments, else the first example by name
/// with a successful result; the result says it is illustrative.
///
/// Transport: stdio by default (standard output carries only JSON-RPC; one log line per
/// call on standard error); --http serves Streamable HTTP at http://ADDR/mcp
/// (2025-03-26 on; 2024-11-05 is stdio-only). A non-loopback ADDR needs
/// --inbound-token-env, or --forward-header Authorization with no credentials of the
/// gateway's own. Browser `Origin`s other than loopback ones are refused (403).
///
/// Credentials: --credential SCHEME=ENV_VAR names the environment variable holding the
/// secret of security scheme SCHEME; otherwise `MCPDESC_CREDENTIAL_<SCHEME>` is read
/// (SCHEME upper-cased, characters outside A-Z0-9 as `_`). http basic: `user:password`;
/// oauth2 with a client-credentials flow: `client_id:client_secret` (a token is fetched)
/// or `token:ACCESS_TOKEN`; oauth2 without one (implicit, authorization code, password)
/// and openIdConnect: the access token itself (`token:` prefix optional). Secrets never
/// appear in logs or results.
///
/// Exit status: 0 when the input ends (stdio) or on Ctrl-C/SIGTERM (HTTP); 1 when the
/// description is not acceptable; 2 on usage or I/O errors.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "Examples:\n  \
mcpdesc serve petstore.mcpdesc.yaml --credential api_key=PETSTORE_KEY\n  \
mcpdesc serve petstore.mcpdesc.yaml --http 127.0.0.1:8080 --base-url http://127.0.0.1:4010\n  \
mcpdesc serve captured.mcpdesc.json --mock --mock-example get_weather=sunny")]
pub struct Args {
    /// The MCP Description (JSON or YAML). Several are served as one server: each tool as
    /// `<prefix>_<name>` (the prefix is the description's info.name in snake_case), each
    /// description with its own servers and backend; its credentials come from
    /// `MCPDESC_CREDENTIAL_<PREFIX>_<SCHEME>` (--credential, --header, --base-url and
    /// --mock-example need a single description).
    #[arg(required_unless_present = "config", num_args = 1.., value_name = "DESCRIPTION")]
    pub descriptions: Vec<String>,
    /// Serve what a gateway configuration file says (YAML or JSON): the descriptions
    /// under `apis`, each with its own settings (description, prefix, base-url,
    /// credential, header, allow-host, timeout, max-response-bytes, concurrency,
    /// validate-output, mock, mock-example), and every other flag of this command by its
    /// long name. Server-wide flags given beside it override the file's. See the README,
    /// "Several APIs in one server".
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "descriptions", "base_url", "credentials", "headers", "allow_hosts", "timeout",
        "max_response_bytes", "concurrency", "validate_output", "mock", "mock_examples",
        "list_toolsets",
    ])]
    pub config: Option<String>,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8080;
    /// port 0 picks a free port, logged at start).
    #[arg(long, value_name = "ADDR", value_parser = parse_addr)]
    pub http: Option<SocketAddr>,
    /// Send every request to this base URL instead of the provenance's server (e.g. a
    /// Prism mock or a staging host).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Serve only these revisions (a subset of the description's; default: all of them).
    #[arg(long, value_name = "V,V")]
    pub protocol_versions: Option<RevisionSet>,
    /// SCHEME=ENV_VAR: the environment variable holding the credential of security
    /// scheme SCHEME (one per scheme; default: `MCPDESC_CREDENTIAL_<SCHEME>`).
    #[arg(long = "credential", value_name = "SCHEME=ENV", value_parser = parse_credential)]
    pub credentials: Vec<(String, String)>,
    /// NAME:VALUE header sent on every upstream request (VALUE `${VAR}` is read from
    /// the environment).
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<HeaderArg>,
    /// Copy this inbound HTTP header to the upstream request (repeatable; e.g.
    /// Authorization for per-user auth). Nothing else from the inbound request is sent.
    #[arg(long = "forward-header", value_name = "NAME", value_parser = parse_header_name)]
    pub forward_headers: Vec<String>,
    /// Also allow upstream requests to HOST (HOST, HOST:PORT, or an origin such as
    /// https://HOST:PORT); by default only the description's servers and --base-url are
    /// reachable.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Seconds one upstream exchange may take (redirects and token fetch included).
    #[arg(long, value_name = "SECS", default_value_t = Seconds(rest::DEFAULT_TIMEOUT))]
    pub timeout: Seconds,
    /// The most bytes of an upstream response that are read.
    #[arg(long, value_name = "N", default_value_t = rest::DEFAULT_MAX_RESPONSE_BYTES)]
    pub max_response_bytes: usize,
    /// Upstream requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CONCURRENCY,
          value_parser = positive)]
    pub concurrency: usize,
    /// What a 2xx JSON response that breaks the tool's outputSchema gets: `off` (not
    /// checked), `warn` (logged, data returned), `strict` (a tool error).
    #[arg(long, value_name = "MODE", value_enum,
          default_value_t = ValidateOutputArg(ValidateOutput::default()))]
    pub validate_output: ValidateOutputArg,
    /// With --http: the environment variable holding the bearer token every client
    /// must send (`Authorization: Bearer …`).
    #[arg(long, value_name = "VAR", requires = "http")]
    pub inbound_token_env: Option<String>,
    /// With --http: the URL clients reach this server at (e.g. behind a load balancer);
    /// each path's OAuth resource identifier is URL followed by the path (URL/mcp…).
    /// Default http://ADDR.
    #[arg(long = "public-url", value_name = "URL", requires = "http", value_parser = parse_public_url)]
    pub public_url: Option<String>,
    /// With --http: accept OAuth 2.1 access tokens from this issuer (MCP authorization):
    /// its metadata (RFC 8414, else OpenID discovery) and JWKS are fetched at start;
    /// clients find it in /.well-known/oauth-protected-resource/mcp. Tools need the
    /// OAuth scopes their security requirement lists. Satisfies a non-loopback --http.
    /// See the README, "Serving a team".
    #[arg(long = "auth-issuer", value_name = "URL", requires = "http")]
    pub auth_issuer: Option<String>,
    /// With --auth-issuer: the audience tokens must carry (default: each path's resource
    /// identifier: the public URL followed by the path).
    #[arg(long = "auth-audience", value_name = "URI", requires = "auth_issuer")]
    pub auth_audience: Option<String>,
    /// With --auth-issuer: scopes every request needs.
    #[arg(
        long = "auth-scopes",
        value_name = "S,...",
        value_delimiter = ',',
        requires = "auth_issuer"
    )]
    pub auth_scopes: Vec<String>,
    /// With --auth-issuer: `permitted` (tools/list answers only the tools the caller's
    /// scopes permit) or `all` (every tool; calls lacking scopes get 403).
    #[arg(long = "auth-list", value_name = "permitted|all", value_enum,
          default_value_t = AuthListArg::Permitted, requires = "auth_issuer")]
    pub auth_list: AuthListArg,
    /// With --auth-issuer: the environment variable holding this gateway's own
    /// `client_id:client_secret` at the issuer (introspection of opaque tokens, token
    /// exchange).
    #[arg(
        long = "auth-client-credential",
        value_name = "ENV",
        requires = "auth_issuer"
    )]
    pub auth_client_credential: Option<String>,
    /// With --auth-issuer and --auth-client-credential: the upstream credential of
    /// security scheme SCHEME (oauth2, openIdConnect or http bearer) is an RFC 8693
    /// exchange of the caller's token at the issuer, for the upstream's base URL (cached
    /// per caller until it expires), instead of the configured credential.
    #[arg(
        long = "upstream-token-exchange",
        value_name = "SCHEME",
        requires = "auth_issuer"
    )]
    pub upstream_token_exchange: Vec<String>,
    /// Configuration files: `tool-scopes: {GLOB: [scope, ...]}` (the scopes a tool
    /// needs, instead of its security requirement's).
    #[arg(long = "tool-scopes", value_name = "GLOB=SCOPE ...", hide = true,
          value_parser = parse_pair, requires = "auth_issuer")]
    pub tool_scopes: Vec<(String, String)>,
    /// With --http: at most RATE MCP requests per caller, as COUNT/UNIT with UNIT s, min
    /// or h (20/min, 5/s, 1000/h); more is refused with 429 and Retry-After, unprocessed.
    /// The caller is the authenticated subject, else the peer IP address (IPv6 by /64).
    #[arg(long, value_name = "RATE", requires = "http")]
    pub rate_limit: Option<mcpdesc_ratelimit::Rate>,
    /// With --rate-limit: requests an idle caller may send at once (default: the rate's
    /// COUNT).
    #[arg(long, value_name = "N", requires = "rate_limit",
          value_parser = mcpdesc_ratelimit::parse_burst)]
    pub rate_limit_burst: Option<std::num::NonZeroU32>,
    /// With --rate-limit: keep one budget per caller across replicas in this Redis
    /// (redis://HOST:PORT); by default each replica keeps its own.
    #[arg(long, value_name = "URL", requires = "rate_limit")]
    pub rate_limit_store: Option<mcpdesc_ratelimit::StoreUrl>,
    /// With --rate-limit-store: what requests get while Redis cannot be asked (within
    /// 100 ms): `open` (admitted unlimited) or `closed` (refused with 503 and
    /// Retry-After: 1). Store errors are logged, at most every 30 s.
    #[arg(long, value_name = "open|closed", requires = "rate_limit_store",
          default_value_t = mcpdesc_ratelimit::OnStoreError::Open)]
    pub rate_limit_on_store_error: mcpdesc_ratelimit::OnStoreError,
    /// Entries per page of tools/list and the other lists.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PAGE_SIZE,
          value_parser = positive)]
    pub page_size: usize,
    /// Serve each revision's tools/list rewritten so host H accepts it, exactly as
    /// `mcpdesc export tools-list --host H` emits it (renamed tools are called by their
    /// new names); a tool that cannot be made acceptable refuses the description.
    #[arg(long, value_name = "H")]
    pub host: Option<HostArg>,
    /// Prune each tool's list entry to this many bytes of compact JSON (output schemas
    /// first, never required inputs); with --host the host's default budget applies.
    #[arg(long, value_name = "BYTES", value_parser = positive)]
    pub budget: Option<usize>,
    /// With --host: the server name the host puts in front of tool names.
    #[arg(long = "server-prefix", value_name = "NAME", requires = "host")]
    pub server_prefix: Option<String>,
    /// Answer tools/call from the tools' named examples instead of calling an API.
    #[arg(long, conflicts_with_all = ["base_url", "credentials", "headers", "allow_hosts", "validate_output"])]
    pub mock: bool,
    /// With --mock: TOOL=NAME answers TOOL with its example NAME unless the request
    /// names one.
    #[arg(long = "mock-example", value_name = "TOOL=NAME", requires = "mock", value_parser = parse_pair)]
    pub mock_examples: Vec<(String, String)>,
    /// Serve only the tools of these toolsets (a toolset is a tag of the tools, or their
    /// `x-mcpdesc-toolsets`); see --list-toolsets.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub toolsets: Vec<String>,
    /// Also serve the tools whose names match one of these globs (`*`, `?`, `[...]`);
    /// alone, serve only them.
    #[arg(long, value_name = "GLOB,...", value_delimiter = ',')]
    pub tools: Vec<String>,
    /// Do not serve the tools whose names match one of these globs (wins over
    /// --toolsets and --tools).
    #[arg(long = "exclude-tools", value_name = "GLOB,...", value_delimiter = ',')]
    pub exclude_tools: Vec<String>,
    /// Serve only tools whose readOnlyHint is true.
    #[arg(long = "read-only")]
    pub read_only: bool,
    /// Print each toolset of the description with its tool count and size, and exit.
    #[arg(long = "list-toolsets")]
    pub list_toolsets: bool,
    /// How clients find the tools: `direct` (every served tool in tools/list),
    /// `search` (tools/list is search_tools, describe_tools and call_tool, plus --pin
    /// tools) or `code` (tools/list is search_api, which answers TypeScript declarations,
    /// and execute, which runs a script calling the tools in a sandbox).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = DiscoveryArg::Direct)]
    pub discovery: DiscoveryArg,
    /// With --discovery search: list this tool as itself too (repeatable).
    #[arg(long = "pin", value_name = "TOOL")]
    pub pins: Vec<String>,
    /// With --discovery search: `hybrid` (BM25F's hits first, in its order, then the
    /// compiled-in embedding model's ranking of the tools BM25F has no evidence for) or
    /// `lexical` (BM25F alone).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = SearchArg::Hybrid)]
    pub search: SearchArg,
    /// With --discovery code: a script's wall time, its api calls included.
    #[arg(long = "code-timeout", value_name = "SECS", default_value_t = Seconds(Limits::default().wall))]
    pub code_timeout: Seconds,
    /// With --discovery code: a script's heap limit.
    #[arg(long = "code-memory", value_name = "SIZE", default_value_t = ByteSize(Limits::default().memory_bytes))]
    pub code_memory: ByteSize,
    /// With --discovery code: a script's stack limit (deep recursion ends there).
    #[arg(long = "code-stack", value_name = "SIZE", default_value_t = ByteSize(Limits::default().stack_bytes))]
    pub code_stack: ByteSize,
    /// With --discovery code: api calls per script.
    #[arg(long = "code-max-calls", value_name = "N", default_value_t = Limits::default().max_calls)]
    pub code_max_calls: usize,
    /// With --discovery code: api calls of one script in flight at once (more wait).
    #[arg(long = "code-max-concurrent-calls", value_name = "N", default_value_t = Limits::default().max_concurrent_calls,
        value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u32).range(1..), |n| n as usize))]
    pub code_max_concurrent_calls: usize,
    /// With --discovery code: bytes of a script's result (as JSON), and of its logs; more
    /// is cut with a note.
    #[arg(long = "code-max-output", value_name = "SIZE", default_value_t = ByteSize(Limits::default().max_output_bytes))]
    pub code_max_output: ByteSize,
    /// Serve Prometheus/OpenMetrics metrics at http://ADDR/metrics, on a listener of its
    /// own (keep it off the public network). The README lists every metric.
    #[arg(long, value_name = "ADDR", value_parser = parse_addr)]
    pub metrics: Option<SocketAddr>,
    /// Export traces over OTLP/HTTP (protobuf) to URL/v1/traces: a SERVER span per MCP
    /// request, a CLIENT span per upstream request (which carries `traceparent`).
    /// Without it, OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) turns traces on;
    /// OTEL_SERVICE_NAME names the service (default mcpdesc-serve).
    #[arg(long = "otlp-endpoint", value_name = "URL", value_parser = parse_otlp_endpoint)]
    pub otlp_endpoint: Option<String>,
    /// The log on standard error: `text` lines, or `json`: one object per line with
    /// timestamp, level and message (request lines add method, tool, status,
    /// duration_ms, trace_id).
    #[arg(long = "log-format", value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// With --http: on SIGTERM or SIGINT, /readyz turns 503, the listener closes and the
    /// requests in flight get this long to finish (then the process exits 0).
    #[arg(long = "drain-timeout", value_name = "SECS",
          default_value_t = Seconds(mcpdesc_serve::DEFAULT_DRAIN_TIMEOUT))]
    pub drain_timeout: Seconds,
    /// With --http: the environment variable holding the key (32 bytes, base64 or hex;
    /// several comma-separated: the first seals, all open) that seals session ids, so a
    /// session of MCP 2025-11-25 and older opened on one replica works on every replica
    /// sharing the key. Without it sessions live in this process's memory.
    #[arg(long = "session-key-env", value_name = "VAR", requires = "http")]
    pub session_key_env: Option<String>,
}

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

fn parse_otlp_endpoint(s: &str) -> Result<String, String> {
    match s.split_once("://") {
        Some((scheme, rest))
            if (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
                && !rest.is_empty()
                && !rest.contains(['?', '#']) =>
        {
            Ok(s.trim_end_matches('/').to_string())
        }
        _ => Err(format!(
            "`{s}` is not an http(s) URL of an OTLP/HTTP receiver (e.g. http://127.0.0.1:4318)"
        )),
    }
}

/// The process's telemetry, started once (a reload keeps it: the counters go on).
static TELEMETRY: std::sync::OnceLock<mcpdesc_serve::Telemetry> = std::sync::OnceLock::new();
/// `--log-format json`, once the server starts.
static JSON_LOG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Starts `--metrics` (its listener bound here: a taken port is a usage error) and
/// `--otlp-endpoint`, and sets the log format; later calls (reloads) keep the first.
fn start_telemetry(args: &Args) -> Result<(), UsageError> {
    JSON_LOG.store(
        args.log_format == LogFormat::Json,
        std::sync::atomic::Ordering::Relaxed,
    );
    if TELEMETRY.get().is_some() {
        return Ok(());
    }
    let t = mcpdesc_serve::Telemetry::start(&mcpdesc_serve::TelemetryOptions {
        metrics: args.metrics.is_some(),
        otlp_endpoint: args.otlp_endpoint.clone(),
    })
    .map_err(|e| UsageError(format!("--otlp-endpoint: {e}")))?;
    if let Some(addr) = args.metrics {
        let listener = std::net::TcpListener::bind(addr)
            .map_err(|e| UsageError(format!("--metrics {addr}: {e}")))?;
        let local = listener.local_addr().unwrap_or(addr);
        log().line(&format!("metrics at http://{local}/metrics"));
        t.serve_metrics(listener)
            .map_err(|e| UsageError(format!("--metrics {addr}: {e}")))?;
    }
    let _ = TELEMETRY.set(t);
    Ok(())
}

/// Exports the spans not yet sent (after the drain), and says how many were dropped
/// because the exporter fell behind.
fn stop_telemetry() {
    if let Some(t) = TELEMETRY.get() {
        let dropped = t.shutdown();
        if dropped > 0 {
            log().line(&format!(
                "{dropped} spans were dropped: the trace exporter's queue was full"
            ));
        }
    }
}

/// Whether `serve`'s errors are JSON log lines: `--log-format json` was given (on the
/// command line, or by the `--config` file once it is read).
pub fn json_errors() -> bool {
    JSON_LOG.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether the command line asks for `serve --log-format json` (read before clap has
/// parsed it, so that clap's own usage errors can be JSON lines too; the last
/// `--log-format` wins, as clap's does), or, with no `--log-format`, the `--config`
/// file does (`log-format: json`).
pub fn json_errors_requested() -> bool {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let Some(at) = words.iter().position(|w| w == "serve") else {
        return false;
    };
    let mut json = None;
    let mut file = None;
    let mut rest = words[at + 1..].iter();
    while let Some(w) = rest.next() {
        if w == "--" {
            break;
        }
        if w == "--log-format" {
            json = Some(rest.next().is_some_and(|v| v == "json"));
        } else if let Some(v) = w.strip_prefix("--log-format=") {
            json = Some(v == "json");
        } else if w == "--config" {
            file = rest.next().map(String::as_str);
        } else if let Some(v) = w.strip_prefix("--config=") {
            file = Some(v);
        }
    }
    json.unwrap_or_else(|| file.is_some_and(config::file_asks_json_log))
}

/// One usage error or start-up failure as a JSON log line (level `error`).
pub fn print_json_error(message: &str) {
    mcpdesc_serve::Log::Json.error(message.trim_end());
}

/// The server's log: text, or JSON lines with `--log-format json`.
fn log() -> mcpdesc_serve::Log {
    if JSON_LOG.load(std::sync::atomic::Ordering::Relaxed) {
        mcpdesc_serve::Log::Json
    } else {
        mcpdesc_serve::Log::Stderr
    }
}

/// [`util::print_diagnostics`], or one JSON log line per diagnostic with
/// `--log-format json`.
fn print_diagnostics(file: &str, diags: &[Diagnostic]) {
    if JSON_LOG.load(std::sync::atomic::Ordering::Relaxed) {
        let l = log();
        for d in diags {
            if d.is_error() {
                l.error(&d.render(file));
            } else {
                l.warn(&d.render(file));
            }
        }
    } else {
        util::print_diagnostics(file, diags);
    }
}

fn parse_addr(s: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    if let Some(port) = s.strip_prefix("localhost:")
        && let Ok(p) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], p)));
    }
    Err(format!(
        "`{s}` is not an address: use IP:PORT (127.0.0.1:8080, [::1]:8080) or localhost:PORT"
    ))
}

/// `--auth-list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthListArg {
    Permitted,
    All,
}

fn parse_public_url(s: &str) -> Result<String, String> {
    match s.split_once("://") {
        Some((scheme, rest))
            if (scheme == "http" || scheme == "https")
                && !rest.is_empty()
                && !rest.contains(['?', '#', ' ', '"']) =>
        {
            Ok(s.trim_end_matches('/').to_string())
        }
        _ => Err(format!(
            "`{s}` is not an http(s) URL without query or fragment"
        )),
    }
}

fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a positive whole number")),
    }
}

fn parse_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
        _ => Err(format!("`{s}`: expected KEY=VALUE")),
    }
}

fn parse_credential(s: &str) -> Result<(String, String), String> {
    let (scheme, var) = parse_pair(s).map_err(|_| format!("`{s}`: expected SCHEME=ENV_VAR"))?;
    if !is_env_name(&var) {
        return Err(format!("`{var}` is not an environment variable name"));
    }
    Ok((scheme, var))
}

/// `--forward-header NAME`: an end-to-end header name; the gateway's rule
/// ([`rest::HeaderRule`]) says which fields never pass, and this says why in words.
fn parse_header_name(s: &str) -> Result<String, String> {
    if !mcpdesc_core::http::is_token(s) {
        return Err(format!("`{s}` is not an HTTP header name (RFC 9110 token)"));
    }
    match rest::HeaderRule::of(s) {
        rest::HeaderRule::EndToEnd => Ok(s.to_string()),
        rest::HeaderRule::HopByHop => Err(format!(
            "`{s}` is a hop-by-hop header (RFC 9110 §7.6.1): it concerns one connection only and is never forwarded"
        )),
        rest::HeaderRule::GatewaySets => Err(format!(
            "`{s}` is set by the gateway's HTTP client on each upstream request (RFC 9110 §7.2, §8.6) and is never forwarded"
        )),
    }
}

/// The environment variable's value; unset or empty is a usage error.
fn env_secret(var: &str, flag: &str) -> Result<String, UsageError> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Ok(v),
        Ok(_) => Err(UsageError(format!(
            "{flag}: environment variable `{var}` is empty"
        ))),
        Err(_) => Err(UsageError(format!(
            "{flag}: environment variable `{var}` is not set"
        ))),
    }
}

/// Security scheme name → secret (`mcpdesc_rest::credentials_from_env`), its
/// errors phrased with this command's flags.
fn credentials(
    doc: &serde_json::Value,
    given: &[(String, String)],
) -> Result<std::collections::BTreeMap<String, Secret>, UsageError> {
    rest::credentials_from_env(doc, given, |var| std::env::var(var).ok()).map_err(|e| {
        UsageError(match e {
            CredentialError::Repeated { scheme } => {
                format!("--credential {scheme}=…: given twice (one per scheme)")
            }
            CredentialError::Unset { scheme, var } => {
                format!("--credential {scheme}={var}: environment variable `{var}` is not set")
            }
            CredentialError::Empty { scheme, var } => {
                format!("--credential {scheme}={var}: environment variable `{var}` is empty")
            }
        })
    })
}

pub fn run(args: Args) -> CmdResult {
    // Usage errors and start-up failures are JSON lines from here on (main prints them).
    JSON_LOG.store(
        args.log_format == LogFormat::Json,
        std::sync::atomic::Ordering::Relaxed,
    );
    if let Some(file) = &args.config {
        return config::run(file);
    }
    if args.descriptions.len() > 1 {
        return run_many(args);
    }
    let description = args.descriptions[0].clone();
    if description == "-" && args.http.is_none() {
        return Err(UsageError(
            "the description cannot come from standard input in stdio mode (stdin carries the MCP messages); pass a file".into(),
        ));
    }
    if !args.pins.is_empty() && args.discovery != DiscoveryArg::Search {
        return Err(UsageError(
            "--pin lists a tool beside the search facade: it needs --discovery search".into(),
        ));
    }
    if args.list_toolsets {
        let Some((decoded, name)) = util::read_description(&description)? else {
            return Ok(Outcome::Rejected);
        };
        selection(&args)?;
        return list_toolsets(&decoded.value, &name);
    }
    let prepared = match prepare_one(&args)? {
        Ok(p) => p,
        Err(outcome) => return Ok(outcome),
    };
    let mut lifecycle = lifecycle(&args)?;
    // SIGHUP re-reads the description (not standard input: it was read once).
    if args.http.is_some() && description != "-" {
        lifecycle = lifecycle.set_reload(args_reloader(args));
    }
    let served = prepared.serve_with(lifecycle);
    stop_telemetry();
    served.map(|()| Outcome::Success).map_err(usage)
}

/// The server of one description (`args.descriptions[0]`), or the outcome that refuses
/// it (its diagnostics printed); its warnings are printed.
fn prepare_one(args: &Args) -> Result<Result<mcpdesc_serve::Prepared, Outcome>, UsageError> {
    let Some((mut decoded, name)) = util::read_description(&args.descriptions[0])? else {
        return Ok(Err(Outcome::Rejected));
    };
    let selection = selection(args)?;
    // The server keeps the document (its views point into it): move it there, and keep
    // only what positions diagnostics until the server starts.
    let doc = Arc::new(std::mem::take(&mut decoded.value));
    let positions = decoded.source_map;
    check_token_exchange(args, &[&doc])?;
    let backend = if args.mock {
        BackendOptions::Mock(MockOptions {
            selections: args.mock_examples.iter().cloned().collect(),
        })
    } else {
        BackendOptions::Rest(rest_options(args, credentials(&doc, &args.credentials)?)?)
    };
    let transport = transport(args)?;
    start_telemetry(args)?;
    let opts = Options {
        serve: serve_options(args, selection),
        backend,
        transport,
    };
    let located = |mut diags: Vec<mcpdesc_core::Diagnostic>| {
        positions.annotate(&doc, &mut diags);
        diags
    };
    let prepared = match mcpdesc_serve::prepare(Arc::clone(&doc), opts) {
        Ok(p) => p,
        Err(e) => match refusal(e) {
            Ok(diags) => {
                print_diagnostics(&name, &located(diags));
                return Ok(Err(Outcome::Rejected));
            }
            Err(e) => return Err(e),
        },
    };
    print_diagnostics(&name, &located(prepared.warnings.clone()));
    Ok(Ok(prepared))
}

/// SIGHUP's reload without `--config`: the descriptions named on the command line are
/// read and validated again with the same flags, and the server they make is handed
/// over (the running one keeps serving when anything is wrong; the diagnostics are
/// printed). Credentials are read from the environment again.
fn args_reloader(args: Args) -> Arc<mcpdesc_serve::ReloadFn> {
    Arc::new(move || {
        let prepared = if args.descriptions.len() > 1 {
            prepare_apis(&args, many_apis(&args))
        } else {
            prepare_one(&args)
        };
        match prepared.map_err(|e| e.0)? {
            Ok(p) => Ok(mcpdesc_serve::Reloaded {
                server: p.into_parts().0,
                addr: args.http,
                restart_needed: Vec::new(),
                notes: Vec::new(),
            }),
            Err(_) => Err("a description was refused (its diagnostics are printed above)".into()),
        }
    })
}

/// `--drain-timeout` and `--session-key-env` (the reload hook is added by the caller).
fn lifecycle(args: &Args) -> Result<mcpdesc_serve::Lifecycle, UsageError> {
    let mut l = mcpdesc_serve::Lifecycle::with_signals().drain_timeout(args.drain_timeout.0);
    if let Some(var) = &args.session_key_env {
        let material = env_secret(var, "--session-key-env")?;
        let key = mcpdesc_serve::SessionKey::parse(&material)
            .map_err(|e| UsageError(format!("--session-key-env {var}: {e}")))?;
        l = l.session_key(key);
    }
    Ok(l)
}

/// Several descriptions as one server (`mcpdesc_serve::prepare_many`).
fn run_many(args: Args) -> CmdResult {
    let per_description = [
        (!args.credentials.is_empty(), "--credential"),
        (!args.headers.is_empty(), "--header"),
        (args.base_url.is_some(), "--base-url"),
        (!args.mock_examples.is_empty(), "--mock-example"),
        (args.list_toolsets, "--list-toolsets"),
        (!args.pins.is_empty(), "--pin"),
    ];
    if let Some((_, flag)) = per_description.iter().find(|(set, _)| *set) {
        return Err(UsageError(format!(
            "{flag} needs a single description (with several, each description's credentials come from MCPDESC_CREDENTIAL_<PREFIX>_<SCHEME>)"
        )));
    }
    if args.descriptions.iter().any(|d| d == "-") {
        return Err(UsageError(
            "with several descriptions, each must be a file (not standard input)".into(),
        ));
    }
    let apis = many_apis(&args);
    let reload = args_reloader(args.clone());
    serve_apis(&args, apis, Some(reload))
}

/// The descriptions of the command line, each with the command line's settings.
fn many_apis(args: &Args) -> Vec<ServeApi> {
    args.descriptions
        .iter()
        .map(|d| ServeApi {
            description: d.clone(),
            prefix: None,
            args: args.clone(),
        })
        .collect()
}

/// One description served beside others: its file, the prefix of its served names
/// (`None`: its `info.name`), and its own settings (backend, credentials, limits).
#[derive(Debug)]
struct ServeApi {
    description: String,
    prefix: Option<String>,
    args: Args,
}

/// Several descriptions as one server (`mcpdesc_serve::prepare_many`): `global` holds
/// the server-wide settings, each API its own. `reload` rebuilds it on SIGHUP.
fn serve_apis(
    args: &Args,
    apis: Vec<ServeApi>,
    reload: Option<Arc<mcpdesc_serve::ReloadFn>>,
) -> CmdResult {
    let prepared = match prepare_apis(args, apis)? {
        Ok(p) => p,
        Err(outcome) => return Ok(outcome),
    };
    let mut lifecycle = lifecycle(args)?;
    if let Some(r) = reload {
        lifecycle = lifecycle.set_reload(r);
    }
    let served = prepared.serve_with(lifecycle);
    stop_telemetry();
    served.map(|()| Outcome::Success).map_err(usage)
}

/// [`serve_apis`]'s server, or the outcome that refuses it (its diagnostics printed).
fn prepare_apis(
    args: &Args,
    apis: Vec<ServeApi>,
) -> Result<Result<mcpdesc_serve::Prepared, Outcome>, UsageError> {
    start_telemetry(args)?;
    let mut docs = Vec::new();
    for api in &apis {
        let Some((decoded, name)) = util::read_description(&api.description)? else {
            return Ok(Err(Outcome::Rejected));
        };
        docs.push((Arc::new(decoded.value), decoded.source_map, name));
    }
    let all: Vec<&serde_json::Value> = docs.iter().map(|(d, _, _)| &**d).collect();
    check_token_exchange(args, &all)?;
    let selection = selection(args)?;
    let mut members = Vec::new();
    for ((doc, _, name), api) in docs.iter().zip(apis) {
        let a = &api.args;
        let backend = if a.mock {
            BackendOptions::Mock(MockOptions {
                selections: a.mock_examples.iter().cloned().collect(),
            })
        } else {
            // `MCPDESC_CREDENTIAL_<SCHEME>` of this description is read as
            // `MCPDESC_CREDENTIAL_<PREFIX>_<SCHEME>`: a credential belongs to one
            // description's scheme. An explicit `credential` names its variable.
            let prefix = api
                .prefix
                .clone()
                .unwrap_or_else(|| mcpdesc_serve::compose::default_prefix(doc))
                .to_ascii_uppercase();
            let credentials = rest::credentials_from_env(doc, &a.credentials, |var| {
                let var = if a.credentials.iter().any(|(_, v)| v == var) {
                    var.to_string()
                } else {
                    var.replacen(
                        "MCPDESC_CREDENTIAL_",
                        &format!("MCPDESC_CREDENTIAL_{prefix}_"),
                        1,
                    )
                };
                std::env::var(var).ok().filter(|v| !v.is_empty())
            })
            .map_err(|e| UsageError(format!("{name}: {e}")))?;
            BackendOptions::Rest(rest_options(a, credentials)?)
        };
        members.push(mcpdesc_serve::Member {
            doc: Arc::clone(doc),
            prefix: api.prefix,
            backend,
        });
    }
    let transport = transport(args)?;
    let serve = serve_options(args, selection);
    let located = |m: usize, mut diags: Vec<Diagnostic>| {
        let (doc, positions, _) = &docs[m];
        positions.annotate(doc, &mut diags);
        diags
    };
    let prepared = match mcpdesc_serve::prepare_many(members, serve, transport) {
        Ok(p) => p,
        Err(StartError::Member { member, error }) => match refusal(*error) {
            Ok(diags) => {
                print_diagnostics(&docs[member].2, &located(member, diags));
                return Ok(Err(Outcome::Rejected));
            }
            Err(e) => return Err(UsageError(format!("{}: {}", docs[member].2, e.0))),
        },
        Err(StartError::Compose(ComposeError::ResourceOverlap {
            members: (a, b),
            first,
            second,
        })) => {
            return Err(UsageError(format!(
                "{}: resource `{first}` and {}: resource `{second}`: one resources/read could reach both, and a served URI has one owner (resources keep their URIs)",
                docs[a].2, docs[b].2
            )));
        }
        Err(e) => match refusal(e) {
            Ok(diags) => {
                print_diagnostics("(the descriptions together)", &diags);
                return Ok(Err(Outcome::Rejected));
            }
            Err(e) => return Err(e),
        },
    };
    for (m, w) in prepared.member_warnings.iter().enumerate() {
        print_diagnostics(&docs[m].2, &located(m, w.clone()));
    }
    drop(docs);
    Ok(Ok(prepared))
}

/// `--list-toolsets`: one line per toolset on stdout (name, tools, bytes, ~tokens,
/// description), after validating the description.
fn list_toolsets(doc: &serde_json::Value, name: &str) -> CmdResult {
    let valid = match mcpdesc_validate::Validator::new().check(doc) {
        Ok(valid) => valid,
        Err(diags) => {
            print_diagnostics(name, &diags);
            return Ok(Outcome::Rejected);
        }
    };
    let rows = mcpdesc_serve::toolset_table(&valid);
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let mut out = format!(
        "{:<width$}  {:>5}  {:>9}  {:>8}  description\n",
        "toolset", "tools", "bytes", "~tokens"
    );
    for r in &rows {
        out.push_str(&format!(
            "{:<width$}  {:>5}  {:>9}  {:>8}  {}\n",
            mcpdesc_core::diagnostic::inert(&r.name),
            r.tools,
            r.size.bytes,
            r.size.tokens,
            r.description
                .as_deref()
                .map(|d| mcpdesc_core::diagnostic::inert(d.lines().next().unwrap_or("")))
                .unwrap_or_default()
        ));
    }
    if rows.is_empty() {
        out.push_str("(no toolsets: the tools have no tags and no x-mcpdesc-toolsets)\n");
    }
    print!("{out}");
    Ok(Outcome::Success)
}

/// A start-up failure, phrased with this command's flags: the diagnostics that refuse
/// the description (exit 1), or a usage error (exit 2).
fn refusal(e: StartError) -> Result<Vec<Diagnostic>, UsageError> {
    match e {
        StartError::Rejected(diags) => Ok(diags),
        StartError::Gateway(g) => Ok(g
            .problems
            .into_iter()
            .map(|p| match p {
                Problem::Description(d) => d,
                Problem::Option(o) => Diagnostic::error(o.code(), option_message(&o)),
            })
            .collect()),
        StartError::Mock(errors) => Ok(errors
            .into_iter()
            .map(|e| {
                let d = Diagnostic::error(e.code(), format!("--mock-example {e}"));
                match e.pointer() {
                    Some(p) => d.at(p),
                    None => d,
                }
            })
            .collect()),
        other => Err(usage(other)),
    }
}

/// A gateway option error, said with the flag that set the value.
fn option_message(e: &OptionError) -> String {
    match e {
        OptionError::HeaderName { .. } | OptionError::HeaderHopByHop { .. } => {
            format!("--header {e}")
        }
        OptionError::HeaderValue { .. } => format!("--header {e}"),
        OptionError::BaseUrl { .. } => format!("--base-url {e}"),
        OptionError::AllowHost { .. } => format!("--allow-host {e}"),
        OptionError::Client(_) => e.to_string(),
    }
}

fn usage(e: StartError) -> UsageError {
    UsageError(match e {
        StartError::Toolsets(e) => format!("--toolsets: {e}"),
        StartError::Build(e @ BuildError::Revisions { .. }) => format!("--protocol-versions {e}"),
        StartError::Build(e @ (BuildError::PinUnknown(_) | BuildError::PinReserved(_))) => {
            format!("--pin {e}")
        }
        StartError::NoHttpRevision { .. } => {
            format!("--http: {e}; serve them over stdio (without --http)")
        }
        StartError::Exposure(x) => match x {
            ExposureError::TokenAndForwardedAuthorization => "--inbound-token-env and --forward-header Authorization both use the Authorization header: the inbound token would be sent upstream. Use one of them".to_string(),
            ExposureError::CredentialsBehindForwardedAuthorization { addr } => format!(
                "--http {addr} is not a loopback address: with --forward-header Authorization as its only gate the gateway must hold no credentials of its own (--credential, MCPDESC_CREDENTIAL_*, --header), or any caller could use them. Use --inbound-token-env VAR"
            ),
            ExposureError::AuthAndInboundToken | ExposureError::AuthAndForwardedAuthorization => {
                format!("--auth-issuer: {x}")
            }
            ExposureError::Ungated { addr } => format!(
                "--http {addr} is not a loopback address: pass --inbound-token-env VAR (clients must send that bearer token) or --forward-header Authorization (the upstream authenticates each caller)"
            ),
        },
        StartError::Bind { .. } => format!("--http {e}"),
        other => other.to_string(),
    })
}

/// `--discovery` with its settings (`--pin`, `--search`, `--code-*`). With several
/// descriptions `--pin` is refused before this is read, so its list is empty there.
fn discovery(args: &Args) -> Discovery {
    let lexical = args.search == SearchArg::Lexical;
    match args.discovery {
        DiscoveryArg::Direct => Discovery::Direct,
        DiscoveryArg::Search => Discovery::Search(SearchOptions {
            pins: args.pins.clone(),
            lexical,
        }),
        DiscoveryArg::Code => Discovery::Code(CodeOptions {
            limits: Limits {
                wall: args.code_timeout.0,
                memory_bytes: args.code_memory.0,
                stack_bytes: args.code_stack.0,
                max_calls: args.code_max_calls,
                max_concurrent_calls: args.code_max_concurrent_calls,
                max_output_bytes: args.code_max_output.0,
            },
            lexical,
            // This binary, re-executed as its hidden `__sandbox-worker`.
            ..CodeOptions::default()
        }),
    }
}

/// The REST gateway's settings from one description's flags (`--base-url`, `--header`,
/// `--allow-host`, `--timeout`, …) and its credentials.
fn rest_options(
    a: &Args,
    credentials: std::collections::BTreeMap<String, Secret>,
) -> Result<RestOptions, UsageError> {
    let mut static_headers = Vec::new();
    for h in &a.headers {
        static_headers.push((h.name.clone(), Secret::new(h.value().map_err(UsageError)?)));
    }
    Ok(RestOptions {
        base_url: a.base_url.clone(),
        credentials,
        static_headers,
        allow_hosts: a.allow_hosts.clone(),
        timeout: a.timeout.0,
        max_response_bytes: a.max_response_bytes,
        validate_output: a.validate_output.0,
        concurrency: Some(a.concurrency),
    })
}

/// `--http` (with `--inbound-token-env` and `--forward-header`), else stdio.
fn transport(args: &Args) -> Result<Transport, UsageError> {
    Ok(match args.http {
        None => Transport::Stdio,
        Some(addr) => Transport::Http {
            addr,
            opts: HttpOptions {
                inbound_token: match &args.inbound_token_env {
                    Some(var) => Some(env_secret(var, "--inbound-token-env")?),
                    None => None,
                },
                forward_headers: args.forward_headers.clone(),
                rate_limit: rate_limit(args),
                public_url: args.public_url.clone(),
                auth: auth_options(args)?.map(Arc::new),
            },
        },
    })
}

/// `--auth-issuer` with its `--auth-*` settings. Refused with the reason: another use of
/// the Authorization header beside it (--inbound-token-env, or --forward-header
/// Authorization, which would pass the caller's token upstream).
fn auth_options(args: &Args) -> Result<Option<mcpdesc_serve::AuthOptions>, UsageError> {
    let Some(issuer) = &args.auth_issuer else {
        return Ok(None);
    };
    if args.inbound_token_env.is_some() {
        return Err(UsageError(
            "--auth-issuer and --inbound-token-env both use the Authorization header: with OAuth every caller sends its own access token, so drop --inbound-token-env".into(),
        ));
    }
    if args
        .forward_headers
        .iter()
        .any(|h| h.eq_ignore_ascii_case("authorization"))
    {
        return Err(UsageError(
            "--auth-issuer with --forward-header Authorization would send the caller's access token upstream (token passthrough, which MCP forbids: a token issued for this server must not reach another API). Drop --forward-header Authorization".into(),
        ));
    }
    if !args.upstream_token_exchange.is_empty() && args.auth_client_credential.is_none() {
        return Err(UsageError(
            "--upstream-token-exchange needs --auth-client-credential: the gateway authenticates itself at the issuer's token endpoint to exchange each caller's token".into(),
        ));
    }
    let client_credential = match &args.auth_client_credential {
        None => None,
        Some(var) => {
            let v = env_secret(var, "--auth-client-credential")?;
            Some(mcpdesc_serve::ClientCredential::parse(&v).ok_or_else(|| {
                UsageError(format!(
                    "--auth-client-credential: environment variable `{var}` must hold client_id:client_secret"
                ))
            })?)
        }
    };
    Ok(Some(mcpdesc_serve::AuthOptions {
        issuer: issuer.clone(),
        audience: args.auth_audience.clone(),
        scopes: args.auth_scopes.clone(),
        list: match args.auth_list {
            AuthListArg::Permitted => mcpdesc_serve::ListMode::Permitted,
            AuthListArg::All => mcpdesc_serve::ListMode::All,
        },
        client_credential,
        token_exchange: args.upstream_token_exchange.clone(),
        tool_scopes: args
            .tool_scopes
            .iter()
            .map(|(g, s)| {
                (
                    g.clone(),
                    s.split(' ')
                        .filter(|x| !x.is_empty())
                        .map(String::from)
                        .collect(),
                )
            })
            .collect(),
    }))
}

/// `--upstream-token-exchange SCHEME`: a security scheme of one of `docs` (each
/// description that declares it) that can carry a bearer access token.
fn check_token_exchange(args: &Args, docs: &[&serde_json::Value]) -> Result<(), UsageError> {
    for scheme in &args.upstream_token_exchange {
        let mut declared = false;
        for doc in docs {
            declared |= rest::check_exchange_scheme(doc, scheme)
                .map_err(|why| UsageError(format!("--upstream-token-exchange {scheme}: {why}")))?;
        }
        if !declared {
            return Err(UsageError(format!(
                "--upstream-token-exchange {scheme}: the description declares no security scheme `{scheme}` (securitySchemes)"
            )));
        }
    }
    Ok(())
}

/// `--rate-limit` with its `--rate-limit-*` settings.
fn rate_limit(args: &Args) -> Option<Arc<mcpdesc_ratelimit::Limiter>> {
    let config = mcpdesc_ratelimit::Config {
        rate: args.rate_limit?,
        burst: args.rate_limit_burst,
        store: args.rate_limit_store.clone(),
        on_store_error: args.rate_limit_on_store_error,
    };
    Some(Arc::new(mcpdesc_ratelimit::Limiter::new(config)))
}

/// The server-wide settings: revisions, paging, host fitting, the selection and
/// `--discovery`.
fn serve_options(args: &Args, selection: mcpdesc_serve::Selection) -> ServeOptions {
    ServeOptions {
        revisions: args.protocol_versions,
        page_size: args.page_size,
        fit: (args.host.is_some() || args.budget.is_some()).then(|| Fit {
            host: args.host.map(|h| h.0),
            server_prefix: args.server_prefix.clone(),
            budget: args.budget,
        }),
        selection,
        discovery: discovery(args),
        log: log(),
        telemetry: TELEMETRY.get().cloned().unwrap_or_default(),
    }
}

/// `--toolsets`, `--tools`, `--exclude-tools` and `--read-only` as one selection.
fn selection(args: &Args) -> Result<mcpdesc_serve::Selection, UsageError> {
    mcpdesc_serve::Selection::new(
        &args.toolsets,
        &args.tools,
        &args.exclude_tools,
        args.read_only,
    )
    .map_err(|e| UsageError(format!("tool selection: {e}")))
}
