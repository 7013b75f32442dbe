//! Direction-aware comparison of two JSON Schemas.
//!
//! # Model
//!
//! A schema denotes the set of JSON values it accepts. For OLD and NEW, each keyword
//! family is compared on its own and classified as *narrowing* (NEW accepts a subset),
//! *widening* (a superset), *changing* (neither) or *undecided*:
//!
//! - **Input schemas** are contravariant: callers send values OLD accepted, so a
//!   narrowing breaks them and a widening does not.
//! - **Output schemas** are covariant: clients handle values OLD allowed, so a widening
//!   breaks them and a narrowing does not.
//!
//! Keywords and their order relations:
//! - `type` as a set of JSON types with `integer` ⊂ `number` (type lists and `null`
//!   unions included); `enum`/`const` as value sets, filtered by the schema's own `type`
//!   (when both sides enumerate, the value sets decide and `type` is not compared);
//! - numeric bounds (`minimum`, `maximum`, `exclusive*` in both the 2020-12 and the
//!   draft-04 boolean form, `multipleOf` by divisibility), length and count bounds;
//! - `format` (added: narrowing; removed: widening; changed: both), `uniqueItems`;
//!   `pattern` is never compared as a language: added/removed/changed are at most
//!   *possibly* breaking in the harmful direction;
//! - objects: `properties` (recursively), `required`, `additionalProperties`
//!   (`false`/schema/absent); a property missing on one side is compared with the
//!   schema that side applies to it (`additionalProperties`, or undecided when
//!   `patternProperties` could match it);
//! - arrays: `items`, `prefixItems` (and draft-07 `items` arrays with `additionalItems`),
//!   position by position against the other side's rest schema;
//! - `allOf`/`anyOf`/`oneOf`: alternatives are matched by equality; unmatched ones are
//!   paired in order and compared; added and removed alternatives are widenings and
//!   narrowings of the union. Union and intersection are monotone, so inside an
//!   `anyOf`/`allOf` alternative a harmless change stays harmless and a harmful one is
//!   *possibly* breaking (another alternative may mask it); `oneOf` is not monotone (a
//!   value matching two alternatives is rejected), so inside it every change is at most
//!   possibly breaking and never "compatible" ([`crate::Mask`]);
//! - `not`, `if`/`then`/`else`, `patternProperties` keys, `propertyNames`, `contains`,
//!   `dependent*`, `unevaluated*` and unknown keywords: any change is undecided;
//! - annotations (`title`, `description`, `default`, `deprecated`, `readOnly`,
//!   `writeOnly`, `content*`) are info; `examples` and `$comment` are ignored.
//!
//! Local `$ref`s (`#…` fragments into the schema resource) are resolved and their
//! targets compared; pairs already being compared are assumed equal (recursive
//! schemas are compared coinductively), and depth and work are bounded: beyond the
//! budget the difference is reported as undecided. Where compatibility cannot be
//! proven, the result is "possibly breaking", never silence and never "compatible".

use crate::report::Message;
use crate::rules::RuleId::{self, *};
use crate::{Mask, Raw};
use mcpdesc_core::local_ref::Resolver;
use mcpdesc_core::pointer;
use mcpdesc_core::same_json::{canonical_text as canon, json_eq};
use mcpdesc_core::schema as json_schema;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Which side of a tool a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// `inputSchema`: arguments the caller sends (contravariant).
    Input,
    /// `outputSchema`: structured content the server returns (covariant).
    Output,
}

/// A schema resource: the value local `$ref`s resolve against, and its pointer in the
/// original document (`/tools/3/inputSchema`, `/components/schemas/In`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resource<'a> {
    pub root: &'a Value,
    pub ptr: &'a str,
}

/// Nesting depth the comparison follows.
const MAX_DEPTH: usize = 64;
/// Schema pairs compared per schema pair before giving up (undecided).
const MAX_STEPS: usize = 200_000;
/// `$ref` hops followed in one chain: the one bound of the referencing module.
const MAX_REF_HOPS: usize = mcpdesc_core::local_ref::MAX_REF_CHAIN;

/// `true` as a schema: what an absent subschema means.
static ANY: Value = Value::Bool(true);

/// Compares OLD and NEW schema resources in direction `dir`.
pub(crate) fn compare(dir: Dir, old: Resource<'_>, new: Resource<'_>) -> Vec<Raw> {
    let mut cx = Cx {
        dir,
        old,
        new,
        roots_equal: old.root == new.root,
        old_refs: Resolver::new(old.root),
        new_refs: Resolver::new(new.root),
        seen: HashSet::new(),
        has_ref: HashMap::new(),
        steps: 0,
        budget_reported: false,
        out: Vec::new(),
    };
    let o = Node::root(old);
    let n = Node::root(new);
    cx.node(o, n, Mask::None, 0);
    cx.out
}

/// A subschema in context: its value, its pointer in the original document, whether
/// it is present (an absent subschema is `true`, pointed at its parent) and a short
/// human path for messages (`owner.login`, `labels[]`).
#[derive(Debug, Clone)]
struct Node<'a> {
    v: &'a Value,
    ptr: String,
    present: bool,
    path: String,
}

impl<'a> Node<'a> {
    fn root(r: Resource<'a>) -> Self {
        Node {
            v: r.root,
            ptr: r.ptr.to_string(),
            present: true,
            path: String::new(),
        }
    }
    /// The subschema under `keys` (pointer tokens), or an absent one.
    fn child(&self, v: Option<&'a Value>, keys: &[&str], path: String) -> Node<'a> {
        match v {
            Some(v) => {
                let mut ptr = self.ptr.clone();
                for k in keys {
                    ptr = pointer::push(&ptr, k);
                }
                Node {
                    v,
                    ptr,
                    present: true,
                    path,
                }
            }
            None => Node {
                v: &ANY,
                ptr: self.ptr.clone(),
                present: false,
                path,
            },
        }
    }
    fn map(&self) -> Option<&'a Map<String, Value>> {
        self.v.as_object()
    }
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.map().and_then(|m| m.get(k))
    }
    /// Pointer of keyword `k` when present, else of the schema itself.
    fn at(&self, k: &str) -> String {
        if self.get(k).is_some() {
            pointer::push(&self.ptr, k)
        } else {
            self.ptr.clone()
        }
    }
    fn sub_path(&self, seg: &str) -> String {
        if self.path.is_empty() {
            seg.to_string()
        } else if seg.starts_with('[') || seg.starts_with('(') {
            format!("{}{seg}", self.path)
        } else {
            format!("{}.{seg}", self.path)
        }
    }
}

struct Cx<'a> {
    dir: Dir,
    old: Resource<'a>,
    new: Resource<'a>,
    roots_equal: bool,
    /// The referencing module's index of each side's resource.
    old_refs: Resolver<'a>,
    new_refs: Resolver<'a>,
    /// Pairs (by pointer) already compared or being compared.
    seen: HashSet<(String, bool, String, bool)>,
    /// Memo: does the value (by address) contain a `$ref`?
    has_ref: HashMap<usize, bool>,
    steps: usize,
    budget_reported: bool,
    out: Vec<Raw>,
}

/// JSON type bits: `number` is INT | FRAC.
const NULL: u8 = 1;
const BOOL: u8 = 2;
const OBJ: u8 = 4;
const ARR: u8 = 8;
const STR: u8 = 16;
const INT: u8 = 32;
const FRAC: u8 = 64;
const ALL: u8 = 127;

/// The annotations compared as info ([`json_schema::is_annotation`]: no effect on
/// which values are accepted), in report order; `examples` and `$comment` are
/// [`IGNORED`].
fn annotations() -> impl Iterator<Item = &'static str> {
    json_schema::META_DATA_KEYWORDS
        .into_iter()
        .chain(json_schema::CONTENT_KEYWORDS)
        .filter(|k| !IGNORED.contains(k))
}
/// Keywords with no effect here at all (`$defs` are compared through the `$ref`s that
/// use them).
const IGNORED: &[&str] = &["examples", "$comment", "$defs", "definitions"];
/// Keywords this module models (everything else is compared as an opaque value).
const MODELLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$schema",
];

/// Keywords that leave a schema accepting everything and may sit beside a `$ref`
/// without changing what it means.
fn transparent(k: &str) -> bool {
    json_schema::is_annotation(k)
        || IGNORED.contains(&k)
        || matches!(k, "$schema" | "$id" | "$anchor" | "$dynamicAnchor")
        || (k.starts_with("x-") && k != "x-mcp-header")
}

/// `Some(true)` for a schema that accepts everything (`true`, `{}`, annotations only),
/// `Some(false)` for one that accepts nothing (`false`, `{"not": {}}`), else `None`.
fn trivial(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Object(m) => {
            if m.keys().all(|k| transparent(k)) {
                return Some(true);
            }
            if m.keys().all(|k| k == "not" || transparent(k))
                && m.get("not").and_then(trivial) == Some(true)
            {
                return Some(false);
            }
            None
        }
        _ => None,
    }
}

fn type_bit(name: &str) -> u8 {
    match name {
        "null" => NULL,
        "boolean" => BOOL,
        "object" => OBJ,
        "array" => ARR,
        "string" => STR,
        "number" => INT | FRAC,
        "integer" => INT,
        _ => 0,
    }
}

fn type_bits(n: &Node<'_>) -> u8 {
    match n.get("type") {
        Some(Value::String(s)) => type_bit(s),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .fold(0, |b, s| b | type_bit(s)),
        _ => ALL,
    }
}

fn value_bit(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOL,
        Value::Object(_) => OBJ,
        Value::Array(_) => ARR,
        Value::String(_) => STR,
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                INT
            } else {
                FRAC
            }
        }
    }
}

/// Type bits in words, for messages.
fn type_words(bits: u8) -> String {
    if bits == ALL {
        return "any type".into();
    }
    if bits == 0 {
        return "no type".into();
    }
    let mut names = Vec::new();
    for (b, name) in [
        (NULL, "null"),
        (BOOL, "boolean"),
        (OBJ, "object"),
        (ARR, "array"),
        (STR, "string"),
    ] {
        if bits & b != 0 {
            names.push(name);
        }
    }
    match bits & (INT | FRAC) {
        x if x == INT | FRAC => names.push("number"),
        INT => names.push("integer"),
        FRAC => names.push("non-integer number"),
        _ => {}
    }
    names.join(", ")
}

fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

fn text_num(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// A numeric bound: its value, whether it is exclusive, and the keyword that set it.
#[derive(Debug, Clone, Copy)]
struct Bound<'a> {
    value: f64,
    exclusive: bool,
    key: &'static str,
    raw: &'a Value,
}

/// The stricter of `minimum`/`exclusiveMinimum` (or of the maxima when `upper`);
/// accepts the draft-04 boolean `exclusiveMinimum: true`.
fn bound<'a>(n: &Node<'a>, upper: bool) -> Option<Bound<'a>> {
    let (inc_key, exc_key) = if upper {
        ("maximum", "exclusiveMaximum")
    } else {
        ("minimum", "exclusiveMinimum")
    };
    let inc = n.get(inc_key).and_then(|raw| {
        raw.as_f64().map(|value| Bound {
            value,
            exclusive: false,
            key: inc_key,
            raw,
        })
    });
    let exc = match n.get(exc_key) {
        Some(raw @ Value::Number(_)) => raw.as_f64().map(|value| Bound {
            value,
            exclusive: true,
            key: exc_key,
            raw,
        }),
        Some(Value::Bool(true)) => inc.map(|b| Bound {
            exclusive: true,
            ..b
        }),
        _ => None,
    };
    match (inc, exc) {
        (Some(a), Some(b)) => Some(if stricter(&b, &a, upper) { b } else { a }),
        (a, b) => b.or(a),
    }
}

/// Whether `a` admits fewer numbers than `b` (both lower bounds, or both upper).
fn stricter(a: &Bound<'_>, b: &Bound<'_>, upper: bool) -> bool {
    let further = if upper {
        a.value < b.value
    } else {
        a.value > b.value
    };
    further || (a.value == b.value && a.exclusive && !b.exclusive)
}

fn describe_bound(b: &Bound<'_>) -> String {
    format!("`{}` {}", b.key, text_num(b.raw))
}

/// Whether `x` is an integer multiple of `y` (both positive).
fn is_multiple(x: f64, y: f64) -> bool {
    if y == 0.0 {
        return false;
    }
    let r = x / y;
    r.is_finite() && (r - r.round()).abs() < 1e-9
}

impl<'a> Cx<'a> {
    fn pick(&self, input: RuleId, output: RuleId) -> RuleId {
        match self.dir {
            Dir::Input => input,
            Dir::Output => output,
        }
    }

    fn emit(&mut self, rule: RuleId, masked: Mask, o: String, n: String, msg: Message) {
        self.out.push(Raw {
            rule,
            masked,
            old: Some(o),
            new: Some(n),
            msg,
        });
    }

    /// A message about `node`: `path: …` when below the root.
    fn msg(node: &Node<'_>) -> Message {
        if node.path.is_empty() {
            Message::new()
        } else {
            Message::new().quote(&node.path).text(": ")
        }
    }

    fn contains_ref(&mut self, v: &Value) -> bool {
        let key = v as *const Value as usize;
        if let Some(&b) = self.has_ref.get(&key) {
            return b;
        }
        let b = match v {
            Value::Object(m) => m.contains_key("$ref") || m.values().any(|c| self.contains_ref(c)),
            Value::Array(a) => a.iter().any(|c| self.contains_ref(c)),
            _ => false,
        };
        self.has_ref.insert(key, b);
        b
    }

    /// Equal values mean equal schemas unless a `$ref` inside could resolve to
    /// different targets in the two resources.
    fn same(&mut self, a: &Value, b: &Value) -> bool {
        a == b && (self.roots_equal || !self.contains_ref(a))
    }

    /// Follows `$ref`s that stand alone (only annotations beside them) to their target.
    fn deref(&self, old_side: bool, mut n: Node<'a>) -> Node<'a> {
        let (res, refs) = if old_side {
            (self.old, &self.old_refs)
        } else {
            (self.new, &self.new_refs)
        };
        for _ in 0..MAX_REF_HOPS {
            let Some(m) = n.map() else { return n };
            let Some(r) = m.get("$ref").and_then(Value::as_str) else {
                return n;
            };
            if !m.keys().all(|k| k == "$ref" || transparent(k)) {
                return n;
            }
            let Some(target) = local_target(refs, res, n.v, r) else {
                return n;
            };
            n = Node {
                v: target.0,
                ptr: target.1,
                present: true,
                path: n.path,
            };
        }
        n
    }

    /// Compares one pair of subschemas.
    fn node(&mut self, o: Node<'a>, n: Node<'a>, masked: Mask, depth: usize) {
        self.steps += 1;
        if self.same(o.v, n.v) {
            return;
        }
        if depth > MAX_DEPTH || self.steps > MAX_STEPS {
            if !self.budget_reported {
                self.budget_reported = true;
                let rule = self.pick(InputTooComplex, OutputTooComplex);
                let msg = Self::msg(&n)
                    .text("the schemas differ deeper than the comparison follows; review by hand");
                self.emit(rule, masked, o.ptr, n.ptr, msg);
            }
            return;
        }
        let o = self.deref(true, o);
        let n = self.deref(false, n);
        if !self
            .seen
            .insert((o.ptr.clone(), o.present, n.ptr.clone(), n.present))
        {
            return;
        }
        if self.same(o.v, n.v) {
            return;
        }
        match (trivial(o.v), trivial(n.v)) {
            (Some(false), Some(false)) => return,
            (Some(false), _) => {
                let rule = self.pick(InputSchemaWidened, OutputSchemaWidened);
                let msg = Self::msg(&n).text("allowed no value before, now allows some");
                self.emit(rule, masked, o.ptr, n.ptr, msg);
                return;
            }
            (_, Some(false)) => {
                let rule = self.pick(InputSchemaNarrowed, OutputSchemaNarrowed);
                let msg = Self::msg(&n).text("now allows no value");
                self.emit(rule, masked, o.ptr, n.ptr, msg);
                return;
            }
            _ => {}
        }
        self.keywords(&o, &n, masked, depth);
    }

    fn keywords(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask, depth: usize) {
        let (ot, nt) = (type_bits(o), type_bits(n));
        self.types_and_values(o, n, ot, nt, masked);
        let admitted = ot | nt;
        if admitted & (INT | FRAC) != 0 {
            self.numbers(o, n, masked);
        }
        if admitted & STR != 0 {
            self.size(o, n, "minLength", "maxLength", masked);
            self.pattern(o, n, masked);
            self.format(o, n, masked);
        } else {
            self.annotation(o, n, "format", masked);
        }
        if admitted & ARR != 0 {
            self.size(o, n, "minItems", "maxItems", masked);
            self.arrays(o, n, masked, depth);
        }
        if admitted & OBJ != 0 {
            self.size(o, n, "minProperties", "maxProperties", masked);
            self.objects(o, n, masked, depth);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            self.composition(key, o, n, masked, depth);
        }
        self.opaque(
            o,
            n,
            "not",
            InputCompositionChanged,
            OutputCompositionChanged,
            masked,
        );
        if ["if", "then", "else"]
            .iter()
            .any(|k| !opt_eq(o.get(k), n.get(k)))
        {
            let key = ["if", "then", "else"]
                .into_iter()
                .find(|k| !opt_eq(o.get(k), n.get(k)))
                .unwrap_or("if");
            let rule = self.pick(InputCompositionChanged, OutputCompositionChanged);
            let msg = Self::msg(n).text("`if`/`then`/`else` changed; compatibility is not decided");
            self.emit(rule, masked, o.at(key), n.at(key), msg);
        }
        self.sibling_ref(o, n, masked, depth);
        for key in annotations() {
            self.annotation(o, n, key, masked);
        }
        if !opt_eq(o.get("$schema"), n.get("$schema")) {
            let rule = self.pick(InputDialectChanged, OutputDialectChanged);
            let msg = Self::msg(n).text("`$schema` changed");
            self.emit(rule, masked, o.at("$schema"), n.at("$schema"), msg);
        }
        self.unmodelled(o, n, masked);
    }

    fn types_and_values(&mut self, o: &Node<'a>, n: &Node<'a>, ot: u8, nt: u8, masked: Mask) {
        let (ov, nv) = (values(o, ot), values(n, nt));
        if let (Some((ovals, okey)), Some((nvals, nkey))) = (&ov, &nv) {
            // Both enumerate: the value sets (already cut to each side's type) decide.
            let oset: HashSet<String> = ovals.iter().map(|(_, v)| canon(v)).collect();
            let nset: HashSet<String> = nvals.iter().map(|(_, v)| canon(v)).collect();
            for v in ovals {
                if !nset.contains(&canon(v.1)) {
                    let rule = self.pick(InputEnumValueRemoved, OutputEnumValueRemoved);
                    let msg = Self::msg(n)
                        .text("value ")
                        .value(v.1)
                        .text(" is no longer allowed");
                    let op = value_ptr(o, okey, v.0);
                    self.emit(rule, masked, op, n.at(nkey), msg);
                }
            }
            for v in nvals {
                if !oset.contains(&canon(v.1)) {
                    let rule = self.pick(InputEnumValueAdded, OutputEnumValueAdded);
                    let msg = Self::msg(n)
                        .text("value ")
                        .value(v.1)
                        .text(" is now allowed");
                    let np = value_ptr(n, nkey, v.0);
                    self.emit(rule, masked, o.at(okey), np, msg);
                }
            }
            return;
        }
        if ot != nt {
            let (rule, what) = if nt & ot == nt {
                (self.pick(InputTypeNarrowed, OutputTypeNarrowed), "narrowed")
            } else if nt & ot == ot {
                (self.pick(InputTypeWidened, OutputTypeWidened), "widened")
            } else {
                (self.pick(InputTypeChanged, OutputTypeChanged), "changed")
            };
            let msg = Self::msg(n).text(format!(
                "type {what} from {} to {}",
                type_words(ot),
                type_words(nt)
            ));
            self.emit(rule, masked, o.at("type"), n.at("type"), msg);
        }
        match (&ov, &nv) {
            (None, Some((_, key))) => {
                let rule = self.pick(InputEnumAdded, OutputEnumAdded);
                let msg = Self::msg(n).text(format!("`{key}` now restricts the values"));
                self.emit(rule, masked, o.ptr.clone(), n.at(key), msg);
            }
            (Some((_, key)), None) => {
                let rule = self.pick(InputEnumRemoved, OutputEnumRemoved);
                let msg = Self::msg(n).text(format!("`{key}` no longer restricts the values"));
                self.emit(rule, masked, o.at(key), n.ptr.clone(), msg);
            }
            _ => {}
        }
    }

    fn numbers(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask) {
        for upper in [false, true] {
            let (ob, nb) = (bound(o, upper), bound(n, upper));
            let narrowed = self.pick(InputRangeNarrowed, OutputRangeNarrowed);
            let widened = self.pick(InputRangeWidened, OutputRangeWidened);
            match (ob, nb) {
                (None, None) => {}
                (None, Some(b)) => {
                    let msg = Self::msg(n).text(format!("{} added", describe_bound(&b)));
                    self.emit(narrowed, masked, o.ptr.clone(), n.at(b.key), msg);
                }
                (Some(b), None) => {
                    let msg = Self::msg(n).text(format!("{} removed", describe_bound(&b)));
                    self.emit(widened, masked, o.at(b.key), n.ptr.clone(), msg);
                }
                (Some(a), Some(b)) => {
                    let rule = if stricter(&b, &a, upper) {
                        narrowed
                    } else if stricter(&a, &b, upper) {
                        widened
                    } else {
                        continue;
                    };
                    let msg = Self::msg(n).text(format!(
                        "{} → {}",
                        describe_bound(&a),
                        describe_bound(&b)
                    ));
                    self.emit(rule, masked, o.at(a.key), n.at(b.key), msg);
                }
            }
        }
        let (om, nm) = (num(o.get("multipleOf")), num(n.get("multipleOf")));
        let rule = match (om, nm) {
            (None, None) => return,
            (None, Some(_)) => self.pick(InputRangeNarrowed, OutputRangeNarrowed),
            (Some(_), None) => self.pick(InputRangeWidened, OutputRangeWidened),
            (Some(a), Some(b)) if a == b => return,
            (Some(a), Some(b)) if is_multiple(b, a) => {
                self.pick(InputRangeNarrowed, OutputRangeNarrowed)
            }
            (Some(a), Some(b)) if is_multiple(a, b) => {
                self.pick(InputRangeWidened, OutputRangeWidened)
            }
            _ => self.pick(InputRangeChanged, OutputRangeChanged),
        };
        let show = |v: Option<&Value>| v.map_or("none".to_string(), text_num);
        let msg = Self::msg(n).text(format!(
            "`multipleOf` {} → {}",
            show(o.get("multipleOf")),
            show(n.get("multipleOf"))
        ));
        self.emit(rule, masked, o.at("multipleOf"), n.at("multipleOf"), msg);
    }

    fn size(&mut self, o: &Node<'a>, n: &Node<'a>, min: &str, max: &str, masked: Mask) {
        let narrowed = self.pick(InputSizeNarrowed, OutputSizeNarrowed);
        let widened = self.pick(InputSizeWidened, OutputSizeWidened);
        let show = |v: Option<&Value>| v.map_or("none".to_string(), text_num);
        let (a, b) = (
            num(o.get(min)).unwrap_or(0.0),
            num(n.get(min)).unwrap_or(0.0),
        );
        if a != b {
            let rule = if b > a { narrowed } else { widened };
            let msg = Self::msg(n).text(format!(
                "`{min}` {} → {}",
                show(o.get(min)),
                show(n.get(min))
            ));
            self.emit(rule, masked, o.at(min), n.at(min), msg);
        }
        let (a, b) = (
            num(o.get(max)).unwrap_or(f64::INFINITY),
            num(n.get(max)).unwrap_or(f64::INFINITY),
        );
        if a != b {
            let rule = if b < a { narrowed } else { widened };
            let msg = Self::msg(n).text(format!(
                "`{max}` {} → {}",
                show(o.get(max)),
                show(n.get(max))
            ));
            self.emit(rule, masked, o.at(max), n.at(max), msg);
        }
    }

    fn pattern(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask) {
        let rules = [
            self.pick(InputPatternAdded, OutputPatternAdded),
            self.pick(InputPatternRemoved, OutputPatternRemoved),
            self.pick(InputPatternChanged, OutputPatternChanged),
        ];
        let note = Some("; regular expressions are not compared");
        self.unordered_keyword(o, n, masked, "pattern", rules, note);
    }

    fn format(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask) {
        let rules = [
            self.pick(InputFormatAdded, OutputFormatAdded),
            self.pick(InputFormatRemoved, OutputFormatRemoved),
            self.pick(InputFormatChanged, OutputFormatChanged),
        ];
        self.unordered_keyword(o, n, masked, "format", rules, None);
    }

    /// A keyword whose values are not ordered (`pattern`, `format`): added, removed or
    /// changed, with `rules` in that order; `changed_note` ends the "changed" message.
    fn unordered_keyword(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        masked: Mask,
        key: &'static str,
        [added, removed, changed]: [RuleId; 3],
        changed_note: Option<&str>,
    ) {
        let head = format!("`{key}` ");
        let (rule, msg) = match (o.get(key), n.get(key)) {
            (None, None) => return,
            (Some(x), Some(y)) if x == y => return,
            (None, Some(y)) => (added, Self::msg(n).text(head).value(y).text(" added")),
            (Some(x), None) => (removed, Self::msg(n).text(head).value(x).text(" removed")),
            (Some(x), Some(y)) => {
                let m = Self::msg(n).text(head).value(x).text(" → ").value(y);
                (
                    changed,
                    match changed_note {
                        Some(note) => m.text(note),
                        None => m,
                    },
                )
            }
        };
        self.emit(rule, masked, o.at(key), n.at(key), msg);
    }

    fn annotation(&mut self, o: &Node<'a>, n: &Node<'a>, key: &str, masked: Mask) {
        if opt_eq(o.get(key), n.get(key)) {
            return;
        }
        let rule = self.pick(InputAnnotationChanged, OutputAnnotationChanged);
        let what = match (o.get(key), n.get(key)) {
            (None, _) => "added",
            (_, None) => "removed",
            _ => "changed",
        };
        let msg = Self::msg(n).text(format!("`{key}` {what}"));
        self.emit(rule, masked, o.at(key), n.at(key), msg);
    }

    /// A keyword compared only for equality: any change is undecided.
    fn opaque(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        key: &str,
        input: RuleId,
        output: RuleId,
        masked: Mask,
    ) {
        if opt_eq(o.get(key), n.get(key)) {
            return;
        }
        let rule = self.pick(input, output);
        let msg = Self::msg(n).text(format!("`{key}` changed; compatibility is not decided"));
        self.emit(rule, masked, o.at(key), n.at(key), msg);
    }

    fn arrays(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask, depth: usize) {
        let (op, orest) = array_shape(o);
        let (np, nrest) = array_shape(n);
        for i in 0..op.len().max(np.len()) {
            let a = op.get(i).cloned().unwrap_or_else(|| orest.clone());
            let b = np.get(i).cloned().unwrap_or_else(|| nrest.clone());
            self.node(a, b, masked, depth + 1);
        }
        self.node(orest, nrest, masked, depth + 1);
        let (a, b) = (
            o.get("uniqueItems") == Some(&Value::Bool(true)),
            n.get("uniqueItems") == Some(&Value::Bool(true)),
        );
        if a != b {
            let rule = if b {
                self.pick(InputUniqueItemsAdded, OutputUniqueItemsAdded)
            } else {
                self.pick(InputUniqueItemsRemoved, OutputUniqueItemsRemoved)
            };
            let msg = Self::msg(n).text(if b {
                "`uniqueItems` added"
            } else {
                "`uniqueItems` removed"
            });
            self.emit(rule, masked, o.at("uniqueItems"), n.at("uniqueItems"), msg);
        }
    }

    fn objects(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask, depth: usize) {
        let props = |x: &Node<'a>| x.get("properties").and_then(Value::as_object);
        let req = |x: &Node<'a>| -> Vec<&'a str> {
            x.get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default()
        };
        let (oprops, nprops) = (props(o), props(n));
        let (oreq, nreq): (HashSet<&str>, HashSet<&str>) =
            (req(o).into_iter().collect(), req(n).into_iter().collect());
        let names = union(
            [oprops, nprops]
                .into_iter()
                .flatten()
                .flat_map(|m| m.keys().map(String::as_str))
                .chain(req(o))
                .chain(req(n)),
        );
        for name in names {
            let (oc, nc) = (
                oprops.and_then(|m| m.get(name)),
                nprops.and_then(|m| m.get(name)),
            );
            let prop = Prop {
                name,
                old_required: oreq.contains(&name),
                new_required: nreq.contains(&name),
            };
            let path = n.sub_path(name);
            let ochild = o.child(oc, &["properties", name], path.clone());
            let nchild = n.child(nc, &["properties", name], path.clone());
            match (oc.is_some(), nc.is_some()) {
                (true, true) => {
                    self.node(ochild, nchild, masked, depth + 1);
                    self.required(o, n, prop, masked);
                }
                (false, true) => self.property_added(o, n, prop, nchild, masked, depth),
                (true, false) => self.property_removed(o, n, prop, ochild, masked, depth),
                (false, false) => self.required(o, n, prop, masked),
            }
        }
        self.additional(o, n, masked, depth);
        self.pattern_properties(o, n, masked, depth);
    }

    /// What a side applies to property `name` that it does not declare.
    fn undeclared(x: &Node<'a>, name: &str) -> Effective<'a> {
        if x.get("patternProperties")
            .and_then(Value::as_object)
            .is_some_and(|m| !m.is_empty())
        {
            return Effective::Undecided;
        }
        let ap = x.get("additionalProperties");
        match ap.map(trivial) {
            None | Some(Some(true)) => Effective::Any,
            Some(Some(false)) => Effective::Closed,
            Some(None) => {
                Effective::Schema(x.child(ap, &["additionalProperties"], x.sub_path(name)))
            }
        }
    }

    fn property_added(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        prop: Prop<'_>,
        nchild: Node<'a>,
        masked: Mask,
        depth: usize,
    ) {
        let (name, ro, rn) = (prop.name, prop.old_required, prop.new_required);
        let base = Self::msg(o).text("property ").quote(name);
        let np = nchild.ptr.clone();
        match (self.dir, Self::undeclared(o, name)) {
            (Dir::Input, _) if rn && !ro => {
                let msg = base.text(" is new and required");
                self.emit(InputPropertyRequired, masked, o.at("properties"), np, msg);
                return;
            }
            (_, Effective::Undecided) => self.undecided_property(o, n, name, masked),
            (Dir::Input, Effective::Closed) => {
                let msg = base.text(" added");
                self.emit(InputPropertyAdded, masked, o.at("properties"), np, msg);
            }
            (Dir::Input, Effective::Any) => {
                let msg = base.text(" added (OLD accepted any value for it)");
                self.emit(InputPropertyAdded, masked, o.at("properties"), np, msg);
                let any = o.child(None, &[], nchild.path.clone());
                self.node(any, nchild, masked, depth + 1);
            }
            (Dir::Output, Effective::Closed) => {
                let msg = base.text(" added, but OLD forbade undeclared properties");
                self.emit(
                    OutputPropertyAddedToClosed,
                    masked,
                    o.at("additionalProperties"),
                    np,
                    msg,
                );
            }
            (Dir::Output, Effective::Any) => {
                let msg = base.text(" added");
                self.emit(OutputPropertyAdded, masked, o.at("properties"), np, msg);
            }
            (_, Effective::Schema(s)) => self.node(s, nchild, masked, depth + 1),
        }
        self.required(o, n, prop, masked);
    }

    fn property_removed(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        prop: Prop<'_>,
        ochild: Node<'a>,
        masked: Mask,
        depth: usize,
    ) {
        let (name, ro, rn) = (prop.name, prop.old_required, prop.new_required);
        let base = Self::msg(n).text("property ").quote(name);
        let op = ochild.ptr.clone();
        match (self.dir, Self::undeclared(n, name)) {
            (Dir::Output, _) if ro && !rn => {
                let msg = base.text(" was required and is no longer declared");
                self.emit(OutputPropertyRemoved, masked, op, n.at("properties"), msg);
                return;
            }
            (_, Effective::Undecided) => self.undecided_property(o, n, name, masked),
            (Dir::Input, Effective::Closed) => {
                let msg = base.text(" removed; undeclared properties are rejected");
                self.emit(InputPropertyRemoved, masked, op, n.at("properties"), msg);
                return;
            }
            (Dir::Input, Effective::Any) => {
                let msg =
                    base.text(" is no longer declared (still accepted as an undeclared property)");
                self.emit(InputPropertyUndeclared, masked, op, n.at("properties"), msg);
                return;
            }
            (Dir::Output, Effective::Closed) => {
                let msg = base.text(" (optional) is no longer produced");
                self.emit(
                    OutputOptionalPropertyRemoved,
                    masked,
                    op,
                    n.at("properties"),
                    msg,
                );
            }
            (Dir::Output, Effective::Any) => {
                let msg = base.text(" is no longer declared; its value is unconstrained");
                self.emit(OutputPropertyRemoved, masked, op, n.at("properties"), msg);
            }
            (_, Effective::Schema(s)) => self.node(ochild, s, masked, depth + 1),
        }
        self.required(o, n, prop, masked);
    }

    fn undecided_property(&mut self, o: &Node<'a>, n: &Node<'a>, name: &str, masked: Mask) {
        let rule = self.pick(InputKeywordChanged, OutputKeywordChanged);
        let msg = Self::msg(n)
            .text("property ")
            .quote(name)
            .text(" is declared on one side only and may match `patternProperties`; compatibility is not decided");
        self.emit(rule, masked, o.at("properties"), n.at("properties"), msg);
    }

    fn required(&mut self, o: &Node<'a>, n: &Node<'a>, prop: Prop<'_>, masked: Mask) {
        let (name, ro, rn) = (prop.name, prop.old_required, prop.new_required);
        if ro == rn {
            return;
        }
        let rule = match (self.dir, rn) {
            (Dir::Input, true) => InputPropertyRequired,
            (Dir::Input, false) => InputPropertyOptional,
            (Dir::Output, true) => OutputPropertyRequired,
            (Dir::Output, false) => OutputPropertyOptional,
        };
        let msg = Self::msg(n).text("property ").quote(name).text(if rn {
            " is now required"
        } else {
            " is no longer required"
        });
        self.emit(rule, masked, req_ptr(o, name), req_ptr(n, name), msg);
    }

    fn additional(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask, depth: usize) {
        let (oa, na) = (o.get("additionalProperties"), n.get("additionalProperties"));
        if opt_eq(oa, na) && (self.roots_equal || oa.is_none()) {
            return;
        }
        let closed = |v: Option<&Value>| v.and_then(trivial) == Some(false);
        let path = n.sub_path("*");
        let oc = o.child(oa, &["additionalProperties"], path.clone());
        let nc = n.child(na, &["additionalProperties"], path);
        match (closed(oa), closed(na)) {
            (true, true) => {}
            (false, true) => {
                let rule = self.pick(
                    InputAdditionalPropertiesClosed,
                    OutputAdditionalPropertiesClosed,
                );
                let msg = Self::msg(n).text("undeclared properties are now rejected");
                self.emit(rule, masked, oc.ptr, nc.ptr, msg);
            }
            (true, false) => {
                let rule = self.pick(
                    InputAdditionalPropertiesOpened,
                    OutputAdditionalPropertiesOpened,
                );
                let msg = Self::msg(n).text("undeclared properties are now allowed");
                self.emit(rule, masked, oc.ptr, nc.ptr, msg);
            }
            (false, false) => self.node(oc, nc, masked, depth + 1),
        }
    }

    fn pattern_properties(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask, depth: usize) {
        let pp = |x: &Node<'a>| x.get("patternProperties").and_then(Value::as_object);
        let (op, np) = (pp(o), pp(n));
        if op.is_none() && np.is_none() {
            return;
        }
        let keys = union(
            [op, np]
                .into_iter()
                .flatten()
                .flat_map(|m| m.keys().map(String::as_str)),
        );
        for k in keys {
            let (a, b) = (op.and_then(|m| m.get(k)), np.and_then(|m| m.get(k)));
            if let (Some(_), Some(_)) = (a, b) {
                let path = n.sub_path(&format!("/{k}/"));
                let oc = o.child(a, &["patternProperties", k], path.clone());
                let nc = n.child(b, &["patternProperties", k], path);
                self.node(oc, nc, masked, depth + 1);
            } else {
                let rule = self.pick(InputKeywordChanged, OutputKeywordChanged);
                let msg = Self::msg(n)
                    .text("`patternProperties` ")
                    .quote(k)
                    .text(if a.is_none() { " added" } else { " removed" })
                    .text("; compatibility is not decided");
                self.emit(
                    rule,
                    masked,
                    o.at("patternProperties"),
                    n.at("patternProperties"),
                    msg,
                );
            }
        }
    }

    fn composition(
        &mut self,
        key: &'static str,
        o: &Node<'a>,
        n: &Node<'a>,
        masked: Mask,
        depth: usize,
    ) {
        let (ol, nl) = (
            o.get(key).and_then(Value::as_array),
            n.get(key).and_then(Value::as_array),
        );
        let (a, b) = match (ol, nl) {
            (None, None) => return,
            (None, Some(_)) => {
                let rule = self.pick(InputConjunctAdded, OutputConjunctAdded);
                let msg = Self::msg(n).text(format!("`{key}` added"));
                self.emit(rule, masked, o.ptr.clone(), n.at(key), msg);
                return;
            }
            (Some(_), None) => {
                let rule = self.pick(InputConjunctRemoved, OutputConjunctRemoved);
                let msg = Self::msg(n).text(format!("`{key}` removed"));
                self.emit(rule, masked, o.at(key), n.ptr.clone(), msg);
                return;
            }
            (Some(a), Some(b)) => (a, b),
        };
        // Match alternatives by equality, in any order (first unused equal one).
        let mut pool: HashMap<String, Vec<usize>> = HashMap::new();
        for i in (0..a.len()).rev() {
            pool.entry(canon(&a[i])).or_default().push(i);
        }
        let mut used = vec![false; a.len()];
        let mut unmatched_new = Vec::new();
        let mut matched = Vec::new();
        for (j, y) in b.iter().enumerate() {
            match pool.get_mut(&canon(y)).and_then(Vec::pop) {
                Some(i) => {
                    used[i] = true;
                    matched.push((i, j));
                }
                None => unmatched_new.push(j),
            }
        }
        let unmatched_old: Vec<usize> = (0..a.len()).filter(|&i| !used[i]).collect();
        // What an alternative's change does to the whole (see [`Mask`]); entries added
        // to or removed from a `oneOf` count as inside it. A `oneOf` whose alternatives
        // all have pairwise disjoint types (on both sides) can never see a value match
        // twice, so it is an `anyOf`.
        let exclusive = key == "oneOf"
            && !(self.disjoint_types(true, o, key, a) && self.disjoint_types(false, n, key, b));
        let inner = masked.max(if exclusive { Mask::Any } else { Mask::Monotone });
        let masked = if exclusive { inner } else { masked };
        let child = |x: &Node<'a>, list: &'a [Value], i: usize| {
            let idx = i.to_string();
            x.child(
                list.get(i),
                &[key, &idx],
                format!("{}({key} {})", x.path, i + 1),
            )
        };
        // Equal alternatives can still differ through `$ref`s into unequal resources.
        if !self.roots_equal {
            for &(i, j) in &matched {
                if self.contains_ref(&a[i]) {
                    self.node(child(o, a, i), child(n, b, j), inner, depth + 1);
                }
            }
        }
        let paired = unmatched_old.len().min(unmatched_new.len());
        for k in 0..paired {
            let (i, j) = (unmatched_old[k], unmatched_new[k]);
            self.node(child(o, a, i), child(n, b, j), inner, depth + 1);
        }
        for &i in &unmatched_old[paired..] {
            let rule = if key == "allOf" {
                self.pick(InputConjunctRemoved, OutputConjunctRemoved)
            } else {
                self.pick(InputAlternativeRemoved, OutputAlternativeRemoved)
            };
            let msg = Self::msg(n).text(format!("`{key}` entry {} removed", i + 1));
            self.emit(rule, masked, child(o, a, i).ptr, n.at(key), msg);
        }
        for &j in &unmatched_new[paired..] {
            let (rule, msg) = match (key, self.dir) {
                ("allOf", _) => (
                    self.pick(InputConjunctAdded, OutputConjunctAdded),
                    Self::msg(n).text(format!("`{key}` entry {} added", j + 1)),
                ),
                ("oneOf", Dir::Input) if exclusive => (
                    InputCompositionChanged,
                    Self::msg(n).text(format!(
                        "`oneOf` entry {} added: values matching two entries are now rejected; compatibility is not decided",
                        j + 1
                    )),
                ),
                _ => (
                    self.pick(InputAlternativeAdded, OutputAlternativeAdded),
                    Self::msg(n).text(format!("`{key}` entry {} added", j + 1)),
                ),
            };
            self.emit(rule, masked, o.at(key), child(n, b, j).ptr, msg);
        }
    }

    /// Whether the alternatives of `list` (under `parent`'s `key`) accept pairwise
    /// disjoint JSON types, `$ref`s followed.
    fn disjoint_types(
        &self,
        old_side: bool,
        parent: &Node<'a>,
        key: &str,
        list: &'a [Value],
    ) -> bool {
        let mut seen = 0u8;
        for (i, v) in list.iter().enumerate() {
            let idx = i.to_string();
            let alt = self.deref(old_side, parent.child(Some(v), &[key, &idx], String::new()));
            let bits = type_bits(&alt);
            if bits & seen != 0 {
                return false;
            }
            seen |= bits;
        }
        true
    }

    /// A `$ref` beside other assertions (or one that does not resolve locally).
    fn sibling_ref(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask, depth: usize) {
        let (a, b) = (
            o.get("$ref").and_then(Value::as_str),
            n.get("$ref").and_then(Value::as_str),
        );
        match (a, b) {
            (None, None) => {}
            (None, Some(_)) => {
                let rule = self.pick(InputConjunctAdded, OutputConjunctAdded);
                let msg = Self::msg(n).text("`$ref` added beside other keywords");
                self.emit(rule, masked, o.ptr.clone(), n.at("$ref"), msg);
            }
            (Some(_), None) => {
                let rule = self.pick(InputConjunctRemoved, OutputConjunctRemoved);
                let msg = Self::msg(n).text("`$ref` beside other keywords removed");
                self.emit(rule, masked, o.at("$ref"), n.ptr.clone(), msg);
            }
            (Some(x), Some(y)) => match (
                local_target(&self.old_refs, self.old, o.v, x),
                local_target(&self.new_refs, self.new, n.v, y),
            ) {
                (Some((tv, tp)), Some((uv, up))) => {
                    let ot = Node {
                        v: tv,
                        ptr: tp,
                        present: true,
                        path: o.path.clone(),
                    };
                    let nt = Node {
                        v: uv,
                        ptr: up,
                        present: true,
                        path: n.path.clone(),
                    };
                    self.node(ot, nt, masked.max(Mask::Monotone), depth + 1);
                }
                _ if x == y
                    && (self.roots_equal
                        || remote_only(self.old, x) && remote_only(self.new, y)) => {}
                _ => {
                    let rule = self.pick(InputRefUnresolved, OutputRefUnresolved);
                    let msg = Self::msg(n)
                        .text("`$ref` ")
                        .quote(x)
                        .text(" → ")
                        .quote(y)
                        .text(" is not followed (not a local JSON pointer); compatibility is not decided");
                    self.emit(rule, masked, o.at("$ref"), n.at("$ref"), msg);
                }
            },
        }
    }

    /// Keywords this module does not model: any change is undecided (extensions: info).
    fn unmodelled(&mut self, o: &Node<'a>, n: &Node<'a>, masked: Mask) {
        let keys = union(
            [o.map(), n.map()]
                .into_iter()
                .flatten()
                .flat_map(|m| m.keys().map(String::as_str))
                .filter(|k| {
                    !MODELLED.contains(k) && !json_schema::is_annotation(k) && !IGNORED.contains(k)
                }),
        );
        for k in keys {
            let (a, b) = (o.get(k), n.get(k));
            // A dynamic reference is not followed: equal text says nothing when the
            // schema it points into changed.
            let dynamic = matches!(k, "$dynamicRef" | "$recursiveRef") && !self.roots_equal;
            if opt_eq(a, b) && !dynamic {
                continue;
            }
            if dynamic && opt_eq(a, b) {
                let rule = self.pick(InputRefUnresolved, OutputRefUnresolved);
                let msg = Self::msg(n)
                    .text("keyword ")
                    .quote(k)
                    .text(" is not followed and the schema around it changed; compatibility is not decided");
                self.emit(rule, masked, o.at(k), n.at(k), msg);
                continue;
            }
            let (op, np) = (o.at(k), n.at(k));
            if k.starts_with("x-") && k != "x-mcp-header" {
                let msg = Self::msg(n).text("extension ").quote(k).text(" changed");
                self.out.push(Raw {
                    rule: ExtensionChanged,
                    masked,
                    old: Some(op),
                    new: Some(np),
                    msg,
                });
                continue;
            }
            let rule = self.pick(InputKeywordChanged, OutputKeywordChanged);
            let msg = Self::msg(n)
                .text("keyword ")
                .quote(k)
                .text(" changed; its effect is not modelled, compatibility is not decided");
            self.emit(rule, masked, op, np, msg);
        }
    }
}

/// A property name with whether OLD and NEW require it.
#[derive(Debug, Clone, Copy)]
struct Prop<'s> {
    name: &'s str,
    old_required: bool,
    new_required: bool,
}

/// What a side applies to an undeclared property.
enum Effective<'a> {
    /// Any value (`additionalProperties` absent or `true`).
    Any,
    /// Rejected (`additionalProperties: false`).
    Closed,
    /// The `additionalProperties` schema.
    Schema(Node<'a>),
    /// `patternProperties` might apply: not decided.
    Undecided,
}

/// Distinct items in first-seen order, in linear time.
fn union<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    items.filter(|k| seen.insert(*k)).collect()
}

/// Whether `r` is an absolute `http(s)` reference that no embedded `$id` of the
/// resource claims: its target is outside the document, so equal text means the same
/// (unfetched) schema.
fn remote_only(res: Resource<'_>, r: &str) -> bool {
    let base = r.split('#').next().unwrap_or("");
    if !(base.starts_with("https://") || base.starts_with("http://")) {
        return false;
    }
    fn claims(v: &Value, base: &str, depth: usize) -> bool {
        if depth > 256 {
            return true;
        }
        match v {
            Value::Object(m) => {
                m.get("$id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| id.split('#').next() == Some(base))
                    || m.values().any(|c| claims(c, base, depth + 1))
            }
            Value::Array(a) => a.iter().any(|c| claims(c, base, depth + 1)),
            _ => false,
        }
    }
    !claims(res.root, base, 0)
}

fn opt_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => json_eq(x, y),
        _ => false,
    }
}

/// `enum`/`const` values with their index, cut to the schema's own `type`.
fn values<'a>(n: &Node<'a>, bits: u8) -> Option<(Vec<(usize, &'a Value)>, &'static str)> {
    let keep = |v: &&Value| value_bit(v) & bits != 0;
    if let Some(c) = n.get("const") {
        return Some((
            std::iter::once((0, c)).filter(|(_, v)| keep(v)).collect(),
            "const",
        ));
    }
    let list = n.get("enum")?.as_array()?;
    Some((
        list.iter().enumerate().filter(|(_, v)| keep(v)).collect(),
        "enum",
    ))
}

fn value_ptr(n: &Node<'_>, key: &str, i: usize) -> String {
    if key == "enum" {
        pointer::push(&pointer::push(&n.ptr, "enum"), i.to_string())
    } else {
        n.at(key)
    }
}

/// Pointer of `name` in `required` when listed, else of `required` (or the schema).
fn req_ptr(x: &Node<'_>, name: &str) -> String {
    let idx = x
        .get("required")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().position(|v| v.as_str() == Some(name)));
    match idx {
        Some(i) => pointer::push(&pointer::push(&x.ptr, "required"), i.to_string()),
        None => x.at("required"),
    }
}

/// Positional item schemas and the schema for the rest (draft-07 and 2020-12 forms).
fn array_shape<'a>(n: &Node<'a>) -> (Vec<Node<'a>>, Node<'a>) {
    let positional = |key: &str| -> Vec<Node<'a>> {
        n.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let idx = i.to_string();
                        n.child(Some(v), &[key, &idx], n.sub_path(&format!("[{i}]")))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let rest_path = n.sub_path("[]");
    if n.get("prefixItems").is_some_and(Value::is_array) {
        let rest = n.child(n.get("items"), &["items"], rest_path);
        return (positional("prefixItems"), rest);
    }
    if n.get("items").is_some_and(Value::is_array) {
        let rest = n.child(n.get("additionalItems"), &["additionalItems"], rest_path);
        return (positional("items"), rest);
    }
    (Vec::new(), n.child(n.get("items"), &["items"], rest_path))
}

/// The target of a local `$ref` (`#`, `#/$defs/X`, an anchor) written in schema `site`
/// of `res`, with its pointer in the document.
fn local_target<'a>(
    refs: &Resolver<'a>,
    res: Resource<'a>,
    site: &Value,
    r: &str,
) -> Option<(&'a Value, String)> {
    // Fragments only (pointers and anchors): a URI reference, even one an embedded
    // `$id` claims, stays unfollowed and is judged by `remote_only`.
    if !r.starts_with('#') {
        return None;
    }
    let (v, p) = refs.target_from(site, r).ok()?;
    Some((v, format!("{}{p}", res.ptr)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(dir: Dir, old: Value, new: Value) -> Vec<(RuleId, bool, String, String)> {
        let out = compare(
            dir,
            Resource {
                root: &old,
                ptr: "/o",
            },
            Resource {
                root: &new,
                ptr: "/n",
            },
        );
        out.into_iter()
            .map(|r| {
                (
                    r.rule,
                    r.masked != Mask::None,
                    r.old.unwrap_or_default(),
                    r.new.unwrap_or_default(),
                )
            })
            .collect()
    }

    fn rules(dir: Dir, old: Value, new: Value) -> Vec<RuleId> {
        run(dir, old, new).into_iter().map(|r| r.0).collect()
    }

    #[test]
    fn equal_schemas_give_nothing() {
        let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                       "$defs": {"A": {"type": "string"}}});
        assert!(rules(Dir::Input, s.clone(), s).is_empty());
        assert!(rules(Dir::Input, json!(true), json!({})).is_empty());
        assert!(rules(Dir::Input, json!({"minimum": 1}), json!({"minimum": 1.0})).is_empty());
    }

    #[test]
    fn types_with_integer_inside_number() {
        assert_eq!(
            rules(
                Dir::Input,
                json!({"type": "number"}),
                json!({"type": "integer"})
            ),
            [InputTypeNarrowed]
        );
        assert_eq!(
            rules(
                Dir::Output,
                json!({"type": "string"}),
                json!({"type": ["string", "null"]})
            ),
            [OutputTypeWidened]
        );
        assert_eq!(
            rules(
                Dir::Input,
                json!({"type": "string"}),
                json!({"type": "boolean"})
            ),
            [InputTypeChanged]
        );
    }

    #[test]
    fn enum_values_and_pointers() {
        let got = run(
            Dir::Input,
            json!({"enum": ["a", "b", "c"]}),
            json!({"enum": ["a", "c", "d"]}),
        );
        assert_eq!(
            got,
            [
                (
                    InputEnumValueRemoved,
                    false,
                    "/o/enum/1".into(),
                    "/n/enum".into()
                ),
                (
                    InputEnumValueAdded,
                    false,
                    "/o/enum".into(),
                    "/n/enum/2".into()
                )
            ]
        );
        // const is a one-value enum; values outside the type do not count
        assert_eq!(
            rules(
                Dir::Input,
                json!({"type": "string", "enum": ["a", 1]}),
                json!({"const": "a"})
            ),
            Vec::<RuleId>::new()
        );
    }

    #[test]
    fn bounds_both_forms() {
        assert_eq!(
            rules(
                Dir::Input,
                json!({"minimum": 1}),
                json!({"exclusiveMinimum": 1})
            ),
            [InputRangeNarrowed]
        );
        assert_eq!(
            rules(
                Dir::Input,
                json!({"minimum": 1, "exclusiveMinimum": true}),
                json!({"exclusiveMinimum": 1})
            ),
            Vec::<RuleId>::new()
        );
        assert_eq!(
            rules(Dir::Output, json!({"maximum": 10}), json!({})),
            [OutputRangeWidened]
        );
        assert_eq!(
            rules(
                Dir::Input,
                json!({"multipleOf": 2}),
                json!({"multipleOf": 4})
            ),
            [InputRangeNarrowed]
        );
        assert_eq!(
            rules(
                Dir::Input,
                json!({"multipleOf": 2}),
                json!({"multipleOf": 3})
            ),
            [InputRangeChanged]
        );
    }

    #[test]
    fn properties_per_direction() {
        let old = json!({"type": "object", "properties": {"a": {"type": "string"}},
                         "required": ["a"], "additionalProperties": false});
        let new = json!({"type": "object", "properties": {"b": {"type": "string"}},
                         "required": ["b"], "additionalProperties": false});
        assert_eq!(
            rules(Dir::Input, old.clone(), new.clone()),
            [InputPropertyRemoved, InputPropertyRequired]
        );
        assert_eq!(
            rules(Dir::Output, old, new),
            [
                OutputPropertyRemoved,
                OutputPropertyAddedToClosed,
                OutputPropertyRequired
            ]
        );
    }

    #[test]
    fn refs_are_resolved_and_cycles_end() {
        let old = json!({"$ref": "#/$defs/N", "$defs": {"N": {"type": "object",
            "properties": {"next": {"$ref": "#/$defs/N"}, "v": {"type": "integer"}}}}});
        let new = json!({"$ref": "#/$defs/M", "$defs": {"M": {"type": "object",
            "properties": {"next": {"$ref": "#/$defs/M"}, "v": {"type": "number"}}}}});
        let got = run(Dir::Input, old, new);
        assert_eq!(
            got,
            [(
                InputTypeWidened,
                false,
                "/o/$defs/N/properties/v/type".into(),
                "/n/$defs/M/properties/v/type".into()
            )]
        );
    }

    #[test]
    fn alternatives_mask_breaking_changes() {
        let old = json!({"anyOf": [{"type": "string"}, {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}]});
        let new = json!({"anyOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x", "y"]}, {"type": "string"}]});
        let got = run(Dir::Input, old, new);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0, got[0].1), (InputPropertyRequired, true));
        // a nullable union
        assert_eq!(
            rules(
                Dir::Output,
                json!({"anyOf": [{"$ref": "#/$defs/A"}], "$defs": {"A": {"type": "object"}}}),
                json!({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}], "$defs": {"A": {"type": "object"}}})
            ),
            [OutputAlternativeAdded]
        );
    }

    #[test]
    fn one_of_is_not_monotone() {
        // Narrowing an alternative lets `"x"` (which matched both before) through: the
        // whole widens, so even an output narrowing is only "possibly" harmless.
        let old = json!({"oneOf": [{"type": "string"}, {}]});
        let new = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
        let got = run(Dir::Output, old.clone(), new.clone());
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0, got[0].1), (OutputTypeNarrowed, true));
        let out = compare(
            Dir::Output,
            Resource {
                root: &old,
                ptr: "",
            },
            Resource {
                root: &new,
                ptr: "",
            },
        );
        assert_eq!(out[0].masked, Mask::Any);
    }

    #[test]
    fn one_of_with_disjoint_types_is_an_any_of() {
        let old = json!({"oneOf": [{"type": "string"}, {"type": "integer", "maximum": 5}]});
        let new = json!({"oneOf": [{"type": "string"}, {"type": "integer", "maximum": 3}]});
        let got = run(Dir::Output, old.clone(), new.clone());
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0, got[0].1), (OutputRangeNarrowed, true));
        let out = compare(
            Dir::Output,
            Resource {
                root: &old,
                ptr: "",
            },
            Resource {
                root: &new,
                ptr: "",
            },
        );
        assert_eq!(out[0].masked, Mask::Monotone);
        assert_eq!(
            rules(
                Dir::Input,
                old,
                json!({"oneOf": [{"type": "string"}, {"type": "integer", "maximum": 5}, {"type": "null"}]})
            ),
            [InputAlternativeAdded]
        );
    }

    #[test]
    fn undecidable_changes_are_possibly_breaking() {
        assert_eq!(
            rules(
                Dir::Input,
                json!({"type": "string", "pattern": "^a"}),
                json!({"type": "string", "pattern": "^b"})
            ),
            [InputPatternChanged]
        );
        assert_eq!(
            rules(
                Dir::Input,
                json!({"not": {"type": "null"}}),
                json!({"not": {"type": "string"}})
            ),
            [InputCompositionChanged]
        );
        assert_eq!(
            rules(Dir::Output, json!({"nullable": true}), json!({})),
            [OutputKeywordChanged]
        );
    }

    #[test]
    fn deep_and_wide_inputs_stay_bounded() {
        let mut a = json!({"type": "string"});
        let mut b = json!({"type": "integer"});
        for _ in 0..200 {
            a = json!({"type": "object", "properties": {"x": a}});
            b = json!({"type": "object", "properties": {"x": b}});
        }
        assert_eq!(rules(Dir::Input, a, b), [InputTooComplex]);
    }
}
