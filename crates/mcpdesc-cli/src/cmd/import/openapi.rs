//! `mcpdesc import openapi`: a thin wrapper over `mcpdesc_openapi::import` with the
//! JSON or YAML sink.

use crate::args::{Output, RevisionSetArg};
use crate::util::{
    AtomicOutput, CmdResult, Outcome, UsageError, check_not_same_file, print_diagnostics,
    write_output,
};
use mcpdesc_core::{Diagnostic, Format, RevisionSet};
use mcpdesc_openapi::{
    ImportError, ImportOptions, ImportReport, JsonSink, Overlay, Source, YamlSink,
};
use std::path::Path;

/// Import OpenAPI (Swagger 2.0, OpenAPI 3.0, 3.1) operations as tools.
///
/// The OpenAPI document, JSON or YAML, becomes an MCP Description with one tool per
/// operation.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes: 0 a conforming description was written (warnings printed); \
1 the input is unusable; 2 usage or I/O error.\n\n\
Example:\n  mcpdesc import openapi petstore.yaml -o petstore.mcpdesc.yaml --include-tag pets --name-prefix pets_"
)]
pub struct Args {
    /// The OpenAPI document (`-` for stdin; relative-file refs then cannot be resolved).
    pub spec: String,
    /// Output file, .json, .yaml or .yml: the extension gives the format (default:
    /// standard output, JSON). Written atomically.
    #[arg(short, long, value_hint = clap::ValueHint::FilePath)]
    pub output: Option<Output>,
    /// MCP protocol revisions of the description: `all`, or comma-separated. The default is
    /// every revision with complete semantic validation.
    #[arg(long, value_name = "all|V,V", default_value_t = RevisionSetArg(RevisionSet::import_default()))]
    pub protocol_versions: RevisionSetArg,
    /// Wrap every output schema as {"result": …}, also where a non-object root is valid (2026-07-28).
    #[arg(long)]
    pub wrap_output: bool,
    /// Keep only operations with this tag (repeatable).
    #[arg(long = "include-tag", value_name = "TAG")]
    pub include_tag: Vec<String>,
    /// Drop operations with this tag (repeatable).
    #[arg(long = "exclude-tag", value_name = "TAG")]
    pub exclude_tag: Vec<String>,
    /// Keep only paths matching this glob (`*` = one segment, `**` = any; repeatable).
    #[arg(long = "include-path", value_name = "GLOB")]
    pub include_path: Vec<String>,
    /// Drop paths matching this glob (repeatable).
    #[arg(long = "exclude-path", value_name = "GLOB")]
    pub exclude_path: Vec<String>,
    /// Keep only this HTTP method (repeatable, case-insensitive).
    #[arg(long, value_name = "M")]
    pub method: Vec<String>,
    /// Keep only this operationId (repeatable).
    #[arg(long = "operation-id", value_name = "ID")]
    pub operation_id: Vec<String>,
    /// Maximum tool name length, prefix included.
    #[arg(long, default_value_t = mcpdesc_names::DEFAULT_MAX_LEN, value_name = "N")]
    pub name_max: usize,
    /// Literal prefix of every tool name (must match `^[a-z][a-z0-9_]*$`; counted in --name-max).
    #[arg(long, default_value = "", value_name = "P")]
    pub name_prefix: String,
    /// Cut tool descriptions to N characters.
    #[arg(long, value_name = "N")]
    pub description_max: Option<usize>,
    /// Fetch remote (http/https) $refs (30 s timeout, size-limited). Without it remote
    /// refs are never fetched: they are kept as they are, with a warning.
    #[arg(long)]
    pub allow_remote_refs: bool,
    /// Apply this OpenAPI Overlay (1.0.0 or 1.1.0, JSON or YAML) to the spec before
    /// importing: rename, re-describe, tag, add `x-mcp` hints or remove operations without
    /// editing the spec. Repeatable; applied in the order given.
    #[arg(long = "overlay", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub overlay: Vec<String>,
}

pub fn run(args: Args) -> CmdResult {
    let output = args.output.unwrap_or(Output::Stdout);
    check_not_same_file(&args.spec, Some(&output), false)?;
    let Some(overlays) = read_overlays(&args.overlay)? else {
        return Ok(Outcome::Rejected);
    };
    let opts = ImportOptions {
        protocol_versions: args.protocol_versions.0,
        wrap_output: args.wrap_output,
        include_tags: args.include_tag,
        exclude_tags: args.exclude_tag,
        include_paths: args.include_path,
        exclude_paths: args.exclude_path,
        methods: args.method,
        operation_ids: args.operation_id,
        name_max: args.name_max,
        name_prefix: args.name_prefix,
        description_max: args.description_max,
        allow_remote_refs: args.allow_remote_refs,
        tool_budget_bytes: Some(mcpdesc_hosts::DEFAULT_TOOL_BUDGET_BYTES),
        overlays,
        ..ImportOptions::default()
    };
    let spec = args.spec.as_str();
    let stdin = if spec == "-" {
        Some(crate::util::read_input("-")?.0)
    } else {
        None
    };
    let source = match &stdin {
        Some(bytes) => Source::bytes(bytes),
        None => Source::Path(Path::new(spec)),
    };
    let format = output.format(Format::Json);
    // Both formats stream: tools are converted, validated and written as they are ready,
    // and the document never exists whole in memory. A file is written to a temporary
    // file that replaces OUTPUT only if the whole description conforms; standard output
    // gets nothing unless it conforms.
    match output.path() {
        Some(out) => {
            let mut file = AtomicOutput::create(out)?;
            let w = std::io::BufWriter::with_capacity(1 << 16, file.file());
            let report = import_as(format, source, &opts, w).map_err(|e| match e {
                ImportError::Write(source) => ImportError::Io {
                    path: out.display().to_string(),
                    source,
                },
                e => e,
            });
            if !verdict(spec, report.as_ref())? {
                return Ok(Outcome::Rejected);
            }
            file.commit()?;
        }
        None => {
            let mut text = Vec::new();
            let report = import_as(format, source, &opts, &mut text);
            if !verdict(spec, report.as_ref())? {
                return Ok(Outcome::Rejected);
            }
            write_output(None, &text)?;
        }
    }
    Ok(Outcome::Success)
}

/// Imports into the sink of `format` writing to `out` (flushed at the end).
fn import_as(
    format: Format,
    source: Source<'_>,
    opts: &ImportOptions,
    out: impl std::io::Write + Send,
) -> Result<ImportReport, ImportError> {
    match format {
        Format::Json => mcpdesc_openapi::import(source, opts, &mut JsonSink::new(out)),
        Format::Yaml => mcpdesc_openapi::import(source, opts, &mut YamlSink::new(out)),
    }
}

/// Reads and checks every `--overlay` file, printing each one's diagnostics under its
/// own name; None when one of them is unusable (nothing is imported).
fn read_overlays(files: &[String]) -> Result<Option<Vec<Overlay>>, UsageError> {
    let limits = ImportOptions::default().limits;
    let mut out = Vec::with_capacity(files.len());
    let mut usable = true;
    for file in files {
        let bytes = std::fs::read(file).map_err(|e| UsageError::at(file, e))?;
        match Overlay::from_bytes(file, &bytes, &limits) {
            Ok((overlay, warnings)) => {
                print_diagnostics(file, &warnings);
                out.push(overlay);
            }
            Err(errors) => {
                print_diagnostics(file, &errors);
                usable = false;
            }
        }
    }
    Ok(usable.then_some(out))
}

/// Prints the import's diagnostics; true when the description conforms and may be
/// written.
fn verdict(spec: &str, result: Result<&ImportReport, &ImportError>) -> Result<bool, UsageError> {
    let ImportReport { diagnostics, stats } = match result {
        Ok(r) => r,
        Err(ImportError::Unusable(diags)) => {
            print_diagnostics(spec, diags);
            return Ok(false);
        }
        Err(ImportError::Overlay { file, diagnostics }) => {
            print_diagnostics(file, diagnostics);
            return Ok(false);
        }
        Err(ImportError::Io { path, source }) => {
            return Err(UsageError(format!("{path}: {source}")));
        }
        Err(e @ (ImportError::Options(_) | ImportError::Write(_))) => {
            return Err(UsageError(e.to_string()));
        }
    };
    for o in &stats.overlays {
        print_diagnostics(&o.file, &o.diagnostics);
    }
    print_diagnostics(spec, diagnostics);
    if !stats.conforming {
        eprintln!(
            "mcpdesc: error: the imported description does not conform; nothing was written (please report this importer bug)"
        );
        return Ok(false);
    }
    if stats.tools_over_budget > 0 {
        // One summary line: the full picture is `lint`'s.
        let line = Diagnostic::warning(
            mcpdesc_lint::rules::TOOL_OVER_BUDGET,
            format!(
                "{} of {} tool objects exceed {} bytes as a host receives them (largest {} bytes); `mcpdesc lint --host H` reports sizes and tokens, `mcpdesc export tools-list --host H --budget BYTES` and `mcpdesc serve --host H --budget BYTES` prune them",
                stats.tools_over_budget,
                stats.tool_objects,
                mcpdesc_hosts::DEFAULT_TOOL_BUDGET_BYTES,
                stats.largest_tool_bytes
            ),
        );
        print_diagnostics(spec, &[line]);
    }
    Ok(true)
}
