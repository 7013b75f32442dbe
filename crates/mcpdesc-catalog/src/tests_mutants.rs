//! Tests for mutants that survived the crate's unit tests (issue 33); expectations
//! written by hand from each item's documented meaning.

use crate::Selection;

/// A selection keeps every tool only when it names no toolset, no tool glob, no
/// exclusion and is not read-only: any one criterion alone restricts it.
#[test]
fn any_one_criterion_keeps_less_than_everything() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(
        Selection::new(&[], &[], &[], false)
            .expect("ok")
            .keeps_everything()
    );
    for (toolsets, tools, exclude, read_only) in [
        (s(&["repos"]), vec![], vec![], false),
        (vec![], s(&["repos_*"]), vec![], false),
        (vec![], vec![], s(&["*_delete"]), false),
        (vec![], vec![], vec![], true),
    ] {
        let sel = Selection::new(&toolsets, &tools, &exclude, read_only).expect("ok");
        assert!(
            !sel.keeps_everything(),
            "{toolsets:?} {tools:?} {exclude:?} {read_only}"
        );
    }
}
