//! The page model: everything either renderer shows, as plain data built once from a
//! validated description and its Effective Protocol Views.
//!
//! Declarations of every kind are [`Decl`]s (the list entry: name, title, summary,
//! tags, scope); what a declaration shows when opened is a [`Detail`] (sections of
//! [`Block`]s). A [`View`] lists, for one protocol revision, which declarations its
//! Effective Protocol View keeps and which detail shows each: views are computed by
//! `mcpdesc_scope::project_declaration` at every declared revision, and a declaration
//! whose projection differs from its source form (nested elicitations out of scope)
//! gets a detail of its own. Every string in the model went through
//! [`crate::text`] (inert text, sanitized HTML or a vetted link).

use crate::schema::{self, SchemaDoc};
use crate::text::{self, Rich, inert, inert_max, json_block, safe_href};
use mcpdesc_core::decl::{decl_scope, is_extension, root_scope};
use mcpdesc_core::provenance::ToolProvenance;
use mcpdesc_core::refs;
use mcpdesc_core::revision::FIELD_FACTS;
use mcpdesc_core::toolsets::{self, TOOLSETS_EXTENSION};
use mcpdesc_core::{DeclKind, Diagnostic, ProtocolRevision, RevisionSet, Severity};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};

/// The whole page.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    /// The page title (`--title`, else the server's title, else its name).
    pub title: String,
    pub info: Info,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Rich>,
    /// Root `protocolVersions`, oldest first, with what each revision lacks.
    pub revisions: Vec<RevisionInfo>,
    /// Validation warnings (the page shows them; errors stop generation).
    pub warnings: Vec<Warning>,
    /// Root `security`, as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<String>,
    /// The root tag catalogue, in display order (§13).
    pub tags: Vec<TagInfo>,
    /// The toolsets `serve --toolsets` accepts (a tool's `x-mcpdesc-toolsets`, else its
    /// tags; [`mcpdesc_core::toolsets`]), by name, with how many tools each has.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub toolsets: Vec<ToolsetInfo>,
    /// The sections of the page, in order, with how many declarations each has.
    pub kinds: Vec<KindInfo>,
    pub decls: Vec<Decl>,
    #[serde(skip)]
    pub details: Vec<Detail>,
    pub views: Vec<View>,
}

/// Server identity (§5).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Info {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Rich>,
    /// Further facts (id, website, contact, license) as fields.
    pub fields: Vec<Field>,
    pub icons: Vec<Icon>,
}

/// An icon: shown inline only when it is a `data:` raster image; otherwise its source
/// is shown as text (remote icons are never fetched, see [`text::inline_image`]).
#[derive(Debug, Clone, Serialize)]
pub struct Icon {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inline: Option<String>,
    /// The source as inert text (cut), for icons not shown inline.
    pub src: String,
    pub note: String,
}

/// One revision of root `protocolVersions`.
#[derive(Debug, Clone, Serialize)]
pub struct RevisionInfo {
    pub id: &'static str,
    /// Declaration fields this revision does not define, from the revision table.
    pub lacks: Vec<Lack>,
}

/// "`field` of `object` is not defined here" (from `mcpdesc_core::revision`).
#[derive(Debug, Clone, Serialize)]
pub struct Lack {
    /// The declaration kind key (`tools`, …) it concerns.
    pub kind: &'static str,
    pub field: &'static str,
    /// Where the field exists, e.g. "from MCP 2025-06-18 on".
    pub phrase: String,
}

/// A validation warning.
#[derive(Debug, Clone, Serialize)]
pub struct Warning {
    pub code: String,
    pub message: String,
    pub pointer: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// One entry of the root tag catalogue.
#[derive(Debug, Clone, Serialize)]
pub struct TagInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Rich>,
}

/// One toolset: its name, its tools (declarations; a protocol-scoped variant counts
/// once each) and the root tag's description of the same name.
#[derive(Debug, Clone, Serialize)]
pub struct ToolsetInfo {
    pub name: String,
    pub tools: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Rich>,
}

/// A section of the page.
#[derive(Debug, Clone, Serialize)]
pub struct KindInfo {
    /// `transports`, `capabilities`, `tools`, `resources`, `resourceTemplates`,
    /// `prompts`, `securitySchemes`, `components`.
    pub key: &'static str,
    pub label: &'static str,
    /// Whether its declarations have protocol scopes (views filter them).
    pub scoped: bool,
}

/// A declaration as listed.
#[derive(Debug, Clone, Serialize)]
pub struct Decl {
    pub kind: &'static str,
    /// Stable anchor (`tools-3`).
    pub anchor: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// The whole description as inert text, for search (`name`, `title`, description).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub search: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// A tool's explicit `x-mcpdesc-toolsets` (without it, its tags are its toolsets).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub toolsets: Vec<String>,
    /// Effective protocol scope (scoped kinds only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Vec<&'static str>>,
    /// Whether the scope is narrower than the document's (a protocol-scoped variant).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub narrowed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// Short badges for the list (annotations, HTTP method).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub badges: Vec<Badge>,
    /// Index of the detail shown in "all revisions".
    pub detail: usize,
}

/// What an opened declaration shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Detail {
    pub sections: Vec<Section>,
}

/// A headed part of a detail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// Empty for the opening section.
    pub heading: String,
    pub blocks: Vec<Block>,
}

/// Content of a section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "t", rename_all = "camelCase")]
pub enum Block {
    /// A description: sanitized HTML (page) and inert text (Markdown).
    Rich(Rich),
    /// Key/value facts.
    Fields { items: Vec<Field> },
    /// Annotation badges.
    Badges { items: Vec<Badge> },
    /// A schema as tables.
    Schema(SchemaDoc),
    /// A named example: labelled parts (input, steps, result) as JSON text.
    Example { name: String, parts: Vec<Part> },
    /// A JSON value as text.
    Code { text: String },
    /// A sentence.
    Note { text: String },
}

/// A key/value fact; `href` is a vetted link (see [`text::safe_href`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    pub key: String,
    pub value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub code: bool,
}

/// A badge: `label: value`, whether the value is the spec's default (absent), and a tone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Badge {
    pub label: String,
    pub value: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    /// `warn` (destructive, deprecated), `ok`, or `info`.
    pub tone: &'static str,
}

/// One labelled part of an example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    pub label: String,
    pub text: String,
}

/// The Effective Protocol View of one revision: `[decl, detail]` pairs, page order.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub revision: &'static str,
    pub items: Vec<[usize; 2]>,
}

/// The sections of the page, in order: (key, label, scoped kind).
const KINDS: [(&str, &str, Option<DeclKind>); 8] = [
    ("transports", "Transports", Some(DeclKind::Transport)),
    ("capabilities", "Capabilities", Some(DeclKind::Capabilities)),
    ("tools", "Tools", Some(DeclKind::Tool)),
    ("resources", "Resources", Some(DeclKind::Resource)),
    (
        "resourceTemplates",
        "Resource templates",
        Some(DeclKind::ResourceTemplate),
    ),
    ("prompts", "Prompts", Some(DeclKind::Prompt)),
    ("securitySchemes", "Security schemes", None),
    ("components", "Components", None),
];

/// Builds the page of a description that passed validation (`warnings` are the
/// validator's non-error diagnostics, positions added by the caller).
pub fn build(doc: &Value, title: Option<&str>, warnings: &[Diagnostic]) -> Page {
    let root = root_scope(doc);
    let mut b = Builder {
        doc,
        root,
        decls: Vec::new(),
        details: Vec::new(),
        extra: Default::default(),
    };
    let info = info(doc.get("info"));
    let page_title = title
        .map(inert)
        .or_else(|| info.title.clone())
        .unwrap_or_else(|| info.name.clone());

    // "All revisions": every declaration in source order, with its effective scope.
    // Details are independent of each other: built on every core.
    let mut sources: Vec<(DeclKind, Vec<usize>)> = Vec::new();
    for (key, _, kind) in KINDS {
        match kind {
            Some(kind) => {
                let items: &[Value] = doc
                    .get(kind.collection())
                    .and_then(Value::as_array)
                    .map_or(&[], Vec::as_slice);
                let details: Vec<Detail> = items
                    .par_iter()
                    .map(|d| b.detail(kind, d, decl_scope(d, root)))
                    .collect();
                let mut idx = Vec::new();
                for (i, (d, detail)) in items.iter().zip(details).enumerate() {
                    idx.push(b.scoped_decl(key, kind, i, d, detail));
                }
                sources.push((kind, idx));
            }
            None if key == "securitySchemes" => b.security_schemes(),
            None => b.components(),
        }
    }

    // One view per declared revision, from the scope crate's projection.
    // One view per declared revision (§4.12): a declaration is in the view of `rev` when
    // its effective scope has it; what it shows there is the scope crate's projection of
    // the declaration, computed only where it differs from the source beyond the dropped
    // scope (nested elicitations with scopes of their own), so a 1,500-tool description
    // is not copied once per revision.
    let mut views = Vec::new();
    for rev in root.iter() {
        let mut items = Vec::new();
        for (kind, idx) in &sources {
            let src = doc.get(kind.collection()).and_then(Value::as_array);
            for (source, &decl) in src.into_iter().flatten().zip(idx) {
                if !decl_scope(source, root).contains(rev) {
                    continue;
                }
                let detail = b.view_detail(*kind, decl, source, rev);
                items.push([decl, detail]);
            }
        }
        // Unscoped kinds appear in every view.
        for (i, d) in b.decls.iter().enumerate() {
            if d.scope.is_none() {
                items.push([i, d.detail]);
            }
        }
        items.sort_by_key(|[d, _]| *d);
        views.push(View {
            revision: rev.as_str(),
            items,
        });
    }

    let revisions = root
        .iter()
        .map(|rev| RevisionInfo {
            id: rev.as_str(),
            lacks: lacks(rev),
        })
        .collect();
    Page {
        title: page_title,
        info,
        instructions: doc
            .get("instructions")
            .and_then(Value::as_str)
            .map(text::rich),
        revisions,
        warnings: warnings
            .iter()
            .filter(|d| d.severity != Severity::Error)
            .map(|d| Warning {
                code: inert_max(&d.code, 100),
                message: inert(&d.message),
                pointer: inert_max(&d.pointer, 500),
                line: d.line,
                column: d.column,
            })
            .collect(),
        security: doc.get("security").map(security_text),
        tags: doc
            .get("tags")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|t| TagInfo {
                name: str_of(t, "name"),
                description: t.get("description").and_then(Value::as_str).map(text::rich),
            })
            .collect(),
        toolsets: toolsets::toolsets(doc)
            .into_iter()
            .map(|(name, t)| ToolsetInfo {
                name: inert_max(&name, 200),
                tools: t.tools.len(),
                description: t.description.as_deref().map(text::rich),
            })
            .collect(),
        kinds: KINDS
            .iter()
            .map(|(key, label, kind)| KindInfo {
                key,
                label,
                scoped: kind.is_some(),
            })
            .collect(),
        decls: b.decls,
        details: b.details,
        views,
    }
}

/// Declaration fields `rev` does not define (the revision table's field facts).
fn lacks(rev: ProtocolRevision) -> Vec<Lack> {
    FIELD_FACTS
        .iter()
        .filter(|f| !f.feature.available_in(rev))
        .filter_map(|f| {
            let kind = match f.object {
                mcpdesc_core::ObjectKind::Tool => "tools",
                mcpdesc_core::ObjectKind::Resource => "resources",
                mcpdesc_core::ObjectKind::ResourceTemplate => "resourceTemplates",
                mcpdesc_core::ObjectKind::Prompt => "prompts",
                mcpdesc_core::ObjectKind::PromptArgument => return None,
            };
            Some(Lack {
                kind,
                field: f.field,
                phrase: f.feature.phrase(),
            })
        })
        .collect()
}

struct Builder<'a> {
    doc: &'a Value,
    root: RevisionSet,
    decls: Vec<Decl>,
    details: Vec<Detail>,
    /// Details made for one declaration's projections (by declaration index).
    extra: std::collections::BTreeMap<usize, Vec<usize>>,
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .map(inert)
        .unwrap_or_default()
}

fn opt_str(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(inert)
}

fn field(key: &str, value: impl Into<String>) -> Field {
    Field {
        key: key.to_string(),
        value: value.into(),
        href: None,
        code: false,
    }
}

fn code_field(key: &str, value: impl Into<String>) -> Field {
    Field {
        code: true,
        ..field(key, value)
    }
}

fn link_field(key: &str, url: &str) -> Field {
    Field {
        href: safe_href(url),
        ..code_field(key, inert_max(url, 2_000))
    }
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => inert(s),
        other => text::json_cell(other),
    }
}

fn info(info: Option<&Value>) -> Info {
    let Some(i) = info else {
        return Info::default();
    };
    let mut fields = Vec::new();
    if let Some(id) = i.get("id").and_then(Value::as_str) {
        fields.push(code_field("id", inert(id)));
    }
    if let Some(u) = i.get("websiteUrl").and_then(Value::as_str) {
        fields.push(link_field("website", u));
    }
    if let Some(c) = i.get("contact") {
        if let Some(n) = c.get("name").and_then(Value::as_str) {
            fields.push(field("contact", inert(n)));
        }
        if let Some(u) = c.get("url").and_then(Value::as_str) {
            fields.push(link_field("contact URL", u));
        }
        if let Some(e) = c.get("email").and_then(Value::as_str) {
            let mut f = code_field("contact email", inert_max(e, 500));
            f.href = safe_href(&format!("mailto:{e}"));
            fields.push(f);
        }
    }
    if let Some(l) = i.get("license") {
        fields.push(field("license", str_of(l, "name")));
        if let Some(u) = l.get("url").and_then(Value::as_str) {
            fields.push(link_field("license URL", u));
        }
    }
    Info {
        name: str_of(i, "name"),
        title: opt_str(i, "title"),
        version: str_of(i, "version"),
        description: i.get("description").and_then(Value::as_str).map(text::rich),
        fields,
        icons: icons(i.get("icons")),
    }
}

fn icons(v: Option<&Value>) -> Vec<Icon> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|ic| {
            let src = ic.get("src").and_then(Value::as_str).unwrap_or("");
            let mut note: Vec<String> = Vec::new();
            if let Some(m) = ic.get("mimeType").and_then(Value::as_str) {
                note.push(inert_max(m, 100));
            }
            if let Some(s) = ic.get("sizes").and_then(Value::as_array) {
                let sizes: Vec<String> = s
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| inert_max(s, 50))
                    .collect();
                if !sizes.is_empty() {
                    note.push(sizes.join(" "));
                }
            }
            if let Some(t) = ic.get("theme").and_then(Value::as_str) {
                note.push(format!("{} theme", inert_max(t, 50)));
            }
            Icon {
                inline: text::inline_image(src),
                src: inert_max(src, 200),
                note: note.join(", "),
            }
        })
        .collect()
}

/// Security Requirement Array as words (§7.3, §7.4): alternatives joined by "or",
/// schemes of one requirement by "and".
pub fn security_text(v: &Value) -> String {
    let Some(alts) = v.as_array() else {
        return "(not an array)".into();
    };
    if alts.is_empty() {
        return "none: `[]` clears inherited requirements".into();
    }
    alts.iter()
        .map(|req| match req.as_object() {
            Some(m) if m.is_empty() => "anonymous access".to_string(),
            Some(m) => m
                .iter()
                .map(|(name, scopes)| {
                    let scopes: Vec<String> = scopes
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(|s| inert_max(s, 200))
                        .collect();
                    if scopes.is_empty() {
                        inert_max(name, 200)
                    } else {
                        format!("{} ({})", inert_max(name, 200), scopes.join(", "))
                    }
                })
                .collect::<Vec<_>>()
                .join(" and "),
            None => "?".into(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

impl Builder<'_> {
    fn push(&mut self, decl: Decl, detail: Detail) -> usize {
        self.details.push(detail);
        let mut decl = decl;
        decl.detail = self.details.len() - 1;
        self.decls.push(decl);
        self.decls.len() - 1
    }

    fn scoped_decl(
        &mut self,
        key: &'static str,
        kind: DeclKind,
        i: usize,
        d: &Value,
        detail: Detail,
    ) -> usize {
        let scope = decl_scope(d, self.root);
        let name = match kind {
            DeclKind::Transport => {
                let t = str_of(d, "type");
                let target = opt_str(d, "url")
                    .or_else(|| opt_str(d, "command"))
                    .unwrap_or_default();
                format!("{t} {target}").trim().to_string()
            }
            DeclKind::Capabilities => format!("capabilities #{}", i + 1),
            _ => kind
                .identity_key()
                .map(|k| str_of(d, k))
                .unwrap_or_default(),
        };
        let description = d.get("description").and_then(Value::as_str).unwrap_or("");
        let title = opt_str(d, "title").or_else(|| {
            d.get("annotations")
                .and_then(|a| a.get("title"))
                .and_then(Value::as_str)
                .map(inert)
        });
        let mut search = inert(description);
        if matches!(kind, DeclKind::Resource | DeclKind::ResourceTemplate) {
            search = format!("{} {search}", str_of(d, "name"));
        }
        let decl = Decl {
            kind: key,
            anchor: format!("{key}-{i}"),
            name,
            title,
            summary: text::summary(description),
            search,
            tags: d
                .get("tags")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|t| inert_max(t, 200))
                .collect(),
            toolsets: if kind == DeclKind::Tool && d.get(TOOLSETS_EXTENSION).is_some() {
                toolsets::toolsets_of(d)
                    .into_iter()
                    .map(|t| inert_max(t, 200))
                    .collect()
            } else {
                Vec::new()
            },
            scope: Some(scope.iter().map(ProtocolRevision::as_str).collect()),
            narrowed: scope != self.root,
            deprecated: d.get("deprecated").and_then(Value::as_bool) == Some(true),
            badges: list_badges(kind, d),
            detail: 0,
        };
        self.push(decl, detail)
    }

    /// The detail shown for `source` at `rev`: the source's own unless the projection
    /// changes the declaration beyond dropping its scope (nested scoped elicitations),
    /// then one made from `mcpdesc_scope::project_declaration` (shared between the
    /// revisions where it is the same).
    fn view_detail(
        &mut self,
        kind: DeclKind,
        decl: usize,
        source: &Value,
        rev: ProtocolRevision,
    ) -> usize {
        let base = self.decls[decl].detail;
        let nested_scopes = source
            .get("elicitations")
            .and_then(Value::as_array)
            .is_some_and(|els| els.iter().any(|e| e.get("protocolVersions").is_some()));
        if !nested_scopes {
            return base;
        }
        let Some(projected) = mcpdesc_scope::project_declaration(kind, source, self.root, rev)
        else {
            return base;
        };
        let detail = self.detail(kind, &projected, RevisionSet::single(rev));
        let known = self.extra.get(&decl).cloned().unwrap_or_default();
        if let Some(i) = known.into_iter().find(|&i| self.details[i] == detail) {
            return i;
        }
        self.details.push(detail);
        let i = self.details.len() - 1;
        self.extra.entry(decl).or_default().push(i);
        i
    }

    /// A declaration's page: its overview, then one section per part it has, in the
    /// order the page shows them.
    fn detail(&self, kind: DeclKind, d: &Value, scope: RevisionSet) -> Detail {
        let mut s = Sections::default();
        s.push("", overview(kind, d));

        if kind == DeclKind::Tool {
            self.tool_sections(&mut s, d);
        }
        if kind == DeclKind::Prompt {
            if let Some(args) = d.get("arguments").and_then(Value::as_array) {
                s.push("Arguments", vec![Block::Schema(prompt_arguments(args))]);
            }
        }
        if matches!(kind, DeclKind::Resource | DeclKind::ResourceTemplate) {
            if let Some(a) = d.get("annotations").and_then(Value::as_object) {
                let items = a
                    .iter()
                    .map(|(k, v)| code_field(&inert_max(k, 200), text::json_cell(v)))
                    .collect();
                s.push("Annotations", vec![Block::Fields { items }]);
            }
        }
        if let Some(ex) = kind.example_namespace() {
            s.push("Examples", self.examples(kind, d.get("examples"), ex));
        }
        if let Some(ie) = d.get("interactionExamples").and_then(Value::as_object) {
            s.push("Interaction examples", interaction_examples(ie));
        }
        if let Some(ce) = d.get("completionExamples").and_then(Value::as_object) {
            s.push("Completion examples", completion_examples(ce));
        }
        if let Some(els) = d.get("elicitations").and_then(Value::as_array) {
            s.push("Elicitations", self.elicitation_blocks(els, scope));
        }
        if kind.is_primitive() {
            s.push(
                "Security",
                vec![Block::Fields {
                    items: self.security(d),
                }],
            );
        }
        if let Some(cr) = d.get("clientRequirements") {
            s.push(
                "Client requirements",
                vec![Block::Code {
                    text: json_block(cr),
                }],
            );
        }
        if kind == DeclKind::Tool {
            if let Some(p) = provenance(d) {
                s.push("Provenance", p);
            }
        }
        if let Some(i) = d.get("icons") {
            let items = icons(Some(i))
                .into_iter()
                .map(|ic| field("icon", format!("{} {}", ic.src, ic.note).trim().to_string()))
                .collect();
            s.push("Icons", vec![Block::Fields { items }]);
        }
        if let Some(m) = d.get("_meta") {
            s.push(
                "_meta",
                vec![Block::Code {
                    text: json_block(m),
                }],
            );
        }
        let ext: Map<String, Value> = d
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| is_extension(k) && k.as_str() != mcpdesc_core::provenance::EXTENSION)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !ext.is_empty() {
            s.push(
                "Extensions",
                vec![Block::Code {
                    text: json_block(&Value::Object(ext)),
                }],
            );
        }
        Detail { sections: s.0 }
    }

    /// A Tool's annotations, execution, input and output sections.
    fn tool_sections(&self, s: &mut Sections, d: &Value) {
        s.push(
            "Annotations",
            vec![Block::Badges {
                items: annotation_badges(d.get("annotations")),
            }],
        );
        if let Some(ex) = d.get("execution") {
            let ts = ex.get("taskSupport").and_then(Value::as_str);
            s.push(
                "Execution",
                vec![Block::Fields {
                    items: vec![field(
                        "taskSupport",
                        ts.map(inert)
                            .unwrap_or_else(|| "forbidden (default)".into()),
                    )],
                }],
            );
        }
        s.push("Input", self.schema_blocks(d.get("inputSchema")));
        match d.get("outputSchema") {
            Some(o) => s.push("Output", self.schema_blocks(Some(o))),
            None => s.push(
                "Output",
                vec![Block::Note {
                    text: "no outputSchema: results are unstructured content".into(),
                }],
            ),
        }
    }

    /// Each elicitation's fields and requested schema.
    fn elicitation_blocks(&self, els: &[Value], scope: RevisionSet) -> Vec<Block> {
        let mut blocks = Vec::new();
        for e in els {
            let escope = decl_scope(e, scope);
            let mut items = vec![
                code_field("name", str_of(e, "name")),
                field("mode", str_of(e, "mode")),
            ];
            if e.get("protocolVersions").is_some() {
                items.push(field("protocol revisions", escope.to_strings().join(", ")));
            }
            for key in ["when", "message", "url", "onDecline", "onCancel"] {
                if let Some(v) = e.get(key).and_then(Value::as_str) {
                    items.push(field(key, inert(v)));
                }
            }
            blocks.push(Block::Fields { items });
            if let Some(rs) = e.get("requestedSchema") {
                blocks.extend(self.schema_blocks(Some(rs)));
            }
        }
        blocks
    }

    /// A Tool or elicitation schema, `$componentRef` resolved.
    fn schema_blocks(&self, v: Option<&Value>) -> Vec<Block> {
        let Some(v) = v else {
            return vec![Block::Note {
                text: "no schema".into(),
            }];
        };
        match refs::resolve(self.doc, v, "schemas") {
            Ok((schema, at)) => {
                let mut blocks = Vec::new();
                if let Some(at) = at {
                    blocks.push(Block::Note {
                        text: format!(
                            "component {}",
                            inert_max(at.trim_start_matches("/components/"), 300)
                        ),
                    });
                }
                blocks.push(Block::Schema(schema::document(schema)));
                blocks
            }
            Err(e) => vec![Block::Note {
                text: format!("unresolvable reference: {}", e.code()),
            }],
        }
    }

    fn examples(&self, kind: DeclKind, v: Option<&Value>, ns: &str) -> Vec<Block> {
        let Some(map) = v.and_then(Value::as_object) else {
            return Vec::new();
        };
        map.iter()
            .map(|(name, e)| {
                let (e, at) = match refs::resolve(self.doc, e, ns) {
                    Ok(r) => r,
                    Err(err) => {
                        return Block::Note {
                            text: format!(
                                "example {}: unresolvable reference ({})",
                                inert_max(name, 200),
                                err.code()
                            ),
                        };
                    }
                };
                let mut parts = Vec::new();
                let name = match at {
                    Some(at) => format!(
                        "{} (component {})",
                        inert_max(name, 200),
                        inert_max(at.trim_start_matches("/components/"), 300)
                    ),
                    None => inert_max(name, 200),
                };
                match kind {
                    DeclKind::Tool => parts.push(part("input", e.get("input"))),
                    DeclKind::Prompt => parts.push(part("arguments", e.get("arguments"))),
                    DeclKind::ResourceTemplate => parts.push(part("uri", e.get("uri"))),
                    _ => {}
                }
                parts.push(part("result", e.get("result")));
                parts.retain(|p| !p.text.is_empty());
                Block::Example { name, parts }
            })
            .collect()
    }

    /// Effective security (§7.5): the primitive's own, else root; a transport's own
    /// security replaces root security for that transport.
    fn security(&self, d: &Value) -> Vec<Field> {
        let mut out = Vec::new();
        match (d.get("security"), self.doc.get("security")) {
            (Some(own), _) => out.push(field("effective", security_text(own) + " (declared here)")),
            (None, Some(root)) => out.push(field(
                "effective",
                security_text(root) + " (inherited from the document)",
            )),
            (None, None) => out.push(field("effective", "no mcpdesc-declared requirement")),
        }
        let transports_override = self
            .doc
            .get("transports")
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|t| t.get("security").is_some()));
        if d.get("security").is_none() && transports_override {
            out.push(field(
                "note",
                "a transport's own security replaces the document's for that transport",
            ));
        }
        out
    }

    fn security_schemes(&mut self) {
        let Some(map) = self.doc.get("securitySchemes").and_then(Value::as_object) else {
            return;
        };
        for (i, (name, s)) in map.iter().enumerate() {
            let mut blocks = Vec::new();
            if let Some(desc) = s.get("description").and_then(Value::as_str) {
                blocks.push(Block::Rich(text::rich(desc)));
            }
            let mut items = Vec::new();
            for key in ["type", "scheme", "bearerFormat", "in", "name"] {
                if let Some(v) = s.get(key).and_then(Value::as_str) {
                    items.push(code_field(key, inert(v)));
                }
            }
            if let Some(u) = s.get("openIdConnectUrl").and_then(Value::as_str) {
                items.push(link_field("openIdConnectUrl", u));
            }
            blocks.push(Block::Fields { items });
            if let Some(f) = s.get("flows") {
                blocks.push(Block::Code {
                    text: json_block(f),
                });
            }
            let decl = Decl {
                kind: "securitySchemes",
                anchor: format!("securitySchemes-{i}"),
                name: inert_max(name, 300),
                title: None,
                summary: str_of(s, "type"),
                search: s
                    .get("description")
                    .and_then(Value::as_str)
                    .map(inert)
                    .unwrap_or_default(),
                tags: Vec::new(),
                toolsets: Vec::new(),
                scope: None,
                narrowed: false,
                deprecated: false,
                badges: Vec::new(),
                detail: 0,
            };
            self.push(
                decl,
                Detail {
                    sections: vec![Section {
                        heading: String::new(),
                        blocks,
                    }],
                },
            );
        }
    }

    fn components(&mut self) {
        let Some(c) = self.doc.get("components").and_then(Value::as_object) else {
            return;
        };
        let mut i = 0;
        for (ns, map) in c {
            let Some(map) = map.as_object().filter(|_| !is_extension(ns)) else {
                continue;
            };
            for (name, v) in map {
                let blocks = if ns == "schemas" {
                    self.schema_blocks(Some(v))
                } else {
                    vec![Block::Code {
                        text: json_block(v),
                    }]
                };
                let decl = Decl {
                    kind: "components",
                    anchor: format!("components-{i}"),
                    name: format!("{}/{}", inert_max(ns, 100), inert_max(name, 300)),
                    title: None,
                    summary: v
                        .get("description")
                        .and_then(Value::as_str)
                        .map(text::summary)
                        .unwrap_or_default(),
                    search: String::new(),
                    tags: Vec::new(),
                    toolsets: Vec::new(),
                    scope: None,
                    narrowed: false,
                    deprecated: false,
                    badges: Vec::new(),
                    detail: 0,
                };
                self.push(
                    decl,
                    Detail {
                        sections: vec![Section {
                            heading: String::new(),
                            blocks,
                        }],
                    },
                );
                i += 1;
            }
        }
    }
}

impl Field {
    fn with_code(mut self, code: bool) -> Field {
        self.code = code;
        self
    }
}

#[derive(Default)]
struct Sections(Vec<Section>);

impl Sections {
    fn push(&mut self, heading: &str, blocks: Vec<Block>) {
        if !blocks.is_empty() {
            self.0.push(Section {
                heading: heading.to_string(),
                blocks,
            });
        }
    }
}

/// The overview of a declaration: its description, then its fields.
fn overview(kind: DeclKind, d: &Value) -> Vec<Block> {
    let mut overview = Vec::new();
    if let Some(desc) = d.get("description").and_then(Value::as_str) {
        overview.push(Block::Rich(text::rich(desc)));
    }
    let mut fields = Vec::new();
    match kind {
        DeclKind::Transport => {
            fields.push(field("type", str_of(d, "type")));
            if let Some(u) = d.get("url").and_then(Value::as_str) {
                fields.push(code_field("url", inert_max(u, 2_000)));
            }
            if let Some(c) = d.get("command").and_then(Value::as_str) {
                fields.push(code_field("command", inert(c)));
            }
            if let Some(a) = d.get("args").and_then(Value::as_array) {
                let args: Vec<String> = a.iter().map(scalar_text).collect();
                fields.push(code_field("args", args.join(" ")));
            }
            if let Some(e) = d.get("env").and_then(Value::as_object) {
                for (k, v) in e {
                    fields.push(code_field(
                        &format!("env {}", inert_max(k, 200)),
                        scalar_text(v),
                    ));
                }
            }
        }
        DeclKind::Capabilities => {
            let mut c = d.clone();
            if let Some(m) = c.as_object_mut() {
                m.shift_remove("protocolVersions");
            }
            overview.push(Block::Code {
                text: json_block(&c),
            });
        }
        _ => {
            for key in ["title", "uri", "uriTemplate", "mimeType"] {
                if let Some(v) = d.get(key).and_then(Value::as_str) {
                    fields.push(code_field(key, inert(v)).with_code(key != "title"));
                }
            }
            if kind != DeclKind::Tool && kind != DeclKind::Prompt {
                if let Some(n) = d.get("name").and_then(Value::as_str) {
                    fields.insert(0, code_field("name", inert(n)));
                }
            }
            if let Some(v) = d.get("size") {
                fields.push(field("size", format!("{} bytes", text::json_cell(v))));
            }
        }
    }
    if d.get("deprecated").and_then(Value::as_bool) == Some(true) {
        fields.push(field("deprecated", "yes"));
    }
    if !fields.is_empty() {
        overview.push(Block::Fields { items: fields });
    }
    overview
}

/// Each interaction example: its input, every step's request and response, its result.
fn interaction_examples(ie: &Map<String, Value>) -> Vec<Block> {
    ie.iter()
        .map(|(name, e)| {
            let mut parts = vec![part("input", e.get("input"))];
            for (i, step) in e
                .get("steps")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let ty = step.get("type").and_then(Value::as_str).unwrap_or("?");
                parts.push(part(
                    &format!("step {} · {} request", i + 1, inert_max(ty, 50)),
                    step.get("request"),
                ));
                parts.push(part(
                    &format!("step {} · {} response", i + 1, inert_max(ty, 50)),
                    step.get("response"),
                ));
            }
            parts.push(part("result", e.get("result")));
            Block::Example {
                name: inert_max(name, 200),
                parts,
            }
        })
        .collect()
}

/// Each completion example's argument, context and result (empty parts left out).
fn completion_examples(ce: &Map<String, Value>) -> Vec<Block> {
    ce.iter()
        .map(|(name, e)| Block::Example {
            name: inert_max(name, 200),
            parts: vec![
                part("argument", e.get("argument")),
                part("context", e.get("context")),
                part("result", e.get("result")),
            ]
            .into_iter()
            .filter(|p| !p.text.is_empty())
            .collect(),
        })
        .collect()
}

fn part(label: &str, v: Option<&Value>) -> Part {
    Part {
        label: label.to_string(),
        text: v.map(json_block).unwrap_or_default(),
    }
}

/// The Tool Annotations of §9.6 with their defaults: an absent hint shows the spec's
/// default, marked as such.
fn annotation_badges(a: Option<&Value>) -> Vec<Badge> {
    const HINTS: [(&str, &str, bool); 4] = [
        ("readOnlyHint", "read-only", false),
        ("destructiveHint", "destructive", true),
        ("idempotentHint", "idempotent", false),
        ("openWorldHint", "open-world", true),
    ];
    let mut out: Vec<Badge> = HINTS
        .iter()
        .map(|(key, label, default)| {
            let given = a.and_then(|a| a.get(*key)).and_then(Value::as_bool);
            let value = given.unwrap_or(*default);
            Badge {
                label: label.to_string(),
                value: if value { "yes" } else { "no" }.into(),
                default: given.is_none(),
                tone: match (*key, value) {
                    ("destructiveHint", true) => "warn",
                    ("readOnlyHint", true) => "ok",
                    _ => "info",
                },
            }
        })
        .collect();
    for (k, v) in a.and_then(Value::as_object).into_iter().flatten() {
        if k != "title" && !HINTS.iter().any(|(h, _, _)| h == k) {
            out.push(Badge {
                label: inert_max(k, 100),
                value: text::json_cell(v),
                default: false,
                tone: "info",
            });
        }
    }
    out
}

/// Badges for the list: explicit read-only / destructive hints, HTTP method, deprecation.
fn list_badges(kind: DeclKind, d: &Value) -> Vec<Badge> {
    let mut out = Vec::new();
    if kind == DeclKind::Tool {
        if let Some(Ok(p)) = ToolProvenance::of_tool(d, "") {
            out.push(Badge {
                label: p.method.as_str().into(),
                value: String::new(),
                default: false,
                tone: "info",
            });
        }
        let a = d.get("annotations");
        let hint = |k: &str| a.and_then(|a| a.get(k)).and_then(Value::as_bool);
        if hint("readOnlyHint") == Some(true) {
            out.push(badge("read-only", "ok"));
        } else if hint("destructiveHint") != Some(false) {
            out.push(Badge {
                default: hint("destructiveHint").is_none(),
                ..badge("destructive", "warn")
            });
        }
    }
    if d.get("deprecated").and_then(Value::as_bool) == Some(true) {
        out.push(badge("deprecated", "warn"));
    }
    out
}

fn badge(label: &str, tone: &'static str) -> Badge {
    Badge {
        label: label.into(),
        value: String::new(),
        default: false,
        tone,
    }
}

/// HTTP method and path (and the rest) from `x-mcpdesc-openapi`, read through the
/// core model; a malformed value is shown as such.
fn provenance(d: &Value) -> Option<Vec<Block>> {
    let p = match ToolProvenance::of_tool(d, "")? {
        Ok(p) => p,
        Err(diag) => {
            return Some(vec![Block::Note {
                text: format!(
                    "unreadable {}: {}",
                    mcpdesc_core::provenance::EXTENSION,
                    inert(&diag.message)
                ),
            }]);
        }
    };
    let mut items = vec![code_field(
        "HTTP",
        format!("{} {}", p.method.as_str(), inert_max(&p.path, 2_000)),
    )];
    if let Some(op) = &p.operation_id {
        items.push(code_field("operationId", inert_max(op, 500)));
    }
    for s in &p.servers {
        items.push(code_field("server", inert_max(&s.default_url(), 2_000)));
    }
    if let Some(r) = &p.response {
        if let Ok(Value::Object(m)) = serde_json::to_value(r) {
            for (k, v) in m {
                items.push(code_field(
                    &format!("response {}", inert_max(&k, 100)),
                    scalar_text(&v),
                ));
            }
        }
    }
    Some(vec![Block::Fields { items }])
}

/// Prompt arguments as a one-level table (name, required, description).
fn prompt_arguments(args: &[Value]) -> SchemaDoc {
    let rows = args
        .iter()
        .map(|a| schema::Row {
            depth: 0,
            name: str_of(a, "name"),
            prop: true,
            ty: "string".into(),
            required: a.get("required").and_then(Value::as_bool) == Some(true),
            constraints: opt_str(a, "title")
                .map(|t| format!("title {t}"))
                .into_iter()
                .collect(),
            default: None,
            enumeration: Vec::new(),
            description: a
                .get("description")
                .and_then(Value::as_str)
                .map(|d| inert_max(d, 2_000))
                .unwrap_or_default(),
            link: None,
            cycle: false,
        })
        .collect();
    SchemaDoc {
        tables: vec![schema::Table {
            name: String::new(),
            summary: "arguments (strings)".into(),
            recursive: false,
            rows,
        }],
        notes: Vec::new(),
    }
}
