//! Split (§4.10, §9.4, §9.5, §10.4.4, §12.5): every declaration that is not valid in
//! every revision of its effective scope becomes the fewest disjoint protocol-scoped
//! variants that are each valid and each keep everything their scope allows.
//!
//! Method: for every revision `V` of the scope, [`restrict`] computes the *maximal*
//! form of the declaration that is valid at `V` (every field `V` defines is kept,
//! every field it does not define is made valid by an explicit per-field strategy —
//! see [`LossAction`]). Revisions whose maximal forms are equal share a variant; the
//! partition is therefore the coarsest one under "keep everything the scope allows",
//! i.e. the fewest variants. Nested Elicitation Declarations are not split with their
//! parent: their own `protocolVersions` is narrowed inside each parent variant.
//!
//! All revision facts come from [`mcpdesc_core::revision`].

use crate::equiv::canonical_string;
use crate::kinds::{DeclKind, clear_scope, decl_scope, root_scope, set_scope};
use mcpdesc_core::revision::{
    FIELD_FACTS, ObjectKind, content_types, field_available, field_feature,
};
use mcpdesc_core::{Diagnostic, Feature, ProtocolRevision, RevisionSet, pointer, refs};
use mcpdesc_validate::Validated;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::fmt;

/// How to make a non-object `outputSchema` root valid before
/// [`Feature::OutputSchemaAnyRoot`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputRootStrategy {
    /// Drop `outputSchema` (and non-object `structuredContent` in examples). The
    /// right choice for descriptions of real servers: older revisions get no schema.
    #[default]
    Drop,
    /// Wrap the schema `S` as `{"type":"object","properties":{"result":S},"required":["result"]}`
    /// and example `structuredContent` `x` as `{"result": x}` — for importers that
    /// also control what the server sends (e.g. OpenAPI → MCP).
    Wrap,
}

/// Per-field strategies that have a choice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SplitPolicy {
    /// Non-object `outputSchema` roots before 2026-07-28.
    pub non_object_output_root: OutputRootStrategy,
}

impl SplitPolicy {
    /// The policy for importers that wrap non-object output roots.
    pub fn wrap_output_root() -> Self {
        SplitPolicy {
            non_object_output_root: OutputRootStrategy::Wrap,
        }
    }
}

/// What a split did to a field in some revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossAction {
    /// The field (or example entry) was removed: the revision does not define it.
    Dropped,
    /// A non-object output schema (or structuredContent) was wrapped in `{"result": …}`.
    Wrapped,
    /// A value the revision requires and that is fully determined was added
    /// (`resultType: "complete"` on completed example results).
    Added,
    /// A `$componentRef` was replaced by the adjusted inline value (the component
    /// itself is shared and stays unchanged).
    Inlined,
    /// The whole declaration cannot exist in these revisions (e.g. a URL-mode
    /// elicitation before 2025-11-25, `streamable-http` at 2024-11-05): its scope
    /// was narrowed.
    Removed,
}

impl LossAction {
    fn verb(self) -> &'static str {
        match self {
            LossAction::Dropped => "dropped",
            LossAction::Wrapped => "wrapped in an object",
            LossAction::Added => "added",
            LossAction::Inlined => "inlined",
            LossAction::Removed => "not declared",
        }
    }
}

/// One reported change of a split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SplitLoss {
    /// JSON pointer of the field in the input document (relative to the declaration
    /// for [`split_declaration`]).
    pub pointer: String,
    /// Revisions in which the change applies.
    #[serde(serialize_with = "ser_revs")]
    pub revisions: RevisionSet,
    /// What happened.
    pub action: LossAction,
    /// The revision feature that forced it, when there is one.
    pub feature: Option<Feature>,
}

fn ser_revs<S: serde::Serializer>(r: &RevisionSet, s: S) -> Result<S::Ok, S::Error> {
    r.to_strings().serialize(s)
}

impl fmt::Display for SplitLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} at {}",
            if self.pointer.is_empty() {
                "/"
            } else {
                &self.pointer
            },
            self.action.verb(),
            self.revisions
        )?;
        if let Some(feat) = self.feature {
            let a = feat.availability();
            match a.until {
                Some(u) if u != a.since => write!(f, " (defined {}–{} only)", a.since, u)?,
                Some(u) => write!(f, " (defined in {u} only)")?,
                None => write!(f, " (defined since {})", a.since)?,
            }
        }
        Ok(())
    }
}

impl SplitLoss {
    /// As a warning diagnostic (code `split-loss`).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let field = pointer::tokens(&self.pointer).pop().unwrap_or_default();
        let full = self.to_string();
        // The pointer is the diagnostic's location; the message names just the field.
        let rest = full
            .strip_prefix(self.pointer.as_str())
            .unwrap_or(&full)
            .trim_start();
        Diagnostic::warning("split-loss", format!("`{field}` {rest}")).at(self.pointer.clone())
    }
}

/// One protocol-scoped variant of a split declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// The variant's effective scope.
    pub scope: RevisionSet,
    /// The declaration, with `protocolVersions` set (or omitted when the scope is the
    /// parent's whole scope and the input omitted it too).
    pub value: Value,
    /// What this variant lost relative to the input (pointers relative to the declaration).
    pub losses: Vec<SplitLoss>,
}

/// Splits every declaration of `doc` that is not valid in every revision of its scope
/// (default [`SplitPolicy`]); validates the result. Returns the document and the
/// losses (pointers into the input).
///
/// The input is not validated: making a document whose declarations are invalid in
/// some revisions of their scope valid is what splitting is for. The result is
/// validated once, and returned as the handle its consumers take.
pub fn split(doc: &Value) -> Result<(Validated<'static>, Vec<SplitLoss>), Vec<Diagnostic>> {
    split_with(doc, &SplitPolicy::default())
}

/// [`split`] with a policy.
pub fn split_with(
    doc: &Value,
    policy: &SplitPolicy,
) -> Result<(Validated<'static>, Vec<SplitLoss>), Vec<Diagnostic>> {
    let (out, losses) = split_value(doc, policy)?;
    match mcpdesc_validate::Validator::new().check_owned(out) {
        Ok(valid) => Ok((valid, losses)),
        Err(diags) => Err(diags
            .into_iter()
            .filter(Diagnostic::is_error)
            .map(|mut d| {
                d.message = format!("in the split result: {}", d.message);
                d
            })
            .collect()),
    }
}

/// [`split_with`] without validating the result (the crate's tests of the
/// transformation alone).
pub(crate) fn split_value(
    doc: &Value,
    policy: &SplitPolicy,
) -> Result<(Value, Vec<SplitLoss>), Vec<Diagnostic>> {
    let root = root_scope(doc);
    let Some(obj) = doc.as_object() else {
        return Err(vec![Diagnostic::error(
            "document-not-object",
            "the document root is not an object",
        )]);
    };
    if root.is_empty() {
        return Err(vec![
            Diagnostic::error(
                "missing-protocol-versions",
                "the document declares no known protocol revision in protocolVersions",
            )
            .at("/protocolVersions"),
        ]);
    }
    let mut out = obj.clone();
    let mut losses = Vec::new();
    for kind in DeclKind::TOP_LEVEL {
        let Some(Value::Array(items)) = obj.get(kind.collection()) else {
            continue;
        };
        let mut new_items = Vec::with_capacity(items.len());
        for (j, decl) in items.iter().enumerate() {
            let base = format!("/{}/{j}", kind.collection());
            let variants = split_declaration(kind, decl, root, doc, policy);
            let scope = decl_scope(decl, root).intersection(root);
            if variants.is_empty() && !scope.is_empty() {
                // Representable in none of its revisions: the declaration goes.
                merge_loss(
                    &mut losses,
                    SplitLoss {
                        pointer: base.clone(),
                        revisions: scope,
                        action: LossAction::Removed,
                        feature: None,
                    },
                );
            }
            for v in variants {
                new_items.push(v.value);
                for mut l in v.losses {
                    l.pointer = format!("{base}{}", l.pointer);
                    merge_loss(&mut losses, l);
                }
            }
        }
        if new_items.is_empty() {
            out.shift_remove(kind.collection());
        } else {
            out.insert(kind.collection().to_string(), Value::Array(new_items));
        }
    }
    Ok((Value::Object(out), losses))
}

/// For the OpenAPI importer: splits a Tool whose `outputSchema` root may be a
/// non-object, wrapping it before 2026-07-28 (see [`OutputRootStrategy::Wrap`]).
pub fn split_tool_output_root(tool: &Value, parent: RevisionSet, doc: &Value) -> Vec<Variant> {
    split_declaration(
        DeclKind::Tool,
        tool,
        parent,
        doc,
        &SplitPolicy::wrap_output_root(),
    )
}

/// Splits one declaration whose effective scope under `parent` is computed per §4.10.
/// `doc` is the containing document (for `$componentRef` resolution; pass
/// `&Value::Null` when there is none). Variants are ordered by their oldest revision;
/// a declaration that is valid throughout its scope comes back unchanged as the only
/// variant; revisions where the declaration cannot exist at all get no variant.
pub fn split_declaration(
    kind: DeclKind,
    decl: &Value,
    parent: RevisionSet,
    doc: &Value,
    policy: &SplitPolicy,
) -> Vec<Variant> {
    let scope = decl_scope(decl, parent).intersection(parent);
    let explicit = decl.get("protocolVersions").is_some();
    // Group revisions by the maximal valid form (nested elicitations aside).
    struct G {
        key: String,
        value: Value,
        scope: RevisionSet,
        losses: Vec<SplitLoss>,
    }
    let mut groups: Vec<G> = Vec::new();
    let mut removed = RevisionSet::EMPTY;
    for rev in scope.iter() {
        let Some((value, losses)) = restrict(kind, decl, rev, doc, policy) else {
            removed.insert(rev);
            continue;
        };
        let mut keyed = value.clone();
        clear_scope(&mut keyed);
        if let Some(o) = keyed.as_object_mut() {
            o.shift_remove("elicitations");
        }
        let key = canonical_string(&keyed);
        match groups.iter_mut().find(|g| g.key == key) {
            Some(g) => {
                g.scope.insert(rev);
                for l in losses {
                    merge_loss(&mut g.losses, l);
                }
            }
            None => {
                let mut ls = Vec::new();
                for l in losses {
                    merge_loss(&mut ls, l);
                }
                groups.push(G {
                    key,
                    value,
                    scope: RevisionSet::single(rev),
                    losses: ls,
                });
            }
        }
    }
    let has_elicitations = kind.is_primitive() && decl.get("elicitations").is_some();
    let untouched = removed.is_empty() && groups.len() == 1 && groups[0].losses.is_empty();
    let mut out = Vec::new();
    for (gi, g) in groups.into_iter().enumerate() {
        let mut value = g.value;
        let mut losses = g.losses;
        if gi == 0 && !removed.is_empty() {
            losses.push(SplitLoss {
                pointer: String::new(),
                revisions: removed,
                action: LossAction::Removed,
                feature: None,
            });
        }
        let mut nested_changed = false;
        if has_elicitations {
            nested_changed = split_elicitations(&mut value, g.scope, doc, policy, &mut losses);
        }
        if untouched && !nested_changed {
            return vec![Variant {
                scope: g.scope,
                value: decl.clone(),
                losses,
            }];
        }
        if g.scope == parent && !explicit {
            clear_scope(&mut value);
        } else {
            set_scope(kind, &mut value, g.scope);
        }
        out.push(Variant {
            scope: g.scope,
            value,
            losses,
        });
    }
    if out.is_empty() && !removed.is_empty() {
        // Nowhere representable: no variant; the caller reports the removal.
        return vec![];
    }
    out
}

/// Re-splits the nested elicitations of one parent variant with scope `parent`.
/// Returns whether anything changed.
fn split_elicitations(
    value: &mut Value,
    parent: RevisionSet,
    doc: &Value,
    policy: &SplitPolicy,
    losses: &mut Vec<SplitLoss>,
) -> bool {
    let Some(obj) = value.as_object_mut() else {
        return false;
    };
    let Some(Value::Array(els)) = obj.get("elicitations").cloned() else {
        return false;
    };
    let mut new = Vec::new();
    let mut changed = false;
    for (k, e) in els.iter().enumerate() {
        let vs = split_declaration(DeclKind::Elicitation, e, parent, doc, policy);
        let sc = decl_scope(e, parent).intersection(parent);
        if vs.len() != 1 || vs[0].value != *e || sc.is_empty() {
            changed = true;
        }
        if vs.is_empty() && !sc.is_empty() {
            losses.push(SplitLoss {
                pointer: format!("/elicitations/{k}"),
                revisions: sc,
                action: LossAction::Removed,
                feature: elicitation_feature(e),
            });
        }
        for v in vs {
            for mut l in v.losses {
                l.pointer = format!("/elicitations/{k}{}", l.pointer);
                if l.action == LossAction::Removed && l.feature.is_none() {
                    l.feature = elicitation_feature(e);
                }
                merge_loss(losses, l);
            }
            new.push(v.value);
        }
    }
    if new.is_empty() {
        obj.shift_remove("elicitations");
    } else {
        obj.insert("elicitations".into(), Value::Array(new));
    }
    changed
}

fn elicitation_feature(e: &Value) -> Option<Feature> {
    match e.get("mode").and_then(Value::as_str) {
        Some("url") => Some(Feature::ElicitationUrl),
        _ => None,
    }
}

fn merge_loss(into: &mut Vec<SplitLoss>, l: SplitLoss) {
    match into
        .iter_mut()
        .find(|x| x.pointer == l.pointer && x.action == l.action && x.feature == l.feature)
    {
        Some(x) => x.revisions = x.revisions.union(l.revisions),
        None => into.push(l),
    }
}

/// The maximal form of `decl` that is valid at `rev` and the changes made to reach
/// it (pointers relative to the declaration), or `None` when no form of the
/// declaration can exist at `rev`. Nested elicitations are left alone (see
/// [`split_declaration`]); `protocolVersions` is left as is.
pub fn restrict(
    kind: DeclKind,
    decl: &Value,
    rev: ProtocolRevision,
    doc: &Value,
    policy: &SplitPolicy,
) -> Option<(Value, Vec<SplitLoss>)> {
    let mut cx = Cx {
        doc,
        rev,
        policy,
        losses: Vec::new(),
        wrapped_output: false,
    };
    let mut d = decl.clone();
    let ok = match kind {
        DeclKind::Transport => cx.transport(&d),
        DeclKind::Capabilities => {
            cx.capabilities(&mut d);
            true
        }
        DeclKind::Elicitation => cx.elicitation(&mut d),
        DeclKind::Tool | DeclKind::Resource | DeclKind::ResourceTemplate | DeclKind::Prompt => {
            cx.primitive(kind, &mut d);
            true
        }
    };
    ok.then_some((d, cx.losses))
}

struct Cx<'a> {
    doc: &'a Value,
    rev: ProtocolRevision,
    policy: &'a SplitPolicy,
    losses: Vec<SplitLoss>,
    wrapped_output: bool,
}

/// Why an example cannot be made valid at a revision.
struct Unrepresentable(Option<Feature>);

impl Cx<'_> {
    fn has(&self, f: Feature) -> bool {
        self.rev.has(f)
    }

    fn note(&mut self, ptr: String, action: LossAction, feature: Option<Feature>) {
        merge_loss(
            &mut self.losses,
            SplitLoss {
                pointer: ptr,
                revisions: RevisionSet::single(self.rev),
                action,
                feature,
            },
        );
    }

    /// Removes `key` from `obj` when `feature` is unavailable; records the loss.
    fn drop_unless(
        &mut self,
        obj: &mut Map<String, Value>,
        key: &str,
        feature: Feature,
        at: &str,
    ) -> bool {
        if !self.has(feature) && obj.shift_remove(key).is_some() {
            self.note(pointer::push(at, key), LossAction::Dropped, Some(feature));
            return true;
        }
        false
    }

    fn transport(&mut self, d: &Value) -> bool {
        d.get("type").and_then(Value::as_str) != Some("streamable-http")
            || self.has(Feature::StreamableHttp)
    }

    fn capabilities(&mut self, d: &mut Value) {
        let Some(o) = d.as_object_mut() else { return };
        // `extensions` before 2026-07-28 and `logging` at 2026-07-28 are preserved
        // with warnings (§8.4): not split.
        self.drop_unless(o, "completions", Feature::Completions, "");
        self.drop_unless(o, "tasks", Feature::Tasks, "");
    }

    fn elicitation(&mut self, d: &mut Value) -> bool {
        let mode = d.get("mode").and_then(Value::as_str).unwrap_or("form");
        if mode == "url" && !self.has(Feature::ElicitationUrl) {
            return false;
        }
        if mode != "form" || self.has(Feature::ElicitationRichSchemas) {
            return true;
        }
        // Form schemas before the rich vocabulary (§12.3): no `$schema`, no defaults
        // except on booleans, no titled or multi-select enums.
        let Some(schema) = d.get("requestedSchema").cloned() else {
            return true;
        };
        let Ok((resolved, _)) = refs::resolve(self.doc, &schema, "schemas") else {
            return true;
        };
        let mut s = resolved.clone();
        let mut changed = Vec::new();
        if let Some(o) = s.as_object_mut() {
            if o.shift_remove("$schema").is_some() {
                changed.push("/requestedSchema/$schema".to_string());
            }
            if let Some(Value::Object(props)) = o.get_mut("properties") {
                for (name, p) in props.iter_mut() {
                    let Some(po) = p.as_object_mut() else {
                        continue;
                    };
                    let multi = po.get("type").and_then(Value::as_str) == Some("array");
                    let titled = po.contains_key("oneOf") || po.contains_key("anyOf");
                    if multi || titled {
                        return false;
                    }
                    let boolean = po.get("type").and_then(Value::as_str) == Some("boolean");
                    if !boolean && po.shift_remove("default").is_some() {
                        changed.push(format!(
                            "/requestedSchema/properties/{}/default",
                            pointer::escape(name)
                        ));
                    }
                }
            }
        }
        if !changed.is_empty() {
            if refs::is_reference(&schema) {
                self.note("/requestedSchema".into(), LossAction::Inlined, None);
            }
            for c in changed {
                self.note(
                    c,
                    LossAction::Dropped,
                    Some(Feature::ElicitationRichSchemas),
                );
            }
            if let Some(o) = d.as_object_mut() {
                o.insert("requestedSchema".into(), s);
            }
        }
        true
    }

    fn primitive(&mut self, kind: DeclKind, d: &mut Value) {
        let Some(ok) = kind.object_kind() else { return };
        let Some(o) = d.as_object_mut() else { return };
        // Fields of the declaration object itself (the revision table).
        for fact in FIELD_FACTS.iter().filter(|f| f.object == ok) {
            self.drop_unless(o, fact.field, fact.feature, "");
        }
        self.client_requirements(o);
        if let Some(Value::Object(ann)) = o.get_mut("annotations") {
            if kind != DeclKind::Tool {
                let mut ann2 = std::mem::take(ann);
                self.drop_unless(
                    &mut ann2,
                    "lastModified",
                    Feature::ResourceAnnotationLastModified,
                    "/annotations",
                );
                *ann = ann2;
            }
        }
        match kind {
            DeclKind::Tool => {
                self.output_schema(o);
                for field in ["inputSchema", "outputSchema"] {
                    self.schema_dialect(o, field);
                }
                self.mcp_header(o);
                self.examples(o, kind, "examples", ResultKind::ToolCall);
                self.interaction_examples(o);
            }
            DeclKind::Resource => self.examples(o, kind, "examples", ResultKind::ResourceRead),
            DeclKind::ResourceTemplate => {
                self.examples(o, kind, "examples", ResultKind::ResourceRead);
                self.completion_examples(o);
            }
            DeclKind::Prompt => {
                if let Some(Value::Array(args)) = o.get_mut("arguments") {
                    for (i, a) in args.iter_mut().enumerate() {
                        if let Some(ao) = a.as_object_mut() {
                            if !field_available(ObjectKind::PromptArgument, "title", self.rev) {
                                if let Some(f) = field_feature(ObjectKind::PromptArgument, "title")
                                {
                                    self.drop_unless(ao, "title", f, &format!("/arguments/{i}"));
                                }
                            }
                        }
                    }
                }
                self.examples(o, kind, "examples", ResultKind::PromptGet);
                self.completion_examples(o);
            }
            _ => {}
        }
    }

    /// §8.5: every capability must be valid for every effective revision.
    fn client_requirements(&mut self, o: &mut Map<String, Value>) {
        let Some(Value::Object(req)) = o.get_mut("clientRequirements") else {
            return;
        };
        let mut r = std::mem::take(req);
        self.drop_unless(
            &mut r,
            "elicitation",
            Feature::ElicitationForm,
            "/clientRequirements",
        );
        self.drop_unless(&mut r, "tasks", Feature::Tasks, "/clientRequirements");
        self.drop_unless(
            &mut r,
            "extensions",
            Feature::Extensions,
            "/clientRequirements",
        );
        if let Some(Value::Object(el)) = r.get_mut("elicitation") {
            let mut e = std::mem::take(el);
            self.drop_unless(
                &mut e,
                "form",
                Feature::ElicitationSubCapabilities,
                "/clientRequirements/elicitation",
            );
            self.drop_unless(
                &mut e,
                "url",
                Feature::ElicitationSubCapabilities,
                "/clientRequirements/elicitation",
            );
            if let Some(Value::Object(el)) = r.get_mut("elicitation") {
                *el = e;
            }
        }
        if let Some(Value::Object(s)) = r.get_mut("sampling") {
            let mut sm = std::mem::take(s);
            self.drop_unless(
                &mut sm,
                "context",
                Feature::SamplingContextTools,
                "/clientRequirements/sampling",
            );
            self.drop_unless(
                &mut sm,
                "tools",
                Feature::SamplingContextTools,
                "/clientRequirements/sampling",
            );
            if let Some(Value::Object(s)) = r.get_mut("sampling") {
                *s = sm;
            }
        }
        if let Some(Value::Object(roots)) = r.get_mut("roots") {
            let mut ro = std::mem::take(roots);
            self.drop_unless(
                &mut ro,
                "listChanged",
                Feature::RootsListChanged,
                "/clientRequirements/roots",
            );
            if let Some(Value::Object(roots)) = r.get_mut("roots") {
                *roots = ro;
            }
        }
        if r.is_empty() {
            o.shift_remove("clientRequirements");
            self.note("/clientRequirements".into(), LossAction::Dropped, None);
        } else if let Some(Value::Object(req)) = o.get_mut("clientRequirements") {
            *req = r;
        }
    }

    /// Non-object `outputSchema` roots before [`Feature::OutputSchemaAnyRoot`] (§9.2).
    fn output_schema(&mut self, o: &mut Map<String, Value>) {
        let Some(schema) = o.get("outputSchema") else {
            return;
        };
        if self.has(Feature::OutputSchemaAnyRoot) {
            return;
        }
        let Ok((resolved, _)) = refs::resolve(self.doc, schema, "schemas") else {
            return;
        };
        if is_object_root(resolved) {
            return;
        }
        match self.policy.non_object_output_root {
            OutputRootStrategy::Drop => {
                o.shift_remove("outputSchema");
                self.note(
                    "/outputSchema".into(),
                    LossAction::Dropped,
                    Some(Feature::OutputSchemaAnyRoot),
                );
            }
            OutputRootStrategy::Wrap => {
                let mut inner = resolved.clone();
                let mut w = Map::new();
                // Resource-level keywords stay at the root of the wrapper, so `$schema`
                // still names the dialect and `#/$defs/…` references still resolve; any
                // other local reference into the old root moves with it.
                if let Some(m) = inner.as_object_mut() {
                    for k in ["$schema", "$id", "$defs", "definitions"] {
                        if let Some(v) = m.shift_remove(k) {
                            w.insert(k.into(), v);
                        }
                    }
                }
                rebase_local_refs(&mut inner);
                for k in ["$defs", "definitions"] {
                    if let Some(defs) = w.get_mut(k) {
                        rebase_local_refs(defs);
                    }
                }
                w.insert("type".into(), json!("object"));
                w.insert("properties".into(), json!({ "result": inner }));
                w.insert("required".into(), json!(["result"]));
                o.insert("outputSchema".into(), Value::Object(w));
                self.wrapped_output = true;
                self.note(
                    "/outputSchema".into(),
                    LossAction::Wrapped,
                    Some(Feature::OutputSchemaAnyRoot),
                );
            }
        }
    }

    /// `$schema` at a tool schema root before [`Feature::ToolSchemaDialect`] (§9.2).
    fn schema_dialect(&mut self, o: &mut Map<String, Value>, field: &str) {
        if self.has(Feature::ToolSchemaDialect) {
            return;
        }
        let Some(schema) = o.get(field) else { return };
        let Ok((resolved, _)) = refs::resolve(self.doc, schema, "schemas") else {
            return;
        };
        if resolved.get("$schema").is_none() {
            return;
        }
        let was_ref = refs::is_reference(schema);
        let mut s = resolved.clone();
        if let Some(m) = s.as_object_mut() {
            m.shift_remove("$schema");
        }
        o.insert(field.to_string(), s);
        if was_ref {
            self.note(format!("/{field}"), LossAction::Inlined, None);
        }
        self.note(
            format!("/{field}/$schema"),
            LossAction::Dropped,
            Some(Feature::ToolSchemaDialect),
        );
    }

    /// `x-mcp-header` property annotations before [`Feature::McpHeader`] (§9.2).
    fn mcp_header(&mut self, o: &mut Map<String, Value>) {
        if self.has(Feature::McpHeader) {
            return;
        }
        let Some(schema) = o.get("inputSchema") else {
            return;
        };
        let Ok((resolved, _)) = refs::resolve(self.doc, schema, "schemas") else {
            return;
        };
        let mut s = resolved.clone();
        let mut removed = Vec::new();
        strip_mcp_header(&mut s, "/inputSchema", &mut removed, 0);
        if removed.is_empty() {
            return;
        }
        if refs::is_reference(schema) {
            self.note("/inputSchema".into(), LossAction::Inlined, None);
        }
        o.insert("inputSchema".into(), s);
        for p in removed {
            self.note(p, LossAction::Dropped, Some(Feature::McpHeader));
        }
    }

    /// Named examples: each made valid at the revision or dropped (§9.3, §10.4.4, §11.3).
    fn examples(&mut self, o: &mut Map<String, Value>, kind: DeclKind, key: &str, rk: ResultKind) {
        let Some(Value::Object(map)) = o.get(key).cloned() else {
            return;
        };
        let ns = kind.example_namespace().unwrap_or("toolExamples");
        let mut out = Map::new();
        for (name, ex) in map {
            let at = pointer::push(&format!("/{key}"), &name);
            let Ok((resolved, _)) = refs::resolve(self.doc, &ex, ns) else {
                out.insert(name, ex);
                continue;
            };
            let mut adjusted = resolved.clone();
            let mut sub = Cx {
                doc: self.doc,
                rev: self.rev,
                policy: self.policy,
                losses: Vec::new(),
                wrapped_output: self.wrapped_output,
            };
            let res = match adjusted.get_mut("result") {
                Some(r) => sub.result(r, rk, &format!("{at}/result")),
                None => Ok(()),
            };
            match res {
                Err(Unrepresentable(f)) => self.note(at, LossAction::Dropped, f),
                Ok(()) if sub.losses.is_empty() => {
                    out.insert(name, ex);
                }
                Ok(()) => {
                    if refs::is_reference(&ex) {
                        self.note(at.clone(), LossAction::Inlined, None);
                    }
                    for l in sub.losses {
                        merge_loss(&mut self.losses, l);
                    }
                    out.insert(name, adjusted);
                }
            }
        }
        if out.is_empty() {
            o.shift_remove(key);
        } else {
            o.insert(key.to_string(), Value::Object(out));
        }
    }

    /// Tool interaction examples (§9.4): the terminal result follows the Tool Example
    /// rules; elicitation steps need the revision's elicitation modes.
    fn interaction_examples(&mut self, o: &mut Map<String, Value>) {
        let Some(Value::Object(map)) = o.get("interactionExamples").cloned() else {
            return;
        };
        let mut out = Map::new();
        for (name, ex) in map {
            let at = pointer::push("/interactionExamples", &name);
            let mut adjusted = ex.clone();
            let mut steps_ok = Ok(());
            for step in adjusted
                .get("steps")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if step.get("type").and_then(Value::as_str) == Some("elicitation") {
                    let url = step.pointer("/request/mode").and_then(Value::as_str) == Some("url");
                    if !self.has(Feature::ElicitationForm) {
                        steps_ok = Err(Unrepresentable(Some(Feature::ElicitationForm)));
                    } else if url && !self.has(Feature::ElicitationUrl) {
                        steps_ok = Err(Unrepresentable(Some(Feature::ElicitationUrl)));
                    }
                }
            }
            let mut sub = Cx {
                doc: self.doc,
                rev: self.rev,
                policy: self.policy,
                losses: Vec::new(),
                wrapped_output: self.wrapped_output,
            };
            let res = steps_ok.and_then(|()| match adjusted.get_mut("result") {
                Some(r) => sub.result(r, ResultKind::ToolCall, &format!("{at}/result")),
                None => Ok(()),
            });
            match res {
                Err(Unrepresentable(f)) => self.note(at, LossAction::Dropped, f),
                Ok(()) => {
                    for l in sub.losses {
                        merge_loss(&mut self.losses, l);
                    }
                    out.insert(name, adjusted);
                }
            }
        }
        if out.is_empty() {
            o.shift_remove("interactionExamples");
        } else {
            o.insert("interactionExamples".into(), Value::Object(out));
        }
    }

    /// Completion examples (§10.4.6, §11.4): need completions; `context` needs
    /// completion context.
    fn completion_examples(&mut self, o: &mut Map<String, Value>) {
        if !self.has(Feature::Completions) {
            self.drop_unless(o, "completionExamples", Feature::Completions, "");
            return;
        }
        let Some(Value::Object(map)) = o.get("completionExamples").cloned() else {
            return;
        };
        let mut out = Map::new();
        for (name, ex) in map {
            let at = pointer::push("/completionExamples", &name);
            if ex.get("context").is_some() && !self.has(Feature::CompletionContext) {
                self.note(at, LossAction::Dropped, Some(Feature::CompletionContext));
                continue;
            }
            let mut adjusted = ex.clone();
            let mut sub = Cx {
                doc: self.doc,
                rev: self.rev,
                policy: self.policy,
                losses: Vec::new(),
                wrapped_output: false,
            };
            let res = match adjusted.get_mut("result") {
                Some(r) => sub.result(r, ResultKind::Completion, &format!("{at}/result")),
                None => Ok(()),
            };
            match res {
                Err(Unrepresentable(f)) => self.note(at, LossAction::Dropped, f),
                Ok(()) => {
                    for l in sub.losses {
                        merge_loss(&mut self.losses, l);
                    }
                    out.insert(name, adjusted);
                }
            }
        }
        if out.is_empty() {
            o.shift_remove("completionExamples");
        } else {
            o.insert("completionExamples".into(), Value::Object(out));
        }
    }

    /// Makes a completed result payload valid at the revision.
    fn result(&mut self, r: &mut Value, rk: ResultKind, at: &str) -> Result<(), Unrepresentable> {
        let Some(o) = r.as_object_mut() else {
            return Ok(());
        };
        if rk == ResultKind::ResourceRead {
            let cache = ["ttlMs", "cacheScope"];
            if self.has(Feature::ResourceResultCache) {
                if cache.iter().any(|k| !o.contains_key(*k)) {
                    // No value can be invented for cache hints: the example goes.
                    return Err(Unrepresentable(Some(Feature::ResourceResultCache)));
                }
            } else {
                for k in cache {
                    self.drop_unless(o, k, Feature::ResourceResultCache, at);
                }
            }
        }
        if self.has(Feature::ResultType) {
            if !o.contains_key("resultType") {
                o.insert("resultType".into(), json!("complete"));
                self.note(
                    pointer::push(at, "resultType"),
                    LossAction::Added,
                    Some(Feature::ResultType),
                );
            }
        } else {
            self.drop_unless(o, "resultType", Feature::ResultType, at);
        }
        self.drop_unless(o, "_meta", Feature::Meta, at);
        match rk {
            ResultKind::ToolCall => {
                if !self.has(Feature::StructuredContent) {
                    self.drop_unless(o, "structuredContent", Feature::StructuredContent, at);
                } else if let Some(sc) = o.get("structuredContent") {
                    let success = o.get("isError").and_then(Value::as_bool) != Some(true);
                    if success && self.wrapped_output {
                        let w = json!({ "result": sc });
                        o.insert("structuredContent".into(), w);
                        self.note(
                            pointer::push(at, "structuredContent"),
                            LossAction::Wrapped,
                            Some(Feature::OutputSchemaAnyRoot),
                        );
                    } else if !sc.is_object() && !self.has(Feature::OutputSchemaAnyRoot) {
                        // Before any-root output schemas, structuredContent is an object.
                        o.shift_remove("structuredContent");
                        self.note(
                            pointer::push(at, "structuredContent"),
                            LossAction::Dropped,
                            Some(Feature::OutputSchemaAnyRoot),
                        );
                    }
                }
                if let Some(Value::Array(blocks)) = o.get_mut("content") {
                    let mut b = std::mem::take(blocks);
                    let res = self.content_blocks(&mut b, &pointer::push(at, "content"));
                    if let Some(Value::Array(blocks)) = o.get_mut("content") {
                        *blocks = b;
                    }
                    res?;
                }
            }
            ResultKind::PromptGet => {
                if let Some(Value::Array(msgs)) = o.get_mut("messages") {
                    let mut m = std::mem::take(msgs);
                    let mut res = Ok(());
                    for (i, msg) in m.iter_mut().enumerate() {
                        let mat = format!("{at}/messages/{i}/content");
                        match msg.get_mut("content") {
                            Some(Value::Array(blocks)) => {
                                res = res.and(self.content_blocks(blocks, &mat))
                            }
                            Some(block @ Value::Object(_)) => {
                                let mut one = vec![std::mem::take(block)];
                                res = res.and(self.content_blocks_at(&mut one, &mat, true));
                                if let Some(b) = one.pop() {
                                    *block = b;
                                }
                            }
                            _ => {}
                        }
                    }
                    if let Some(Value::Array(msgs)) = o.get_mut("messages") {
                        *msgs = m;
                    }
                    res?;
                }
            }
            ResultKind::ResourceRead => {
                if let Some(Value::Array(contents)) = o.get_mut("contents") {
                    let mut c = std::mem::take(contents);
                    for (i, entry) in c.iter_mut().enumerate() {
                        if let Some(eo) = entry.as_object_mut() {
                            self.drop_unless(
                                eo,
                                "_meta",
                                Feature::Meta,
                                &format!("{at}/contents/{i}"),
                            );
                        }
                    }
                    if let Some(Value::Array(contents)) = o.get_mut("contents") {
                        *contents = c;
                    }
                }
            }
            ResultKind::Completion => {}
        }
        Ok(())
    }

    fn content_blocks(&mut self, blocks: &mut [Value], at: &str) -> Result<(), Unrepresentable> {
        self.content_blocks_at(blocks, at, false)
    }

    /// Content blocks: a block type the revision lacks makes the example unrepresentable;
    /// `_meta` and `annotations.lastModified` are dropped where undefined.
    fn content_blocks_at(
        &mut self,
        blocks: &mut [Value],
        at: &str,
        single: bool,
    ) -> Result<(), Unrepresentable> {
        let types = content_types(self.rev);
        for (i, b) in blocks.iter_mut().enumerate() {
            let bat = if single {
                at.to_string()
            } else {
                format!("{at}/{i}")
            };
            let Some(bo) = b.as_object_mut() else {
                continue;
            };
            if let Some(t) = bo.get("type").and_then(Value::as_str) {
                if !types.contains(&t) {
                    let f = match t {
                        "audio" => Some(Feature::AudioContent),
                        "resource_link" => Some(Feature::ResourceLinkContent),
                        _ => None,
                    };
                    return Err(Unrepresentable(f));
                }
            }
            self.drop_unless(bo, "_meta", Feature::Meta, &bat);
            if let Some(Value::Object(ann)) = bo.get_mut("annotations") {
                let mut a = std::mem::take(ann);
                self.drop_unless(
                    &mut a,
                    "lastModified",
                    Feature::ResourceAnnotationLastModified,
                    &format!("{bat}/annotations"),
                );
                if let Some(Value::Object(ann)) = bo.get_mut("annotations") {
                    *ann = a;
                }
            }
            if let Some(Value::Object(res)) = bo.get_mut("resource") {
                let mut r = std::mem::take(res);
                self.drop_unless(&mut r, "_meta", Feature::Meta, &format!("{bat}/resource"));
                if let Some(Value::Object(res)) = bo.get_mut("resource") {
                    *res = r;
                }
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResultKind {
    ToolCall,
    ResourceRead,
    PromptGet,
    Completion,
}

pub use mcpdesc_core::schema::is_object_root;

/// Removes `x-mcp-header` from properties reachable through `properties` chains.
fn strip_mcp_header(schema: &mut Value, at: &str, removed: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    let Some(Value::Object(props)) = schema.get_mut("properties") else {
        return;
    };
    for (name, p) in props.iter_mut() {
        let pat = format!("{at}/properties/{}", pointer::escape(name));
        if let Some(po) = p.as_object_mut() {
            if po.shift_remove("x-mcp-header").is_some() {
                removed.push(format!("{pat}/x-mcp-header"));
            }
        }
        strip_mcp_header(p, &pat, removed, depth + 1);
    }
}

/// After wrapping a schema as `properties.result` of a new root: local references
/// (`#/…`) into the old root now point under `/properties/result`, except those into
/// `$defs`/`definitions`, which the wrapper keeps at its root. Iterative (input is
/// untrusted and may be deep).
fn rebase_local_refs(v: &mut Value) {
    let mut stack = vec![v];
    while let Some(n) = stack.pop() {
        match n {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get_mut("$ref")
                    && let Some(moved) = mcpdesc_core::local_ref::rebase(r, "/properties/result")
                {
                    *r = moved;
                }
                stack.extend(m.values_mut());
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}
