//! Dependency links between the tools of one API (issue 31): a tool's required path and
//! query identifiers (`owner`, `repo`, `pull_number`) linked to the tools whose responses
//! give them, so a search hit can say which producer to call first.
//!
//! A producer gives a needed identifier `n` when its response (the output schema's
//! properties, two levels deep, through `items`) has
//! - a property named `n` (case-insensitively), at any of those levels;
//! - a property `login`, `name` or `id` under an object property named `n`
//!   (`owner.login` gives `owner`);
//! - or, when `n` is `<noun>` or `<noun>_<key>` (`repo`, `pull_number`, `user_id`), the
//!   key (`name` for a bare noun; `id`, `number`, `name`, `slug`, `key` otherwise) at
//!   its top level or in its array's items, and the last literal segment of its path is
//!   that noun (`/repos/{owner}/{repo}/pulls` is about `pull`s).
//!
//! A tool that itself requires `n` is not a producer of `n`. Producers are ranked by how
//! many of the tool's identifiers they give, then by how few identifiers they require
//! themselves, then by name; at most [`MAX_PRODUCERS`].

use mcpdesc_core::provenance::{Location, ToolProvenance};
use serde_json::Value;
use std::collections::HashSet;

/// Producers listed per tool at most.
pub const MAX_PRODUCERS: usize = 3;

/// One producer of a tool's required identifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    /// The producer's served name.
    pub name: String,
    /// The identifiers (the tool's argument names) its response gives.
    pub gives: Vec<String>,
}

/// What linking reads of one tool.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    name: String,
    /// Required path and query arguments (lower-cased).
    needs: Vec<String>,
    /// Response property names at any walked level, lower-cased.
    props: HashSet<String>,
    /// Object properties with a `login`, `name` or `id` member (`owner` of `owner.login`).
    holders: HashSet<String>,
    /// The top level's (or a top-level array's items') keys among [`KEYS`].
    top_keys: Vec<&'static str>,
    /// The singular of the path's last literal segment, lower-cased.
    noun: String,
}

const KEYS: [&str; 5] = ["id", "number", "name", "slug", "key"];

/// Singular of a path noun: `repos` → `repo`, `pulls` → `pull`, `policies` → `policy`.
fn singular(s: &str) -> String {
    let s = s.to_ascii_lowercase();
    if let Some(stem) = s.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = s.strip_suffix('s')
        && !stem.ends_with('s')
    {
        stem.to_string()
    } else {
        s
    }
}

impl Shape {
    /// The shape of a tool declaration served as `name`; `doc` is its description (the
    /// `$componentRef`s of its schemas resolve there). A tool without provenance needs
    /// nothing (no identifier is known to be a path or query one).
    pub fn of_tool(name: &str, doc: &Value, decl: &Value) -> Shape {
        let prov = ToolProvenance::of_tool(decl, "").and_then(Result::ok);
        Self::of_tool_read(name, doc, decl, prov.as_ref())
    }

    /// [`Shape::of_tool`] with the declaration's provenance already read (a caller that
    /// needs it too reads it once).
    pub fn of_tool_read(
        name: &str,
        doc: &Value,
        decl: &Value,
        prov: Option<&ToolProvenance>,
    ) -> Shape {
        let schema = |key: &str| {
            decl.get(key)
                .and_then(|s| mcpdesc_core::refs::resolve(doc, s, "schemas").ok())
                .map(|(s, _)| s)
        };
        let mut shape = Shape {
            name: name.to_string(),
            ..Shape::default()
        };
        if let Some(prov) = prov {
            let required: Vec<&str> = schema("inputSchema")
                .and_then(|s| s.get("required"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (arg, how) in &prov.arguments {
                if matches!(how.location, Location::Path | Location::Query)
                    && required.contains(&arg.as_str())
                {
                    shape.needs.push(arg.to_ascii_lowercase());
                }
            }
            shape.noun = prov
                .path
                .split('/')
                .rev()
                .find(|s| !s.is_empty() && !s.starts_with('{'))
                .map(singular)
                .unwrap_or_default();
        }
        if let Some(out) = schema("outputSchema") {
            let mut gives = Vec::new();
            collect(out, "", 0, &mut gives);
            for (parent, p) in gives {
                if parent.is_empty() {
                    if let Some(k) = KEYS.iter().find(|k| **k == p)
                        && !shape.top_keys.contains(k)
                    {
                        shape.top_keys.push(k);
                    }
                } else if ["login", "name", "id"].contains(&p.as_str()) {
                    shape.holders.insert(parent);
                }
                shape.props.insert(p);
            }
        }
        shape
    }

    /// Whether this tool's response gives identifier `need`.
    fn gives(&self, need: &str) -> bool {
        if self.needs.iter().any(|n| n == need) {
            return false;
        }
        if self.props.contains(need) || self.holders.contains(need) {
            return true;
        }
        let (noun, keys): (&str, &[&str]) = match need.rsplit_once('_') {
            Some((noun, key)) if KEYS.contains(&key) => (noun, &[key][..]),
            _ => (need, &["name"][..]),
        };
        !self.noun.is_empty()
            && self.top_keys.iter().any(|k| keys.contains(k))
            && singular(noun) == self.noun
    }
}

/// Property names of `schema` into `out` as (parent, name), two levels deep; `items`
/// keep their array's parent.
fn collect(schema: &Value, parent: &str, depth: usize, out: &mut Vec<(String, String)>) {
    if depth > 2 || out.len() > 512 {
        return;
    }
    if let Some(items) = schema.get("items") {
        collect(items, parent, depth, out);
    }
    for (k, v) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let k = k.to_ascii_lowercase();
        out.push((parent.to_string(), k.clone()));
        if depth < 1 {
            collect(v, &k, depth + 1, out);
        }
    }
}

/// The producers of each tool's required identifiers among `shapes` (one API's tools),
/// in `shapes`' order. Each distinct identifier is matched against each tool once
/// (identifiers × tools, not tools²).
pub fn link(shapes: &[Shape]) -> Vec<Vec<Producer>> {
    let mut wanted: Vec<&str> = shapes
        .iter()
        .flat_map(|s| s.needs.iter().map(String::as_str))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let producers: std::collections::HashMap<&str, Vec<usize>> = wanted
        .iter()
        .map(|&n| {
            let by: Vec<usize> = (0..shapes.len()).filter(|&j| shapes[j].gives(n)).collect();
            (n, by)
        })
        .collect();
    shapes
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            // Producer → the tool's identifiers it gives, in the tool's order.
            let mut gives: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
            for n in &tool.needs {
                for &j in producers.get(n.as_str()).into_iter().flatten() {
                    if j != i {
                        gives.entry(j).or_default().push(n.clone());
                    }
                }
            }
            let mut found: Vec<(usize, Vec<String>)> = gives.into_iter().collect();
            found.sort_by(|(a, ag), (b, bg)| {
                bg.len()
                    .cmp(&ag.len())
                    .then(shapes[*a].needs.len().cmp(&shapes[*b].needs.len()))
                    .then_with(|| shapes[*a].name.cmp(&shapes[*b].name))
            });
            found
                .into_iter()
                .take(MAX_PRODUCERS)
                .map(|(j, gives)| Producer {
                    name: shapes[j].name.clone(),
                    gives,
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(path: &str, needs: &[&str], output: Value) -> Value {
        let mut args = serde_json::Map::new();
        let mut props = serde_json::Map::new();
        for n in needs {
            args.insert(n.to_string(), json!({"in": "path", "name": n}));
            props.insert(n.to_string(), json!({"type": "string"}));
        }
        json!({
            "inputSchema": {"type": "object", "properties": props, "required": needs},
            "outputSchema": output,
            "x-mcpdesc-openapi": {"method": "GET", "path": path, "arguments": args}
        })
    }

    /// A GitHub-like chain: the repository list gives `owner` (`owner.login`) and `repo`
    /// (a repo's `name`), the pull request list gives `pull_number` (a pull's `number`),
    /// the reviews need all three. Expectations written by hand from the module's rules.
    #[test]
    fn a_github_like_chain_links_to_its_producers() {
        let doc = json!({});
        let decls = [
            (
                "list_repos_for_user",
                tool(
                    "/user/repos",
                    &[],
                    json!({"type": "array", "items": {"type": "object", "properties": {
                        "name": {}, "full_name": {},
                        "owner": {"type": "object", "properties": {"login": {}}}}}}),
                ),
            ),
            (
                "get_release",
                tool(
                    "/repos/{owner}/{repo}/releases/latest",
                    &["owner", "repo"],
                    json!({"type": "object", "properties": {"id": {}, "tag_name": {},
                        "author": {"type": "object", "properties": {"login": {}}}}}),
                ),
            ),
            (
                "list_pull_requests",
                tool(
                    "/repos/{owner}/{repo}/pulls",
                    &["owner", "repo"],
                    json!({"type": "array", "items": {"type": "object", "properties": {
                        "number": {}, "title": {},
                        "head": {"type": "object", "properties": {"ref": {}}}}}}),
                ),
            ),
            (
                "list_reviews",
                tool(
                    "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
                    &["owner", "repo", "pull_number"],
                    json!({"type": "array", "items": {"type": "object", "properties": {
                        "id": {}, "user": {"type": "object", "properties": {"login": {}}}}}}),
                ),
            ),
        ];
        let shapes: Vec<Shape> = decls
            .iter()
            .map(|(n, d)| Shape::of_tool(n, &doc, d))
            .collect();
        assert_eq!(shapes[3].needs, ["owner", "repo", "pull_number"]);
        assert_eq!(shapes[2].noun, "pull");
        let links = link(&shapes);
        let p = |name: &str, gives: &[&str]| Producer {
            name: name.into(),
            gives: gives.iter().map(|g| g.to_string()).collect(),
        };
        assert_eq!(links[0], []);
        assert_eq!(links[1], [p("list_repos_for_user", &["owner", "repo"])]);
        assert_eq!(links[2], [p("list_repos_for_user", &["owner", "repo"])]);
        assert_eq!(
            links[3],
            [
                p("list_repos_for_user", &["owner", "repo"]),
                p("list_pull_requests", &["pull_number"]),
            ]
        );
    }

    /// A tool that needs an identifier does not produce it; optional and header
    /// arguments are not needs; the API's other tools only (the caller groups by API).
    #[test]
    fn needs_are_required_path_or_query_and_a_consumer_is_no_producer() {
        let doc = json!({});
        let mut get_pull = tool(
            "/repos/{owner}/{repo}/pulls/{pull_number}",
            &["owner", "repo", "pull_number"],
            json!({"type": "object", "properties": {"number": {}, "id": {}}}),
        );
        get_pull["x-mcpdesc-openapi"]["arguments"]["per_page"] = json!({"in": "query"});
        get_pull["x-mcpdesc-openapi"]["arguments"]["accept"] = json!({"in": "header"});
        get_pull["inputSchema"]["required"] = json!(["owner", "repo", "pull_number", "accept"]);
        let shape = Shape::of_tool("get_pull", &doc, &get_pull);
        assert_eq!(shape.needs, ["owner", "repo", "pull_number"]);
        let reviews = Shape::of_tool(
            "list_reviews",
            &doc,
            &tool(
                "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
                &["owner", "repo", "pull_number"],
                json!({"type": "array", "items": {"type": "object", "properties": {"id": {}}}}),
            ),
        );
        // get_pull's noun is `pull_number`'s and it gives `number`, but needs it itself.
        assert_eq!(link(&[shape, reviews]), [vec![], vec![]]);
        // No provenance: nothing is known to be a path or query identifier.
        let bare = Shape::of_tool("bare", &doc, &json!({"inputSchema": {"required": ["id"]}}));
        assert!(bare.needs.is_empty());
    }

    #[test]
    fn singular_of_path_nouns() {
        assert_eq!(singular("repos"), "repo");
        assert_eq!(singular("pulls"), "pull");
        assert_eq!(singular("policies"), "policy");
        assert_eq!(singular("address"), "address");
        assert_eq!(singular("Users"), "user");
    }
}
