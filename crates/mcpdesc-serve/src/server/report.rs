//! What a selection serves, in numbers: the start-up lines (tools kept and dropped, and
//! the bytes and estimated tokens of each revision's `tools/list`) and the
//! `--list-toolsets` table.

use super::Server;
use mcpdesc_core::decl::{decl_scope, root_scope};
use mcpdesc_core::{DeclKind, ProtocolRevision};
use mcpdesc_hosts::{ListSize, Size};
use mcpdesc_validate::Validated;
use serde_json::Value;
use std::borrow::Borrow;
use std::collections::HashSet;

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
        self.catalog
            .views()
            .iter()
            .map(|view| {
                let rev = view.revision;
                let in_view = mcpdesc_scope::tools_at(&self.source, rev).count();
                let list = match &self.facade {
                    Some(f) => {
                        let listed = f.tools_list(&self.catalog, view);
                        list_size(
                            listed
                                .get("tools")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten(),
                        )
                    }
                    None => list_size(self.catalog.served_tools(&self.source, view)),
                };
                RevisionReport {
                    revision: rev,
                    kept: view.tools().len(),
                    dropped: in_view.saturating_sub(view.tools().len()),
                    list,
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
pub fn toolset_table(valid: &Validated<'_>) -> Vec<ToolsetRow> {
    let doc = valid.value();
    let root = root_scope(doc);
    mcpdesc_catalog::toolsets(doc)
        .into_iter()
        .map(|(name, set)| {
            let members: HashSet<usize> = set.tools.iter().copied().collect();
            let members = &members;
            // Each tool in the tools/list of its newest revision (a list's size does
            // not depend on its order).
            let listed = root.iter().flat_map(|rev| {
                let newest_here = move |i: usize, decl: &Value| {
                    members.contains(&i) && decl_scope(decl, root).latest() == Some(rev)
                };
                mcpdesc_scope::export::wire_tools_kept(valid, rev, newest_here)
                    .filter_map(|w| w.wire.ok().flatten())
            });
            ToolsetRow {
                name,
                tools: set.tools.len(),
                size: list_size(listed),
                description: set.description,
            }
        })
        .collect()
}

/// The size of the `tools/list` result `{"tools":[…]}` of `tools`, summed tool by tool
/// ([`ListSize`]: each tool's compact JSON, the one measure; no list is built).
fn list_size<T: Borrow<Value>>(tools: impl IntoIterator<Item = T>) -> Size {
    let mut size = ListSize::new(DeclKind::Tool.collection());
    for t in tools {
        size.push(&t.borrow().to_string());
    }
    size.size()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MockBackend, MockOptions, ServeOptions};
    use mcpdesc_catalog::Selection;
    use serde_json::json;
    use std::sync::Arc;

    /// Two revisions; `one` in two scoped variants (toolset `a`), `two` in both
    /// (toolset `b`), `x-*` and `tags` on each, which the wire form does not carry.
    fn doc() -> Value {
        json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-06-18", "2025-11-25"],
        "tools": [
            {"name": "one", "protocolVersions": ["2025-06-18"], "description": "old",
                "inputSchema": {"type": "object"}, "tags": ["a"]},
            {"name": "one", "protocolVersions": ["2025-11-25"], "description": "new",
                "inputSchema": {"type": "object"}, "tags": ["a"], "x-y": 1},
            {"name": "two", "inputSchema": {"type": "object"}, "tags": ["b"]}
        ]})
    }

    /// The size of a `tools/list` result written out by hand.
    fn size_of(tools: Value) -> Size {
        Size::of(&json!({ "tools": tools }))
    }

    #[test]
    fn a_toolset_is_sized_as_its_tools_are_listed_at_their_newest_revision() {
        let d = doc();
        let valid = mcpdesc_validate::Validator::new().check(&d).expect("valid");
        let table = toolset_table(&valid);
        let row = |n: &str| table.iter().find(|r| r.name == n).expect("a row");
        assert_eq!(row("a").tools, 2);
        assert_eq!(
            row("a").size,
            size_of(json!([
                {"name": "one", "description": "old", "inputSchema": {"type": "object"}},
                {"name": "one", "description": "new", "inputSchema": {"type": "object"}}
            ]))
        );
        assert_eq!(
            row("b").size,
            size_of(json!([{"name": "two", "inputSchema": {"type": "object"}}]))
        );
    }

    #[test]
    fn the_selection_report_sizes_the_list_each_revision_serves() {
        let d = doc();
        let valid = mcpdesc_validate::Validator::new()
            .check_owned(d.clone())
            .expect("valid");
        let backend = Arc::new(MockBackend::new(&d, MockOptions::default()).expect("mock"));
        let opts = ServeOptions {
            selection: Selection::new(&["a".to_string()], &[], &[], false).expect("selection"),
            ..ServeOptions::default()
        };
        let server = Server::new(&valid, backend, &opts).expect("server");
        let report = server.selection_report();
        let old = json!({"name": "one", "description": "old", "inputSchema": {"type": "object"}});
        let new = json!({"name": "one", "description": "new", "inputSchema": {"type": "object"}});
        assert_eq!(
            report,
            [
                RevisionReport {
                    revision: ProtocolRevision::V2025_06_18,
                    kept: 1,
                    dropped: 1,
                    list: size_of(json!([old])),
                },
                RevisionReport {
                    revision: ProtocolRevision::V2025_11_25,
                    kept: 1,
                    dropped: 1,
                    list: size_of(json!([new])),
                }
            ]
        );
    }
}
