//! The search index reads `$ref`s through the one referencing module: a property behind
//! an `$anchor` reference (`#point`) or an escaped pointer (`#/$defs/a~1b`,
//! `#/$defs/%25`) is searchable, as validation resolves it (expectations by hand from
//! JSON Schema 2020-12 §8.2.2, RFC 6901 and RFC 3986 §2.1).

use mcpdesc_catalog::search::{Field, ToolText};
use serde_json::json;

#[test]
fn parameters_behind_anchors_and_escaped_pointers_are_indexed() {
    let decl = json!({
        "name": "plot",
        "inputSchema": {
            "type": "object",
            "properties": {
                "at": {"$ref": "#point"},
                "tag": {"$ref": "#/$defs/a~1b"},
                "share": {"$ref": "#/$defs/%25"},
                "lost": {"$ref": "#nowhere"}
            },
            "$defs": {
                "Point": {"$anchor": "point", "type": "object",
                          "properties": {"latitude": {"type": "number"}}},
                "a/b": {"type": "object", "properties": {"slashed": {"type": "string"}}},
                "%": {"type": "object", "properties": {"percent": {"type": "boolean"}}}
            }
        }
    });
    let doc = json!({"tools": [decl.clone()]});
    let t = ToolText::of_tool("plot", &doc, &decl);
    let mut words: Vec<&str> = t.fields[Field::Parameters as usize].split(' ').collect();
    words.sort_unstable();
    assert_eq!(
        words,
        [
            "at", "latitude", "lost", "percent", "share", "slashed", "tag"
        ]
    );
}
