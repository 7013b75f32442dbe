//! The scoped declaration kinds of §4.10 — the one table of where each kind lives in a
//! document, what identifies "the same" declaration across variants, which
//! revision-table object kind governs its fields — and effective scopes (§4.10).
//!
//! The validator, the scope machinery, the importers, serve, diff, docs and lint all
//! read declarations through this table.

use crate::{ObjectKind, RevisionSet};
use serde_json::Value;

/// A kind of protocol-scoped declaration (§4.10): the five root collections plus the
/// nested Elicitation Declarations of primitives (§12.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeclKind {
    /// Root `transports[*]`.
    Transport,
    /// Root `capabilities[*]`.
    Capabilities,
    /// Root `tools[*]`.
    Tool,
    /// Root `resources[*]`.
    Resource,
    /// Root `resourceTemplates[*]`.
    ResourceTemplate,
    /// Root `prompts[*]`.
    Prompt,
    /// `elicitations[*]` nested in a primitive.
    Elicitation,
}

impl DeclKind {
    /// The root-level scoped collections, in canonical document order.
    pub const TOP_LEVEL: [DeclKind; 6] = [
        DeclKind::Transport,
        DeclKind::Capabilities,
        DeclKind::Tool,
        DeclKind::Resource,
        DeclKind::ResourceTemplate,
        DeclKind::Prompt,
    ];

    /// The four primitive kinds (those that can carry `elicitations`, `security`, examples).
    pub const PRIMITIVES: [DeclKind; 4] = [
        DeclKind::Tool,
        DeclKind::Resource,
        DeclKind::ResourceTemplate,
        DeclKind::Prompt,
    ];

    /// Name of the array property holding declarations of this kind.
    pub const fn collection(self) -> &'static str {
        match self {
            DeclKind::Transport => "transports",
            DeclKind::Capabilities => "capabilities",
            DeclKind::Tool => "tools",
            DeclKind::Resource => "resources",
            DeclKind::ResourceTemplate => "resourceTemplates",
            DeclKind::Prompt => "prompts",
            DeclKind::Elicitation => "elicitations",
        }
    }

    /// The kind whose root collection is named `collection`.
    pub fn from_collection(collection: &str) -> Option<DeclKind> {
        Self::TOP_LEVEL
            .into_iter()
            .chain([DeclKind::Elicitation])
            .find(|k| k.collection() == collection)
    }

    /// The property whose value identifies "the same" declaration across variants
    /// (§9.5, §10.5, §11.5, §12.2). Transports and Capabilities Objects have none.
    pub const fn identity_key(self) -> Option<&'static str> {
        match self {
            DeclKind::Tool | DeclKind::Prompt | DeclKind::Elicitation => Some("name"),
            DeclKind::Resource => Some("uri"),
            DeclKind::ResourceTemplate => Some("uriTemplate"),
            DeclKind::Transport | DeclKind::Capabilities => None,
        }
    }

    /// The property after which a synthesized `protocolVersions` is placed.
    pub const fn scope_anchor(self) -> Option<&'static str> {
        match self {
            DeclKind::Transport => Some("type"),
            _ => self.identity_key(),
        }
    }

    /// The revision-table object kind governing this declaration's fields.
    pub const fn object_kind(self) -> Option<ObjectKind> {
        match self {
            DeclKind::Tool => Some(ObjectKind::Tool),
            DeclKind::Resource => Some(ObjectKind::Resource),
            DeclKind::ResourceTemplate => Some(ObjectKind::ResourceTemplate),
            DeclKind::Prompt => Some(ObjectKind::Prompt),
            _ => None,
        }
    }

    /// The component namespace the `examples` map of this kind may reference (§17.3).
    pub const fn example_namespace(self) -> Option<&'static str> {
        match self {
            DeclKind::Tool => Some("toolExamples"),
            DeclKind::Resource => Some("resourceExamples"),
            DeclKind::ResourceTemplate => Some("resourceTemplateExamples"),
            DeclKind::Prompt => Some("promptExamples"),
            _ => None,
        }
    }

    /// Whether declarations of this kind may carry nested `elicitations`.
    pub const fn is_primitive(self) -> bool {
        matches!(
            self,
            DeclKind::Tool | DeclKind::Resource | DeclKind::ResourceTemplate | DeclKind::Prompt
        )
    }

    /// Human name for messages ("tool", "resource template", …).
    pub const fn noun(self) -> &'static str {
        match self {
            DeclKind::Transport => "transport",
            DeclKind::Capabilities => "capabilities object",
            DeclKind::Tool => "tool",
            DeclKind::Resource => "resource",
            DeclKind::ResourceTemplate => "resource template",
            DeclKind::Prompt => "prompt",
            DeclKind::Elicitation => "elicitation declaration",
        }
    }

    /// Capitalized name, as the spec's section titles write it ("Tool", "Resource Template").
    pub const fn label(self) -> &'static str {
        match self {
            DeclKind::Transport => "Transport",
            DeclKind::Capabilities => "Capabilities Object",
            DeclKind::Tool => "Tool",
            DeclKind::Resource => "Resource",
            DeclKind::ResourceTemplate => "Resource Template",
            DeclKind::Prompt => "Prompt",
            DeclKind::Elicitation => "Elicitation Declaration",
        }
    }

    /// The identity of `decl` for messages, e.g. "tool `search`" or "transport #2".
    pub fn describe(self, decl: &Value, index: usize) -> String {
        match self
            .identity_key()
            .and_then(|k| decl.get(k))
            .and_then(Value::as_str)
        {
            Some(id) => format!("{} `{id}`", self.noun()),
            None => match decl.get("type").and_then(Value::as_str) {
                Some(t) if self == DeclKind::Transport => format!("{t} transport #{index}"),
                _ => format!("{} #{index}", self.noun()),
            },
        }
    }
}

/// The root `protocolVersions` set of a document (unknown entries ignored).
pub fn root_scope(doc: &Value) -> RevisionSet {
    doc.get("protocolVersions")
        .map(RevisionSet::from_json)
        .unwrap_or_default()
}

/// The effective scope of a declaration under `parent` (§4.10).
pub fn decl_scope(decl: &Value, parent: RevisionSet) -> RevisionSet {
    RevisionSet::effective(decl.get("protocolVersions"), parent)
}

/// `protocolVersions` as a JSON array of wire strings, oldest first.
pub fn scope_json(scope: RevisionSet) -> Value {
    Value::Array(scope.to_strings().into_iter().map(Value::String).collect())
}

/// Whether a key is a specification extension (`x-*`, §14.1).
pub fn is_extension(key: &str) -> bool {
    key.starts_with("x-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_spec() {
        // §9.5, §10.5, §11.5, §12.2 (hand-written from the spec text).
        let id = |k: DeclKind| k.identity_key();
        assert_eq!(id(DeclKind::Tool), Some("name"));
        assert_eq!(id(DeclKind::Resource), Some("uri"));
        assert_eq!(id(DeclKind::ResourceTemplate), Some("uriTemplate"));
        assert_eq!(id(DeclKind::Prompt), Some("name"));
        assert_eq!(id(DeclKind::Capabilities), None);
        assert_eq!(
            DeclKind::from_collection("resourceTemplates"),
            Some(DeclKind::ResourceTemplate)
        );
        assert_eq!(DeclKind::from_collection("x-tools"), None);
        for k in DeclKind::PRIMITIVES {
            assert!(
                k.is_primitive() && k.object_kind().is_some() && k.example_namespace().is_some()
            );
        }
        assert_eq!(
            DeclKind::Tool.describe(&serde_json::json!({"name": "a"}), 0),
            "tool `a`"
        );
    }
}
