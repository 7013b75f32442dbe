//! `mcpdesc import openapi`: a thin wrapper over `mcpdesc_openapi::import_path`.

use crate::util::{
    CmdResult, Outcome, UsageError, check_not_same_file, print_diagnostics, write_output,
};
use mcpdesc_core::{Format, ProtocolRevision, RevisionSet};
use mcpdesc_openapi::{ImportError, ImportOptions};
use std::path::{Path, PathBuf};

/// Import an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1; JSON or YAML) as an
/// MCP Description with one tool per operation.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes: 0 a conforming description was written (warnings printed); \
1 the input is unusable; 2 usage or I/O error.\n\n\
Example:\n  mcpdesc import openapi petstore.yaml -o petstore.mcpdesc.yaml --include-tag pets --name-prefix pets_"
)]
pub struct Args {
    /// The OpenAPI document (`-` for stdin; relative-file refs then cannot be resolved).
    pub spec: String,
    /// Output file; the format follows its extension (.json, .yaml, .yml). Default: JSON on stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// MCP protocol revisions of the description, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "2025-06-18,2025-11-25,2026-07-28"
    )]
    pub protocol_versions: Vec<String>,
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
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub name_max: usize,
    /// Literal prefix of every tool name (must match ^[a-z][a-z0-9_]*$; counted in --name-max).
    #[arg(long, default_value = "", value_name = "P")]
    pub name_prefix: String,
    /// Cut tool descriptions to N characters.
    #[arg(long, value_name = "N")]
    pub description_max: Option<usize>,
    /// Fetch remote (http/https) $refs (30 s timeout, size-limited). Without it remote
    /// refs are never fetched: they are kept as they are, with a warning.
    #[arg(long)]
    pub allow_remote_refs: bool,
}

pub fn run(args: Args) -> CmdResult {
    let mut versions = RevisionSet::EMPTY;
    for v in &args.protocol_versions {
        let r: ProtocolRevision = v
            .trim()
            .parse()
            .map_err(|e| UsageError(format!("--protocol-versions: {e}")))?;
        versions.insert(r);
    }
    let out_format = match &args.output {
        Some(p) if p.as_os_str() != "-" => match Format::from_path(&p.to_string_lossy()) {
            Some(f) => f,
            None => {
                return Err(UsageError(format!(
                    "{}: unknown output extension (use .json, .yaml or .yml)",
                    p.display()
                )));
            }
        },
        _ => Format::Json,
    };
    check_not_same_file(&args.spec, args.output.as_deref(), false)?;
    let opts = ImportOptions {
        protocol_versions: versions,
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
        ..ImportOptions::default()
    };
    let result = if args.spec == "-" {
        let (bytes, _) = crate::util::read_input("-")?;
        mcpdesc_openapi::import_bytes_value(&bytes, None, &opts)
    } else {
        mcpdesc_openapi::import_path_value(std::path::Path::new(&args.spec), &opts)
    };
    let outcome = match result {
        Ok(o) => o,
        Err(ImportError::Unusable(diags)) => {
            print_diagnostics(&args.spec, &diags);
            return Ok(Outcome::Rejected);
        }
        Err(ImportError::Io { path, source }) => {
            return Err(UsageError(format!("{path}: {source}")));
        }
        Err(e @ ImportError::Options(_)) => return Err(UsageError(e.to_string())),
    };
    print_diagnostics(&args.spec, &outcome.diagnostics);
    if !outcome.stats.conforming {
        eprintln!(
            "mcpdesc: error: the imported description does not conform; nothing was written (please report this importer bug)"
        );
        return Ok(Outcome::Rejected);
    }
    match out_format {
        // JSON streams straight from the data model into the (temporary, then renamed)
        // output: no 24 MB string for the GitHub spec, no typed copy of the document.
        Format::Json => write_json(args.output.as_deref(), &outcome.value)?,
        Format::Yaml => {
            let text = mcpdesc_core::emit::to_yaml(&outcome.value);
            drop(outcome);
            write_output(args.output.as_deref(), text.as_bytes())?;
        }
    }
    Ok(Outcome::Success)
}

/// Pretty JSON (two spaces, trailing newline, as `mcpdesc_core::emit::to_json`) to
/// OUTPUT atomically (a temporary file in its folder, then a rename), or to stdout.
fn write_json(output: Option<&Path>, value: &serde_json::Value) -> Result<(), UsageError> {
    use std::io::Write as _;
    let emit = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
        serde_json::to_writer_pretty(&mut w, value)?;
        w.write_all(b"\n")?;
        w.flush()
    };
    match output {
        Some(p) if p.as_os_str() != "-" => {
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => std::path::PathBuf::from("."),
            };
            let mut builder = tempfile::Builder::new();
            builder.prefix(".mcpdesc-").suffix(".tmp");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                builder.permissions(std::fs::Permissions::from_mode(0o666));
            }
            let mut tmp = builder.tempfile_in(&dir).map_err(|e| {
                UsageError(format!(
                    "{}: cannot create a temporary file: {e}",
                    dir.display()
                ))
            })?;
            emit(tmp.as_file_mut()).map_err(|e| UsageError(format!("{}: {e}", p.display())))?;
            tmp.persist(p)
                .map_err(|e| UsageError(format!("{}: {}", p.display(), e.error)))?;
            Ok(())
        }
        _ => {
            let mut out = std::io::stdout().lock();
            emit(&mut out)?;
            Ok(())
        }
    }
}
