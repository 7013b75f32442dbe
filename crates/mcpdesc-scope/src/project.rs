//! Effective Protocol Views (§4.12): single-revision projection.

use crate::components;
use crate::kinds::{DeclKind, clear_scope, decl_scope, root_scope, scope_json};
use mcpdesc_core::{Diagnostic, ProtocolRevision, RevisionSet};
use mcpdesc_validate::Validated;
use serde_json::Value;
use std::borrow::Cow;

/// What to do with components no retained declaration references (§17.5 allows both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProjectOptions {
    /// Remove components not transitively reached from retained Reference Objects.
    /// Off by default: keeping them makes `merge(project_V(D) for V) ≡ D` exact.
    pub prune_components: bool,
}

/// The Effective Protocol View `P_V(doc)` per §4.12 of a validated source: requires
/// `rev` in root `protocolVersions` and projects. Components are all kept (see
/// [`ProjectOptions`]).
///
/// Step 1 (the source conforms) is the handle; step 8 (the view conforms for `rev`)
/// holds by construction: the validator checks every declaration at each revision of
/// its scope, and the view keeps exactly the declarations of `rev`, unscoped, so the
/// view is returned as a [`Validated`] without a second validation
/// ([`Validated::projection`]; checked on every fixture at every revision by the
/// workspace tests).
///
/// ```
/// # use serde_json::json;
/// # use mcpdesc_core::ProtocolRevision;
/// let doc = json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
///   "protocolVersions": ["2025-06-18", "2025-11-25"],
///   "tools": [{"name": "t", "protocolVersions": ["2025-11-25"], "inputSchema": {"type": "object"}}]});
/// let valid = mcpdesc_validate::Validator::new().check(&doc).unwrap();
/// let view = mcpdesc_scope::project(&valid, ProtocolRevision::V2025_06_18).unwrap();
/// assert_eq!(view.value()["protocolVersions"], json!(["2025-06-18"]));
/// assert!(view.value().get("tools").is_none()); // emptied collections are omitted
/// ```
pub fn project(
    doc: &Validated<'_>,
    rev: ProtocolRevision,
) -> Result<Validated<'static>, Diagnostic> {
    project_with(doc, rev, ProjectOptions::default())
}

/// [`project`] with options.
pub fn project_with(
    doc: &Validated<'_>,
    rev: ProtocolRevision,
    opts: ProjectOptions,
) -> Result<Validated<'static>, Diagnostic> {
    require_revision(doc.value(), rev)?;
    let mut refused = None;
    let view = doc.projection(rev, |source| {
        project_value(source, rev, opts)
            .map_err(|d| refused = Some(d))
            .ok()
    });
    match (view, refused) {
        (Some(view), _) => Ok(view),
        (None, Some(d)) => Err(d),
        // A view whose root revisions are not `rev` alone (not one projection makes).
        (None, None) => Err(Diagnostic::error(
            "revision-not-in-document",
            format!("the view at {rev} does not have {rev} as its only revision"),
        )
        .at("/protocolVersions")),
    }
}

/// Steps 2–7 of §4.12 on any value (the crate's own callers: merge and equivalence
/// compare inputs they have validated, or documents they only compare). Fails only when
/// `rev` is not in root `protocolVersions` (code `revision-not-in-document`).
pub(crate) fn project_value(
    doc: &Value,
    rev: ProtocolRevision,
    opts: ProjectOptions,
) -> Result<Value, Diagnostic> {
    let root = require_revision(doc, rev)?;
    let mut out = doc.clone();
    let Some(obj) = out.as_object_mut() else {
        return Err(Diagnostic::error(
            "document-not-object",
            "the document root is not an object",
        ));
    };
    // Step 3.
    obj.insert(
        "protocolVersions".into(),
        scope_json(RevisionSet::single(rev)),
    );
    // Steps 4, 5, 7: keep applicable declarations, unscoped; drop emptied collections.
    for kind in DeclKind::TOP_LEVEL {
        let Some(Value::Array(items)) = obj.get_mut(kind.collection()) else {
            continue;
        };
        project_collection(kind, items, root, rev);
        if items.is_empty() {
            obj.shift_remove(kind.collection());
        }
    }
    // Step 6 needs nothing: security, tags, info and extensions are carried unchanged.
    if opts.prune_components {
        components::prune(&mut out);
    }
    Ok(out)
}

/// Step 2: the document's root scope, which must contain `rev`.
pub(crate) fn require_revision(
    doc: &Value,
    rev: ProtocolRevision,
) -> Result<RevisionSet, Diagnostic> {
    let root = root_scope(doc);
    if !root.contains(rev) {
        return Err(Diagnostic::error(
            "revision-not-in-document",
            format!("protocol revision {rev} is not in the document's protocolVersions {root}"),
        )
        .at("/protocolVersions"));
    }
    Ok(root)
}

/// Keeps the declarations of one collection that apply at `rev` (nested ones too),
/// without their `protocolVersions`.
pub(crate) fn project_collection(
    kind: DeclKind,
    items: &mut Vec<Value>,
    parent: RevisionSet,
    rev: ProtocolRevision,
) {
    items.retain(|d| decl_scope(d, parent).contains(rev));
    for d in items.iter_mut() {
        project_decl(kind, d, parent, rev);
    }
}

/// Projects one applicable declaration: removes its scope and projects its nested
/// Elicitation Declarations.
pub(crate) fn project_decl(
    kind: DeclKind,
    decl: &mut Value,
    parent: RevisionSet,
    rev: ProtocolRevision,
) {
    let scope = decl_scope(decl, parent);
    clear_scope(decl);
    if !kind.is_primitive() {
        return;
    }
    let Some(obj) = decl.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(els)) = obj.get_mut("elicitations") {
        project_collection(DeclKind::Elicitation, els, scope, rev);
        if els.is_empty() {
            obj.shift_remove("elicitations");
        }
    }
}

/// The projection of a single declaration at `rev`, or `None` when its effective
/// scope under `parent` excludes `rev`.
pub fn project_declaration(
    kind: DeclKind,
    decl: &Value,
    parent: RevisionSet,
    rev: ProtocolRevision,
) -> Option<Value> {
    if !decl_scope(decl, parent).contains(rev) {
        return None;
    }
    let mut d = decl.clone();
    project_decl(kind, &mut d, parent, rev);
    Some(d)
}

/// [`project_declaration`] at every revision of `revs` at once: each distinct projection
/// with the revisions it holds for. The sets are disjoint, oldest first by their first
/// revision, and together they are the revisions of `revs` in the declaration's
/// effective scope under `parent`.
///
/// A declaration's projection varies between revisions only with which of its nested
/// Elicitation Declarations apply, so most declarations have one projection for all
/// revisions. One with neither a scope of its own nor nested declarations is its own
/// projection and is borrowed, not cloned.
pub fn project_declaration_classes<'a>(
    kind: DeclKind,
    decl: &'a Value,
    parent: RevisionSet,
    revs: RevisionSet,
) -> Vec<(RevisionSet, Cow<'a, Value>)> {
    let scope = decl_scope(decl, parent);
    let applicable = scope.intersection(revs);
    if applicable.is_empty() {
        return Vec::new();
    }
    let nested = kind
        .is_primitive()
        .then(|| decl.get("elicitations").and_then(Value::as_array))
        .flatten();
    if decl.get("protocolVersions").is_none() && nested.is_none() {
        return vec![(applicable, Cow::Borrowed(decl))];
    }
    // Revisions at which the same nested declarations apply share one projection.
    let mut classes: Vec<(Vec<bool>, RevisionSet)> = Vec::new();
    for rev in applicable.iter() {
        let applies: Vec<bool> = nested
            .into_iter()
            .flatten()
            .map(|e| decl_scope(e, scope).contains(rev))
            .collect();
        match classes.iter_mut().find(|(k, _)| *k == applies) {
            Some((_, set)) => set.insert(rev),
            None => classes.push((applies, RevisionSet::single(rev))),
        }
    }
    classes
        .into_iter()
        .filter_map(|(_, set)| {
            let first = set.iter().next()?;
            let view = project_declaration(kind, decl, parent, first)?;
            Some((set, Cow::Owned(view)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::ProtocolRevision::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "mcpdesc": "0.8.0",
            "info": {"name": "s", "version": "1", "x-team": "a"},
            "protocolVersions": ["2025-06-18", "2025-11-25"],
            "security": [],
            "transports": [{"type": "stdio", "command": "s", "protocolVersions": ["2025-06-18", "2025-11-25"]}],
            "components": {"x-note": 1, "schemas": {"In": {"type": "object"}, "Unused": {"type": "object"}}},
            "tools": [
                {"name": "a", "protocolVersions": ["2025-11-25"], "inputSchema": {"$componentRef": "#/components/schemas/In"},
                 "elicitations": [{"name": "e", "mode": "url", "message": "m"}]},
                {"name": "b", "inputSchema": {"type": "object"}, "security": [{}],
                 "elicitations": [{"name": "f", "mode": "url", "message": "m", "protocolVersions": ["2025-11-25"]}]}
            ],
            "tags": [{"name": "unused"}],
            "x-root": true
        })
    }

    /// Every class is what `project_declaration` gives at each of its revisions, and the
    /// classes partition the applicable revisions.
    #[test]
    fn declaration_classes_agree_with_projection_at_each_revision() {
        use mcpdesc_core::ProtocolRevision::*;
        let parent = RevisionSet::ALL;
        let cases = [
            json!({"name": "plain", "inputSchema": {"type": "object"}}),
            json!({"name": "scoped", "protocolVersions": ["2025-06-18", "2025-11-25"]}),
            json!({"name": "empty-nested", "elicitations": []}),
            json!({"name": "nested", "protocolVersions": ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
                   "elicitations": [
                       {"name": "e", "mode": "url", "message": "m", "protocolVersions": ["2025-11-25"]},
                       {"name": "f", "mode": "url", "message": "m", "protocolVersions": ["2025-06-18", "2026-07-28"]},
                       {"name": "g", "mode": "url", "message": "m"}]}),
        ];
        let expected_classes = [1, 1, 1, 3];
        for (decl, want) in cases.iter().zip(expected_classes) {
            let classes =
                project_declaration_classes(DeclKind::Tool, decl, parent, RevisionSet::ALL);
            assert_eq!(classes.len(), want, "{decl}");
            let mut seen = RevisionSet::EMPTY;
            for (set, view) in &classes {
                assert!(seen.is_disjoint(*set), "{decl}: overlapping classes");
                seen = seen.union(*set);
                for r in set.iter() {
                    let direct = project_declaration(DeclKind::Tool, decl, parent, r);
                    assert_eq!(direct.as_ref(), Some(view.as_ref()), "{decl} at {r}");
                }
            }
            let scope = decl_scope(decl, parent);
            assert_eq!(seen, scope, "{decl}: classes cover the scope");
            for r in [
                V2024_11_05,
                V2025_03_26,
                V2025_06_18,
                V2025_11_25,
                V2026_07_28,
            ] {
                if !scope.contains(r) {
                    assert_eq!(project_declaration(DeclKind::Tool, decl, parent, r), None);
                }
            }
        }
        // Only the declaration with neither a scope nor nested declarations is borrowed.
        let borrowed =
            project_declaration_classes(DeclKind::Tool, &cases[0], parent, RevisionSet::ALL);
        assert!(matches!(borrowed[0].1, Cow::Borrowed(_)));
        // A selection narrows the classes to it.
        let one = project_declaration_classes(
            DeclKind::Tool,
            &cases[3],
            parent,
            RevisionSet::single(V2025_11_25),
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].0, RevisionSet::single(V2025_11_25));
    }

    #[test]
    fn projects_per_section_4_12() {
        let v = project_value(&doc(), V2025_06_18, ProjectOptions::default()).expect("in root");
        assert_eq!(v["protocolVersions"], json!(["2025-06-18"]));
        assert_eq!(v["transports"], json!([{"type": "stdio", "command": "s"}]));
        // `a` is out of scope; `b` keeps `security: [{}]` and loses its emptied elicitations.
        assert_eq!(
            v["tools"],
            json!([{"name": "b", "inputSchema": {"type": "object"}, "security": [{}]}])
        );
        assert_eq!(v["security"], json!([]));
        assert_eq!(v["tags"], json!([{"name": "unused"}]));
        assert_eq!(v["x-root"], json!(true));
        assert_eq!(v["info"]["x-team"], json!("a"));
        assert!(v["components"]["schemas"].get("Unused").is_some());
    }

    #[test]
    fn prunes_components_keeping_outer_extensions() {
        let opts = ProjectOptions {
            prune_components: true,
        };
        let v = project_value(&doc(), V2025_06_18, opts).expect("in root");
        assert_eq!(v["components"], json!({"x-note": 1}));
        let v = project_value(&doc(), V2025_11_25, opts).expect("in root");
        assert_eq!(
            v["components"],
            json!({"x-note": 1, "schemas": {"In": {"type": "object"}}})
        );
        assert_eq!(
            v["tools"][1]["elicitations"],
            json!([{"name": "f", "mode": "url", "message": "m"}])
        );
    }

    /// The handle is the proof of step 1 and the view is valid by construction: a
    /// projection runs the validator no more (the view is checked by the property
    /// tests and, on every fixture at every revision, by the workspace tests).
    #[test]
    fn projecting_a_handle_does_not_validate_again() {
        let d = doc();
        let valid = mcpdesc_validate::Validator::new().check(&d).expect("valid");
        let before = mcpdesc_validate::runs_on_this_thread();
        let view = project(&valid, V2025_11_25).expect("in root");
        assert_eq!(mcpdesc_validate::runs_on_this_thread(), before);
        assert_eq!(view.revisions(), RevisionSet::single(V2025_11_25));
        assert_eq!(
            view.value(),
            &project_value(&d, V2025_11_25, ProjectOptions::default()).expect("in root")
        );
        let e = project(&valid, V2024_11_05).expect_err("not in root");
        assert_eq!(e.code, "revision-not-in-document");
    }

    #[test]
    fn rejects_revision_outside_root() {
        let e =
            project_value(&doc(), V2024_11_05, ProjectOptions::default()).expect_err("not in root");
        assert_eq!(e.code, "revision-not-in-document");
    }
}
