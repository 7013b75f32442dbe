//! What the server lists at each served revision: the Effective Protocol View's tools,
//! resources, resource templates and prompts, as MCP list values, paged with opaque
//! cursors; and the capabilities that follow from them.
//!
//! Built at start from scopes alone: which declarations each revision lists. The source
//! document is validated once (by the caller); a declaration is projected with
//! [`mcpdesc_scope::project_declaration`] (the §4.12 steps `project` applies to the
//! whole document) when it is first used at a revision, and its list value is
//! [`mcpdesc_scope::wire_value`], the same function `export tools-list` uses, so
//! `tools/list` at a revision is exactly `mcpdesc export tools-list` at that revision.
//! A declaration whose projection is itself (no `protocolVersions`, no nested
//! Elicitation Declarations: the usual case) is one entry shared by every revision and
//! points into the source document, so a 1,223-tool description is not held once per
//! revision; a scoped one is copied only at the revisions a client uses (start-up does
//! not copy the GitHub import's 554 protocol-scoped tool objects). List values are built
//! per page on demand, not stored.

use super::args::ArgsValidator;
use super::jsonrpc::RpcError;
use mcpdesc_catalog::Selection;
use mcpdesc_core::decl::{decl_scope, root_scope};
use mcpdesc_core::{DeclKind, Diagnostic, ProtocolRevision, RevisionSet, refs};
use mcpdesc_validate::Validated;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::{Arc, OnceLock};

/// Default `--page-size`.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// The list kinds (the four primitives), in the order of their `DeclKind`.
const LISTED: [DeclKind; 4] = DeclKind::PRIMITIVES;

/// One declaration (tool, resource, resource template or prompt) of a view.
///
/// Held as a reference into the shared source document when its projection is the
/// declaration itself (no `protocolVersions`, no nested Elicitation Declarations: §4.12
/// changes nothing then), else as its own projected copy, made on first use.
pub struct Entry {
    doc: Arc<Value>,
    kind: DeclKind,
    index: usize,
    projection: Projection,
    /// The declaration's `name`.
    pub name: String,
    /// The JSON pointer of the declaration in the source document.
    pub pointer: String,
    validator: OnceLock<Result<ArgsValidator, String>>,
}

/// A tool of a view.
pub type ToolEntry = Entry;

/// How an entry's declaration becomes the view's.
enum Projection {
    /// The projection is the source declaration.
    Source,
    /// Projected at `rev` under the root scope `parent`, on first use.
    Scoped {
        rev: ProtocolRevision,
        parent: RevisionSet,
        value: OnceLock<Value>,
    },
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("pointer", &self.pointer)
            .field(
                "scoped",
                &matches!(self.projection, Projection::Scoped { .. }),
            )
            .finish_non_exhaustive()
    }
}

impl Entry {
    fn new(
        doc: &Arc<Value>,
        kind: DeclKind,
        index: usize,
        name: &str,
        projection: Projection,
    ) -> Entry {
        Entry {
            doc: Arc::clone(doc),
            kind,
            index,
            projection,
            name: name.to_string(),
            pointer: format!("/{}/{index}", kind.collection()),
            validator: OnceLock::new(),
        }
    }

    fn source(&self) -> &Value {
        &self.doc[self.kind.collection()][self.index]
    }

    /// The declaration's kind.
    pub fn kind(&self) -> DeclKind {
        self.kind
    }

    /// The declaration's position in its collection of the source document (for a tool:
    /// what [`ToolCall::index`](mcpdesc_rest::call::ToolCall::index) carries).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The declaration as the revision's Effective Protocol View has it.
    pub fn decl(&self) -> &Value {
        match &self.projection {
            Projection::Source => self.source(),
            Projection::Scoped { rev, parent, value } => value.get_or_init(|| {
                // The catalog listed the entry because its scope contains `rev`, which is
                // exactly when the projection exists.
                mcpdesc_scope::project_declaration(self.kind, self.source(), *parent, *rev)
                    .unwrap_or(Value::Null)
            }),
        }
    }
}

/// One served revision's view.
#[derive(Debug)]
pub struct View {
    pub revision: ProtocolRevision,
    tools: Vec<Arc<Entry>>,
    tool_index: HashMap<String, usize>,
    /// Resources, resource templates, prompts.
    others: [Vec<Arc<Entry>>; 3],
    capabilities: Value,
    /// The `tools/list` entries fitted to a host or budget ([`Catalog::fit`]), in the
    /// order of `tools`; `None`: the export as it is.
    fitted: Option<Fitted>,
}

/// A view's tool list as fitted to a host or budget.
#[derive(Debug)]
struct Fitted {
    tools: Vec<Value>,
    /// Served (new) name → the declaration's name, for each renamed tool.
    renames: HashMap<String, String>,
    /// Declaration names that were renamed (no longer callable by that name).
    renamed_away: HashSet<String>,
}

/// The tools/list of `view`'s revision as scope makes it from the validated source
/// `source` (the catalog's document: [`mcpdesc_scope::wire_tools`], what `export
/// tools-list` emits), restricted to the tools the view serves, in their order.
fn wire_tools_of<'a>(
    source: &'a Validated<'a>,
    view: &View,
) -> impl Iterator<Item = mcpdesc_scope::WireTool<'a>> + 'a {
    let served: HashSet<usize> = view.tools.iter().map(|e| e.index).collect();
    mcpdesc_scope::export::wire_tools_kept(source, view.revision, move |i, _| served.contains(&i))
}

/// Every served revision's view, plus the server's identity.
pub struct Catalog {
    pub revisions: RevisionSet,
    views: Vec<View>,
    /// `serverInfo` ([`mcpdesc_scope::server_info`]).
    pub server_info: Value,
    pub instructions: Option<String>,
    /// The source document: what entries point into and `$componentRef`s resolve in.
    doc: Arc<Value>,
    page_size: usize,
    /// Keys the cursor tags: random per process, so cursors are opaque and cannot be
    /// forged or carried over from another run.
    cursor_key: std::collections::hash_map::RandomState,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("revisions", &self.revisions)
            .field("views", &self.views)
            .field("page_size", &self.page_size)
            .finish_non_exhaustive()
    }
}

impl Catalog {
    /// Builds the views of `revisions` (each in the document's root `protocolVersions`)
    /// from a document the caller has validated (so every `$componentRef` resolves and
    /// every list value can be built).
    pub fn new(doc: Arc<Value>, revisions: RevisionSet, page_size: usize) -> Catalog {
        Self::selected(doc, revisions, page_size, &Selection::default())
    }

    /// [`Catalog::new`] serving only the tools `selection` keeps (resources, resource
    /// templates and prompts are not selected: they cost a model nothing until read).
    pub fn selected(
        doc: Arc<Value>,
        revisions: RevisionSet,
        page_size: usize,
        selection: &Selection,
    ) -> Catalog {
        let root = root_scope(&doc);
        let mut views: Vec<View> = Vec::new();
        // Entries whose projection is the source declaration, by (kind, index): one
        // entry for every revision that lists it.
        let mut same: HashMap<(usize, usize), Arc<Entry>> = HashMap::new();
        for rev in revisions.iter() {
            let mut lists: [Vec<Arc<Entry>>; 4] = Default::default();
            for (k, kind) in LISTED.into_iter().enumerate() {
                for (i, decl) in doc
                    .get(kind.collection())
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    if !decl_scope(decl, root).contains(rev) {
                        continue;
                    }
                    let name = decl.get("name").and_then(Value::as_str).unwrap_or_default();
                    if kind == DeclKind::Tool && !selection.keeps(name, decl) {
                        continue;
                    }
                    let scoped = decl.get("protocolVersions").is_some()
                        || decl.get("elicitations").is_some();
                    let entry = if scoped {
                        let projection = Projection::Scoped {
                            rev,
                            parent: root,
                            value: OnceLock::new(),
                        };
                        Arc::new(Entry::new(&doc, kind, i, name, projection))
                    } else {
                        Arc::clone(same.entry((k, i)).or_insert_with(|| {
                            Arc::new(Entry::new(&doc, kind, i, name, Projection::Source))
                        }))
                    };
                    lists[k].push(entry);
                }
            }
            let [tools, resources, templates, prompts] = lists;
            let tool_index = tools
                .iter()
                .enumerate()
                .map(|(i, t)| (t.name.clone(), i))
                .collect();
            let others = [resources, templates, prompts];
            let capabilities = capabilities(&tools, &others);
            views.push(View {
                revision: rev,
                tools,
                tool_index,
                others,
                capabilities,
                fitted: None,
            });
        }
        Catalog {
            revisions,
            views,
            server_info: mcpdesc_scope::server_info(&doc),
            instructions: doc
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            doc,
            page_size: page_size.max(1),
            cursor_key: Default::default(),
        }
    }

    /// Rewrites every view's `tools/list` with [`mcpdesc_hosts::fit_tools_list_of`] (the
    /// function `export tools-list --host/--budget` uses; `source` is the validator's
    /// handle of the catalog's document), so each revision serves what
    /// that export emits. Returns the fitting's diagnostics, one per finding however many
    /// revisions share it (the revisions are named), with pointers into the source
    /// document; an error means a tool cannot be made acceptable and the caller must
    /// not serve.
    pub fn fit(&mut self, fit: &super::Fit, source: &Validated<'_>) -> Vec<Diagnostic> {
        let opts = mcpdesc_hosts::FitOptions {
            host: fit.host,
            server_prefix: fit.server_prefix.as_deref(),
            budget: fit.budget,
        };
        // Each finding → the revisions that reported it.
        let mut found: indexmap::IndexMap<Diagnostic, Vec<ProtocolRevision>> =
            indexmap::IndexMap::new();
        for view in &mut self.views {
            let mut tools = Vec::with_capacity(view.tools.len());
            for wired in wire_tools_of(source, view) {
                match wired.wire {
                    Ok(Some(v)) => tools.push(v),
                    _ => {
                        let name = wired.decl.get("name").and_then(Value::as_str);
                        let d = Diagnostic::error(
                            "serve-tool-unlistable",
                            format!(
                                "cannot build the tools/list entry of `{}`",
                                name.unwrap_or_default()
                            ),
                        )
                        .at(format!("/tools/{}", wired.index));
                        found.entry(d).or_default().push(view.revision);
                    }
                }
            }
            let out = mcpdesc_hosts::fit_tools_list_of(
                source,
                json!({"tools": tools}),
                view.revision,
                &opts,
            );
            for mut d in out.diagnostics {
                d.pointer = to_source_pointer(&d.pointer, &view.tools);
                found.entry(d).or_default().push(view.revision);
            }
            let served = match out.tools_list.get("tools") {
                Some(Value::Array(t)) => t.clone(),
                _ => Vec::new(),
            };
            let renamed_away = out.renames.values().cloned().collect();
            view.fitted = Some(Fitted {
                tools: served,
                renames: out.renames.into_iter().collect(),
                renamed_away,
            });
        }
        let several = self.views.len() > 1;
        found
            .into_iter()
            .map(|(mut d, revs)| {
                if several {
                    let names: Vec<&str> = revs.iter().map(|r| r.as_str()).collect();
                    d.message = format!("{} (MCP {})", d.message, names.join(", "));
                }
                d
            })
            .collect()
    }

    /// The `tools/list` entries of `view` as served (all pages together, in order): the
    /// fitted list when there is one, else the wire form of the view's tools
    /// ([`wire_tools_of`]). `source` is the validator's handle of the catalog's
    /// document.
    pub fn served_tools<'a>(
        &'a self,
        source: &'a Validated<'a>,
        view: &'a View,
    ) -> impl Iterator<Item = Cow<'a, Value>> + 'a {
        let fitted = view
            .fitted
            .as_ref()
            .map(|f| f.tools.iter().map(Cow::Borrowed));
        let wired = fitted.is_none().then(|| {
            wire_tools_of(source, view).filter_map(|w| w.wire.ok().flatten().map(Cow::Owned))
        });
        fitted
            .into_iter()
            .flatten()
            .chain(wired.into_iter().flatten())
    }

    /// The view of a served revision.
    pub fn view(&self, rev: ProtocolRevision) -> Option<&View> {
        self.views.iter().find(|v| v.revision == rev)
    }

    /// What `$componentRef`s resolve against (the source document).
    pub fn components(&self) -> &Value {
        &self.doc
    }

    /// Tool `i` of `view` as its `tools/list` entry (fitted when the list is).
    pub fn listed_tool(&self, view: &View, i: usize) -> Option<Value> {
        if let Some(f) = &view.fitted {
            return f.tools.get(i).cloned();
        }
        let e = view.tools.get(i)?;
        mcpdesc_scope::wire_value(DeclKind::Tool, &self.doc, e.decl(), &e.pointer)
            .ok()
            .flatten()
    }

    /// The views, in revision order.
    pub fn views(&self) -> &[View] {
        &self.views
    }

    /// Tools of the largest view (for start-up messages).
    pub fn tool_count(&self) -> usize {
        self.views.iter().map(|v| v.tools.len()).max().unwrap_or(0)
    }

    /// One page of a list method's result at `view` (`tools/list`, `resources/list`,
    /// `resources/templates/list`, `prompts/list`) for the request's `cursor`, without
    /// the revision's envelope fields. A cursor that this server did not hand out for
    /// this list at this revision is `-32602`.
    pub fn page(
        &self,
        view: &View,
        kind: DeclKind,
        cursor: Option<&Value>,
    ) -> Result<Map<String, Value>, RpcError> {
        let len = view.len(kind);
        let pages = len.div_ceil(self.page_size).max(1);
        let page = match cursor {
            None => 0,
            Some(Value::String(c)) => self
                .decode_cursor(c, kind, view.revision, pages)
                .ok_or_else(|| {
                    RpcError::invalid_params(format!(
                        "Invalid cursor `{}`: use a nextCursor this server returned for this list",
                        truncate(c, 80)
                    ))
                })?,
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "Invalid cursor: expected a string, got {}",
                    truncate(&other.to_string(), 80)
                )));
            }
        };
        let start = page * self.page_size;
        let end = (start + self.page_size).min(len);
        let mut items = Vec::with_capacity(end.saturating_sub(start));
        let fitted = match (kind, &view.fitted) {
            (DeclKind::Tool, Some(f)) => Some(f.tools.get(start..end).unwrap_or_default()),
            _ => None,
        };
        if let Some(served) = fitted {
            items.extend(served.iter().cloned());
        } else {
            for i in start..end {
                let e = view.item(kind, i);
                match mcpdesc_scope::wire_value(kind, &self.doc, e.decl(), &e.pointer) {
                    Ok(Some(v)) => items.push(v),
                    // A validated document always resolves; a value that cannot be built is
                    // an internal error, not a silently shorter list.
                    _ => {
                        return Err(RpcError::new(
                            super::jsonrpc::INTERNAL_ERROR,
                            format!("cannot list {}", e.pointer),
                        ));
                    }
                }
            }
        }
        let mut out = Map::new();
        out.insert(kind.collection().to_string(), Value::Array(items));
        if page + 1 < pages {
            out.insert(
                "nextCursor".into(),
                json!(self.encode_cursor(kind, view.revision, page + 1)),
            );
        }
        Ok(out)
    }

    fn tag(&self, kind: DeclKind, rev: ProtocolRevision, page: usize) -> u64 {
        self.cursor_key
            .hash_one((kind.collection(), rev.index(), page))
    }

    fn encode_cursor(&self, kind: DeclKind, rev: ProtocolRevision, page: usize) -> String {
        format!("{page}.{:016x}", self.tag(kind, rev, page))
    }

    fn decode_cursor(
        &self,
        c: &str,
        kind: DeclKind,
        rev: ProtocolRevision,
        pages: usize,
    ) -> Option<usize> {
        let (page, tag) = c.split_once('.')?;
        if page.is_empty() || !page.bytes().all(|b| b.is_ascii_digit()) || page.len() > 19 {
            return None;
        }
        let page: usize = page.parse().ok()?;
        let ok = page >= 1
            && page < pages
            && tag.len() == 16
            && u64::from_str_radix(tag, 16).ok() == Some(self.tag(kind, rev, page));
        ok.then_some(page)
    }
}

impl View {
    /// The tool served as `name` (with a fitted list: the tool that name was given to;
    /// a declaration's own name no longer answers once the fitting renamed it).
    pub fn tool(&self, name: &str) -> Option<&Arc<Entry>> {
        self.position(name).map(|i| &self.tools[i])
    }

    pub fn tools(&self) -> &[Arc<Entry>] {
        &self.tools
    }

    /// The name tool `i` of [`View::tools`] is served (listed and called) by: its own,
    /// or the one the host fitting gave it.
    pub fn served_name(&self, i: usize) -> &str {
        self.fitted
            .as_ref()
            .and_then(|f| f.tools.get(i))
            .and_then(|t| t.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(&self.tools[i].name)
    }

    /// The position in [`View::tools`] of the tool served as `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        let name = match &self.fitted {
            Some(f) => match f.renames.get(name) {
                Some(original) => original.as_str(),
                None if f.renamed_away.contains(name) => return None,
                None => name,
            },
            None => name,
        };
        self.tool_index.get(name).copied()
    }

    /// The declaration a `resources/read` of `uri` reaches: the Resource with that
    /// `uri`, else, of the Resource Templates `uri` is an RFC 6570 expansion of, the one
    /// with the most literal characters (the most specific).
    pub fn resource_for(&self, uri: &str) -> Option<&Arc<Entry>> {
        use mcpdesc_validate::payload::uri_template::{self, Part};
        let [resources, templates, _] = &self.others;
        if let Some(r) = resources
            .iter()
            .find(|r| r.decl().get("uri").and_then(Value::as_str) == Some(uri))
        {
            return Some(r);
        }
        templates
            .iter()
            .filter_map(|t| {
                let s = t.decl().get("uriTemplate").and_then(Value::as_str)?;
                let parsed = uri_template::parse(s).ok()?;
                parsed.matches(uri).then(|| {
                    let literal: usize = parsed
                        .parts
                        .iter()
                        .map(|p| match p {
                            Part::Literal(l) => l.chars().count(),
                            _ => 0,
                        })
                        .sum();
                    (literal, t)
                })
            })
            .fold(
                None,
                |best: Option<(usize, &Arc<Entry>)>, (n, t)| match best {
                    Some((b, _)) if b >= n => best,
                    _ => Some((n, t)),
                },
            )
            .map(|(_, t)| t)
    }

    /// The prompt named `name`.
    pub fn prompt(&self, name: &str) -> Option<&Arc<Entry>> {
        self.others[2].iter().find(|p| p.name == name)
    }

    /// `capabilities` for `initialize` / `server/discover`.
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }

    fn len(&self, kind: DeclKind) -> usize {
        match kind {
            DeclKind::Tool => self
                .fitted
                .as_ref()
                .map_or(self.tools.len(), |f| f.tools.len()),
            DeclKind::Resource => self.others[0].len(),
            DeclKind::ResourceTemplate => self.others[1].len(),
            DeclKind::Prompt => self.others[2].len(),
            _ => 0,
        }
    }

    fn item(&self, kind: DeclKind, i: usize) -> &Entry {
        match kind {
            DeclKind::Tool => &self.tools[i],
            DeclKind::Resource => &self.others[0][i],
            DeclKind::ResourceTemplate => &self.others[1][i],
            _ => &self.others[2][i],
        }
    }
}

impl Entry {
    /// A tool's compiled `inputSchema` (compiled on first use, then shared by every
    /// revision whose view has this same declaration); the error says why it does not
    /// compile.
    pub fn validator(&self) -> &Result<ArgsValidator, String> {
        self.validator.get_or_init(|| {
            let schema = self.decl().get("inputSchema").unwrap_or(&Value::Null);
            match refs::resolve(&self.doc, schema, "schemas") {
                Ok((s, _)) => ArgsValidator::compile(s),
                Err(e) => Err(e.to_string()),
            }
        })
    }
}

/// The capabilities `serve` provides for a view: `tools`, `resources` and `prompts` when
/// the view lists any. No `listChanged` (lists never change while serving), no
/// `subscribe`, `logging` or `completions` (not provided). The description's own
/// `capabilities` describe the original server, not this one.
fn capabilities(tools: &[Arc<Entry>], others: &[Vec<Arc<Entry>>; 3]) -> Value {
    let mut caps = Map::new();
    if !tools.is_empty() {
        caps.insert("tools".into(), json!({}));
    }
    if !others[0].is_empty() || !others[1].is_empty() {
        caps.insert("resources".into(), json!({}));
    }
    if !others[2].is_empty() {
        caps.insert("prompts".into(), json!({}));
    }
    Value::Object(caps)
}

/// A pointer into a view's `tools/list` (`/tools/I/...`) as the pointer of the same
/// place in the source document (`/tools/J/...`, J the declaration's index), so the CLI
/// can give it a line:column; others unchanged.
fn to_source_pointer(p: &str, tools: &[Arc<Entry>]) -> String {
    let Some(rest) = p.strip_prefix("/tools/") else {
        return p.to_string();
    };
    let (idx, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match idx.parse::<usize>().ok().and_then(|i| tools.get(i)) {
        Some(e) => format!("{}{tail}", e.pointer),
        None => p.to_string(),
    }
}

/// `s` cut to `n` characters for messages.
fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::ProtocolRevision::*;

    fn doc(n: usize) -> Value {
        let tools: Vec<Value> = (0..n)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}, "x-a": i}))
            .collect();
        json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
            "protocolVersions": ["2025-06-18", "2025-11-25"], "tools": tools})
    }

    #[test]
    fn pages_cover_the_list_once_in_order() {
        let d = doc(5);
        let c = Catalog::new(
            Arc::new(d.clone()),
            RevisionSet::from_json(&d["protocolVersions"]),
            2,
        );
        let v = c.view(V2025_06_18).expect("served");
        let mut names = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut pages = 0;
        loop {
            let p = c.page(v, DeclKind::Tool, cursor.as_ref()).expect("page");
            pages += 1;
            for t in p["tools"].as_array().expect("tools") {
                names.push(t["name"].as_str().expect("name").to_string());
                assert!(t.get("x-a").is_none(), "description metadata is not listed");
            }
            match p.get("nextCursor") {
                Some(c) => cursor = Some(c.clone()),
                None => break,
            }
        }
        assert_eq!(pages, 3);
        assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
    }

    #[test]
    fn cursors_are_bound_to_list_revision_and_range() {
        let d = doc(5);
        let c = Catalog::new(
            Arc::new(d.clone()),
            RevisionSet::from_json(&d["protocolVersions"]),
            2,
        );
        let v1 = c.view(V2025_06_18).expect("served");
        let v2 = c.view(V2025_11_25).expect("served");
        let next = c.page(v1, DeclKind::Tool, None).expect("first")["nextCursor"].clone();
        assert!(c.page(v1, DeclKind::Tool, Some(&next)).is_ok());
        // Not for another revision, another list, or a forged / out-of-range page.
        assert!(c.page(v2, DeclKind::Tool, Some(&next)).is_err());
        assert!(c.page(v1, DeclKind::Prompt, Some(&next)).is_err());
        for bad in ["", "0", "1", "9.0000000000000000", "-1.x", "2"] {
            let e = c
                .page(v1, DeclKind::Tool, Some(&json!(bad)))
                .expect_err(bad);
            assert_eq!(e.code, super::super::jsonrpc::INVALID_PARAMS);
        }
        let forged = format!("99.{:016x}", c.tag(DeclKind::Tool, V2025_06_18, 99));
        assert!(
            c.page(v1, DeclKind::Tool, Some(&json!(forged))).is_err(),
            "out of range"
        );
        assert!(c.page(v1, DeclKind::Tool, Some(&json!(3))).is_err());
    }

    #[test]
    fn equal_declarations_are_shared_across_revisions() {
        let d = doc(3);
        let c = Catalog::new(
            Arc::new(d.clone()),
            RevisionSet::from_json(&d["protocolVersions"]),
            100,
        );
        let a = c.view(V2025_06_18).expect("served").tool("t1").expect("t1");
        let b = c.view(V2025_11_25).expect("served").tool("t1").expect("t1");
        assert!(Arc::ptr_eq(a, b));
    }
}
