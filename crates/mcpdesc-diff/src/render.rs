//! The three report formats. Everything quoted from a document (names, values,
//! pointers, file names) is untrusted: text output shows control and bidi characters
//! as escapes; markdown puts it in code spans (no HTML, links, `@mentions` or issue
//! references can come from a document); JSON is JSON.

use crate::report::{Finding, Location, Message, Part, Report, Side};
use crate::rules::Class;
use mcpdesc_core::diagnostic::inert;
use serde_json::{Value, json};
use std::fmt::Write as _;

/// Names of the two inputs as the user gave them (`-` shown as `<stdin>`).
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    pub old: &'a str,
    pub new: &'a str,
}

/// The version of the JSON format ([`json`]); bumped on any incompatible change.
pub const JSON_FORMAT: &str = "mcpdesc-diff/1";

fn revisions(f: &Finding) -> String {
    f.revisions.to_strings().join(", ")
}

fn plain(m: &Message) -> String {
    m.to_string()
}

// ------------------------------------------------------------------------ text

/// One line per finding, in the project's diagnostic style, then the summary and the
/// semver suggestion:
///
/// `NEW:LINE:COL: CLASS[RULE]: DECLARATION: MESSAGE (at POINTER; old POINTER) [REVISIONS]`
///
/// The position is NEW's, or OLD's for a removal ([`Finding::primary`]).
pub fn text(report: &Report, names: Names<'_>) -> String {
    let mut s = String::new();
    for f in &report.findings {
        let Some((side, loc)) = f.primary() else {
            continue;
        };
        let file = match side {
            Side::Old => names.old,
            Side::New => names.new,
        };
        let mut line = inert(file);
        if let (Some(l), Some(c)) = (loc.line, loc.column) {
            let _ = write!(line, ":{l}:{c}");
        }
        let _ = write!(line, ": {}[{}]: ", f.class, f.rule.id());
        if let Some(d) = &f.declaration {
            line.push_str(&inert(&d.to_string()));
            line.push_str(": ");
        }
        line.push_str(&inert(&plain(&f.message)));
        let _ = write!(line, " (at {}", inert(&loc.pointer));
        if let Some((other, o)) = f.secondary() {
            if o.pointer != loc.pointer {
                let label = if other == Side::Old { "old" } else { "new" };
                let _ = write!(line, "; {label} {}", inert(&o.pointer));
            }
        }
        line.push(')');
        if !f.revisions.is_empty() {
            let _ = write!(line, " [{}]", revisions(f));
        }
        s.push_str(&line);
        s.push('\n');
    }
    let sum = report.summary();
    let _ = writeln!(
        s,
        "summary: {} breaking, {} possibly-breaking, {} non-breaking, {} info; compared revisions: {}",
        sum.breaking,
        sum.possibly_breaking,
        sum.non_breaking,
        sum.info,
        revision_list(report)
    );
    let _ = writeln!(s, "semver: {}", report.semver().explain());
    s
}

fn revision_list(report: &Report) -> String {
    if report.revisions.is_empty() {
        "none in common".into()
    } else {
        report.revisions.to_strings().join(", ")
    }
}

// ------------------------------------------------------------------------ JSON

fn location(l: &Option<Location>) -> Value {
    match l {
        None => Value::Null,
        Some(l) => json!({"pointer": l.pointer, "line": l.line, "column": l.column}),
    }
}

/// The report as one JSON value (documented in README, format [`JSON_FORMAT`]).
pub fn json_value(report: &Report, names: Names<'_>) -> Value {
    let findings: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            json!({
                "rule": f.rule.id(),
                "class": f.class,
                "revisions": f.revisions.to_strings(),
                "declaration": f.declaration.as_ref().map(|d| json!({"kind": d.kind_str(), "id": d.id})),
                "old": location(&f.old),
                "new": location(&f.new),
                "message": plain(&f.message),
            })
        })
        .collect();
    json!({
        "format": JSON_FORMAT,
        "old": names.old,
        "new": names.new,
        "revisions": report.revisions.to_strings(),
        "summary": report.summary(),
        "semver": report.semver(),
        "findings": findings,
    })
}

/// [`json_value`], pretty-printed, with a final newline.
pub fn json(report: &Report, names: Names<'_>) -> String {
    let mut s = serde_json::to_string_pretty(&json_value(report, names)).unwrap_or_default();
    s.push('\n');
    s
}

// ------------------------------------------------------------------------ markdown

/// Largest markdown report (GitHub caps comments at 65,536 characters); the rest is
/// summarized and left to the JSON report.
pub const MAX_MARKDOWN_CHARS: usize = 60_000;
/// Declarations with more findings than this are collapsed.
const COLLAPSE_AFTER: usize = 8;

/// `text` as an inline code span that renders literally inside a table cell: control
/// characters escaped, a fence longer than any backtick run inside, pipes escaped.
fn code(text: &str, in_table: bool) -> String {
    let t = inert(text);
    let t = if in_table { t.replace('|', "\\|") } else { t };
    let mut run = 0;
    let mut longest = 0;
    for c in t.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = t.starts_with('`') || t.ends_with('`') || t.starts_with(' ') || t.is_empty();
    if pad {
        format!("{fence} {t} {fence}")
    } else {
        format!("{fence}{t}{fence}")
    }
}

fn md_message(m: &Message) -> String {
    m.parts()
        .iter()
        .map(|p| match p {
            // Our own words: still escape the few characters a table cell gives meaning to.
            Part::Text(t) => t.replace('|', "\\|").replace('<', "&lt;"),
            Part::Quoted(q) => code(q, true),
        })
        .collect()
}

fn class_label(c: Class) -> &'static str {
    match c {
        Class::Breaking => "**breaking**",
        Class::PossiblyBreaking => "**possibly breaking**",
        Class::NonBreaking => "non-breaking",
        Class::Info => "info",
    }
}

fn where_cell(f: &Finding) -> String {
    let one = |side: Side, l: &Location| {
        let label = if side == Side::Old { "old" } else { "new" };
        let mut s = format!("{label} {}", code(&l.pointer, true));
        if let Some(line) = l.line {
            let _ = write!(s, " (line {line})");
        }
        s
    };
    match (f.primary(), f.secondary()) {
        (Some((_, p)), Some((_, q))) if p.pointer == q.pointer => {
            let mut s = code(&p.pointer, true);
            if let (Some(a), Some(b)) = (
                f.old.as_ref().and_then(|l| l.line),
                f.new.as_ref().and_then(|l| l.line),
            ) {
                let _ = write!(s, " (old line {a}, new line {b})");
            }
            s
        }
        (Some((ps, p)), Some((qs, q))) => format!("{}<br>{}", one(ps, p), one(qs, q)),
        (Some((ps, p)), None) => one(ps, p),
        _ => String::new(),
    }
}

fn heading(f: &Finding) -> String {
    match &f.declaration {
        None => "Document".into(),
        Some(d) => match &d.id {
            Some(id) => format!("{} {}", d.kind.label(), code(id, false)),
            None => d.kind.label().to_string(),
        },
    }
}

/// A pull-request comment: summary table, then the findings grouped by declaration
/// (declarations with breaking or possibly-breaking findings first and expanded, the
/// rest collapsed), then the semver suggestion.
pub fn markdown(report: &Report, names: Names<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "### mcpdesc diff: {} → {}\n",
        code(names.old, false),
        code(names.new, false)
    );
    let sum = report.summary();
    s.push_str("| class | findings |\n|---|---:|\n");
    for c in Class::ALL {
        let _ = writeln!(s, "| {} | {} |", class_label(c), sum.get(c));
    }
    let _ = writeln!(
        s,
        "\nCompared protocol revisions: {}.\n",
        revision_list(report)
    );

    // Group by declaration, keeping report order.
    let mut groups: Vec<(String, Vec<&Finding>)> = Vec::new();
    for f in &report.findings {
        let h = heading(f);
        match groups.last_mut() {
            Some((g, list)) if *g == h => list.push(f),
            _ => groups.push((h, vec![f])),
        }
    }
    let serious = |list: &[&Finding]| {
        list.iter()
            .any(|f| matches!(f.class, Class::Breaking | Class::PossiblyBreaking))
    };
    let (first, rest): (Vec<_>, Vec<_>) = groups.iter().partition(|(_, l)| serious(l));
    let mut shown = 0usize;
    let mut truncated = false;
    let mut body = String::new();
    for (h, list) in &first {
        if body.len() + s.len() > MAX_MARKDOWN_CHARS {
            truncated = true;
            break;
        }
        section(&mut body, h, list, list.len() > COLLAPSE_AFTER);
        shown += list.len();
    }
    if !rest.is_empty() && !truncated {
        let count: usize = rest.iter().map(|(_, l)| l.len()).sum();
        let _ = writeln!(
            body,
            "<details><summary>Other changes (non-breaking and info): {} in {}</summary>\n",
            plural(count, "finding"),
            plural(rest.len(), "section")
        );
        for (h, list) in &rest {
            if body.len() + s.len() > MAX_MARKDOWN_CHARS {
                truncated = true;
                break;
            }
            section(&mut body, h, list, false);
            shown += list.len();
        }
        body.push_str("</details>\n\n");
    }
    if report.findings.is_empty() {
        body.push_str("No changes in the compared revisions.\n\n");
    }
    s.push_str(&body);
    if truncated {
        let _ = writeln!(
            s,
            "_{} more findings are not shown here; `mcpdesc diff --format json` lists them all._\n",
            report.findings.len() - shown
        );
    }
    let _ = writeln!(s, "**Semver suggestion: {}.**", report.semver().explain());
    s
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn section(out: &mut String, heading: &str, list: &[&Finding], collapse: bool) {
    let _ = writeln!(out, "#### {heading}\n");
    if collapse {
        let worst = list.iter().map(|f| f.class).min().unwrap_or(Class::Info);
        let _ = writeln!(
            out,
            "<details><summary>{} (worst: {})</summary>\n",
            plural(list.len(), "finding"),
            worst.as_str()
        );
    }
    out.push_str("| class | rule | change | where | revisions |\n|---|---|---|---|---|\n");
    for f in list {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} |",
            class_label(f.class),
            f.rule.id(),
            md_message(&f.message),
            where_cell(f),
            revisions(f)
        );
    }
    out.push('\n');
    if collapse {
        out.push_str("</details>\n\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_anything() {
        assert_eq!(code("a", false), "`a`");
        assert_eq!(code("a`b", false), "``a`b``");
        assert_eq!(code("`x", false), "`` `x ``");
        assert_eq!(code("a|b", true), "`a\\|b`");
        assert_eq!(code("x\ny", false), "`x\\u{a}y`");
        assert_eq!(code("", false), "`  `");
    }
}
