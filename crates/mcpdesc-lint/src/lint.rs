//! `lint`: quality rules for every host, the rules of each requested host profile, and
//! the size report, per protocol revision of the description.

use crate::rules::{self, Level, rule_of};
use mcpdesc_core::provenance::{Method, ToolProvenance};
use mcpdesc_core::{Diagnostic, ProtocolRevision, RevisionSet, Severity};
use mcpdesc_hosts::schema::{has_html, walk};
use mcpdesc_hosts::strict::StrictIssue;
use mcpdesc_hosts::table::{AnnotationRequirement, HostProfile, HostRule, StrictLimits};
use mcpdesc_hosts::{DEFAULT_TOOL_BUDGET_BYTES, ListSize, Size, has_title};
use mcpdesc_validate::Validated;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Minimum number of words of a tool description.
pub const MIN_DESCRIPTION_WORDS: usize = 3;

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// Host profiles whose rules apply (quality and size rules always apply).
    pub hosts: Vec<&'static HostProfile>,
    /// The server name the host puts in front of tool names (`--server-prefix`).
    pub server_prefix: Option<String>,
    /// `--max-tools N`.
    pub max_tools: Option<usize>,
    /// Per-tool byte budget (default [`DEFAULT_TOOL_BUDGET_BYTES`]).
    pub budget: Option<usize>,
    /// Rules to drop.
    pub allow: Vec<String>,
    /// Rules raised to error.
    pub deny: Vec<String>,
    /// `--discovery search`: also report what the search facade's `tools/list` costs.
    pub discovery_search: bool,
}

/// Sizes at one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionSizes {
    pub revision: ProtocolRevision,
    /// The whole `{"tools":[…]}` result.
    pub list: Size,
    /// Each tool (exported name, size), in list order.
    pub tools: Vec<(String, Size)>,
}

/// Findings and sizes.
#[derive(Debug, Clone, Default)]
pub struct LintReport {
    pub diagnostics: Vec<Diagnostic>,
    pub sizes: Vec<RevisionSizes>,
}

/// Rule ids that `--allow`/`--deny` accept.
pub fn is_rule(id: &str) -> bool {
    rule_of(id).is_some()
}

fn diag(code: &'static str, msg: String, ptr: String) -> Diagnostic {
    let level = rule_of(code).map_or(Level::Warning, |r| r.level);
    Diagnostic::new(level.severity(), code, msg).at(ptr)
}

/// The size of the search facade's `tools/list` at `rev` for the whole description
/// (what `mcpdesc serve --discovery search` lists without `--pin`).
pub fn facade_list(doc: &Value, rev: ProtocolRevision) -> Size {
    use mcpdesc_catalog::facade;
    let mut names = HashSet::new();
    for t in doc
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(n) = t.get("name").and_then(Value::as_str) {
            names.insert(n);
        }
    }
    let about = facade::About {
        servers: vec![
            doc.pointer("/info/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        ],
        toolsets: mcpdesc_catalog::toolsets(doc).into_keys().collect(),
        tools: names.len(),
    };
    let tools: Vec<Value> = facade::declarations(&about)
        .iter()
        .map(|d| facade::at_revision(d, rev))
        .collect();
    Size::of(&serde_json::json!({ "tools": tools }))
}

/// Lints a validated description (the validator's handle): the lint rules, per host
/// and per revision. Nothing is validated here: the validator checks every
/// declaration at each revision of its scope, so the views of a valid source are valid
/// and are not validated again (`mcpdesc_scope::export_tools_list` reasons the same
/// way). Pointers are into the source; [`Validated::annotate`] positions them.
pub fn lint(valid: &Validated<'_>, opts: &LintOptions) -> LintReport {
    let mut report = LintReport::default();
    let doc = valid.value();
    let root_scope = doc
        .get("protocolVersions")
        .map_or(RevisionSet::EMPTY, RevisionSet::from_json);
    let budget = opts.budget.unwrap_or(DEFAULT_TOOL_BUDGET_BYTES);
    let mut seen: HashSet<(String, String, String)> = HashSet::new();
    let mut push = |report: &mut LintReport, d: Diagnostic| {
        if seen.insert((d.code.clone(), d.pointer.clone(), d.message.clone())) {
            report.diagnostics.push(d);
        }
    };
    for rev in root_scope.iter() {
        // The tools/list at `rev`, one tool at a time, straight from the validated
        // source (`mcpdesc_scope::wire_tools`: what `export tools-list` and `serve`
        // send), so pointers are the source's and no view or list is built. Each tool
        // is dropped once checked.
        let mut sizer = ListSize::new("tools");
        let mut sizes = RevisionSizes {
            revision: rev,
            list: sizer.size(),
            tools: Vec::new(),
        };
        // (document index, exported name) of each listed tool.
        let mut listed: Vec<(usize, String)> = Vec::new();
        let mut found: Vec<Diagnostic> = Vec::new();
        let mut unlistable: Vec<Diagnostic> = Vec::new();
        let mut descriptions: HashMap<String, String> = HashMap::new();
        for wired in mcpdesc_scope::wire_tools(valid, rev) {
            let (i, decl) = (wired.index, wired.decl);
            let ptr = format!("/tools/{i}");
            let tool = match wired.wire {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(mut ds) => {
                    unlistable.append(&mut ds);
                    continue;
                }
            };
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            let size = sizer.push(&tool.to_string());
            sizes.tools.push((name.to_string(), size));
            listed.push((i, name.to_string()));
            let ds = &mut found;
            quality(&tool, decl, &ptr, ds);
            if let Some(desc) = tool.get("description").and_then(Value::as_str) {
                let key = desc.split_whitespace().collect::<Vec<_>>().join(" ");
                if !key.is_empty() {
                    match descriptions.get(&key) {
                        Some(first) => ds.push(diag(
                            rules::DESCRIPTION_DUPLICATE,
                            format!("tool `{name}` has the same description as tool `{first}`"),
                            format!("{ptr}/description"),
                        )),
                        None => {
                            descriptions.insert(key, name.to_string());
                        }
                    }
                }
            }
            if size.bytes > budget {
                ds.push(diag(
                    rules::TOOL_OVER_BUDGET,
                    format!(
                        "tool `{name}` is {size} as a host receives it at {rev}, over the budget of {budget} bytes (fitting the list to the host within the budget prunes it)"
                    ),
                    ptr.clone(),
                ));
            }
            for host in &opts.hosts {
                host_tool(host, opts.server_prefix.as_deref(), &tool, &ptr, ds);
            }
        }
        // A list that cannot be built reports why, and nothing else at `rev`.
        if !unlistable.is_empty() {
            for d in unlistable {
                push(&mut report, d);
            }
            continue;
        }
        for d in found {
            push(&mut report, d);
        }
        sizes.list = sizer.size();
        for d in list_findings(doc, rev, opts, &listed, &sizes) {
            push(&mut report, d);
        }
        report.sizes.push(sizes);
    }
    apply_levels(&mut report.diagnostics, &opts.allow, &opts.deny);
    report
}

/// The findings about the whole tools/list at `rev`: its size (directly and behind
/// the search facade), the tool count against the configured and the hosts' maxima, and
/// names a host registers twice. `listed` is (document index, name) per listed tool.
fn list_findings(
    doc: &Value,
    rev: ProtocolRevision,
    opts: &LintOptions,
    listed: &[(usize, String)],
    sizes: &RevisionSizes,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let tool_count = listed.len();
    if opts.discovery_search {
        let facade = facade_list(doc, rev);
        out.push(
            diag(
                rules::FACADE_CONTEXT,
                format!(
                    "with search discovery, tools/list at {rev} is {} (search_tools, describe_tools, call_tool for {} tools); directly: {}",
                    facade, tool_count, sizes.list
                ),
                String::new(),
            ),
        );
    }
    out.push(diag(
        rules::LIST_SIZE,
        format!(
            "tools/list at {rev}: {} tools, {} (estimated tokens: see the README)",
            tool_count, sizes.list
        ),
        String::new(),
    ));
    if let Some(max) = opts.max_tools
        && tool_count > max
    {
        out.push(
            diag(
                rules::TOO_MANY_TOOLS,
                format!(
                    "{} tools at {rev}, more than the maximum of {max}; the list is ~{} tokens of the model's context",
                    tool_count, sizes.list.tokens
                ),
                "/tools".into(),
            ),
        );
    }
    for host in opts.hosts.iter().filter(|h| h.rewrites_names()) {
        let mut registered: HashMap<String, &str> = HashMap::new();
        for (at, name) in listed {
            let name = name.as_str();
            let as_host = host.registered_name(opts.server_prefix.as_deref(), name);
            if let Some(first) = registered.get(&as_host) {
                out.push(
                    diag(
                        rules::HOST_NAME_COLLISION,
                        format!(
                            "{}: tools `{first}` and `{name}` are both registered as `{as_host}` at {rev}; the host's model reaches one of them ({})",
                            host.id,
                            host.source_of(|r| matches!(
                                r,
                                HostRule::NameTruncated(_) | HostRule::NameCharsReplaced(_)
                            ))
                        ),
                        format!("/tools/{at}/name"),
                    ),
                );
            } else {
                registered.insert(as_host, name);
            }
        }
    }
    for host in &opts.hosts {
        if let Some(max) = host.max_tools()
            && tool_count > max
        {
            out.push(diag(
                rules::HOST_TOO_MANY_TOOLS,
                format!(
                    "{}: {} tools at {rev}, the host sends at most {max} ({})",
                    host.id,
                    tool_count,
                    host.source_of(|r| matches!(r, HostRule::MaxTools(_)))
                ),
                "/tools".into(),
            ));
        }
        if let Some(max) = host.list_token_budget()
            && sizes.list.tokens > max
        {
            out.push(diag(
                rules::LIST_OVER_BUDGET,
                format!(
                    "{}: tools/list at {rev} is ~{} tokens, over the host's {max} ({})",
                    host.id,
                    sizes.list.tokens,
                    host.source_of(|r| matches!(r, HostRule::ListTokenBudget(_)))
                ),
                "/tools".into(),
            ));
        }
    }
    out
}

/// `--allow` drops a rule's findings, `--deny` raises them to error.
pub fn apply_levels(diags: &mut Vec<Diagnostic>, allow: &[String], deny: &[String]) {
    diags.retain(|d| !allow.iter().any(|a| a == &d.code));
    for d in diags.iter_mut() {
        if deny.iter().any(|x| x == &d.code) {
            d.severity = Severity::Error;
        }
    }
}

fn is_write(m: Method) -> bool {
    matches!(
        m,
        Method::Post | Method::Put | Method::Patch | Method::Delete
    )
}

/// Rules for every host.
/// `decl` is the tool's declaration (its provenance says which HTTP method it calls).
fn quality(tool: &Value, decl: &Value, ptr: &str, ds: &mut Vec<Diagnostic>) {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    match tool.get("description").and_then(Value::as_str) {
        None => ds.push(diag(
            rules::DESCRIPTION_MISSING,
            format!("tool `{name}` has no description"),
            ptr.to_string(),
        )),
        Some(d) if d.trim().is_empty() => ds.push(diag(
            rules::DESCRIPTION_MISSING,
            format!("tool `{name}` has an empty description"),
            format!("{ptr}/description"),
        )),
        Some(d) => {
            let words = d.split_whitespace().count();
            if words < MIN_DESCRIPTION_WORDS {
                ds.push(diag(
                    rules::DESCRIPTION_SHORT,
                    format!(
                        "tool `{name}` has a description of {words} word(s), fewer than {MIN_DESCRIPTION_WORDS}"
                    ),
                    format!("{ptr}/description"),
                ));
            }
            if has_html(d) {
                ds.push(diag(
                    rules::HTML_IN_DESCRIPTION,
                    format!("tool `{name}`: the description contains HTML markup"),
                    format!("{ptr}/description"),
                ));
            }
        }
    }
    let ann = tool.get("annotations");
    let hint = |h: &str| ann.and_then(|a| a.get(h)).and_then(Value::as_bool);
    if hint("readOnlyHint") == Some(true) && hint("destructiveHint") == Some(true) {
        ds.push(diag(
            rules::ANNOTATIONS_CONTRADICT,
            format!("tool `{name}` declares readOnlyHint: true and destructiveHint: true"),
            format!("{ptr}/annotations"),
        ));
    }
    if hint("readOnlyHint").is_none()
        && hint("destructiveHint").is_none()
        && let Some(Ok(prov)) = ToolProvenance::of_tool(decl, ptr)
        && is_write(prov.method)
    {
        ds.push(diag(
            rules::WRITE_ANNOTATIONS_MISSING,
            format!(
                "tool `{name}` calls {} {} but declares neither readOnlyHint nor destructiveHint",
                prov.method.as_str(),
                prov.path
            ),
            ptr.to_string(),
        ));
    }
    if let Some(input) = tool.get("inputSchema") {
        let base = format!("{ptr}/inputSchema");
        if let Some(props) = input.get("properties").and_then(Value::as_object) {
            for (p, s) in props {
                if s.get("description").is_none() && s.get("$ref").is_none() {
                    ds.push(diag(
                        rules::PARAM_DESCRIPTION_MISSING,
                        format!("tool `{name}`: parameter `{p}` has no description"),
                        mcpdesc_core::pointer::push(&format!("{base}/properties"), p),
                    ));
                }
            }
        }
        for (sp, _, s) in walk(input, &base) {
            let desc = s.get("description").and_then(Value::as_str);
            if let Some(d) = desc {
                if sp != base && has_html(d) {
                    ds.push(diag(
                        rules::HTML_IN_DESCRIPTION,
                        format!("tool `{name}`: a schema description contains HTML markup"),
                        format!("{sp}/description"),
                    ));
                }
                if s.get("type").and_then(Value::as_str) == Some("string")
                    && s.get("enum").is_none()
                    && s.get("const").is_none()
                    && enum_like(d)
                {
                    ds.push(diag(
                        rules::ENUM_LIKE_STRING,
                        format!(
                            "tool `{name}`: a free string whose description lists its values; declare them as `enum`"
                        ),
                        sp.clone(),
                    ));
                }
            }
        }
    }
}

fn enum_like(d: &str) -> bool {
    let l = d.to_ascii_lowercase();
    [
        "one of:",
        "one of `",
        "one of \"",
        "one of '",
        "possible values",
        "allowed values",
        "valid values",
        "must be either",
        "can be either",
    ]
    .iter()
    .any(|p| l.contains(p))
}

/// One host's rules on one exported tool.
fn host_tool(
    host: &HostProfile,
    server: Option<&str>,
    tool: &Value,
    ptr: &str,
    ds: &mut Vec<Diagnostic>,
) {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let h = host.id;
    let name_ptr = format!("{ptr}/name");
    for fact in host.facts {
        let src = format!(
            "{}, read {}, {}",
            fact.source,
            fact.read,
            fact.status.as_str()
        );
        match fact.rule {
            HostRule::NameMaxLen { max, counts_prefix } => {
                let shown = if counts_prefix {
                    host.shown_name(server, name)
                } else {
                    name.to_string()
                };
                let len = shown.chars().count();
                if len > max {
                    ds.push(diag(
                        rules::HOST_NAME_TOO_LONG,
                        format!(
                            "{h}: tool name `{shown}` has {len} characters, the host allows {max} ({src})"
                        ),
                        name_ptr.clone(),
                    ));
                }
            }
            HostRule::NameChars(chars) => {
                if !chars.accepts(name) {
                    ds.push(diag(
                        rules::HOST_NAME_CHARS,
                        format!(
                            "{h}: tool name `{name}` does not match {} ({src})",
                            chars.pattern()
                        ),
                        name_ptr.clone(),
                    ));
                }
            }
            HostRule::NameTruncated(t) => {
                let shown = host.shown_name(server, name);
                let kept = host
                    .replaced_chars()
                    .map_or(shown.clone(), |c| c.replace(&shown));
                if kept.chars().count() > t.over {
                    ds.push(diag(
                        rules::HOST_NAME_TRUNCATED,
                        format!(
                            "{h}: tool name `{shown}` is longer than {} characters; the host truncates it to `{}` ({src})",
                            t.over,
                            host.registered_name(server, name)
                        ),
                        name_ptr.clone(),
                    ));
                }
            }
            HostRule::NameCharsReplaced(chars) => {
                if !chars.accepts(name) {
                    ds.push(diag(
                        rules::HOST_NAME_REWRITTEN,
                        format!(
                            "{h}: tool name `{name}` has characters outside {}; the host replaces them with `_` and registers `{}` ({src})",
                            chars.pattern(),
                            host.registered_name(server, name)
                        ),
                        name_ptr.clone(),
                    ));
                }
            }
            HostRule::RequiresTitle => {
                if !has_title(tool) {
                    ds.push(diag(
                        rules::HOST_TITLE_MISSING,
                        format!("{h}: tool `{name}` has no title ({src})"),
                        ptr.to_string(),
                    ));
                }
            }
            HostRule::RequiresAnnotations(req) => {
                let has = |k: &str| {
                    tool.get("annotations")
                        .and_then(|a| a.get(k))
                        .is_some_and(Value::is_boolean)
                };
                let missing: Vec<&str> = match req {
                    AnnotationRequirement::All(ks) => {
                        ks.iter().copied().filter(|k| !has(k)).collect()
                    }
                    AnnotationRequirement::AnyOf(ks) => {
                        if ks.iter().any(|k| has(k)) {
                            Vec::new()
                        } else {
                            ks.to_vec()
                        }
                    }
                };
                if !missing.is_empty() {
                    let how = match req {
                        AnnotationRequirement::All(_) => "every one of",
                        AnnotationRequirement::AnyOf(_) => "one of",
                    };
                    ds.push(diag(
                        rules::HOST_ANNOTATIONS_MISSING,
                        format!(
                            "{h}: tool `{name}` lacks {}; the host requires {how} them ({src})",
                            missing.join(", ")
                        ),
                        ptr.to_string(),
                    ));
                }
            }
            HostRule::NoTopLevelUnion => {
                if let Some(input) = tool.get("inputSchema") {
                    for k in ["anyOf", "oneOf", "allOf"] {
                        if input.get(k).is_some() {
                            ds.push(diag(
                                rules::HOST_TOP_LEVEL_UNION,
                                format!("{h}: tool `{name}` has `{k}` at the top level of inputSchema ({src})"),
                                format!("{ptr}/inputSchema/{k}"),
                            ));
                        }
                    }
                }
            }
            HostRule::NoRef => {
                if let Some(s) = tool.get("inputSchema") {
                    let base = format!("{ptr}/inputSchema");
                    if let Some((p, _, _)) = walk(s, &base)
                        .into_iter()
                        .find(|(_, _, v)| v.get("$ref").is_some())
                    {
                        ds.push(diag(
                            rules::HOST_SCHEMA_REF,
                            format!("{h}: tool `{name}` uses `$ref` in inputSchema; the host does not resolve it ({src})"),
                            format!("{p}/$ref"),
                        ));
                    }
                }
            }
            HostRule::Strict(limits) => {
                if let Some(s) = tool.get("inputSchema") {
                    strict_findings(h, name, s, &format!("{ptr}/inputSchema"), limits, &src, ds);
                }
            }
            HostRule::ServerPrefix(_) | HostRule::MaxTools(_) | HostRule::ListTokenBudget(_) => {}
        }
    }
}

/// Strict mode's findings on `schema` (at `base`) as `h`'s diagnostics.
fn strict_findings(
    h: &str,
    name: &str,
    schema: &Value,
    base: &str,
    limits: StrictLimits,
    src: &str,
    ds: &mut Vec<Diagnostic>,
) {
    for f in mcpdesc_hosts::strict::findings(schema, base, limits) {
        let (code, msg) = match f.issue {
            StrictIssue::OneOf => (
                rules::HOST_STRICT_OBJECT,
                format!("{h}: tool `{name}`: `oneOf`; strict mode takes `anyOf` only ({src})"),
            ),
            StrictIssue::RefWithSiblings => (
                rules::HOST_STRICT_OBJECT,
                format!(
                    "{h}: tool `{name}`: `$ref` with sibling keywords; strict mode takes a bare `$ref` ({src})"
                ),
            ),
            StrictIssue::OpenObject => (
                rules::HOST_STRICT_OBJECT,
                format!(
                    "{h}: tool `{name}`: an object without `additionalProperties: false` ({src})"
                ),
            ),
            StrictIssue::OptionalProperties(optional) => (
                rules::HOST_STRICT_OBJECT,
                format!(
                    "{h}: tool `{name}`: optional properties {}; strict mode requires every property ({src})",
                    optional.join(", ")
                ),
            ),
            StrictIssue::OverLimit { what, count, max } => (
                rules::HOST_STRICT_LIMIT,
                format!("{h}: tool `{name}`: {count} {what}, over the limit of {max} ({src})"),
            ),
        };
        ds.push(diag(code, msg, f.pointer));
    }
}
