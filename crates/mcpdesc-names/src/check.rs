//! Reporting why names are not host-safe, and fixing the tool names of a document.

use crate::alloc::NameAllocator;
use crate::normalize::{NameError, NameOptions};
use mcpdesc_core::{Diagnostic, RevisionSet, pointer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Tool-level extension that keeps the name a tool had before [`fix_tool_names`].
pub const ORIGINAL_NAME_EXTENSION: &str = "x-mcpdesc-original-name";

/// One reason a name is not host-safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameProblem {
    /// `""`.
    Empty,
    /// Contains `A`–`Z`.
    Uppercase,
    /// Does not start with `a`–`z` (digit, `_`, …).
    LeadingNonLetter(char),
    /// Characters outside `[A-Za-z0-9_]`, each listed once in order of appearance.
    InvalidCharacters(Vec<char>),
    /// Longer than the limit (characters, prefix included).
    TooLong { len: usize, max: usize },
    /// Does not start with the configured prefix.
    MissingPrefix { prefix: String },
}

impl NameProblem {
    /// Stable diagnostic code: `name-not-host-safe` (characters, case, first
    /// character, empty), `name-too-long` or `name-missing-prefix`.
    pub fn code(&self) -> &'static str {
        match self {
            NameProblem::TooLong { .. } => "name-too-long",
            NameProblem::MissingPrefix { .. } => "name-missing-prefix",
            _ => "name-not-host-safe",
        }
    }

    fn reason(&self) -> String {
        match self {
            NameProblem::Empty => "it is empty".into(),
            NameProblem::Uppercase => "it has uppercase letters".into(),
            NameProblem::LeadingNonLetter(c) => {
                format!("it starts with `{}`, not an ASCII letter", c.escape_debug())
            }
            NameProblem::InvalidCharacters(cs) => {
                let list: Vec<String> = cs
                    .iter()
                    .map(|c| format!("`{}`", c.escape_debug()))
                    .collect();
                format!("it contains {}", list.join(", "))
            }
            NameProblem::TooLong { len, max } => {
                format!("it has {len} characters, over the limit of {max}")
            }
            NameProblem::MissingPrefix { prefix } => {
                format!("it does not start with the prefix `{prefix}`")
            }
        }
    }
}

/// Every reason `name` is not host-safe under `opts` (empty when it is).
pub fn name_problems(name: &str, opts: &NameOptions) -> Vec<NameProblem> {
    let mut out = Vec::new();
    let Some(first) = name.chars().next() else {
        out.push(NameProblem::Empty);
        return out;
    };
    if !first.is_ascii_lowercase() && !first.is_ascii_uppercase() {
        out.push(NameProblem::LeadingNonLetter(first));
    }
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        out.push(NameProblem::Uppercase);
    }
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars() {
        if !(c.is_ascii_alphanumeric() || c == '_' || bad.contains(&c)) {
            bad.push(c);
        }
    }
    if !bad.is_empty() {
        out.push(NameProblem::InvalidCharacters(bad));
    }
    let len = name.chars().count();
    if len > opts.max_len() {
        out.push(NameProblem::TooLong {
            len,
            max: opts.max_len(),
        });
    }
    if !name.starts_with(opts.prefix()) {
        out.push(NameProblem::MissingPrefix {
            prefix: opts.prefix().into(),
        });
    }
    out
}

/// [`name_problems`] as diagnostics (errors) at `ptr`: one `name-not-host-safe` listing
/// every character-level reason, plus `name-too-long` / `name-missing-prefix`.
pub fn name_diagnostics(name: &str, opts: &NameOptions, ptr: &str) -> Vec<Diagnostic> {
    let problems = name_problems(name, opts);
    let mut out = Vec::new();
    let unsafe_reasons: Vec<String> = problems
        .iter()
        .filter(|p| p.code() == "name-not-host-safe")
        .map(NameProblem::reason)
        .collect();
    if !unsafe_reasons.is_empty() {
        out.push(
            Diagnostic::error(
                "name-not-host-safe",
                format!(
                    "tool name `{}` is not host-safe: {} (host-safe names match ^[a-z][a-z0-9_]*$)",
                    name.escape_debug(),
                    unsafe_reasons.join("; ")
                ),
            )
            .at(ptr),
        );
    }
    for p in problems.iter().filter(|p| p.code() != "name-not-host-safe") {
        out.push(
            Diagnostic::error(
                p.code(),
                format!("tool name `{}`: {}", name.escape_debug(), p.reason()),
            )
            .at(ptr),
        );
    }
    out
}

/// A tool of a document, as far as naming cares.
struct ToolEntry<'a> {
    index: usize,
    name: &'a str,
    scope: RevisionSet,
}

/// Reads the tool names and effective scopes; structural problems become diagnostics.
fn tool_entries(doc: &Value) -> (Vec<ToolEntry<'_>>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut entries = Vec::new();
    let Some(tools) = doc.get("tools") else {
        return (entries, diags);
    };
    let Some(tools) = tools.as_array() else {
        diags.push(Diagnostic::error("tools-not-array", "`tools` must be an array").at("/tools"));
        return (entries, diags);
    };
    // Root scope: the declared revisions, or all of them when the root declares none
    // usable (the validator reports that; here it only must not hide duplicates).
    let root = doc
        .get("protocolVersions")
        .map(RevisionSet::from_json)
        .filter(|s| !s.is_empty())
        .unwrap_or(RevisionSet::ALL);
    for (index, tool) in tools.iter().enumerate() {
        let tool_ptr = pointer::push("/tools", index.to_string());
        match tool.get("name").and_then(Value::as_str) {
            Some(name) => {
                let scope = RevisionSet::effective(tool.get("protocolVersions"), root);
                entries.push(ToolEntry { index, name, scope });
            }
            None => {
                let ptr = if tool.get("name").is_some() {
                    pointer::push(&tool_ptr, "name")
                } else {
                    tool_ptr
                };
                diags.push(Diagnostic::error("name-missing", "tool has no string `name`").at(ptr));
            }
        }
    }
    (entries, diags)
}

/// `name-duplicate` for every tool whose name is also used by an earlier tool with an
/// overlapping effective protocol scope (§9.5). Same-name tools with disjoint scopes
/// are protocol variants of one tool and are fine.
fn duplicate_diagnostics(entries: &[ToolEntry<'_>]) -> Vec<Diagnostic> {
    let mut by_name: BTreeMap<&str, Vec<&ToolEntry<'_>>> = BTreeMap::new();
    for e in entries {
        by_name.entry(e.name).or_default().push(e);
    }
    let mut out = Vec::new();
    for group in by_name.values() {
        for (j, later) in group.iter().enumerate() {
            if let Some(earlier) = group[..j]
                .iter()
                .find(|e| !e.scope.is_disjoint(later.scope))
            {
                out.push(
                    Diagnostic::error(
                        "name-duplicate",
                        format!(
                            "tool name `{}` is also declared at /tools/{} with an overlapping protocol scope",
                            later.name.escape_debug(),
                            earlier.index
                        ),
                    )
                    .at(format!("/tools/{}/name", later.index)),
                );
            }
        }
    }
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    out
}

/// Reports every tool name of a document (`serde_json` data model) that is not
/// host-safe under `opts`, plus overlapping duplicates. Pointers are `/tools/<i>/name`.
/// Diagnostics are ordered by tool index.
pub fn check_tool_names(doc: &Value, opts: &NameOptions) -> Vec<Diagnostic> {
    let (entries, mut diags) = tool_entries(doc);
    for e in &entries {
        diags.extend(name_diagnostics(
            e.name,
            opts,
            &format!("/tools/{}/name", e.index),
        ));
    }
    diags.extend(duplicate_diagnostics(&entries));
    diags.sort_by_key(|d| tool_index(&d.pointer));
    diags
}

fn tool_index(ptr: &str) -> usize {
    ptr.split('/')
        .nth(2)
        .and_then(|t| t.parse().ok())
        .unwrap_or(usize::MAX)
}

/// One renamed tool name (all protocol variants that shared it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    /// Indices into `tools` of every declaration that had the name.
    pub indices: Vec<usize>,
    pub from: String,
    pub to: String,
}

impl Rename {
    /// An info diagnostic describing the rename, at the first declaration.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let first = self.indices.first().copied().unwrap_or(0);
        Diagnostic::info(
            "name-renamed",
            format!(
                "renamed tool `{}` to `{}`",
                self.from.escape_debug(),
                self.to
            ),
        )
        .at(format!("/tools/{first}/name"))
    }
}

/// Rewrites every tool name that is not host-safe under `opts` (see the crate docs for
/// the scheme). Host-safe names are kept and reserved; the new names avoid them. All
/// declarations sharing a name (protocol variants) get the same new name. The old name
/// is stored in the tool-level `x-mcpdesc-original-name` extension, placed right after
/// `name`; an existing value there is kept (it is the older original).
///
/// Fails, leaving `doc` untouched, when names cannot be fixed mechanically: a tool
/// without a string name, or two same-name tools whose protocol scopes overlap (which
/// one would keep the name is a human decision). Errors are diagnostics.
pub fn fix_tool_names(doc: &mut Value, opts: &NameOptions) -> Result<Vec<Rename>, Vec<Diagnostic>> {
    let (entries, mut diags) = tool_entries(doc);
    diags.extend(duplicate_diagnostics(&entries));
    if !diags.is_empty() {
        return Err(diags);
    }
    let mut alloc = NameAllocator::new(opts.clone());
    let mut to_fix: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for e in &entries {
        if name_problems(e.name, opts).is_empty() {
            alloc.reserve(e.name);
        } else {
            // The key is the old name itself: in a description nothing else identifies
            // a tool, and variants share it, so they share the result.
            alloc.request(e.name, e.name);
            to_fix.entry(e.name.to_string()).or_default().push(e.index);
        }
    }
    let assignment = alloc
        .assign()
        .map_err(|e: NameError| vec![Diagnostic::error(e.code(), e.to_string())])?;
    let mut renames = Vec::new();
    for (from, indices) in to_fix {
        let Some(to) = assignment.get(&from, &from) else {
            continue;
        };
        renames.push(Rename {
            indices,
            from: from.clone(),
            to: to.to_string(),
        });
    }
    if let Some(tools) = doc.get_mut("tools").and_then(Value::as_array_mut) {
        for r in &renames {
            for &i in &r.indices {
                if let Some(Value::Object(tool)) = tools.get_mut(i) {
                    rename_tool(tool, &r.from, &r.to);
                }
            }
        }
    }
    renames.sort_by_key(|r| r.indices.first().copied());
    Ok(renames)
}

/// Sets `name`, inserting the extension right after it (serde_json maps keep
/// insertion order, so the object is rebuilt).
fn rename_tool(tool: &mut Map<String, Value>, from: &str, to: &str) {
    let keep_original = tool.contains_key(ORIGINAL_NAME_EXTENSION);
    let old = std::mem::take(tool);
    for (k, v) in old {
        if k == "name" {
            tool.insert(k, Value::String(to.into()));
            if !keep_original {
                tool.insert(ORIGINAL_NAME_EXTENSION.into(), Value::String(from.into()));
            }
        } else {
            tool.insert(k, v);
        }
    }
}
