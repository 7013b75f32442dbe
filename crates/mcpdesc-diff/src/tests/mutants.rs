//! Cases for mutants that survived the crate's unit tests (issue 33), written like the
//! other cases here: each finding line from the rule table's meaning.

use super::{doc, expect};
use serde_json::{Value, json};

/// An unchanged `mimeType` is no finding when something else of the resource changed:
/// only the programmatic `name` (info) is reported.
#[test]
fn an_unchanged_mime_type_beside_a_changed_name_is_no_finding() {
    let one = |r: Value| doc(json!({"resources": [r]}));
    let r = "/resources/0";
    expect(
        &one(json!({"uri": "file:///a", "name": "a", "mimeType": "text/plain"})),
        &one(json!({"uri": "file:///a", "name": "b", "mimeType": "text/plain"})),
        &[&format!(
            "info name-changed resource `file:///a`: `name` `a` → `b` | {r}/name | {r}/name"
        )],
    );
}
