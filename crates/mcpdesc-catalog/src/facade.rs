//! The search facade (`--discovery search`): a fixed, small `tools/list` of three tools
//! that stand for a catalog of any size.
//!
//! - [`SEARCH_TOOLS`] `{query, limit?, toolsets?, servers?, readOnly?}` → `{"tools":
//!   [{name, server, title?, summary, method?, path?, toolset?, requires?, score}],
//!   "servers"?: [{name, score}]}`, best first. With two or more descriptions served,
//!   `servers` narrows the search to some of them, and the result ranks the
//!   descriptions the request is most about ([`ranked_servers`]); with one, neither
//!   appears.
//! - [`DESCRIBE_TOOLS`] `{names}` → `{"tools": [Tool]}`, each exactly as `tools/list`
//!   would list it at the negotiated revision.
//! - [`CALL_TOOL`] `{name, arguments}` → the named tool's own result, unchanged.
//!
//! The list is the same on every connection and after every request (MCP 2026-07-28:
//! `tools/list` must not vary per connection or as a side effect of other requests):
//! nothing here "enables" a tool. This module holds the declarations and the result
//! shapes; the server does the dispatch.

use mcpdesc_core::ProtocolRevision;
use mcpdesc_core::revision::{ObjectKind, field_available};
use serde_json::{Map, Value, json};

pub const SEARCH_TOOLS: &str = "search_tools";
pub const DESCRIBE_TOOLS: &str = "describe_tools";
pub const CALL_TOOL: &str = "call_tool";
/// The facade's tool names, in list order.
pub const NAMES: [&str; 3] = [SEARCH_TOOLS, DESCRIBE_TOOLS, CALL_TOOL];

/// `search_tools`' default `limit`.
pub const DEFAULT_LIMIT: u64 = 10;
/// `search_tools`' largest `limit`.
pub const MAX_LIMIT: u64 = 50;
/// `describe_tools`' most names per request.
pub const MAX_DESCRIBE: u64 = 20;
/// The longest `search_tools` query, in characters (a request in a user's words is a
/// sentence or two; the bound keeps a hostile query's cost fixed).
pub const MAX_QUERY_CHARS: u64 = 2000;

/// What the facade's descriptions say about the catalog behind it.
#[derive(Debug, Clone, Default)]
pub struct About {
    /// The served descriptions' names (`info.name`).
    pub servers: Vec<String>,
    /// Every toolset of the served tools, sorted.
    pub toolsets: Vec<String>,
    /// Tools behind the facade.
    pub tools: usize,
}

/// Toolset names listed in `search_tools`' input schema at most (more are still
/// accepted; the description says how many there are). The same bound holds for
/// description names.
const MAX_LISTED_TOOLSETS: usize = 40;

/// Most descriptions a `search_tools` result ranks.
pub const MAX_RANKED_SERVERS: usize = 3;

/// The facade's three tool declarations, in the description's own terms (every field
/// any revision has; [`at_revision`] keeps what a revision defines).
pub fn declarations(about: &About) -> [Value; 3] {
    let servers = about.servers.join(", ");
    let mut toolsets = json!({"type": "array", "items": {"type": "string"},
        "description": "Only tools in any of these toolsets (API tags)."});
    if !about.toolsets.is_empty() && about.toolsets.len() <= MAX_LISTED_TOOLSETS {
        toolsets["items"]["enum"] = json!(about.toolsets);
    }
    let read_only_annotations = json!({"readOnlyHint": true, "destructiveHint": false,
        "idempotentHint": true, "openWorldHint": false});
    let several = about.servers.len() >= 2;
    let narrow = if several {
        " The result also ranks the servers the task is most about: narrow with servers."
    } else {
        ""
    };
    let mut search = json!({
        "name": SEARCH_TOOLS,
        "title": "Search tools",
        "description": format!(
            "Find tools of {servers} ({} tools) for a task, best match first. Describe what you want to do in your own words, or give a tool name.{narrow} Then call describe_tools for their input schemas and call_tool to run one.",
            about.tools
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS,
                    "description": "The task in your own words, or a tool name."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT,
                    "description": "How many tools to return."},
                "toolsets": toolsets,
                "readOnly": {"type": "boolean", "description": "true: only tools that change nothing; false: only tools that may."}
            },
            "required": ["query"],
            "additionalProperties": false
        },
        "outputSchema": {
            "type": "object",
            "properties": {"tools": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"}, "server": {"type": "string"}, "title": {"type": "string"},
                    "summary": {"type": "string"}, "method": {"type": "string"}, "path": {"type": "string"},
                    "toolset": {"type": "string"}, "score": {"type": "number"},
                    "requires": {"type": "array", "description": "Tools whose results give this tool's required identifiers: call one first when you lack them.",
                        "items": {"type": "object", "properties": {"name": {"type": "string"}, "gives": {"type": "array", "items": {"type": "string"}}}}}
                },
                "required": ["name", "server", "summary", "score"]
            }}},
            "required": ["tools"]
        },
        "annotations": read_only_annotations.clone()
    });
    if several {
        let mut names = json!({"type": "array", "items": {"type": "string"},
            "description": "Only tools of these servers (a result's server)."});
        if about.servers.len() <= MAX_LISTED_TOOLSETS {
            names["items"]["enum"] = json!(about.servers);
        }
        search["inputSchema"]["properties"]["servers"] = names;
        search["outputSchema"]["properties"]["servers"] = json!({"type": "array",
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "score": {"type": "number"}},
                "required": ["name", "score"]}});
    }
    let describe = json!({
        "name": DESCRIBE_TOOLS,
        "title": "Describe tools",
        "description": "The full definitions (input and output schemas, annotations) of tools found by search_tools, exactly as this server would list them.",
        "inputSchema": {
            "type": "object",
            "properties": {"names": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                "maxItems": MAX_DESCRIBE, "description": "Tool names from search_tools."}},
            "required": ["names"],
            "additionalProperties": false
        },
        "outputSchema": {
            "type": "object",
            "properties": {"tools": {"type": "array", "items": {"type": "object"}},
                "requires": {"type": "object", "description": "Per tool name, as in search_tools: the tools that give its required identifiers."}},
            "required": ["tools"]
        },
        "annotations": read_only_annotations
    });
    let call = json!({
        "name": CALL_TOOL,
        "title": "Call a tool",
        "description": "Run a tool found by search_tools with arguments that match its input schema (see describe_tools). Returns that tool's own result.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name."},
                "arguments": {"type": "object", "description": "The tool's arguments."}
            },
            "required": ["name", "arguments"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false,
            "openWorldHint": true}
    });
    [search, describe, call]
}

/// A declaration as a `tools/list` entry at `rev`: the fields `rev` does not define
/// (the revision table's field facts) removed.
pub fn at_revision(decl: &Value, rev: ProtocolRevision) -> Value {
    let mut out = Map::new();
    for (k, v) in decl.as_object().into_iter().flatten() {
        if field_available(ObjectKind::Tool, k, rev) {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// One `search_tools` result entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub name: String,
    pub server: String,
    pub title: Option<String>,
    pub summary: String,
    pub method: Option<String>,
    pub path: Option<String>,
    pub toolset: Option<String>,
    /// The producers of its required identifiers ([`crate::deps`]), best first.
    pub requires: Vec<crate::deps::Producer>,
    pub score: f32,
}

impl Found {
    /// The entry as JSON (fields in the documented order; absent optional fields left out).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        m.insert("server".into(), json!(self.server));
        if let Some(t) = &self.title {
            m.insert("title".into(), json!(t));
        }
        m.insert("summary".into(), json!(self.summary));
        if let Some(x) = &self.method {
            m.insert("method".into(), json!(x));
        }
        if let Some(x) = &self.path {
            m.insert("path".into(), json!(x));
        }
        if let Some(x) = &self.toolset {
            m.insert("toolset".into(), json!(x));
        }
        if !self.requires.is_empty() {
            let r: Vec<Value> = self
                .requires
                .iter()
                .map(|p| json!({"name": p.name, "gives": p.gives}))
                .collect();
            m.insert("requires".into(), Value::Array(r));
        }
        m.insert("score".into(), json!(rounded(self.score)));
        Value::Object(m)
    }
}

/// A score as results show it: rounded to 4 decimals, stable across platforms' float
/// formatting.
fn rounded(score: f32) -> f64 {
    (f64::from(score) * 10_000.0).round() / 10_000.0
}

/// A `search_tools` result's `servers`: the descriptions a request is about, from the
/// index's API ranking (label and prior, best first: `Index::api_ranking`), at most
/// [`MAX_RANKED_SERVERS`], those scored above 0, scores rounded like the hits'.
pub fn ranked_servers(ranking: &[(&str, f32)]) -> Value {
    Value::Array(
        ranking
            .iter()
            .filter(|(_, score)| *score > 0.0)
            .take(MAX_RANKED_SERVERS)
            .map(|(name, score)| json!({"name": name, "score": rounded(*score)}))
            .collect(),
    )
}

/// The first sentence of a description (at most 200 characters): up to the first `.`,
/// `!` or `?` followed by white space or the end, or the first line break.
pub fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let mut end = text.len();
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '\n' {
            end = i;
            break;
        }
        if matches!(c, '.' | '!' | '?') && it.peek().is_none_or(|(_, n)| n.is_whitespace()) {
            end = i + c.len_utf8();
            break;
        }
    }
    let s = text[..end].trim();
    if s.chars().count() > 200 {
        let cut: String = s.chars().take(199).collect();
        format!("{}…", cut.trim_end())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolRevision::*;

    #[test]
    fn found_entries_keep_the_documented_order_and_round_scores() {
        let full = Found {
            name: "pulls_list".into(),
            server: "GitHub".into(),
            title: Some("List pull requests".into()),
            summary: "Lists pull requests.".into(),
            method: Some("GET".into()),
            path: Some("/repos/{owner}/{repo}/pulls".into()),
            toolset: Some("pulls".into()),
            requires: vec![crate::deps::Producer {
                name: "repos_list_for_user".into(),
                gives: vec!["owner".into(), "repo".into()],
            }],
            score: 0.123_456,
        };
        assert_eq!(
            full.to_value().to_string(),
            r#"{"name":"pulls_list","server":"GitHub","title":"List pull requests","summary":"Lists pull requests.","method":"GET","path":"/repos/{owner}/{repo}/pulls","toolset":"pulls","requires":[{"name":"repos_list_for_user","gives":["owner","repo"]}],"score":0.1235}"#
        );
        let bare = Found {
            title: None,
            method: None,
            path: None,
            toolset: None,
            requires: Vec::new(),
            score: 2.0,
            ..full
        };
        assert_eq!(
            bare.to_value().to_string(),
            r#"{"name":"pulls_list","server":"GitHub","summary":"Lists pull requests.","score":2.0}"#
        );
    }

    #[test]
    fn first_sentences() {
        assert_eq!(first_sentence("Lists pets. Paginated."), "Lists pets.");
        assert_eq!(
            first_sentence("List all pets\n\nReturns every pet."),
            "List all pets"
        );
        assert_eq!(
            first_sentence("Version 1.2 of it. More"),
            "Version 1.2 of it."
        );
        assert_eq!(first_sentence("  "), "");
        assert_eq!(first_sentence(&"x".repeat(500)).chars().count(), 200);
    }

    /// By hand: two descriptions get the `servers` filter (their names as its enum), the
    /// result's `servers` in the output schema and the clause saying so; one gets none
    /// of it, so a single API's list does not grow; past the listing bound the names
    /// are not enumerated.
    #[test]
    fn several_descriptions_add_the_servers_filter_and_ranking() {
        let about = |servers: &[&str]| About {
            servers: servers.iter().map(|s| s.to_string()).collect(),
            toolsets: vec!["issues".into()],
            tools: 10,
        };
        let [two, ..] = declarations(&about(&["Notes", "Pets"]));
        assert_eq!(
            two["inputSchema"]["properties"]["servers"],
            json!({"type": "array", "items": {"type": "string", "enum": ["Notes", "Pets"]},
                "description": "Only tools of these servers (a result's server)."})
        );
        assert_eq!(
            two["outputSchema"]["properties"]["servers"]["items"]["required"],
            json!(["name", "score"])
        );
        assert_eq!(two["outputSchema"]["required"], json!(["tools"]));
        assert!(
            two["description"]
                .as_str()
                .is_some_and(|d| d.contains("narrow with servers"))
        );
        let [one, ..] = declarations(&about(&["Pets"]));
        assert!(one["inputSchema"]["properties"].get("servers").is_none());
        assert!(one["outputSchema"]["properties"].get("servers").is_none());
        assert!(
            one["description"]
                .as_str()
                .is_some_and(|d| !d.contains("servers"))
        );
        let many: Vec<String> = (0..=MAX_LISTED_TOOLSETS)
            .map(|i| format!("api{i}"))
            .collect();
        let names: Vec<&str> = many.iter().map(String::as_str).collect();
        let [lots, ..] = declarations(&about(&names));
        assert!(
            lots["inputSchema"]["properties"]["servers"]["items"]
                .get("enum")
                .is_none()
        );
    }

    /// By hand: at most three, only those above 0, rounded to 4 decimals, in the given
    /// (best-first) order.
    #[test]
    fn ranked_servers_are_the_best_three_above_zero() {
        let ranking = [
            ("Pets", 1.0),
            ("Notes", 0.208_256),
            ("Zoo", 0.1),
            ("Far", 0.05),
        ];
        assert_eq!(
            ranked_servers(&ranking),
            json!([{"name": "Pets", "score": 1.0}, {"name": "Notes", "score": 0.2083},
                {"name": "Zoo", "score": 0.1}])
        );
        assert_eq!(
            ranked_servers(&[("Pets", 0.5), ("Notes", 0.0)]),
            json!([{"name": "Pets", "score": 0.5}])
        );
        assert_eq!(ranked_servers(&[]), json!([]));
    }

    /// The facade's `tools/list` stays within 6,000 bytes (issue 31's budget) for a
    /// pooled catalogue of eleven APIs (the evaluation sets' APIs by name) with as many
    /// toolsets as the schema enumerates, at the newest revision.
    #[test]
    fn eleven_apis_list_within_the_budget() {
        let servers: Vec<String> = [
            "Spotify Web API",
            "GitHub v3 REST API",
            "Stripe API",
            "The Jira Cloud platform REST API",
            "Slack Web API",
            "Twilio - Api",
            "Calendar API",
            "Gmail API",
            "Trello",
            "Zoom API",
            "Mailchimp Marketing API",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let toolsets: Vec<String> = (0..MAX_LISTED_TOOLSETS)
            .map(|i| format!("toolset-name-{i:02}-of-twenty"))
            .collect();
        let about = About {
            servers,
            toolsets,
            tools: 3066,
        };
        let tools: Vec<Value> = declarations(&about)
            .iter()
            .map(|d| at_revision(d, V2026_07_28))
            .collect();
        let bytes = json!({"tools": tools}).to_string().len();
        assert!(bytes <= 6000, "{bytes} bytes");
    }

    #[test]
    fn declarations_follow_the_revision_table() {
        let about = About {
            servers: vec!["github".into()],
            toolsets: vec!["issues".into(), "repos".into()],
            tools: 1223,
        };
        let [search, ..] = declarations(&about);
        let old = at_revision(&search, V2024_11_05);
        assert!(old.get("title").is_none() && old.get("outputSchema").is_none());
        assert!(old.get("annotations").is_none());
        let new = at_revision(&search, V2025_06_18);
        assert!(new.get("title").is_some() && new.get("outputSchema").is_some());
        assert_eq!(
            new["inputSchema"]["properties"]["toolsets"]["items"]["enum"],
            json!(["issues", "repos"])
        );
    }
}
