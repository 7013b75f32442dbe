//! Tests a reviewer asked for when shown the mutants that survived a random sample of
//! this crate (issue 33).

use crate::view::{DropReason, first_difference};
use serde_json::{Value, json};

/// The codes the variants' documentation names.
#[test]
fn drop_reasons_have_their_documented_codes() {
    assert_eq!(DropReason::NotInRevision.code(), "field-not-in-revision");
    assert_eq!(DropReason::Unknown.code(), "unknown-tool-field");
}

/// `{"a": {"a": … v}}`, `depth` objects deep.
fn nested(depth: usize, v: Value) -> Value {
    (0..depth).fold(v, |inner, _| json!({ "a": inner }))
}

/// Past the recursion limit two values are compared whole: equal ones have no
/// difference, unequal ones differ at the pointer where the walk stopped.
#[test]
fn deeply_nested_values_compare_whole_past_the_limit() {
    let (a, b) = (nested(600, json!(1)), nested(600, json!(1)));
    assert_eq!(first_difference(&a, &b, "", 0), None);
    let c = nested(600, json!(2));
    let at = first_difference(&a, &c, "", 0).expect("a difference");
    assert!(
        at.starts_with("/a/a/") && at.len() >= 2 * 513,
        "{}",
        at.len()
    );
    // Key order does not matter, array order does.
    assert_eq!(
        first_difference(&json!({"x": 1, "y": 2}), &json!({"y": 2, "x": 1}), "", 0),
        None
    );
    assert_eq!(
        first_difference(&json!({"l": [1, 2]}), &json!({"l": [2, 1]}), "", 0).as_deref(),
        Some("/l/0")
    );
}
