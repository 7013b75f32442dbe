//! Code mode (`--discovery code`): a fixed `tools/list` of two tools that stand for a
//! catalog of any size, used by writing a script.
//!
//! - [`SEARCH_API`] `{query, limit?, offset?}` → the TypeScript declarations of the best
//!   matching tools (`declare const api: { name(args: Input): Promise<Output>; … }`, shared
//!   types once) as text, and `{"declarations", "tools", "total", "nextOffset"?}` as
//!   structured content. `query: ""` lists every tool in catalog order; `offset` pages
//!   (through the ranking, or through everything).
//! - [`EXECUTE`] `{code}` → runs `code` (the body of an async function with `api` in scope)
//!   in the sandbox; `{"result", "logs", "calls": [{"tool", "isError", "ms"}]}`, plus
//!   `"error": {"kind", "message", "line", "column"}` with `isError: true` when it failed.
//!
//! Like the search facade's, the list is the same on every connection and after every
//! request. This module holds the declarations; the server does the dispatch.

use serde_json::{Value, json};

pub const SEARCH_API: &str = "search_api";
pub const EXECUTE: &str = "execute";
/// Code mode's tool names, in list order.
pub const NAMES: [&str; 2] = [SEARCH_API, EXECUTE];

/// `search_api`'s default `limit`.
pub const DEFAULT_LIMIT: u64 = 10;
/// `search_api`'s largest `limit`.
pub const MAX_LIMIT: u64 = 50;
/// The longest `execute` script, in characters.
pub const MAX_CODE_CHARS: u64 = 100_000;

/// The two tool declarations, in the description's own terms (every field any revision
/// has; [`crate::facade::at_revision`] keeps what a revision defines). `about` says what
/// is behind them; `limits` is a sentence on the execution limits.
pub fn declarations(about: &crate::facade::About, limits: &str) -> [Value; 2] {
    let servers = about.servers.join(", ");
    let search = json!({
        "name": SEARCH_API,
        "title": "Search the API",
        "description": format!(
            "Find operations of {servers} ({} tools) for a task and get their TypeScript declarations: `declare const api: {{ name(args: Input): Promise<Output> }}`, best match first. Describe what you want to do in your own words, or give a tool name; an empty query lists every tool (page with offset). Then write a script for execute that calls them.",
            about.tools
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "maxLength": crate::facade::MAX_QUERY_CHARS,
                    "description": "The task in your own words, or a tool name; \"\" lists every tool."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT,
                    "description": "How many tools to declare."},
                "offset": {"type": "integer", "minimum": 0, "default": 0,
                    "description": "Skip this many results (the previous answer's nextOffset)."}
            },
            "required": ["query"],
            "additionalProperties": false
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "declarations": {"type": "string", "description": "TypeScript declarations of the tools."},
                "tools": {"type": "array", "items": {"type": "string"}, "description": "The tools declared, best first."},
                "total": {"type": "integer", "description": "How many tools match in all."},
                "nextOffset": {"type": "integer", "description": "The offset of the next page, when there is one."}
            },
            "required": ["declarations", "tools", "total"]
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true,
            "openWorldHint": false}
    });
    let execute = json!({
        "name": EXECUTE,
        "title": "Run a script against the API",
        "description": format!(
            "Run JavaScript against the API declared by search_api. `code` is the body of an async function with `api` in scope: `const p = await api.some_tool({{...}}); return p.items.length;`. Each api call is validated and sent like a direct tool call; it resolves to the tool's structured result and throws on a tool error. Returns the script's return value (as JSON), its console output and the calls made. Only ECMAScript and `api` are available (no network, files or modules). {limits}"
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "minLength": 1, "maxLength": MAX_CODE_CHARS,
                    "description": "The body of an async function; `return` its result."}
            },
            "required": ["code"],
            "additionalProperties": false
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "result": {"description": "The returned value, as JSON."},
                "logs": {"type": "array", "items": {"type": "string"}},
                "calls": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"tool": {"type": "string"}, "isError": {"type": "boolean"}, "ms": {"type": "number"}},
                    "required": ["tool", "isError", "ms"]
                }},
                "error": {"type": "object", "properties": {
                    "kind": {"type": "string"}, "message": {"type": "string"},
                    "line": {"type": ["integer", "null"]}, "column": {"type": ["integer", "null"]}
                }}
            },
            "required": ["result", "logs", "calls"]
        },
        "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false,
            "openWorldHint": true}
    });
    [search, execute]
}
