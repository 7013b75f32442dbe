//! Facts about one tool schema that need no validation context: its dialect, its
//! `$ref`s (resolved by core's referencing module) and `x-mcp-header`s, `$ref` loops,
//! and the per-validation [`Cache`] of compiled validators and scans. The context
//! (`crate::ctx`) holds a [`Cache`]; nothing here reads the context, so the two do not
//! import each other.

use mcpdesc_core::local_ref::{self, LocalRefError, Resolver};
use mcpdesc_core::pointer;
use mcpdesc_core::revision::{DEFAULT_TOOL_SCHEMA_DIALECT, SUPPORTED_TOOL_SCHEMA_DIALECTS};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::{Mutex, PoisonError};

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

struct Walker<'v> {
    nodes: usize,
    /// `(pointer of the $ref member, ref)`.
    refs: Vec<(String, String)>,
    scan: RefScan,
    /// The tokens from the root to the node being walked: its pointer is written out
    /// only where a finding needs it (most nodes have none).
    path: Vec<Token<'v>>,
}

/// One reference token of [`Walker::path`].
#[derive(Clone, Copy)]
enum Token<'v> {
    Key(&'v str),
    Index(usize),
}

/// Scans a tool schema: refs, embedded resources, `x-mcp-header`s.
pub(crate) fn scan(schema: &Value) -> RefScan {
    let mut w = Walker {
        nodes: 0,
        refs: Vec::new(),
        scan: RefScan::default(),
        path: Vec::new(),
    };
    w.walk(schema, 0, true);
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

impl<'v> Walker<'v> {
    /// The pointer of the node being walked.
    fn pointer(&self) -> String {
        let mut p = String::new();
        for t in &self.path {
            match t {
                Token::Key(k) => pointer::append(&mut p, k),
                Token::Index(i) => pointer::append(&mut p, &i.to_string()),
            }
        }
        p
    }

    /// Walks `sub`, reached from the current node through `tokens`.
    fn descend(&mut self, sub: &'v Value, tokens: &[Token<'v>], depth: usize, on_chain: bool) {
        self.path.extend_from_slice(tokens);
        self.walk(sub, depth, on_chain);
        self.path.truncate(self.path.len() - tokens.len());
    }

    fn walk(&mut self, node: &'v Value, depth: usize, on_chain: bool) {
        let Some(obj) = node.as_object() else { return };
        self.nodes += 1;
        if depth > MAX_SCHEMA_DEPTH || self.nodes > MAX_SCHEMA_NODES {
            self.scan.truncated = true;
            return;
        }
        // The members this walk reads, in one pass (no lookup by hash per node).
        let (mut r, mut header, mut ty) = (None, None, None);
        for (k, v) in obj {
            match k.as_str() {
                "$ref" => r = v.as_str(),
                "not" | "if" | "oneOf" => self.scan.non_monotone = true,
                "x-mcp-header" => header = Some(v),
                "type" => ty = v.as_str(),
                _ => {}
            }
        }
        // `$id`, `$anchor` and `$ref` are resolved by core's referencing module.
        if let Some(r) = r {
            let mut at = self.pointer();
            pointer::append(&mut at, "$ref");
            self.refs.push((at, r.to_string()));
        }
        if let Some(h) = header {
            self.scan.headers.push(HeaderUse {
                node: self.pointer(),
                value: h.clone(),
                on_chain: on_chain && !self.path.is_empty(),
                ty: ty.map(str::to_string),
            });
        }
        for (k, v) in obj {
            let key = Token::Key(k.as_str());
            if MAPS.contains(&k.as_str()) {
                if let Some(m) = v.as_object() {
                    for (name, sub) in m {
                        // A property reached from the root through `properties` alone.
                        let chain = on_chain && k == "properties";
                        self.descend(sub, &[key, Token::Key(name)], depth + 1, chain);
                    }
                }
            } else if ARRAYS.contains(&k.as_str()) && v.is_array() {
                if let Some(a) = v.as_array() {
                    for (i, sub) in a.iter().enumerate() {
                        self.descend(sub, &[key, Token::Index(i)], depth + 1, false);
                    }
                }
            } else if SINGLE.contains(&k.as_str()) {
                self.descend(v, &[key], depth + 1, false);
            }
        }
    }
}

fn strip_fragment(u: &str) -> &str {
    u.split_once('#').map_or(u, |(d, _)| d)
}

/// A map keyed by schema content ([`ByContent`]), hashed with foldhash rather than
/// SipHash. SipHash's resistance to chosen collisions would buy nothing here: the
/// content hash reads a bounded prefix of a schema (its first 32 values, 24 bytes of
/// each string), so schemas that differ only further in collide under any hasher, and
/// the keys are the user's own description. foldhash (hashbrown's default, already in
/// the tree) is still seeded per process.
type ContentMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

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
    meta: ContentMap<(ByContent<'a>, Dialect), Vec<(String, String)>>,
    /// `$ref` / `x-mcp-header` scans.
    scans: ContentMap<ByContent<'a>, RefScan>,
    /// Verdicts on `$defs` members shared with other validations of the same document
    /// (its parts), when there are any.
    shared: Option<&'a DefVerdicts>,
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
        let shared = self.shared;
        self.meta
            .entry((ByContent(schema), d))
            .or_insert_with(|| {
                let valid = d == Dialect::Draft202012
                    && shared.and_then(|s| s.valid_2020_12(schema)) == Some(true);
                if valid {
                    Vec::new()
                } else {
                    d.meta_errors(schema)
                }
            })
            .clone()
    }

    /// Decides `$defs` members with `shared`'s verdicts from now on.
    pub(crate) fn share(&mut self, shared: &'a DefVerdicts) {
        self.shared = Some(shared);
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

/// Meta-schema verdicts on `$defs` members, shared by the validations of one document's
/// parts ([`crate::ToolParts`]), which may run on several threads. Producers copy the
/// same component schemas into many tool schemas' `$defs` (the GitHub import: 5,028
/// members, 461 distinct), and under JSON Schema 2020-12 a schema is meta-valid exactly
/// when it is without its `$defs` and each `$defs` member is: the meta-schema checks
/// each member as a schema of its own (`additionalProperties: {"$dynamicRef":
/// "#meta"}`, the whole meta-schema again) and no other keyword reads them. A verdict
/// is kept with a copy of the member and found by exact content, so it is the one a
/// fresh check gives; an invalid schema is checked whole again for its errors.
#[derive(Default)]
pub(crate) struct DefVerdicts {
    hasher: foldhash::fast::RandomState,
    /// Members by the hash of their content, with their verdicts.
    known: Mutex<ContentMap<u64, Vec<(Value, bool)>>>,
}

impl std::fmt::Debug for DefVerdicts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("DefVerdicts")
            .field("members", &known.values().map(Vec::len).sum::<usize>())
            .finish()
    }
}

impl DefVerdicts {
    /// Whether `schema` is valid JSON Schema 2020-12, its `$defs` members decided one by
    /// one (each once per distinct content); `None` when it has no `$defs` object.
    fn valid_2020_12(&self, schema: &Value) -> Option<bool> {
        let obj = schema.as_object()?;
        let defs = obj.get("$defs")?.as_object()?;
        let meta = jsonschema::draft202012::meta::validator();
        let rest: Map<String, Value> = obj
            .iter()
            .filter(|(k, _)| k.as_str() != "$defs")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !meta.is_valid(&Value::Object(rest)) {
            return Some(false);
        }
        Some(defs.values().all(|def| {
            let hash = self.hasher.hash_one(ByContent(def));
            self.verdict(hash, def).unwrap_or_else(|| {
                let valid = meta.is_valid(def);
                self.keep(hash, def, valid);
                valid
            })
        }))
    }

    /// The kept verdict on a member with `def`'s content.
    fn verdict(&self, hash: u64, def: &Value) -> Option<bool> {
        let known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        known
            .get(&hash)?
            .iter()
            .find(|(k, _)| ByContent(k) == ByContent(def))
            .map(|(_, valid)| *valid)
    }

    /// Keeps a verdict (once: another thread may have decided the same member).
    fn keep(&self, hash: u64, def: &Value, valid: bool) {
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        let bucket = known.entry(hash).or_default();
        if !bucket.iter().any(|(k, _)| ByContent(k) == ByContent(def)) {
            bucket.push((def.clone(), valid));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::{Cache, DefVerdicts, Dialect, scan};
    use serde_json::{Value, json};

    /// `{"properties": {"p0": S, …, "p39": S}}` with the last member replaced by `last`:
    /// equal to the others in far more than the bounded prefix the content hash reads.
    fn long_def(last: Value) -> Value {
        let mut props = serde_json::Map::new();
        for i in 0..40 {
            props.insert(format!("p{i}"), json!({"type": "string"}));
        }
        props.insert("p39".into(), last);
        json!({"properties": props})
    }

    #[test]
    fn shared_def_verdicts_are_the_whole_schemas_verdicts() {
        let shared = DefVerdicts::default();
        let good = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                          "$defs": {"A": {"type": "string"}, "B": true, "L": long_def(json!({"type": "string"}))}});
        // `type` must be a string or an array of strings (2020-12 validation vocabulary).
        let bad_member =
            json!({"type": "object", "$defs": {"A": {"type": "string"}, "B": {"type": 5}}});
        let bad_late = json!({"type": "object", "$defs": {"L": long_def(json!({"type": 5}))}});
        let bad_root = json!({"type": 7, "$defs": {"A": {"type": "string"}}});
        assert_eq!(shared.valid_2020_12(&good), Some(true));
        assert_eq!(shared.valid_2020_12(&bad_member), Some(false));
        // Same hash prefix as `good`'s member `L`, not the same content.
        assert_eq!(shared.valid_2020_12(&bad_late), Some(false));
        assert_eq!(shared.valid_2020_12(&bad_root), Some(false));
        assert_eq!(shared.valid_2020_12(&json!({"type": "object"})), None);
        for s in [&good, &bad_member, &bad_late, &bad_root, &good] {
            let mut c = Cache::default();
            c.share(&shared);
            let whole = Dialect::Draft202012.meta_errors(s);
            assert_eq!(c.meta_errors(Dialect::Draft202012, s), whole, "{s}");
            assert_eq!(whole.is_empty(), std::ptr::eq(s, &good), "{s}");
        }
    }

    #[test]
    fn scan_points_at_refs_and_headers_with_escaped_tokens() {
        let s = json!({"properties": {"a/b": {"items": [{"$ref": "#/$defs/x~y"}]},
                                      "h": {"type": "string", "x-mcp-header": "H"}},
                       "$defs": {"x~y": {"type": "string"}}});
        let r = scan(&s);
        assert!(
            r.unresolved_local.is_empty() && r.external.is_empty(),
            "{r:?}"
        );
        let headers: Vec<(&str, bool)> = r
            .headers
            .iter()
            .map(|h| (h.node.as_str(), h.on_chain))
            .collect();
        assert_eq!(headers, [("/properties/h", true)]);
        let missing = json!({"anyOf": [{"not": {"$ref": "#/$defs/none"}}]});
        assert_eq!(
            scan(&missing).unresolved_local,
            [("/anyOf/0/not/$ref".to_string(), "#/$defs/none".to_string())]
        );
        let escaped = json!({"properties": {"a/b": {"$ref": "#/nowhere"}}});
        assert_eq!(
            scan(&escaped).unresolved_local[0].0,
            "/properties/a~1b/$ref"
        );
    }
}
