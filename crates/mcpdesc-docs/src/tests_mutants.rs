//! Pages of small descriptions written here by hand, one test per rule a mutation
//! sample (issue 33, seeds 3902 + 3912) showed no unit test pinned. Expectations come
//! from the inputs and the mcpdesc 0.8.0 text (§9 tools, §10.4.6 completion examples,
//! §11 prompts, §17 components), not from recorded output.
#![allow(clippy::unwrap_used)]

use crate::{Format, Options, generate, model, schema, text};
use serde_json::{Value, json};

/// Two tools (one deprecated and read-only), a resource, a prompt with a required and
/// an optional argument and one completion example, and two component schemas.
fn description() -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "demo", "version": "1.0.0", "description": "Serves *demos*."},
        "protocolVersions": ["2025-06-18", "2025-11-25"],
        "tools": [
            {"name": "echo", "description": "Echoes.", "deprecated": true,
             "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}},
             "annotations": {"readOnlyHint": true}},
            {"name": "wipe", "inputSchema": {"type": "object"}}
        ],
        "resources": [{"name": "readme", "title": "Read me", "uri": "file:///readme.md"}],
        "prompts": [{
            "name": "greet",
            "arguments": [
                {"name": "who", "required": true},
                {"name": "how", "required": false}
            ],
            "completionExamples": {"names": {
                "argument": {"name": "who", "value": "Al"},
                "result": {"completion": {"values": ["Alice", "Alan"]}}
            }}
        }],
        "components": {"schemas": {
            "Thing": {"type": "object"},
            "Other": {"type": "string"}
        }}
    })
}

fn valid(doc: &Value) -> mcpdesc_validate::Validated<'_> {
    mcpdesc_validate::Validator::new()
        .check(doc)
        .unwrap_or_else(|d| panic!("{d:?}"))
}

fn markdown(doc: &Value) -> String {
    generate(&valid(doc), Format::Markdown, &Options::default())
        .output
        .unwrap()
}

/// The Markdown section of declaration `name`: from its `### name` heading to the next
/// heading of that level or above.
fn section<'a>(md: &'a str, name: &str) -> &'a str {
    let start = md
        .find(&format!("\n### {name}\n"))
        .unwrap_or_else(|| panic!("no {name} in {md}"))
        + 1;
    let rest = &md[start + 4..];
    let end = ["\n### ", "\n## "]
        .iter()
        .filter_map(|h| rest.find(h))
        .min()
        .unwrap_or(rest.len());
    &md[start..start + 4 + end]
}

#[test]
fn markdown_shows_descriptions_badges_and_details() {
    let md = markdown(&description());
    // The info description is a paragraph; its Markdown is shown as inert text.
    assert!(md.contains("\nServes \\*demos\\*.\n"), "{md}");
    let echo = section(&md, "echo");
    // Badges: readOnlyHint true (§9.5) and deprecated; a detail with the input table.
    assert!(echo.contains("Badges: read-only · deprecated"), "{echo}");
    assert!(echo.contains("- deprecated: yes"), "{echo}");
    assert!(echo.contains("#### Input"), "{echo}");
    assert!(echo.contains("| m | string |"), "{echo}");
    let wipe = section(&md, "wipe");
    assert!(!wipe.contains("deprecated"), "{wipe}");
    // No hints: destructiveHint's default is true (§9.5), shown as a default.
    assert!(wipe.contains("Badges: destructive (default)"), "{wipe}");
}

#[test]
fn prompt_arguments_show_which_are_required() {
    let md = markdown(&description());
    let greet = section(&md, "greet");
    assert!(greet.contains("| who | string | required |"), "{greet}");
    assert!(greet.contains("| how | string |   |"), "{greet}");
}

#[test]
fn a_completion_example_shows_its_argument_and_result_and_no_empty_context() {
    let page = model::build(&description(), None, &[]);
    let greet = page.decls.iter().find(|d| d.name == "greet").unwrap();
    let detail = serde_json::to_value(&page.details[greet.detail]).unwrap();
    let examples = detail["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["heading"] == "Completion examples")
        .unwrap_or_else(|| panic!("{detail:#}"));
    let labels: Vec<&Value> = examples["blocks"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["label"])
        .collect();
    assert_eq!(
        labels,
        [&json!("argument"), &json!("result")],
        "{examples:#}"
    );
}

#[test]
fn each_component_is_listed_once_under_its_own_anchor() {
    let page = model::build(&description(), None, &[]);
    let components: Vec<(&str, &str)> = page
        .decls
        .iter()
        .filter(|d| d.kind == "components")
        .map(|d| (d.name.as_str(), d.anchor.as_str()))
        .collect();
    assert_eq!(
        components,
        [
            ("schemas/Thing", "components-0"),
            ("schemas/Other", "components-1")
        ]
    );
}

#[test]
fn a_resource_overview_names_it_and_shows_identifiers_as_code() {
    let page = model::build(&description(), None, &[]);
    // (key, shown as code) of every field in a declaration's detail.
    let fields = |name: &str| -> Vec<(String, bool)> {
        let d = page.decls.iter().find(|d| d.name == name).unwrap();
        let detail = serde_json::to_value(&page.details[d.detail]).unwrap();
        let mut out = Vec::new();
        for s in detail["sections"].as_array().unwrap() {
            for b in s["blocks"].as_array().unwrap() {
                for f in b["items"].as_array().into_iter().flatten() {
                    if let Some(k) = f["key"].as_str() {
                        out.push((k.to_string(), f["code"] == true));
                    }
                }
            }
        }
        out
    };
    // Resources are listed by URI, so their overview names them (§10); the name and
    // the URI are identifiers (code), the title is prose. Tools are listed by name.
    let readme = fields("file:///readme.md");
    for (key, code) in [("name", true), ("title", false), ("uri", true)] {
        assert!(
            readme.contains(&(key.to_string(), code)),
            "{key}: {readme:?}"
        );
    }
    assert!(!fields("echo").iter().any(|(k, _)| k == "name"));
}

#[test]
fn type_cells_of_true_and_of_type_lists() {
    let doc = schema::document(&json!({
        "type": "object",
        "properties": {"a": true, "b": {"type": ["string", "null"]}}
    }));
    let rows: Vec<(&str, &str)> = doc.tables[0]
        .rows
        .iter()
        .map(|r| (r.name.as_str(), r.ty.as_str()))
        .collect();
    // The module doc: a `type` list is joined by `|`; the schema `true` accepts anything.
    assert_eq!(rows, [("a", "any"), ("b", "string | null")]);
}

#[test]
fn references_inside_a_nested_defs_do_not_make_a_definition_recursive() {
    // B's own `$defs` member refers to A, but nothing in B uses it: A → B is the only
    // reference, so neither definition reaches itself.
    let doc = schema::document(&json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "$defs": {"unused": {"$ref": "#/$defs/A"}},
                  "definitions": {"old": {"$ref": "#/$defs/A"}}}
        }
    }));
    let recursive: Vec<(&str, bool)> = doc
        .tables
        .iter()
        .skip(1)
        .map(|t| (t.name.as_str(), t.recursive))
        .collect();
    assert_eq!(recursive, [("A", false), ("B", false)]);
}

#[test]
fn a_summary_is_the_first_non_blank_line() {
    assert_eq!(
        text::summary("\n   \n  First line.\nSecond line."),
        "First line."
    );
}

#[test]
fn the_page_is_html_and_its_data_escapes_the_javascript_line_terminators() {
    let doc = description();
    let html = generate(&valid(&doc), Format::Html, &Options::default())
        .output
        .unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..100]);
    assert!(html.contains("<title>demo</title>"));
    // Strings of a description reach the page inert (U+2028 shown as a mark), so the
    // page data's own escaping is checked on a page model holding the raw characters:
    // U+2028/U+2029 end a line in JavaScript before ES2019, and the embedded JSON
    // carries them as escapes only.
    let mut page = model::build(&doc, None, &[]);
    page.decls[1].summary = "one\u{2028}two\u{2029}three".into();
    let html = crate::html::render(&page).unwrap();
    assert!(html.contains("one\\u2028two\\u2029three"));
    assert!(!html.contains('\u{2028}') && !html.contains('\u{2029}'));
}
