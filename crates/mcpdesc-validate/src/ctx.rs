//! Shared walking helpers for the semantic rules.
//!
//! Every rule reads the decoded JSON data model defensively: the structural layer has
//! already reported wrong types, so a rule that meets an unexpected shape skips it
//! instead of reporting it a second time.

use mcpdesc_core::{Diagnostic, ObjectKind, RevisionSet, pointer};
use serde_json::{Map, Value};
use std::rc::Rc;

/// The four primitive collections (§9–§11) and what distinguishes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrimitiveKind {
    /// Root property holding the collection, e.g. `tools`.
    pub collection: &'static str,
    /// Revision-facts object kind.
    pub object: ObjectKind,
    /// Property identifying same-named variants (§9.5, §10.5, §11.5).
    pub identity: &'static str,
    /// Human name for messages.
    pub label: &'static str,
    /// Component namespace of its `examples` values (§17.3).
    pub example_namespace: &'static str,
}

/// Tools, Resources, Resource Templates, Prompts — in document order of the spec.
pub const PRIMITIVES: [PrimitiveKind; 4] = [
    PrimitiveKind {
        collection: "tools",
        object: ObjectKind::Tool,
        identity: "name",
        label: "Tool",
        example_namespace: "toolExamples",
    },
    PrimitiveKind {
        collection: "resources",
        object: ObjectKind::Resource,
        identity: "uri",
        label: "Resource",
        example_namespace: "resourceExamples",
    },
    PrimitiveKind {
        collection: "resourceTemplates",
        object: ObjectKind::ResourceTemplate,
        identity: "uriTemplate",
        label: "Resource Template",
        example_namespace: "resourceTemplateExamples",
    },
    PrimitiveKind {
        collection: "prompts",
        object: ObjectKind::Prompt,
        identity: "name",
        label: "Prompt",
        example_namespace: "promptExamples",
    },
];

/// One primitive declaration with its location and effective scope.
#[derive(Debug, Clone)]
pub struct Primitive<'a> {
    pub kind: PrimitiveKind,
    pub index: usize,
    pub value: &'a Map<String, Value>,
    pub pointer: String,
    /// Effective protocol scope (§4.10): explicit `protocolVersions` or the root scope.
    pub scope: RevisionSet,
}

/// Read-only view of the document plus the diagnostics being collected.
#[derive(Debug)]
pub struct Ctx<'a> {
    pub root: &'a Value,
    pub root_obj: &'a Map<String, Value>,
    /// Root `protocolVersions`, known revisions only.
    pub root_scope: RevisionSet,
    pub out: Vec<Diagnostic>,
    /// Every primitive declaration, computed once: nine rules walk them, and each walk
    /// used to rebuild 1,000 pointers for a 1,000-tool document.
    prims: Rc<[Primitive<'a>]>,
}

impl<'a> Ctx<'a> {
    pub fn new(root: &'a Value, root_obj: &'a Map<String, Value>) -> Self {
        let root_scope = root_obj
            .get("protocolVersions")
            .map(RevisionSet::from_json)
            .unwrap_or_default();
        let prims = collect_primitives(root_obj, root_scope).into();
        Ctx {
            root,
            root_obj,
            root_scope,
            out: Vec::new(),
            prims,
        }
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    /// A root array member, if it is an array.
    pub fn root_array(&self, key: &str) -> &'a [Value] {
        root_array(self.root_obj, key)
    }

    /// Every primitive declaration that is an object, in document order per collection
    /// (shared: cloning the handle is free).
    pub fn primitives(&self) -> Rc<[Primitive<'a>]> {
        Rc::clone(&self.prims)
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
    for kind in PRIMITIVES {
        for (index, item) in root_array(root_obj, kind.collection).iter().enumerate() {
            let Some(obj) = item.as_object() else {
                continue;
            };
            v.push(Primitive {
                kind,
                index,
                value: obj,
                pointer: format!("/{}/{index}", kind.collection),
                scope: scope_of(obj, root_scope),
            });
        }
    }
    v
}

/// Effective scope of a scoped declaration under `parent` (§4.10).
pub fn scope_of(obj: &Map<String, Value>, parent: RevisionSet) -> RevisionSet {
    RevisionSet::effective(obj.get("protocolVersions"), parent)
}

/// `base/token`.
pub fn ptr(base: &str, token: impl AsRef<str>) -> String {
    pointer::push(base, token)
}

/// Formats a revision set for messages: `2024-11-05, 2025-03-26`.
pub fn revs(set: RevisionSet) -> String {
    set.to_strings().join(", ")
}

/// Whether a property name is a specification extension (§14.1).
pub fn is_extension(key: &str) -> bool {
    key.starts_with("x-")
}
