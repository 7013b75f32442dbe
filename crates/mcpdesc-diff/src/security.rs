//! Security requirement comparison (§7.3–§7.5).
//!
//! A requirement array is a set of alternatives (OR); each alternative names schemes
//! that are jointly required (AND), each with its required scopes. A client that can
//! present an old alternative `A` keeps working when some new alternative `B` asks for
//! no more than `A` (every scheme of `B` in `A`, with a subset of its scopes). `[]`
//! (cleared) and `[{}]` (anonymous allowed) both let a client in without credentials,
//! but are distinct declarations (§7.4); an omitted `security` declares nothing.

use crate::report::Message;
use crate::rules::RuleId::*;
use crate::{Mask, Raw};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

type Alternative = BTreeMap<String, BTreeSet<String>>;

/// Old × new alternative pairs compared at most (each old one is checked against every
/// new one); beyond, the change is left undecided.
const MAX_ALTERNATIVE_PAIRS: usize = 250_000;

fn alternatives(v: &Value) -> Vec<Alternative> {
    let alts: Vec<Alternative> = v
        .as_array()
        .into_iter()
        .flatten()
        .map(|req| {
            req.as_object()
                .into_iter()
                .flatten()
                .map(|(scheme, scopes)| {
                    let scopes = scopes
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect();
                    (scheme.clone(), scopes)
                })
                .collect()
        })
        .collect();
    if alts.is_empty() {
        // `[]`: no requirement applies, as with an anonymous alternative.
        vec![Alternative::new()]
    } else {
        // Order and repeats of alternatives mean nothing (§7.3).
        let distinct: BTreeSet<Alternative> = alts.into_iter().collect();
        distinct.into_iter().collect()
    }
}

/// Whether a client able to present `have` satisfies `need`.
fn satisfies(have: &Alternative, need: &Alternative) -> bool {
    need.iter()
        .all(|(scheme, scopes)| have.get(scheme).is_some_and(|got| scopes.is_subset(got)))
}

fn describe(alt: &Alternative, msg: Message) -> Message {
    if alt.is_empty() {
        return msg.text("no credentials");
    }
    let mut msg = msg;
    for (i, (scheme, scopes)) in alt.iter().enumerate() {
        if i > 0 {
            msg = msg.text(" and ");
        }
        msg = msg.quote(scheme);
        if !scopes.is_empty() {
            let list: Vec<&str> = scopes.iter().map(String::as_str).collect();
            msg = msg.text(" with scopes ").quote(list.join(" "));
        }
    }
    msg
}

fn describe_all(alts: &[Alternative], mut msg: Message) -> Message {
    for (i, a) in alts.iter().enumerate() {
        if i > 0 {
            msg = msg.text(" or ");
        }
        msg = describe(a, msg);
    }
    msg
}

/// Compares two effective requirements (`None`: no declaration) at the given pointers.
pub(crate) fn compare(
    old: Option<&Value>,
    new: Option<&Value>,
    old_ptr: String,
    new_ptr: String,
) -> Vec<Raw> {
    let raw = |rule, msg| Raw {
        rule,
        masked: Mask::None,
        old: Some(old_ptr.clone()),
        new: Some(new_ptr.clone()),
        msg,
    };
    match (old, new) {
        (None, None) => Vec::new(),
        (Some(_), None) => vec![raw(
            SecurityUndeclared,
            Message::new().text("`security` is no longer declared"),
        )],
        (None, Some(n)) => {
            let alts = alternatives(n);
            if alts.iter().any(Alternative::is_empty) {
                vec![raw(
                    SecurityChanged,
                    Message::new()
                        .text("`security` is now declared and lets clients in without credentials"),
                )]
            } else {
                vec![raw(
                    SecurityDeclared,
                    describe_all(
                        &alts,
                        Message::new().text("`security` was not declared; now requires "),
                    ),
                )]
            }
        }
        (Some(o), Some(n)) => {
            let (oa, na) = (alternatives(o), alternatives(n));
            // Both are sorted and distinct: equal vectors are equal requirement sets.
            if oa != na && oa.len().saturating_mul(na.len()) > MAX_ALTERNATIVE_PAIRS {
                let msg = Message::new().text(format!(
                    "{} × {} distinct alternatives are too many to compare; review by hand",
                    oa.len(),
                    na.len()
                ));
                return vec![raw(SecurityTooComplex, msg)];
            }
            let mut out = Vec::new();
            for a in &oa {
                if !na.iter().any(|b| satisfies(a, b)) {
                    let msg = describe(a, Message::new().text("a client presenting "));
                    let msg =
                        describe_all(&na, msg.text(" is no longer authorized; now requires "));
                    out.push(raw(SecurityRequirementAdded, msg));
                }
            }
            if !out.is_empty() {
                return out;
            }
            if oa != na {
                let msg = describe_all(
                    &na,
                    Message::new().text("every old requirement still works; now accepts "),
                );
                out.push(raw(SecurityRequirementRelaxed, msg));
            } else if o.as_array().map(Vec::len) != n.as_array().map(Vec::len)
                && (o.as_array().is_some_and(Vec::is_empty)
                    || n.as_array().is_some_and(Vec::is_empty))
            {
                out.push(raw(
                    SecurityChanged,
                    Message::new().text(
                        "`security` changed between `[]` (cleared) and `[{}]` (anonymous allowed)",
                    ),
                ));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleId;
    use serde_json::json;

    fn rules(o: Option<Value>, n: Option<Value>) -> Vec<RuleId> {
        compare(o.as_ref(), n.as_ref(), String::new(), String::new())
            .into_iter()
            .map(|r| r.rule)
            .collect()
    }

    #[test]
    fn new_scheme_or_scope_breaks() {
        let old = json!([{"oauth": ["read"]}]);
        assert_eq!(
            rules(
                Some(old.clone()),
                Some(json!([{"oauth": ["read", "write"]}]))
            ),
            [SecurityRequirementAdded]
        );
        assert_eq!(
            rules(
                Some(old.clone()),
                Some(json!([{"oauth": ["read"], "key": []}]))
            ),
            [SecurityRequirementAdded]
        );
        // an alternative that needs less keeps every client working
        assert_eq!(
            rules(Some(old.clone()), Some(json!([{"oauth": ["read"]}, {}]))),
            [SecurityRequirementRelaxed]
        );
        assert_eq!(
            rules(
                Some(json!([{"a": []}, {"b": []}])),
                Some(json!([{"b": []}, {"a": []}]))
            ),
            Vec::<RuleId>::new()
        );
    }

    #[test]
    fn omission_clearing_and_anonymous_are_distinct() {
        assert_eq!(rules(None, Some(json!([{"k": []}]))), [SecurityDeclared]);
        assert_eq!(rules(Some(json!([])), None), [SecurityUndeclared]);
        assert_eq!(rules(Some(json!([])), Some(json!([{}]))), [SecurityChanged]);
        assert_eq!(
            rules(Some(json!([])), Some(json!([{"k": []}]))),
            [SecurityRequirementAdded]
        );
    }
}
