//! Tool schema rules (§9.2) and validation of example instances against tool schemas.
//!
//! Nothing here fetches: a `$ref` whose target is outside the schema is preserved,
//! reported as a warning, and left out of the schema copy that instances are
//! validated against (so validation is knowingly incomplete, never silently wrong).

use super::at;
use crate::ctx::Ctx;
use mcpdesc_core::revision::{DEFAULT_TOOL_SCHEMA_DIALECT, SUPPORTED_TOOL_SCHEMA_DIALECTS};
use mcpdesc_core::{Feature, RevisionSet, pointer};
use serde_json::Value;
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::Rc;

/// Deepest schema nesting walked (§17.7: bounded recursion on untrusted input).
pub(crate) const MAX_SCHEMA_DEPTH: usize = 128;
/// Most schema nodes walked per schema.
pub(crate) const MAX_SCHEMA_NODES: usize = 100_000;
/// Most instance errors reported per validated instance.
const MAX_INSTANCE_ERRORS: usize = 10;
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

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

struct Walker<'s> {
    root: &'s Value,
    nodes: usize,
    /// Embedded resources: absolute `$id` without fragment → pointer.
    ids: HashMap<String, String>,
    /// `$anchor` (and draft-07 `"$id": "#name"`) → pointer.
    anchors: HashMap<String, String>,
    /// `(pointer of the $ref member, ref, base URI, pointer of the enclosing resource)`.
    refs: Vec<(String, String, Option<String>, String)>,
    scan: RefScan,
}

/// Scans a tool schema: refs, embedded resources, `x-mcp-header`s.
pub(crate) fn scan(schema: &Value) -> RefScan {
    let mut w = Walker {
        root: schema,
        nodes: 0,
        ids: HashMap::new(),
        anchors: HashMap::new(),
        refs: Vec::new(),
        scan: RefScan::default(),
    };
    w.walk(schema, "", 0, None, "", true);
    let refs = std::mem::take(&mut w.refs);
    // Schema pointer -> pointer of its local `$ref` target.
    let mut targets = HashMap::new();
    for (ptr, r, base, resource) in refs {
        if let Some(t) = w.classify(&ptr, r, base.as_deref(), &resource) {
            if let Some(node) = ptr.strip_suffix("/$ref") {
                targets.insert(node.to_string(), t);
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
            sub(at(node, k));
        } else if IN_PLACE_MANY.contains(&k) {
            for (i, s) in v.as_array().into_iter().flatten().enumerate() {
                if s.is_object() {
                    sub(at(&at(node, k), &i.to_string()));
                }
            }
        } else if IN_PLACE_MAP.contains(&k) {
            for (name, s) in v.as_object().into_iter().flatten() {
                if s.is_object() {
                    sub(at(&at(node, k), name));
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
                        .map_or_else(|| at(&step.to, "$ref"), |f| at(&f.node, "$ref"));
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

impl Walker<'_> {
    fn walk(
        &mut self,
        node: &Value,
        ptr: &str,
        depth: usize,
        base: Option<&str>,
        resource: &str,
        on_chain: bool,
    ) {
        let Some(obj) = node.as_object() else { return };
        self.nodes += 1;
        if depth > MAX_SCHEMA_DEPTH || self.nodes > MAX_SCHEMA_NODES {
            self.scan.truncated = true;
            return;
        }
        // A `$id` opens a new resource: fragments and relative refs resolve against it.
        let mut base_owned: Option<String> = base.map(str::to_string);
        let mut resource_owned = resource.to_string();
        if let Some(id) = obj.get("$id").and_then(Value::as_str) {
            if let Some(name) = id.strip_prefix('#') {
                self.anchors.insert(name.to_string(), ptr.to_string());
            } else if let Some(abs) = resolve_uri(id, base) {
                let key = strip_fragment(&abs).to_string();
                self.ids.insert(key.clone(), ptr.to_string());
                base_owned = Some(key);
                resource_owned = ptr.to_string();
            }
        }
        if let Some(a) = obj.get("$anchor").and_then(Value::as_str) {
            self.anchors.insert(a.to_string(), ptr.to_string());
        }
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            self.refs.push((
                at(ptr, "$ref"),
                r.to_string(),
                base_owned.clone(),
                resource_owned.clone(),
            ));
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
        let base = base_owned.as_deref();
        let resource = resource_owned.as_str();
        for (k, v) in obj {
            // Only subschema keywords get a pointer (most members are leaves).
            if MAPS.contains(&k.as_str()) {
                let kp = at(ptr, k);
                if let Some(m) = v.as_object() {
                    for (name, sub) in m {
                        // A property reached from the root through `properties` alone.
                        let chain = on_chain && k == "properties";
                        self.walk(sub, &at(&kp, name), depth + 1, base, resource, chain);
                    }
                }
            } else if ARRAYS.contains(&k.as_str()) && v.is_array() {
                let kp = at(ptr, k);
                if let Some(a) = v.as_array() {
                    for (i, sub) in a.iter().enumerate() {
                        self.walk(
                            sub,
                            &at(&kp, &i.to_string()),
                            depth + 1,
                            base,
                            resource,
                            false,
                        );
                    }
                }
            } else if SINGLE.contains(&k.as_str()) {
                self.walk(v, &at(ptr, k), depth + 1, base, resource, false);
            }
        }
    }

    /// Sorts one `$ref` into unresolved-local or external; returns the pointer of its
    /// target inside the schema when it resolves locally.
    fn classify(
        &mut self,
        ptr: &str,
        r: String,
        base: Option<&str>,
        resource: &str,
    ) -> Option<String> {
        if let Some(frag) = r.strip_prefix('#') {
            let target = self.local_target(frag, resource);
            if target.is_none() {
                self.scan.unresolved_local.push((ptr.to_string(), r));
            }
            return target;
        }
        let Some(abs) = resolve_uri(&r, base) else {
            // A relative reference with no base URI: a relative file, never read.
            self.scan.external.push((ptr.to_string(), r));
            return None;
        };
        let doc = strip_fragment(&abs);
        let frag = abs.split_once('#').map(|(_, f)| f).unwrap_or("");
        if let Some(res_ptr) = self.ids.get(doc).cloned() {
            let target = self.local_target(frag, &res_ptr);
            if target.is_none() {
                self.scan.unresolved_local.push((ptr.to_string(), r));
            }
            return target;
        }
        let known_meta = SUPPORTED_TOOL_SCHEMA_DIALECTS
            .iter()
            .any(|d| strip_fragment(d) == doc);
        if !known_meta {
            self.scan.external.push((ptr.to_string(), r));
        }
        None
    }

    /// The pointer (inside the whole schema) a fragment names in the resource at
    /// `resource`: empty = the resource, `/…` = a JSON pointer into it, else an anchor.
    fn local_target(&self, frag: &str, resource: &str) -> Option<String> {
        self.root.pointer(resource)?;
        let frag = mcpdesc_core::pointer::percent_decode(frag);
        if frag.is_empty() {
            return Some(resource.to_string());
        }
        if frag.starts_with('/') {
            let target = format!("{resource}{frag}");
            return self.root.pointer(&target).map(|_| target);
        }
        self.anchors.get(&frag).cloned()
    }
}

fn strip_fragment(u: &str) -> &str {
    u.split_once('#').map_or(u, |(d, _)| d)
}

/// Resolves a URI reference against an optional base; `None` when it is relative and
/// there is no base (or it does not parse).
fn resolve_uri(r: &str, base: Option<&str>) -> Option<String> {
    let rref = fluent_uri::UriRef::parse(r).ok()?;
    if rref.has_scheme() {
        return Some(rref.as_str().to_string());
    }
    let base = fluent_uri::Uri::parse(strip_fragment(base?)).ok()?;
    rref.resolve_against(&base)
        .ok()
        .map(|u| u.as_str().to_string())
}

/// Whether a tool schema is the Tool's input or output schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Input,
    Output,
}

impl Role {
    fn field(self) -> &'static str {
        match self {
            Role::Input => "inputSchema",
            Role::Output => "outputSchema",
        }
    }
}

/// A checked tool schema, ready to validate example instances.
#[derive(Debug)]
pub(crate) struct ToolSchema<'a> {
    pub value: &'a Value,
    /// Declared supported dialect.
    pub declared: Option<Dialect>,
    /// `$schema` present but unsupported or not a string.
    pub declared_unsupported: bool,
    pub scan: RefScan,
    /// Pre-dialect: the schema is valid under at least one supported dialect.
    pub interpretable: bool,
}

/// The result of validating one instance.
#[derive(Debug)]
pub(crate) enum Verdict {
    Valid,
    /// `(pointer inside the instance, message)`.
    Invalid(Vec<(String, String)>),
    /// Could not be evaluated completely (external refs, schema does not compile).
    Incomplete,
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

/// Compiles `schema` (with external `$ref`s removed) under `dialect`, once per distinct
/// `(schema content, dialect)`. `None` when it does not compile.
pub(crate) fn compiled(
    cx: &mut Ctx<'_>,
    schema: &Value,
    external: &[(String, String)],
    dialect: Dialect,
) -> Option<Rc<jsonschema::Validator>> {
    // serde_json writes members in stored order: equal text is equal content.
    let k = (schema.to_string(), dialect);
    if let Some(v) = cx.schemas.compiled.get(&k) {
        return v.clone();
    }
    let v = build(schema, external, dialect).map(Rc::new);
    cx.schemas.compiled.insert(k, v.clone());
    v
}

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

/// Validates `instance` against `schema` under `dialect`.
pub(crate) fn validate(
    cx: &mut Ctx<'_>,
    ts: &ToolSchema<'_>,
    dialect: Dialect,
    instance: &Value,
) -> Verdict {
    validate_value(cx, ts.value, &ts.scan, dialect, instance)
}

/// Validates `instance` against any schema value (compiled once per distinct content).
pub(crate) fn validate_value(
    cx: &mut Ctx<'_>,
    schema: &Value,
    scan: &RefScan,
    dialect: Dialect,
    instance: &Value,
) -> Verdict {
    // A looping schema is never compiled or run: validators recurse forever on it.
    if !scan.unresolved_local.is_empty() || scan.truncated || scan.ref_cycle.is_some() {
        return Verdict::Incomplete;
    }
    let Some(v) = compiled(cx, schema, &scan.external, dialect) else {
        return Verdict::Incomplete;
    };
    let errors: Vec<(String, String)> = if v.is_valid(instance) {
        Vec::new()
    } else {
        v.iter_errors(instance)
            .take(MAX_INSTANCE_ERRORS)
            .map(|e| (e.instance_path().as_str().to_string(), e.to_string()))
            .collect()
    };
    if errors.is_empty() {
        return if scan.external.is_empty() {
            Verdict::Valid
        } else {
            Verdict::Incomplete
        };
    }
    // With external refs left out the schema is weaker; a failure is still certain
    // unless a keyword could turn the missing constraint into a failure.
    if !scan.external.is_empty() && scan.non_monotone {
        return Verdict::Incomplete;
    }
    Verdict::Invalid(errors)
}

/// Checks the Tool's `inputSchema` or `outputSchema` at `tool_ptr` and returns it for
/// example validation. `None` when absent, unresolvable or not an object.
pub(crate) fn check_tool_schema<'a>(
    cx: &mut Ctx<'a>,
    tool: &'a serde_json::Map<String, Value>,
    tool_ptr: &str,
    role: Role,
    scope: RevisionSet,
) -> Option<ToolSchema<'a>> {
    let raw = tool.get(role.field())?;
    let use_ptr = at(tool_ptr, role.field());
    // Resolution errors are reported by the reference rules.
    let (value, comp) = cx.resolve(raw, "schemas").ok()?;
    let ptr = comp.unwrap_or(use_ptr);
    let Some(obj) = value.as_object() else {
        let code = match role {
            Role::Input => "tool-input-schema-not-object",
            Role::Output => "tool-output-schema-not-object",
        };
        cx.error(
            code,
            &ptr,
            format!("`{}` must be a JSON Schema object", role.field()),
        );
        return None;
    };
    let is_object_root = mcpdesc_core::schema::is_object_root(value);
    match role {
        Role::Input if !is_object_root => cx.error(
            "tool-input-schema-not-object",
            type_ptr(&ptr, obj),
            "the `inputSchema` root must describe an object (`\"type\": \"object\"`) (§9.2)",
        ),
        Role::Output if !is_object_root => {
            let revs = scope.without(Feature::OutputSchemaAnyRoot);
            if !revs.is_empty() {
                cx.error(
                    "tool-output-schema-not-object",
                    type_ptr(&ptr, obj),
                    format!("before MCP {} `outputSchema` must declare an object root; this Tool applies to {revs} (§9.2)", Feature::OutputSchemaAnyRoot.since()),
                );
            }
        }
        _ => {}
    }

    // Dialect (§9.2).
    let dialect_revs = scope.with(Feature::ToolSchemaDialect);
    let pre_revs = scope.without(Feature::ToolSchemaDialect);
    let mut declared = None;
    let mut declared_unsupported = false;
    if let Some(s) = obj.get("$schema") {
        let sp = at(&ptr, "$schema");
        if !pre_revs.is_empty() {
            cx.error(
                "tool-schema-dialect-inapplicable",
                &sp,
                format!("`$schema` in a tool schema is defined only {}; this Tool applies to {pre_revs} (§9.2)", Feature::ToolSchemaDialect.phrase()),
            );
        }
        match s.as_str().and_then(Dialect::from_uri) {
            Some(d) => declared = Some(d),
            None => {
                declared_unsupported = true;
                if !dialect_revs.is_empty() {
                    cx.error(
                        "tool-schema-dialect-unsupported",
                        &sp,
                        format!(
                            "unsupported tool-schema dialect {s}; supported: {}",
                            SUPPORTED_TOOL_SCHEMA_DIALECTS.join(", ")
                        ),
                    );
                }
            }
        }
    }
    if !dialect_revs.is_empty() && !declared_unsupported {
        let d = declared.unwrap_or_else(Dialect::default_dialect);
        for (p, m) in cx.schemas.meta_errors(d, value) {
            cx.error(
                "tool-schema-invalid",
                format!("{ptr}{p}"),
                format!(
                    "`{}` is not valid {} (required for {dialect_revs}): {m}",
                    role.field(),
                    d.name()
                ),
            );
        }
    }
    let mut interpretable = true;
    if !pre_revs.is_empty() {
        let shape_ok = check_shape(cx, obj, &ptr, role, pre_revs);
        // Valid under either dialect. The one just checked above for the dialect
        // revisions (usually 2020-12) goes first: it is cached, and when it holds the
        // other is never computed. Same verdict in any order.
        let mut dialects = [Dialect::Draft7, Dialect::Draft202012];
        if declared.unwrap_or_else(Dialect::default_dialect) == Dialect::Draft202012 {
            dialects.reverse();
        }
        interpretable = dialects
            .iter()
            .any(|d| cx.schemas.meta_errors(*d, value).is_empty());
        if shape_ok && !interpretable && declared.is_none() {
            cx.warn(
                "tool-schema-uninterpretable",
                &ptr,
                format!(
                    "`{}` is valid under neither JSON Schema draft-07 nor 2020-12; MCP {pre_revs} define no dialect for tool schemas, so its keywords are preserved but cannot be interpreted and validation is incomplete (§9.2)",
                    role.field()
                ),
            );
        }
    }

    let scan = cx.schemas.scan(value);
    for (p, r) in &scan.unresolved_local {
        let at = format!("{ptr}{p}");
        if dialect_revs.is_empty() {
            // §9.2: before a dialect is defined only the shape is enforced, and other
            // keywords (`$ref` among them) MUST NOT be rejected by an inferred
            // meta-schema. Like `tool-schema-uninterpretable`, a warning.
            cx.warn(
                "tool-schema-ref-unresolved",
                at,
                format!("local `$ref` `{r}` does not resolve inside the schema; MCP {pre_revs} define no dialect for tool schemas, so it is preserved, but the schema cannot be evaluated and validation is incomplete (§9.2)"),
            );
        } else {
            cx.error(
                "tool-schema-ref-unresolved",
                at,
                format!("local `$ref` `{r}` does not resolve inside the schema (required to be valid for MCP {dialect_revs}) (§9.2)"),
            );
        }
    }
    if let Some((p, path)) = &scan.ref_cycle {
        cx.warn(
            "tool-schema-ref-cycle",
            format!("{ptr}{p}"),
            format!("`{}` loops back to itself without consuming any part of the instance ({path}); JSON Schema 2020-12 §9.4.1 leaves such schemas undefined and common validators fail on them, so instances were not validated against it (§9.2)", role.field()),
        );
    }
    for (p, r) in &scan.external {
        cx.warn(
            "tool-schema-ref-external",
            format!("{ptr}{p}"),
            format!("external `$ref` `{r}` is preserved and was not retrieved; embedded-schema validation is incomplete (§9.2)"),
        );
    }
    if scan.truncated {
        cx.warn(
            "payload-validation-limit",
            &ptr,
            format!("schema deeper than {MAX_SCHEMA_DEPTH} levels or larger than {MAX_SCHEMA_NODES} nodes; not fully validated"),
        );
    }
    check_headers(cx, &scan.headers, &ptr, role, scope);
    Some(ToolSchema {
        value,
        declared,
        declared_unsupported,
        scan,
        interpretable,
    })
}

fn type_ptr(ptr: &str, obj: &serde_json::Map<String, Value>) -> String {
    if obj.contains_key("type") {
        at(ptr, "type")
    } else {
        ptr.to_string()
    }
}

/// Pre-dialect shape rules (§9.2): `properties` an object of objects, `required` an
/// array of strings. Returns whether the shape holds.
fn check_shape(
    cx: &mut Ctx<'_>,
    obj: &serde_json::Map<String, Value>,
    ptr: &str,
    role: Role,
    revs: RevisionSet,
) -> bool {
    let mut ok = true;
    if let Some(p) = obj.get("properties") {
        let pp = at(ptr, "properties");
        match p.as_object() {
            Some(m) => {
                for (k, v) in m {
                    if !v.is_object() {
                        ok = false;
                        cx.error(
                            "tool-schema-shape",
                            at(&pp, k),
                            format!(
                                "`{}` property schemas must be objects in MCP {revs} (§9.2)",
                                role.field()
                            ),
                        );
                    }
                }
            }
            None => {
                ok = false;
                cx.error(
                    "tool-schema-shape",
                    pp,
                    format!("`properties` must be an object in MCP {revs} (§9.2)"),
                );
            }
        }
    }
    if let Some(r) = obj.get("required") {
        let rp = at(ptr, "required");
        match r.as_array() {
            Some(a) => {
                for (i, v) in a.iter().enumerate() {
                    if !v.is_string() {
                        ok = false;
                        cx.error(
                            "tool-schema-shape",
                            at(&rp, &i.to_string()),
                            format!("`required` entries must be strings in MCP {revs} (§9.2)"),
                        );
                    }
                }
            }
            None => {
                ok = false;
                cx.error(
                    "tool-schema-shape",
                    rp,
                    format!("`required` must be an array of strings in MCP {revs} (§9.2)"),
                );
            }
        }
    }
    ok
}

/// `x-mcp-header` rules (§9.2).
fn check_headers(
    cx: &mut Ctx<'_>,
    headers: &[HeaderUse],
    ptr: &str,
    role: Role,
    scope: RevisionSet,
) {
    let inapplicable = scope.without(Feature::McpHeader);
    let mut seen: Vec<String> = Vec::new();
    for h in headers {
        let hp = at(&format!("{ptr}{}", h.node), "x-mcp-header");
        if !inapplicable.is_empty() {
            cx.error(
                "mcp-header-inapplicable",
                &hp,
                format!(
                    "`x-mcp-header` is defined only {}; this Tool applies to {inapplicable} (§9.2)",
                    Feature::McpHeader.phrase()
                ),
            );
        }
        match h.value.as_str() {
            Some(name) if mcpdesc_core::http::is_token(name) => {
                let lower = name.to_ascii_lowercase();
                if seen.contains(&lower) {
                    cx.error(
                        "mcp-header-duplicate",
                        &hp,
                        format!("header `{name}` is already mapped by another property of this inputSchema (case-insensitive) (§9.2)"),
                    );
                } else {
                    seen.push(lower);
                }
            }
            _ => cx.error(
                "mcp-header-invalid-value",
                &hp,
                format!(
                    "`x-mcp-header` must be a non-empty HTTP field-name token, found {} (§9.2)",
                    h.value
                ),
            ),
        }
        let placement = if role == Role::Output {
            Some("it annotates `inputSchema` properties only".to_string())
        } else if !h.on_chain {
            Some("the property must be reachable from the schema root through `properties` only (not arrays, composition, conditionals or `$ref`)".to_string())
        } else if !matches!(h.ty.as_deref(), Some("string" | "integer" | "boolean")) {
            Some(format!(
                "the property must have `type` string, integer or boolean, found {}",
                h.ty.as_deref()
                    .map_or("no single type".to_string(), |t| format!("`{t}`"))
            ))
        } else {
            None
        };
        if let Some(why) = placement {
            cx.error(
                "mcp-header-placement",
                &hp,
                format!("misplaced `x-mcp-header`: {why} (§9.2)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    fn tool(revs: &[&str], t: Value) -> Value {
        doc(revs, json!({"tools": [t]}))
    }

    #[test]
    fn input_root_must_be_object() {
        let d = tool(
            &["2026-07-28"],
            json!({"name": "t", "inputSchema": {"type": "string"}}),
        );
        assert!(has(
            &errors(&d),
            "tool-input-schema-not-object",
            "/tools/0/inputSchema/type"
        ));
        let d = tool(
            &["2026-07-28"],
            json!({"name": "t", "inputSchema": {"properties": {}}}),
        );
        assert!(has(
            &errors(&d),
            "tool-input-schema-not-object",
            "/tools/0/inputSchema"
        ));
        let ok = tool(
            &["2026-07-28"],
            json!({"name": "t", "inputSchema": {"type": "object"}}),
        );
        assert!(run(&ok).is_empty());
    }

    #[test]
    fn input_root_checked_after_component_resolution() {
        let d = doc(
            &["2026-07-28"],
            json!({"components": {"schemas": {"S": {"type": "array"}}},
                   "tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/S"}}]}),
        );
        assert!(has(
            &errors(&d),
            "tool-input-schema-not-object",
            "/components/schemas/S/type"
        ));
        // An unresolvable reference is left to the reference rules.
        let d = doc(
            &["2026-07-28"],
            json!({"tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/Nope"}}]}),
        );
        assert!(run(&d).is_empty());
    }

    #[test]
    fn output_root_object_only_before_2026() {
        let t = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array", "items": {"type": "string"}}});
        assert!(has(
            &errors(&tool(&["2025-11-25"], t.clone())),
            "tool-output-schema-not-object",
            "/tools/0/outputSchema/type"
        ));
        assert!(errors(&tool(&["2026-07-28"], t.clone())).is_empty());
        assert!(has(
            &errors(&tool(&["2025-11-25", "2026-07-28"], t)),
            "tool-output-schema-not-object",
            "/tools/0/outputSchema/type"
        ));
    }

    #[test]
    fn dialect_declaration_per_revision() {
        let t = |s: &str| json!({"name": "t", "inputSchema": {"$schema": s, "type": "object"}});
        let d2020 = "https://json-schema.org/draft/2020-12/schema";
        let d7 = "http://json-schema.org/draft-07/schema#";
        assert!(has(
            &errors(&tool(&["2025-06-18"], t(d2020))),
            "tool-schema-dialect-inapplicable",
            "/tools/0/inputSchema/$schema"
        ));
        assert!(run(&tool(&["2025-11-25"], t(d2020))).is_empty());
        assert!(
            run(&tool(&["2026-07-28"], t(d7))).is_empty(),
            "real servers send draft-07"
        );
        let e = errors(&tool(
            &["2026-07-28"],
            t("http://json-schema.org/draft-04/schema#"),
        ));
        assert!(has(
            &e,
            "tool-schema-dialect-unsupported",
            "/tools/0/inputSchema/$schema"
        ));
    }

    #[test]
    fn schema_must_be_valid_under_its_dialect() {
        let t = json!({"name": "t", "inputSchema": {"type": "object", "required": "query"}});
        let e = errors(&tool(&["2026-07-28"], t.clone()));
        assert!(
            has(&e, "tool-schema-invalid", "/tools/0/inputSchema/required"),
            "{e:?}"
        );
        // Pre-dialect revisions: the shape rule, not a meta-schema.
        let e = errors(&tool(&["2024-11-05"], t));
        assert_eq!(
            e,
            vec![(
                "tool-schema-shape".to_string(),
                "/tools/0/inputSchema/required".to_string()
            )]
        );
        let t = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"a": true}}});
        assert!(has(
            &errors(&tool(&["2025-03-26"], t.clone())),
            "tool-schema-shape",
            "/tools/0/inputSchema/properties/a"
        ));
        assert!(
            errors(&tool(&["2026-07-28"], t)).is_empty(),
            "boolean subschemas are valid 2020-12"
        );
    }

    #[test]
    fn pre_dialect_uninterpretable_keywords_warn() {
        let t = json!({"name": "t", "inputSchema": {"type": "object",
            "properties": {"value": {"type": "number", "exclusiveMinimum": true}}, "required": ["value"]}});
        let d = tool(&["2024-11-05"], t.clone());
        assert!(errors(&d).is_empty());
        assert!(has(
            &warnings(&d),
            "tool-schema-uninterpretable",
            "/tools/0/inputSchema"
        ));
        // The same schema is simply invalid where a dialect applies.
        assert!(has(
            &errors(&tool(&["2025-11-25"], t)),
            "tool-schema-invalid",
            "/tools/0/inputSchema/properties/value/exclusiveMinimum"
        ));
        let fine = tool(
            &["2025-06-18"],
            json!({"name": "t", "inputSchema": {"type": "object", "properties": {"v": {"type": "number"}}}}),
        );
        assert!(run(&fine).is_empty());
    }

    #[test]
    fn local_and_external_refs() {
        let t = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"id": {"$ref": "#/$defs/identifier"}}}});
        assert!(has(
            &errors(&tool(&["2026-07-28"], t)),
            "tool-schema-ref-unresolved",
            "/tools/0/inputSchema/properties/id/$ref"
        ));
        let t = json!({"name": "t", "inputSchema": {"type": "object", "$defs": {"identifier": {"type": "string"}},
            "definitions": {"a~b": {"type": "string"}, "c/d": {"type": "string"}},
            "properties": {"id": {"$ref": "#/$defs/identifier"}, "x": {"$ref": "#/definitions/a~0b"}, "y": {"$ref": "#/definitions/c~1d"},
                           "z": {"$ref": "#"}, "w": {"$anchor": "w", "type": "string"}, "v": {"$ref": "#w"}}}});
        assert!(run(&tool(&["2026-07-28"], t)).is_empty());
        let t = json!({"name": "t", "inputSchema": {"type": "object", "properties": {
            "a": {"$ref": "https://schemas.example.com/common.json#/$defs/identifier"},
            "b": {"$ref": "common.json"}}}});
        let d = tool(&["2026-07-28"], t);
        assert!(errors(&d).is_empty());
        let w = warnings(&d);
        assert!(has(
            &w,
            "tool-schema-ref-external",
            "/tools/0/inputSchema/properties/a/$ref"
        ));
        assert!(has(
            &w,
            "tool-schema-ref-external",
            "/tools/0/inputSchema/properties/b/$ref"
        ));
        // Embedded resources are local.
        let t = json!({"name": "t", "inputSchema": {"$id": "https://x.example/root.json", "type": "object",
            "$defs": {"c": {"$id": "common.json", "$defs": {"id": {"type": "string"}}}},
            "properties": {"a": {"$ref": "common.json#/$defs/id"}, "b": {"$ref": "common.json#/$defs/nope"}}}});
        let e = errors(&tool(&["2026-07-28"], t));
        assert_eq!(
            e,
            vec![(
                "tool-schema-ref-unresolved".to_string(),
                "/tools/0/inputSchema/properties/b/$ref".to_string()
            )]
        );
    }

    #[test]
    fn mcp_header_rules() {
        let schema = |props: Value| json!({"name": "t", "inputSchema": {"type": "object", "properties": props}});
        let ok = schema(
            json!({"region": {"type": "string", "x-mcp-header": "X-Region"},
                               "nested": {"type": "object", "properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}}}),
        );
        assert!(run(&tool(&["2026-07-28"], ok.clone())).is_empty());
        assert!(has(
            &errors(&tool(&["2025-11-25"], ok)),
            "mcp-header-inapplicable",
            "/tools/0/inputSchema/properties/region/x-mcp-header"
        ));
        let dup = schema(
            json!({"region": {"type": "string", "x-mcp-header": "X-Region"},
                                "fallbackRegion": {"type": "string", "x-mcp-header": "x-region"}}),
        );
        assert_eq!(
            errors(&tool(&["2026-07-28"], dup)),
            vec![(
                "mcp-header-duplicate".to_string(),
                "/tools/0/inputSchema/properties/fallbackRegion/x-mcp-header".to_string()
            )]
        );
        let bad = schema(json!({"region": {"type": "number", "x-mcp-header": "Invalid Header"}}));
        let e = errors(&tool(&["2026-07-28"], bad));
        assert!(has(
            &e,
            "mcp-header-invalid-value",
            "/tools/0/inputSchema/properties/region/x-mcp-header"
        ));
        assert!(has(
            &e,
            "mcp-header-placement",
            "/tools/0/inputSchema/properties/region/x-mcp-header"
        ));
        let composed = json!({"name": "t", "inputSchema": {"type": "object", "allOf": [{"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}]}});
        assert_eq!(
            errors(&tool(&["2026-07-28"], composed)),
            vec![(
                "mcp-header-placement".to_string(),
                "/tools/0/inputSchema/allOf/0/properties/region/x-mcp-header".to_string()
            )]
        );
        let in_array = schema(
            json!({"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}),
        );
        assert!(has(
            &errors(&tool(&["2026-07-28"], in_array)),
            "mcp-header-placement",
            "/tools/0/inputSchema/properties/list/items/x-mcp-header"
        ));
    }

    /// Loops with no instance step (JSON Schema 2020-12 §9.4.1), written by hand: through
    /// `$ref` alone, through in-place applicators, through an anchor; recursion that steps
    /// into the instance is not one.
    #[test]
    fn ref_loops_without_an_instance_step() {
        let cycle = |s: Value| scan(&s).ref_cycle.map(|(p, _)| p);
        assert_eq!(cycle(json!({"$ref": "#"})), Some("/$ref".into()));
        assert_eq!(
            cycle(json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}})),
            Some("/$defs/A/$ref".into())
        );
        assert_eq!(
            cycle(json!({"$ref": "#/$defs/A", "$defs": {"A": {"not": {"$ref": "#"}}}})),
            Some("/$ref".into())
        );
        assert_eq!(
            cycle(
                json!({"$defs": {"A": {"$anchor": "a", "anyOf": [{"type": "null"}, {"$ref": "#a"}]}}})
            ),
            Some("/$defs/A/anyOf/1/$ref".into())
        );
        assert_eq!(
            cycle(json!({"$defs": {"A": {"if": {"$ref": "#/$defs/A"}}}})),
            Some("/$defs/A/if/$ref".into())
        );
        // Steps into the instance: properties, items, additionalProperties.
        for fine in [
            json!({"type": "object", "properties": {"next": {"$ref": "#"}}}),
            json!({"$defs": {"L": {"type": "array", "items": {"$ref": "#/$defs/L"}}}, "$ref": "#/$defs/L"}),
            json!({"additionalProperties": {"allOf": [{"$ref": "#"}]}}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}}, "$ref": "#/$defs/A"}),
        ] {
            assert_eq!(cycle(fine.clone()), None, "{fine}");
        }
        // The message names the loop.
        let (_, shown) =
            scan(&json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}))
                .ref_cycle
                .unwrap_or_default();
        assert_eq!(shown, "#/$defs/A → #/$defs/B → #/$defs/A");
    }

    #[test]
    fn validates_instances_with_the_declared_dialect() {
        let root = json!({});
        let Some(obj) = root.as_object() else {
            unreachable!()
        };
        let mut cx = Ctx::new(&root, obj);
        let s =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let sc = scan(&s);
        assert!(matches!(
            validate_value(&mut cx, &s, &sc, Dialect::Draft202012, &json!({"n": 1})),
            Verdict::Valid
        ));
        match validate_value(&mut cx, &s, &sc, Dialect::Draft202012, &json!({"n": "x"})) {
            Verdict::Invalid(e) => assert_eq!(e[0].0, "/n"),
            v => panic!("expected invalid, got {v:?}"),
        }
        // draft-07 `items` array form vs 2020-12 `prefixItems`.
        let s = json!({"type": "array", "items": [{"type": "string"}]});
        let sc = scan(&s);
        assert!(matches!(
            validate_value(&mut cx, &s, &sc, Dialect::Draft7, &json!(["a", 1])),
            Verdict::Valid
        ));
        // External refs: weaker schema, incomplete verdict.
        let s =
            json!({"type": "object", "properties": {"id": {"$ref": "https://x.invalid/id.json"}}});
        let sc = scan(&s);
        assert!(matches!(
            validate_value(&mut cx, &s, &sc, Dialect::Draft202012, &json!({"id": 1})),
            Verdict::Incomplete
        ));
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use serde_json::json;
    use std::collections::hash_map::DefaultHasher;
    use std::hash::Hasher as _;

    fn h(v: &Value) -> u64 {
        let mut s = DefaultHasher::new();
        ByContent(v).hash(&mut s);
        s.finish()
    }

    #[test]
    fn content_key_is_exact_and_order_sensitive() {
        let a = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}});
        let same =
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}});
        let reordered =
            json!({"properties": {"n": {"type": "integer", "minimum": 1}}, "type": "object"});
        let float =
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.0}}});
        assert_eq!(ByContent(&a), ByContent(&same));
        assert_eq!(h(&a), h(&same));
        // Member order is part of the key: cached findings keep document order.
        assert_ne!(ByContent(&a), ByContent(&reordered));
        // 1 and 1.0 are different JSON values to serde_json and to the meta-schema's messages.
        assert_ne!(ByContent(&a), ByContent(&float));
        assert_ne!(ByContent(&json!([1, [2]])), ByContent(&json!([[1], 2])));
    }

    #[test]
    fn cached_meta_errors_equal_fresh_ones() {
        let bad = json!({"type": "object", "required": "n", "minProperties": -1});
        let fresh = Dialect::Draft202012.meta_errors(&bad);
        assert!(!fresh.is_empty());
        let mut cache = Cache::default();
        assert_eq!(cache.meta_errors(Dialect::Draft202012, &bad), fresh);
        assert_eq!(cache.meta_errors(Dialect::Draft202012, &bad), fresh);
        assert!(
            cache
                .meta_errors(Dialect::Draft7, &json!({"type": "object"}))
                .is_empty()
        );
    }
}
