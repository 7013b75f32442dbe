//! JSON Schema → nested tables: one table for the root and one per local definition
//! (`$defs`, `definitions`). Local `$ref`s link to their definition's table instead of
//! being expanded (importers repeat every component in each tool, and expansion grows
//! exponentially); a reference that leads back to the table it appears in is marked as
//! a cycle. Composition (`anyOf`, `oneOf`, `allOf`, `not`, `if`/`then`/`else`) is shown
//! as alternatives nested under the row that has it.
//!
//! The walk is bounded: at most [`MAX_DEPTH`] nesting levels and [`MAX_ROWS`] rows per
//! schema; past either, a table says it was cut.

use crate::text::{inert, inert_max, json_cell};
use mcpdesc_core::local_ref::Resolver;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Deepest nesting shown.
pub const MAX_DEPTH: usize = 16;
/// Most rows shown for one schema (all its tables together).
pub const MAX_ROWS: usize = 3_000;

/// A schema shown as tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaDoc {
    /// Root first, then definitions in document order.
    pub tables: Vec<Table>,
    /// Notes about the whole schema (dialect, cut, external references).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One table: the root schema or one definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Table {
    /// `""` for the root, else the definition's name.
    pub name: String,
    /// The root's own type and notes as a one-line summary ("object, closed").
    pub summary: String,
    /// Whether this definition reaches itself through references.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recursive: bool,
    pub rows: Vec<Row>,
}

/// One row of a schema table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// Nesting level below the table's root (0 = a direct property).
    pub depth: usize,
    /// Property name, or a structural label (`[items]`, `one of #1`, `{additional}`).
    pub name: String,
    /// Whether `name` is a property (as opposed to a structural label).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prop: bool,
    /// Type text (`string (uuid)`, `integer | null`, `→ Pet`).
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(rename = "enum", skip_serializing_if = "Vec::is_empty")]
    pub enumeration: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The definition table a `$ref` points to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// The reference leads back to the table it is in (or to the root).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cycle: bool,
}

/// Builds the tables of `schema` (a resolved Tool schema or component schema).
pub fn document(schema: &Value) -> SchemaDoc {
    let res = Resolver::new(schema);
    let defs = definitions(schema);
    let graph: BTreeMap<&str, BTreeSet<String>> = defs
        .iter()
        .map(|(n, v)| {
            let mut out = BTreeSet::new();
            local_refs(&res, v, &mut out, 0);
            (*n, out)
        })
        .collect();
    // What each definition reaches through references, once per schema (cycle marks).
    let reach: BTreeMap<&str, BTreeSet<String>> =
        graph.keys().map(|n| (*n, reachable(&graph, n))).collect();
    let mut w = Walker {
        res: &res,
        defs: defs.iter().map(|(n, _)| n.to_string()).collect(),
        reach: &reach,
        rows: 0,
        cut: false,
        external: BTreeSet::new(),
    };
    let mut tables = Vec::with_capacity(defs.len() + 1);
    let mut root_rows = Vec::new();
    w.children(schema, 0, None, &mut root_rows);
    tables.push(Table {
        name: String::new(),
        summary: summary(&res, schema),
        recursive: false,
        rows: root_rows,
    });
    for (name, def) in &defs {
        let mut rows = Vec::new();
        w.children(def, 0, Some(name), &mut rows);
        tables.push(Table {
            name: inert(name),
            summary: summary(&res, def),
            recursive: reach.get(name).is_some_and(|r| r.contains(*name)),
            rows,
        });
    }
    let mut notes = Vec::new();
    if let Some(d) = schema.get("$schema").and_then(Value::as_str) {
        notes.push(format!("dialect: {}", inert_max(d, 200)));
    }
    for r in &w.external {
        notes.push(format!(
            "reference `{}` is not a local definition; it is shown but not followed",
            inert_max(r, 200)
        ));
    }
    if w.cut {
        notes.push(format!(
            "shown in part: more than {MAX_ROWS} rows or deeper than {MAX_DEPTH} levels"
        ));
    }
    SchemaDoc { tables, notes }
}

/// The schema's local definitions, `$defs` then `definitions`, in document order.
fn definitions(schema: &Value) -> Vec<(&str, &Value)> {
    ["$defs", "definitions"]
        .into_iter()
        .filter_map(|k| schema.get(k).and_then(Value::as_object))
        .flat_map(|m| m.iter().map(|(k, v)| (k.as_str(), v)))
        .collect()
}

/// The definition name a local reference resolves to (`#/$defs/A`, `#/definitions/A`,
/// an anchor on one of them), decoded.
fn def_name(res: &Resolver<'_>, r: &str) -> Option<String> {
    let p = res.pointer(r)?;
    match <[String; 2]>::try_from(mcpdesc_core::pointer::tokens(&p)) {
        Ok([defs, name]) if defs == "$defs" || defs == "definitions" => Some(name),
        _ => None,
    }
}

/// Every local definition referenced anywhere inside `v` (bounded depth).
fn local_refs(res: &Resolver<'_>, v: &Value, out: &mut BTreeSet<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(n) = m
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| def_name(res, r))
            {
                out.insert(n);
            }
            for (k, c) in m {
                if k != "$defs" && k != "definitions" && k != "examples" && k != "default" {
                    local_refs(res, c, out, depth + 1);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|c| local_refs(res, c, out, depth + 1)),
        _ => {}
    }
}

/// Every definition `from` reaches through references (itself only through a cycle).
fn reachable(graph: &BTreeMap<&str, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<&str> = vec![from];
    while let Some(n) = stack.pop() {
        for next in graph.get(n).into_iter().flatten() {
            if seen.insert(next.clone()) {
                stack.push(next.as_str());
            }
        }
    }
    seen
}

struct Walker<'a> {
    res: &'a Resolver<'a>,
    defs: BTreeSet<String>,
    reach: &'a BTreeMap<&'a str, BTreeSet<String>>,
    rows: usize,
    cut: bool,
    external: BTreeSet<String>,
}

/// The keywords [`Walker::children`] reads, in the order it shows them.
const WALK_KEYS: [&str; 15] = [
    "required",
    "properties",
    "patternProperties",
    "additionalProperties",
    "items",
    "additionalItems",
    "contains",
    "prefixItems",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
];

/// The values of `keys` in `m`, found in one pass over its members: a schema object has
/// a handful of members, and a hashed lookup per keyword per row was most of the time
/// of a large page.
fn gather<'a, const N: usize>(
    m: &'a serde_json::Map<String, Value>,
    keys: &[&str; N],
) -> [Option<&'a Value>; N] {
    let mut out = [None; N];
    for (k, v) in m {
        if let Some(i) = keys.iter().position(|x| *x == k) {
            out[i] = Some(v);
        }
    }
    out
}

impl Walker<'_> {
    /// Rows for what `schema` contains: properties, items, additional properties,
    /// alternatives. `table` is the definition whose table these rows are in.
    fn children(&mut self, schema: &Value, depth: usize, table: Option<&str>, out: &mut Vec<Row>) {
        let Some(m) = schema.as_object() else { return };
        if depth >= MAX_DEPTH {
            self.cut = true;
            return;
        }
        let [
            required,
            properties,
            pattern,
            additional,
            items,
            additional_items,
            contains,
            prefix,
            one_of,
            any_of,
            all_of,
            not,
            if_,
            then,
            else_,
        ] = gather(m, &WALK_KEYS);
        let required: BTreeSet<&str> = required
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, s) in properties.and_then(Value::as_object).into_iter().flatten() {
            let req = required.contains(name.as_str());
            self.row(name, true, req, s, depth, table, out);
        }
        for (pat, s) in pattern.and_then(Value::as_object).into_iter().flatten() {
            let label = format!("/{}/", inert_max(pat, 200));
            self.row(&label, false, false, s, depth, table, out);
        }
        if let Some(s @ Value::Object(_)) = additional {
            self.row("{additional}", false, false, s, depth, table, out);
        }
        for (v, label) in [
            (items, "[items]"),
            (additional_items, "[additionalItems]"),
            (contains, "[contains]"),
        ] {
            match v {
                Some(s @ Value::Object(_)) => self.row(label, false, false, s, depth, table, out),
                Some(Value::Array(a)) => {
                    for (i, s) in a.iter().enumerate() {
                        self.row(&format!("[{i}]"), false, false, s, depth, table, out);
                    }
                }
                _ => {}
            }
        }
        for (i, s) in prefix
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            self.row(&format!("[{i}]"), false, false, s, depth, table, out);
        }
        for (v, label) in [(one_of, "one of"), (any_of, "any of"), (all_of, "all of")] {
            for (i, s) in v
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let l = format!("{label} #{}", i + 1);
                self.row(&l, false, false, s, depth, table, out);
            }
        }
        for (v, key) in [(not, "not"), (if_, "if"), (then, "then"), (else_, "else")] {
            if let Some(s) = v.filter(|s| s.is_object()) {
                self.row(&format!("({key})"), false, false, s, depth, table, out);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        name: &str,
        prop: bool,
        required: bool,
        s: &Value,
        depth: usize,
        table: Option<&str>,
        out: &mut Vec<Row>,
    ) {
        if self.rows >= MAX_ROWS {
            self.cut = true;
            return;
        }
        self.rows += 1;
        let mut link = None;
        let mut cycle = false;
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            match def_name(self.res, r) {
                Some(n) if self.defs.contains(&n) => {
                    cycle = match table {
                        Some(t) => {
                            n == t || self.reach.get(n.as_str()).is_some_and(|r| r.contains(t))
                        }
                        None => false,
                    };
                    link = Some(inert(&n));
                }
                _ if r == "#" => cycle = true,
                _ => {
                    self.external.insert(r.to_string());
                }
            }
        }
        out.push(Row {
            depth,
            name: inert_max(name, 300),
            prop,
            ty: type_text(self.res, s),
            required,
            constraints: constraints(s),
            default: s.get("default").map(json_cell),
            enumeration: s
                .get("enum")
                .and_then(Value::as_array)
                .map(|a| a.iter().take(50).map(json_cell).collect())
                .unwrap_or_default(),
            description: s
                .get("description")
                .or_else(|| s.get("title"))
                .and_then(Value::as_str)
                .map(|d| inert_max(d, 2_000))
                .unwrap_or_default(),
            link,
            cycle,
        });
        self.children(s, depth + 1, table, out);
    }
}

/// The type column: `type` (list joined by `|`) with `format`, `const`, a `$ref`
/// target, or what composition implies.
fn type_text(res: &Resolver<'_>, s: &Value) -> String {
    let Some(m) = s.as_object() else {
        return match s {
            Value::Bool(true) => "any".into(),
            Value::Bool(false) => "never".into(),
            _ => "?".into(),
        };
    };
    let mut t = match m.get("type") {
        Some(Value::String(t)) => inert_max(t, 100),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(|t| inert_max(t, 100))
            .collect::<Vec<_>>()
            .join(" | "),
        _ => String::new(),
    };
    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
        let target = def_name(res, r).unwrap_or_else(|| r.to_string());
        let arrow = format!("→ {}", inert_max(&target, 200));
        t = if t.is_empty() {
            arrow
        } else {
            format!("{t} {arrow}")
        };
    }
    if t.is_empty() {
        t = if m.contains_key("const") {
            "const".into()
        } else if m.contains_key("enum") {
            "enum".into()
        } else if m.contains_key("oneOf") {
            "one of".into()
        } else if m.contains_key("anyOf") {
            "any of".into()
        } else if m.contains_key("allOf") {
            "all of".into()
        } else if m.contains_key("properties") {
            "object".into()
        } else {
            "any".into()
        };
    }
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        t.push_str(&format!(" ({})", inert_max(f, 100)));
    }
    if m.get("nullable").and_then(Value::as_bool) == Some(true) {
        t.push_str(" | null");
    }
    t
}

/// Constraint keywords and their labels, in the order the column shows them.
const CONSTRAINTS: [(&str, &str); 18] = [
    ("minimum", "≥"),
    ("exclusiveMinimum", ">"),
    ("maximum", "≤"),
    ("exclusiveMaximum", "<"),
    ("multipleOf", "multiple of"),
    ("minLength", "min length"),
    ("maxLength", "max length"),
    ("pattern", "pattern"),
    ("minItems", "min items"),
    ("maxItems", "max items"),
    ("minProperties", "min properties"),
    ("maxProperties", "max properties"),
    ("minContains", "min contains"),
    ("maxContains", "max contains"),
    ("const", "const"),
    ("contentMediaType", "media type"),
    ("contentEncoding", "encoding"),
    ("x-mcp-header", "header"),
];
/// Boolean keywords shown when true.
const FLAGS: [(&str, &str); 4] = [
    ("uniqueItems", "unique items"),
    ("deprecated", "deprecated"),
    ("readOnly", "read-only"),
    ("writeOnly", "write-only"),
];

/// The constraints column, each as `keyword value` text.
fn constraints(s: &Value) -> Vec<String> {
    let Some(m) = s.as_object() else {
        return Vec::new();
    };
    let mut values: [Option<&Value>; 18] = [None; 18];
    let mut flags = [false; 4];
    let (mut closed, mut has_props, mut example) = (false, false, None);
    for (k, v) in m {
        if let Some(i) = CONSTRAINTS.iter().position(|(c, _)| c == k) {
            values[i] = Some(v);
        } else if let Some(i) = FLAGS.iter().position(|(f, _)| f == k) {
            flags[i] = v.as_bool() == Some(true);
        } else {
            match k.as_str() {
                "additionalProperties" => closed = *v == Value::Bool(false),
                "properties" => has_props = true,
                "examples" => example = v.as_array().and_then(|a| a.first()),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for ((_, label), v) in CONSTRAINTS.iter().zip(values) {
        if let Some(v) = v {
            let text = match v {
                Value::String(s) => inert_max(s, 300),
                other => json_cell(other),
            };
            out.push(format!("{label} {text}"));
        }
    }
    for ((_, label), on) in FLAGS.iter().zip(flags) {
        if on {
            out.push((*label).into());
        }
    }
    if closed && has_props {
        out.push("no other properties".into());
    }
    if let Some(first) = example {
        out.push(format!("example {}", json_cell(first)));
    }
    out
}

/// One line about a table's root: its type and whether it is closed.
fn summary(res: &Resolver<'_>, s: &Value) -> String {
    let mut t = type_text(res, s);
    if s.get("additionalProperties") == Some(&Value::Bool(false)) {
        t.push_str(", no other properties");
    }
    if let Some(d) = s.get("description").and_then(Value::as_str) {
        t.push_str(" — ");
        t.push_str(&crate::text::summary(d));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn properties_required_and_constraints() {
        let d = document(&json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "default": 20},
                "id": {"type": "string", "format": "uuid", "description": "The id"},
                "kind": {"enum": ["a", "b"]}
            },
            "required": ["id"],
            "additionalProperties": false
        }));
        let rows = &d.tables[0].rows;
        assert_eq!(d.tables[0].summary, "object, no other properties");
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].name.as_str(), rows[0].required), ("limit", false));
        assert_eq!(rows[0].constraints, ["≥ 1"]);
        assert_eq!(rows[0].default.as_deref(), Some("20"));
        assert_eq!(
            (rows[1].ty.as_str(), rows[1].required),
            ("string (uuid)", true)
        );
        assert_eq!(rows[2].enumeration, [r#""a""#, r#""b""#]);
    }

    #[test]
    fn refs_link_and_cycles_are_marked() {
        let d = document(&json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}, "other": {"$ref": "#/$defs/Leaf"}},
            "$defs": {
                "Node": {"type": "object", "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "leaf": {"$ref": "#/$defs/Leaf"}}},
                "Leaf": {"type": "string"}
            }
        }));
        assert_eq!(d.tables.len(), 3);
        let root = &d.tables[0].rows;
        assert_eq!(root[0].link.as_deref(), Some("Node"));
        assert!(!root[0].cycle);
        let node = &d.tables[1];
        assert!(node.recursive);
        let items = node
            .rows
            .iter()
            .find(|r| r.name == "[items]")
            .expect("items row");
        assert!(items.cycle && items.ty == "→ Node");
        let leaf = node
            .rows
            .iter()
            .find(|r| r.name == "leaf")
            .expect("leaf row");
        assert!(!leaf.cycle);
        assert!(!d.tables[2].recursive);
    }

    #[test]
    fn composition_and_bounds() {
        let d = document(
            &json!({"oneOf": [{"type": "string"}, {"type": "object", "properties": {"a": {}}}]}),
        );
        let rows = &d.tables[0].rows;
        assert_eq!(rows[0].name, "one of #1");
        assert_eq!((rows[2].name.as_str(), rows[2].depth), ("a", 1));
        // A hand-built 40-level nesting is cut at MAX_DEPTH, with a note.
        let mut s = json!({"type": "string"});
        for _ in 0..40 {
            s = json!({"type": "object", "properties": {"n": s}});
        }
        let d = document(&s);
        assert_eq!(d.tables[0].rows.len(), MAX_DEPTH);
        assert!(d.notes.iter().any(|n| n.starts_with("shown in part")));
    }
}
