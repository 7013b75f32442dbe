//! The mock backend (`mcpdesc serve --mock`): Tool Results from the tool's named
//! examples (§9.3), for any description, including captured ones without provenance.
//!
//! Which example answers a `tools/call` (the documented, deterministic policy §9.3
//! asks for):
//! 1. An explicit name: the request's `params._meta["x-mcpdesc/mockExample"]`
//!    ([`SELECT_META_KEY`]), else `--mock-example TOOL=NAME` for the tool. A name the
//!    tool's declaration at the negotiated revision does not have is a tool error
//!    listing the names it has.
//! 2. Else the example whose `input` equals the arguments (JSON equality: member order
//!    is irrelevant, `1` equals `1.0`); of several, the first by name.
//! 3. Else the first example by name whose result is a success (`isError` absent or
//!    false), or the first by name when every example is an error.
//!
//! "By name" is byte order of the example names (they are ASCII, §9.3). A tool without
//! examples is a tool error saying so. The result is the example's result for the
//! negotiated revision (the Effective Protocol View keeps that variant's map, and the
//! validator has checked it against that revision's result shape), with a text block
//! put first that marks it as illustrative and says how it was chosen: it is never
//! presented as live behaviour (§9.3). Nothing is sent anywhere.
//!
//! `resources/read` and `prompts/get` (§10.4, §11.3) are answered from the declaration's
//! named examples too, exactly as recorded (§10.4.5: no default, no wildcard, no
//! template fallback beyond what an example records):
//! - a Resource: the example named by the request's [`SELECT_META_KEY`], else the first
//!   by name (each of its examples reads its one `uri`);
//! - a Resource Template: the example whose `uri` is the requested URI (of several, the
//!   named one, else the first by name); none is an error naming the URIs it has;
//! - a Prompt: the named example, else the one whose `arguments` equal the request's
//!   (omitted and `{}` alike); none is an error listing the examples' arguments (§11.3:
//!   an unnamed selection is never presented as a prediction).
//!
//! Where the revision has result `_meta` ([`Feature::Meta`](mcpdesc_core::Feature::Meta)),
//! the result's `_meta[SELECT_META_KEY]` names the example that answered, which marks
//! the result as an illustrative example rather than live content.
//!
//! [`SELECT_META_KEY`] is a conforming `_meta` key (§3.5: prefix `x-mcpdesc`, one valid
//! label, not under an MCP-reserved prefix).

use crate::backend::{Backend, DeclRead, ReadAnswer};
use mcpdesc_core::same_json::json_eq;
use mcpdesc_core::{DeclKind, Feature, refs};
use mcpdesc_rest::BoxFuture;
use mcpdesc_rest::call::{CallLog, CallOutcome, ToolCall, text_block};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The request `_meta` key that selects an example by name.
pub const SELECT_META_KEY: &str = "x-mcpdesc/mockExample";

/// `--mock` settings.
#[derive(Debug, Clone, Default)]
pub struct MockOptions {
    /// `--mock-example TOOL=NAME`: the example a tool answers with unless the request
    /// names one.
    pub selections: BTreeMap<String, String>,
}

/// Answers `tools/call` from named examples.
#[derive(Debug)]
pub struct MockBackend {
    /// `{"components": {"toolExamples": …}}` of the description, for `$componentRef`s.
    components: Value,
    selections: BTreeMap<String, String>,
}

/// Why a [`MockOptions::selections`] entry cannot be used. The texts name the entry as
/// `TOOL=NAME`; the CLI says which flag it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MockError {
    /// The description has no tool of that name.
    #[error("{tool}={example}: the description has no tool `{tool}`")]
    UnknownTool { tool: String, example: String },
    /// No declaration of the tool has that example. `names`: the examples its
    /// declarations have (sorted); `pointer`: its first declaration.
    #[error("{tool}={example}: tool `{tool}` has no example `{example}` ({})", if .names.is_empty() { "it has no examples".to_string() } else { format!("it has {}", .names.join(", ")) })]
    UnknownExample {
        tool: String,
        example: String,
        names: Vec<String>,
        pointer: String,
    },
}

impl MockError {
    /// The diagnostic code a caller reports it under.
    pub fn code(&self) -> &'static str {
        match self {
            MockError::UnknownTool { .. } => "mock-example-unknown-tool",
            MockError::UnknownExample { .. } => "mock-example-unknown",
        }
    }

    /// Where in the description, when anywhere.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            MockError::UnknownTool { .. } => None,
            MockError::UnknownExample { pointer, .. } => Some(pointer),
        }
    }
}

/// How an example was chosen (for the marker text and the log line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Named by the request's `_meta`.
    RequestMeta,
    /// Named by `--mock-example`.
    Flag,
    /// Its `input` equals the arguments.
    MatchedInput,
    /// The default policy (no name, no matching input).
    Default,
}

impl MockBackend {
    /// Checks every `--mock-example TOOL=NAME`: TOOL must be a tool of the description
    /// and NAME an example of at least one of its declarations.
    pub fn new(doc: &Value, opts: MockOptions) -> Result<MockBackend, Vec<MockError>> {
        let mut namespaces = Map::new();
        for ns in [
            "toolExamples",
            "resourceExamples",
            "resourceTemplateExamples",
            "promptExamples",
        ] {
            if let Some(v) = doc.pointer(&format!("/components/{ns}")) {
                namespaces.insert(ns.into(), v.clone());
            }
        }
        let components = json!({ "components": namespaces });
        let mut errs = Vec::new();
        let tools: Vec<(usize, &Value)> = doc
            .get(DeclKind::Tool.collection())
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .collect();
        for (tool, example) in &opts.selections {
            let decls: Vec<&(usize, &Value)> = tools
                .iter()
                .filter(|(_, t)| t.get("name").and_then(Value::as_str) == Some(tool))
                .collect();
            if decls.is_empty() {
                errs.push(MockError::UnknownTool {
                    tool: tool.clone(),
                    example: example.clone(),
                });
                continue;
            }
            let has = decls.iter().any(|(_, t)| {
                t.get("examples")
                    .and_then(Value::as_object)
                    .is_some_and(|m| m.contains_key(example))
            });
            if !has {
                let mut names: Vec<&str> = decls
                    .iter()
                    .filter_map(|(_, t)| t.get("examples").and_then(Value::as_object))
                    .flat_map(|m| m.keys().map(String::as_str))
                    .collect();
                names.sort_unstable();
                names.dedup();
                let (i, _) = decls[0];
                errs.push(MockError::UnknownExample {
                    tool: tool.clone(),
                    example: example.clone(),
                    names: names.into_iter().map(String::from).collect(),
                    pointer: format!("/tools/{i}"),
                });
            }
        }
        if !errs.is_empty() {
            return Err(errs);
        }
        Ok(MockBackend {
            components,
            selections: opts.selections,
        })
    }

    /// One `tools/call`: the example named by the request's [`SELECT_META_KEY`], if
    /// any, else by the policy. The log notes which example answered and how it was
    /// chosen.
    pub fn answer(&self, call: ToolCall<'_>) -> CallOutcome {
        let requested = call.meta.and_then(|m| m.get(SELECT_META_KEY));
        let (mut outcome, chosen) = self.choose(call, requested);
        if let Some((name, how)) = chosen {
            let how = match how {
                Selection::RequestMeta => "named by the request",
                Selection::Flag => "named by the server's configuration",
                Selection::MatchedInput => "input matched",
                Selection::Default => "default policy",
            };
            outcome
                .log
                .notes
                .push(format!("mock example `{name}` ({how})"));
        }
        outcome
    }

    /// [`MockBackend::answer`] with the request's [`SELECT_META_KEY`] value given:
    /// returns the outcome and, when an example answered, its name and how it was
    /// chosen.
    fn choose(
        &self,
        call: ToolCall<'_>,
        requested: Option<&Value>,
    ) -> (CallOutcome, Option<(String, Selection)>) {
        let tool = call.tool_name().to_string();
        let examples = self.examples(call.tool);
        if examples.is_empty() {
            return (
                CallOutcome::tool_error(
                    call.revision,
                    format!(
                        "Tool `{tool}` has no named examples in the MCP Description, and the mock answers only from examples (§9.3). Add `examples` to the tool, or serve it from its API instead of as a mock."
                    ),
                ),
                None,
            );
        }
        let explicit = match requested {
            Some(Value::String(s)) => Some((s.as_str(), Selection::RequestMeta)),
            Some(other) => {
                return (
                    CallOutcome::tool_error(
                        call.revision,
                        format!(
                            "`_meta[\"{SELECT_META_KEY}\"]` must be an example name (a string), not {other}"
                        ),
                    ),
                    None,
                );
            }
            None => self
                .selections
                .get(&tool)
                .map(|s| (s.as_str(), Selection::Flag)),
        };
        let chosen = match explicit {
            Some((name, how)) => match examples.iter().find(|(n, _)| n == name) {
                Some((n, ex)) => (n.clone(), *ex, how),
                None => {
                    let names: Vec<&str> = examples.iter().map(|(n, _)| n.as_str()).collect();
                    return (
                        CallOutcome::tool_error(
                            call.revision,
                            format!(
                                "Tool `{tool}` has no example named `{name}` at this protocol revision; its examples are: {}",
                                names.join(", ")
                            ),
                        ),
                        None,
                    );
                }
            },
            None => {
                let args = Value::Object(call.arguments.clone());
                let matched = examples
                    .iter()
                    .find(|(_, ex)| ex.get("input").is_some_and(|i| json_eq(i, &args)));
                match matched {
                    Some((n, ex)) => (n.clone(), *ex, Selection::MatchedInput),
                    None => {
                        let success = examples.iter().find(|(_, ex)| {
                            ex.pointer("/result/isError").and_then(Value::as_bool) != Some(true)
                        });
                        let (n, ex) = success.unwrap_or(&examples[0]);
                        (n.clone(), *ex, Selection::Default)
                    }
                }
            }
        };
        let (name, example, how) = chosen;
        let result = illustrative(&tool, &name, how, example.get("result"));
        let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        (
            CallOutcome {
                result,
                log: CallLog {
                    is_error,
                    ..CallLog::default()
                },
            },
            Some((name, how)),
        )
    }

    /// One `resources/read` or `prompts/get` (the policy in the module docs).
    pub fn answer_read(&self, read: DeclRead<'_>) -> ReadAnswer {
        let (what, ns) = match read.kind {
            DeclKind::Resource => ("Resource", "resourceExamples"),
            DeclKind::ResourceTemplate => ("Resource template", "resourceTemplateExamples"),
            _ => ("Prompt", "promptExamples"),
        };
        let label = read
            .decl
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let examples = self.examples_in(read.decl, ns);
        if examples.is_empty() {
            return ReadAnswer::Invalid(format!(
                "{what} `{label}` has no named examples in the MCP Description, and this mock server answers only from examples"
            ));
        }
        let requested = match read.meta.and_then(|m| m.get(SELECT_META_KEY)) {
            None => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                return ReadAnswer::Invalid(format!(
                    "`_meta[\"{SELECT_META_KEY}\"]` must be an example name (a string), not {other}"
                ));
            }
        };
        // The candidates: for a template, the examples recording this URI.
        let candidates: Vec<&(String, &Value)> = match read.kind {
            DeclKind::ResourceTemplate => examples
                .iter()
                .filter(|(_, ex)| ex.get("uri").and_then(Value::as_str) == Some(read.target))
                .collect(),
            _ => examples.iter().collect(),
        };
        let chosen = match requested {
            Some(name) => match candidates.iter().find(|(n, _)| n == name) {
                Some(c) => Some((*c, "named by the request")),
                None => {
                    let names: Vec<&str> = candidates.iter().map(|(n, _)| n.as_str()).collect();
                    return ReadAnswer::Invalid(format!(
                        "{what} `{label}` has no example named `{name}` for this request at this protocol revision; its examples here are: {}",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ));
                }
            },
            None => match read.kind {
                DeclKind::Resource => candidates.first().map(|c| (*c, "first by name")),
                DeclKind::ResourceTemplate => candidates.first().map(|c| (*c, "its uri matched")),
                _ => {
                    let args = Value::Object(read.arguments.clone());
                    candidates
                        .iter()
                        .find(|(_, ex)| json_eq(ex.get("arguments").unwrap_or(&json!({})), &args))
                        .map(|c| (*c, "arguments matched"))
                }
            },
        };
        let Some(((name, example), how)) = chosen else {
            return ReadAnswer::Invalid(match read.kind {
                DeclKind::ResourceTemplate => {
                    let uris: Vec<&str> = examples
                        .iter()
                        .filter_map(|(_, ex)| ex.get("uri").and_then(Value::as_str))
                        .collect();
                    format!(
                        "Resource template `{label}` has no example for `{}`, and this mock server answers only a URI an example records; its examples read: {}",
                        read.target,
                        uris.join(", ")
                    )
                }
                _ => {
                    let shown: Vec<String> = examples
                        .iter()
                        .map(|(n, ex)| {
                            format!("{n} {}", ex.get("arguments").cloned().unwrap_or(json!({})))
                        })
                        .collect();
                    format!(
                        "Prompt `{label}` has no example with these arguments, and this mock server answers only from examples (name one with `_meta[\"{SELECT_META_KEY}\"]`); its examples: {}",
                        shown.join("; ")
                    )
                }
            });
        };
        let mut result = example
            .get("result")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if read.revision.has(Feature::Meta)
            && let Value::Object(meta) = result.entry("_meta").or_insert_with(|| json!({}))
        {
            meta.insert(SELECT_META_KEY.into(), json!(name));
        }
        ReadAnswer::Result(result, format!("mock example `{name}` ({how})"))
    }

    /// The declaration's examples, resolved, sorted by name.
    fn examples<'a>(&'a self, tool: &'a Value) -> Vec<(String, &'a Value)> {
        self.examples_in(tool, "toolExamples")
    }

    /// The declaration's examples (Reference Objects resolved in namespace `ns`),
    /// sorted by name.
    fn examples_in<'a>(&'a self, decl: &'a Value, ns: &str) -> Vec<(String, &'a Value)> {
        let mut out: Vec<(String, &Value)> = decl
            .get("examples")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(name, v)| {
                refs::resolve(&self.components, v, ns)
                    .ok()
                    .map(|(ex, _)| (name.clone(), ex))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

/// The example's result with the illustrative marker as its first content block.
fn illustrative(tool: &str, name: &str, how: Selection, result: Option<&Value>) -> Value {
    let why = match how {
        Selection::RequestMeta => format!("selected by the request's `_meta[\"{SELECT_META_KEY}\"]`"),
        Selection::Flag => "selected by the server's configuration".to_string(),
        Selection::MatchedInput => "whose `input` equals these arguments".to_string(),
        Selection::Default => "chosen by the mock's default policy because these arguments equal no example's `input` (the first example by name with a successful result)".to_string(),
    };
    let marker = format!(
        "[mcpdesc mock] Illustrative result: named example `{name}` of tool `{tool}` from the MCP Description, {why}. Not a live call; it does not predict what the real server returns."
    );
    let mut out: Map<String, Value> = result
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    match out.get_mut("content") {
        Some(Value::Array(items)) => items.insert(0, text_block(marker)),
        // A validated example always has `content` (§9.3).
        _ => {
            out.insert("content".into(), json!([text_block(marker)]));
        }
    }
    Value::Object(out)
}

impl Backend for MockBackend {
    fn call<'a>(&'a self, call: ToolCall<'a>) -> BoxFuture<'a, CallOutcome> {
        Box::pin(std::future::ready(self.answer(call)))
    }

    fn read(&self, read: DeclRead<'_>) -> ReadAnswer {
        self.answer_read(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::ProtocolRevision;

    #[test]
    fn the_select_key_is_a_conforming_unreserved_meta_key() {
        assert!(mcpdesc_core::meta::is_meta_key(SELECT_META_KEY));
        assert!(!mcpdesc_core::meta::has_reserved_prefix(SELECT_META_KEY));
    }

    fn backend(doc: &Value, sel: &[(&str, &str)]) -> Result<MockBackend, Vec<MockError>> {
        MockBackend::new(
            doc,
            MockOptions {
                selections: sel
                    .iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect(),
            },
        )
    }

    #[test]
    fn unknown_flag_selections_are_refused_at_start() {
        let doc = json!({"tools": [{"name": "t", "inputSchema": {"type": "object"},
            "examples": {"b": {"input": {}, "result": {"content": []}}}}]});
        assert!(backend(&doc, &[("t", "b")]).is_ok());
        let e = backend(&doc, &[("t", "zz")]).expect_err("no such example");
        assert_eq!(e[0].code(), "mock-example-unknown");
        assert_eq!(e[0].pointer(), Some("/tools/0"));
        assert_eq!(
            e[0].to_string(),
            "t=zz: tool `t` has no example `zz` (it has b)"
        );
        let e = backend(&doc, &[("u", "b")]).expect_err("no such tool");
        assert_eq!(e[0].code(), "mock-example-unknown-tool");
    }

    #[test]
    fn policy_order() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "examples": {
            "z-ok": {"input": {"q": 1}, "result": {"content": [{"type": "text", "text": "z"}]}},
            "a-err": {"input": {"q": 2}, "result": {"content": [{"type": "text", "text": "a"}], "isError": true}},
            "m-ok": {"$componentRef": "#/components/toolExamples/M"}
        }});
        let doc = json!({"components": {"toolExamples": {"M": {"input": {"q": 3},
            "result": {"content": [{"type": "text", "text": "m"}]}}}}, "tools": [tool.clone()]});
        let b = backend(&doc, &[]).expect("ok");
        let rev = ProtocolRevision::V2025_06_18;
        let call = |args: Value, req: Option<Value>| {
            let a = args.as_object().cloned().unwrap_or_default();
            let (o, how) = b.choose(
                ToolCall {
                    tool: &tool,
                    index: 0,
                    revision: rev,
                    arguments: &a,
                    forwarded_headers: &[],
                    meta: None,
                    token_exchange: None,
                },
                req.as_ref(),
            );
            (o.result, how)
        };
        // Matching input (number equality by value), through a component reference.
        let (r, how) = call(json!({"q": 3.0}), None);
        assert_eq!(how, Some(("m-ok".to_string(), Selection::MatchedInput)));
        assert_eq!(r["content"][1]["text"], "m");
        assert!(
            r["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("Illustrative"))
        );
        // No match: the first by name with a successful result (a-err is an error).
        let (_, how) = call(json!({"q": 9}), None);
        assert_eq!(how, Some(("m-ok".to_string(), Selection::Default)));
        // Explicit by request _meta, even an error example.
        let (r, how) = call(json!({"q": 9}), Some(json!("a-err")));
        assert_eq!(how, Some(("a-err".to_string(), Selection::RequestMeta)));
        assert_eq!(r["isError"], true);
        // Unknown explicit name: a tool error listing the names.
        let (r, how) = call(json!({}), Some(json!("nope")));
        assert!(how.is_none());
        assert_eq!(r["isError"], true);
        assert!(
            r["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("a-err, m-ok, z-ok"))
        );
        // No examples at all.
        let bare = json!({"name": "u", "inputSchema": {"type": "object"}});
        let a = Map::new();
        let (o, how) = b.choose(
            ToolCall {
                tool: &bare,
                index: 0,
                revision: rev,
                arguments: &a,
                forwarded_headers: &[],
                meta: None,
                token_exchange: None,
            },
            None,
        );
        assert!(how.is_none());
        assert_eq!(o.result["isError"], true);
    }
}
