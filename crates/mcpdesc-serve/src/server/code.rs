//! `--discovery code`: the served catalog behind two tools ([`mcpdesc_catalog::code`]).
//!
//! - `search_api` ranks the served tools with the search facade's index (the same search
//!   as `--discovery search`'s `search_tools`) and answers the TypeScript declarations of a
//!   page of them, rendered by [`mcpdesc_codegen::declarations`] from the IR that
//!   `generate typescript` lowers (lowered once per revision, on the first `search_api` at
//!   that revision), under the names the tools are served by.
//! - `execute` runs the script in a [`mcpdesc_sandbox`] worker process (from this mode's pool,
//!   started with [`super::CodeOptions::worker`]) with one `api.<name>` per tool the
//!   negotiated revision serves. Each `api` call is run by `Server::tool_result`, the code a direct `tools/call` runs: the same argument
//!   validation and messages (nothing is sent when they fail), backend, credentials,
//!   forwarded headers, output validation and log line (marked `via execute`). It resolves
//!   to the result's `structuredContent` (else its text, parsed as JSON when it is JSON)
//!   and throws on `isError`.
//!   The worker sends each call to this process as a message; the worker holds no
//!   credential and opens no socket (SECURITY.md).
//! - With `--auth-issuer`, `search_api` declares only the tools the caller's scopes
//!   permit, and the script's `api` holds only those: another tool's name is not
//!   disclosed (`api.x` is `undefined`, as for a tool that does not exist). Every `api`
//!   call is still checked as a direct `tools/call` is, with nothing sent upstream when
//!   the check fails.
//! - At most [`MAX_EXECUTIONS`] scripts run at once in the whole process (each may hold
//!   its heap limit resident); another `execute` waits for a turn up to its wall time,
//!   then is a tool error saying so. A script past its wall time is killed with its
//!   worker, so no script holds a turn (or a core) beyond its wall time plus 25 ms.

use super::args::{ArgsValidator, describe};
use super::auth::{Access, scope_list};
use super::catalog::{Catalog, View};
use super::facade::Facade;
use super::{CallJob, CodeOptions, Server, ToolJob};
use mcpdesc_catalog::code::{self, DEFAULT_LIMIT, EXECUTE, MAX_LIMIT};
use mcpdesc_catalog::facade::{About, at_revision};
use mcpdesc_codegen::declarations::{DeclOptions, DeclTool, declarations};
use mcpdesc_codegen::ir::Ir;
use mcpdesc_core::{Feature, ProtocolRevision};
use mcpdesc_rest::call::{complete, error_result, text_block};
pub use mcpdesc_sandbox::Limits;
use mcpdesc_sandbox::{BoxFuture, Host, Pool};
use mcpdesc_validate::Validated;
use serde_json::{Map, Value, json};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Scripts running at once in the process, at most (every `Server` shares one count).
pub const MAX_EXECUTIONS: usize = 4;

static EXECUTIONS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_EXECUTIONS);

/// What code mode knows at start.
#[derive(Debug)]
pub struct CodeMode {
    /// The search facade's index over the served tools (its search, nothing else).
    index: Facade,
    decls: [Value; 2],
    validators: [ArgsValidator; 2],
    /// The validator's handle of the description (the server's).
    source: Arc<Validated<'static>>,
    /// Per served revision (oldest first), the IR its declarations come from.
    irs: Vec<(ProtocolRevision, OnceLock<Result<Ir, String>>)>,
    limits: Limits,
    /// The worker processes scripts run in (idle ones started ahead on first use).
    pool: Pool,
}

/// What a code-mode `tools/call` turned into.
pub(crate) enum CodeCall {
    /// Answered here (`search_api`, or an argument error).
    Answered(Value, String),
    /// `execute` this script.
    Execute(String),
    /// Not one of the two tools.
    NotCode,
}

/// The limits as the `execute` description states them.
fn limits_sentence(l: &Limits) -> String {
    format!(
        "Limits per script: {} s wall time, {} MiB memory, {} api calls ({} at once), {} KiB of result and of logs.",
        l.wall.as_secs_f64(),
        l.memory_bytes / (1024 * 1024),
        l.max_calls,
        l.max_concurrent_calls,
        l.max_output_bytes / 1024
    )
}

impl CodeMode {
    /// Code mode over `catalog`; `index` is a pinless search facade over it.
    pub(crate) fn build(
        catalog: &Catalog,
        source: Arc<Validated<'static>>,
        index: Facade,
        opts: &CodeOptions,
    ) -> Result<CodeMode, super::BuildError> {
        let about = About {
            servers: vec![
                catalog
                    .server_info
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ],
            toolsets: Vec::new(),
            tools: index.tool_count(),
        };
        let decls = code::declarations(&about, &limits_sentence(&opts.limits));
        let compile =
            |d: &Value| ArgsValidator::compile(&d["inputSchema"]).map_err(super::BuildError::Code);
        let validators = [compile(&decls[0])?, compile(&decls[1])?];
        Ok(CodeMode {
            index,
            decls,
            validators,
            source,
            irs: catalog
                .revisions
                .iter()
                .map(|r| (r, OnceLock::new()))
                .collect(),
            limits: opts.limits.clone(),
            pool: Pool::new(opts.worker.clone(), MAX_EXECUTIONS),
        })
    }

    /// The `tools/list` result at `view`'s revision: the two tools.
    pub fn tools_list(&self, view: &View) -> Map<String, Value> {
        let tools: Vec<Value> = self
            .decls
            .iter()
            .map(|d| at_revision(d, view.revision))
            .collect();
        let mut m = Map::new();
        m.insert("tools".into(), Value::Array(tools));
        m
    }

    /// A code-mode `tools/call` of `name` at `view`; `search_api` declares only the tools
    /// `allowed` names (with `--auth-issuer`: those the caller's scopes permit).
    pub(crate) fn call(
        &self,
        view: &View,
        name: &str,
        arguments: &Map<String, Value>,
        allowed: &dyn Fn(&str) -> bool,
    ) -> CodeCall {
        let Some(k) = code::NAMES.iter().position(|n| *n == name) else {
            return CodeCall::NotCode;
        };
        let rev = view.revision;
        let violations = self.validators[k].check(arguments);
        if !violations.is_empty() {
            let msg = describe(name, &violations);
            return CodeCall::Answered(error_result(rev, &msg), format!("error: {msg}"));
        }
        if name == EXECUTE {
            let script = arguments.get("code").and_then(Value::as_str).unwrap_or("");
            return CodeCall::Execute(script.to_string());
        }
        match self.search(view, arguments, allowed) {
            Ok((result, log)) => CodeCall::Answered(result, log),
            Err(msg) => CodeCall::Answered(error_result(rev, &msg), format!("error: {msg}")),
        }
    }

    /// The IR of `rev`'s view (lowered on first use).
    fn ir(&self, rev: ProtocolRevision) -> Result<&Ir, String> {
        let Some((_, cell)) = self.irs.iter().find(|(r, _)| *r == rev) else {
            return Err(format!("no declarations for MCP {rev}"));
        };
        cell.get_or_init(|| {
            let views = mcpdesc_codegen::lower::Views::project(&self.source, Some(rev))
                .map_err(|_| format!("the description has no view for MCP {rev}"))?;
            Ok(mcpdesc_codegen::lower::lower(&views).ir)
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    fn search(
        &self,
        view: &View,
        arguments: &Map<String, Value>,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Result<(Value, String), String> {
        let rev = view.revision;
        let query = arguments.get("query").and_then(Value::as_str).unwrap_or("");
        let limit = arguments
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(DEFAULT_LIMIT)
            .min(MAX_LIMIT) as usize;
        let offset = arguments
            .get("offset")
            .and_then(Value::as_u64)
            .map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX));
        // Positions in the view of the matching tools the caller may call, best first;
        // every such tool in list order for an empty query.
        let matching: Vec<usize> = if query.trim().is_empty() {
            (0..view.tools().len()).collect()
        } else {
            self.index
                .ranked(view, query)
                .into_iter()
                .filter_map(|n| view.position(n))
                .collect()
        };
        let matching: Vec<usize> = matching
            .into_iter()
            .filter(|&i| allowed(view.served_name(i)))
            .collect();
        let total = matching.len();
        let page: Vec<usize> = matching.into_iter().skip(offset).take(limit).collect();
        let next = offset.saturating_add(page.len());
        let chosen: Vec<DeclTool<'_>> = page
            .iter()
            .map(|&i| DeclTool {
                wire_name: &view.tools()[i].name,
                served_name: view.served_name(i),
            })
            .collect();
        let ir = self.ir(rev)?;
        let text = declarations(ir, &chosen, &DeclOptions::default())
            .map_err(|e| format!("search_api: {e}"))?;
        let names: Vec<&str> = chosen.iter().map(|t| t.served_name).collect();
        let mut value = json!({"declarations": text, "tools": names, "total": total});
        let mut shown = text.clone();
        if next < total {
            value["nextOffset"] = json!(next);
            shown.push_str(&format!(
                "\n// {} more: search_api with offset {next}\n",
                total - next
            ));
        }
        let mut m = Map::new();
        m.insert("content".into(), json!([text_block(shown)]));
        if rev.has(Feature::StructuredContent) {
            m.insert("structuredContent".into(), value);
        }
        let n = names.len();
        Ok((complete(rev, m), format!("{n} of {total} tools declared")))
    }
}

/// Runs `execute` for `job` at its revision; the tool result.
pub(crate) async fn execute(
    server: &Arc<Server>,
    job: &CallJob,
    script: &str,
) -> Map<String, Value> {
    let started = Instant::now();
    let rev = job.revision;
    let as_map = |v: Value| match v {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let (Some(code), Some(view)) = (server.code.as_ref(), server.catalog.view(rev)) else {
        return as_map(error_result(rev, "execute: code mode is not enabled"));
    };
    // Wait for a turn at most one wall time (the client asked for a script that long).
    let waited = Instant::now();
    let turn = tokio::time::timeout(code.limits.wall, EXECUTIONS.acquire()).await;
    let left = code.limits.wall.saturating_sub(waited.elapsed());
    let slot = match turn {
        Ok(Ok(permit)) => code.pool.turn(left).await.map(|t| (permit, t)),
        _ => None,
    };
    let Some((_permit, slot)) = slot else {
        let msg = format!(
            "execute: {MAX_EXECUTIONS} scripts were running on this server for the whole {} s wall time; try again later",
            code.limits.wall.as_secs_f64()
        );
        server
            .log()
            .line(&format!("tools/call {EXECUTE} [{rev}] -> error: {msg}"));
        return as_map(error_result(rev, &msg));
    };
    // The script's `api` holds the tools the caller may call and no others, as its
    // `tools/list` and `search_api` do: a forbidden tool's name is not disclosed, and
    // calling it fails as calling a tool that does not exist does.
    let names: Vec<String> = (0..view.tools().len())
        .map(|i| view.served_name(i))
        .filter(|n| match (&job.access, view.tool(n)) {
            (Some(a), Some(t)) => a.permits(server, t).is_ok(),
            _ => true,
        })
        .map(str::to_string)
        .collect();
    let host = Arc::new(CodeHost {
        server: Arc::clone(server),
        revision: rev,
        forwarded_headers: job.forwarded_headers.clone(),
        access: job.access.clone(),
    });
    let outcome = slot.execute(script, &names, host, &code.limits).await;
    let content = outcome.structured_content();
    let mut text = String::new();
    if let Some(e) = &outcome.error {
        text.push_str(&format!("execute failed: {e}\n"));
    }
    text.push_str(&serde_json::to_string(&content).unwrap_or_default());
    let mut m = Map::new();
    m.insert("content".into(), json!([text_block(text)]));
    if rev.has(Feature::StructuredContent) {
        m.insert("structuredContent".into(), content);
    }
    if outcome.is_error() {
        m.insert("isError".into(), json!(true));
    }
    let mut result = as_map(complete(rev, m));
    server.stamp(rev, &mut result);
    let how = match &outcome.error {
        Some(e) => format!("error: {e}"),
        None => "ok".to_string(),
    };
    server.log().line(&format!(
        "tools/call {EXECUTE} [{rev}] -> {how}; {} api calls; {:.1} ms total",
        outcome.calls.len(),
        started.elapsed().as_secs_f64() * 1000.0
    ));
    result
}

/// What `api.<name>(args)` does: a direct call of the served tool `name`.
struct CodeHost {
    server: Arc<Server>,
    revision: ProtocolRevision,
    forwarded_headers: Vec<(String, String)>,
    /// With `--auth-issuer`: each call needs the caller's scopes for its tool.
    access: Option<Access>,
}

impl Host for CodeHost {
    fn call(&self, tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        let tool = tool.to_string();
        Box::pin(async move {
            let view = self
                .server
                .catalog
                .view(self.revision)
                .ok_or_else(|| format!("no view for MCP {}", self.revision))?;
            let entry = view
                .tool(&tool)
                .ok_or_else(|| format!("Unknown tool: {tool}"))?;
            // The check a direct `tools/call` gets (403 there): nothing is sent upstream.
            if let Some(access) = &self.access
                && let Err(need) = access.permits(&self.server, entry)
            {
                let need = scope_list(&need);
                self.server.log().line(&format!(
                    "auth: {} lacks scope for api.{tool} via {EXECUTE}: needs {need}",
                    access.key()
                ));
                return Err(format!(
                    "api.{tool}: insufficient_scope: the caller's access token lacks the scope(s) {need} this tool needs"
                ));
            }
            let arguments = match args {
                Value::Object(m) => m,
                Value::Null => Map::new(),
                _ => return Err(format!("api.{tool}: the argument must be an object")),
            };
            let result = self
                .server
                .tool_result(ToolJob {
                    revision: self.revision,
                    tool: entry,
                    arguments: &arguments,
                    meta: None,
                    forwarded_headers: &self.forwarded_headers,
                    via: Some(EXECUTE),
                    caller: self.access.as_ref().map(Access::key),
                    access: self.access.as_ref(),
                })
                .await;
            settle(result)
        })
    }
}

/// A tool result as the script sees it: its `structuredContent`, else its text (parsed
/// as JSON when it is JSON), else its content blocks; `Err` with its text on `isError`.
pub fn settle(result: Map<String, Value>) -> Result<Value, String> {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let msg = texts.join("\n");
        return Err(if msg.is_empty() {
            "the tool reported an error".to_string()
        } else {
            msg
        });
    }
    if let Some(s) = result.get("structuredContent") {
        return Ok(s.clone());
    }
    let blocks = result.get("content").and_then(Value::as_array);
    match (texts.as_slice(), blocks.map_or(0, Vec::len)) {
        ([one], 1) => Ok(serde_json::from_str(one).unwrap_or_else(|_| json!(one))),
        _ => Ok(blocks.cloned().map_or(Value::Null, Value::Array)),
    }
}

#[cfg(test)]
mod survivor_tests {
    use super::*;

    fn result(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn settle_gives_the_script_structured_content_else_its_one_text_else_the_blocks() {
        // What the script sees, as the function's contract says, on MCP tool results
        // (content blocks of type text/image, structuredContent, isError).
        let text = |t: &str| json!({"type": "text", "text": t});
        assert_eq!(
            settle(result(json!({"content": [text("{\"a\": 1}")]}))),
            Ok(json!({"a": 1}))
        );
        assert_eq!(
            settle(result(json!({"content": [text("plain words")]}))),
            Ok(json!("plain words"))
        );
        assert_eq!(
            settle(result(
                json!({"content": [text("ignored")], "structuredContent": {"n": 2}})
            )),
            Ok(json!({"n": 2}))
        );
        // An image block beside the text: the blocks as they are.
        let image = json!({"type": "image", "data": "AA==", "mimeType": "image/png", "text": "x"});
        assert_eq!(
            settle(result(json!({"content": [text("t"), image.clone()]}))),
            Ok(json!([text("t"), image.clone()]))
        );
        // A lone non-text block whose `text` member is not a text block's text.
        assert_eq!(
            settle(result(json!({"content": [image.clone()]}))),
            Ok(json!([image]))
        );
        assert_eq!(
            settle(result(
                json!({"content": [text("no such user"), text("try another")], "isError": true})
            )),
            Err("no such user\ntry another".to_string())
        );
        assert_eq!(
            settle(result(json!({"content": [], "isError": true}))),
            Err("the tool reported an error".to_string())
        );
        assert_eq!(settle(result(json!({}))), Ok(Value::Null));
    }
}
