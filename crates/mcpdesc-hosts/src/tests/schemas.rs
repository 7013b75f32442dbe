use crate::html_to_text;
use crate::strict::{StrictFinding, StrictIssue, findings};
use crate::table::StrictLimits;
use serde_json::json;

#[test]
fn the_common_entities_are_decoded() {
    assert_eq!(
        html_to_text("it&apos;s &quot;x&quot; &lt;a&gt; &amp; &#39;y&#x27;"),
        "it's \"x\" <a> & 'y'"
    );
    // Unknown or unterminated entities are text.
    assert_eq!(html_to_text("&nope; &amp &#xZZ;"), "&nope; &amp &#xZZ;");
}

#[test]
fn strict_limits_are_exceeded_only_past_the_maximum() {
    let limits = StrictLimits {
        max_depth: 2,
        max_properties: 2,
        max_enum_values: 2,
    };
    let at_limits = json!({"type": "object", "additionalProperties": false, "required": ["a", "b"],
        "properties": {"a": {"enum": [1, 2]},
                       "b": {"type": "array", "items": {"type": "string"}}}});
    assert_eq!(findings(&at_limits, "/s", limits), []);
    let over = json!({"type": "object", "additionalProperties": false, "required": ["a", "b", "c"],
        "properties": {"a": {"enum": [1, 2, 3]},
                       "b": {"type": "array", "items": {"type": "array", "items": {}}},
                       "c": {}}});
    let over_limit = |what, count| StrictFinding {
        pointer: "/s".into(),
        issue: StrictIssue::OverLimit {
            what,
            count,
            max: 2,
        },
    };
    assert_eq!(
        findings(&over, "/s", limits),
        [
            over_limit("schema nesting depth", 3),
            over_limit("object properties", 3),
            over_limit("enum values", 3),
        ]
    );
}
