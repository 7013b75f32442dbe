//! # mcpdesc-openapi
//!
//! Imports an OpenAPI document (Swagger 2.0, OpenAPI 3.0, OpenAPI 3.1; JSON or YAML)
//! as an MCP Description 0.8.0 document with one tool per operation.
//!
//! ```no_run
//! use mcpdesc_openapi::{ImportOptions, JsonSink, Source, ValueSink, import};
//! let opts = ImportOptions::default();
//! // Written as pretty JSON while the tools are converted:
//! let mut out = JsonSink::new(std::io::BufWriter::new(std::io::stdout()));
//! let report = import(Source::Path("petstore.yaml".as_ref()), &opts, &mut out).unwrap();
//! assert!(report.stats.conforming);
//! // Kept as a value:
//! let mut doc = ValueSink::new();
//! let report = import(Source::Path("petstore.yaml".as_ref()), &opts, &mut doc).unwrap();
//! println!("{} tools", report.stats.tools);
//! let value = doc.into_value().unwrap();
//! ```
//!
//! There is one entry point, [`import`]`(source, options, sink)`: the [`Source`] says
//! where the spec comes from, the [`Sink`] where the description goes ([`JsonSink`],
//! [`YamlSink`], [`ValueSink`], [`DiscardSink`], or your own).
//!
//! ## Layout
//!
//! An import (`import_impl` here) runs these steps, each in its own module:
//! decode, apply the OpenAPI Overlays of [`ImportOptions::overlays`] to the decoded
//! document ([`overlay`]), and load (`spec`: the document, the files and URLs its
//! `$ref`s name, under the `$ref` policy decided once), list and filter the operations
//! (`op::collect_ops`, `options`), name them (`naming`), build the root (`root`: info,
//! tags; `servers`; `security`), then per operation in parallel: input (`input`),
//! output (`output`), schemas (`schema`), provenance (`op`), protocol variants
//! (`variants`), validation in parts (`ordered` runs them), and the [`sink`] (`pretty`
//! is the JSON sink's formatter).
//! Diagnostics are collected per document (`diag`) and finished by the spec.
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
//! limits), without positions, and says so in an `openapi-yaml-lenient` info. Without
//! a file name the format is sniffed from the first bytes, cut at a character boundary.
//!
//! **References.** Local `#/…` refs and relative-file refs (resolved from the spec's
//! folder; absolute paths and `..` escapes are refused unless
//! [`ImportOptions::allow_refs_outside_folder`]; at most 256 files and the document
//! size limit in total) are loaded up front, so the parallel converters share an
//! immutable set of documents. Remote (`http:`, `https:`, any scheme) refs are never
//! fetched unless [`ImportOptions::allow_remote_refs`] (`--allow-remote-refs`) is set:
//! the `$ref` is preserved and a warning says the schema is not self-contained. With
//! the flag, `http(s)` documents are fetched once each (30 s timeout, sharing the
//! size limit of referenced files) and resolved like local files. The policy belongs to
//! the loaded spec: every reference's answer is decided while loading, and resolving a
//! `$ref` during conversion is a lookup (no options passed around, no file system).
//!
//! **Schemas** (`schema`): converted to JSON Schema 2020-12 per tool, with only the
//! used component schemas in local `$defs`; cycles remain `$ref`s.
//!
//! **Tools** (`op`, `input`, `output` for inputs/outputs, `variants` for protocol
//! variants, `security` for schemes): names via `mcpdesc-names` from `x-mcp.name`,
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
//! **Provenance**: every tool carries `x-mcpdesc-openapi`, written from the typed model
//! [`mcpdesc_core::provenance::ToolProvenance`] that `mcpdesc serve` reads back: the
//! method, path, operationId, servers (plain URLs, or templates with their variables),
//! request body (media type, shape, `required`, Encoding Objects), chosen response
//! (status, media type, `component`, `resultWrapper` when the output was wrapped) and,
//! per input property, its location, original name and serialization: enough to
//! rebuild the HTTP request. The root carries [`RootProvenance`] (source version and
//! servers).
//!
//! **Diagnostics**: every operation that is excluded (filter, `x-mcp`) or skipped is
//! a diagnostic at its pointer (`/paths/~1pets~1{petId}/get`) with line:column.
//! Nothing is dropped silently. The importer's codes:
//!
//! | code | severity | meaning |
//! |---|---|---|
//! | `openapi-not-an-object`, `openapi-not-openapi`, `openapi-version-unsupported` | error | the input is no usable OpenAPI document (with the decoder's own codes: `json-*`, `yaml-*`, `limit-*`, `invalid-utf8`) |
//! | `openapi-yaml-lenient` | info | YAML outside the restricted profile, read leniently |
//! | `openapi-version-newer` | warning | a 3.x minor version after 3.1, read as 3.1 |
//! | `openapi-ref-file`, `openapi-ref-limit`, `openapi-ref-remote-fetch` | warning | a referenced document could not be loaded |
//! | `openapi-remote-ref`, `openapi-unresolved-ref` | warning | a `$ref` kept as is, or replaced by `{}` |
//! | `openapi-paths-invalid`, `openapi-no-operations` | warning | no operations |
//! | `openapi-operation-skipped` | warning | an operation that cannot be read |
//! | `openapi-operation-excluded` | info | an operation excluded by a filter or `x-mcp` |
//! | `openapi-x-mcp-invalid` | warning | an `x-mcp.annotations` member of the wrong type, ignored |
//! | `openapi-parameter-skipped`, `openapi-parameter-untyped`, `openapi-parameter-style-unknown` | warning | parameters |
//! | `openapi-path-parameter-undeclared` | warning | a path-template variable without a parameter became a string input |
//! | `openapi-body-skipped`, `openapi-response-unresolved` | warning | bodies and responses |
//! | `openapi-schema-invalid`, `openapi-schema-keyword-dropped`, `openapi-schema-too-deep`, `openapi-schema-budget` | warning | schemas |
//! | `openapi-security-scheme-dropped`, `openapi-security-dropped` | warning | security |
//! | `openapi-security-scheme-renamed` | info | a scheme name made valid |
//! | `openapi-server-variable-dropped` | warning | a server variable without default or enum |
//! | `openapi-info-version`, `openapi-duplicate-tag` | warning | root |
//! | `openapi-overlay-positions` | info | diagnostics without line:column because overlays changed the spec where they point |
//!
//! Overlays have their own codes (`overlay-*`, listed in [`overlay`]); their diagnostics
//! point into the overlay file, so they are reported apart: errors as
//! [`ImportError::Overlay`], warnings in [`ImportStats::overlays`].
//!
//! **Conformance**: the document is checked with `mcpdesc-validate` before it is
//! returned. Those diagnostics keep the validator's codes (listed in its tables); their
//! messages start `output:`, and an error among them is an importer bug that says so.
//!
//! **Streaming and performance** (profiled with `perf` and [`ImportOptions::on_phase`],
//! which the bench crate's `profile` example uses to print phase times and memory):
//! JSON input is decoded with serde_json and positions are computed lazily, only when a
//! diagnostic needs one. Names and the tag catalogue come from the operations before
//! anything is converted, so the document without its tools (the skeleton) is known up
//! front. Then the operations are converted, split into protocol-scoped variants and
//! validated in parallel, each on its own ([`mcpdesc_validate::ToolParts`], which gives
//! exactly the whole-document diagnostics), in an ordered pipeline (`ordered`): their
//! tools go to the [`Sink`] in order and are dropped. The sink keeps them
//! ([`ValueSink`]), writes them as pretty JSON or YAML ([`JsonSink`], [`YamlSink`]: the
//! CLI, both streaming; each tool is serialized on the worker threads by
//! [`Sink::prepare`]), or drops them ([`DiscardSink`], corpus runs). Component schemas are
//! converted once per direction and shared (`schema::DefCache`). On the GitHub spec
//! (13 MB, 1,223 operations, 24 MB of output) `mcpdesc import openapi` takes about 1.7x
//! the time of a plain serde_json read + parse + write of the input and 1.4x its peak
//! memory (PERFORMANCE.md). Output size is bounded: each tool's `$defs` gets a budget
//! derived from a document-wide budget (see `schema_budget`).

mod diag;
mod input;
mod naming;
mod op;
mod options;
mod ordered;
mod output;
pub mod overlay;
mod pretty;
mod root;
mod schema;
mod security;
mod servers;
pub mod sink;
mod site;
mod spec;
mod split_parse;
mod variants;

#[cfg(test)]
mod tests_mutants;

pub use options::{ImportOptions, Phase};
pub use overlay::{Overlay, OverlayReport};
pub use sink::{DiscardSink, JsonSink, Sink, ValueSink, YamlSink};

use diag::Diags;
use mcpdesc_core::provenance::{self, RootProvenance};
use mcpdesc_core::{Diagnostic, Format, RevisionSet, Severity, skeleton};
use op::OpSite;
use options::Filters;
use serde_json::{Map, Value};
use spec::{RefPolicy, Spec};
use std::borrow::Cow;
use std::path::Path;
use std::time::{Duration, Instant};

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
    /// With [`ImportOptions::tool_budget_bytes`]: tool objects over the budget.
    pub tools_over_budget: usize,
    /// With [`ImportOptions::tool_budget_bytes`]: the largest tool object over the
    /// budget as a host receives it, bytes; 0 when none is over (tools that surely fit
    /// are not measured).
    pub largest_tool_bytes: usize,
    /// One report per applied overlay ([`ImportOptions::overlays`]), in order: its
    /// warnings are located in the overlay's file, so they are kept apart from
    /// `diagnostics` (which point into the spec).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overlays: Vec<OverlayReport>,
    /// Wall time of the import.
    #[serde(skip)]
    pub elapsed: Duration,
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
    /// The [`Sink`] failed (writing the output).
    #[error("writing the output: {0}")]
    Write(std::io::Error),
    /// The input is not a usable OpenAPI document.
    #[error("the input is not a usable OpenAPI document")]
    Unusable(Vec<Diagnostic>),
    /// An overlay cannot be applied to the spec: the diagnostics point into the overlay
    /// `file` (as given).
    #[error("{file}: the overlay cannot be applied")]
    Overlay {
        file: String,
        diagnostics: Vec<Diagnostic>,
    },
}

/// Where the OpenAPI document of an import comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A file: its extension selects the format (JSON or YAML; else sniffed) and its
    /// folder is the base of relative-file `$ref`s. Its bytes are freed right after
    /// decoding.
    Path(&'a Path),
    /// Bytes in memory. `path` (optional) selects the format by extension and is the
    /// base for relative-file refs; without it, the format is sniffed and file refs are
    /// unresolvable.
    Bytes {
        bytes: &'a [u8],
        path: Option<&'a Path>,
    },
}

impl<'a> Source<'a> {
    /// Bytes without a file name (format sniffed, no relative-file refs).
    pub fn bytes(bytes: &'a [u8]) -> Self {
        Source::Bytes { bytes, path: None }
    }
}

/// What an import reports besides the description (which went to the [`Sink`]).
#[derive(Debug)]
pub struct ImportReport {
    /// The import's diagnostics (pointing into the spec), then the output validation's.
    pub diagnostics: Vec<Diagnostic>,
    pub stats: ImportStats,
}

/// Imports the OpenAPI document of `source` into `sink`: the one entry point.
///
/// The description goes to the sink piece by piece (see [`sink`]): [`JsonSink`] writes
/// pretty JSON as the tools are ready, [`YamlSink`] block YAML, [`ValueSink`] keeps the
/// whole document, [`DiscardSink`] nothing. Tools are converted and validated in
/// parallel and handed over in order (a few dozen operations ahead at most), so with a
/// writing sink memory stays near the size of the decoded spec. The verdict comes
/// after the bytes: when `stats.conforming` is false, discard what the sink received.
pub fn import<S: Sink>(
    source: Source<'_>,
    opts: &ImportOptions,
    sink: &mut S,
) -> Result<ImportReport, ImportError> {
    let (bytes, path) = match source {
        Source::Path(path) => (read(path)?, Some(path)),
        Source::Bytes { bytes, path } => (Cow::Borrowed(bytes), path),
    };
    import_impl(bytes, path, opts, sink)
}

/// The spec's bytes, owned: they are freed right after decoding (13 MB for GitHub).
fn read(path: &Path) -> Result<Cow<'static, [u8]>, ImportError> {
    std::fs::read(path)
        .map(Cow::Owned)
        .map_err(|e| ImportError::Io {
            path: path.display().to_string(),
            source: e,
        })
}

/// The import: decode and load, select and name the operations, build the skeleton,
/// then convert, validate and deliver the tools (see the crate docs' layout).
fn import_impl<S: Sink>(
    bytes: Cow<'_, [u8]>,
    path: Option<&Path>,
    opts: &ImportOptions,
    sink: &mut S,
) -> Result<ImportReport, ImportError> {
    let start = Instant::now();
    let mut clock = Clock::new(opts.on_phase, start);
    let names_opts = mcpdesc_names::NameOptions::new(opts.name_max, &opts.name_prefix)
        .map_err(|e| ImportError::Options(e.to_string()))?;
    let filters = Filters::new(opts)?;
    if opts.protocol_versions.is_empty() {
        return Err(ImportError::Options(
            "at least one protocol version is required".into(),
        ));
    }
    if opts.validate {
        // The validator's schema is compiled once per process: on another core while
        // the spec is decoded, rather than after it.
        rayon::spawn(|| {
            let _ = mcpdesc_validate::Validator::new();
        });
    }
    let mut diags = Diags::default();
    let mut overlays = Vec::with_capacity(opts.overlays.len());
    let (spec, frees) = load(bytes, path, opts, &mut overlays, &mut diags, &mut clock)?;
    let mut stats = ImportStats {
        openapi_version: spec.version_string.clone(),
        overlays,
        ..Default::default()
    };

    let sites = op::collect_ops(&spec, &mut diags);
    stats.operations = sites.len();
    let kept = select(&sites, &filters, &mut stats, &mut diags);
    let (shared, schemes) = shared_context(&spec, kept.len(), &mut diags);
    let kept =
        security::unrepresentable_kept(kept, &spec.docs[0].value, &shared.schemes, &mut diags);
    let names =
        naming::assign(&kept, &names_opts).map_err(|e| ImportError::Options(e.to_string()))?;
    clock.mark(Phase::Names);

    let doc = document_skeleton(
        &spec,
        &shared,
        schemes,
        &kept,
        opts.protocol_versions,
        &opts.overlays,
        &mut diags,
    );
    stats.tools = kept.len();

    // Tools: converted, split and validated in parallel (`ordered`), handed to the sink
    // in order and dropped, so the output never exists whole (the GitHub spec's tools
    // are 24 MB of JSON; Microsoft Graph's 700 MB).
    let parts = if opts.validate && !kept.is_empty() {
        mcpdesc_validate::Validator::new().tool_parts(Value::Object(doc.clone()))
    } else {
        None
    };
    let job = ToolJob {
        spec: &spec,
        opts,
        shared: &shared,
        kept: &kept,
        names: &names,
        parts: parts.as_ref(),
    };
    let reports = job.run(&doc, sink, &mut diags, &mut stats)?;
    clock.mark(Phase::Tools);

    let mut out_diags = spec.finish_diagnostics(diags);
    if opts.validate {
        let found = match parts {
            Some(p) => finish_beside_drop(p, reports, spec, &frees),
            None => {
                free(spec, &frees);
                mcpdesc_validate::validate_value(&Value::Object(doc.clone()))
            }
        };
        out_diags.extend(found.into_iter().map(output_diagnostic));
    } else {
        free(spec, &frees);
    }
    stats.conforming = !out_diags.iter().any(Diagnostic::is_error);
    clock.mark(Phase::Validate);
    sink.end(doc).map_err(ImportError::Write)?;
    stats.elapsed = start.elapsed();
    Ok(ImportReport {
        diagnostics: out_diags,
        stats,
    })
}

/// The parts' diagnostics merged ([`mcpdesc_validate::ToolParts::finish`]) on a thread
/// of its own while this thread frees the spec, the last two serial steps of an import
/// (34 M and 23 M instructions on the GitHub spec). The spec is freed where it was
/// decoded ([`free`]): mimalloc frees another thread's memory about four times more
/// slowly (a `rayon::join`, whose two halves both run on the pool, made the free 98 M).
fn finish_beside_drop(
    parts: mcpdesc_validate::ToolParts,
    reports: Vec<mcpdesc_validate::PartReport>,
    spec: Spec,
    frees: &spec::Frees,
) -> Vec<Diagnostic> {
    std::thread::scope(|s| {
        let merged = s.spawn(|| parts.finish(reports));
        free(spec, frees);
        merged
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Drops the spec, the parts of its root that were decoded on the pool on the threads
/// that allocated them ([`spec::Frees`]), the rest here.
fn free(mut spec: Spec, frees: &spec::Frees) {
    let root = std::mem::take(&mut spec.docs[0].value);
    drop(spec);
    frees.free(root);
}

/// Decodes the spec's bytes (dropping them right after), applies the overlays to the
/// document and loads what it then references; with where the root's parts were
/// allocated.
fn load(
    bytes: Cow<'_, [u8]>,
    path: Option<&Path>,
    opts: &ImportOptions,
    reports: &mut Vec<OverlayReport>,
    diags: &mut Diags,
    clock: &mut Clock,
) -> Result<(Spec, spec::Frees), ImportError> {
    let display = path
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "<input>".into());
    let format = Format::detect(path.and_then(Path::to_str), spec::sniff_head(&bytes));
    let mut pre = Vec::new();
    let (mut root, sm, frees) = spec::decode_spec(&bytes, format, &opts.limits, &mut pre)
        .map_err(|d| ImportError::Unusable(vec![d]))?;
    drop(bytes);
    clock.mark(Phase::Decode);
    for d in pre {
        diags.push(0, d);
    }
    // Overlays change the document after its positions were taken: the source map
    // belongs to the value as decoded, kept for it (a JSON spec decoded without
    // positions is re-read from its file instead, when a diagnostic needs one).
    let decoded = (!opts.overlays.is_empty() && sm.is_some()).then(|| root.clone());
    for o in &opts.overlays {
        let report = o
            .apply(&mut root)
            .map_err(|diagnostics| ImportError::Overlay {
                file: o.file().to_string(),
                diagnostics,
            })?;
        reports.push(report);
    }
    let mut spec = Spec::load(root, sm, path, &display, RefPolicy::of(opts), diags)
        .map_err(|d| ImportError::Unusable(vec![d]))?;
    if !opts.overlays.is_empty() {
        spec.docs[0].overlaid = Some(decoded);
    }
    clock.mark(Phase::LoadRefs);
    Ok((spec, frees))
}

/// The operations the filters keep; each excluded one is an info at its pointer.
fn select<'s, 'a>(
    sites: &'s [OpSite<'a>],
    filters: &Filters,
    stats: &mut ImportStats,
    diags: &mut Diags,
) -> Vec<&'s OpSite<'a>> {
    if sites.is_empty() {
        diags.warn(
            0,
            "openapi-no-operations",
            "the spec declares no operations; the description has no tools",
            "/paths",
        );
    }
    let mut kept = Vec::with_capacity(sites.len());
    for s in sites {
        match filters.exclusion(s) {
            Some(why) => {
                stats.excluded += 1;
                diags.info(
                    0,
                    "openapi-operation-excluded",
                    format!("{} {} excluded: {why}", s.method, s.path),
                    s.display_ptr.clone(),
                );
            }
            None => kept.push(s),
        }
    }
    kept
}

/// What every operation shares, and the mapped `securitySchemes`.
fn shared_context(
    spec: &Spec,
    operations: usize,
    diags: &mut Diags,
) -> (op::Shared, Option<Map<String, Value>>) {
    let root = &spec.docs[0].value;
    let root_servers = servers::root(spec, diags);
    let (schemes, scheme_names) = security::map_schemes(spec, &root_servers, diags);
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
        root_servers,
        schemes: scheme_names,
        consumes: list("consumes"),
        produces: list("produces"),
        defs: schema::DefCache::default(),
        schema_budget: schema_budget(operations),
    };
    (shared, schemes)
}

/// The document without its tools: root members in spec order, an empty `tools`
/// array where the sink puts them, and the root provenance.
fn document_skeleton(
    spec: &Spec,
    shared: &op::Shared,
    schemes: Option<Map<String, Value>>,
    kept: &[&OpSite<'_>],
    revisions: RevisionSet,
    overlays: &[Overlay],
    diags: &mut Diags,
) -> Map<String, Value> {
    let root = &spec.docs[0].value;
    let mut doc = skeleton::root(root::info(root, diags), revisions);
    if let Some(s) = schemes {
        skeleton::set(&mut doc, "securitySchemes", Value::Object(s));
    }
    if let Some(sec) = root.get("security") {
        if let Some(v) = security::map_requirements(sec, &shared.schemes, 0, "/security", diags) {
            skeleton::set(&mut doc, "security", v);
        }
    }
    // Every operation gives at least one tool object; the sink fills them in.
    if !kept.is_empty() {
        skeleton::set(&mut doc, "tools", Value::Array(Vec::new()));
    }
    if let Some(t) = root::tag_catalogue(root, kept, diags) {
        skeleton::set(&mut doc, "tags", t);
    }
    let src = RootProvenance {
        openapi: spec.version_string.clone(),
        servers: shared.root_servers.clone(),
        overlays: overlays.iter().map(|o| o.record().clone()).collect(),
        other: Map::new(),
    };
    skeleton::set(&mut doc, provenance::EXTENSION, src.to_value());
    doc
}

/// A finding of the output validation. Its code stays the validator's (a listed
/// one); its message says it is about the output, and an error is an importer bug.
fn output_diagnostic(mut d: Diagnostic) -> Diagnostic {
    if d.severity == Severity::Error {
        d.message = format!(
            "output: importer produced a non-conforming description (a bug): {} (output pointer {})",
            d.message, d.pointer
        );
        d.pointer = String::new();
        d.line = None;
        d.column = None;
    } else {
        d.message = format!("output: {}", d.message);
    }
    d
}

/// How far (in operations) conversion may run ahead of the sink: enough to keep the
/// cores busy past a slow operation, few enough that the pending tools stay small next
/// to the spec (Microsoft Graph's largest tools are megabytes each).
const LOOKAHEAD: usize = 32;

/// One converted operation: its tools prepared for the sink and how many they are,
/// its part of the validation, its import diagnostics and remote-ref count.
type Done<P> = (
    P,
    usize,
    Option<mcpdesc_validate::PartReport>,
    Diags,
    usize,
    Option<ToolSizes>,
);

/// (tool objects over the budget, the largest of them or 0) of one operation.
type ToolSizes = (usize, usize);

/// The per-operation work of an import and what it shares.
struct ToolJob<'a, 's> {
    spec: &'a Spec,
    opts: &'a ImportOptions,
    shared: &'a op::Shared,
    kept: &'a [&'a OpSite<'s>],
    names: &'a [String],
    parts: Option<&'a mcpdesc_validate::ToolParts>,
}

impl ToolJob<'_, '_> {
    /// Converts, splits and validates operation `i` (on a worker thread).
    fn convert<S: Sink>(&self, i: usize) -> Done<S::Prepared> {
        let mut d = Diags::default();
        let mut b = op::build(self.spec, self.opts, self.shared, self.kept[i], &mut d);
        if b.title.is_none() {
            b.title = Some(naming::readable(&b.raw_name));
        }
        let remote_refs = b.remote_refs;
        let tools = variants::tool_values(
            b,
            &self.names[i],
            self.opts.protocol_versions,
            self.opts.wrap_output,
        );
        let (report, tools) = match self.parts {
            Some(p) => {
                let (r, t) = p.check(tools);
                (Some(r), t)
            }
            None => (None, tools),
        };
        let n = tools.len();
        let (prepared, sizes) = match self.opts.tool_budget_bytes {
            Some(budget) => {
                let (prepared, over) = S::prepare_measured(tools, budget, &wire_size);
                let sizes = (over.len(), over.into_iter().max().unwrap_or(0));
                (prepared, Some(sizes))
            }
            None => (S::prepare(tools), None),
        };
        (prepared, n, report, d, remote_refs, sizes)
    }

    /// Runs every operation through the ordered pipeline into `sink`, after giving it
    /// the skeleton; returns the validation parts' reports.
    fn run<S: Sink>(
        &self,
        skeleton: &Map<String, Value>,
        sink: &mut S,
        diags: &mut Diags,
        stats: &mut ImportStats,
    ) -> Result<Vec<mcpdesc_validate::PartReport>, ImportError> {
        let mut reports = Vec::with_capacity(self.kept.len());
        sink.begin(skeleton).map_err(ImportError::Write)?;
        let deliver = |(prepared, n, report, d, remote_refs, sizes): Done<S::Prepared>| -> Result<(), ImportError> {
            diags.extend(d);
            stats.remote_refs += remote_refs;
            if let Some((over, max)) = sizes {
                stats.tools_over_budget += over;
                stats.largest_tool_bytes = stats.largest_tool_bytes.max(max);
            }
            sink.tools(prepared).map_err(ImportError::Write)?;
            stats.tool_objects += n;
            reports.extend(report);
            Ok(())
        };
        ordered::run(
            self.kept.len(),
            rayon::current_num_threads(),
            LOOKAHEAD,
            |i| self.convert::<S>(i),
            deliver,
        )?;
        Ok(reports)
    }
}

/// A tool object's size as a host receives it (its wire form's compact JSON), as `lint`
/// measures it. The wire form is a subset of the tool's members (no view: nothing is
/// resolved into it), so this never exceeds the tool's own compact JSON length, as
/// [`Sink::prepare_measured`] requires.
fn wire_size(tool: &Value) -> usize {
    mcpdesc_scope::wire_size(mcpdesc_core::DeclKind::Tool, &Value::Null, tool)
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

/// Reports phase times to [`ImportOptions::on_phase`] (nothing is measured without it).
struct Clock {
    hook: Option<fn(Phase, Duration)>,
    last: Instant,
}

impl Clock {
    fn new(hook: Option<fn(Phase, Duration)>, start: Instant) -> Self {
        Clock { hook, last: start }
    }
    fn mark(&mut self, phase: Phase) {
        if let Some(hook) = self.hook {
            let now = Instant::now();
            hook(phase, now - self.last);
            self.last = now;
        }
    }
}
