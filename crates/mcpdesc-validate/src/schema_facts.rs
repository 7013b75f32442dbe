//! Facts about one tool schema that need no validation context: its dialect, its
//! `$ref`s (resolved by core's referencing module) and `x-mcp-header`s, `$ref` loops,
//! and the per-validation [`Cache`] of compiled validators and scans. The context
//! (`crate::ctx`) holds a [`Cache`]; nothing here reads the context, so the two do not
//! import each other.

use mcpdesc_core::local_ref::{self, LocalRefError, Resolver};
use mcpdesc_core::pointer;
use mcpdesc_core::revision::{DEFAULT_TOOL_SCHEMA_DIALECT, SUPPORTED_TOOL_SCHEMA_DIALECTS};
use serde_json::Value;
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::Rc;

/// Deepest schema nesting walked (§17.7: bounded recursion on untrusted input).
pub(crate) const MAX_SCHEMA_DEPTH: usize = 128;
/// Most schema nodes walked per schema.
pub(crate) const MAX_SCHEMA_NODES: usize = 100_000;
/// Most meta-schema errors reported per schema.
const MAX_META_ERRORS: usize = 10;

/// A JSON Schema dialect a tool schema can be evaluated under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Dialect {
    Draft7,
    Draft201909,
    Draft202012,
}

impl Dialect {
    /// The dialect a supported `$schema` URI names; `None` for an unsupported one.
    pub(crate) fn from_uri(uri: &str) -> Option<Self> {
        if !SUPPORTED_TOOL_SCHEMA_DIALECTS.contains(&uri) {
            return None;
        }
        Self::identify(uri)
    }
    fn identify(uri: &str) -> Option<Self> {
        if uri.contains("draft-07") {
            Some(Dialect::Draft7)
        } else if uri.contains("2019-09") {
            Some(Dialect::Draft201909)
        } else if uri.contains("2020-12") {
            Some(Dialect::Draft202012)
        } else {
            None
        }
    }
    /// The default dialect where tool schemas have one ([`Feature::ToolSchemaDialect`]).
    pub(crate) fn default_dialect() -> Self {
        Self::identify(DEFAULT_TOOL_SCHEMA_DIALECT).unwrap_or(Dialect::Draft202012)
    }
    fn draft(self) -> jsonschema::Draft {
        match self {
            Dialect::Draft7 => jsonschema::Draft::Draft7,
            Dialect::Draft201909 => jsonschema::Draft::Draft201909,
            Dialect::Draft202012 => jsonschema::Draft::Draft202012,
        }
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            Dialect::Draft7 => "JSON Schema draft-07",
            Dialect::Draft201909 => "JSON Schema 2019-09",
            Dialect::Draft202012 => "JSON Schema 2020-12",
        }
    }
    /// Meta-schema violations as `(pointer inside the schema, message)`.
    pub(crate) fn meta_errors(self, schema: &Value) -> Vec<(String, String)> {
        let v = match self {
            Dialect::Draft7 => jsonschema::draft7::meta::validator(),
            Dialect::Draft201909 => jsonschema::draft201909::meta::validator(),
            Dialect::Draft202012 => jsonschema::draft202012::meta::validator(),
        };
        // `is_valid` short-circuits and builds no error paths: several times cheaper
        // than `iter_errors` on the (usual) valid schema, same verdict.
        if v.is_valid(schema) {
            return Vec::new();
        }
        v.iter_errors(schema)
            .take(MAX_META_ERRORS)
            .map(|e| (e.instance_path().as_str().to_string(), e.to_string()))
            .collect()
    }
}

/// What a tool schema's `$ref`s look like.
#[derive(Debug, Default, Clone)]
pub(crate) struct RefScan {
    /// `(pointer of the $ref member inside the schema, ref)` for unresolved local refs.
    pub unresolved_local: Vec<(String, String)>,
    /// `(pointer of the $ref member inside the schema, ref)` for external refs.
    pub external: Vec<(String, String)>,
    /// Keywords where removing a constraint can make an instance fail (`not`, `if`, `oneOf`).
    pub non_monotone: bool,
    /// The walk stopped at [`MAX_SCHEMA_DEPTH`] / [`MAX_SCHEMA_NODES`].
    pub truncated: bool,
    /// `x-mcp-header` occurrences.
    pub headers: Vec<HeaderUse>,
    /// A loop of `$ref`s (and in-place applicators) that returns to a schema without
    /// consuming any part of the instance: `(pointer of a $ref member on it, the loop
    /// for messages)`. See [`find_ref_cycle`].
    pub ref_cycle: Option<(String, String)>,
}

/// One `x-mcp-header` annotation.
#[derive(Debug, Clone)]
pub(crate) struct HeaderUse {
    /// Pointer of the annotated schema, inside the tool schema.
    pub node: String,
    pub value: Value,
    /// Reached from the root through `properties` only.
    pub on_chain: bool,
    /// The annotated schema's `type`, when a single string.
    pub ty: Option<String>,
}

/// Subschema keywords: the one list the referencing module indexes by.
const SINGLE: &[&str] = local_ref::SUBSCHEMA_ONE;
const ARRAYS: &[&str] = local_ref::SUBSCHEMA_ARRAYS;
const MAPS: &[&str] = local_ref::SUBSCHEMA_MAPS;

struct Walker {
    nodes: usize,
    /// `(pointer of the $ref member, ref)`.
    refs: Vec<(String, String)>,
    scan: RefScan,
}

/// Scans a tool schema: refs, embedded resources, `x-mcp-header`s.
pub(crate) fn scan(schema: &Value) -> RefScan {
    let mut w = Walker {
        nodes: 0,
        refs: Vec::new(),
        scan: RefScan::default(),
    };
    w.walk(schema, "", 0, true);
    let refs = std::mem::take(&mut w.refs);
    // Schema pointer -> pointer of its local `$ref` target.
    let mut targets = HashMap::new();
    if !refs.is_empty() {
        let resolver = Resolver::new(schema);
        for (ptr, r) in refs {
            let node = ptr.strip_suffix("/$ref").unwrap_or(&ptr);
            match resolver.target_at(node, &r) {
                Ok((_, t)) => {
                    targets.insert(node.to_string(), t);
                }
                Err(LocalRefError::External(_)) => {
                    let known_meta = SUPPORTED_TOOL_SCHEMA_DIALECTS
                        .iter()
                        .any(|d| strip_fragment(d) == strip_fragment(&r));
                    if !known_meta {
                        w.scan.external.push((ptr, r));
                    }
                }
                Err(_) => w.scan.unresolved_local.push((ptr, r)),
            }
        }
    }
    if !targets.is_empty() {
        w.scan.ref_cycle = find_ref_cycle(schema, &targets);
    }
    w.scan
}

/// Keywords that apply their subschemas to the *same* instance location (JSON Schema
/// 2020-12 §10.2: in-place applicators; draft-07 `dependencies` with a schema value).
const IN_PLACE_ONE: &[&str] = &["not", "if", "then", "else"];
const IN_PLACE_MANY: &[&str] = &["allOf", "anyOf", "oneOf"];
const IN_PLACE_MAP: &[&str] = &["dependentSchemas", "dependencies"];

/// One step of evaluation that stays at the same instance location.
#[derive(Debug, Clone)]
struct Step {
    /// Pointer of the next schema inside the tool schema.
    to: String,
    /// Taken through `$ref` (else through an in-place applicator).
    via_ref: bool,
}

/// Schemas evaluated at the same instance location right after the one at `node`: its
/// local `$ref` target and its in-place applicator subschemas.
fn in_place_steps(schema: &Value, node: &str, targets: &HashMap<String, String>) -> Vec<Step> {
    let mut next = Vec::new();
    if let Some(t) = targets.get(node) {
        next.push(Step {
            to: t.clone(),
            via_ref: true,
        });
    }
    let Some(obj) = schema.pointer(node).and_then(Value::as_object) else {
        return next;
    };
    let mut sub = |to: String| next.push(Step { to, via_ref: false });
    for (k, v) in obj {
        let k = k.as_str();
        if IN_PLACE_ONE.contains(&k) && v.is_object() {
            sub(pointer::push(node, k));
        } else if IN_PLACE_MANY.contains(&k) {
            for (i, s) in v.as_array().into_iter().flatten().enumerate() {
                if s.is_object() {
                    sub(pointer::push(&pointer::push(node, k), i.to_string()));
                }
            }
        } else if IN_PLACE_MAP.contains(&k) {
            for (name, s) in v.as_object().into_iter().flatten() {
                if s.is_object() {
                    sub(pointer::push(&pointer::push(node, k), name));
                }
            }
        }
    }
    next
}

/// A schema on the depth-first search path, with the steps out of it still to try.
struct Frame {
    node: String,
    steps: Vec<Step>,
    /// Steps taken so far; the last one taken leads to the next frame.
    taken: usize,
}

/// Finds a `$ref` loop with no instance step: following `$ref`s and in-place applicators
/// from some schema leads back to it while the instance location stays the same (`A → A`,
/// `A → B → A`, or through `allOf`). Evaluating such a schema does not terminate; JSON
/// Schema 2020-12 §9.4.1 leaves the behaviour undefined, and validators differ (some
/// recurse without end, the `jsonschema` crate here answers "valid"). A recursive schema
/// that steps into the instance on the way (`properties`, `items`, …) is fine and not
/// reported. Returns `(pointer of a $ref member on the loop, the loop for messages)`.
///
/// Iterative depth-first search over the schemas reachable from a `$ref`; every schema
/// is finished once, so the work is linear in the schema.
pub(crate) fn find_ref_cycle(
    schema: &Value,
    targets: &HashMap<String, String>,
) -> Option<(String, String)> {
    // `false` while a schema is on the search path, `true` once finished.
    let mut done: HashMap<String, bool> = HashMap::new();
    let mut starts: Vec<&String> = targets.keys().collect();
    starts.sort(); // deterministic: the same loop is reported on every run
    for start in starts {
        if done.contains_key(start.as_str()) {
            continue;
        }
        done.insert(start.clone(), false);
        let mut path = vec![Frame {
            node: start.clone(),
            steps: in_place_steps(schema, start, targets),
            taken: 0,
        }];
        while let Some(top) = path.last_mut() {
            let Some(step) = top.steps.get(top.taken).cloned() else {
                done.insert(top.node.clone(), true);
                path.pop();
                continue;
            };
            top.taken += 1;
            match done.get(step.to.as_str()) {
                Some(true) => {}
                Some(false) => {
                    // `step.to` is on the path: the loop runs from it to the top.
                    let from = path.iter().position(|f| f.node == step.to).unwrap_or(0);
                    let looped = &path[from..];
                    // Applicators alone only go down the tree: a `$ref` is on the loop.
                    let via_ref = looped
                        .iter()
                        .find(|f| f.taken > 0 && f.steps[f.taken - 1].via_ref)
                        .map_or_else(
                            || pointer::push(&step.to, "$ref"),
                            |f| pointer::push(&f.node, "$ref"),
                        );
                    let shown: Vec<String> = looped
                        .iter()
                        .map(|f| f.node.as_str())
                        .chain(std::iter::once(step.to.as_str()))
                        .map(|n| format!("#{n}"))
                        .collect();
                    return Some((via_ref, shown.join(" → ")));
                }
                None => {
                    done.insert(step.to.clone(), false);
                    let steps = in_place_steps(schema, &step.to, targets);
                    path.push(Frame {
                        node: step.to,
                        steps,
                        taken: 0,
                    });
                }
            }
        }
    }
    None
}

impl Walker {
    fn walk(&mut self, node: &Value, ptr: &str, depth: usize, on_chain: bool) {
        let Some(obj) = node.as_object() else { return };
        self.nodes += 1;
        if depth > MAX_SCHEMA_DEPTH || self.nodes > MAX_SCHEMA_NODES {
            self.scan.truncated = true;
            return;
        }
        // `$id`, `$anchor` and `$ref` are resolved by core's referencing module.
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            self.refs.push((pointer::push(ptr, "$ref"), r.to_string()));
        }
        if obj.contains_key("not") || obj.contains_key("if") || obj.contains_key("oneOf") {
            self.scan.non_monotone = true;
        }
        if let Some(h) = obj.get("x-mcp-header") {
            self.scan.headers.push(HeaderUse {
                node: ptr.to_string(),
                value: h.clone(),
                on_chain: on_chain && !ptr.is_empty(),
                ty: obj.get("type").and_then(Value::as_str).map(str::to_string),
            });
        }
        for (k, v) in obj {
            // Only subschema keywords get a pointer (most members are leaves).
            if MAPS.contains(&k.as_str()) {
                let kp = pointer::push(ptr, k);
                if let Some(m) = v.as_object() {
                    for (name, sub) in m {
                        // A property reached from the root through `properties` alone.
                        let chain = on_chain && k == "properties";
                        self.walk(sub, &pointer::push(&kp, name), depth + 1, chain);
                    }
                }
            } else if ARRAYS.contains(&k.as_str()) && v.is_array() {
                let kp = pointer::push(ptr, k);
                if let Some(a) = v.as_array() {
                    for (i, sub) in a.iter().enumerate() {
                        self.walk(sub, &pointer::push(&kp, i.to_string()), depth + 1, false);
                    }
                }
            } else if SINGLE.contains(&k.as_str()) {
                self.walk(v, &pointer::push(ptr, k), depth + 1, false);
            }
        }
    }
}

fn strip_fragment(u: &str) -> &str {
    u.split_once('#').map_or(u, |(d, _)| d)
}

/// Per-document caches of everything derived from a schema's content alone, so that a
/// schema repeated across tools (common in imported and generated descriptions) is
/// meta-validated, scanned and compiled once. Keys compare content exactly, member order
/// included, so a cached result is the one a fresh computation would give.
#[derive(Default)]
pub(crate) struct Cache<'a> {
    /// Compiled validators by canonical JSON text of the schema (a content key that does
    /// not borrow: instances can come from schemas outside the document tree).
    compiled: HashMap<(String, Dialect), Option<Rc<jsonschema::Validator>>>,
    /// Meta-schema errors per dialect.
    meta: HashMap<(ByContent<'a>, Dialect), Vec<(String, String)>>,
    /// `$ref` / `x-mcp-header` scans.
    scans: HashMap<ByContent<'a>, RefScan>,
}

impl std::fmt::Debug for Cache<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("compiled", &self.compiled.len())
            .field("meta", &self.meta.len())
            .field("scans", &self.scans.len())
            .finish()
    }
}

impl<'a> Cache<'a> {
    /// [`Dialect::meta_errors`], once per distinct schema content.
    pub(crate) fn meta_errors(&mut self, d: Dialect, schema: &'a Value) -> Vec<(String, String)> {
        self.meta
            .entry((ByContent(schema), d))
            .or_insert_with(|| d.meta_errors(schema))
            .clone()
    }

    /// Compiles `schema` (with external `$ref`s removed) under `dialect`, once per
    /// distinct `(schema content, dialect)`. `None` when it does not compile.
    pub(crate) fn compiled(
        &mut self,
        schema: &Value,
        external: &[(String, String)],
        dialect: Dialect,
    ) -> Option<Rc<jsonschema::Validator>> {
        // serde_json writes members in stored order: equal text is equal content.
        let k = (schema.to_string(), dialect);
        if let Some(v) = self.compiled.get(&k) {
            return v.clone();
        }
        let v = build(schema, external, dialect).map(Rc::new);
        self.compiled.insert(k, v.clone());
        v
    }

    /// [`scan`], once per distinct schema content.
    pub(crate) fn scan(&mut self, schema: &'a Value) -> RefScan {
        self.scans
            .entry(ByContent(schema))
            .or_insert_with(|| scan(schema))
            .clone()
    }
}

/// Cache keys: schemas by exact content (the shared identity in `mcpdesc-core`).
pub(crate) use mcpdesc_core::SameJson as ByContent;

fn build(
    schema: &Value,
    external: &[(String, String)],
    dialect: Dialect,
) -> Option<jsonschema::Validator> {
    let prepared;
    let target = if external.is_empty() {
        schema
    } else {
        let mut copy = schema.clone();
        for (ref_ptr, _) in external {
            let toks = pointer::tokens(ref_ptr);
            let parent: String = toks[..toks.len().saturating_sub(1)]
                .iter()
                .map(|t| format!("/{}", pointer::escape(t)))
                .collect();
            if let Some(o) = copy.pointer_mut(&parent).and_then(Value::as_object_mut) {
                o.remove("$ref");
            }
        }
        prepared = copy;
        &prepared
    };
    jsonschema::options()
        .with_draft(dialect.draft())
        .build(target)
        .ok()
}
