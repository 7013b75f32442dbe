//! Reports built by hand: the message parts, where a finding is best seen, the
//! summary, semver and CI gate, and the three formats, each against a hand-written
//! rendering.

use crate::render::{self, Names};
use crate::report::{Declaration, FailOn, Finding, Location, Message, Part, Report, Semver, Side};
use crate::rules::{Class, RuleId};
use mcpdesc_core::{DeclKind, ProtocolRevision, RevisionSet};

const NAMES: Names<'static> = Names {
    old: "old.yaml",
    new: "new.yaml",
};

fn loc(p: &str, line: Option<u32>) -> Option<Location> {
    Some(Location {
        pointer: p.to_string(),
        line,
        column: line.map(|_| 3),
    })
}

fn finding(rule: RuleId, class: Class, decl: Option<(DeclKind, &str)>) -> Finding {
    Finding {
        rule,
        class,
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        declaration: decl.map(|(kind, id)| Declaration {
            kind,
            id: Some(id.to_string()),
        }),
        old: None,
        new: None,
        message: Message::new().text("m"),
    }
}

#[test]
fn messages_join_words_and_cut_quotes() {
    let m = Message::new().text("a").text("b").quote("q").text("c");
    assert_eq!(
        m.parts(),
        [
            Part::Text("ab".into()),
            Part::Quoted("q".into()),
            Part::Text("c".into())
        ]
    );
    assert_eq!(m.to_string(), "ab`q`c");
    let long = "x".repeat(121);
    let cut = Message::new().quote(&long);
    assert_eq!(cut.to_string(), format!("`{}…`", "x".repeat(120)));
    let kept = Message::new().quote("é".repeat(120));
    assert_eq!(kept.to_string(), format!("`{}`", "é".repeat(120)));
    assert_eq!(
        Message::new()
            .value(&serde_json::json!({"a": [1, "b"]}))
            .to_string(),
        "`{\"a\":[1,\"b\"]}`"
    );
}

#[test]
fn declarations_by_kind() {
    let kinds = [
        (DeclKind::Transport, "transport", "transport `x`"),
        (
            DeclKind::Capabilities,
            "capabilities",
            "capabilities object `x`",
        ),
        (DeclKind::Tool, "tool", "tool `x`"),
        (DeclKind::Resource, "resource", "resource `x`"),
        (
            DeclKind::ResourceTemplate,
            "resource-template",
            "resource template `x`",
        ),
        (DeclKind::Prompt, "prompt", "prompt `x`"),
        (
            DeclKind::Elicitation,
            "elicitation",
            "elicitation declaration `x`",
        ),
    ];
    for (kind, s, shown) in kinds {
        let d = Declaration {
            kind,
            id: Some("x".into()),
        };
        assert_eq!(d.kind_str(), s);
        assert_eq!(d.to_string(), shown);
    }
    let caps = Declaration {
        kind: DeclKind::Capabilities,
        id: None,
    };
    assert_eq!(caps.to_string(), "capabilities object");
}

/// NEW's location, unless NEW points at the container of OLD's (a removal).
#[test]
fn primary_and_secondary_locations() {
    let mut f = finding(RuleId::ToolRemoved, Class::Breaking, None);
    f.old = loc("/tools/1", None);
    f.new = loc("/tools", None);
    assert_eq!(
        f.primary().map(|p| (p.0, p.1.pointer.as_str())),
        Some((Side::Old, "/tools/1"))
    );
    assert_eq!(
        f.secondary().map(|p| (p.0, p.1.pointer.as_str())),
        Some((Side::New, "/tools"))
    );
    // A sibling pointer that merely starts with the same text is not a container.
    f.old = loc("/tools10", None);
    assert_eq!(f.primary().map(|p| p.0), Some(Side::New));
    assert_eq!(f.secondary().map(|p| p.0), Some(Side::Old));
    // The document root as NEW's pointer contains everything.
    f.old = loc("/info", None);
    f.new = loc("", None);
    assert_eq!(f.primary().map(|p| p.0), Some(Side::Old));
    f.old = loc("", None);
    assert_eq!(f.primary().map(|p| p.0), Some(Side::New));
    f.new = None;
    assert_eq!(f.primary().map(|p| p.0), Some(Side::Old));
    assert!(f.secondary().is_none());
    f.old = None;
    assert!(f.primary().is_none() && f.secondary().is_none());
    f.new = loc("/a", None);
    assert_eq!(f.primary().map(|p| p.0), Some(Side::New));
    assert!(f.secondary().is_none());
}

/// The most severe class decides the suggestion; the CI gate fails on breaking or
/// possibly breaking (default), on anything, or never.
#[test]
fn summary_semver_and_gate() {
    let report = |classes: &[Class]| Report {
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        findings: classes
            .iter()
            .map(|c| finding(RuleId::InfoChanged, *c, None))
            .collect(),
    };
    use Class::*;
    let cases: [(&[Class], Semver, [bool; 3]); 5] = [
        (
            &[Info, Breaking, NonBreaking],
            Semver::Major,
            [true, true, false],
        ),
        (
            &[NonBreaking, PossiblyBreaking, Info],
            Semver::MajorUnlessReviewed,
            [true, true, false],
        ),
        (&[Info, NonBreaking], Semver::Minor, [false, true, false]),
        (&[Info], Semver::Patch, [false, true, false]),
        (&[], Semver::None, [false, false, false]),
    ];
    for (classes, semver, fails) in cases {
        let r = report(classes);
        assert_eq!(r.semver(), semver, "{classes:?}");
        assert_eq!(
            [FailOn::Breaking, FailOn::Any, FailOn::None].map(|g| r.fails(g)),
            fails,
            "{classes:?}"
        );
        assert_eq!(r.is_empty(), classes.is_empty());
    }
    let r = report(&[
        Breaking,
        Breaking,
        PossiblyBreaking,
        NonBreaking,
        NonBreaking,
        NonBreaking,
        Info,
        Info,
        Info,
        Info,
    ]);
    let s = r.summary();
    assert_eq!(Class::ALL.map(|c| s.get(c)), [2, 1, 3, 4]);
    assert_eq!(s.total(), 10);
    assert_eq!(
        serde_json::to_value(s).expect("json"),
        serde_json::json!({"breaking": 2, "possibly-breaking": 1, "non-breaking": 3, "info": 4})
    );
    let words: Vec<(&str, &str)> = [
        Semver::Major,
        Semver::MajorUnlessReviewed,
        Semver::Minor,
        Semver::Patch,
        Semver::None,
    ]
    .iter()
    .map(|s| (s.as_str(), s.explain()))
    .collect();
    assert_eq!(
        words,
        [
            ("major", "major (breaking changes)"),
            (
                "major-unless-reviewed",
                "major unless reviewed (changes whose compatibility could not be decided)"
            ),
            ("minor", "minor (additions and relaxations only)"),
            ("patch", "patch (documentation and metadata only)"),
            ("none", "none (no change)"),
        ]
    );
    assert_eq!(
        Class::ALL.map(|c| c.to_string()),
        ["breaking", "possibly-breaking", "non-breaking", "info"]
    );
}

/// Two revisions compared; a tool removal (OLD's position), a title change at one
/// revision with both positions, a document-level change without positions.
fn sample() -> Report {
    let both = RevisionSet::single(ProtocolRevision::V2025_06_18)
        .union(RevisionSet::single(ProtocolRevision::V2025_11_25));
    let mut removed = finding(
        RuleId::ToolRemoved,
        Class::Breaking,
        Some((DeclKind::Tool, "a|b")),
    );
    removed.revisions = both;
    removed.old = loc("/tools/1", Some(12));
    removed.new = loc("/tools", Some(4));
    removed.message = Message::new().text("removed");
    let mut title = finding(
        RuleId::TitleChanged,
        Class::Info,
        Some((DeclKind::Tool, "c")),
    );
    title.old = loc("/tools/2/title", Some(20));
    title.new = loc("/tools/2/title", Some(21));
    title.message = Message::new()
        .text("`title` ")
        .quote("A|B")
        .text(" → ")
        .quote("`x`");
    let mut doc = finding(RuleId::InfoChanged, Class::Info, None);
    doc.revisions = both;
    doc.old = loc("/info/version", None);
    doc.new = loc("/info/version", None);
    doc.message = Message::new().text("`info.version` <changed>");
    Report {
        revisions: both,
        findings: vec![doc, removed, title],
    }
}

#[test]
fn text_format() {
    assert_eq!(
        render::text(&sample(), NAMES),
        "new.yaml: info[info-changed]: `info.version` <changed> (at /info/version) [2025-06-18, 2025-11-25]\n\
         old.yaml:12:3: breaking[tool-removed]: tool `a|b`: removed (at /tools/1; new /tools) [2025-06-18, 2025-11-25]\n\
         new.yaml:21:3: info[title-changed]: tool `c`: `title` `A|B` → ``x`` (at /tools/2/title) [2025-06-18]\n\
         summary: 1 breaking, 0 possibly-breaking, 0 non-breaking, 2 info; compared revisions: 2025-06-18, 2025-11-25\n\
         semver: major (breaking changes)\n"
    );
    let empty = Report {
        revisions: RevisionSet::EMPTY,
        findings: Vec::new(),
    };
    assert_eq!(
        render::text(&empty, NAMES),
        "summary: 0 breaking, 0 possibly-breaking, 0 non-breaking, 0 info; compared revisions: none in common\nsemver: none (no change)\n"
    );
}

#[test]
fn json_format() {
    let v = render::json_value(&sample(), NAMES);
    assert_eq!(
        v,
        serde_json::json!({
            "format": "mcpdesc-diff/1",
            "old": "old.yaml",
            "new": "new.yaml",
            "revisions": ["2025-06-18", "2025-11-25"],
            "summary": {"breaking": 1, "possibly-breaking": 0, "non-breaking": 0, "info": 2},
            "semver": "major",
            "findings": [
                {"rule": "info-changed", "class": "info", "revisions": ["2025-06-18", "2025-11-25"],
                 "declaration": null,
                 "old": {"pointer": "/info/version", "line": null, "column": null},
                 "new": {"pointer": "/info/version", "line": null, "column": null},
                 "message": "`info.version` <changed>"},
                {"rule": "tool-removed", "class": "breaking", "revisions": ["2025-06-18", "2025-11-25"],
                 "declaration": {"kind": "tool", "id": "a|b"},
                 "old": {"pointer": "/tools/1", "line": 12, "column": 3},
                 "new": {"pointer": "/tools", "line": 4, "column": 3},
                 "message": "removed"},
                {"rule": "title-changed", "class": "info", "revisions": ["2025-06-18"],
                 "declaration": {"kind": "tool", "id": "c"},
                 "old": {"pointer": "/tools/2/title", "line": 20, "column": 3},
                 "new": {"pointer": "/tools/2/title", "line": 21, "column": 3},
                 "message": "`title` `A|B` → ``x``"},
            ],
        })
    );
    let text = render::json(&sample(), NAMES);
    assert!(
        text.ends_with("}\n") && text.starts_with("{\n  \"format\""),
        "{text}"
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).ok(),
        Some(v)
    );
}

#[test]
fn markdown_format() {
    let md = render::markdown(&sample(), NAMES);
    let want = "### mcpdesc diff: `old.yaml` → `new.yaml`

| class | findings |
|---|---:|
| **breaking** | 1 |
| **possibly breaking** | 0 |
| non-breaking | 0 |
| info | 2 |

Compared protocol revisions: 2025-06-18, 2025-11-25 (\"all\" below).

| rule | class | findings |
|---|---|---:|
| `tool-removed` | breaking | 1 |
| `info-changed` | info | 1 |
| `title-changed` | info | 1 |

#### Tool `a|b`

| class | rule | change | where | revisions |
|---|---|---|---|---|
| **breaking** | `tool-removed` | removed | old `/tools/1` (line 12; new line 4) | all |

<details><summary>Other changes (non-breaking and info): 2 findings in 2 sections</summary>

#### Document

| class | rule | change | where | revisions |
|---|---|---|---|---|
| info | `info-changed` | `info.version` &lt;changed> | `/info/version` | all |

#### Tool `c`

| class | rule | change | where | revisions |
|---|---|---|---|---|
| info | `title-changed` | `title` `A\\|B` → `` `x` `` | `/tools/2/title` (old line 20, new line 21) | 2025-06-18 |

</details>

**Semver suggestion: major (breaking changes).**
";
    assert_eq!(md, want, "\n{md}");
}

/// One declaration with more than 8 serious findings is collapsed with its worst
/// class; more than 8 rules collapse the per-rule table; a lone non-serious finding
/// beside serious ones is "1 more finding".
#[test]
fn markdown_collapses_long_sections() {
    let rules = [
        RuleId::InputTypeNarrowed,
        RuleId::InputEnumAdded,
        RuleId::InputRangeNarrowed,
        RuleId::InputSizeNarrowed,
        RuleId::InputFormatAdded,
        RuleId::InputPropertyRequired,
        RuleId::InputPropertyRemoved,
        RuleId::InputPatternAdded,
        RuleId::InputUniqueItemsAdded,
    ];
    let mut findings: Vec<Finding> = rules
        .iter()
        .map(|r| finding(*r, r.rule().class, Some((DeclKind::Tool, "t"))))
        .collect();
    findings.push(finding(
        RuleId::DescriptionChanged,
        Class::Info,
        Some((DeclKind::Tool, "t")),
    ));
    let r = Report {
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        findings,
    };
    let md = render::markdown(&r, NAMES);
    assert!(
        md.contains("Compared protocol revisions: 2025-06-18.\n"),
        "{md}"
    );
    assert!(
        md.contains("<details><summary>Findings by rule (10)</summary>\n"),
        "{md}"
    );
    // Most severe class first, then by count, then by id.
    let table = md
        .split("| rule | class | findings |\n|---|---|---:|\n")
        .nth(1)
        .and_then(|t| t.split("\n\n").next())
        .unwrap_or_default();
    assert_eq!(
        table,
        "| `input-enum-added` | breaking | 1 |\n\
         | `input-format-added` | breaking | 1 |\n\
         | `input-property-removed` | breaking | 1 |\n\
         | `input-property-required` | breaking | 1 |\n\
         | `input-range-narrowed` | breaking | 1 |\n\
         | `input-size-narrowed` | breaking | 1 |\n\
         | `input-type-narrowed` | breaking | 1 |\n\
         | `input-unique-items-added` | breaking | 1 |\n\
         | `input-pattern-added` | possibly-breaking | 1 |\n\
         | `description-changed` | info | 1 |"
    );
    assert!(
        md.contains("#### Tool `t`\n\n<details><summary>9 findings (worst: breaking)</summary>\n\n| class | rule |"),
        "{md}"
    );
    assert!(
        md.contains(
            "<details><summary>1 more finding (non-breaking and info)</summary>\n\n| class | rule |"
        ),
        "{md}"
    );
    // The single revision is named, not "all".
    assert!(md.contains("| m |  | 2025-06-18 |"), "{md}");
    // Two rules: a plain table; one rule: none.
    let two = Report {
        revisions: r.revisions,
        findings: r.findings[..2].to_vec(),
    };
    let md = render::markdown(&two, NAMES);
    assert!(md.contains("\n| rule | class | findings |\n|---|---|---:|\n| `input-enum-added` | breaking | 1 |\n| `input-type-narrowed` | breaking | 1 |\n\n#### Tool `t`\n\n| class |"), "{md}");
    let one = Report {
        revisions: r.revisions,
        findings: r.findings[..1].to_vec(),
    };
    assert!(!render::markdown(&one, NAMES).contains("| rule | class | findings |"));
    let none = Report {
        revisions: r.revisions,
        findings: Vec::new(),
    };
    assert!(render::markdown(&none, NAMES).contains(
        "No changes in the compared revisions.\n\n**Semver suggestion: none (no change).**\n"
    ));
}

/// Past the size cap without breaking findings to spare: the other changes are counted
/// per section, and the findings not listed are counted exactly.
#[test]
fn markdown_over_the_cap_counts_what_is_left_out() {
    let long = "y".repeat(110);
    let findings: Vec<Finding> = (0..900)
        .map(|i| {
            let class = if i % 3 == 0 {
                Class::Breaking
            } else {
                Class::Info
            };
            let rule = if i % 3 == 0 {
                RuleId::ToolRemoved
            } else {
                RuleId::DescriptionChanged
            };
            let mut f = finding(rule, class, Some((DeclKind::Tool, &format!("tool{i:04}"))));
            f.message = Message::new().text("changed ").quote(&long);
            f.new = loc(&format!("/tools/{i}"), Some(i as u32 + 1));
            f
        })
        .collect();
    let r = Report {
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        findings,
    };
    let md = render::markdown(&r, NAMES);
    assert!(md.len() <= render::MAX_MARKDOWN_CHARS, "{}", md.len());
    let listed = md.matches("| **breaking** | `tool-removed` |").count();
    assert!(listed > 10 && listed < 300, "{listed}");
    assert_eq!(
        md.matches("`description-changed` |").count(),
        1,
        "only in the rule table"
    );
    assert!(
        md.contains(&format!(
            "_{} more breaking or possibly-breaking findings are not shown here; the JSON report lists them all._\n\n**Semver suggestion: major (breaking changes).**\n",
            300 - listed
        )),
        "{}",
        &md[md.len() - 400..]
    );
    assert!(!md.contains("Other changes"), "the rest is not reached");
    assert!(
        md.contains(
            "| `tool-removed` | breaking | 300 |\n| `description-changed` | info | 600 |\n"
        ),
        "{md}"
    );
}

/// Under the cap with compact output not needed: every section listed, non-serious
/// ones in the collapsed block; all of a report that just fits is shown.
#[test]
fn markdown_plural_and_singular_words() {
    let mut a = finding(
        RuleId::ToolAdded,
        Class::NonBreaking,
        Some((DeclKind::Tool, "a")),
    );
    a.new = loc("/tools/0", None);
    let r = Report {
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        findings: vec![a],
    };
    let md = render::markdown(&r, NAMES);
    assert!(
        md.contains("<details><summary>Other changes (non-breaking and info): 1 finding in 1 section</summary>\n\n#### Tool `a`\n\n"),
        "{md}"
    );
    assert!(
        md.contains("| non-breaking | `tool-added` | m | new `/tools/0` | 2025-06-18 |"),
        "{md}"
    );
    assert!(
        md.ends_with(
            "</details>\n\n**Semver suggestion: minor (additions and relaxations only).**\n"
        ),
        "{md}"
    );
}

/// Quoted text starting or ending with a space or a backtick is padded inside its code
/// span; rules with more findings come first within a class; eight serious findings
/// of one declaration are still listed in the open.
#[test]
fn markdown_spans_counts_and_the_collapse_threshold() {
    let rev = RevisionSet::single(ProtocolRevision::V2025_06_18);
    let mut f = finding(
        RuleId::TitleChanged,
        Class::Info,
        Some((DeclKind::Tool, "t")),
    );
    f.message = Message::new()
        .quote(" x")
        .text(" and ")
        .quote("x`")
        .text(" and ")
        .quote("a b");
    let mut g = f.clone();
    g.message = Message::new().text("m");
    let h = finding(
        RuleId::DescriptionChanged,
        Class::Info,
        Some((DeclKind::Tool, "t")),
    );
    let r = Report {
        revisions: rev,
        findings: vec![h, f, g],
    };
    let md = render::markdown(&r, NAMES);
    assert!(
        md.contains("| info | `title-changed` | `  x ` and `` x` `` and `a b` |  | 2025-06-18 |"),
        "{md}"
    );
    assert!(
        md.contains("| rule | class | findings |\n|---|---|---:|\n| `title-changed` | info | 2 |\n| `description-changed` | info | 1 |\n\n"),
        "{md}"
    );
    let eight: Vec<Finding> = [
        RuleId::InputTypeNarrowed,
        RuleId::InputEnumAdded,
        RuleId::InputRangeNarrowed,
        RuleId::InputSizeNarrowed,
        RuleId::InputFormatAdded,
        RuleId::InputPropertyRequired,
        RuleId::InputPropertyRemoved,
        RuleId::InputUniqueItemsAdded,
    ]
    .iter()
    .map(|r| finding(*r, Class::Breaking, Some((DeclKind::Tool, "t"))))
    .collect();
    let md = render::markdown(
        &Report {
            revisions: rev,
            findings: eight,
        },
        NAMES,
    );
    assert!(md.contains("#### Tool `t`\n\n| class | rule |"), "{md}");
    assert!(!md.contains("<details>"), "{md}");
    assert!(md.contains("\n| rule | class | findings |\n"), "{md}");
}

/// A report whose non-breaking findings do not fit but whose breaking ones do: the
/// breaking ones are listed, the rest counted per declaration and in total, and
/// nothing is "not shown".
#[test]
fn markdown_compact_lists_every_breaking_finding() {
    let long = "z".repeat(110);
    let mut findings = Vec::new();
    for i in 0..40 {
        let id = format!("t{i:02}");
        findings.push(finding(
            RuleId::ToolRemoved,
            Class::Breaking,
            Some((DeclKind::Tool, &id)),
        ));
        for _ in 0..20 {
            let mut f = finding(
                RuleId::DescriptionChanged,
                Class::Info,
                Some((DeclKind::Tool, &id)),
            );
            f.message = Message::new().quote(&long);
            findings.push(f);
        }
    }
    for i in 0..5 {
        findings.push(finding(
            RuleId::ToolAdded,
            Class::NonBreaking,
            Some((DeclKind::Tool, &format!("u{i}"))),
        ));
    }
    let r = Report {
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        findings,
    };
    let md = render::markdown(&r, NAMES);
    assert!(md.len() <= render::MAX_MARKDOWN_CHARS, "{}", md.len());
    assert_eq!(md.matches("| **breaking** | `tool-removed` |").count(), 40);
    assert_eq!(
        md.matches("_and 20 findings non-breaking or info (in the JSON report)_\n")
            .count(),
        40
    );
    assert!(md.contains("_Other changes (non-breaking and info): 5 findings in 5 sections, in the JSON report._\n"), "{md}");
    assert!(!md.contains("not shown here"), "{md}");
    assert!(!md.contains(&long));
}

/// One breaking declaration and many non-breaking ones that do not fit: the report
/// falls back to counting the non-breaking ones.
#[test]
fn markdown_other_changes_that_do_not_fit() {
    let long = "w".repeat(110);
    let mut findings = vec![finding(
        RuleId::ToolRemoved,
        Class::Breaking,
        Some((DeclKind::Tool, "a")),
    )];
    for i in 0..400 {
        let mut f = finding(
            RuleId::DescriptionChanged,
            Class::Info,
            Some((DeclKind::Tool, &format!("b{i:03}"))),
        );
        f.message = Message::new().quote(&long);
        findings.push(f);
    }
    let r = Report {
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        findings,
    };
    let md = render::markdown(&r, NAMES);
    assert!(md.len() <= render::MAX_MARKDOWN_CHARS, "{}", md.len());
    assert!(md.contains("_Other changes (non-breaking and info): 400 findings in 400 sections, in the JSON report._\n"), "{md}");
    assert_eq!(md.matches("| **breaking** | `tool-removed` |").count(), 1);
    assert!(!md.contains("not shown here") && !md.contains(&long));
}

/// The markdown body may use exactly the room the cap leaves: 60,000 characters less
/// the header and 400 for the closing lines. A last section that ends exactly there
/// is listed; one character more and it is counted instead.
#[test]
fn markdown_fills_its_room_exactly() {
    let n = 50;
    // The header of a report of `n` breaking findings of one rule (no rule table).
    let header = format!(
        "### mcpdesc diff: `old.yaml` → `new.yaml`\n\n\
         | class | findings |\n|---|---:|\n\
         | **breaking** | {n} |\n| **possibly breaking** | 0 |\n| non-breaking | 0 |\n| info | 0 |\n\
         \nCompared protocol revisions: 2025-06-18.\n\n"
    );
    let room = render::MAX_MARKDOWN_CHARS - header.len() - 400;
    let section = |i: usize, m: &str| {
        format!(
            "#### Tool `t{i:04}`\n\n\
             | class | rule | change | where | revisions |\n|---|---|---|---|---|\n\
             | **breaking** | `tool-removed` | {m} |  | 2025-06-18 |\n\n"
        )
    };
    let first = "m".repeat(1000);
    let used: usize = (0..n - 1).map(|i| section(i, &first).len()).sum();
    let last_len = room - used - section(n - 1, "").len();
    let report = |extra: usize| {
        let findings = (0..n)
            .map(|i| {
                let mut f = finding(
                    RuleId::ToolRemoved,
                    Class::Breaking,
                    Some((DeclKind::Tool, &format!("t{i:04}"))),
                );
                let m = if i + 1 == n {
                    "z".repeat(last_len + extra)
                } else {
                    first.clone()
                };
                f.message = Message::new().text(m);
                f
            })
            .collect();
        Report {
            revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
            findings,
        }
    };
    let md = render::markdown(&report(0), NAMES);
    assert_eq!(
        md,
        format!(
            "{header}{}**Semver suggestion: major (breaking changes).**\n",
            (0..n)
                .map(|i| section(
                    i,
                    &if i + 1 == n {
                        "z".repeat(last_len)
                    } else {
                        first.clone()
                    }
                ))
                .collect::<String>()
        )
    );
    let md = render::markdown(&report(1), NAMES);
    assert!(
        !md.contains(&"z".repeat(last_len)),
        "the last section is not listed"
    );
    assert!(
        md.ends_with(&format!(
            "{}_1 more breaking or possibly-breaking findings are not shown here; the JSON report lists them all._\n\n**Semver suggestion: major (breaking changes).**\n",
            section(n - 2, &first)
        )),
        "{}",
        &md[md.len() - 600..]
    );
}

/// The collapsed block of other changes has the same room: 60,000 characters less the
/// header and 400 for the closing lines, of which the block keeps 20 for its own
/// closing `</details>`. A last section that ends exactly there is listed; one character
/// more and the whole block gives way to a count.
#[test]
fn markdown_other_changes_fill_their_room_exactly() {
    let n = 50;
    // The header of a report of `n` info findings of one rule (no rule table).
    let header = format!(
        "### mcpdesc diff: `old.yaml` → `new.yaml`\n\n\
         | class | findings |\n|---|---:|\n\
         | **breaking** | 0 |\n| **possibly breaking** | 0 |\n| non-breaking | 0 |\n| info | {n} |\n\
         \nCompared protocol revisions: 2025-06-18.\n\n"
    );
    let room = render::MAX_MARKDOWN_CHARS - header.len() - 400;
    let open = format!(
        "<details><summary>Other changes (non-breaking and info): {n} findings in {n} sections</summary>\n\n"
    );
    let section = |i: usize, m: &str| {
        format!(
            "#### Tool `t{i:04}`\n\n\
             | class | rule | change | where | revisions |\n|---|---|---|---|---|\n\
             | info | `description-changed` | {m} |  | 2025-06-18 |\n\n"
        )
    };
    let first = "m".repeat(1000);
    let used: usize = (0..n - 1).map(|i| section(i, &first).len()).sum();
    let last_len = room - 20 - open.len() - used - section(n - 1, "").len();
    let message = |i: usize, extra: usize| {
        if i + 1 == n {
            "z".repeat(last_len + extra)
        } else {
            first.clone()
        }
    };
    let report = |extra: usize| Report {
        revisions: RevisionSet::single(ProtocolRevision::V2025_06_18),
        findings: (0..n)
            .map(|i| {
                let mut f = finding(
                    RuleId::DescriptionChanged,
                    Class::Info,
                    Some((DeclKind::Tool, &format!("t{i:04}"))),
                );
                f.message = Message::new().text(message(i, extra));
                f
            })
            .collect(),
    };
    let semver = "**Semver suggestion: patch (documentation and metadata only).**\n";
    assert_eq!(
        render::markdown(&report(0), NAMES),
        format!(
            "{header}{open}{}</details>\n\n{semver}",
            (0..n)
                .map(|i| section(i, &message(i, 0)))
                .collect::<String>()
        )
    );
    assert_eq!(
        render::markdown(&report(1), NAMES),
        format!(
            "{header}_Other changes (non-breaking and info): {n} findings in {n} sections, in the JSON report._\n\n{semver}"
        )
    );
}
