//! What a user reads, hand-written (issue 23): for small pairs of descriptions, every
//! finding's class, rule, declaration, message words and both pointers, as one line
//! each — `CLASS RULE DECLARATION: MESSAGE | OLD POINTER | NEW POINTER` (`-` for no
//! pointer; the revisions follow in brackets when they are not all compared ones).
//! The expectations are written from the spec's vocabulary and the rule table's
//! meaning, not copied from a run; each group of cases states the behaviour it pins.

use crate::report::Finding;
use crate::{DiffOptions, Report, diff_inputs};
use serde_json::{Value, json};

mod document;
mod mutants;
mod report;
mod schema;
mod walk;

/// A description with `members` added to a minimal root at revision 2025-06-18.
pub(super) fn doc(members: Value) -> Value {
    let mut d = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-06-18"],
    });
    if let (Some(d), Some(m)) = (d.as_object_mut(), members.as_object()) {
        for (k, v) in m {
            d.insert(k.clone(), v.clone());
        }
    }
    d
}

pub(super) fn report(old: &Value, new: &Value) -> Report {
    diff_inputs(old.into(), new.into(), &DiffOptions::default()).expect("report")
}

pub(super) fn line(f: &Finding, compared: mcpdesc_core::RevisionSet) -> String {
    let ptr =
        |l: &Option<crate::Location>| l.as_ref().map_or("-".to_string(), |l| l.pointer.clone());
    let decl = f
        .declaration
        .as_ref()
        .map_or("document".to_string(), ToString::to_string);
    let mut s = format!(
        "{} {} {decl}: {} | {} | {}",
        f.class,
        f.rule.id(),
        f.message,
        ptr(&f.old),
        ptr(&f.new)
    );
    if f.revisions != compared {
        s.push_str(&format!(" [{}]", f.revisions.to_strings().join(", ")));
    }
    s
}

pub(super) fn lines_of(r: &Report) -> Vec<String> {
    r.findings.iter().map(|f| line(f, r.revisions)).collect()
}

/// Every finding of OLD → NEW, one line each.
pub(super) fn lines(old: &Value, new: &Value) -> Vec<String> {
    lines_of(&report(old, new))
}

/// Asserts the findings, showing both lists on failure.
#[track_caller]
pub(super) fn expect(old: &Value, new: &Value, want: &[&str]) {
    let got = lines(old, new);
    assert_eq!(got, want, "\ngot:\n{}\n", got.join("\n"));
}
