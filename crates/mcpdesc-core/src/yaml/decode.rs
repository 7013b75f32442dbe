//! Event-level decoder for the restricted YAML profile (§15.3).
//!
//! We pull events one at a time from `yaml_rust2`'s parser (`Parser::next_token`, a
//! state machine with an explicit stack) and never call its `load`/`YamlLoader`
//! (those recurse once per nesting level). Each event is checked against the profile
//! and fed to the shared [`ValueBuilder`], which enforces the limits, rejects
//! duplicate keys and records positions. Nothing is ever expanded: anchors, aliases
//! and tags are errors the moment they appear, so alias bombs cannot cost anything.

use super::resolve::{Plain, resolve_plain};
use crate::builder::{Position, SourceMap, ValueBuilder, number_from_text};
use crate::diagnostic::Diagnostic;
use crate::limits::Limits;
use serde_json::Value;
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, ScanError, Scanner, TScalarStyle, TokenType};

/// yaml-rust2 markers: `line` is 1-based, `col` is 0-based and counts characters.
fn position(m: &Marker) -> Position {
    Position {
        line: m.line() as u32,
        column: m.col() as u32 + 1,
    }
}

/// Where we are inside the innermost open collection.
#[derive(Clone, Copy)]
enum Ctx {
    Seq,
    /// `true` while the next node is a mapping key.
    Map(bool),
}

/// Parses one restricted-profile YAML document into the JSON data model.
///
/// Errors carry a stable code (`yaml-syntax`, `yaml-alias`, `yaml-anchor`, `yaml-tag`,
/// `yaml-non-string-key`, `yaml-complex-key`, `yaml-no-document`,
/// `yaml-multiple-documents`, `duplicate-key`, `non-finite-number`, `limit-*`), the
/// pointer of the enclosing value and the line/column of the offending node.
pub fn parse(text: &str, limits: &Limits) -> Result<(Value, SourceMap), Diagnostic> {
    // yaml-rust2 keeps internal `unwrap`/`unreachable!` assertions. Millions of fuzzed
    // inputs have not reached one, but should one fire it must become a diagnostic,
    // not take a batch run down with it.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_events(text, limits)))
        .unwrap_or_else(|_| {
            Err(Diagnostic::error(
                "yaml-syntax",
                "the YAML parser failed on this input (internal error)",
            )
            .with_position(1, 1))
        })
}

fn parse_events(text: &str, limits: &Limits) -> Result<(Value, SourceMap), Diagnostic> {
    check_version_directive(text)?;
    let mut parser = Parser::new_from_str(text);
    let mut b = ValueBuilder::new(limits);
    let mut stack: Vec<Ctx> = Vec::new();
    let mut documents = 0usize;
    let end;
    loop {
        let (ev, mark) = parser.next_token().map_err(|e| scan_error(&e, &b))?;
        let pos = position(&mark);
        let at_key = matches!(stack.last(), Some(Ctx::Map(true)));
        match ev {
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::StreamEnd => {
                end = pos;
                break;
            }
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    // The event of an implicit document (after `...`) is marked inside
                    // its first line; the document starts at that line's first
                    // non-blank character (`---` always sits in column 1).
                    let line = text
                        .split('\n')
                        .nth(pos.line.saturating_sub(1) as usize)
                        .unwrap_or("");
                    let column = line.chars().take_while(|c| *c == ' ').count() as u32 + 1;
                    return Err(Diagnostic::error(
                        "yaml-multiple-documents",
                        "the YAML stream has more than one document; an MCP Description is exactly one (§15.3)",
                    )
                    .with_position(pos.line, column));
                }
            }
            Event::Alias(_) => return Err(alias_error(&b, pos)),
            Event::Scalar(s, style, anchor, tag) => {
                check_properties(text, anchor, tag.as_ref(), &b, pos)?;
                let plain = style == TScalarStyle::Plain;
                if at_key {
                    if plain && resolve_plain(&s) != Plain::Str {
                        let shown = if s.is_empty() {
                            "an empty key (null)".to_string()
                        } else {
                            format!("`{s}`")
                        };
                        return Err(err(
                            &b,
                            "yaml-non-string-key",
                            format!(
                                "mapping key {shown} does not resolve to a string under the YAML 1.2.2 JSON schema; quote it (§15.3.1)"
                            ),
                            pos,
                        ));
                    }
                    b.key(s, pos)?;
                    if let Some(Ctx::Map(want_key)) = stack.last_mut() {
                        *want_key = false;
                    }
                } else {
                    let v = if plain {
                        plain_value(s, &b, pos)?
                    } else {
                        Value::String(s)
                    };
                    b.scalar(v, pos)?;
                    value_done(&mut stack);
                }
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                let is_map = matches!(ev, Event::MappingStart(..));
                check_properties(text, anchor, tag.as_ref(), &b, pos)?;
                if at_key {
                    let what = if is_map { "a mapping" } else { "a sequence" };
                    return Err(err(
                        &b,
                        "yaml-complex-key",
                        format!("mapping key is {what}; keys must be strings (§15.3.1)"),
                        pos,
                    ));
                }
                if is_map {
                    // A block mapping's start event is marked at the first key's `:`;
                    // we position a mapping at its first key (a flow mapping at `{`).
                    let first = parser.peek().map_err(|e| scan_error(&e, &b))?;
                    let pos = if first.1.index() < mark.index() {
                        position(&first.1)
                    } else {
                        pos
                    };
                    b.start_object(pos)?;
                    stack.push(Ctx::Map(true));
                } else {
                    b.start_array(pos)?;
                    stack.push(Ctx::Seq);
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                b.end()?;
                stack.pop();
                value_done(&mut stack);
            }
        }
    }
    if documents == 0 {
        return Err(Diagnostic::error(
            "yaml-no-document",
            "the YAML stream contains no document; an MCP Description is exactly one (§15.3)",
        )
        .with_position(1, 1));
    }
    b.finish(end)
}

/// A member value (or sequence item) is complete: a mapping now wants its next key.
fn value_done(stack: &mut [Ctx]) {
    if let Some(Ctx::Map(want_key)) = stack.last_mut() {
        *want_key = true;
    }
}

fn err(b: &ValueBuilder, code: &str, msg: String, pos: Position) -> Diagnostic {
    Diagnostic::error(code, msg)
        .at(b.current_pointer())
        .with_position(pos.line, pos.column)
}

fn plain_value(s: String, b: &ValueBuilder, pos: Position) -> Result<Value, Diagnostic> {
    Ok(match resolve_plain(&s) {
        Plain::Null => Value::Null,
        Plain::Bool(v) => Value::Bool(v),
        Plain::Str => Value::String(s),
        Plain::NonFinite => {
            return Err(err(
                b,
                "non-finite-number",
                format!(
                    "`{s}` is a non-finite number (YAML infinity or NaN); MCP Descriptions carry only finite numbers (§15.3.3). Quote it (\"{s}\") if it is meant as a string"
                ),
                pos,
            ));
        }
        Plain::Number => match number_from_text(&s) {
            Some(n) => Value::Number(n),
            None => {
                return Err(err(
                    b,
                    "non-finite-number",
                    format!(
                        "number `{s}` is not a finite double (§15.3.3); quote it if it is meant as a string"
                    ),
                    pos,
                ));
            }
        },
    })
}

fn alias_error(b: &ValueBuilder, pos: Position) -> Diagnostic {
    err(
        b,
        "yaml-alias",
        "YAML aliases (`*name`) are not allowed in an MCP Description (§15.3.5); repeat the value instead".into(),
        pos,
    )
}

fn scan_error(e: &ScanError, b: &ValueBuilder) -> Diagnostic {
    let pos = position(e.marker());
    // An alias to an anchor that was never defined fails inside the parser before we
    // see an event; it is still an alias, so report it as one.
    if e.info().contains("unknown anchor") {
        return alias_error(b, pos);
    }
    // yaml-rust2 counts flow nesting in a u8 and gives up past 255 levels, before
    // our own depth limit can see the events.
    if e.info().contains("recursion limit exceeded") {
        return err(
            b,
            "limit-depth",
            "flow collections nested deeper than 255 levels".into(),
            pos,
        );
    }
    err(
        b,
        "yaml-syntax",
        format!("YAML syntax error: {}", e.info()),
        pos,
    )
}

/// Rejects node properties: anchors (§15.3.5) and every explicit tag (§15.3.4).
///
/// The profile forbids application/custom tags; we are stricter and reject standard
/// tags (`!!str`, `!!int`, the non-specific `!`) as well, since JSON-schema resolution
/// plus quoting already expresses every value. Accepting the JSON schema's own tags
/// (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq`, `!!map`) could be added
/// here later if authors need them.
///
/// The parser reports the position of the node, not of the `&`/`!` property, which may
/// sit on an earlier line; on this (error-only) path we re-scan the text for the first
/// anchor or tag token, which is exactly the one this event carries: any earlier
/// property would have produced an earlier event and been rejected there.
fn check_properties(
    text: &str,
    anchor: usize,
    tag: Option<&Tag>,
    b: &ValueBuilder,
    node: Position,
) -> Result<(), Diagnostic> {
    if anchor == 0 && tag.is_none() {
        return Ok(());
    }
    let found = Scanner::new(text.chars()).find_map(|t| match t.1 {
        TokenType::Anchor(name) => Some((true, name, position(&t.0))),
        TokenType::Tag(handle, suffix) => {
            Some((false, format!("{handle}{suffix}"), position(&t.0)))
        }
        _ => None,
    });
    let (is_anchor, name, pos) = match found {
        Some(f) => f,
        None if anchor != 0 => (true, String::new(), node),
        None => (
            false,
            tag.map(|t| format!("{}{}", t.handle, t.suffix))
                .unwrap_or_default(),
            node,
        ),
    };
    Err(if is_anchor {
        err(
            b,
            "yaml-anchor",
            format!("YAML anchor `&{name}` is not allowed in an MCP Description (§15.3.5)"),
            pos,
        )
    } else {
        err(
            b,
            "yaml-tag",
            format!(
                "YAML tag `{name}` is not allowed in an MCP Description (§15.3.4); remove it or quote the value"
            ),
            pos,
        )
    })
}

/// The profile is YAML 1.2.2 (§15.3). A `%YAML 1.1` directive asks for YAML 1.1
/// scalar resolution (`yes` is a boolean there), which we do not implement, so it is
/// refused rather than silently read with other meanings; so is any version other
/// than 1.2 (yaml-rust2 does not look at the directive itself). Directives can only
/// precede the first `---`, so scanning the leading lines is enough.
fn check_version_directive(text: &str) -> Result<(), Diagnostic> {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_end();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let Some(rest) = t.strip_prefix("%YAML") else {
            if t.starts_with('%') {
                continue; // %TAG and reserved directives
            }
            break;
        };
        let version = rest.split('#').next().unwrap_or("").trim();
        if version != "1.2" {
            return Err(Diagnostic::error(
                "yaml-version",
                format!("`%YAML {version}` directive: an MCP Description is YAML 1.2.2 (§15.3)"),
            )
            .with_position(i as u32 + 1, 1));
        }
    }
    Ok(())
}
