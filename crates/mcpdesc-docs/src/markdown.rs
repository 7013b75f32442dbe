//! Markdown output: the same content as the page for a README or wiki — one section
//! per declaration, schemas as tables, protocol revisions noted.
//!
//! The skeleton is the askama template `templates/docs.md` (no auto-escaping: Markdown
//! has none). Every value it prints comes from the model's inert strings through
//! [`text::md_inline`](crate::text::md_inline), [`text::md_cell`](crate::text::md_cell), [`text::md_block`](crate::text::md_block) or [`text::md_fence`](crate::text::md_fence), so
//! nothing from the description is read as Markdown or HTML, and no link is made from
//! description values.

use crate::Error;
use crate::model::{Block, Decl, Page, Section};
use crate::schema::SchemaDoc;
use crate::text::{md_block, md_cell, md_fence, md_inline, md_line};
use askama::Template;
use std::fmt::Write as _;

#[derive(Template)]
#[template(path = "docs.md", escape = "none")]
struct DocsMd<'a> {
    page: &'a Page,
    groups: Vec<Group<'a>>,
    revision_rows: Vec<String>,
}

impl std::fmt::Debug for DocsMd<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsMd")
            .field("title", &self.page.title)
            .finish_non_exhaustive()
    }
}

/// The declarations of one page section.
struct Group<'a> {
    label: &'a str,
    decls: Vec<(usize, &'a Decl)>,
}

/// Renders the Markdown document.
pub fn render(page: &Page) -> Result<String, Error> {
    let groups = page
        .kinds
        .iter()
        .map(|k| Group {
            label: k.label,
            decls: page
                .decls
                .iter()
                .enumerate()
                .filter(|(_, d)| d.kind == k.key)
                .collect(),
        })
        .filter(|g| !g.decls.is_empty())
        .collect();
    let revision_rows = page
        .views
        .iter()
        .map(|v| {
            let count = |key: &str| {
                v.items
                    .iter()
                    .filter(|[d, _]| page.decls[*d].kind == key)
                    .count()
            };
            let lacks = page
                .revisions
                .iter()
                .find(|r| r.id == v.revision)
                .map(|r| {
                    let mut fields: Vec<&str> = r.lacks.iter().map(|l| l.field).collect();
                    fields.dedup();
                    let mut seen = Vec::new();
                    fields.retain(|f| {
                        let new = !seen.contains(f);
                        seen.push(f);
                        new
                    });
                    fields.join(", ")
                })
                .unwrap_or_default();
            format!(
                "| {} | {} | {} | {} | {} | {} | {} |",
                v.revision,
                count("transports"),
                count("tools"),
                count("resources"),
                count("resourceTemplates"),
                count("prompts"),
                md_cell(&lacks)
            )
        })
        .collect();
    let t = DocsMd {
        page,
        groups,
        revision_rows,
    };
    let mut out = t.render()?;
    // One trailing newline, no runs of blank lines (templates leave some).
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    Ok(out)
}

impl DocsMd<'_> {
    fn inline(&self, s: &str) -> String {
        md_inline(s)
    }

    fn line(&self, s: &str) -> String {
        md_line(s)
    }

    fn para(&self, s: &str) -> String {
        md_block(s)
    }

    /// A declaration's heading line and scope.
    fn heading(&self, d: &Decl) -> String {
        let mut h = format!("### {}", md_inline(&d.name));
        if let Some(t) = &d.title {
            let _ = write!(h, " — {}", md_inline(t));
        }
        h
    }

    fn meta(&self, d: &Decl) -> String {
        let mut lines = Vec::new();
        if let Some(scope) = &d.scope {
            let note = if d.narrowed {
                " (protocol-scoped variant)"
            } else {
                ""
            };
            lines.push(format!("Protocol revisions: {}{note}", scope.join(", ")));
        }
        if !d.badges.is_empty() {
            let b: Vec<String> = d
                .badges
                .iter()
                .map(|b| {
                    let dflt = if b.default { " (default)" } else { "" };
                    format!("{}{dflt}", md_inline(&b.label))
                })
                .collect();
            lines.push(format!("Badges: {}", b.join(" · ")));
        }
        if !d.tags.is_empty() {
            let t: Vec<String> = d.tags.iter().map(|t| md_inline(t)).collect();
            lines.push(format!("Tags: {}", t.join(", ")));
        }
        if !d.toolsets.is_empty() {
            let t: Vec<String> = d.toolsets.iter().map(|t| md_inline(t)).collect();
            lines.push(format!("Toolsets: {}", t.join(", ")));
        }
        lines.join("\\\n")
    }

    fn detail(&self, d: &Decl) -> String {
        let mut out = String::new();
        if let Some(detail) = self.page.details.get(d.detail) {
            for s in &detail.sections {
                section(&mut out, s);
            }
        }
        out
    }
}

fn section(out: &mut String, s: &Section) {
    if !s.heading.is_empty() {
        let _ = write!(out, "#### {}\n\n", md_inline(&s.heading));
    }
    for b in &s.blocks {
        block(out, b);
        out.push_str("\n\n");
    }
}

fn block(out: &mut String, b: &Block) {
    match b {
        Block::Rich(r) => out.push_str(&md_block(&r.text)),
        Block::Fields { items } => {
            let lines: Vec<String> = items
                .iter()
                .map(|f| format!("- {}: {}", md_inline(&f.key), md_inline(&f.value)))
                .collect();
            out.push_str(&lines.join("\n"));
        }
        Block::Badges { items } => {
            let b: Vec<String> = items
                .iter()
                .map(|b| {
                    let dflt = if b.default { " (default)" } else { "" };
                    format!("{}: {}{dflt}", md_inline(&b.label), md_inline(&b.value))
                })
                .collect();
            out.push_str(&b.join(" · "));
        }
        Block::Schema(doc) => schema(out, doc),
        Block::Example { name, parts } => {
            let _ = write!(out, "Example {}:", md_inline(name));
            for p in parts {
                let _ = write!(
                    out,
                    "\n\n{}:\n\n{}",
                    md_inline(&p.label),
                    md_fence("json", &p.text)
                );
            }
        }
        Block::Code { text } => out.push_str(&md_fence("json", text)),
        Block::Note { text } => {
            let _ = write!(out, "_{}_", md_inline(text));
        }
    }
}

fn schema(out: &mut String, doc: &SchemaDoc) {
    for n in &doc.notes {
        let _ = write!(out, "_{}_\n\n", md_inline(n));
    }
    for t in &doc.tables {
        if !t.name.is_empty() {
            let rec = if t.recursive { " (recursive)" } else { "" };
            let _ = write!(out, "Definition {}{rec}:\n\n", md_inline(&t.name));
        }
        if !t.summary.is_empty() {
            let _ = write!(out, "_{}_\n\n", md_inline(&t.summary));
        }
        if t.rows.is_empty() {
            out.push_str("_no properties_\n\n");
            continue;
        }
        out.push_str(
            "| property | type | required | constraints | default | enum | description |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|\n");
        for r in &t.rows {
            let name = format!("{}{}", "› ".repeat(r.depth), md_inline(&r.name));
            let cycle = if r.cycle { " ↻ cycle" } else { "" };
            let _ = writeln!(
                out,
                "| {name} | {}{cycle} | {} | {} | {} | {} | {} |",
                md_cell(&r.ty),
                if r.required { "required" } else { " " },
                md_cell(&r.constraints.join("; ")),
                md_cell(r.default.as_deref().unwrap_or("")),
                md_cell(&r.enumeration.join(", ")),
                md_cell(&r.description),
            );
        }
        out.push('\n');
    }
}
