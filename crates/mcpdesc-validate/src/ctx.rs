//! The one validation context: the document, its primitive declarations with their
//! effective scopes, the diagnostics being collected and the per-document work state
//! (example-validation budget, schema caches).
//!
//! Every rule reads the decoded JSON data model defensively: the structural layer has
//! already reported wrong types, so a rule that meets an unexpected shape skips it
//! instead of reporting it a second time.

use crate::schema_facts;
use mcpdesc_core::{DeclKind, Diagnostic, RevisionSet, pointer, refs};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::rc::Rc;

/// Most instance validations (examples × schemas) done per document (§17.7: bound the
/// resolved validation work).
pub(crate) const MAX_INSTANCE_VALIDATIONS: usize = 20_000;

/// Effective scope of a scoped declaration under `parent`, the scope every rule uses.
///
/// §4.10 defines the effective scope as the explicit `protocolVersions` when present and
/// the parent's scope otherwise, and requires an explicit scope to be a non-empty subset
/// of the parent's. Revision-specific rules evaluate the effective scope *within* the
/// parent: a revision outside the parent is already an error of its own
/// (`protocol-scope-outside-parent`, `elicitation-scope-outside-parent`), and it belongs
/// to no Effective Protocol View (§4.12: a view exists only for revisions of root
/// coverage), so checking a declaration's fields or payloads against it would only
/// restate that one error many times. Unknown revision strings are ignored here (the
/// scope rules report them).
pub(crate) fn scope_of(decl: &Map<String, Value>, parent: RevisionSet) -> RevisionSet {
    RevisionSet::effective(decl.get("protocolVersions"), parent).intersection(parent)
}

/// One primitive declaration (Tool, Resource, Resource Template, Prompt) with its
/// location and effective scope.
#[derive(Debug, Clone)]
pub(crate) struct Primitive<'a> {
    pub kind: DeclKind,
    /// Index in its root collection.
    pub index: usize,
    pub value: &'a Map<String, Value>,
    /// `/tools/3`.
    pub pointer: String,
    /// Effective protocol scope ([`scope_of`] under the root scope).
    pub scope: RevisionSet,
}

/// The document being validated plus everything one run collects.
pub(crate) struct Ctx<'a> {
    pub root: &'a Value,
    pub root_obj: &'a Map<String, Value>,
    /// Root `protocolVersions`, known revisions only.
    pub root_scope: RevisionSet,
    out: Vec<Diagnostic>,
    /// Every primitive declaration, computed once and shared (cloning the handle is free).
    prims: Rc<[Primitive<'a>]>,
    /// Names in the root `tags` catalogue, when there is one (§13.3).
    pub tag_catalogue: Option<crate::rules::tags::Catalogue<'a>>,
    /// Instance validations spent (see [`MAX_INSTANCE_VALIDATIONS`]).
    validations: usize,
    limit_reported: bool,
    ref_limit_reported: bool,
    /// Meta-validation, scan and compile caches for embedded schemas.
    pub schemas: schema_facts::Cache<'a>,
}

impl std::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("root_scope", &self.root_scope)
            .field("primitives", &self.prims.len())
            .field("diagnostics", &self.out.len())
            .field("validations", &self.validations)
            .finish_non_exhaustive()
    }
}

impl<'a> Ctx<'a> {
    pub fn new(root: &'a Value, root_obj: &'a Map<String, Value>) -> Self {
        let root_scope = mcpdesc_core::decl::root_scope(root);
        let prims = collect_primitives(root_obj, root_scope).into();
        Ctx {
            root,
            root_obj,
            root_scope,
            out: Vec::new(),
            prims,
            tag_catalogue: None,
            validations: 0,
            limit_reported: false,
            ref_limit_reported: false,
            schemas: schema_facts::Cache::default(),
        }
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    pub fn extend(&mut self, d: impl IntoIterator<Item = Diagnostic>) {
        self.out.extend(d);
    }

    pub fn error(&mut self, code: &str, ptr: impl Into<String>, msg: impl Into<String>) {
        self.out.push(Diagnostic::error(code, msg).at(ptr));
    }

    pub fn warn(&mut self, code: &str, ptr: impl Into<String>, msg: impl Into<String>) {
        self.out.push(Diagnostic::warning(code, msg).at(ptr));
    }

    /// A root array member, if it is an array.
    pub fn root_array(&self, key: &str) -> &'a [Value] {
        root_array(self.root_obj, key)
    }

    /// Every primitive declaration that is an object, in document order per collection.
    pub fn primitives(&self) -> Rc<[Primitive<'a>]> {
        Rc::clone(&self.prims)
    }

    /// Takes one unit of the instance-validation budget; `false` once exhausted (and
    /// reports that once).
    pub fn take_budget(&mut self, ptr: &str) -> bool {
        if self.validations < MAX_INSTANCE_VALIDATIONS {
            self.validations += 1;
            return true;
        }
        if !self.limit_reported {
            self.limit_reported = true;
            self.warn(
                "payload-validation-limit",
                ptr,
                format!("more than {MAX_INSTANCE_VALIDATIONS} example validations in one document; the rest were not validated"),
            );
        }
        false
    }

    /// Resolves a `$componentRef` use site (§17.4). A chain longer than
    /// [`refs::MAX_REF_CHAIN`] is a limit of this validator, not a document error: it is
    /// reported once per document, as a warning at `/components` (the same place from
    /// every use site, so validation in parts reports it once too), and the use sites
    /// it reaches are not validated. Other failures are returned for the caller.
    pub fn resolve(
        &mut self,
        value: &'a Value,
        namespace: &str,
    ) -> Result<(&'a Value, Option<String>), refs::RefError> {
        let r = refs::resolve(self.root, value, namespace);
        if matches!(r, Err(refs::RefError::TooDeep)) && !self.ref_limit_reported {
            self.ref_limit_reported = true;
            self.warn(
                refs::RefError::TooDeep.code(),
                "/components",
                format!(
                    "a `$componentRef` chain is longer than {} references, this validator's \
                     processing limit (§17.7); it was not followed, so the declarations that \
                     use it were not validated: validation is incomplete",
                    refs::MAX_REF_CHAIN
                ),
            );
        }
        r
    }

    /// The diagnostics, each exact repeat once (one referenced component seen from
    /// several use sites reports once).
    pub fn finish(self) -> Vec<Diagnostic> {
        let mut seen = HashSet::new();
        self.out
            .into_iter()
            .filter(|d| {
                seen.insert((
                    d.severity,
                    d.code.clone(),
                    d.pointer.clone(),
                    d.message.clone(),
                ))
            })
            .collect()
    }
}

fn root_array<'a>(root_obj: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    root_obj
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn collect_primitives(
    root_obj: &Map<String, Value>,
    root_scope: RevisionSet,
) -> Vec<Primitive<'_>> {
    let mut v = Vec::new();
    for kind in DeclKind::PRIMITIVES {
        let collection = kind.collection();
        for (index, item) in root_array(root_obj, collection).iter().enumerate() {
            let Some(obj) = item.as_object() else {
                continue;
            };
            v.push(Primitive {
                kind,
                index,
                value: obj,
                pointer: format!("/{collection}/{index}"),
                scope: scope_of(obj, root_scope),
            });
        }
    }
    v
}

/// `base/token`.
pub(crate) fn ptr(base: &str, token: impl AsRef<str>) -> String {
    pointer::push(base, token)
}

/// Formats a revision set for messages: `2024-11-05, 2025-03-26`.
pub(crate) fn revs(set: RevisionSet) -> String {
    set.to_strings().join(", ")
}
