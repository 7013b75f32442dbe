//! What lowering reads: the Effective Protocol Views (§4.12) of a description.

use mcpdesc_core::{Diagnostic, ProtocolRevision, RevisionSet};
use mcpdesc_scope::{decl_scope, root_scope};
use mcpdesc_validate::Validated;
use serde_json::Value;
use std::collections::HashMap;

/// A description's Effective Protocol Views: the view of the revision the types are
/// generated for (made by [`mcpdesc_scope::project()`] from the validator's handle) and, for every
/// revision the description declares, which of its tools apply there.
///
/// Pointers in the IR and in diagnostics are into the source document, not into the
/// view (a view drops tools, so its `/tools/N` differ): the CLI turns them into the
/// user's line:column.
#[derive(Debug, Clone)]
pub struct Views<'a> {
    source: &'a Value,
    target: ProtocolRevision,
    view: Value,
    /// Per declared revision, oldest first (the target included): the source indices
    /// of the tools of that revision's view, in document order.
    tools_at: Vec<(ProtocolRevision, Vec<usize>)>,
    /// The same, by revision and tool name (the first, in a document whose tool names
    /// are not unique per revision, which validation refuses).
    by_name: HashMap<(ProtocolRevision, &'a str), usize>,
}

impl<'a> Views<'a> {
    /// The views of a validated description for generating at `requested` (default:
    /// the newest revision in root `protocolVersions`). A requested revision the
    /// document does not declare is refused with the projection's diagnostic.
    ///
    /// Nothing is validated here: the source is the validator's handle, and its views
    /// are valid by construction ([`mcpdesc_scope::project()`]). The other revisions'
    /// tool lists are the projection's selection (§4.12 step 4,
    /// [`mcpdesc_scope::decl_scope`]) applied to the source; projection leaves a
    /// retained tool's schemas as they are (steps 5–7 touch only scopes and nested
    /// declarations), so reading them from the source reads the view's, without a copy
    /// of the document per revision.
    pub fn project(
        doc: &'a Validated<'_>,
        requested: Option<ProtocolRevision>,
    ) -> Result<Views<'a>, Vec<Diagnostic>> {
        let target = Self::target(doc.value(), requested);
        let view = mcpdesc_scope::project(doc, target).map_err(|d| vec![d])?;
        Ok(Self::new(doc.value(), target, view.into_value()))
    }

    /// The revision generation targets: `requested`, else the newest revision in root
    /// `protocolVersions` (else the newest known one, which a document declaring none
    /// cannot be projected to; its validation says why).
    pub fn target(doc: &Value, requested: Option<ProtocolRevision>) -> ProtocolRevision {
        requested
            .or_else(|| root_scope(doc).latest())
            .unwrap_or(ProtocolRevision::LATEST)
    }

    fn new(source: &'a Value, target: ProtocolRevision, view: Value) -> Views<'a> {
        let root = root_scope(source);
        let tools: &[Value] = source
            .get("tools")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let tools_at: Vec<(ProtocolRevision, Vec<usize>)> = root
            .iter()
            .map(|rev| {
                let at = tools
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| decl_scope(t, root).contains(rev))
                    .map(|(i, _)| i)
                    .collect();
                (rev, at)
            })
            .collect();
        let mut by_name = HashMap::new();
        for (rev, at) in &tools_at {
            for &i in at {
                if let Some(name) = tools.get(i).and_then(|t: &Value| t.get("name")?.as_str()) {
                    by_name.entry((*rev, name)).or_insert(i);
                }
            }
        }
        Views {
            source,
            target,
            view,
            tools_at,
            by_name,
        }
    }

    /// The description as given.
    pub fn source(&self) -> &'a Value {
        self.source
    }

    /// The revision the types are generated for.
    pub fn target_revision(&self) -> ProtocolRevision {
        self.target
    }

    /// The target revision's Effective Protocol View.
    pub fn view(&self) -> &Value {
        &self.view
    }

    /// Every revision the description declares.
    pub fn revisions(&self) -> RevisionSet {
        self.tools_at.iter().map(|(r, _)| *r).collect()
    }

    /// The tools of the view with their source pointers (`/tools/N` in the source).
    pub fn tools(&self) -> impl Iterator<Item = (String, &Value)> {
        let view_tools: &[Value] = self
            .view
            .get("tools")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let index = self.tool_indices(self.target);
        view_tools.iter().enumerate().map(move |(i, t)| {
            let source_index = index.get(i).copied().unwrap_or(i);
            (format!("/tools/{source_index}"), t)
        })
    }

    /// The tool named `name` in `rev`'s view (its source pointer and declaration), if
    /// the description has one there.
    pub fn tool_at(&self, rev: ProtocolRevision, name: &str) -> Option<(String, &'a Value)> {
        let i = *self.by_name.get(&(rev, name))?;
        let tool = self.source.get("tools")?.as_array()?.get(i)?;
        Some((format!("/tools/{i}"), tool))
    }

    fn tool_indices(&self, rev: ProtocolRevision) -> &[usize] {
        self.tools_at
            .iter()
            .find(|(r, _)| *r == rev)
            .map_or(&[], |(_, at)| at.as_slice())
    }
}
