//! The host-fitting rewrite of one revision's tools/list, and budget pruning.

use crate::DEFAULT_TOOL_BUDGET_BYTES;
use crate::estimate::Size;
use crate::schema::{children, get_mut, has_html, html_to_text, walk};
use crate::table::{AnnotationRequirement, HostProfile, HostRule, StrictLimits};
use indexmap::IndexMap;
use mcpdesc_core::local_ref::Resolver;
use mcpdesc_core::{Diagnostic, ProtocolRevision, RevisionSet, skeleton};
use mcpdesc_names::{NameAllocator, NameOptions};
use mcpdesc_validate::Validated;
use rayon::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashSet};

/// What to fit the list to.
#[derive(Debug, Clone, Copy, Default)]
pub struct FitOptions<'a> {
    /// The host whose rules the result must satisfy.
    pub host: Option<&'static HostProfile>,
    /// The server name the host puts in front of tool names (`--server-prefix`).
    pub server_prefix: Option<&'a str>,
    /// Per-tool byte budget (compact JSON of one Tool). Default with a host:
    /// [`DEFAULT_TOOL_BUDGET_BYTES`]; without host and budget nothing is pruned.
    pub budget: Option<usize>,
}

/// The fitted list.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// The rewritten `{"tools":[…]}` result.
    pub tools_list: Value,
    /// New name → original name, for every renamed tool (a caller serving the list
    /// maps `tools/call` of the new name back to the original).
    pub renames: IndexMap<String, String>,
    /// One per change, plus errors for what cannot be made acceptable (each names
    /// the tool). When any is an error the list must not be served.
    pub diagnostics: Vec<Diagnostic>,
}

/// Bound on the nodes an inlined schema may grow to.
pub(crate) const MAX_INLINED_NODES: usize = 200_000;

/// Rewrites a tools/list result (as `mcpdesc_scope::export_tools_list` returns it for
/// `rev`) so `opts.host` accepts it and every tool fits `opts.budget`:
/// 1. HTML in descriptions rendered to plain text;
/// 2. `$ref`s inlined where the host does not resolve them (a cycle is an error);
/// 3. a top-level `allOf`, or `anyOf`/`oneOf` of one branch, merged into the root
///    where that is provably equivalent (disjoint keywords, no
///    `additionalProperties`-like keyword); any other top-level union is an error;
/// 4. names the host rejects or truncates renamed with `mcpdesc-names` (the mapping
///    is returned);
/// 5. missing `title`/annotations the host wants reported, never invented;
/// 6. pruning to the budget: output schemas first (deepest subschemas replaced by
///    `{}` with a description, unreachable `$defs` dropped), then input `$defs`
///    depth; required input properties are never removed;
/// 7. the result validated (`mcpdesc-validate`) as a one-revision description.
///
/// The list is taken by value and rewritten in place. Its origin being unknown, the
/// whole result is validated; [`fit_tools_list_of`] fits the list of a validated
/// description and checks only what fitting changed.
pub fn fit_tools_list(list: Value, rev: ProtocolRevision, opts: &FitOptions<'_>) -> Fitted {
    fit(list, rev, opts, false)
}

/// [`fit_tools_list`] of `list`, the tools/list of the validated description `source`
/// at `rev` (`mcpdesc_scope::export_tools_list(source, rev)`, or the wire form of some of
/// its tools at `rev`, as `serve` lists them): a derivation of a validated witness. A
/// tool fitting left as it was is a tool of a valid view, so only the tools fitting
/// changed (rewritten, pruned or renamed) are validated again, with the cross-tool rule
/// over all of them (§9.5: no two tools of one name). When `rev` is not one of
/// `source`'s revisions the whole result is validated.
pub fn fit_tools_list_of(
    source: &Validated<'_>,
    list: Value,
    rev: ProtocolRevision,
    opts: &FitOptions<'_>,
) -> Fitted {
    fit(list, rev, opts, source.revisions().contains(rev))
}

/// [`fit_tools_list`]; `vouched`: the input tools are valid, check only changed ones.
fn fit(list: Value, rev: ProtocolRevision, opts: &FitOptions<'_>, vouched: bool) -> Fitted {
    let mut diags = Vec::new();
    let mut tools: Vec<Value> = match list {
        Value::Object(mut m) => match m.shift_remove("tools") {
            Some(Value::Array(a)) => a,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let budget = opts.budget.or(opts.host.map(|_| DEFAULT_TOOL_BUDGET_BYTES));
    let fit_one = |i: usize, tool: &mut Value, diags: &mut Vec<Diagnostic>| {
        let ptr = format!("/tools/{i}");
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if let Some(host) = opts.host {
            render_html(tool, &name, &ptr, diags);
            if host.has(HostRule::NoRef) {
                inline_refs(tool, "inputSchema", &name, &ptr, diags);
            }
            if host.has(HostRule::NoTopLevelUnion) {
                lift_union(tool, &name, &ptr, diags);
            }
            if let Some(limits) = host.strict() {
                strict(tool, &name, &ptr, limits, diags);
            }
            report_missing(host, tool, &name, &ptr, diags);
        }
        if let Some(b) = budget {
            prune(tool, &name, &ptr, b, diags);
        }
    };
    // The fitting of one tool never reads another: tools are fitted on all cores, and
    // their findings are joined in tool order (the sequential result).
    let found: Vec<(Vec<Diagnostic>, bool)> = tools
        .par_iter_mut()
        .enumerate()
        .map(|(i, tool)| {
            let mut d = Vec::new();
            // One tool's copy at a time per core: what tells a changed tool.
            let before = vouched.then(|| tool.clone());
            fit_one(i, tool, &mut d);
            let changed = before.is_none_or(|b| b != *tool);
            (d, changed)
        })
        .collect();
    let mut changed = Vec::with_capacity(found.len());
    for (d, c) in found {
        diags.extend(d);
        changed.push(c);
    }
    let mut renames = IndexMap::new();
    if let Some(host) = opts.host {
        rename(
            host,
            opts.server_prefix,
            &mut tools,
            &mut renames,
            &mut diags,
        );
    }
    if vouched {
        for (tool, c) in tools.iter().zip(changed.iter_mut()) {
            *c |= tool
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| renames.contains_key(n));
        }
    }
    let tools = validate(tools, rev, &mut diags, vouched.then_some(&changed[..]));
    let tools_list = json!({ "tools": tools });
    Fitted {
        tools_list,
        renames,
        diagnostics: diags,
    }
}

fn render_html(tool: &mut Value, name: &str, ptr: &str, diags: &mut Vec<Diagnostic>) {
    let mut n = 0;
    if let Some(d) = tool.get_mut("description")
        && let Some(s) = d.as_str()
        && has_html(s)
    {
        *d = Value::String(html_to_text(s));
        n += 1;
    }
    for key in ["inputSchema", "outputSchema"] {
        let Some(schema) = tool.get_mut(key) else {
            continue;
        };
        let paths: Vec<Vec<String>> = walk(schema, "")
            .into_iter()
            .filter(|(_, _, s)| {
                s.get("description")
                    .and_then(Value::as_str)
                    .is_some_and(has_html)
            })
            .map(|(p, _, _)| mcpdesc_core::pointer::tokens(&p))
            .collect();
        for toks in paths {
            if let Some(s) = get_mut(schema, &toks)
                && let Some(d) = s.get_mut("description")
                && let Some(text) = d.as_str()
            {
                *d = Value::String(html_to_text(text));
                n += 1;
            }
        }
    }
    if n > 0 {
        diags.push(
            Diagnostic::info(
                "fit-html-rendered",
                format!("tool `{name}`: {n} description(s) rendered from HTML to plain text"),
            )
            .at(ptr),
        );
    }
}

fn inline_refs(tool: &mut Value, key: &str, name: &str, ptr: &str, diags: &mut Vec<Diagnostic>) {
    let Some(schema) = tool.get(key) else {
        return;
    };
    if !walk(schema, "")
        .iter()
        .any(|(_, _, s)| s.get("$ref").is_some())
    {
        return;
    }
    let mut nodes = 0usize;
    let mut stack = Vec::new();
    let res = Resolver::new(schema);
    match inline(&res, schema, &mut stack, &mut nodes) {
        Ok(mut out) => {
            if let Some(m) = out.as_object_mut() {
                m.shift_remove("$defs");
                m.shift_remove("definitions");
            }
            if let Some(slot) = tool.get_mut(key) {
                *slot = out;
            }
            diags.push(
                Diagnostic::info(
                    "fit-ref-inlined",
                    format!("tool `{name}`: every `$ref` of {key} inlined, `$defs` removed"),
                )
                .at(format!("{ptr}/{key}")),
            );
        }
        Err((code, msg)) => diags.push(
            Diagnostic::error(code, format!("tool `{name}`: {key}: {msg}"))
                .at(format!("{ptr}/{key}")),
        ),
    }
}

type InlineError = (&'static str, String);

/// `node` with every `$ref` replaced by its target (recursively). `stack` holds the
/// references being expanded, each with its target's pointer: reaching a target again
/// is a cycle, which inlining cannot end.
pub(crate) fn inline(
    root: &Resolver<'_>,
    node: &Value,
    stack: &mut Vec<(String, String)>,
    nodes: &mut usize,
) -> Result<Value, InlineError> {
    *nodes += 1;
    if *nodes > MAX_INLINED_NODES {
        return Err((
            "fit-ref-cycle",
            format!("inlining grows past {MAX_INLINED_NODES} subschemas"),
        ));
    }
    let Some(obj) = node.as_object() else {
        return Ok(node.clone());
    };
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        // The one resolver's code and message (the same as validation's).
        let (target, p) = root
            .target_from(node, r)
            .map_err(|e| (e.code(), e.to_string()))?;
        if stack.iter().any(|(_, s)| *s == p) {
            let chain: Vec<&str> = stack.iter().map(|(r, _)| r.as_str()).collect();
            return Err((
                "fit-ref-cycle",
                format!(
                    "`$ref` {r} is recursive ({} → {r}); it cannot be inlined",
                    chain.join(" → ")
                ),
            ));
        }
        stack.push((r.to_string(), p));
        let expanded = inline(root, target, stack, nodes)?;
        stack.pop();
        let mut siblings = Map::new();
        for (k, v) in obj {
            if k != "$ref" {
                siblings.insert(k.clone(), inline_children(root, k, v, stack, nodes)?);
            }
        }
        if siblings.is_empty() {
            return Ok(expanded);
        }
        return Ok(match expanded {
            Value::Object(mut m)
                if siblings
                    .keys()
                    .all(|k| m.get(k).is_none_or(|v| v == &siblings[k])) =>
            {
                for (k, v) in siblings {
                    m.insert(k, v);
                }
                m.shift_remove("$defs");
                Value::Object(m)
            }
            other => {
                siblings.insert("allOf".into(), Value::Array(vec![other]));
                Value::Object(siblings)
            }
        });
    }
    let mut out = Map::new();
    for (k, v) in obj {
        out.insert(k.clone(), inline_children(root, k, v, stack, nodes)?);
    }
    Ok(Value::Object(out))
}

/// Inlines inside the subschemas a keyword holds (other keyword values are copied).
fn inline_children(
    root: &Resolver<'_>,
    key: &str,
    v: &Value,
    stack: &mut Vec<(String, String)>,
    nodes: &mut usize,
) -> Result<Value, InlineError> {
    let probe = json!({ key: v });
    if children(&probe).is_empty() || key == "$defs" || key == "definitions" {
        return Ok(v.clone());
    }
    Ok(match v {
        Value::Object(m)
            if matches!(key, "properties" | "patternProperties" | "dependentSchemas") =>
        {
            let mut o = Map::new();
            for (k, s) in m {
                o.insert(k.clone(), inline(root, s, stack, nodes)?);
            }
            Value::Object(o)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|s| inline(root, s, stack, nodes))
                .collect::<Result<_, _>>()?,
        ),
        other => inline(root, other, stack, nodes)?,
    })
}

/// Keywords whose meaning depends on sibling `properties`: merging across them is not
/// equivalent.
const CONTEXT_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "patternProperties",
    "$ref",
    "$dynamicRef",
];

fn lift_union(tool: &mut Value, name: &str, ptr: &str, diags: &mut Vec<Diagnostic>) {
    let Some(input) = tool.get_mut("inputSchema").and_then(Value::as_object_mut) else {
        return;
    };
    for key in ["allOf", "anyOf", "oneOf"] {
        let Some(branches) = input.get(key).and_then(Value::as_array).cloned() else {
            continue;
        };
        let liftable = key == "allOf" || branches.len() == 1;
        let mut merged = input.clone();
        merged.shift_remove(key);
        let mut ok = liftable;
        if ok {
            for b in &branches {
                if !merge_into(&mut merged, b) {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            *input = merged;
            diags.push(
                Diagnostic::info(
                    "fit-union-lifted",
                    format!(
                        "tool `{name}`: top-level `{key}` of {} branch(es) merged into the root (equivalent: disjoint keywords)",
                        branches.len()
                    ),
                )
                .at(format!("{ptr}/inputSchema")),
            );
        } else {
            diags.push(
                Diagnostic::error(
                    "fit-union-not-liftable",
                    format!(
                        "tool `{name}`: top-level `{key}` of {} branches has no equivalent schema without it; the host rejects the tool",
                        branches.len()
                    ),
                )
                .at(format!("{ptr}/inputSchema/{key}")),
            );
        }
    }
}

/// Merges `branch` into `root` when the conjunction equals the merged object: every
/// keyword in only one of them, except `type` (equal), `required` (union) and
/// `properties` (disjoint names or equal schemas); none of [`CONTEXT_KEYWORDS`].
fn merge_into(root: &mut Map<String, Value>, branch: &Value) -> bool {
    let Some(b) = branch.as_object() else {
        return false;
    };
    if CONTEXT_KEYWORDS
        .iter()
        .any(|k| b.contains_key(*k) || root.contains_key(*k))
    {
        return false;
    }
    for (k, v) in b {
        match (k.as_str(), root.get_mut(k)) {
            (_, None) => {
                root.insert(k.clone(), v.clone());
            }
            (_, Some(existing)) if existing == v => {}
            ("required", Some(Value::Array(have))) => {
                let Some(add) = v.as_array() else {
                    return false;
                };
                for r in add {
                    if !have.contains(r) {
                        have.push(r.clone());
                    }
                }
            }
            ("properties", Some(Value::Object(have))) => {
                let Some(add) = v.as_object() else {
                    return false;
                };
                for (p, s) in add {
                    match have.get(p) {
                        None => {
                            have.insert(p.clone(), s.clone());
                        }
                        Some(x) if x == s => {}
                        Some(_) => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

fn strict(
    tool: &mut Value,
    name: &str,
    ptr: &str,
    limits: StrictLimits,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(input) = tool.get("inputSchema") else {
        return;
    };
    let ds = crate::strict::findings(input, "", limits);
    if !ds.is_empty() {
        diags.push(
            Diagnostic::error(
                "fit-strict-not-liftable",
                format!(
                    "tool `{name}`: inputSchema is not strict-mode compatible ({} finding(s), first at {}); making optional properties required or closing objects would change what the tool accepts",
                    ds.len(),
                    if ds[0].pointer.is_empty() { "the root" } else { &ds[0].pointer }
                ),
            )
            .at(format!("{ptr}/inputSchema")),
        );
    }
}

fn report_missing(
    host: &HostProfile,
    tool: &Value,
    name: &str,
    ptr: &str,
    diags: &mut Vec<Diagnostic>,
) {
    let h = host.id;
    if host.has(HostRule::RequiresTitle) && !crate::has_title(tool) {
        diags.push(
            Diagnostic::warning(
                "fit-title-missing",
                format!(
                    "tool `{name}` has no title, which {h} requires; left missing (never invented)"
                ),
            )
            .at(ptr),
        );
    }
    if let Some(req) = host.find(|r| match r {
        HostRule::RequiresAnnotations(a) => Some(*a),
        _ => None,
    }) {
        let has = |k: &str| {
            tool.get("annotations")
                .and_then(|a| a.get(k))
                .is_some_and(Value::is_boolean)
        };
        let missing = match req {
            AnnotationRequirement::All(ks) => ks.iter().any(|k| !has(k)),
            AnnotationRequirement::AnyOf(ks) => !ks.iter().any(|k| has(k)),
        };
        if missing {
            diags.push(
                Diagnostic::warning(
                    "fit-annotations-missing",
                    format!("tool `{name}` lacks annotations {h} requires; left missing (never invented)"),
                )
                .at(ptr),
            );
        }
    }
}

fn rename(
    host: &HostProfile,
    server: Option<&str>,
    tools: &mut [Value],
    renames: &mut IndexMap<String, String>,
    diags: &mut Vec<Diagnostic>,
) {
    // A host that truncates long names (Gemini CLI) need not also reject them: either
    // limit, or both, bounds the room for the name.
    let truncated = host.truncation().map(|t| {
        t.over
            .saturating_sub(host.shown_name(server, "").chars().count())
    });
    let Some(max) = [host.name_budget(server), truncated]
        .into_iter()
        .flatten()
        .min()
    else {
        return;
    };
    // Characters the host would replace are renamed here too, so the export's names
    // are the names the host registers (behind its prefix) and `serve` maps them.
    let chars = host.name_chars().or(host.replaced_chars());
    let names: Vec<String> = tools
        .iter()
        .map(|t| {
            t.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect();
    let bad = |n: &str| n.chars().count() > max || chars.is_some_and(|c| !c.accepts(n));
    if !names.iter().any(|n| bad(n)) {
        return;
    }
    let options = match NameOptions::new(max, "") {
        Ok(o) => o,
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    "fit-name-unallocatable",
                    format!("{}: {max} characters are left for tool names: {e}", host.id),
                )
                .at("/tools"),
            );
            return;
        }
    };
    let mut alloc = NameAllocator::new(options);
    for n in names.iter().filter(|n| !bad(n)) {
        alloc.reserve(n.clone());
    }
    for n in names.iter().filter(|n| bad(n)) {
        alloc.request(n.clone(), n.clone());
    }
    let assignment = match alloc.assign() {
        Ok(a) => a,
        Err(e) => {
            diags.push(Diagnostic::error("fit-name-unallocatable", e.to_string()).at("/tools"));
            return;
        }
    };
    for (i, (tool, old)) in tools.iter_mut().zip(&names).enumerate() {
        if !bad(old) {
            continue;
        }
        let Some(new) = assignment.get(old, old) else {
            continue;
        };
        diags.push(
            Diagnostic::info(
                "fit-renamed",
                format!(
                    "tool `{old}` renamed `{new}` for {} (names up to {max} characters matching {}); calls of `{new}` go to `{old}`",
                    host.id,
                    chars.map_or("^[a-z][a-z0-9_]*$", |c| c.pattern())
                ),
            )
            .at(format!("/tools/{i}/name")),
        );
        renames.insert(new.to_string(), old.clone());
        if let Some(slot) = tool.get_mut("name") {
            *slot = Value::String(new.to_string());
        }
    }
}

fn stub(bytes: usize, budget: usize) -> Value {
    json!({
        "description": format!("pruned by mcpdesc to fit a {budget}-byte tool budget: a subschema of {bytes} bytes was cut")
    })
}

/// Replaces subschemas at depth `cut` (relative to `root`; larger than their stub)
/// with a stub. Returns how many were replaced.
fn cut_at(root: &mut Value, cut: usize, budget: usize) -> usize {
    let targets: Vec<(Vec<String>, usize)> = walk(root, "")
        .into_iter()
        .filter(|(_, d, _)| *d == cut)
        .map(|(p, _, s)| (mcpdesc_core::pointer::tokens(&p), size(s)))
        .collect();
    let stub_len = size(&stub(usize::MAX, budget));
    let mut n = 0;
    for (toks, bytes) in targets {
        if bytes <= stub_len {
            continue;
        }
        if let Some(s) = get_mut(root, &toks) {
            *s = stub(bytes, budget);
            n += 1;
        }
    }
    n
}

/// Drops `$defs`/`definitions` entries no `$ref` reaches from the rest of the schema.
fn drop_unreachable_defs(schema: &mut Value) -> Vec<String> {
    let mut dropped = Vec::new();
    let Some(obj) = schema.as_object() else {
        return dropped;
    };
    let res = Resolver::new(schema);
    let refs_of = |v: &Value| -> Vec<String> {
        walk(v, "")
            .into_iter()
            .filter_map(|(_, _, s)| s.get("$ref").and_then(Value::as_str).map(String::from))
            .collect()
    };
    let mut rest = obj.clone();
    rest.shift_remove("$defs");
    rest.shift_remove("definitions");
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut todo = refs_of(&Value::Object(rest));
    while let Some(r) = todo.pop() {
        let Some(p) = res.pointer(&r) else {
            continue;
        };
        let toks = mcpdesc_core::pointer::tokens(&p);
        if toks.len() < 2 || !matches!(toks[0].as_str(), "$defs" | "definitions") {
            continue;
        }
        let key = format!("{}/{}", toks[0], toks[1]);
        if reached.insert(key) {
            if let Some(d) = obj.get(&toks[0]).and_then(|m| m.get(&toks[1])) {
                todo.extend(refs_of(d));
            }
        }
    }
    let Some(obj) = schema.as_object_mut() else {
        return dropped;
    };
    for container in ["$defs", "definitions"] {
        let Some(Value::Object(m)) = obj.get_mut(container) else {
            continue;
        };
        let names: Vec<String> = m.keys().cloned().collect();
        for n in names {
            if !reached.contains(&format!("{container}/{n}")) {
                m.shift_remove(&n);
                dropped.push(n);
            }
        }
        if m.is_empty() {
            obj.shift_remove(container);
        }
    }
    dropped
}

fn size(v: &Value) -> usize {
    Size::bytes_of(v)
}

fn prune(tool: &mut Value, name: &str, ptr: &str, budget: usize, diags: &mut Vec<Diagnostic>) {
    let before = size(tool);
    if before <= budget {
        return;
    }
    // 1. Output schema, deepest subschemas first.
    if tool.get("outputSchema").is_some() {
        let depth = tool
            .get("outputSchema")
            .map(|s| walk(s, "").iter().map(|x| x.1).max().unwrap_or(0))
            .unwrap_or(0);
        let mut replaced = 0;
        let mut dropped: Vec<String> = Vec::new();
        let mut last_cut = depth;
        for cut in (1..=depth).rev() {
            if size(tool) <= budget {
                break;
            }
            last_cut = cut;
            if let Some(s) = tool.get_mut("outputSchema") {
                replaced += cut_at(s, cut, budget);
                dropped.extend(drop_unreachable_defs(s));
            }
        }
        if replaced > 0 || !dropped.is_empty() {
            diags.push(
                Diagnostic::info(
                    "fit-pruned-output",
                    format!(
                        "tool `{name}`: outputSchema cut at depth {last_cut}: {replaced} subschema(s) replaced by {{}} with a description{}; tool {before} → {} bytes",
                        if dropped.is_empty() {
                            String::new()
                        } else {
                            format!(", unreachable $defs dropped: {}", dropped.join(", "))
                        },
                        size(tool)
                    ),
                )
                .at(format!("{ptr}/outputSchema")),
            );
        }
    }
    // 2. Input `$defs` depth (the root's own properties and `required` are kept).
    let mid = size(tool);
    if mid > budget
        && let Some(input) = tool.get("inputSchema")
    {
        let depth = walk(input, "").iter().map(|x| x.1).max().unwrap_or(0);
        let mut replaced = 0;
        let mut last_cut = depth;
        for cut in (1..=depth).rev() {
            if size(tool) <= budget {
                break;
            }
            last_cut = cut;
            if let Some(s) = tool.get_mut("inputSchema")
                && let Some(obj) = s.as_object_mut()
            {
                for container in ["$defs", "definitions"] {
                    if let Some(Value::Object(defs)) = obj.get_mut(container) {
                        // `$defs/X` is at depth 1 from the root: depth `cut` is
                        // `cut - 1` inside the definition (0: the whole definition).
                        for def in defs.values_mut() {
                            replaced += cut_at(def, cut - 1, budget);
                        }
                    }
                }
            }
        }
        if replaced > 0 {
            diags.push(
                Diagnostic::info(
                    "fit-pruned-input-defs",
                    format!(
                        "tool `{name}`: inputSchema $defs cut at depth {last_cut}: {replaced} subschema(s) replaced by {{}} with a description (accepting more, never fewer, arguments; required properties kept); tool {mid} → {} bytes",
                        size(tool)
                    ),
                )
                .at(format!("{ptr}/inputSchema")),
            );
        }
    }
    let after = size(tool);
    if after > budget {
        diags.push(
            Diagnostic::error(
                "fit-over-budget",
                format!(
                    "tool `{name}` is {after} bytes after pruning (was {before}), over the budget of {budget} bytes: its input schema outside $defs is that large"
                ),
            )
            .at(ptr),
        );
    }
}

/// A one-revision description whose tools are the tools of a tools/list result
/// (so a tools/list can be validated and linted like a description).
pub fn description_of_tools_list(list: &Value, rev: ProtocolRevision) -> Value {
    let tools = list
        .get("tools")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    description_of(tools, rev)
}

/// [`validate`] of the changed tools only: consecutive runs of changed tools are checked
/// as parts of the one-revision description, the others vouched for.
fn validate_changed(
    tools: Vec<Value>,
    rev: ProtocolRevision,
    changed: &[bool],
) -> (Vec<Value>, Vec<Diagnostic>) {
    let skeleton = description_of(Value::Array(Vec::new()), rev);
    let Some(parts) = mcpdesc_validate::Validator::new().tool_parts(skeleton) else {
        return (tools, Vec::new());
    };
    let mut out = Vec::with_capacity(tools.len());
    let mut reports = Vec::new();
    let mut run: Vec<Value> = Vec::new();
    let mut run_changed = false;
    let mut flush = |run: &mut Vec<Value>, run_changed: bool, out: &mut Vec<Value>| {
        if run.is_empty() {
            return;
        }
        if run_changed {
            let (report, back) = parts.check(std::mem::take(run));
            reports.push(report);
            out.extend(back);
        } else {
            reports.push(parts.vouched(run));
            out.append(run);
        }
    };
    for (tool, c) in tools.into_iter().zip(changed.iter().copied()) {
        if c != run_changed {
            flush(&mut run, run_changed, &mut out);
            run_changed = c;
        }
        run.push(tool);
    }
    flush(&mut run, run_changed, &mut out);
    (out, parts.finish_derived(reports))
}

/// The one-revision description whose `tools` are `tools`.
fn description_of(tools: Value, rev: ProtocolRevision) -> Value {
    let mut doc = skeleton::root(
        json!({"name": "mcpdesc-tools-list", "version": "0"}),
        RevisionSet::single(rev),
    );
    skeleton::set(&mut doc, "tools", tools);
    Value::Object(doc)
}

/// The fitted list must still be a valid description's tools. The tools are moved
/// into the description validated and back out (no copy); returns them. With
/// `changed`, only the tools it marks are checked (the others are a valid view's, and
/// only the cross-tool rule reads them).
fn validate(
    tools: Vec<Value>,
    rev: ProtocolRevision,
    diags: &mut Vec<Diagnostic>,
    changed: Option<&[bool]>,
) -> Vec<Value> {
    let (tools, found) = match changed {
        Some(changed) if changed.len() == tools.len() => validate_changed(tools, rev, changed),
        _ => {
            let mut doc = description_of(Value::Array(tools), rev);
            let found = mcpdesc_validate::validate_value(&doc);
            let tools = match doc.as_object_mut().and_then(|m| m.shift_remove("tools")) {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            (tools, found)
        }
    };
    let mut seen = HashSet::new();
    for d in found.into_iter().filter(Diagnostic::is_error) {
        if seen.insert((d.code.clone(), d.pointer.clone())) {
            diags.push(
                Diagnostic::error(
                    "fit-invalid",
                    format!(
                        "the fitted tools/list does not validate: [{}] {}",
                        d.code, d.message
                    ),
                )
                .at(d.pointer),
            );
        }
    }
    tools
}
