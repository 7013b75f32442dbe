//! Merge (§4.13, §17.6): descriptions → one aggregate whose same-identity declarations
//! have disjoint protocol scopes.

use crate::equiv::{canonical_string, diff_pointer, normalize_decl, normalize_view};
use crate::kinds::{DeclKind, clear_scope, decl_scope, root_scope, scope_json, set_scope};
use crate::project::{ProjectOptions, project_declaration, project_value};
use mcpdesc_core::same_json::json_eq;
use mcpdesc_core::{Diagnostic, ProtocolRevision, RevisionSet, pointer, refs};
use mcpdesc_validate::Validated;
use serde_json::{Map, Value};

/// One merge input: a decoded document and the name to use for it in diagnostics
/// (usually its file name).
#[derive(Debug, Clone, PartialEq)]
pub struct MergeInput {
    /// Display name (file path) used in conflict messages.
    pub source: String,
    /// The decoded document.
    pub document: Value,
}

impl MergeInput {
    /// A named input.
    pub fn new(source: impl Into<String>, document: Value) -> Self {
        MergeInput {
            source: source.into(),
            document,
        }
    }
}

/// Merges descriptions per §4.13: validates every input, requires equal unscoped
/// metadata and equivalent views wherever inputs cover the same revision, unions the
/// root revisions, collapses equivalent declarations by unioning their scopes, keeps
/// differing ones as disjoint variants, merges components (§17.6) and validates the
/// result. Conflicts are errors (code `merge-conflict`) naming both inputs and pointers.
///
/// Output is canonical: declarations in first-appearance order (inputs in order, each
/// input's declarations in document order); `protocolVersions` omitted on a declaration
/// whose scope is the whole root set.
///
/// Each input is validated once here (merge compares the inputs' views, which it may
/// do unchecked only of valid inputs), and the result once; the result is returned as
/// the handle its consumers take.
pub fn merge(inputs: &[MergeInput]) -> Result<Validated<'static>, Vec<Diagnostic>> {
    let validator = mcpdesc_validate::Validator::new();
    let mut errs = Vec::new();
    for input in inputs {
        if let Err(diags) = validator.check(&input.document) {
            for mut d in diags.into_iter().filter(Diagnostic::is_error) {
                d.message = format!("{}: {}", input.source, d.message);
                errs.push(d);
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let merged = merge_values(inputs)?;
    check_result(validator, merged)
}

/// The one validation of a merge's result: its errors, each saying so.
fn check_result(
    validator: mcpdesc_validate::Validator,
    merged: Value,
) -> Result<Validated<'static>, Vec<Diagnostic>> {
    validator.check_owned(merged).map_err(|diags| {
        diags
            .into_iter()
            .filter(Diagnostic::is_error)
            .map(|mut d| {
                d.message = format!("in the merged result: {}", d.message);
                d
            })
            .collect()
    })
}

/// Merges single-revision views a producer built (e.g. one `tools/list` capture per
/// negotiated revision). Each view's root `protocolVersions` is set to its revision;
/// two views of the same revision must be equivalent. Unlike [`merge`] the views are
/// not validated one by one: they are the producer's work in progress, and what is
/// wrong in one is wrong in the result, which is validated once (its errors say "in the
/// merged result"). To merge descriptions, validated each, use [`merge`].
pub fn merge_views(
    views: Vec<(ProtocolRevision, Value)>,
) -> Result<Validated<'static>, Vec<Diagnostic>> {
    let inputs: Vec<MergeInput> = views
        .into_iter()
        .map(|(rev, mut v)| {
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "protocolVersions".into(),
                    scope_json(RevisionSet::single(rev)),
                );
            }
            MergeInput::new(format!("view at {rev}"), v)
        })
        .collect();
    check_result(mcpdesc_validate::Validator::new(), merge_values(&inputs)?)
}

/// [`merge`] without validating inputs or result: the transformation alone, for
/// [`merge`] (which has validated the inputs) and the module's tests.
fn merge_values(inputs: &[MergeInput]) -> Result<Value, Vec<Diagnostic>> {
    if inputs.is_empty() {
        return Err(vec![Diagnostic::error(
            "merge-no-inputs",
            "merge needs at least one input",
        )]);
    }
    let mut errs = Vec::new();
    for input in inputs {
        if !input.document.is_object() || root_scope(&input.document).is_empty() {
            errs.push(
                Diagnostic::error(
                    "merge-input-malformed",
                    format!(
                        "{}: not a document with a non-empty protocolVersions",
                        input.source
                    ),
                )
                .at("/protocolVersions"),
            );
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    check_unscoped(inputs, &mut errs);
    let components = merge_components(inputs, &mut errs);
    // The first input covering a revision speaks for it; the others must agree.
    let mut owner: [Option<usize>; 5] = [None; 5];
    for rev in ProtocolRevision::ALL {
        for (i, input) in inputs.iter().enumerate() {
            if !root_scope(&input.document).contains(rev) {
                continue;
            }
            match owner[rev.index()] {
                None => owner[rev.index()] = Some(i),
                Some(o) => {
                    if let Some(d) = compare_views(&inputs[o], &inputs[i], rev) {
                        errs.push(d);
                    }
                }
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let union: RevisionSet = inputs
        .iter()
        .map(|i| root_scope(&i.document))
        .fold(RevisionSet::EMPTY, RevisionSet::union);

    let mut collections: Vec<(DeclKind, Vec<Value>)> = Vec::new();
    for kind in DeclKind::TOP_LEVEL {
        let groups = collapse(kind, inputs, &owner);
        if kind == DeclKind::Transport && !groups.is_empty() {
            let covered = groups
                .iter()
                .fold(RevisionSet::EMPTY, |a, g| a.union(g.scope));
            if covered != union {
                let missing = union.difference(covered);
                let without: Vec<&str> = inputs
                    .iter()
                    .filter(|i| i.document.get("transports").is_none())
                    .map(|i| i.source.as_str())
                    .collect();
                errs.push(
                    Diagnostic::error(
                        "merge-transport-coverage",
                        format!(
                            "the merged transports do not cover {missing} (inputs without transports: {}); \
                             §6.5 requires transports to cover every root revision",
                            without.join(", ")
                        ),
                    )
                    .at("/transports"),
                );
            }
        }
        let values = groups
            .into_iter()
            .map(|mut g| {
                if g.scope == union {
                    clear_scope(&mut g.value);
                } else {
                    set_scope(kind, &mut g.value, g.scope);
                }
                g.value
            })
            .collect();
        collections.push((kind, values));
    }
    if !errs.is_empty() {
        return Err(errs);
    }

    // Root: the first input's key order, then keys it lacks in canonical order.
    let mut out = Map::new();
    let first = inputs[0].document.as_object().cloned().unwrap_or_default();
    let mut pending: Vec<(String, Value)> = Vec::new();
    pending.push(("protocolVersions".into(), scope_json(union)));
    if let Some(c) = components {
        pending.push(("components".into(), c));
    }
    for (kind, values) in collections {
        if !values.is_empty() {
            pending.push((kind.collection().into(), Value::Array(values)));
        }
    }
    if !first.contains_key("$schema") {
        if let Some(s) = inputs.iter().find_map(|i| i.document.get("$schema")) {
            out.insert("$schema".into(), s.clone());
        }
    }
    for (k, v) in first {
        if let Some(pos) = pending.iter().position(|(pk, _)| *pk == k) {
            let (pk, pv) = pending.remove(pos);
            out.insert(pk, pv);
        } else if k == "components" || DeclKind::from_collection(&k).is_some() {
            // Emptied by the merge (cannot happen for a valid first input); omit.
        } else {
            out.insert(k, v);
        }
    }
    for (k, v) in pending {
        out.insert(k, v);
    }
    Ok(Value::Object(out))
}

/// A collapsed declaration: the first-seen representation and the union of the
/// revisions where an equivalent declaration appears.
struct Group {
    key: String,
    value: Value,
    scope: RevisionSet,
}

fn collapse(kind: DeclKind, inputs: &[MergeInput], owner: &[Option<usize>; 5]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let root = root_scope(&input.document);
        let Some(items) = input
            .document
            .get(kind.collection())
            .and_then(Value::as_array)
        else {
            continue;
        };
        for decl in items {
            for rev in decl_scope(decl, root).intersection(root).iter() {
                if owner[rev.index()] != Some(i) {
                    continue;
                }
                let Some(projected) = project_declaration(kind, decl, root, rev) else {
                    continue;
                };
                let key = canonical_string(&normalize_decl(kind, &projected));
                match groups.iter_mut().find(|g| g.key == key) {
                    Some(g) => g.scope.insert(rev),
                    None => groups.push(Group {
                        key,
                        value: projected,
                        scope: RevisionSet::single(rev),
                    }),
                }
            }
        }
    }
    groups
}

/// Unscoped metadata (§4.13): everything at the root except protocol coverage, the
/// scoped collections and components must be equal in every input. `$schema` only
/// conflicts when two inputs state different values.
fn check_unscoped(inputs: &[MergeInput], errs: &mut Vec<Diagnostic>) {
    let mut keys: Vec<String> = Vec::new();
    for input in inputs {
        for k in input
            .document
            .as_object()
            .into_iter()
            .flat_map(|o| o.keys())
        {
            if k != "protocolVersions"
                && k != "components"
                && DeclKind::from_collection(k).is_none()
                && !keys.contains(k)
            {
                keys.push(k.clone());
            }
        }
    }
    for key in keys {
        let ptr = pointer::push("", &key);
        let mut seen: Option<(&str, &Value)> = None;
        let mut absent: Option<&str> = None;
        for input in inputs {
            match input.document.get(&key) {
                None => absent = absent.or(Some(&input.source)),
                Some(v) => match seen {
                    None => seen = Some((&input.source, v)),
                    Some((src, first)) => {
                        let (a, b) = normalized_pair(&key, first, v);
                        if !json_eq(&a, &b) {
                            let at = diff_pointer(&a, &b, ptr.clone());
                            errs.push(
                                Diagnostic::error(
                                    "merge-conflict",
                                    format!(
                                        "`{key}` differs: {src} has {} at {at}, {} has {} at {at}",
                                        brief(first, &at, &ptr),
                                        input.source,
                                        brief(v, &at, &ptr)
                                    ),
                                )
                                .at(ptr.clone()),
                            );
                            break;
                        }
                    }
                },
            }
        }
        if let (Some((src, _)), Some(missing)) = (seen, absent) {
            if key != "$schema" {
                errs.push(
                    Diagnostic::error(
                        "merge-conflict",
                        format!("`{key}` is declared by {src} (at {ptr}) but not by {missing}"),
                    )
                    .at(ptr),
                );
            }
        }
    }
}

fn normalized_pair(key: &str, a: &Value, b: &Value) -> (Value, Value) {
    if key == "security" {
        // Reuse the view normalizer on a one-key object.
        let wrap =
            |v: &Value| normalize_view(&serde_json::json!({ "security": v }))["security"].clone();
        (wrap(a), wrap(b))
    } else {
        (crate::equiv::sorted(a), crate::equiv::sorted(b))
    }
}

/// The value at `at` (a pointer that starts with `base`) inside `v`, rendered briefly.
fn brief(v: &Value, at: &str, base: &str) -> String {
    let rest = &at[base.len().min(at.len())..];
    match v.pointer(rest) {
        Some(x) => {
            let s = x.to_string();
            if s.len() > 80 {
                format!(
                    "{}…",
                    &s[..s.char_indices().nth(77).map_or(s.len(), |(i, _)| i)]
                )
            } else {
                s
            }
        }
        None => "nothing".to_string(),
    }
}

/// §17.6: union of component maps; equal values deduplicate, different values under
/// one name conflict. Outer `x-*` likewise.
fn merge_components(inputs: &[MergeInput], errs: &mut Vec<Diagnostic>) -> Option<Value> {
    let mut out = Map::new();
    let mut origin: Vec<(String, String)> = Vec::new(); // (pointer, first source)
    for input in inputs {
        let Some(comps) = input.document.get("components").and_then(Value::as_object) else {
            continue;
        };
        for (k, v) in comps {
            let ns_map = refs::NAMESPACES
                .contains(&k.as_str())
                .then(|| v.as_object())
                .flatten();
            let entries: Vec<(Option<&String>, &Value)> = match ns_map {
                Some(m) => m.iter().map(|(name, cv)| (Some(name), cv)).collect(),
                None => vec![(None, v)],
            };
            for (name, cv) in entries {
                let mut ptr = pointer::push("/components", k);
                let slot: &mut Map<String, Value> = match name {
                    Some(name) => {
                        ptr = pointer::push(&ptr, name);
                        let ns = out
                            .entry(k.clone())
                            .or_insert_with(|| Value::Object(Map::new()));
                        match ns.as_object_mut() {
                            Some(m) => m,
                            None => continue,
                        }
                    }
                    None => &mut out,
                };
                let slot_key = name.unwrap_or(k);
                match slot.get(slot_key) {
                    Some(existing) if !json_eq(existing, cv) => {
                        let src = origin
                            .iter()
                            .find(|(p, _)| *p == ptr)
                            .map_or("an earlier input", |(_, s)| s.as_str());
                        let at = diff_pointer(existing, cv, ptr.clone());
                        errs.push(
                            Diagnostic::error(
                                "merge-conflict",
                                format!(
                                    "component {ptr} differs: {src} and {} bind different values (first difference at {at})",
                                    input.source
                                ),
                            )
                            .at(ptr.clone()),
                        );
                    }
                    Some(_) => {}
                    None => {
                        slot.insert(slot_key.clone(), cv.clone());
                        origin.push((ptr, input.source.clone()));
                    }
                }
            }
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(Value::Object(out))
    }
}

/// Compares the views of two inputs at one revision; a diagnostic naming both sides
/// when they are not equivalent.
fn compare_views(a: &MergeInput, b: &MergeInput, rev: ProtocolRevision) -> Option<Diagnostic> {
    let opts = ProjectOptions::default();
    let va = project_value(&a.document, rev, opts).ok()?;
    let vb = project_value(&b.document, rev, opts).ok()?;
    if json_eq(&normalize_view(&va), &normalize_view(&vb)) {
        return None;
    }
    let ra = root_scope(&a.document);
    let rb = root_scope(&b.document);
    for kind in DeclKind::TOP_LEVEL {
        let da = applicable(&a.document, kind, ra, rev);
        let db = applicable(&b.document, kind, rb, rev);
        let key = |d: &(usize, Value)| -> Option<String> {
            kind.identity_key()
                .and_then(|k| d.1.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        if kind.identity_key().is_some() {
            for x in &da {
                let Some(id) = key(x) else { continue };
                let pa = format!("/{}/{}", kind.collection(), x.0);
                match db.iter().find(|y| key(y).as_deref() == Some(id.as_str())) {
                    None => {
                        return Some(conflict(
                            rev,
                            format!(
                                "{} is declared by {} (at {pa}) but not by {}",
                                kind.describe(&x.1, x.0),
                                a.source,
                                b.source
                            ),
                            pa,
                        ));
                    }
                    Some(y) => {
                        let (nx, ny) = (normalize_decl(kind, &x.1), normalize_decl(kind, &y.1));
                        if !json_eq(&nx, &ny) {
                            let rel = diff_pointer(&nx, &ny, String::new());
                            let pb = format!("/{}/{}{rel}", kind.collection(), y.0);
                            let pa = format!("{pa}{rel}");
                            return Some(conflict(
                                rev,
                                format!(
                                    "{} differs: {} at {pa} vs {} at {pb}",
                                    kind.describe(&x.1, x.0),
                                    a.source,
                                    b.source
                                ),
                                pa,
                            ));
                        }
                    }
                }
            }
            for y in &db {
                let Some(id) = key(y) else { continue };
                if !da.iter().any(|x| key(x).as_deref() == Some(id.as_str())) {
                    let pb = format!("/{}/{}", kind.collection(), y.0);
                    return Some(conflict(
                        rev,
                        format!(
                            "{} is declared by {} (at {pb}) but not by {}",
                            kind.describe(&y.1, y.0),
                            b.source,
                            a.source
                        ),
                        pb,
                    ));
                }
            }
        } else {
            let mut na: Vec<String> = da
                .iter()
                .map(|d| canonical_string(&normalize_decl(kind, &d.1)))
                .collect();
            let mut nb: Vec<String> = db
                .iter()
                .map(|d| canonical_string(&normalize_decl(kind, &d.1)))
                .collect();
            na.sort();
            nb.sort();
            if na != nb {
                let p = format!("/{}", kind.collection());
                return Some(conflict(
                    rev,
                    format!(
                        "the {} applicable at {rev} differ between {} and {}",
                        kind.collection(),
                        a.source,
                        b.source
                    ),
                    p,
                ));
            }
        }
    }
    Some(conflict(
        rev,
        format!("the views of {} and {} differ", a.source, b.source),
        String::new(),
    ))
}

fn conflict(rev: ProtocolRevision, msg: String, at: String) -> Diagnostic {
    Diagnostic::error(
        "merge-conflict",
        format!("both inputs describe {rev}, but {msg}"),
    )
    .at(at)
}

/// `(index in the original collection, projected declaration)` of the declarations
/// applicable at `rev`.
fn applicable(
    doc: &Value,
    kind: DeclKind,
    root: RevisionSet,
    rev: ProtocolRevision,
) -> Vec<(usize, Value)> {
    doc.get(kind.collection())
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, d)| project_declaration(kind, d, root, rev).map(|p| (i, p)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(rev: &str, comps: Value) -> Value {
        json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"}, "protocolVersions": [rev],
               "components": comps,
               "tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/In"}}]})
    }

    #[test]
    fn components_deduplicate_and_conflict() {
        let a = doc("2025-06-18", json!({"schemas": {"In": {"type": "object"}}}));
        let b = doc(
            "2025-11-25",
            json!({"schemas": {"In": {"type": "object"}, "Other": {"type": "object"}}}),
        );
        let m = merge_values(&[MergeInput::new("a", a.clone()), MergeInput::new("b", b)])
            .expect("merges");
        assert_eq!(
            m["components"],
            json!({"schemas": {"In": {"type": "object"}, "Other": {"type": "object"}}})
        );
        assert_eq!(
            m["tools"],
            json!([{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/In"}}])
        );

        let c = doc(
            "2025-11-25",
            json!({"schemas": {"In": {"type": "object", "additionalProperties": false}}}),
        );
        let err = merge_values(&[MergeInput::new("a", a), MergeInput::new("c", c)])
            .expect_err("conflict");
        assert_eq!(err.len(), 1);
        assert_eq!(err[0].code, "merge-conflict");
        assert_eq!(err[0].pointer, "/components/schemas/In");
        assert!(err[0].message.contains("a and c"), "{}", err[0].message);
    }

    #[test]
    fn views_of_one_revision_must_agree() {
        let a = doc("2025-06-18", json!({"schemas": {"In": {"type": "object"}}}));
        let mut b = a.clone();
        b["tools"][0]["description"] = json!("differs");
        let err = merge_values(&[MergeInput::new("a", a.clone()), MergeInput::new("b", b)])
            .expect_err("conflict");
        assert_eq!(err[0].pointer, "/tools/0/description");
        // The same view twice is fine.
        let m = merge_values(&[
            MergeInput::new("a", a.clone()),
            MergeInput::new("a2", a.clone()),
        ])
        .expect("merges");
        assert_eq!(m, a);
    }

    #[test]
    fn transport_coverage_is_checked() {
        let mut a = doc("2025-06-18", json!({"schemas": {"In": {"type": "object"}}}));
        a["transports"] = json!([{"type": "stdio", "command": "s"}]);
        let b = doc("2025-11-25", json!({"schemas": {"In": {"type": "object"}}}));
        let err = merge_values(&[MergeInput::new("a", a), MergeInput::new("b", b)])
            .expect_err("coverage");
        assert_eq!(err[0].code, "merge-transport-coverage");
        assert!(err[0].message.contains('b'));
    }
}
