//! What an import is asked to do: [`ImportOptions`] (the CLI flags) and the compiled
//! operation filters.

use crate::ImportError;
use crate::site::OpSite;
use mcpdesc_core::{Limits, RevisionSet};
use serde_json::{Map, Value};
use std::time::Duration;

/// Options of an import (the CLI flags).
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Root `protocolVersions` (default: [`RevisionSet::import_default`]).
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
    /// Tool name limit, prefix included (default [`mcpdesc_names::DEFAULT_MAX_LEN`]).
    pub name_max: usize,
    /// Literal prefix of every tool name.
    pub name_prefix: String,
    /// Description budget in characters.
    pub description_max: Option<usize>,
    /// Fetch `http(s)` `$ref` targets (see the crate docs); off by default.
    pub allow_remote_refs: bool,
    /// Allow relative-file refs to leave the spec's folder (library only).
    pub allow_refs_outside_folder: bool,
    /// Decoding limits for the spec and referenced files.
    pub limits: Limits,
    /// Validate the result with `mcpdesc-validate` (default true).
    pub validate: bool,
    /// Called at the end of each [`Phase`] with its wall time (profiling: the bench
    /// crate's `profile` example prints them with the process's memory). `None`: no
    /// timing at all.
    pub on_phase: Option<fn(Phase, Duration)>,
    /// Count tools larger than this many bytes as a host receives them
    /// ([`mcpdesc_scope::wire_size`], the measure `lint` uses) in
    /// [`crate::ImportStats`]; the
    /// CLI passes `mcpdesc_hosts::DEFAULT_TOOL_BUDGET_BYTES`. `None`: not measured.
    pub tool_budget_bytes: Option<usize>,
    /// OpenAPI Overlays applied, in order, to the spec document before anything else
    /// reads it (`--overlay`; see [`crate::overlay`]).
    pub overlays: Vec<crate::Overlay>,
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
            on_phase: None,
            tool_budget_bytes: None,
            overlays: Vec::new(),
        }
    }
}

/// The stages of an import, in order (see [`ImportOptions::on_phase`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The spec's bytes decoded.
    Decode,
    /// Referenced documents loaded (the `$ref` policy applied).
    LoadRefs,
    /// Operations listed and filtered, tool names assigned.
    Names,
    /// Every tool converted, split, validated in parts and handed to the sink.
    Tools,
    /// The final cross-tool validation.
    Validate,
}

impl Phase {
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Decode => "decode",
            Phase::LoadRefs => "load refs",
            Phase::Names => "names",
            Phase::Tools => "tools",
            Phase::Validate => "validate",
        }
    }
}

/// The filter flags, compiled.
#[derive(Debug)]
pub(crate) struct Filters {
    include_tags: Vec<String>,
    exclude_tags: Vec<String>,
    include_paths: Option<globset::GlobSet>,
    exclude_paths: Option<globset::GlobSet>,
    methods: Vec<String>,
    operation_ids: Vec<String>,
}

impl Filters {
    pub(crate) fn new(opts: &ImportOptions) -> Result<Self, ImportError> {
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
            methods: opts.methods.clone(),
            operation_ids: opts.operation_ids.clone(),
        })
    }

    /// Why the operation is excluded, or None.
    pub(crate) fn exclusion(&self, s: &OpSite<'_>) -> Option<String> {
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
            return Some("no tag matches the included tags".into());
        }
        if let Some(t) = tags.iter().find(|t| self.exclude_tags.contains(t)) {
            return Some(format!("tag `{t}` is excluded"));
        }
        if let Some(g) = &self.include_paths {
            if !g.is_match(s.path) {
                return Some("the path matches none of the included paths".into());
            }
        }
        if let Some(g) = &self.exclude_paths {
            if g.is_match(s.path) {
                return Some("the path matches an excluded path".into());
            }
        }
        // Compared as written, case-insensitively: a `--method` that names no HTTP
        // method matches nothing (it is not a usage error).
        if !self.methods.is_empty()
            && !self
                .methods
                .iter()
                .any(|m| m.eq_ignore_ascii_case(s.method.as_str()))
        {
            return Some("the method is not one of the selected methods".into());
        }
        if !self.operation_ids.is_empty()
            && !s
                .operation_id()
                .is_some_and(|id| self.operation_ids.iter().any(|x| x == id))
        {
            return Some("the operationId is not one of the selected operation ids".into());
        }
        None
    }
}
