//! The comparison of two documents, revision by revision.
//!
//! For every revision both documents declare (or only the selected one), each side's
//! Effective Protocol View is compared. Views are taken declaration by declaration
//! with [`mcpdesc_scope::project_declaration`], so every finding keeps the pointer of
//! the declaration in its ORIGINAL document (`/tools/7`, not the view's index).
//! Declarations are matched by identity ([`DeclKind::identity_key`]; transports by
//! type and URL or command; the one Capabilities Object per revision), never by
//! position. A source declaration pair that is textually equal (and whose component
//! references resolve to equal values) is skipped without projecting it; a pair whose
//! projections are equal across revisions is compared once.

use crate::report::{Declaration, Message};
use crate::rules::RuleId::{self, *};
use crate::schema::{self, Dir, Resource};
use crate::security;
use crate::{Mask, Raw};
use mcpdesc_core::decl::{decl_scope, is_extension};
use mcpdesc_core::{DeclKind, ProtocolRevision, RevisionSet, pointer, refs};
use mcpdesc_scope::{project_declaration, project_declaration_classes};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// One whole document.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Doc<'a> {
    pub v: &'a Value,
    pub root: RevisionSet,
}

/// Receives findings as they are found: the declaration (by identity) and the revision.
pub(crate) trait Sink {
    fn push(&mut self, decl: Option<&Declaration>, revisions: RevisionSet, raw: Raw);
}

/// Compares OLD and NEW for the revisions in `selected`; returns the revisions whose
/// views were compared (declared by both).
pub(crate) fn run(
    old: Doc<'_>,
    new: Doc<'_>,
    selected: RevisionSet,
    out: &mut dyn Sink,
) -> RevisionSet {
    for r in old.root.difference(new.root).intersection(selected).iter() {
        let msg = Message::new().text(format!(
            "protocol revision {r} is no longer declared: its clients lose the whole server"
        ));
        out.push(
            None,
            RevisionSet::single(r),
            raw(
                RevisionRemoved,
                Some(rev_ptr(old.v, r)),
                Some("/protocolVersions".into()),
                msg,
            ),
        );
    }
    for r in new.root.difference(old.root).intersection(selected).iter() {
        let msg = Message::new().text(format!("protocol revision {r} is now declared"));
        out.push(
            None,
            RevisionSet::single(r),
            raw(
                RevisionAdded,
                Some("/protocolVersions".into()),
                Some(rev_ptr(new.v, r)),
                msg,
            ),
        );
    }
    let compared = old.root.intersection(new.root).intersection(selected);
    if compared.is_empty() {
        return compared;
    }
    let mut root_raws = Vec::new();
    root(old, new, &mut root_raws);
    for r in root_raws {
        out.push(None, compared, r);
    }
    for kind in DeclKind::TOP_LEVEL {
        declarations(kind, old, new, compared, out);
    }
    compared
}

fn raw(rule: RuleId, old: Option<String>, new: Option<String>, msg: Message) -> Raw {
    Raw {
        rule,
        masked: Mask::None,
        old,
        new,
        msg,
    }
}

fn rev_ptr(doc: &Value, r: ProtocolRevision) -> String {
    doc.get("protocolVersions")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().position(|v| v.as_str() == Some(r.as_str())))
        .map_or_else(
            || "/protocolVersions".into(),
            |i| format!("/protocolVersions/{i}"),
        )
}

fn at(base: &str, key: &str) -> String {
    pointer::push(base, key)
}

/// `old → new` for short scalar values, quoted.
fn change(msg: Message, o: Option<&Value>, n: Option<&Value>) -> Message {
    let show = |m: Message, v: Option<&Value>| match v {
        None => m.text("absent"),
        Some(Value::String(s)) => m.quote(s),
        Some(v) => m.value(v),
    };
    let m = show(msg.text(" "), o).text(" → ");
    show(m, n)
}

/// Keys of two objects, OLD's order first, each once (linear time).
fn union_keys<'a>(
    a: Option<&'a Map<String, Value>>,
    b: Option<&'a Map<String, Value>>,
) -> Vec<&'a String> {
    let mut seen = HashSet::new();
    [a, b]
        .into_iter()
        .flatten()
        .flat_map(|m| m.keys())
        .filter(|k| seen.insert(k.as_str()))
        .collect()
}

/// Items of a named list (`arguments`, `elicitations`): names in OLD-then-NEW order,
/// and for each side name → (index, item). Unnamed items count as named "".
type Named<'a> = HashMap<String, (usize, &'a Value)>;

fn named<'a>(a: Option<&'a Value>, b: Option<&'a Value>) -> (Vec<String>, Named<'a>, Named<'a>) {
    let index = |v: Option<&'a Value>| -> Named<'a> {
        let mut m = Named::new();
        for (i, item) in v
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let name = item.get("name").and_then(Value::as_str).unwrap_or("");
            m.entry(name.to_string()).or_insert((i, item));
        }
        m
    };
    let mut seen = HashSet::new();
    let names = [a, b]
        .into_iter()
        .flat_map(|v| v.and_then(Value::as_array).into_iter().flatten())
        .map(|item| {
            item.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .filter(|n| seen.insert(n.clone()))
        .collect();
    (names, index(a), index(b))
}

// ------------------------------------------------------------------ document level

fn root(old: Doc<'_>, new: Doc<'_>, out: &mut Vec<Raw>) {
    let (o, n) = (old.v, new.v);
    // info: every member, extensions apart.
    let (oi, ni) = (o.get("info"), n.get("info"));
    for k in union_keys(oi.and_then(Value::as_object), ni.and_then(Value::as_object)) {
        let (a, b) = (oi.and_then(|m| m.get(k)), ni.and_then(|m| m.get(k)));
        if a == b {
            continue;
        }
        let ptr = at("/info", k);
        let rule = if is_extension(k) {
            ExtensionChanged
        } else {
            InfoChanged
        };
        let msg = Message::new().text("`info.").text(k.as_str()).text("`");
        let msg = if a.is_none_or(is_scalar) && b.is_none_or(is_scalar) {
            change(msg, a, b)
        } else {
            msg.text(" changed")
        };
        out.push(raw(rule, Some(ptr.clone()), Some(ptr), msg));
    }
    for (key, rule) in [
        ("instructions", InstructionsChanged),
        ("tags", TagsChanged),
        ("$schema", InfoChanged),
    ] {
        if o.get(key) != n.get(key) {
            let ptr = format!("/{key}");
            let msg = Message::new().text(format!("`{key}` changed"));
            out.push(raw(rule, Some(ptr.clone()), Some(ptr), msg));
        }
    }
    schemes(o, n, out);
    out.extend(security::compare(
        o.get("security"),
        n.get("security"),
        "/security".into(),
        "/security".into(),
    ));
    for k in union_keys(o.as_object(), n.as_object()) {
        if is_extension(k) && o.get(k) != n.get(k) {
            let ptr = at("", k);
            let msg = Message::new().text("extension ").quote(k).text(" changed");
            out.push(raw(ExtensionChanged, Some(ptr.clone()), Some(ptr), msg));
        }
    }
}

fn is_scalar(v: &Value) -> bool {
    !v.is_object() && !v.is_array()
}

/// Named security schemes (§7.1, §7.2).
fn schemes(o: &Value, n: &Value, out: &mut Vec<Raw>) {
    let (om, nm) = (
        o.get("securitySchemes").and_then(Value::as_object),
        n.get("securitySchemes").and_then(Value::as_object),
    );
    for name in union_keys(om, nm) {
        let ptr = at("/securitySchemes", name);
        let (a, b) = (om.and_then(|m| m.get(name)), nm.and_then(|m| m.get(name)));
        let base = Message::new().text("security scheme ").quote(name);
        match (a, b) {
            (Some(_), None) => out.push(raw(
                SecuritySchemeRemoved,
                Some(ptr),
                Some("/securitySchemes".into()),
                base.text(" removed"),
            )),
            (None, Some(_)) => out.push(raw(
                SecuritySchemeAdded,
                Some("/securitySchemes".into()),
                Some(ptr),
                base.text(" added"),
            )),
            (Some(a), Some(b)) if a != b => scheme(a, b, &ptr, base, out),
            _ => {}
        }
    }
}

fn scheme(a: &Value, b: &Value, ptr: &str, base: Message, out: &mut Vec<Raw>) {
    for k in union_keys(a.as_object(), b.as_object()) {
        let (x, y) = (a.get(k), b.get(k));
        if x == y {
            continue;
        }
        let p = at(ptr, k);
        let rule = match k.as_str() {
            "type" | "scheme" | "in" | "name" | "openIdConnectUrl" => SecuritySchemeChanged,
            "flows" => {
                flows(x, y, &p, base.clone(), out);
                continue;
            }
            k if is_extension(k) => ExtensionChanged,
            _ => SecuritySchemeMetadataChanged,
        };
        let msg = base.clone().text(": `").text(k.as_str()).text("`");
        let msg = if x.is_none_or(is_scalar) && y.is_none_or(is_scalar) {
            change(msg, x, y)
        } else {
            msg.text(" changed")
        };
        out.push(raw(rule, Some(p.clone()), Some(p), msg));
    }
}

fn flows(a: Option<&Value>, b: Option<&Value>, ptr: &str, base: Message, out: &mut Vec<Raw>) {
    let (am, bm) = (a.and_then(Value::as_object), b.and_then(Value::as_object));
    for flow in union_keys(am, bm) {
        let p = at(ptr, flow);
        let (x, y) = (am.and_then(|m| m.get(flow)), bm.and_then(|m| m.get(flow)));
        let msg = base.clone().text(": OAuth flow ").quote(flow);
        match (x, y) {
            (Some(_), None) => out.push(raw(
                SecuritySchemeChanged,
                Some(p.clone()),
                Some(ptr.to_string()),
                msg.text(" removed"),
            )),
            (None, Some(_)) => out.push(raw(
                SecuritySchemeMetadataChanged,
                Some(ptr.to_string()),
                Some(p),
                msg.text(" added"),
            )),
            (Some(x), Some(y)) => {
                for k in union_keys(x.as_object(), y.as_object()) {
                    let (u, v) = (x.get(k), y.get(k));
                    if u == v {
                        continue;
                    }
                    let q = at(&p, k);
                    let rule = match k.as_str() {
                        "authorizationUrl" | "tokenUrl" | "refreshUrl" => SecuritySchemeChanged,
                        k if is_extension(k) => ExtensionChanged,
                        _ => SecuritySchemeMetadataChanged,
                    };
                    let m = msg.clone().text(": `").text(k.as_str()).text("`");
                    let m = if u.is_none_or(is_scalar) && v.is_none_or(is_scalar) {
                        change(m, u, v)
                    } else {
                        m.text(" changed")
                    };
                    out.push(raw(rule, Some(q.clone()), Some(q), m));
                }
            }
            (None, None) => {}
        }
    }
}

// ------------------------------------------------------------------ declarations

/// A declaration of one document: its index in its collection and effective scope.
#[derive(Debug, Clone, Copy)]
struct Entry<'a> {
    idx: usize,
    scope: RevisionSet,
    v: &'a Value,
}

/// The identity of a declaration: what makes it "the same" across documents.
fn identity(kind: DeclKind, v: &Value) -> Option<String> {
    if let Some(key) = kind.identity_key() {
        return v.get(key).and_then(Value::as_str).map(str::to_string);
    }
    if kind == DeclKind::Transport {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
        let target = v
            .get("url")
            .or_else(|| v.get("command"))
            .and_then(Value::as_str)
            .unwrap_or("");
        return Some(format!("{} {target}", s("type")));
    }
    None
}

/// Declarations of one kind grouped by identity, in first-appearance order. Transports
/// with the same identity and overlapping scopes are told apart as `#2`, `#3`…
fn grouped(kind: DeclKind, doc: Doc<'_>) -> Vec<(Option<String>, Vec<Entry<'_>>)> {
    let mut groups: Vec<(Option<String>, Vec<Entry<'_>>)> = Vec::new();
    let mut index: HashMap<Option<String>, usize> = HashMap::new();
    let mut occurrences: HashMap<String, usize> = HashMap::new();
    let items = doc.v.get(kind.collection()).and_then(Value::as_array);
    for (idx, v) in items.into_iter().flatten().enumerate() {
        let scope = decl_scope(v, doc.root);
        let mut id = identity(kind, v);
        if kind == DeclKind::Transport {
            let base = id.clone().unwrap_or_default();
            let seen = occurrences.entry(base.clone()).or_insert(0);
            *seen += 1;
            // Join the first same-identity group this scope does not overlap; at most a
            // few (scopes have five revisions), so past that every entry is its own.
            let mut k = 1;
            while let Some(&g) = index.get(&id) {
                let taken = groups[g]
                    .1
                    .iter()
                    .fold(RevisionSet::EMPTY, |a, e| a.union(e.scope));
                if taken.is_disjoint(scope) {
                    break;
                }
                k += 1;
                if k > 8 {
                    id = Some(format!("{base} #{}", 8 + *seen));
                    break;
                }
                id = Some(format!("{base} #{k}"));
            }
        }
        let g = *index.entry(id.clone()).or_insert_with(|| {
            groups.push((id, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(Entry { idx, scope, v });
    }
    groups
}

/// Indices (into one identity's entries) of the OLD and NEW declarations at a revision.
type SourcePair = (Option<usize>, Option<usize>);

fn declarations<'a>(
    kind: DeclKind,
    old: Doc<'a>,
    new: Doc<'a>,
    compared: RevisionSet,
    out: &mut dyn Sink,
) {
    let (og, ng) = (grouped(kind, old), grouped(kind, new));
    let index = |groups: &[(Option<String>, Vec<Entry<'a>>)]| -> HashMap<Option<String>, usize> {
        groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.0.clone(), i))
            .collect()
    };
    let (oi, ni) = (index(&og), index(&ng));
    let mut seen = HashSet::new();
    let ids: Vec<&Option<String>> = og
        .iter()
        .chain(&ng)
        .map(|g| &g.0)
        .filter(|id| seen.insert(*id))
        .collect();
    let no_entries: Vec<Entry<'a>> = Vec::new();
    for id in ids {
        let oe = oi.get(id).map_or(&no_entries, |&i| &og[i].1);
        let ne = ni.get(id).map_or(&no_entries, |&i| &ng[i].1);
        let decl = Declaration {
            kind,
            id: id.clone(),
        };
        // Revisions grouped by the pair of source declarations that apply there.
        let mut pairs: Vec<(SourcePair, RevisionSet)> = Vec::new();
        for r in compared.iter() {
            let o = oe.iter().position(|e| e.scope.contains(r));
            let n = ne.iter().position(|e| e.scope.contains(r));
            if o.is_none() && n.is_none() {
                continue;
            }
            match pairs.iter_mut().find(|p| p.0 == (o, n)) {
                Some(p) => p.1.insert(r),
                None => pairs.push(((o, n), RevisionSet::single(r))),
            }
        }
        for ((o, n), revs) in pairs {
            match (o.map(|i| oe[i]), n.map(|i| ne[i])) {
                (Some(a), None) => one_sided(&decl, old, new, a, revs, true, out),
                (None, Some(b)) => one_sided(&decl, new, old, b, revs, false, out),
                (Some(a), Some(b)) => changed(&decl, (old, new), (a, b), revs, out),
                (None, None) => {}
            }
        }
    }
}

fn decl_ptr(kind: DeclKind, e: &Entry<'_>) -> String {
    format!("/{}/{}", kind.collection(), e.idx)
}

/// A declaration only one document has at these revisions: removed (`present` is
/// OLD) or added (`present` is NEW). A Capabilities Object is compared with an empty
/// one, capability by capability.
fn one_sided(
    decl: &Declaration,
    present: Doc<'_>,
    other: Doc<'_>,
    e: Entry<'_>,
    revs: RevisionSet,
    removed: bool,
    out: &mut dyn Sink,
) {
    let kind = decl.kind;
    let here = decl_ptr(kind, &e);
    let there = format!("/{}", kind.collection());
    let (rule, word) = match (kind, removed) {
        (DeclKind::Tool, true) => (ToolRemoved, "removed"),
        (DeclKind::Tool, false) => (ToolAdded, "added"),
        (DeclKind::Resource, true) => (ResourceRemoved, "removed"),
        (DeclKind::Resource, false) => (ResourceAdded, "added"),
        (DeclKind::ResourceTemplate, true) => (ResourceTemplateRemoved, "removed"),
        (DeclKind::ResourceTemplate, false) => (ResourceTemplateAdded, "added"),
        (DeclKind::Prompt, true) => (PromptRemoved, "removed"),
        (DeclKind::Prompt, false) => (PromptAdded, "added"),
        (DeclKind::Transport, true) => (TransportRemoved, "removed"),
        (DeclKind::Transport, false) => (TransportAdded, "added"),
        (DeclKind::Capabilities | DeclKind::Elicitation, _) => {
            let empty = Value::Object(Map::new());
            for r in revs.iter() {
                let Some(view) = project_declaration(kind, e.v, present.root, r) else {
                    continue;
                };
                let mut raws = Vec::new();
                if removed {
                    capabilities(&view, &empty, &here, &there, &mut raws);
                } else {
                    capabilities(&empty, &view, &there, &here, &mut raws);
                }
                for x in raws {
                    out.push(Some(decl), RevisionSet::single(r), x);
                }
            }
            return;
        }
    };
    // The other side points at its collection, when it has one.
    let there = other.v.get(kind.collection()).map(|_| there);
    let (o, n) = if removed {
        (Some(here), there)
    } else {
        (there, Some(here))
    };
    out.push(Some(decl), revs, raw(rule, o, n, Message::new().text(word)));
}

/// One side of a declaration pair: the whole document, the source declaration, its
/// projection at the revision being compared, and the source pointer.
#[derive(Debug, Clone, Copy)]
struct Side<'a> {
    doc: &'a Value,
    src: &'a Value,
    view: &'a Value,
    ptr: &'a str,
}

impl<'a> Side<'a> {
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.view.get(k)
    }
    fn at(&self, k: &str) -> String {
        at(self.ptr, k)
    }
    /// Pointer of `k` when present, else of the declaration.
    fn at_or_decl(&self, k: &str) -> String {
        if self.get(k).is_some() {
            self.at(k)
        } else {
            self.ptr.to_string()
        }
    }
}

/// A declaration both documents have at these revisions: compared view by view.
fn changed(
    decl: &Declaration,
    (old, new): (Doc<'_>, Doc<'_>),
    (a, b): (Entry<'_>, Entry<'_>),
    revs: RevisionSet,
    out: &mut dyn Sink,
) {
    let kind = decl.kind;
    if a.v == b.v && references_equal(kind, a.v, old.v, new.v) {
        return;
    }
    let (op, np) = (decl_ptr(kind, &a), decl_ptr(kind, &b));
    // Each side's distinct projections, each compared with each of the other side's once.
    let (oc, nc) = (
        project_declaration_classes(kind, a.v, old.root, revs),
        project_declaration_classes(kind, b.v, new.root, revs),
    );
    let mut compared: HashMap<(usize, usize), Vec<Raw>> = HashMap::new();
    for r in revs.iter() {
        let class = |classes: &[(RevisionSet, Cow<'_, Value>)]| {
            classes.iter().position(|(set, _)| set.contains(r))
        };
        let (Some(i), Some(j)) = (class(&oc), class(&nc)) else {
            continue;
        };
        let raws = compared.entry((i, j)).or_insert_with(|| {
            let o = Side {
                doc: old.v,
                src: a.v,
                view: &oc[i].1,
                ptr: &op,
            };
            let n = Side {
                doc: new.v,
                src: b.v,
                view: &nc[j].1,
                ptr: &np,
            };
            let mut raws = Vec::new();
            compare_decl(kind, o, n, &mut raws);
            raws
        });
        for x in raws.iter() {
            out.push(Some(decl), RevisionSet::single(r), x.clone());
        }
    }
}

/// The use sites of `$componentRef` (§17.3) in a declaration resolve to equal values
/// in both documents.
fn references_equal(kind: DeclKind, decl: &Value, old: &Value, new: &Value) -> bool {
    let mut sites: Vec<(&Value, &str)> = Vec::new();
    for k in ["inputSchema", "outputSchema"] {
        if let Some(v) = decl.get(k) {
            sites.push((v, "schemas"));
        }
    }
    if let (Some(ns), Some(ex)) = (
        kind.example_namespace(),
        decl.get("examples").and_then(Value::as_object),
    ) {
        sites.extend(ex.values().map(|v| (v, ns)));
    }
    for e in decl
        .get("elicitations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(s) = e.get("requestedSchema") {
            sites.push((s, "schemas"));
        }
    }
    sites
        .into_iter()
        .filter(|(v, _)| refs::is_reference(v))
        .all(
            |(v, ns)| match (refs::resolve(old, v, ns), refs::resolve(new, v, ns)) {
                (Ok((x, _)), Ok((y, _))) => x == y,
                _ => false,
            },
        )
}

fn compare_decl(kind: DeclKind, o: Side<'_>, n: Side<'_>, out: &mut Vec<Raw>) {
    let mut handled: Vec<&str> = vec!["protocolVersions", "title", "description"];
    if let Some(k) = kind.identity_key() {
        handled.push(k);
    }
    text(o, n, "title", TitleChanged, true, out);
    text(o, n, "description", DescriptionChanged, false, out);
    match kind {
        DeclKind::Tool => {
            handled.extend(["inputSchema", "outputSchema", "annotations", "execution"]);
            tool(o, n, out);
        }
        DeclKind::Prompt => {
            handled.push("arguments");
            prompt_arguments(o, n, out);
        }
        DeclKind::Resource | DeclKind::ResourceTemplate => {
            handled.extend(["name", "mimeType"]);
            text(o, n, "name", NameChanged, true, out);
            match (o.get("mimeType"), n.get("mimeType")) {
                (Some(x), Some(y)) if x != y => {
                    let msg = change(Message::new().text("`mimeType`"), Some(x), Some(y));
                    out.push(raw(
                        MimeTypeChanged,
                        Some(o.at("mimeType")),
                        Some(n.at("mimeType")),
                        msg,
                    ));
                }
                (x, y) if x != y => {
                    let msg = change(Message::new().text("`mimeType`"), x, y);
                    out.push(raw(
                        MetadataChanged,
                        Some(o.at_or_decl("mimeType")),
                        Some(n.at_or_decl("mimeType")),
                        msg,
                    ));
                }
                _ => {}
            }
        }
        DeclKind::Transport => {
            handled.extend(["type", "url", "command", "args", "env", "security"]);
            for k in ["args", "env"] {
                if o.get(k) != n.get(k) {
                    let msg = Message::new().text(format!("`{k}` changed"));
                    out.push(raw(
                        TransportChanged,
                        Some(o.at_or_decl(k)),
                        Some(n.at_or_decl(k)),
                        msg,
                    ));
                }
            }
            effective_security(o, n, out);
        }
        DeclKind::Capabilities => {
            capabilities(o.view, n.view, o.ptr, n.ptr, out);
            return;
        }
        DeclKind::Elicitation => {}
    }
    if kind.is_primitive() {
        handled.extend(primitive(kind, o, n, out));
    }
    // Whatever is left: extensions and descriptive fields.
    for k in union_keys(o.view.as_object(), n.view.as_object()) {
        if handled.contains(&k.as_str()) || o.get(k) == n.get(k) {
            continue;
        }
        let (rule, msg) = if is_extension(k) {
            (
                ExtensionChanged,
                Message::new().text("extension ").quote(k).text(" changed"),
            )
        } else {
            (
                MetadataChanged,
                Message::new().text("`").text(k.as_str()).text("` changed"),
            )
        };
        out.push(raw(rule, Some(o.at_or_decl(k)), Some(n.at_or_decl(k)), msg));
    }
}

/// A string field; `show` quotes both values (short fields such as titles).
fn text(o: Side<'_>, n: Side<'_>, key: &str, rule: RuleId, show: bool, out: &mut Vec<Raw>) {
    let (a, b) = (o.get(key), n.get(key));
    if a == b {
        return;
    }
    let msg = Message::new().text(format!("`{key}`"));
    let msg = if show {
        change(msg, a, b)
    } else {
        msg.text(" changed")
    };
    out.push(raw(
        rule,
        Some(o.at_or_decl(key)),
        Some(n.at_or_decl(key)),
        msg,
    ));
}

fn tool(o: Side<'_>, n: Side<'_>, out: &mut Vec<Raw>) {
    schema_pair(o, n, "inputSchema", Dir::Input, out);
    match (o.get("outputSchema"), n.get("outputSchema")) {
        (Some(_), Some(_)) => schema_pair(o, n, "outputSchema", Dir::Output, out),
        (Some(_), None) => {
            let msg = Message::new()
                .text("`outputSchema` removed: clients lose the structured-content contract");
            out.push(raw(
                OutputSchemaRemoved,
                Some(o.at("outputSchema")),
                Some(n.ptr.to_string()),
                msg,
            ));
        }
        (None, Some(_)) => {
            let msg = Message::new().text("`outputSchema` added");
            out.push(raw(
                OutputSchemaAdded,
                Some(o.ptr.to_string()),
                Some(n.at("outputSchema")),
                msg,
            ));
        }
        (None, None) => {}
    }
    annotations(o, n, out);
    task_support(o, n, out);
}

/// Compares a schema field, following a `$componentRef` at the use site (§17.3).
fn schema_pair(o: Side<'_>, n: Side<'_>, key: &str, dir: Dir, out: &mut Vec<Raw>) {
    let (Some(a), Some(b)) = (o.get(key), n.get(key)) else {
        return;
    };
    let (ap, bp) = (o.at(key), n.at(key));
    let resolve = |doc: &'_ Value, v: &'_ Value, p: &str| -> (Value, String) {
        match refs::resolve(doc, v, "schemas") {
            Ok((t, Some(at))) => (t.clone(), at),
            Ok((t, None)) => (t.clone(), p.to_string()),
            Err(_) => (v.clone(), p.to_string()),
        }
    };
    // Inline schemas (the common case) are borrowed from the view, not cloned.
    let (oa, ob);
    let (ar, aptr): (&Value, String) = if refs::is_reference(a) {
        let (v, p) = resolve(o.doc, a, &ap);
        oa = v;
        (&oa, p)
    } else {
        (a, ap)
    };
    let (br, bptr): (&Value, String) = if refs::is_reference(b) {
        let (v, p) = resolve(n.doc, b, &bp);
        ob = v;
        (&ob, p)
    } else {
        (b, bp)
    };
    out.extend(schema::compare(
        dir,
        Resource {
            root: ar,
            ptr: &aptr,
        },
        Resource {
            root: br,
            ptr: &bptr,
        },
    ));
}

/// Tool behavior hints (§9.6) with their defaults; `safe` is the value that claims
/// less risk. `destructiveHint`/`idempotentHint` only mean something for a tool that is
/// not read-only (MCP's ToolAnnotations), so they are compared only when neither side
/// is read-only.
fn annotations(o: Side<'_>, n: Side<'_>, out: &mut Vec<Raw>) {
    const HINTS: [(&str, bool, bool); 4] = [
        ("readOnlyHint", false, true),
        ("destructiveHint", true, false),
        ("idempotentHint", false, true),
        ("openWorldHint", true, false),
    ];
    let (oa, na) = (o.get("annotations"), n.get("annotations"));
    let hint = |a: Option<&Value>, k: &str| a.and_then(|m| m.get(k)).and_then(Value::as_bool);
    let read_only = |a| hint(a, "readOnlyHint").unwrap_or(false);
    let both_writable = !read_only(oa) && !read_only(na);
    for (k, default, safe) in HINTS {
        if matches!(k, "destructiveHint" | "idempotentHint") && !both_writable {
            continue;
        }
        let (x, y) = (
            hint(oa, k).unwrap_or(default),
            hint(na, k).unwrap_or(default),
        );
        if x == y {
            continue;
        }
        let rule = if x == safe {
            ToolAnnotationRiskRaised
        } else {
            ToolAnnotationRiskLowered
        };
        let show = |raw: Option<bool>, eff: bool| match raw {
            Some(b) => b.to_string(),
            None => format!("absent ({eff})"),
        };
        let msg = Message::new().text(format!(
            "`{k}` {} → {}",
            show(hint(oa, k), x),
            show(hint(na, k), y)
        ));
        let p = |s: Side<'_>| match s.get("annotations") {
            Some(a) if a.get(k).is_some() => at(&s.at("annotations"), k),
            _ => s.at_or_decl("annotations"),
        };
        out.push(raw(rule, Some(p(o)), Some(p(n)), msg));
    }
    let keys = union_keys(oa.and_then(Value::as_object), na.and_then(Value::as_object));
    for k in keys {
        if HINTS.iter().any(|h| h.0 == k) {
            continue;
        }
        let (x, y) = (oa.and_then(|m| m.get(k)), na.and_then(|m| m.get(k)));
        if x != y {
            let msg = change(Message::new().text("annotation ").quote(k), x, y);
            out.push(raw(
                ToolAnnotationChanged,
                Some(o.at("annotations")),
                Some(n.at("annotations")),
                msg,
            ));
        }
    }
}

/// `execution.taskSupport` (§9.7, default `forbidden`) as the set of ways a client
/// may call the tool: plainly, as a task, or both.
fn task_support(o: Side<'_>, n: Side<'_>, out: &mut Vec<Raw>) {
    let mode = |s: Side<'_>| {
        s.get("execution")
            .and_then(|e| e.get("taskSupport"))
            .and_then(Value::as_str)
            .unwrap_or("forbidden")
            .to_string()
    };
    let ways = |m: &str| match m {
        "optional" => (true, true),
        "required" => (false, true),
        _ => (true, false),
    };
    let (a, b) = (mode(o), mode(n));
    if a != b {
        let (x, y) = (ways(&a), ways(&b));
        let kept = (!x.0 || y.0) && (!x.1 || y.1);
        let rule = if kept {
            ToolTaskSupportWidened
        } else {
            ToolTaskSupportNarrowed
        };
        let msg = Message::new()
            .text("`execution.taskSupport` ")
            .quote(&a)
            .text(" → ")
            .quote(&b);
        out.push(raw(
            rule,
            Some(o.at_or_decl("execution")),
            Some(n.at_or_decl("execution")),
            msg,
        ));
    }
    let (oe, ne) = (o.get("execution"), n.get("execution"));
    for k in union_keys(oe.and_then(Value::as_object), ne.and_then(Value::as_object)) {
        if k != "taskSupport" && oe.and_then(|m| m.get(k)) != ne.and_then(|m| m.get(k)) {
            let rule = if is_extension(k) {
                ExtensionChanged
            } else {
                MetadataChanged
            };
            let msg = Message::new()
                .text("`execution.")
                .text(k.as_str())
                .text("` changed");
            out.push(raw(
                rule,
                Some(o.at_or_decl("execution")),
                Some(n.at_or_decl("execution")),
                msg,
            ));
        }
    }
}

fn prompt_arguments<'a>(o: Side<'a>, n: Side<'a>, out: &mut Vec<Raw>) {
    let required = |v: &Value| v.get("required") == Some(&Value::Bool(true));
    let (names, oa, na) = named(o.get("arguments"), n.get("arguments"));
    for nm in names {
        let ptr = |s: Side<'_>, i: usize| format!("{}/arguments/{i}", s.ptr);
        let base = Message::new().text("argument ").quote(&nm);
        match (oa.get(&nm), na.get(&nm)) {
            (Some((i, _)), None) => out.push(raw(
                PromptArgumentRemoved,
                Some(ptr(o, *i)),
                Some(n.at_or_decl("arguments")),
                base.text(" removed"),
            )),
            (None, Some((j, v))) => {
                let (rule, what) = if required(v) {
                    (PromptArgumentRequired, " added as required")
                } else {
                    (PromptArgumentAdded, " added (optional)")
                };
                out.push(raw(
                    rule,
                    Some(o.at_or_decl("arguments")),
                    Some(ptr(n, *j)),
                    base.text(what),
                ));
            }
            (Some((i, a)), Some((j, b))) => {
                let (pa, pb) = (ptr(o, *i), ptr(n, *j));
                if required(a) != required(b) {
                    let (rule, what) = if required(b) {
                        (PromptArgumentRequired, " is now required")
                    } else {
                        (PromptArgumentOptional, " is no longer required")
                    };
                    out.push(raw(
                        rule,
                        Some(at(&pa, "required")),
                        Some(at(&pb, "required")),
                        base.clone().text(what),
                    ));
                }
                for k in union_keys(a.as_object(), b.as_object()) {
                    if matches!(k.as_str(), "name" | "required") || a.get(k) == b.get(k) {
                        continue;
                    }
                    let rule = match k.as_str() {
                        "title" => TitleChanged,
                        "description" => DescriptionChanged,
                        k if is_extension(k) => ExtensionChanged,
                        _ => MetadataChanged,
                    };
                    let msg = base.clone().text(": `").text(k.as_str()).text("` changed");
                    out.push(raw(rule, Some(at(&pa, k)), Some(at(&pb, k)), msg));
                }
            }
            (None, None) => {}
        }
    }
}

/// What every primitive has: deprecation, security, client requirements, elicitations,
/// examples, descriptive metadata. Returns the keys it handled.
fn primitive(kind: DeclKind, o: Side<'_>, n: Side<'_>, out: &mut Vec<Raw>) -> [&'static str; 7] {
    let dep = |s: Side<'_>| s.get("deprecated") == Some(&Value::Bool(true));
    match (dep(o), dep(n)) {
        (false, true) => out.push(raw(
            DeclarationDeprecated,
            Some(o.ptr.to_string()),
            Some(n.at("deprecated")),
            Message::new().text("now deprecated"),
        )),
        (true, false) => out.push(raw(
            DeclarationUndeprecated,
            Some(o.at("deprecated")),
            Some(n.ptr.to_string()),
            Message::new().text("no longer deprecated"),
        )),
        _ => {}
    }
    effective_security(o, n, out);
    client_requirements(o, n, out);
    elicitations(o, n, out);
    for key in ["examples", "interactionExamples", "completionExamples"] {
        let ns = if key == "examples" {
            kind.example_namespace()
        } else {
            None
        };
        if !examples_equal(o, n, key, ns) {
            let msg = Message::new().text(format!("`{key}` changed"));
            out.push(raw(
                ExamplesChanged,
                Some(o.at_or_decl(key)),
                Some(n.at_or_decl(key)),
                msg,
            ));
        }
    }
    [
        "deprecated",
        "security",
        "clientRequirements",
        "elicitations",
        "examples",
        "interactionExamples",
        "completionExamples",
    ]
}

fn examples_equal(o: Side<'_>, n: Side<'_>, key: &str, ns: Option<&str>) -> bool {
    let (a, b) = (o.get(key), n.get(key));
    if a != b {
        return false;
    }
    let (Some(ns), Some(map)) = (ns, a.and_then(Value::as_object)) else {
        return true;
    };
    map.values().filter(|v| refs::is_reference(v)).all(|v| {
        match (refs::resolve(o.doc, v, ns), refs::resolve(n.doc, v, ns)) {
            (Ok((x, _)), Ok((y, _))) => x == y,
            _ => false,
        }
    })
}

/// Effective security of a primitive or transport (§7.5): its own, else the root's.
/// When neither side declares its own, the root comparison already covers it.
fn effective_security<'a>(o: Side<'a>, n: Side<'a>, out: &mut Vec<Raw>) {
    let (a, b) = (o.get("security"), n.get("security"));
    if a.is_none() && b.is_none() {
        return;
    }
    let eff = |own: Option<&'a Value>, s: Side<'a>| match (own, s.doc.get("security")) {
        (Some(v), _) => (Some(v), s.at("security")),
        (None, Some(root)) => (Some(root), "/security".to_string()),
        (None, None) => (None, s.ptr.to_string()),
    };
    let ((x, xp), (y, yp)) = (eff(a, o), eff(b, n));
    out.extend(security::compare(x, y, xp, yp));
}

/// Paths of declared capabilities: every member whose value is an object or `true`
/// (scalars other than booleans count with their value). `protocolVersions` and the
/// extensions of MCP Description-defined objects (depth ≤ 1) are left out.
fn cap_paths(v: &Value, ptr: &str, label: &str, depth: usize, out: &mut Vec<(String, String)>) {
    let Some(m) = v.as_object() else { return };
    for (k, c) in m {
        if k == "protocolVersions" || (depth <= 1 && is_extension(k)) {
            continue;
        }
        let l = if label.is_empty() {
            k.clone()
        } else {
            format!("{label}.{k}")
        };
        let p = at(ptr, k);
        match c {
            Value::Object(_) => {
                out.push((l.clone(), p.clone()));
                cap_paths(c, &p, &l, depth + 1, out);
            }
            Value::Bool(true) => out.push((l, p)),
            Value::Bool(false) | Value::Null => {}
            other => out.push((format!("{l}={other}"), p)),
        }
    }
}

/// Compares two capability-shaped objects; only the shallowest removed or added path
/// is reported.
fn capability_like(
    a: &Value,
    b: &Value,
    ap: &str,
    bp: &str,
    rules: (RuleId, RuleId),
    noun: &str,
    out: &mut Vec<Raw>,
) {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    cap_paths(a, ap, "", 0, &mut x);
    cap_paths(b, bp, "", 0, &mut y);
    let labels =
        |v: &[(String, String)]| -> HashSet<String> { v.iter().map(|p| p.0.clone()).collect() };
    let (xl, yl) = (labels(&x), labels(&y));
    let gone: Vec<&(String, String)> = x.iter().filter(|p| !yl.contains(&p.0)).collect();
    let new: Vec<&(String, String)> = y.iter().filter(|p| !xl.contains(&p.0)).collect();
    // A path under another reported path is not reported again.
    let under =
        |l: &str, set: &HashSet<String>| l.match_indices('.').any(|(i, _)| set.contains(&l[..i]));
    let (gl, nl): (HashSet<String>, HashSet<String>) = (
        gone.iter().map(|p| p.0.clone()).collect(),
        new.iter().map(|p| p.0.clone()).collect(),
    );
    for p in &gone {
        if !under(&p.0, &gl) {
            let msg = Message::new()
                .text(format!("{noun} "))
                .quote(&p.0)
                .text(" removed");
            out.push(raw(rules.0, Some(p.1.clone()), Some(bp.to_string()), msg));
        }
    }
    for p in &new {
        if !under(&p.0, &nl) {
            let msg = Message::new()
                .text(format!("{noun} "))
                .quote(&p.0)
                .text(" added");
            out.push(raw(rules.1, Some(ap.to_string()), Some(p.1.clone()), msg));
        }
    }
}

fn capabilities(a: &Value, b: &Value, ap: &str, bp: &str, out: &mut Vec<Raw>) {
    capability_like(
        a,
        b,
        ap,
        bp,
        (CapabilityRemoved, CapabilityAdded),
        "capability",
        out,
    );
    // Extensions of the Capabilities Object and its tools/resources/prompts objects.
    let mut ext = |x: Option<&Value>, y: Option<&Value>, xp: String, yp: String| {
        for k in union_keys(x.and_then(Value::as_object), y.and_then(Value::as_object)) {
            if is_extension(k) && x.and_then(|m| m.get(k)) != y.and_then(|m| m.get(k)) {
                let msg = Message::new().text("extension ").quote(k).text(" changed");
                out.push(raw(
                    ExtensionChanged,
                    Some(xp.clone()),
                    Some(yp.clone()),
                    msg,
                ));
            }
        }
    };
    ext(Some(a), Some(b), ap.to_string(), bp.to_string());
    for k in ["tools", "resources", "prompts"] {
        ext(a.get(k), b.get(k), at(ap, k), at(bp, k));
    }
}

fn client_requirements(o: Side<'_>, n: Side<'_>, out: &mut Vec<Raw>) {
    let empty = Value::Object(Map::new());
    let (a, b) = (o.get("clientRequirements"), n.get("clientRequirements"));
    if a == b {
        return;
    }
    let (ap, bp) = (
        o.at_or_decl("clientRequirements"),
        n.at_or_decl("clientRequirements"),
    );
    capability_like(
        a.unwrap_or(&empty),
        b.unwrap_or(&empty),
        &ap,
        &bp,
        (ClientRequirementRemoved, ClientRequirementAdded),
        "client capability",
        out,
    );
    for k in union_keys(a.and_then(Value::as_object), b.and_then(Value::as_object)) {
        if is_extension(k) && a.and_then(|m| m.get(k)) != b.and_then(|m| m.get(k)) {
            let msg = Message::new().text("extension ").quote(k).text(" changed");
            out.push(raw(
                ExtensionChanged,
                Some(ap.clone()),
                Some(bp.clone()),
                msg,
            ));
        }
    }
}

/// Elicitation Declarations by name; pointers into the SOURCE declaration (the view
/// drops out-of-scope ones, so its indices are not the source's).
fn elicitations<'a>(o: Side<'a>, n: Side<'a>, out: &mut Vec<Raw>) {
    let (names, oa, na) = named(o.get("elicitations"), n.get("elicitations"));
    let (_, os, _) = named(o.src.get("elicitations"), None);
    let (_, ns, _) = named(n.src.get("elicitations"), None);
    let src_ptr = |s: Side<'_>, src: &Named<'_>, nm: &str| match src.get(nm) {
        Some((i, _)) => format!("{}/elicitations/{i}", s.ptr),
        None => s.at_or_decl("elicitations"),
    };
    for nm in names {
        let base = Message::new().text("elicitation ").quote(&nm);
        let (rule, what) = match (oa.get(&nm), na.get(&nm)) {
            (Some(_), None) => (ElicitationRemoved, " removed"),
            (None, Some(_)) => (
                ElicitationAdded,
                " added: the primitive may ask the user for input",
            ),
            (Some(a), Some(b)) if a.1 != b.1 => (ElicitationChanged, " changed"),
            _ => continue,
        };
        out.push(raw(
            rule,
            Some(src_ptr(o, &os, &nm)),
            Some(src_ptr(n, &ns, &nm)),
            base.text(what),
        ));
    }
}
