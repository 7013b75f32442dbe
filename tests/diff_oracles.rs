//! `mcpdesc diff` behaviour no fixture pinned down (issue 23's mutation sample), each
//! against a hand-written expectation: the words a user reads in a finding's message,
//! the markdown report's counts past its size cap, numbers past `i64::MAX`, and the
//! semver suggestion of an info-only report. (Rule/class/pointer expectations of new
//! cases live beside the others under `tests/fixtures/diff/`.)

use mcpdesc_diff::render::{self, Names};
use mcpdesc_diff::{Class, DiffOptions, Report, Semver};
use serde_json::{Value, json};

const NAMES: Names<'static> = Names {
    old: "old.yaml",
    new: "new.yaml",
};

fn doc(tools: Vec<Value>) -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "s", "version": "1.0.0"},
        "protocolVersions": ["2025-06-18"],
        "tools": tools,
    })
}

fn tool(name: &str, props: Value) -> Value {
    json!({"name": name, "inputSchema": {"type": "object", "properties": props}})
}

fn diff(old: &Value, new: &Value) -> Report {
    let v = mcpdesc_validate::Validator::new();
    let (old, new) = (v.check(old).expect("valid"), v.check(new).expect("valid"));
    mcpdesc_diff::diff(&old, &new, &DiffOptions::default()).expect("both valid")
}

/// (rule, message) of every finding.
type Said = Vec<(String, String)>;

fn said(r: &Report) -> Said {
    r.findings
        .iter()
        .map(|f| (f.rule.id().to_string(), f.message.to_string()))
        .collect()
}

/// One property's schema in an input and, separately, an output schema.
fn type_change(old: Value, new: Value) -> (Said, Said) {
    let input = said(&diff(
        &doc(vec![tool("t", json!({"n": old}))]),
        &doc(vec![tool("t", json!({"n": new}))]),
    ));
    let out = |s: &Value| {
        let mut t = tool("t", json!({}));
        t["outputSchema"] = json!({"type": "object", "properties": {"n": s}});
        doc(vec![t])
    };
    (input, said(&diff(&out(&old), &out(&new))))
}

fn one(rule: &str, message: &str) -> Said {
    vec![(rule.to_string(), message.to_string())]
}

#[test]
fn integer_type_changes_are_worded_as_the_user_reads_them() {
    let (i, o) = type_change(json!({"type": "integer"}), json!({"type": "string"}));
    assert_eq!(
        i,
        one(
            "input-type-changed",
            "`n`: type changed from integer to string"
        )
    );
    assert_eq!(
        o,
        one(
            "output-type-changed",
            "`n`: type changed from integer to string"
        )
    );
    // integer ⊂ number: accepting every number widens an input, narrowing it back
    // narrows an output.
    let (i, _) = type_change(json!({"type": "integer"}), json!({"type": "number"}));
    assert_eq!(
        i,
        one(
            "input-type-widened",
            "`n`: type widened from integer to number"
        )
    );
    let (_, o) = type_change(json!({"type": "number"}), json!({"type": "integer"}));
    assert_eq!(
        o,
        one(
            "output-type-narrowed",
            "`n`: type narrowed from number to integer"
        )
    );
    let (i, _) = type_change(
        json!({"type": ["integer", "null"]}),
        json!({"type": "integer"}),
    );
    assert_eq!(
        i,
        one(
            "input-type-narrowed",
            "`n`: type narrowed from null, integer to integer"
        )
    );
    let (i, _) = type_change(json!({"type": "boolean"}), json!({}));
    assert_eq!(
        i,
        one(
            "input-type-widened",
            "`n`: type widened from boolean to any type"
        )
    );
}

#[test]
fn numbers_past_i64_max_compare_by_value() {
    let max = u64::MAX;
    let below = u64::MAX - 1;
    // As f64 both are 18446744073709551616: only an exact comparison tells them apart.
    assert_eq!(max as f64, below as f64);
    let (i, o) = type_change(
        json!({"type": "integer", "enum": [max]}),
        json!({"type": "integer", "enum": [below]}),
    );
    assert_eq!(
        i,
        vec![
            (
                "input-enum-value-removed".to_string(),
                format!("`n`: value `{max}` is no longer allowed")
            ),
            (
                "input-enum-value-added".to_string(),
                format!("`n`: value `{below}` is now allowed")
            ),
        ]
    );
    assert_eq!(
        o.iter().map(|(r, _)| r.as_str()).collect::<Vec<_>>(),
        ["output-enum-value-removed", "output-enum-value-added"]
    );
    // The same value on both sides, as `const` and in `enum`: nothing changed.
    for s in [
        json!({"type": "integer", "const": max}),
        json!({"type": "integer", "enum": [below, max]}),
    ] {
        let (i, o) = type_change(s.clone(), s);
        assert_eq!((i, o), (vec![], vec![]));
    }
    // 2^64 - 1 and the float 2^64 are different numbers, and the same as 1.0e0 vs 1.
    let (i, _) = type_change(
        json!({"const": max}),
        json!({"const": 18446744073709551616.0}),
    );
    assert_eq!(i.len(), 2, "{i:?}");
    let (i, _) = type_change(json!({"const": 1}), json!({"const": 1.0}));
    assert_eq!(i, vec![], "1 and 1.0 are one JSON Schema value");
}

#[test]
fn an_info_only_report_suggests_a_patch_release() {
    let old = doc(vec![tool("t", json!({}))]);
    let mut new = old.clone();
    new["tools"][0]["description"] = json!("Now documented.");
    let r = diff(&old, &new);
    assert_eq!(
        r.findings.iter().map(|f| f.class).collect::<Vec<_>>(),
        [Class::Info]
    );
    assert_eq!(r.semver(), Semver::Patch);
    assert!(!r.fails(mcpdesc_diff::FailOn::Breaking));
    assert!(r.fails(mcpdesc_diff::FailOn::Any));
    assert!(
        render::markdown(&r, NAMES)
            .ends_with("**Semver suggestion: patch (documentation and metadata only).**\n"),
        "{}",
        render::markdown(&r, NAMES)
    );
    assert_eq!(render::json_value(&r, NAMES)["semver"], "patch");
    // One non-breaking change on top makes it minor; nothing at all, no release.
    new["tools"]
        .as_array_mut()
        .expect("tools")
        .push(tool("u", json!({})));
    assert_eq!(diff(&old, &new).semver(), Semver::Minor);
    assert_eq!(diff(&old, &old).semver(), Semver::None);
}

/// Two declarations with breaking findings (one with a non-breaking finding too) and
/// two with only non-breaking ones: the words and counts of each collapsed block.
#[test]
fn markdown_counts_what_it_collapses() {
    let old = doc(vec![
        tool("a", json!({"p": {"type": "string"}})),
        tool("b", json!({"p": {"type": "string"}})),
        tool("c", json!({})),
    ]);
    let mut new = doc(vec![
        tool("a", json!({"p": {"type": "integer"}})),
        tool("b", json!({"p": {"type": "integer"}})),
        tool("c", json!({})),
        tool("d", json!({})),
    ]);
    new["tools"][1]["description"] = json!("B");
    new["tools"][2]["description"] = json!("C");
    let r = diff(&old, &new);
    assert_eq!(r.summary().breaking, 2);
    assert_eq!(r.summary().total(), 5);
    let md = render::markdown(&r, NAMES);
    assert!(
        md.contains("<details><summary>1 more finding (non-breaking and info)</summary>"),
        "{md}"
    );
    assert!(
        md.contains(
            "<details><summary>Other changes (non-breaking and info): 2 findings in 2 sections</summary>"
        ),
        "{md}"
    );
    assert!(!md.contains("not shown here"), "{md}");
    assert!(
        md.ends_with("**Semver suggestion: major (breaking changes).**\n"),
        "{md}"
    );
}

/// Past the size cap, on a report mixing breaking and non-breaking findings: the
/// breaking findings come first, the non-breaking ones are only counted, and the count
/// of those left out is exactly the breaking findings the comment does not list.
#[test]
fn markdown_past_its_size_cap_counts_the_findings_it_leaves_out() {
    let n = 400;
    let props = |t: &str| json!({"p": {"type": t}});
    let name = |i: usize| format!("tool_with_a_long_enough_name_{i:04}");
    let old = doc((0..n).map(|i| tool(&name(i), props("string"))).collect());
    let mut new = doc((0..n).map(|i| tool(&name(i), props("integer"))).collect());
    for i in 0..n {
        new["tools"][i]["description"] = json!(format!("now documented {i}"));
    }
    for i in 0..100 {
        new["tools"]
            .as_array_mut()
            .expect("tools")
            .push(tool(&format!("added_{i}"), json!({})));
    }
    let r = diff(&old, &new);
    let s = r.summary();
    assert_eq!((s.breaking, s.info, s.non_breaking), (n, n, 100));
    let md = render::markdown(&r, NAMES);
    assert!(
        md.chars().count() <= render::MAX_MARKDOWN_CHARS,
        "{}",
        md.len()
    );
    let listed = md.matches("type changed from string to integer").count();
    assert!(listed > 0 && listed < n, "listed {listed}");
    let left = n - listed;
    assert!(
        md.contains(&format!(
            "_{left} more breaking or possibly-breaking findings are not shown here; the JSON report lists them all._"
        )),
        "listed {listed} of {n}; {}",
        &md[md.len().saturating_sub(600)..]
    );
    // Non-breaking findings give way: counted per section, never listed.
    assert_eq!(md.matches("now documented").count(), 0);
    assert_eq!(
        md.matches("_and 1 finding non-breaking or info (in the JSON report)_")
            .count(),
        listed
    );
    assert!(!md.contains("added_"), "added tools are not listed");
    assert!(md.contains("**Semver suggestion: major"));
}

/// A security requirement that no longer admits an old client names what it now takes,
/// alternatives joined by "or", schemes of one alternative by "and".
#[test]
fn security_requirement_messages_list_the_alternatives() {
    let with = |security: Value| {
        let mut d = doc(vec![tool("t", json!({}))]);
        d["securitySchemes"] = json!({
            "key": {"type": "apiKey", "name": "X-Key", "in": "header"},
            "other": {"type": "apiKey", "name": "X-Other", "in": "header"},
            "oauth": {"type": "oauth2", "flows": {"clientCredentials": {
                "tokenUrl": "https://auth.example.com/token",
                "scopes": {"read": "Read", "write": "Write"}}}},
        });
        d["security"] = security;
        d
    };
    let r = diff(
        &with(json!([{"key": []}])),
        &with(json!([{"oauth": ["read"]}, {"other": []}])),
    );
    let added: Vec<String> = said(&r)
        .into_iter()
        .filter(|(rule, _)| rule == "security-requirement-added")
        .map(|(_, m)| m)
        .collect();
    assert!(!added.is_empty(), "{:?}", said(&r));
    for m in &added {
        assert_eq!(
            m,
            "a client presenting `key` is no longer authorized; now requires `oauth` with scopes `read` or `other`"
        );
    }
    let r = diff(
        &with(json!([{"key": []}])),
        &with(json!([{"key": [], "other": []}])),
    );
    let added: Vec<String> = said(&r).into_iter().map(|(_, m)| m).collect();
    assert!(
        added.iter().all(|m| m
            == "a client presenting `key` is no longer authorized; now requires `key` and `other`"),
        "{added:?}"
    );
}
