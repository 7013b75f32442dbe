//! What a selection serves, in numbers: the start-up lines (tools kept and dropped, and
//! the bytes and estimated tokens of each revision's `tools/list`) and the
//! `--list-toolsets` table.

use super::Server;
use mcpdesc_core::decl::{decl_scope, root_scope};
use mcpdesc_core::{DeclKind, ProtocolRevision};
use mcpdesc_hosts::Size;
use serde_json::{Value, json};

/// One served revision's numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionReport {
    pub revision: ProtocolRevision,
    /// Tools of the revision's view that the selection serves.
    pub kept: usize,
    /// Tools of the revision's view that it does not.
    pub dropped: usize,
    /// The `tools/list` a client gets (all pages together; with `--discovery search`,
    /// the facade's list).
    pub list: Size,
}

impl std::fmt::Display for RevisionReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MCP {}: {} tools served, {} not selected; tools/list {}",
            self.revision, self.kept, self.dropped, self.list
        )
    }
}

impl Server {
    /// Per served revision: tools kept and dropped, and the size of its `tools/list`.
    pub fn selection_report(&self) -> Vec<RevisionReport> {
        let doc = self.catalog.components();
        let root = root_scope(doc);
        let tools: Vec<&Value> = doc
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        self.catalog
            .views()
            .iter()
            .map(|view| {
                let rev = view.revision;
                let in_view = tools
                    .iter()
                    .filter(|t| decl_scope(t, root).contains(rev))
                    .count();
                let listed: Vec<Value> = match &self.facade {
                    Some(f) => match f.tools_list(&self.catalog, view).remove("tools") {
                        Some(Value::Array(t)) => t,
                        _ => Vec::new(),
                    },
                    None => (0..view.tools().len())
                        .filter_map(|i| self.catalog.listed_tool(view, i))
                        .collect(),
                };
                RevisionReport {
                    revision: rev,
                    kept: view.tools().len(),
                    dropped: in_view.saturating_sub(view.tools().len()),
                    list: Size::of(&json!({ "tools": listed })),
                }
            })
            .collect()
    }
}

/// One row of `mcpdesc serve --list-toolsets`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolsetRow {
    pub name: String,
    /// Tool declarations in the toolset (protocol-scoped variants count once each).
    pub tools: usize,
    /// The toolset's tools as listed at the description's newest revision.
    pub size: Size,
    /// The root tag's description, if any.
    pub description: Option<String>,
}

/// Every toolset of a validated description with its tool count and the size of its
/// tools' `tools/list` entries at the newest revision that lists each.
pub fn toolset_table(valid: &mcpdesc_validate::Validated<'_>) -> Vec<ToolsetRow> {
    let doc = valid.value();
    let root = root_scope(doc);
    let tools = doc.get("tools").and_then(Value::as_array);
    mcpdesc_catalog::toolsets(doc)
        .into_iter()
        .map(|(name, set)| {
            let mut listed = Vec::new();
            for &i in &set.tools {
                let Some(decl) = tools.and_then(|t| t.get(i)) else {
                    continue;
                };
                let Some(rev) = decl_scope(decl, root).latest() else {
                    continue;
                };
                let projected = mcpdesc_scope::project_declaration(DeclKind::Tool, decl, root, rev);
                if let Some(p) = projected
                    && let Ok(Some(v)) =
                        mcpdesc_scope::wire_value(DeclKind::Tool, doc, &p, &format!("/tools/{i}"))
                {
                    listed.push(v);
                }
            }
            ToolsetRow {
                name,
                tools: set.tools.len(),
                size: Size::of(&json!({ "tools": listed })),
                description: set.description,
            }
        })
        .collect()
}
