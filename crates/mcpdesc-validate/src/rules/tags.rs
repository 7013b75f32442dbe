//! Tags (§13): unique catalogue names, references declared when a catalogue exists,
//! no duplicates within one primitive's `tags`.

use crate::ctx::{Ctx, Primitive, ptr};
use mcpdesc_core::Diagnostic;
use serde_json::Value;
use std::collections::HashSet;

/// The root catalogue's tag names. foldhash, not SipHash: every part of a streamed
/// document ([`crate::ToolParts`]) builds it again, and the names are the
/// description's own (nothing to gain from SipHash's resistance to chosen collisions).
pub type Catalogue<'a> = HashSet<&'a str, foldhash::fast::RandomState>;

/// §13.2: unique catalogue names. Keeps the catalogue in the context for
/// [`check_references`].
pub fn check_catalogue(cx: &mut Ctx<'_>) {
    let catalogue = match cx.root_obj.get("tags") {
        Some(Value::Array(tags)) => {
            let mut names = Catalogue::with_capacity_and_hasher(tags.len(), Default::default());
            for (i, t) in tags.iter().enumerate() {
                let Some(name) = t.get("name").and_then(Value::as_str) else {
                    continue;
                };
                if !names.insert(name) {
                    cx.push(
                        Diagnostic::error(
                            "duplicate-tag",
                            format!("tag `{name}` is declared more than once in the root catalogue (§13.2)"),
                        )
                        .at(format!("/tags/{i}/name")),
                    );
                }
            }
            Some(names)
        }
        _ => None,
    };
    cx.tag_catalogue = catalogue;
}

/// §13.3: a primitive's tag references.
pub fn check_references(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    let Some(Value::Array(refs)) = p.value.get("tags") else {
        return;
    };
    let at = ptr(&p.pointer, "tags");
    let mut seen = HashSet::new();
    let mut duplicated = false;
    for (k, r) in refs.iter().enumerate() {
        let Some(name) = r.as_str() else { continue };
        if !seen.insert(name) {
            duplicated = true;
        }
        let undeclared = cx
            .tag_catalogue
            .as_ref()
            .is_some_and(|cat| !cat.contains(name));
        if undeclared {
            cx.push(
                Diagnostic::error(
                    "unknown-tag-reference",
                    format!("tag `{name}` is not declared in the root `tags` catalogue (§13.3)"),
                )
                .at(ptr(&at, k.to_string())),
            );
        }
    }
    // Reported on the array, where the schema's `uniqueItems` also points.
    if duplicated {
        cx.push(
            Diagnostic::error(
                "duplicate-tag-reference",
                "a primitive's `tags` must not repeat a tag (§13.3)",
            )
            .at(at),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, errors};
    use serde_json::json;

    #[test]
    fn references_checked_only_against_a_present_catalogue() {
        let mut doc = base(&["2025-06-18"]);
        doc["tools"] =
            json!([{"name": "t", "inputSchema": {"type": "object"}, "tags": ["anything"]}]);
        assert!(errors(&doc).is_empty());
        doc["tags"] = json!([{"name": "reference"}]);
        assert_eq!(
            codes_at(&doc, "unknown-tag-reference"),
            vec!["/tools/0/tags/0"]
        );
    }

    #[test]
    fn duplicates() {
        let mut doc = base(&["2025-06-18"]);
        doc["tags"] = json!([{"name": "a"}, {"name": "a"}]);
        doc["prompts"] = json!([{"name": "p", "tags": ["a", "a"]}]);
        assert_eq!(codes_at(&doc, "duplicate-tag"), vec!["/tags/1/name"]);
        assert_eq!(
            codes_at(&doc, "duplicate-tag-reference"),
            vec!["/prompts/0/tags"]
        );
    }

    #[test]
    fn empty_catalogue_still_constrains_references() {
        let mut doc = base(&["2025-11-25"]);
        doc["tags"] = json!([]);
        doc["tools"] =
            json!([{"name": "t", "inputSchema": {"type": "object"}, "tags": ["missing"]}]);
        assert_eq!(codes_at(&doc, "empty-collection"), vec!["/tags"]);
        assert_eq!(
            codes_at(&doc, "unknown-tag-reference"),
            vec!["/tools/0/tags/0"]
        );
    }
}
