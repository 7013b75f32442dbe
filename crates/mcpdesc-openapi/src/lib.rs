//! # mcpdesc-openapi
//!
//! Imports an OpenAPI document (Swagger 2.0, OpenAPI 3.0, OpenAPI 3.1; JSON or YAML)
//! as an MCP Description 0.8.0 document with one tool per operation.
//!
//! ```no_run
//! use mcpdesc_openapi::{ImportOptions, import_path};
//! let out = import_path("petstore.yaml".as_ref(), &ImportOptions::default()).unwrap();
//! assert!(out.stats.conforming);
//! println!("{} tools", out.stats.tools);
//! ```
//!
//! ## Design
//!
//! **One walker over the JSON data model for all three flavors.** The spec is
//! decoded into a `serde_json::Value` (with a source map for line:column) and
//! walked directly; version differences are handled where they occur (parameter
//! shapes, bodies, responses, schema keywords). We deliberately do not parse into the
//! typed `openapiv3` model on the import path: it models 3.0 only (a 3.1 or 2.0
//! document would need a second and third route anyway), it rejects many documents
//! that are usable in practice (one malformed field fails the whole parse, where we
//! want a warning at that pointer and the other 1,000 operations), and it would
//! double the memory of large specs. `openapiv3` serves as an independent oracle in
//! the tests instead: on 3.0 documents, the operations it finds are the tools we emit.
//!
//! **Input decoding.** JSON through `mcpdesc_core::decode_bytes` (same limits,
//! positions). YAML through the core decoder too; but the restricted YAML profile
//! (§15.3) governs MCP Descriptions, not OpenAPI input, and real OpenAPI YAML uses
//! integer keys (`200:`), anchors/aliases and merge keys. On such a profile error the
//! importer falls back to `serde_yaml` (bounded alias expansion, then the same
//! limits), without positions, and says so in an `openapi-yaml-lenient` info.
//!
//! **References.** Local `#/…` refs and relative-file refs (resolved from the spec's
//! folder; absolute paths and `..` escapes are refused unless
//! [`ImportOptions::allow_refs_outside_folder`]; at most 256 files and the document
//! size limit in total) are loaded up front, so the parallel converters share an
//! immutable set of documents. Remote (`http:`, `https:`, any scheme) refs are never
//! fetched unless [`ImportOptions::allow_remote_refs`] (`--allow-remote-refs`) is set:
//! the `$ref` is preserved and a warning says the schema is not self-contained. With
//! the flag, `http(s)` documents are fetched once each (30 s timeout, sharing the
//! size limit of referenced files) and resolved like local files.
//!
//! **Schemas** (see [`schema`]): converted to JSON Schema 2020-12 per tool, with
//! only the used component schemas in local `$defs`; cycles remain `$ref`s.
//!
//! **Tools** (see [`op`] for inputs/outputs, [`variants`] for protocol variants,
//! [`security`] for schemes): names via `mcpdesc-names` from `x-mcp.name`,
//! operationId or method + path (disambiguation key: method + path); title from the
//! summary (else a readable form of the name); description summary + description
//! with an optional character budget; annotations from RFC 9110 method semantics
//! (GET/HEAD/OPTIONS/TRACE read-only and idempotent; PUT idempotent and destructive;
//! DELETE destructive and idempotent; PATCH destructive; POST none of these;
//! `openWorldHint` true), overridable per operation with `x-mcp.annotations`.
//!
//! **`x-mcp`** on an operation: `false` or `{exclude: true}` excludes it; an object
//! may set `name`, `title`, `description`, `annotations`. `x-mcp: false` on a Path
//! Item excludes its operations.
//!
//! **Provenance**: every tool carries `x-mcpdesc-openapi` with the method, path,
//! operationId, server URLs, request content type, chosen response (status, content
//! type, `resultWrapper` when the output was wrapped) and, per input property, its
//! location, original name and style/explode: enough to rebuild the HTTP request.
//! The root carries `x-mcpdesc-openapi` with the source version and servers.
//!
//! **Diagnostics**: every operation that is excluded (filter, `x-mcp`) or skipped is
//! a diagnostic at its pointer (`/paths/~1pets~1{petId}/get`) with line:column.
//! Nothing is dropped silently.
//!
//! **Conformance**: the document is checked with `mcpdesc-validate` before it is
//! returned; errors from that check are importer bugs and are reported as such.
//!
//! **Streaming and performance** (profiled with `perf` and `MCPDESC_OPENAPI_TIMINGS=1`,
//! which prints phase times and memory): JSON input is decoded with serde_json and
//! positions are computed lazily, only when a diagnostic needs one. Names and the tag
//! catalogue come from the operations before anything is converted, so the document
//! without its tools (the skeleton) is known up front. Then the operations are
//! converted, split into protocol-scoped variants and validated in parallel, each
//! on its own ([`mcpdesc_validate::ToolParts`], which gives exactly the whole-document
//! diagnostics), in an ordered pipeline (`ordered`): their tools go to the sink in
//! order and are dropped. The sink keeps them ([`import_path_value`]), writes them
//! as pretty JSON ([`import_path_json`], the CLI), or only counts them
//! ([`import_bytes_check`], corpus runs). Component schemas are converted once per
//! direction and shared ([`schema::DefCache`]). On the GitHub spec (13 MB, 1,223
//! operations, 24 MB of output) `mcpdesc import openapi` takes about 1.7x the time of
//! a plain serde_json read + parse + write of the input and 1.4x its peak memory
//! (PERFORMANCE.md). Output size is bounded: each tool's `$defs` gets a budget derived
//! from a document-wide budget (see `schema_budget`).

pub mod corpus;
mod diag;
pub mod op;
mod ordered;
mod pretty;
pub mod schema;
pub mod security;
pub mod spec;
pub mod variants;

use diag::Diags;
use mcpdesc_core::model::Document;
use mcpdesc_core::provenance::{self, RootProvenance, Server};
use mcpdesc_core::{Diagnostic, Format, Limits, RevisionSet, Severity, skeleton};
use op::OpSite;
use serde_json::{Map, Value, json};
use spec::{Spec, SpecVersion};
use std::path::Path;
use std::time::{Duration, Instant};

/// Options of an import (the CLI flags).
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Root `protocolVersions` (default 2025-06-18, 2025-11-25, 2026-07-28).
    pub protocol_versions: RevisionSet,
    /// Wrap every output schema as `{"result": …}`, also where a non-object root is valid.
    pub wrap_output: bool,
    /// Keep only operations with one of these tags (empty: no constraint).
    pub include_tags: Vec<String>,
    pub exclude_tags: Vec<String>,
    /// Path globs (`*` is one segment, `**` any number).
    pub include_paths: Vec<String>,
    pub exclude_paths: Vec<String>,
    /// HTTP methods, case-insensitive (empty: all).
    pub methods: Vec<String>,
    /// operationIds (empty: all).
    pub operation_ids: Vec<String>,
    /// Tool name limit, prefix included (default 64).
    pub name_max: usize,
    /// Literal prefix of every tool name.
    pub name_prefix: String,
    /// Description budget in characters.
    pub description_max: Option<usize>,
    /// Fetch `http(s)` `$ref` targets (see crate docs); off by default.
    pub allow_remote_refs: bool,
    /// Allow relative-file refs to leave the spec's folder (library only).
    pub allow_refs_outside_folder: bool,
    /// Decoding limits for the spec and referenced files.
    pub limits: Limits,
    /// Validate the result with `mcpdesc-validate` (default true).
    pub validate: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            protocol_versions: RevisionSet::import_default(),
            wrap_output: false,
            include_tags: Vec::new(),
            exclude_tags: Vec::new(),
            include_paths: Vec::new(),
            exclude_paths: Vec::new(),
            methods: Vec::new(),
            operation_ids: Vec::new(),
            name_max: mcpdesc_names::DEFAULT_MAX_LEN,
            name_prefix: String::new(),
            description_max: None,
            allow_remote_refs: false,
            allow_refs_outside_folder: false,
            limits: Limits::default(),
            validate: true,
        }
    }
}

/// Counts of an import.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ImportStats {
    /// OpenAPI flavor (`2.0`, `3.0`, `3.1`).
    pub openapi_version: String,
    /// Operations found under `paths`.
    pub operations: usize,
    /// Operations turned into tools.
    pub tools: usize,
    /// Tool objects written (variants count separately).
    pub tool_objects: usize,
    /// Operations excluded by filters or `x-mcp`.
    pub excluded: usize,
    /// Remote `$ref`s preserved.
    pub remote_refs: usize,
    /// The output passed the validator (no error diagnostics).
    pub conforming: bool,
    /// Wall time of the import.
    #[serde(skip)]
    pub elapsed: Duration,
}

/// The result of an import.
#[derive(Debug)]
pub struct ImportOutcome {
    pub document: Document,
    pub diagnostics: Vec<Diagnostic>,
    pub stats: ImportStats,
}

/// Why an import produced no document.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The spec file cannot be read.
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Invalid options (e.g. a bad glob or name prefix).
    #[error("{0}")]
    Options(String),
    /// Writing the output failed ([`import_path_json`]).
    #[error("writing the output: {0}")]
    Write(std::io::Error),
    /// The input is not a usable OpenAPI document.
    #[error("the input is not a usable OpenAPI document")]
    Unusable(Vec<Diagnostic>),
}

/// The result of an import as the JSON data model (see [`import_path_value`]).
#[derive(Debug)]
pub struct ImportValueOutcome {
    /// The MCP Description, keys in spec-table order.
    pub value: Value,
    pub diagnostics: Vec<Diagnostic>,
    pub stats: ImportStats,
}

impl ImportValueOutcome {
    /// The typed document.
    pub fn into_outcome(self) -> Result<ImportOutcome, ImportError> {
        let document = Document::from_value(self.value).map_err(ImportError::Unusable)?;
        Ok(ImportOutcome {
            document,
            diagnostics: self.diagnostics,
            stats: self.stats,
        })
    }
}

/// Imports the spec at `path` (relative refs are resolved from its folder).
pub fn import_path(path: &Path, opts: &ImportOptions) -> Result<ImportOutcome, ImportError> {
    import_path_value(path, opts)?.into_outcome()
}

/// Imports spec bytes. `path` (optional) selects the format by extension and is the
/// base for relative-file refs; without it, the format is sniffed and file refs are
/// unresolvable.
pub fn import_bytes(
    bytes: &[u8],
    path: Option<&Path>,
    opts: &ImportOptions,
) -> Result<ImportOutcome, ImportError> {
    import_bytes_value(bytes, path, opts)?.into_outcome()
}

/// [`import_path`] without building the typed [`Document`] (the JSON data model).
pub fn import_path_value(
    path: &Path,
    opts: &ImportOptions,
) -> Result<ImportValueOutcome, ImportError> {
    let mut sink = Sink::Values(Vec::new());
    let imported = import_impl(read(path)?, Some(path), opts, &mut sink);
    value_outcome(imported.map(|i| (i, sink)))
}

/// [`import_bytes`] without building the typed [`Document`].
pub fn import_bytes_value(
    bytes: &[u8],
    path: Option<&Path>,
    opts: &ImportOptions,
) -> Result<ImportValueOutcome, ImportError> {
    let mut sink = Sink::Values(Vec::new());
    let imported = import_impl(std::borrow::Cow::Borrowed(bytes), path, opts, &mut sink);
    value_outcome(imported.map(|i| (i, sink)))
}

/// The result of an import written as JSON (see [`import_path_json`]).
#[derive(Debug)]
pub struct ImportReport {
    pub diagnostics: Vec<Diagnostic>,
    pub stats: ImportStats,
}

/// Imports the spec at `path` and writes the description to `out` as pretty JSON
/// (two-space indent, final newline: the bytes of `serde_json::to_writer_pretty` of
/// [`import_path_value`]'s value, plus `\n`). The document is never held whole: tools
/// are converted and validated in parallel and written in order as they are ready
/// (a few dozen operations ahead at most), so memory stays near the size of the
/// decoded spec. The verdict comes after the bytes: when
/// `stats.conforming` is false, discard what was written (the CLI writes to a
/// temporary file and renames it only then). `out` should be buffered.
pub fn import_path_json(
    path: &Path,
    opts: &ImportOptions,
    out: &mut (dyn std::io::Write + Send),
) -> Result<ImportReport, ImportError> {
    import_impl(
        read(path)?,
        Some(path),
        opts,
        &mut Sink::Json(pretty::PrettyDoc::new(out)),
    )
    .map(ImportReport::from)
}

/// [`import_path_json`] from bytes (see [`import_bytes`] for `path`).
pub fn import_bytes_json(
    bytes: &[u8],
    path: Option<&Path>,
    opts: &ImportOptions,
    out: &mut (dyn std::io::Write + Send),
) -> Result<ImportReport, ImportError> {
    import_impl(
        std::borrow::Cow::Borrowed(bytes),
        path,
        opts,
        &mut Sink::Json(pretty::PrettyDoc::new(out)),
    )
    .map(ImportReport::from)
}

/// Imports and validates without keeping or writing the description: the diagnostics
/// and counts only (corpus runs).
pub fn import_bytes_check(
    bytes: &[u8],
    path: Option<&Path>,
    opts: &ImportOptions,
) -> Result<ImportReport, ImportError> {
    import_impl(
        std::borrow::Cow::Borrowed(bytes),
        path,
        opts,
        &mut Sink::Discard,
    )
    .map(ImportReport::from)
}

/// The spec's bytes, owned: they are freed right after decoding (13 MB for GitHub).
fn read(path: &Path) -> Result<std::borrow::Cow<'static, [u8]>, ImportError> {
    std::fs::read(path)
        .map(std::borrow::Cow::Owned)
        .map_err(|e| ImportError::Io {
            path: path.display().to_string(),
            source: e,
        })
}

/// The whole document: the skeleton with the tools the sink kept.
fn value_outcome(
    imported: Result<(Imported, Sink<'_>), ImportError>,
) -> Result<ImportValueOutcome, ImportError> {
    let (imported, sink) = imported?;
    let Sink::Values(tools) = sink else {
        unreachable!("a value import keeps its tools")
    };
    let mut doc = imported.skeleton;
    if let Some(slot) = doc.get_mut("tools") {
        *slot = Value::Array(tools);
    }
    Ok(ImportValueOutcome {
        value: Value::Object(doc),
        diagnostics: imported.diagnostics,
        stats: imported.stats,
    })
}

fn import_impl(
    bytes: std::borrow::Cow<'_, [u8]>,
    path: Option<&Path>,
    opts: &ImportOptions,
    sink: &mut Sink<'_>,
) -> Result<Imported, ImportError> {
    let start = Instant::now();
    let mut phases = Phases::new(start);
    let names_opts = mcpdesc_names::NameOptions::new(opts.name_max, &opts.name_prefix)
        .map_err(|e| ImportError::Options(e.to_string()))?;
    let filters = Filters::new(opts)?;
    if opts.protocol_versions.is_empty() {
        return Err(ImportError::Options(
            "at least one protocol version is required".into(),
        ));
    }
    let display = path
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "<input>".into());
    let text_head = std::str::from_utf8(&bytes[..bytes.len().min(64)]).unwrap_or("");
    let format = Format::detect(path.and_then(Path::to_str), text_head);
    let mut pre = Vec::new();
    let (root, sm) = spec::decode_openapi(&bytes, format, &opts.limits, &mut pre)
        .map_err(|d| ImportError::Unusable(vec![d]))?;
    drop(bytes);
    phases.mark("decode");
    let mut diags = Diags::default();
    for d in pre {
        diags.push(0, d);
    }
    let spec = match Spec::load(root, sm, path, &display, opts, &mut diags) {
        Ok(s) => s,
        Err(d) => return Err(ImportError::Unusable(vec![d])),
    };
    let mut stats = ImportStats {
        openapi_version: spec.version_string.clone(),
        ..Default::default()
    };

    phases.mark("load refs");
    // ---- operations and filters
    let sites = op::collect_ops(&spec, opts, &mut diags);
    stats.operations = sites.len();
    if sites.is_empty() {
        diags.warn(
            0,
            "openapi-no-operations",
            "the spec declares no operations; the description has no tools",
            "/paths",
        );
    }
    let mut kept: Vec<&OpSite<'_>> = Vec::with_capacity(sites.len());
    for s in &sites {
        match filters.exclusion(s) {
            Some(why) => {
                stats.excluded += 1;
                diags.info(
                    0,
                    "openapi-operation-excluded",
                    format!(
                        "{} {} excluded: {why}",
                        s.method.to_ascii_uppercase(),
                        s.path
                    ),
                    s.display_ptr.clone(),
                );
            }
            None => kept.push(s),
        }
    }

    // ---- shared context
    let root = &spec.docs[0].value;
    let root_servers = if spec.version == SpecVersion::Swagger2 {
        op::swagger_urls(root)
    } else {
        root.get("servers")
            .and_then(Value::as_array)
            .map(|s| op::server_urls(s))
            .unwrap_or_default()
    };
    let (schemes, scheme_names) = security::map_schemes(&spec, &root_servers, &mut diags);
    let list = |k: &str| -> Vec<String> {
        root.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let shared = op::Shared {
        root_servers: root_servers.clone(),
        schemes: scheme_names,
        consumes: list("consumes"),
        produces: list("produces"),
        defs: schema::DefCache::default(),
        schema_budget: schema_budget(kept.len()),
    };

    // ---- names (from the operations alone: nothing is converted yet)
    let raw: Vec<(String, String)> = kept.iter().map(|s| (s.raw_name(), s.key())).collect();
    let names = assign_names(&raw, &names_opts).map_err(|e| ImportError::Options(e.to_string()))?;
    phases.mark("names");

    // ---- the document without its tools
    let mut doc = skeleton::root(info(root, &mut diags), opts.protocol_versions);
    if let Some(s) = schemes {
        skeleton::set(&mut doc, "securitySchemes", Value::Object(s));
    }
    if let Some(sec) = root.get("security") {
        if let Some(v) =
            security::map_requirements(sec, &shared.schemes, 0, "/security", &mut diags)
        {
            skeleton::set(&mut doc, "security", v);
        }
    }
    // Every operation gives at least one tool object; the sink fills them in.
    if !kept.is_empty() {
        skeleton::set(&mut doc, "tools", Value::Array(Vec::new()));
    }
    if let Some(t) = tag_catalogue(root, &kept, &mut diags) {
        skeleton::set(&mut doc, "tags", t);
    }
    let src = RootProvenance {
        openapi: spec.version_string.clone(),
        servers: root_servers.iter().cloned().map(Server::Url).collect(),
        other: Map::new(),
    };
    skeleton::set(&mut doc, provenance::EXTENSION, src.to_value());
    stats.tools = kept.len();

    // ---- tools: converted, split and validated in parallel (`ordered`), handed to
    // the sink in order and dropped, so the output never exists whole (the GitHub
    // spec's tools are 24 MB of JSON; Microsoft Graph's 700 MB).
    let parts = if opts.validate && !kept.is_empty() {
        mcpdesc_validate::Validator::new().tool_parts(Value::Object(doc.clone()))
    } else {
        None
    };
    let mut reports = Vec::with_capacity(kept.len());
    let kind = sink.kind();
    sink.head(&doc)?;
    let convert = |i: usize| -> Done {
        let mut d = Diags::default();
        let mut b = op::build(&spec, opts, &shared, kept[i], &mut d);
        if b.title.is_none() {
            b.title = Some(readable(&b.raw_name));
        }
        let remote_refs = b.remote_refs;
        let tools = variants::tool_values(b, &names[i], opts.protocol_versions, opts.wrap_output);
        let (report, tools) = match &parts {
            Some(p) => {
                let (r, t) = p.check(tools);
                (Some(r), t)
            }
            None => (None, tools),
        };
        (kind.prepare(tools), report, d, remote_refs)
    };
    let deliver = |(prepared, report, d, remote_refs): Done| -> Result<(), ImportError> {
        diags.extend(d);
        stats.remote_refs += remote_refs;
        stats.tool_objects += sink.accept(prepared)?;
        reports.extend(report);
        Ok(())
    };
    ordered::run(
        kept.len(),
        rayon::current_num_threads(),
        LOOKAHEAD,
        convert,
        deliver,
    )?;
    sink.tail(&doc)?;
    phases.mark("tools");

    // ---- validate
    let mut out_diags = diags.finish(Some(&spec));
    drop(spec);
    if opts.validate {
        let found = match parts {
            Some(p) => p.finish(reports),
            None => mcpdesc_validate::validate_value(&Value::Object(doc.clone())),
        };
        for mut d in found {
            if d.severity == Severity::Error {
                d.message = format!(
                    "importer produced a non-conforming description (a bug): {} (output pointer {})",
                    d.message, d.pointer
                );
                d.code = format!("output-{}", d.code);
                d.pointer = String::new();
                d.line = None;
                d.column = None;
            } else {
                d.message = format!("output: {}", d.message);
            }
            out_diags.push(d);
        }
    }
    stats.conforming = !out_diags.iter().any(Diagnostic::is_error);
    phases.mark("validate");
    stats.elapsed = start.elapsed();
    Ok(Imported {
        skeleton: doc,
        diagnostics: out_diags,
        stats,
    })
}

/// How far (in operations) conversion may run ahead of the sink: enough to keep the
/// cores busy past a slow operation, few enough that the pending tools stay small next
/// to the spec (Microsoft Graph's largest tools are megabytes each).
const LOOKAHEAD: usize = 32;

/// One converted operation: its tools for the sink, its part of the validation, its
/// import diagnostics and remote-ref count.
type Done = (Prepared, Option<mcpdesc_validate::PartReport>, Diags, usize);

impl From<Imported> for ImportReport {
    fn from(i: Imported) -> Self {
        ImportReport {
            diagnostics: i.diagnostics,
            stats: i.stats,
        }
    }
}

/// What an import produced besides its tools (which went to the sink).
struct Imported {
    /// The document without its tools (an empty `tools` array where they go).
    skeleton: Map<String, Value>,
    diagnostics: Vec<Diagnostic>,
    stats: ImportStats,
}

/// Where the tool objects of an import go.
enum Sink<'w> {
    /// Kept as values, for the whole document.
    Values(Vec<Value>),
    /// Written as pretty JSON, the skeleton around them.
    Json(pretty::PrettyDoc<'w>),
    /// Counted only (corpus runs: the verdict is what counts).
    Discard,
}

/// What a sink wants of the tools (shared with the parallel workers).
#[derive(Clone, Copy)]
enum SinkKind {
    Values,
    Json,
    Discard,
}

impl SinkKind {
    fn prepare(self, tools: Vec<Value>) -> Prepared {
        match self {
            SinkKind::Values => Prepared::Values(tools),
            SinkKind::Json => Prepared::Json(tools.iter().map(pretty::tool_fragment).collect()),
            SinkKind::Discard => Prepared::Count(tools.len()),
        }
    }
}

/// A tool object on its way to the sink (prepared in parallel).
enum Prepared {
    Values(Vec<Value>),
    Json(Vec<Vec<u8>>),
    Count(usize),
}

impl Sink<'_> {
    fn head(&mut self, skeleton: &Map<String, Value>) -> Result<(), ImportError> {
        match self {
            Sink::Json(w) => w.head(skeleton).map_err(write_error),
            _ => Ok(()),
        }
    }
    fn kind(&self) -> SinkKind {
        match self {
            Sink::Values(_) => SinkKind::Values,
            Sink::Json(_) => SinkKind::Json,
            Sink::Discard => SinkKind::Discard,
        }
    }
    /// Takes one operation's tools; returns how many tool objects they are.
    fn accept(&mut self, p: Prepared) -> Result<usize, ImportError> {
        match (self, p) {
            (Sink::Values(all), Prepared::Values(tools)) => {
                let n = tools.len();
                all.extend(tools);
                Ok(n)
            }
            (Sink::Json(w), Prepared::Json(fragments)) => {
                for f in &fragments {
                    w.tool(f).map_err(write_error)?;
                }
                Ok(fragments.len())
            }
            (_, Prepared::Count(n)) => Ok(n),
            _ => unreachable!("prepared by the same sink"),
        }
    }
    fn tail(&mut self, skeleton: &Map<String, Value>) -> Result<(), ImportError> {
        match self {
            Sink::Json(w) => w.tail(skeleton).map_err(write_error),
            _ => Ok(()),
        }
    }
}

fn write_error(e: std::io::Error) -> ImportError {
    ImportError::Write(e)
}

/// The `$defs` budget of one tool schema, in JSON values: the document as a whole
/// gets about 6 million (a few hundred MB in memory at most), shared evenly by the
/// operations, each between 1,000 and 100,000. Deterministic (depends only on the
/// number of operations). Measured: the GitHub spec's largest closure is 4,309
/// values and its budget 4,905 (1,223 operations), so it is not affected; Microsoft
/// Graph (≈ 4,000 operations, every entity reaching every other) is bounded.
fn schema_budget(operations: usize) -> usize {
    (6_000_000 / operations.max(1)).clamp(1_000, 100_000)
}

/// Phase timings on stderr when `MCPDESC_OPENAPI_TIMINGS` is set (profiling aid).
struct Phases {
    on: bool,
    last: Instant,
}

impl Phases {
    fn new(start: Instant) -> Self {
        Phases {
            on: std::env::var_os("MCPDESC_OPENAPI_TIMINGS").is_some(),
            last: start,
        }
    }
    fn mark(&mut self, what: &str) {
        if self.on {
            let now = Instant::now();
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let mem = |k: &str| {
                status
                    .lines()
                    .find(|l| l.starts_with(k))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|n| n.parse::<u64>().ok())
                    .map_or(0, |kb| kb / 1024)
            };
            eprintln!(
                "mcpdesc-openapi: {what:<20} {:>8.1} ms  rss {:>4} MiB  peak {:>4} MiB",
                (now - self.last).as_secs_f64() * 1000.0,
                mem("VmRSS:"),
                mem("VmHWM:")
            );
            self.last = now;
        }
    }
}

fn assign_names(
    raw: &[(String, String)],
    opts: &mcpdesc_names::NameOptions,
) -> Result<Vec<String>, mcpdesc_names::NameError> {
    let mut alloc = mcpdesc_names::NameAllocator::new(opts.clone());
    for (name, key) in raw {
        alloc.request(name.as_str(), key.as_str());
    }
    let a = alloc.assign()?;
    Ok(raw
        .iter()
        .map(|(name, key)| a.get(name, key).unwrap_or_default().to_string())
        .collect())
}

/// `listPets` → `List pets`; `get /pets/{id}` → `Get pets id`.
fn readable(raw: &str) -> String {
    use heck::ToSnakeCase;
    let words = raw
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .to_snake_case()
        .replace('_', " ");
    let mut c = words.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => raw.to_string(),
    }
}

fn info(root: &Value, diags: &mut Diags) -> Value {
    let i = root.get("info");
    let s = |k: &str| {
        i.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let mut out = Map::new();
    let title = s("title");
    let slug: String = title
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    out.insert(
        "name".into(),
        json!(if slug.is_empty() {
            "openapi-server".to_string()
        } else {
            slug
        }),
    );
    let version = match i.and_then(|i| i.get("version")) {
        Some(Value::String(v)) if !v.trim().is_empty() => v.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => {
            diags.warn(
                0,
                "openapi-info-version",
                "`info.version` is missing or empty; using `0.0.0`",
                "/info",
            );
            "0.0.0".into()
        }
    };
    out.insert("version".into(), json!(version));
    if let Some(t) = title {
        out.insert("title".into(), json!(t));
    }
    if let Some(d) = s("description") {
        out.insert("description".into(), json!(d));
    }
    if let Some(Value::Object(c)) = i.and_then(|i| i.get("contact")) {
        let mut m = Map::new();
        if let Some(n) = c.get("name").and_then(Value::as_str) {
            m.insert("name".into(), json!(n));
        }
        if let Some(u) = c
            .get("url")
            .and_then(Value::as_str)
            .filter(|u| is_abs_url(u))
        {
            m.insert("url".into(), json!(u));
        }
        if let Some(e) = c
            .get("email")
            .and_then(Value::as_str)
            .filter(|e| looks_like_email(e))
        {
            m.insert("email".into(), json!(e));
        }
        if !m.is_empty() {
            out.insert("contact".into(), Value::Object(m));
        }
    }
    if let Some(Value::Object(l)) = i.and_then(|i| i.get("license")) {
        if let Some(n) = l
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty())
        {
            let mut m = Map::new();
            m.insert("name".into(), json!(n));
            if let Some(u) = l
                .get("url")
                .and_then(Value::as_str)
                .filter(|u| is_abs_url(u))
            {
                m.insert("url".into(), json!(u));
            }
            out.insert("license".into(), Value::Object(m));
        }
    }
    Value::Object(out)
}

/// An absolute http(s) URL that is also an RFC 3986 URI (the output's `format: uri`;
/// quotes or brackets in a URL made imports non-conforming: fuzzer finding).
fn is_abs_url(u: &str) -> bool {
    (u.starts_with("https://") || u.starts_with("http://"))
        && !u.contains(char::is_whitespace)
        && u.len() > 8
        && fluent_uri::Uri::parse(u).is_ok()
}

/// A plain `local@domain.tld` address (dot-atom local part, LDH domain labels): a
/// conservative subset of what the output's `format: email` accepts, so an address the
/// validator would reject (e.g. quotes in the domain: fuzzer finding) is dropped rather
/// than copied.
fn looks_like_email(e: &str) -> bool {
    let Some((local, domain)) = e.split_once('@') else {
        return false;
    };
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~-".contains(c);
    let local_ok = !local.is_empty()
        && local
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(atext));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    local_ok && domain_ok
}

/// Root tag catalogue: the spec's declared tags (first declaration wins), then tags
/// used by tools but not declared (a catalogue must declare every reference, §13.3).
fn tag_catalogue(root: &Value, ops: &[&OpSite<'_>], diags: &mut Diags) -> Option<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
    if let Some(Value::Array(tags)) = root.get("tags") {
        for (i, t) in tags.iter().enumerate() {
            let Some(name) = t
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
            else {
                continue;
            };
            if !names.insert(name.to_string()) {
                diags.warn(
                    0,
                    "openapi-duplicate-tag",
                    format!("tag `{name}` is declared twice; the first declaration is used"),
                    format!("/tags/{i}"),
                );
                continue;
            }
            let mut m = Map::new();
            m.insert("name".into(), json!(name));
            if let Some(d) = t.get("description").and_then(Value::as_str) {
                m.insert("description".into(), json!(d));
            }
            out.push(Value::Object(m));
        }
    }
    for op in ops {
        for t in op.tags() {
            if names.insert(t.clone()) {
                out.push(json!({ "name": t }));
            }
        }
    }
    (!out.is_empty()).then_some(Value::Array(out))
}

/// The filter flags, compiled.
#[derive(Debug)]
struct Filters {
    include_tags: Vec<String>,
    exclude_tags: Vec<String>,
    include_paths: Option<globset::GlobSet>,
    exclude_paths: Option<globset::GlobSet>,
    methods: Vec<String>,
    operation_ids: Vec<String>,
}

impl Filters {
    fn new(opts: &ImportOptions) -> Result<Self, ImportError> {
        let set = |globs: &[String]| -> Result<Option<globset::GlobSet>, ImportError> {
            if globs.is_empty() {
                return Ok(None);
            }
            let mut b = globset::GlobSetBuilder::new();
            for g in globs {
                let glob = globset::GlobBuilder::new(g)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| ImportError::Options(format!("invalid path glob `{g}`: {e}")))?;
                b.add(glob);
            }
            b.build()
                .map(Some)
                .map_err(|e| ImportError::Options(e.to_string()))
        };
        Ok(Filters {
            include_tags: opts.include_tags.clone(),
            exclude_tags: opts.exclude_tags.clone(),
            include_paths: set(&opts.include_paths)?,
            exclude_paths: set(&opts.exclude_paths)?,
            methods: opts
                .methods
                .iter()
                .map(|m| m.to_ascii_lowercase())
                .collect(),
            operation_ids: opts.operation_ids.clone(),
        })
    }

    /// Why the operation is excluded, or None.
    fn exclusion(&self, s: &OpSite<'_>) -> Option<String> {
        let x_mcp = |m: &Map<String, Value>| match m.get("x-mcp") {
            Some(Value::Bool(false)) => true,
            Some(Value::Object(o)) => o.get("exclude").and_then(Value::as_bool) == Some(true),
            _ => false,
        };
        if x_mcp(s.op) || x_mcp(s.item) {
            return Some("`x-mcp` excludes it".into());
        }
        let tags = s.tags();
        if !self.include_tags.is_empty() && !tags.iter().any(|t| self.include_tags.contains(t)) {
            return Some("no tag matches --include-tag".into());
        }
        if let Some(t) = tags.iter().find(|t| self.exclude_tags.contains(t)) {
            return Some(format!("tag `{t}` matches --exclude-tag"));
        }
        if let Some(g) = &self.include_paths {
            if !g.is_match(s.path) {
                return Some("the path matches no --include-path".into());
            }
        }
        if let Some(g) = &self.exclude_paths {
            if g.is_match(s.path) {
                return Some("the path matches --exclude-path".into());
            }
        }
        if !self.methods.is_empty() && !self.methods.iter().any(|m| m == s.method) {
            return Some("the method matches no --method".into());
        }
        if !self.operation_ids.is_empty()
            && !s
                .operation_id()
                .is_some_and(|id| self.operation_ids.iter().any(|x| x == id))
        {
            return Some("the operationId matches no --operation-id".into());
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_titles() {
        assert_eq!(readable("listPets"), "List pets");
        assert_eq!(readable("get /pets/{petId}"), "Get pets pet id");
    }

    #[test]
    fn emails_and_urls() {
        assert!(looks_like_email("a@b.io"));
        assert!(!looks_like_email("a@b"));
        assert!(is_abs_url("https://x.io"));
        assert!(!is_abs_url("www.x.io"));
    }
}
