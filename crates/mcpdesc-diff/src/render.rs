//! The three report formats. Everything quoted from a document (names, values,
//! pointers, file names) is untrusted: text output shows control and bidi characters
//! as escapes; markdown puts it in code spans (no HTML, links, `@mentions` or issue
//! references can come from a document); JSON is JSON.

use crate::report::{Finding, Location, Message, Part, Report, Side};
use crate::rules::Class;
use mcpdesc_core::RevisionSet;
use mcpdesc_core::diagnostic::inert;
use serde_json::{Value, json};
use std::fmt::Write as _;

/// Names of the two inputs as the user gave them (`-` shown as `<stdin>`).
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    pub old: &'a str,
    pub new: &'a str,
}

/// The version of the JSON format ([`json()`]); bumped on any incompatible change.
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

/// The primary location and the other side's line (its pointer, mostly the containing
/// object, is in the JSON report): "new `/tools/3/…` (line 12; old line 10)", or, when
/// both sides have the same pointer, "`/tools/0/title` (old line 22, new line 22)".
fn where_cell(f: &Finding) -> String {
    let label = |side: Side| if side == Side::Old { "old" } else { "new" };
    let Some((ps, p)) = f.primary() else {
        return String::new();
    };
    let line = |l: Option<u32>| l.map(|l| format!("line {l}"));
    match f.secondary() {
        Some((_, q)) if q.pointer == p.pointer => {
            let lines: Vec<String> = [(Side::Old, &f.old), (Side::New, &f.new)]
                .into_iter()
                .filter_map(|(side, l)| {
                    l.as_ref()
                        .and_then(|l| line(l.line))
                        .map(|t| format!("{} {t}", label(side)))
                })
                .collect();
            let mut s = code(&p.pointer, true);
            if !lines.is_empty() {
                let _ = write!(s, " ({})", lines.join(", "));
            }
            s
        }
        other => {
            let mut s = format!("{} {}", label(ps), code(&p.pointer, true));
            let mut notes: Vec<String> = line(p.line).into_iter().collect();
            if let Some((qs, q)) = other {
                notes.push(match line(q.line) {
                    Some(t) => format!("{} {t}", label(qs)),
                    None => format!("{} {}", label(qs), code(&q.pointer, true)),
                });
            }
            if !notes.is_empty() {
                let _ = write!(s, " ({})", notes.join("; "));
            }
            s
        }
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

/// A pull-request comment: the summary table and a count per rule, then the findings
/// grouped by declaration — declarations with breaking or possibly-breaking findings
/// first, those findings in the open and the rest of the declaration collapsed; the
/// other declarations in one collapsed block — then the semver suggestion. Stops adding
/// sections before [`MAX_MARKDOWN_CHARS`] and says how many findings it left out.
pub fn markdown(report: &Report, names: Names<'_>) -> String {
    // When everything does not fit, the non-breaking and info findings give way first:
    // they are counted, not listed, so more breaking ones fit.
    match markdown_with(report, names, false) {
        (text, false) => text,
        _ => markdown_with(report, names, true).0,
    }
}

/// The markdown report; `compact` lists only breaking and possibly-breaking findings.
/// Returns whether findings were left out for size.
fn markdown_with(report: &Report, names: Names<'_>, compact: bool) -> (String, bool) {
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
    let all = report.revisions;
    let _ = writeln!(
        s,
        "\nCompared protocol revisions: {}{}.\n",
        revision_list(report),
        if all.len() > 1 {
            " (\"all\" below)"
        } else {
            ""
        }
    );
    rule_counts(&mut s, report);

    // Group by declaration, keeping report order.
    let mut groups: Vec<(String, Vec<&Finding>)> = Vec::new();
    for f in &report.findings {
        let h = heading(f);
        match groups.last_mut() {
            Some((g, list)) if *g == h => list.push(f),
            _ => groups.push((h, vec![f])),
        }
    }
    let serious = |f: &&Finding| matches!(f.class, Class::Breaking | Class::PossiblyBreaking);
    let (first, rest): (Vec<_>, Vec<_>) = groups.iter().partition(|(_, l)| l.iter().any(serious));
    // Room left for the body, keeping space for the closing lines.
    let budget = MAX_MARKDOWN_CHARS.saturating_sub(s.len() + 400);
    let mut body = String::new();
    let mut shown = 0usize;
    let mut truncated = false;
    for (h, list) in &first {
        let (main, other): (Vec<&Finding>, Vec<&Finding>) = list.iter().copied().partition(serious);
        let mut sec = String::new();
        section(&mut sec, h, &main, main.len() > COLLAPSE_AFTER, all);
        if !other.is_empty() && compact {
            let _ = writeln!(
                sec,
                "_and {} non-breaking or info (in the JSON report)_\n",
                plural(other.len(), "finding")
            );
        } else if !other.is_empty() {
            let _ = writeln!(
                sec,
                "<details><summary>{} more {} (non-breaking and info)</summary>\n",
                other.len(),
                if other.len() == 1 {
                    "finding"
                } else {
                    "findings"
                }
            );
            table(&mut sec, &other, all);
            sec.push_str("</details>\n\n");
        }
        if body.len() + sec.len() > budget {
            truncated = true;
            break;
        }
        body.push_str(&sec);
        shown += if compact { main.len() } else { list.len() };
    }
    let omitted_by_compact = if compact {
        report.findings.iter().filter(|f| !serious(f)).count()
    } else {
        0
    };
    if compact && !rest.is_empty() && !truncated {
        let count: usize = rest.iter().map(|(_, l)| l.len()).sum();
        let _ = writeln!(
            body,
            "_Other changes (non-breaking and info): {} in {}, in the JSON report._\n",
            plural(count, "finding"),
            plural(rest.len(), "section")
        );
    } else if !rest.is_empty() && !truncated {
        let count: usize = rest.iter().map(|(_, l)| l.len()).sum();
        let mut block = format!(
            "<details><summary>Other changes (non-breaking and info): {} in {}</summary>\n\n",
            plural(count, "finding"),
            plural(rest.len(), "section")
        );
        for (h, list) in &rest {
            let mut sec = String::new();
            section(&mut sec, h, list, false, all);
            if body.len() + block.len() + sec.len() + 20 > budget {
                truncated = true;
                break;
            }
            block.push_str(&sec);
            shown += list.len();
        }
        block.push_str("</details>\n\n");
        body.push_str(&block);
    }
    if report.findings.is_empty() {
        body.push_str("No changes in the compared revisions.\n\n");
    }
    s.push_str(&body);
    if truncated {
        let left = report.findings.len() - shown - omitted_by_compact;
        let _ = writeln!(
            s,
            "_{} more breaking or possibly-breaking findings are not shown here; the JSON report lists them all._\n",
            left
        );
    }
    let _ = writeln!(s, "**Semver suggestion: {}.**", report.semver().explain());
    (s, truncated)
}

/// How many findings each rule has, most severe class first (collapsed when long).
fn rule_counts(s: &mut String, report: &Report) {
    let mut counts: Vec<(Class, &'static str, usize)> = Vec::new();
    for f in &report.findings {
        match counts
            .iter_mut()
            .find(|c| c.1 == f.rule.id() && c.0 == f.class)
        {
            Some(c) => c.2 += 1,
            None => counts.push((f.class, f.rule.id(), 1)),
        }
    }
    if counts.len() < 2 {
        return;
    }
    counts.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.1.cmp(b.1)));
    let long = counts.len() > COLLAPSE_AFTER;
    if long {
        let _ = writeln!(
            s,
            "<details><summary>Findings by rule ({})</summary>\n",
            counts.len()
        );
    }
    s.push_str("| rule | class | findings |\n|---|---|---:|\n");
    for (class, id, n) in counts {
        let _ = writeln!(s, "| `{id}` | {} | {n} |", class.as_str());
    }
    s.push('\n');
    if long {
        s.push_str("</details>\n\n");
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn table(out: &mut String, list: &[&Finding], all: RevisionSet) {
    out.push_str("| class | rule | change | where | revisions |\n|---|---|---|---|---|\n");
    for f in list {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} |",
            class_label(f.class),
            f.rule.id(),
            md_message(&f.message),
            where_cell(f),
            if f.revisions == all && all.len() > 1 {
                "all".to_string()
            } else {
                revisions(f)
            }
        );
    }
    out.push('\n');
}

fn section(out: &mut String, heading: &str, list: &[&Finding], collapse: bool, all: RevisionSet) {
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
    table(out, list, all);
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
