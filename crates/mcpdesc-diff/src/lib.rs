//! # mcpdesc-diff
//!
//! What changed between two MCP Descriptions, for the agents and clients that call
//! the server: a revision-aware, direction-aware breaking-change report.
//!
//! - **Per revision.** For every protocol revision both documents declare (or only
//!   the one asked for), the Effective Protocol Views (§4.12, taken with
//!   [`mcpdesc_scope::project_declaration`]) of OLD and NEW are compared, so a change
//!   only 2024-11-05 clients see is reported for 2024-11-05 alone. Identical findings
//!   of several revisions are one finding naming those revisions. A revision NEW no
//!   longer declares is one breaking finding, not one per declaration.
//! - **By identity.** Declarations are matched by tool/prompt name, resource `uri`,
//!   template `uriTemplate`, transport type and URL or command, never by position.
//! - **Direction-aware schemas.** Input schemas are contravariant, output schemas
//!   covariant (see the `schema` module's model). What cannot be decided is "possibly
//!   breaking" with both pointers: never silence, never a false "compatible".
//! - **Findings as data** ([`Finding`]): a stable rule id ([`RULES`]), a class, the
//!   revisions, the declaration, JSON pointers (with line and column) into the
//!   ORIGINAL documents, and a one-line [`Message`] whose document-derived parts are
//!   marked, so renderers ([`render`]) can escape them.
//!
//! Both inputs are validated once, before the comparison: [`diff`] takes the
//! validator's handles ([`check_pair`] makes them from decoded inputs; an invalid
//! input is an error carrying its diagnostics).
//!
//! ```
//! use serde_json::json;
//! let old = json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
//!   "protocolVersions": ["2025-06-18"],
//!   "tools": [{"name": "search", "inputSchema": {"type": "object",
//!     "properties": {"q": {"type": "string"}}, "additionalProperties": false}}]});
//! let mut new = old.clone();
//! new["tools"][0]["inputSchema"]["required"] = json!(["q"]);
//! let v = mcpdesc_validate::Validator::new();
//! let (old, new) = (v.check(&old).unwrap(), v.check(&new).unwrap());
//! let report = mcpdesc_diff::diff(&old, &new, &Default::default()).unwrap();
//! let f = &report.findings[0];
//! assert_eq!(f.rule.id(), "input-property-required");
//! assert_eq!(f.class, mcpdesc_diff::Class::Breaking);
//! assert_eq!(f.new.as_ref().unwrap().pointer, "/tools/0/inputSchema/required/0");
//! assert_eq!(report.semver(), mcpdesc_diff::Semver::Major);
//! ```

pub mod render;
pub mod report;
pub mod rules;

mod schema;
mod security;
#[cfg(test)]
mod tests;
mod walk;

pub use report::{
    Declaration, FailOn, Finding, Location, Message, Part, Report, Semver, Side, Summary, kind_str,
};
pub use rules::{Class, RULES, Rule, RuleId, rule_by_id};

use mcpdesc_core::decl::root_scope;
use mcpdesc_core::{DeclKind, Decoded, Diagnostic, ProtocolRevision, RevisionSet, SourceMap};
use mcpdesc_validate::{Validated, Validator};
use serde_json::Value;
use std::collections::HashMap;

/// One of the two documents: the value and, when it came from text, its source map
/// (for line and column).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Input<'a> {
    pub(crate) value: &'a Value,
    pub(crate) source_map: Option<&'a SourceMap>,
}

impl<'a> From<&'a Validated<'_>> for Input<'a> {
    fn from(v: &'a Validated<'_>) -> Self {
        Input {
            value: v.value(),
            source_map: v.positions(),
        }
    }
}

#[cfg(test)]
impl<'a> From<&'a Value> for Input<'a> {
    fn from(value: &'a Value) -> Self {
        Input {
            value,
            source_map: None,
        }
    }
}

/// What to compare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffOptions {
    /// Compare only this revision's views (it must be declared by OLD or NEW).
    pub protocol_version: Option<ProtocolRevision>,
}

/// Why no report could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    /// An input does not conform to mcpdesc 0.8.0; its error diagnostics (with
    /// positions) are attached, per input.
    #[error("the descriptions do not conform to mcpdesc 0.8.0")]
    Invalid {
        old: Vec<Diagnostic>,
        new: Vec<Diagnostic>,
    },
    /// `--protocol-version` names a revision neither document declares.
    #[error("protocol revision {0} is declared by neither description")]
    RevisionNotDeclared(ProtocolRevision),
}

/// Validates two decoded inputs for [`diff`], side by side (on large documents the
/// two validations are most of the work): both handles (with positions), or
/// [`DiffError::Invalid`] with each input's errors, positioned.
pub fn check_pair<'a>(
    old: &'a Decoded,
    new: &'a Decoded,
) -> Result<(Validated<'a>, Validated<'a>), DiffError> {
    let validator = Validator::new();
    let check = |d: &'a Decoded| validator.check_decoded(d);
    let (o, n) = std::thread::scope(|s| {
        let h = s.spawn(|| check(new));
        (check(old), h.join())
    });
    let n = n.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let errors = |r: &Result<Validated<'a>, Vec<Diagnostic>>| match r {
        Ok(_) => Vec::new(),
        Err(d) => d.iter().filter(|d| d.is_error()).cloned().collect(),
    };
    match (o, n) {
        (Ok(o), Ok(n)) => Ok((o, n)),
        (o, n) => Err(DiffError::Invalid {
            old: errors(&o),
            new: errors(&n),
        }),
    }
}

/// Compares two validated descriptions (the validator's handles; [`check_pair`] makes
/// them from decoded inputs). Nothing is validated here. Pointers in the findings get
/// line and column from the handles' positions.
pub fn diff(
    old: &Validated<'_>,
    new: &Validated<'_>,
    opts: &DiffOptions,
) -> Result<Report, DiffError> {
    diff_inputs(old.into(), new.into(), opts)
}

/// [`diff`] of two values (the crate's tests compare documents without validating them).
pub(crate) fn diff_inputs(
    old: Input<'_>,
    new: Input<'_>,
    opts: &DiffOptions,
) -> Result<Report, DiffError> {
    let (od, nd) = (
        walk::Doc {
            v: old.value,
            root: root_scope(old.value),
        },
        walk::Doc {
            v: new.value,
            root: root_scope(new.value),
        },
    );
    let selected = match opts.protocol_version {
        Some(v) if !od.root.union(nd.root).contains(v) => {
            return Err(DiffError::RevisionNotDeclared(v));
        }
        Some(v) => RevisionSet::single(v),
        None => RevisionSet::ALL,
    };
    let mut groups = Groups::default();
    let revisions = walk::run(od, nd, selected, &mut groups);
    Ok(Report {
        revisions,
        findings: groups.finish(old, new),
    })
}

/// How much the composition around a finding can hide or invert its effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Mask {
    /// Not inside a composition: the rule's class stands.
    None,
    /// Inside an `anyOf`/`allOf` alternative (or a `$ref` beside other keywords): union
    /// and intersection are monotone, so a harmless change stays harmless, but a
    /// harmful one may be masked by another alternative: breaking → possibly breaking.
    Monotone,
    /// Inside a `oneOf` alternative: exclusivity is not monotone (narrowing one
    /// alternative can let through a value that matched two), so breaking and
    /// non-breaking both become possibly breaking.
    Any,
}

/// A finding before it knows its declaration and revisions (internal).
#[derive(Debug, Clone)]
pub(crate) struct Raw {
    pub rule: RuleId,
    /// The composition around it ([`Mask`]).
    pub masked: Mask,
    pub old: Option<String>,
    pub new: Option<String>,
    pub msg: Message,
}

type GroupKey = (
    RuleId,
    Mask,
    Option<Declaration>,
    Option<String>,
    Option<String>,
    Message,
);

/// Findings grouped across revisions, in first-seen order.
#[derive(Debug, Default)]
struct Groups {
    index: HashMap<GroupKey, usize>,
    list: Vec<(GroupKey, RevisionSet)>,
}

impl walk::Sink for Groups {
    fn push(&mut self, decl: Option<&Declaration>, revisions: RevisionSet, raw: Raw) {
        let key = (
            raw.rule,
            raw.masked,
            decl.cloned(),
            raw.old,
            raw.new,
            raw.msg,
        );
        match self.index.get(&key) {
            Some(&i) => self.list[i].1 = self.list[i].1.union(revisions),
            None => {
                self.index.insert(key.clone(), self.list.len());
                self.list.push((key, revisions));
            }
        }
    }
}

impl Groups {
    fn finish(self, old: Input<'_>, new: Input<'_>) -> Vec<Finding> {
        let locate = |input: Input<'_>, ptr: Option<String>| {
            ptr.map(|pointer| {
                let pos = input
                    .source_map
                    .and_then(|m| m.locate(input.value, &pointer));
                Location {
                    pointer,
                    line: pos.map(|p| p.line),
                    column: pos.map(|p| p.column),
                }
            })
        };
        let mut list = self.list;
        // Document-level first, then declarations by kind and identity; the walk order
        // (stable sort) within one declaration.
        let rank = |d: &Option<Declaration>| match d {
            None => (0, None),
            Some(d) => (
                1 + DeclKind::TOP_LEVEL
                    .iter()
                    .position(|k| *k == d.kind)
                    .unwrap_or(DeclKind::TOP_LEVEL.len()),
                d.id.clone(),
            ),
        };
        list.sort_by_cached_key(|(k, _)| rank(&k.2));
        list.into_iter()
            .map(|((rule, masked, declaration, o, n, message), revisions)| {
                let class = match (rule.class(), masked) {
                    (Class::Breaking, Mask::Monotone | Mask::Any) => Class::PossiblyBreaking,
                    (Class::NonBreaking, Mask::Any) => Class::PossiblyBreaking,
                    (c, _) => c,
                };
                Finding {
                    rule,
                    class,
                    revisions,
                    declaration,
                    old: locate(old, o),
                    new: locate(new, n),
                    message,
                }
            })
            .collect()
    }
}
