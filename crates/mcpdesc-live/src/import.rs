//! `tools/list` dumps → one MCP Description.
//!
//! Pipeline: parse each dump ([`crate::dump`]) → decide its revision → one Effective
//! Protocol View per listing ([`crate::view`]) → same-revision listings must agree →
//! merge the views into one description (same-name tools equal across revisions
//! collapse into one declaration with the union scope; differing ones become disjoint
//! protocol-scoped variants) → validate.

use crate::dump::{Origin, ParsedDump, parse_dump};
use crate::view::{DropReason, ViewTool, build_view, first_difference, in_model_order};
use mcpdesc_core::{Diagnostic, Limits, ProtocolRevision, RevisionSet, skeleton};
use mcpdesc_validate::Validated;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Options of [`import_dumps`].
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Revision of dumps that do not say which revision was negotiated.
    pub protocol_version: Option<ProtocolRevision>,
    /// Server name when no dump carries `serverInfo`.
    pub server_name: Option<String>,
    /// Decoding limits for the dumps.
    pub limits: Limits,
}

/// Server version used when no dump carries `serverInfo` (Info `version` is required
/// and must be non-empty; a `server-version-unknown` warning says it was invented).
pub const FALLBACK_SERVER_VERSION: &str = "0.0.0";

/// A diagnostic and the input it is about (`None`: the import as a whole).
#[derive(Debug, Clone, PartialEq)]
pub struct FileDiagnostic {
    pub file: Option<String>,
    pub diagnostic: Diagnostic,
}

impl FileDiagnostic {
    fn of(file: &str, diagnostic: Diagnostic) -> Self {
        FileDiagnostic {
            file: Some(file.to_string()),
            diagnostic,
        }
    }
    fn global(diagnostic: Diagnostic) -> Self {
        FileDiagnostic {
            file: None,
            diagnostic,
        }
    }
    /// `FILE:LINE:COL: severity[code]: message (at POINTER)`.
    pub fn render(&self) -> String {
        self.diagnostic
            .render(self.file.as_deref().unwrap_or("mcpdesc"))
    }
}

/// Which revision an input was recorded under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRevision {
    pub file: String,
    pub revision: ProtocolRevision,
    /// True when the dump itself named the negotiated revision.
    pub negotiated: bool,
}

/// A successful import.
#[derive(Debug, Clone)]
pub struct ImportOutcome {
    /// The imported description, validated once (by the merge of the views), in the
    /// member order it is written in.
    pub description: Validated<'static>,
    /// Warnings and notes (never errors).
    pub diagnostics: Vec<FileDiagnostic>,
    pub inputs: Vec<InputRevision>,
}

struct Input<'a> {
    file: &'a str,
    parsed: ParsedDump,
    revision: ProtocolRevision,
}

/// Imports `tools/list` dumps (display name, bytes) as one description.
pub fn import_dumps(
    inputs: &[(String, Vec<u8>)],
    opts: &ImportOptions,
) -> Result<ImportOutcome, Vec<FileDiagnostic>> {
    let mut diags: Vec<FileDiagnostic> = Vec::new();
    let mut input_revs = Vec::new();
    if inputs.is_empty() {
        return Err(vec![FileDiagnostic::global(Diagnostic::error(
            "no-input",
            "no tools/list dump given",
        ))]);
    }
    let parsed_inputs = read_inputs(inputs, opts, &mut diags, &mut input_revs);
    if diags.iter().any(|d| d.diagnostic.is_error()) {
        return Err(diags);
    }

    // Views, one per listing; drops aggregated per (tool, field, reason).
    type DropKey = (String, String, DropReason);
    let mut drops: BTreeMap<DropKey, (RevisionSet, String, Origin)> = BTreeMap::new();
    let mut drop_order: Vec<DropKey> = Vec::new();
    let mut views: BTreeMap<ProtocolRevision, Vec<(&str, Vec<ViewTool>)>> = BTreeMap::new();
    for input in &parsed_inputs {
        for listing in &input.parsed.listings {
            let built = build_view(listing, input.revision);
            diags.extend(
                built
                    .errors
                    .into_iter()
                    .map(|d| FileDiagnostic::of(input.file, d)),
            );
            for d in built.dropped {
                let key = (d.tool.clone(), d.field.clone(), d.reason);
                let entry = drops.entry(key.clone()).or_insert_with(|| {
                    drop_order.push(key);
                    (RevisionSet::EMPTY, input.file.to_string(), d.origin.clone())
                });
                entry.0.insert(d.revision);
            }
            views
                .entry(input.revision)
                .or_default()
                .push((input.file, built.tools));
        }
        if input.parsed.listings.is_empty() {
            views
                .entry(input.revision)
                .or_default()
                .push((input.file, Vec::new()));
        }
    }
    for key in &drop_order {
        let Some((revs, file, origin)) = drops.get(key) else {
            continue;
        };
        let (tool, field, reason) = key;
        let msg = drop_message(tool, field, *reason, *revs);
        diags.push(FileDiagnostic::of(
            file,
            origin.apply(Diagnostic::warning(reason.code(), msg)),
        ));
    }

    // Listings of the same revision must agree.
    let mut merged_views: BTreeMap<ProtocolRevision, Vec<ViewTool>> = BTreeMap::new();
    for (rev, listings) in &views {
        let Some((ref_file, reference)) = listings.first() else {
            continue;
        };
        for (file, other) in listings.iter().skip(1) {
            compare_views(*rev, ref_file, reference, file, other, &mut diags);
        }
        merged_views.insert(*rev, reference.clone());
    }
    if diags.iter().any(|d| d.diagnostic.is_error()) {
        return Err(diags);
    }

    let info = server_info(&parsed_inputs, opts, &mut diags);
    if diags.iter().any(|d| d.diagnostic.is_error()) {
        return Err(diags);
    }
    let Some(info) = info else { return Err(diags) };

    // One single-revision view document per revision, merged by mcpdesc-scope (§4.13):
    // equal same-name tools collapse into one declaration with the union scope,
    // differing ones become disjoint protocol-scoped variants.
    let view_docs: Vec<(ProtocolRevision, Value)> = merged_views
        .iter()
        .map(|(rev, tools)| (*rev, view_document(&info, *rev, tools)))
        .collect();
    let merged = match mcpdesc_scope::merge_views(view_docs) {
        Ok(m) => m,
        Err(ds) => {
            let mut out = vec![FileDiagnostic::global(Diagnostic::error(
                "import-merge-failed",
                "merging the per-revision views failed (details follow); nothing was written",
            ))];
            out.extend(ds.into_iter().map(FileDiagnostic::global));
            return Err(out);
        }
    };
    diags.extend(host_safety(merged.value()));
    // The merge validated its result (once): its warnings are the import's.
    diags.extend(
        merged
            .diagnostics()
            .iter()
            .cloned()
            .map(FileDiagnostic::global),
    );
    Ok(ImportOutcome {
        description: merged,
        diagnostics: diags,
        inputs: input_revs,
    })
}

/// A `tool-name-not-host-safe` warning per tool name (first declaration) that hosts may
/// reject: names are kept as the server sends them.
fn host_safety(doc: &Value) -> Vec<FileDiagnostic> {
    let tools = doc
        .get("tools")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for (i, name) in tools
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((i, t.get("name")?.as_str()?)))
    {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if !host_safe(name) {
            out.push(FileDiagnostic::global(
                Diagnostic::warning(
                    "tool-name-not-host-safe",
                    format!("tool name `{name}` is kept as the server sends it, but it is not host-safe ([a-z][a-z0-9_]*, at most 64 bytes): some hosts reject it"),
                )
                .at(format!("/tools/{i}")),
            ));
        }
    }
    out
}

/// Parses each dump and settles its protocol revision (the dump's own, else the given
/// one); problems go to `diags` and the dump is left out.
fn read_inputs<'a>(
    inputs: &'a [(String, Vec<u8>)],
    opts: &ImportOptions,
    diags: &mut Vec<FileDiagnostic>,
    input_revs: &mut Vec<InputRevision>,
) -> Vec<Input<'a>> {
    let mut parsed_inputs = Vec::new();
    for (file, bytes) in inputs {
        let parsed = match parse_dump(bytes, &opts.limits) {
            Ok(p) => p,
            Err(ds) => {
                diags.extend(ds.into_iter().map(|d| FileDiagnostic::of(file, d)));
                continue;
            }
        };
        diags.extend(
            parsed
                .warnings
                .iter()
                .cloned()
                .map(|d| FileDiagnostic::of(file, d)),
        );
        let revision = match (&parsed.negotiated, opts.protocol_version) {
            (Some((s, origin)), flag) => match ProtocolRevision::parse(s) {
                Some(r) => {
                    if let Some(f) = flag.filter(|f| *f != r) {
                        diags.push(FileDiagnostic::of(
                            file,
                            origin.apply(Diagnostic::warning(
                                "protocol-version-flag-ignored",
                                format!("the dump negotiated {r}; the given protocol revision {f} applies only to dumps that do not say"),
                            )),
                        ));
                    }
                    input_revs.push(InputRevision {
                        file: file.clone(),
                        revision: r,
                        negotiated: true,
                    });
                    r
                }
                None => {
                    diags.push(FileDiagnostic::of(
                        file,
                        origin.apply(Diagnostic::error(
                            "unknown-protocol-revision",
                            format!("the session negotiated protocol revision `{s}`, which mcpdesc 0.8.0 does not cover"),
                        )),
                    ));
                    continue;
                }
            },
            (None, Some(r)) => {
                input_revs.push(InputRevision {
                    file: file.clone(),
                    revision: r,
                    negotiated: false,
                });
                r
            }
            (None, None) => {
                diags.push(FileDiagnostic::of(
                    file,
                    Diagnostic::error(
                        "protocol-version-required",
                        "the dump does not say which protocol revision was negotiated (no initialize result), and none was given",
                    ),
                ));
                continue;
            }
        };
        parsed_inputs.push(Input {
            file,
            parsed,
            revision,
        });
    }
    parsed_inputs
}

/// The warning text for a field dropped from the views of `revs`.
fn drop_message(tool: &str, field: &str, reason: DropReason, revs: RevisionSet) -> String {
    match reason {
        DropReason::NotInRevision | DropReason::DialectNotInRevision => format!(
            "tool `{tool}`: `{field}` is not defined in MCP {}; dropped from the view of {}",
            revs,
            if revs.len() == 1 {
                "that revision"
            } else {
                "those revisions"
            }
        ),
        DropReason::Unknown => format!(
            "tool `{tool}`: `{field}` is not a field of the MCP Tool type; dropped (seen at {})",
            revs
        ),
        DropReason::OutputSchemaRoot => format!(
            "tool `{tool}`: `outputSchema` has no object root, which MCP {} requires; dropped from the view of {}",
            revs,
            if revs.len() == 1 {
                "that revision"
            } else {
                "those revisions"
            }
        ),
    }
}

/// Host-safe: what `mcpdesc-names` accepts (`[a-z][a-z0-9_]*`, at most
/// [`mcpdesc_names::DEFAULT_MAX_LEN`] bytes, the longest name hosts are known to accept).
fn host_safe(name: &str) -> bool {
    mcpdesc_names::is_host_safe(name, mcpdesc_names::DEFAULT_MAX_LEN)
}

fn compare_views(
    rev: ProtocolRevision,
    file_a: &str,
    a: &[ViewTool],
    file_b: &str,
    b: &[ViewTool],
    diags: &mut Vec<FileDiagnostic>,
) {
    for ta in a {
        match b.iter().find(|tb| tb.name == ta.name) {
            None => diags.push(FileDiagnostic::of(
                file_a,
                ta.origin.apply(Diagnostic::error(
                    "dumps-disagree",
                    format!(
                        "at {rev}, tool `{}` is listed by {file_a} but not by {file_b}",
                        ta.name
                    ),
                )),
            )),
            Some(tb) => {
                let (va, vb) = (
                    Value::Object(ta.value.clone()),
                    Value::Object(tb.value.clone()),
                );
                if let Some(ptr) = first_difference(&va, &vb, "", 0) {
                    diags.push(FileDiagnostic::of(
                        file_b,
                        tb.origin
                            .apply(Diagnostic::error(
                                "dumps-disagree",
                                format!(
                                    "at {rev}, {file_a} and {file_b} disagree on tool `{}` at `{}`",
                                    ta.name,
                                    if ptr.is_empty() { "/" } else { &ptr }
                                ),
                            ))
                            .at(format!("{}{ptr}", tb.origin.pointer)),
                    ));
                }
            }
        }
    }
    for tb in b.iter().filter(|tb| !a.iter().any(|ta| ta.name == tb.name)) {
        diags.push(FileDiagnostic::of(
            file_b,
            tb.origin.apply(Diagnostic::error(
                "dumps-disagree",
                format!(
                    "at {rev}, tool `{}` is listed by {file_b} but not by {file_a}",
                    tb.name
                ),
            )),
        ));
    }
}

/// Info from `serverInfo` (first dump that has one; all must agree), else the flag.
fn server_info(
    inputs: &[Input<'_>],
    opts: &ImportOptions,
    diags: &mut Vec<FileDiagnostic>,
) -> Option<Map<String, Value>> {
    let mut chosen: Option<(Map<String, Value>, &str)> = None;
    for input in inputs {
        let Some((si, origin)) = &input.parsed.server_info else {
            continue;
        };
        let mut info = Map::new();
        let Some(obj) = si.as_object() else { continue };
        for (k, v) in obj {
            let ok = match k.as_str() {
                "name" | "version" | "title" | "description" | "websiteUrl" => {
                    v.as_str().is_some_and(|s| !s.is_empty())
                }
                "icons" => v.as_array().is_some_and(|a| !a.is_empty()),
                _ => false,
            };
            if ok {
                info.insert(k.clone(), v.clone());
            } else {
                diags.push(FileDiagnostic::of(
                    input.file,
                    origin.apply(Diagnostic::warning(
                        "server-info-field-dropped",
                        format!("serverInfo `{k}` has no place in the Info Object (or is empty); dropped"),
                    )),
                ));
            }
        }
        if !info.contains_key("name") {
            continue;
        }
        if !info.contains_key("version") {
            info.insert("version".into(), json!(FALLBACK_SERVER_VERSION));
        }
        match &chosen {
            None => chosen = Some((info, input.file)),
            Some((prev, prev_file)) => {
                if let Some(ptr) =
                    first_difference(&Value::Object(prev.clone()), &Value::Object(info), "", 0)
                {
                    diags.push(FileDiagnostic::of(
                        input.file,
                        origin.apply(Diagnostic::error(
                            "server-info-conflict",
                            format!("serverInfo differs from {prev_file} at `{ptr}`: these dumps are not of one server"),
                        )),
                    ));
                }
            }
        }
    }
    if let Some((info, _)) = chosen {
        return Some(in_model_order::<mcpdesc_core::model::Info>(info));
    }
    let Some(name) = opts.server_name.clone().filter(|n| !n.is_empty()) else {
        diags.push(FileDiagnostic::global(Diagnostic::error(
            "server-name-required",
            "no dump carries serverInfo, and no server name was given",
        )));
        return None;
    };
    diags.push(FileDiagnostic::global(Diagnostic::warning(
        "server-version-unknown",
        format!("no dump carries serverInfo: info.version is set to `{FALLBACK_SERVER_VERSION}`; edit it"),
    )));
    let mut info = Map::new();
    info.insert("name".into(), json!(name));
    info.insert("version".into(), json!(FALLBACK_SERVER_VERSION));
    Some(info)
}

/// The Effective Protocol View of one revision as a document.
fn view_document(info: &Map<String, Value>, rev: ProtocolRevision, tools: &[ViewTool]) -> Value {
    let mut doc = skeleton::root(Value::Object(info.clone()), RevisionSet::single(rev));
    if !tools.is_empty() {
        let tools = tools
            .iter()
            .map(|t| Value::Object(t.value.clone()))
            .collect();
        skeleton::set(&mut doc, "tools", Value::Array(tools));
    }
    Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(v: &Value) -> Vec<&str> {
        v.as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The handle is what is written: its members come in the spec tables' order
    /// (§3.2 root, §5 Info, §9.1 Tool, §9.5 Tool Annotations), written out here by hand,
    /// whatever order the server sent them in.
    #[test]
    fn the_description_is_built_in_the_spec_member_order_not_the_servers() {
        let transcript = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"title":"W","version":"1.0","name":"w"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"annotations":{"openWorldHint":false,"readOnlyHint":true},"inputSchema":{"type":"object"},"description":"d","title":"T","name":"t"}]}}"#,
            "\n",
        );
        let inputs = [("t.jsonl".to_string(), transcript.as_bytes().to_vec())];
        let out = import_dumps(&inputs, &ImportOptions::default()).expect("imports");
        let doc = out.description.value();
        assert_eq!(
            keys(doc),
            ["$schema", "mcpdesc", "info", "protocolVersions", "tools"]
        );
        assert_eq!(keys(&doc["info"]), ["name", "version", "title"]);
        let tool = &doc["tools"][0];
        assert_eq!(
            keys(tool),
            ["name", "title", "description", "inputSchema", "annotations"]
        );
        assert_eq!(
            keys(&tool["annotations"]),
            ["readOnlyHint", "openWorldHint"]
        );
    }
}
