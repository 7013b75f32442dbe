//! JSON Schema walking (explicit stack: no recursion over input depth) and HTML text.

use mcpdesc_core::pointer;
use serde_json::Value;

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "additionalItems",
];
/// Keywords whose value is an object of subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is an array of subschemas.
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// The direct subschemas of `schema`, with their relative pointer tokens.
pub fn children(schema: &Value) -> Vec<(Vec<String>, &Value)> {
    let mut out = Vec::new();
    let Some(obj) = schema.as_object() else {
        return out;
    };
    for (k, v) in obj {
        let k = k.as_str();
        if SINGLE.contains(&k) && v.is_object() {
            out.push((vec![k.to_string()], v));
        } else if MAP.contains(&k) {
            if let Some(m) = v.as_object() {
                for (name, s) in m {
                    out.push((vec![k.to_string(), name.clone()], s));
                }
            }
        } else if LIST.contains(&k)
            && let Some(a) = v.as_array()
        {
            for (i, s) in a.iter().enumerate() {
                out.push((vec![k.to_string(), i.to_string()], s));
            }
        }
    }
    out
}

/// Every subschema of `root` (root included) with its pointer relative to `base` and
/// its depth (root = 0), pre-order.
pub fn walk<'a>(root: &'a Value, base: &str) -> Vec<(String, usize, &'a Value)> {
    let mut out = Vec::new();
    let mut stack = vec![(base.to_string(), 0usize, root)];
    while let Some((ptr, depth, v)) = stack.pop() {
        let kids = children(v);
        for (toks, s) in kids.into_iter().rev() {
            let mut p = ptr.clone();
            for t in &toks {
                p = pointer::push(&p, t);
            }
            stack.push((p, depth + 1, s));
        }
        out.push((ptr, depth, v));
    }
    out
}

/// Mutable access by relative tokens.
pub fn get_mut<'a>(root: &'a mut Value, toks: &[String]) -> Option<&'a mut Value> {
    let mut cur = root;
    for t in toks {
        cur = match cur {
            Value::Object(m) => m.get_mut(t)?,
            Value::Array(a) => a.get_mut(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Where the tag at `s[i] == '<'` ends (index after `>`), when it names an element of
/// description HTML ([`mcpdesc_core::html::is_description_element`]).
fn tag_at(s: &str, i: usize) -> Option<(usize, String)> {
    let rest = s.get(i + 1..)?;
    let body = rest.strip_prefix('/').unwrap_or(rest);
    let name: String = body
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    if !mcpdesc_core::html::is_description_element(&name) {
        return None;
    }
    let after = body.get(name.len()..)?;
    if !after.starts_with(['>', ' ', '/', '\t', '\n']) {
        return None;
    }
    let end = rest.find('>')?;
    Some((i + 1 + end + 1, name))
}

/// Whether `text` contains HTML markup.
pub fn has_html(text: &str) -> bool {
    text.match_indices('<')
        .any(|(i, _)| tag_at(text, i).is_some())
}

/// `text` rendered as plain text: tags removed (block ends become line breaks, list
/// items `- `), the common entities decoded, runs of blank lines collapsed.
pub fn html_to_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        if c == '<'
            && let Some((end, name)) = tag_at(text, i)
        {
            let closing = text[i + 1..].starts_with('/');
            match (name.as_str(), closing) {
                ("br" | "hr", _) => out.push('\n'),
                ("li", false) => out.push_str("\n- "),
                ("ul" | "ol", false) => {}
                ("p" | "div" | "ul" | "ol" | "pre" | "table" | "tr" | "blockquote", _)
                | ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", _) => out.push('\n'),
                _ => {}
            }
            i = end;
            continue;
        }
        if c == '&'
            && let Some((decoded, len)) = entity(&text[i..])
        {
            out.push(decoded);
            i += len;
            continue;
        }
        out.push(c);
        i += c.len_utf8();
    }
    // Collapse blank lines and trim each line's trailing spaces.
    let mut lines: Vec<&str> = Vec::new();
    for line in out.split('\n').map(str::trim_end) {
        if line.trim().is_empty() && lines.last().is_none_or(|l| l.trim().is_empty()) {
            continue;
        }
        lines.push(line);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines.join("\n").trim_start().to_string()
}

fn entity(s: &str) -> Option<(char, usize)> {
    let end = s
        .char_indices()
        .take(12)
        .find(|&(_, c)| c == ';')
        .map(|(i, _)| i)?;
    let name = &s[1..end];
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        _ => {
            let n = if let Some(h) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                u32::from_str_radix(h, 16).ok()?
            } else {
                name.strip_prefix('#')?.parse().ok()?
            };
            char::from_u32(n)?
        }
    };
    Some((c, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html() {
        assert!(has_html("<p>Retrieves a customer.</p>"));
        assert!(!has_html("Use <id> as a placeholder; a < b"));
        assert_eq!(
            html_to_text("<p>Retrieves the <code>customer</code> &amp; more.</p><p>Second.</p>"),
            // Paragraphs stay apart by one blank line.
            "Retrieves the customer & more.\n\nSecond."
        );
        assert_eq!(
            html_to_text("Kinds:<ul><li>a</li><li>b</li></ul>"),
            "Kinds:\n- a\n- b"
        );
        assert_eq!(html_to_text("x &#x41;&#66; &bogus; y"), "x AB &bogus; y");
    }
}
