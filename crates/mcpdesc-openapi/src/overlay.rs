//! OpenAPI Overlays (Overlay Specification 1.0.0 and 1.1.0, spec.openapis.org/overlay):
//! curation of a vendor's spec without editing it (`import openapi --overlay FILE`).
//!
//! An [`Overlay`] is decoded and checked once ([`Overlay::from_bytes`]), before any spec is
//! read: every structural problem is an error at its JSON pointer in the overlay, with
//! the overlay's line:column. It is then applied by the importer to the spec document
//! the user gave, right after decoding and before the `$ref`s are loaded: targets are
//! queries over that document (a `$ref` is a string to them, never followed), and a
//! `$ref` an overlay adds is loaded like any other.
//!
//! Semantics, per the specification's Action Object:
//! - actions run in order, each on the result of the previous one;
//! - `target` is an RFC 9535 JSONPath query (`serde_json_path`); one that selects nothing
//!   changes nothing and is a warning at the action's `target`;
//! - `remove: true` removes every selected node from its object or array (`update` and
//!   `copy` are then ignored, with a warning); the root cannot be removed;
//! - `update` is merged into each selected node: objects recursively (a member only in
//!   the update is added, primitives replace primitives, arrays concatenate, objects
//!   merge, any other pair is an error); an array node gets the update appended, or in
//!   1.1.0 concatenated when the update is an array; a primitive node is replaced;
//! - `copy` (1.1.0) is a JSONPath query that must select exactly one node of the current
//!   document; its value is merged like an `update`;
//! - the selected nodes of an `update` or `copy` must be all objects, all arrays or all
//!   primitives;
//! - `extends` is informational: it is recorded in the provenance, never fetched nor
//!   compared with the spec.
//!
//! 1.0.0 says targets select objects or arrays only; a 1.0.0 overlay that selects
//! primitives is applied as 1.1.0 defines it, with a warning.
//!
//! | code | severity | meaning |
//! |---|---|---|
//! | `overlay-not-an-object`, `overlay-field-missing`, `overlay-field-type`, `overlay-field-unknown` | error | the document is not an Overlay (the official 1.0/1.1 JSON Schemas' rules) |
//! | `overlay-version-unsupported` | error | `overlay` is not 1.0.x or 1.1.x |
//! | `overlay-actions-empty`, `overlay-action-duplicate` | error | `actions` is empty, or repeats an action |
//! | `overlay-jsonpath-invalid` | error | a `target` or `copy` that is not an RFC 9535 query |
//! | `overlay-jsonpath-limit` | error | a query over this importer's bounds (4,096 bytes, nesting 32, two `..` segments) |
//! | `overlay-action-conflict` | error | `update` and `copy` in one action |
//! | `overlay-action-ignored`, `overlay-action-no-op` | warning | `update`/`copy` beside `remove: true`; an action that changes nothing |
//! | `overlay-yaml-lenient` | info | YAML outside the restricted profile, read without positions |
//! | `overlay-target-unmatched` | warning | a target selects no node (the action changes nothing) |
//! | `overlay-primitive-target` | warning | a 1.0 overlay selects primitives |
//! | `overlay-merge-conflict`, `overlay-mixed-targets`, `overlay-copy-source`, `overlay-remove-root` | error | an action cannot apply to this spec |

use crate::spec::{decode_openapi, sniff_head};
use mcpdesc_core::provenance::AppliedOverlay;
use mcpdesc_core::{Diagnostic, Format, Limits, SourceMap, pointer};
use serde_json::{Map, Value};
use serde_json_path::JsonPath;
use sha2::{Digest, Sha256};

/// The Overlay Specification feature sets this importer applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayVersion {
    /// 1.0.x.
    V1_0,
    /// 1.1.x (adds `copy`, `info.description`, primitive targets, array concatenation).
    V1_1,
}

/// A decoded, checked Overlay document, ready to apply.
#[derive(Debug, Clone)]
pub struct Overlay {
    record: AppliedOverlay,
    version: OverlayVersion,
    actions: Vec<Action>,
    /// The document as decoded and its positions: application diagnostics point into it.
    value: Value,
    source_map: Option<SourceMap>,
}

#[derive(Debug, Clone)]
struct Action {
    target: JsonPath,
    op: Op,
}

#[derive(Debug, Clone)]
enum Op {
    Remove,
    Update(Value),
    Copy(JsonPath),
    /// Only a target: nothing to do (a warning said so).
    Nothing,
}

/// What applying one overlay did (see [`crate::ImportStats::overlays`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct OverlayReport {
    /// The overlay's file name as given.
    pub file: String,
    /// Its actions.
    pub actions: usize,
    /// Actions whose target selected nothing.
    pub unmatched: usize,
    /// Warnings about the overlay, located in the overlay's file (not the spec's).
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
}

impl Overlay {
    /// Decodes and checks an Overlay document. `file` names it (as given by the user: it
    /// is recorded in the provenance) and selects the format by extension, else the
    /// bytes are sniffed. JSON and YAML are read like OpenAPI input
    /// (the rules of the spec decoder: overlays embed OpenAPI fragments, which use integer
    /// keys such as `200:` that the restricted YAML profile forbids; such a file is read
    /// leniently, without positions, and an `overlay-yaml-lenient` info says so).
    ///
    /// Returns the overlay and its warnings, or every error found. All diagnostics
    /// point into the overlay and carry its line:column when known.
    pub fn from_bytes(
        file: &str,
        bytes: &[u8],
        limits: &Limits,
    ) -> Result<(Overlay, Vec<Diagnostic>), Vec<Diagnostic>> {
        let format = Format::detect(Some(file), sniff_head(bytes));
        let mut notes = Vec::new();
        let decoded = if format == Format::Json {
            // Positions always: overlays are small, and errors are the point here.
            mcpdesc_core::decode_bytes(bytes, format, limits).map(|d| (d.value, Some(d.source_map)))
        } else {
            decode_openapi(bytes, format, limits, &mut notes)
        };
        let (value, source_map) = decoded.map_err(|d| vec![d])?;
        let mut cx = Check {
            value: &value,
            source_map: source_map.as_ref(),
            errors: Vec::new(),
            warnings: Vec::new(),
        };
        for n in notes {
            cx.warnings.push(Diagnostic {
                code: "overlay-yaml-lenient".into(),
                message: format!(
                    "the overlay uses YAML that the restricted profile forbids ({}); it was read with a lenient decoder, so positions are not reported",
                    n.message
                        .split_once('(')
                        .and_then(|(_, r)| r.split_once(')'))
                        .map_or("", |(c, _)| c)
                ),
                ..n
            });
        }
        let parsed = cx.overlay(&value);
        let Check {
            errors, warnings, ..
        } = cx;
        match parsed {
            Some((version, overlay, title, info_version, extends, actions))
                if errors.is_empty() =>
            {
                let sha256 = Sha256::digest(bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                Ok((
                    Overlay {
                        record: AppliedOverlay {
                            file: file.to_string(),
                            overlay,
                            title,
                            version: info_version,
                            sha256,
                            extends,
                            other: Map::new(),
                        },
                        version,
                        actions,
                        value,
                        source_map,
                    },
                    warnings,
                ))
            }
            _ => Err(errors),
        }
    }

    /// The provenance record of this overlay (file, versions, title, digest).
    pub fn record(&self) -> &AppliedOverlay {
        &self.record
    }

    /// The file name as given.
    pub fn file(&self) -> &str {
        &self.record.file
    }

    /// The feature set its `overlay` field selects.
    pub fn version(&self) -> OverlayVersion {
        self.version
    }

    /// Its `extends` (informational: never fetched, never compared with the spec).
    pub fn extends(&self) -> Option<&str> {
        self.record.extends.as_deref()
    }

    /// Number of actions.
    pub fn actions(&self) -> usize {
        self.actions.len()
    }

    fn located(&self, d: Diagnostic) -> Diagnostic {
        locate(&self.value, self.source_map.as_ref(), d)
    }

    /// Applies the actions in order to `doc`. Returns the report (warnings, located in
    /// the overlay), or the errors: an error stops the overlay, and `doc` is then
    /// partly changed (the import fails; nothing is written).
    pub fn apply(&self, doc: &mut Value) -> Result<OverlayReport, Vec<Diagnostic>> {
        let mut report = OverlayReport {
            file: self.record.file.clone(),
            actions: self.actions.len(),
            unmatched: 0,
            diagnostics: Vec::new(),
        };
        for (i, a) in self.actions.iter().enumerate() {
            let at = format!("/actions/{i}");
            let mut paths: Vec<Vec<Step>> = a
                .target
                .query_located(doc)
                .dedup()
                .locations()
                .map(|p| p.iter().map(Step::of).collect())
                .collect();
            if paths.is_empty() {
                report.unmatched += 1;
                report.diagnostics.push(self.located(
                    Diagnostic::warning(
                        "overlay-target-unmatched",
                        format!(
                            "action {} changes nothing: its target `{}` selects no node of the spec",
                            i + 1,
                            a.target
                        ),
                    )
                    .at(format!("{at}/target")),
                ));
                continue;
            }
            let value = match &a.op {
                Op::Nothing => continue,
                Op::Remove => {
                    if paths.iter().any(Vec::is_empty) {
                        return Err(vec![self.located(
                            Diagnostic::error(
                                "overlay-remove-root",
                                format!(
                                    "action {}: `remove` cannot remove the root of the document",
                                    i + 1
                                ),
                            )
                            .at(format!("{at}/target")),
                        )]);
                    }
                    // Deepest and last first: removing a node never moves one still to
                    // be removed (array indices after it shift, those before do not).
                    paths.sort();
                    paths.dedup();
                    for p in paths.iter().rev() {
                        remove_at(doc, p);
                    }
                    continue;
                }
                Op::Update(v) => v.clone(),
                Op::Copy(src) => {
                    let found = src.query(doc);
                    if found.len() != 1 {
                        return Err(vec![self.located(
                            Diagnostic::error(
                                "overlay-copy-source",
                                format!(
                                    "action {}: `copy` must select exactly one node; `{src}` selects {}",
                                    i + 1,
                                    found.len()
                                ),
                            )
                            .at(format!("{at}/copy")),
                        )]);
                    }
                    found
                        .all()
                        .into_iter()
                        .next()
                        .cloned()
                        .unwrap_or(Value::Null)
                }
            };
            let field = if matches!(a.op, Op::Copy(_)) {
                "copy"
            } else {
                "update"
            };
            let kinds: Vec<Kind> = paths
                .iter()
                .filter_map(|p| node(doc, p).map(Kind::of))
                .collect();
            if kinds.iter().any(|k| *k != kinds[0]) {
                return Err(vec![self.located(
                    Diagnostic::error(
                        "overlay-mixed-targets",
                        format!(
                            "action {}: the target selects objects, arrays and primitives mixed; an `{field}` needs all of one kind",
                            i + 1
                        ),
                    )
                    .at(format!("{at}/target")),
                )]);
            }
            if kinds.first() == Some(&Kind::Primitive) && self.version == OverlayVersion::V1_0 {
                report.diagnostics.push(self.located(
                    Diagnostic::warning(
                        "overlay-primitive-target",
                        format!(
                            "action {}: Overlay 1.0 targets objects or arrays only; the selected primitives are replaced as Overlay 1.1 defines",
                            i + 1
                        ),
                    )
                    .at(format!("{at}/target")),
                ));
            }
            for p in &paths {
                let Some(n) = node_mut(doc, p) else { continue };
                if let Err((rel, why)) = merge_node(n, &value, self.version) {
                    let ptr = if field == "copy" {
                        format!("{at}/copy")
                    } else {
                        format!("{at}/update{rel}")
                    };
                    return Err(vec![
                        self.located(
                            Diagnostic::error(
                                "overlay-merge-conflict",
                                format!(
                                    "action {}: cannot merge into `{}`{}: {why}",
                                    i + 1,
                                    to_pointer(p),
                                    if rel.is_empty() {
                                        String::new()
                                    } else {
                                        format!(" at `{rel}`")
                                    }
                                ),
                            )
                            .at(ptr),
                        ),
                    ]);
                }
            }
        }
        Ok(report)
    }
}

/// One step of a normalized path, owned (the document is mutated while paths are held).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Index(usize),
    Name(String),
}

impl Step {
    fn of(e: &serde_json_path::PathElement<'_>) -> Step {
        match e.as_index() {
            Some(i) => Step::Index(i),
            None => Step::Name(e.as_name().unwrap_or_default().to_string()),
        }
    }
}

fn to_pointer(path: &[Step]) -> String {
    let mut out = String::new();
    for s in path {
        out = match s {
            Step::Index(i) => pointer::push(&out, i.to_string()),
            Step::Name(n) => pointer::push(&out, n),
        };
    }
    out
}

fn node<'a>(doc: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(doc, |v, s| match (v, s) {
        (Value::Object(m), Step::Name(n)) => m.get(n),
        (Value::Array(a), Step::Index(i)) => a.get(*i),
        _ => None,
    })
}

fn node_mut<'a>(doc: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(doc, |v, s| match (v, s) {
        (Value::Object(m), Step::Name(n)) => m.get_mut(n),
        (Value::Array(a), Step::Index(i)) => a.get_mut(*i),
        _ => None,
    })
}

/// Removes the node at a non-empty path (keeping the order of its siblings).
fn remove_at(doc: &mut Value, path: &[Step]) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    match (node_mut(doc, parent), last) {
        (Some(Value::Object(m)), Step::Name(n)) => {
            m.shift_remove(n);
        }
        (Some(Value::Array(a)), Step::Index(i)) if *i < a.len() => {
            a.remove(*i);
        }
        _ => {}
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
    Primitive,
}

impl Kind {
    fn of(v: &Value) -> Kind {
        match v {
            Value::Object(_) => Kind::Object,
            Value::Array(_) => Kind::Array,
            _ => Kind::Primitive,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::Primitive => "a primitive",
        }
    }
}

/// Merges an `update` (or copied) value into one selected node. Err: the pointer
/// inside the update where the kinds clash, and why.
fn merge_node(
    target: &mut Value,
    update: &Value,
    version: OverlayVersion,
) -> Result<(), (String, String)> {
    match (target, update) {
        (Value::Object(t), Value::Object(u)) => merge_object(t, u, ""),
        (Value::Array(t), Value::Array(u)) if version == OverlayVersion::V1_1 => {
            t.extend(u.iter().cloned());
            Ok(())
        }
        (Value::Array(t), u) => {
            t.push(u.clone());
            Ok(())
        }
        (t, u) if Kind::of(t) == Kind::Primitive && Kind::of(u) == Kind::Primitive => {
            *t = u.clone();
            Ok(())
        }
        (t, u) => Err((
            String::new(),
            format!(
                "the node is {} and the value is {}",
                Kind::of(t).name(),
                Kind::of(u).name()
            ),
        )),
    }
}

fn merge_object(
    t: &mut Map<String, Value>,
    u: &Map<String, Value>,
    at: &str,
) -> Result<(), (String, String)> {
    for (k, uv) in u {
        let here = pointer::push(at, k);
        let Some(tv) = t.get_mut(k) else {
            t.insert(k.clone(), uv.clone());
            continue;
        };
        match (tv, uv) {
            (Value::Object(tm), Value::Object(um)) => merge_object(tm, um, &here)?,
            (Value::Array(ta), Value::Array(ua)) => ta.extend(ua.iter().cloned()),
            (tv, uv) if Kind::of(tv) == Kind::Primitive && Kind::of(uv) == Kind::Primitive => {
                *tv = uv.clone();
            }
            (tv, uv) => {
                return Err((
                    here,
                    format!(
                        "the spec has {} there and the overlay {}",
                        Kind::of(tv).name(),
                        Kind::of(uv).name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn locate(value: &Value, sm: Option<&SourceMap>, mut d: Diagnostic) -> Diagnostic {
    if d.line.is_none()
        && let Some(p) = sm.and_then(|sm| sm.locate(value, &d.pointer))
    {
        d.line = Some(p.line);
        d.column = Some(p.column);
    }
    d
}

/// The structural check of an Overlay document (the official JSON Schemas of 1.0 and
/// 1.1, plus what they cannot say: JSONPath syntax, conflicting modifiers).
struct Check<'a> {
    value: &'a Value,
    source_map: Option<&'a SourceMap>,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

type Parsed = (
    OverlayVersion,
    String,
    String,
    String,
    Option<String>,
    Vec<Action>,
);

impl Check<'_> {
    fn error(&mut self, code: &str, msg: String, ptr: &str) {
        let d = locate(
            self.value,
            self.source_map,
            Diagnostic::error(code, msg).at(ptr),
        );
        self.errors.push(d);
    }

    fn warn(&mut self, code: &str, msg: String, ptr: &str) {
        let d = locate(
            self.value,
            self.source_map,
            Diagnostic::warning(code, msg).at(ptr),
        );
        self.warnings.push(d);
    }

    /// A required or optional string member.
    fn string(
        &mut self,
        m: &Map<String, Value>,
        key: &str,
        at: &str,
        required: bool,
    ) -> Option<String> {
        let ptr = pointer::push(at, key);
        match m.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.error(
                    "overlay-field-type",
                    format!("`{key}` must be a string, not {}", kind_word(other)),
                    &ptr,
                );
                None
            }
            None => {
                if required {
                    self.error("overlay-field-missing", format!("`{key}` is required"), at);
                }
                None
            }
        }
    }

    /// Members other than the fixed fields and `x-` extensions are errors.
    fn unknown(&mut self, m: &Map<String, Value>, fixed: &[&str], at: &str, what: &str) {
        for k in m.keys() {
            if !k.starts_with("x-") && !fixed.contains(&k.as_str()) {
                self.error(
                    "overlay-field-unknown",
                    format!(
                        "`{k}` is not a field of the {what} (fields: {}; extensions start with `x-`)",
                        fixed.join(", ")
                    ),
                    &pointer::push(at, k),
                );
            }
        }
    }

    fn jsonpath(&mut self, text: &str, ptr: &str, field: &str) -> Option<JsonPath> {
        if let Err(why) = within_limits(text) {
            self.error(
                "overlay-jsonpath-limit",
                format!("`{field}` is refused: {why}"),
                ptr,
            );
            return None;
        }
        if !text.starts_with('$') {
            self.error(
                "overlay-jsonpath-invalid",
                format!("`{field}` must be an RFC 9535 JSONPath query starting with `$`: `{text}`"),
                ptr,
            );
            return None;
        }
        match JsonPath::parse(text) {
            Ok(p) => Some(p),
            Err(e) => {
                self.error(
                    "overlay-jsonpath-invalid",
                    format!(
                        "`{field}` is not an RFC 9535 JSONPath query: {} at character {} of `{text}`",
                        e.message(),
                        e.position() + 1
                    ),
                    ptr,
                );
                None
            }
        }
    }

    fn overlay(&mut self, root: &Value) -> Option<Parsed> {
        let Some(m) = root.as_object() else {
            self.error(
                "overlay-not-an-object",
                format!("an Overlay document is an object, not {}", kind_word(root)),
                "",
            );
            return None;
        };
        let overlay = self.string(m, "overlay", "", true);
        let version = overlay.as_deref().and_then(|v| match version_of(v) {
            Some(ver) => Some(ver),
            None => {
                self.error(
                    "overlay-version-unsupported",
                    format!("Overlay Specification version `{v}` is not supported (1.0.x, 1.1.x)"),
                    "/overlay",
                );
                None
            }
        });
        let ver = version.unwrap_or(OverlayVersion::V1_1);
        let root_fields: &[&str] = &["overlay", "info", "extends", "actions"];
        self.unknown(m, root_fields, "", "Overlay Object");
        let (mut title, mut info_version) = (None, None);
        match m.get("info") {
            Some(Value::Object(info)) => {
                title = self.string(info, "title", "/info", true);
                info_version = self.string(info, "version", "/info", true);
                let fixed: &[&str] = match ver {
                    OverlayVersion::V1_0 => &["title", "version"],
                    OverlayVersion::V1_1 => &["title", "version", "description"],
                };
                if ver == OverlayVersion::V1_1 {
                    self.string(info, "description", "/info", false);
                }
                self.unknown(info, fixed, "/info", "Info Object");
            }
            Some(other) => self.error(
                "overlay-field-type",
                format!("`info` must be an object, not {}", kind_word(other)),
                "/info",
            ),
            None => self.error("overlay-field-missing", "`info` is required".into(), ""),
        }
        let extends = self.string(m, "extends", "", false);
        let actions = match m.get("actions") {
            Some(Value::Array(a)) if a.is_empty() => {
                self.error(
                    "overlay-actions-empty",
                    "`actions` must contain at least one action".into(),
                    "/actions",
                );
                Vec::new()
            }
            Some(Value::Array(a)) => {
                let mut out = Vec::with_capacity(a.len());
                for (i, act) in a.iter().enumerate() {
                    if let Some(j) = a[..i].iter().position(|b| b == act) {
                        self.error(
                            "overlay-action-duplicate",
                            format!(
                                "action {} repeats action {} (actions must be unique)",
                                i + 1,
                                j + 1
                            ),
                            &format!("/actions/{i}"),
                        );
                    }
                    if let Some(action) = self.action(act, i, ver) {
                        out.push(action);
                    }
                }
                out
            }
            Some(other) => {
                self.error(
                    "overlay-field-type",
                    format!("`actions` must be an array, not {}", kind_word(other)),
                    "/actions",
                );
                Vec::new()
            }
            None => {
                self.error("overlay-field-missing", "`actions` is required".into(), "");
                Vec::new()
            }
        };
        Some((version?, overlay?, title?, info_version?, extends, actions))
    }

    fn action(&mut self, v: &Value, i: usize, ver: OverlayVersion) -> Option<Action> {
        let at = format!("/actions/{i}");
        let Some(m) = v.as_object() else {
            self.error(
                "overlay-field-type",
                format!("action {} must be an object, not {}", i + 1, kind_word(v)),
                &at,
            );
            return None;
        };
        let fixed: &[&str] = match ver {
            OverlayVersion::V1_0 => &["target", "description", "update", "remove"],
            OverlayVersion::V1_1 => &["target", "description", "update", "copy", "remove"],
        };
        self.unknown(m, fixed, &at, "Action Object");
        self.string(m, "description", &at, false);
        let target = self
            .string(m, "target", &at, true)
            .and_then(|t| self.jsonpath(&t, &format!("{at}/target"), "target"));
        let copy = match ver {
            OverlayVersion::V1_1 => self
                .string(m, "copy", &at, false)
                .map(|c| self.jsonpath(&c, &format!("{at}/copy"), "copy")),
            OverlayVersion::V1_0 => None,
        };
        let remove = match m.get("remove") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.error(
                    "overlay-field-type",
                    format!("`remove` must be a boolean, not {}", kind_word(other)),
                    &format!("{at}/remove"),
                );
                false
            }
        };
        let update = m.get("update");
        let op = if remove {
            for f in ["update", "copy"] {
                if m.contains_key(f) && (f == "update" || ver == OverlayVersion::V1_1) {
                    self.warn(
                        "overlay-action-ignored",
                        format!("action {}: `{f}` has no effect with `remove: true`", i + 1),
                        &format!("{at}/{f}"),
                    );
                }
            }
            Op::Remove
        } else {
            match (update, copy) {
                (Some(_), Some(_)) => {
                    self.error(
                        "overlay-action-conflict",
                        format!(
                            "action {}: `update` and `copy` together; the specification gives neither precedence, use two actions",
                            i + 1
                        ),
                        &at,
                    );
                    Op::Nothing
                }
                (Some(u), None) => Op::Update(u.clone()),
                (None, Some(c)) => Op::Copy(c?),
                (None, None) => {
                    self.warn(
                        "overlay-action-no-op",
                        format!("action {} has no `update`, `copy` or `remove: true`; it changes nothing", i + 1),
                        &at,
                    );
                    Op::Nothing
                }
            }
        };
        Some(Action {
            target: target?,
            op,
        })
    }
}

/// Bounds on a query, checked before it is parsed (RFC 9535 §4.1 lets implementations
/// limit the resources a query takes). The parser is recursive descent: unbounded
/// nesting could exhaust the stack, so brackets and parentheses nest at most
/// [`MAX_QUERY_NESTING`] deep. Each descendant segment (`..`) can multiply the nodes
/// selected by the document's depth, so a query has at most [`MAX_DESCENDANT_SEGMENTS`].
/// Real overlays use one or two (`$.paths..responses['500']`).
fn within_limits(text: &str) -> Result<(), String> {
    if text.len() > MAX_QUERY_BYTES {
        return Err(format!(
            "the query is {} bytes, over the limit of {MAX_QUERY_BYTES}",
            text.len()
        ));
    }
    let (mut depth, mut deepest, mut descendants) = (0usize, 0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(_), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (None, ')' | ']') => depth = depth.saturating_sub(1),
            (None, '.') if chars.peek() == Some(&'.') => {
                chars.next();
                descendants += 1;
            }
            _ => {}
        }
    }
    if deepest > MAX_QUERY_NESTING {
        return Err(format!(
            "brackets and parentheses nest {deepest} deep, over the limit of {MAX_QUERY_NESTING}"
        ));
    }
    if descendants > MAX_DESCENDANT_SEGMENTS {
        return Err(format!(
            "{descendants} descendant segments (`..`), over the limit of {MAX_DESCENDANT_SEGMENTS}"
        ));
    }
    Ok(())
}

const MAX_QUERY_BYTES: usize = 4096;
const MAX_QUERY_NESTING: usize = 32;
const MAX_DESCENDANT_SEGMENTS: usize = 2;

fn version_of(v: &str) -> Option<OverlayVersion> {
    let patch = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = v.strip_prefix("1.0.") {
        patch(rest).then_some(OverlayVersion::V1_0)
    } else if let Some(rest) = v.strip_prefix("1.1.") {
        patch(rest).then_some(OverlayVersion::V1_1)
    } else {
        None
    }
}

fn kind_word(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn overlay(text: &str) -> Overlay {
        Overlay::from_bytes("t.overlay.yaml", text.as_bytes(), &Limits::default())
            .map(|(o, _)| o)
            .unwrap_or_else(|e| panic!("{e:#?}"))
    }

    #[test]
    fn merge_follows_the_action_object_rules() {
        let o = overlay(
            "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.a\n    update: {keep: 2, list: [3], obj: {y: 1}, new: x}\n",
        );
        let mut doc = json!({"a": {"keep": 1, "list": [1, 2], "obj": {"x": 0}, "only": true}});
        o.apply(&mut doc).expect("applies");
        assert_eq!(
            doc,
            json!({"a": {"keep": 2, "list": [1, 2, 3], "obj": {"x": 0, "y": 1}, "only": true, "new": "x"}})
        );
        let mut clash = json!({"a": {"obj": "scalar"}});
        let e = o.apply(&mut clash).expect_err("object into string");
        assert_eq!(e[0].code, "overlay-merge-conflict");
        assert_eq!(e[0].pointer, "/actions/0/update/obj");
        assert_eq!(e[0].line, Some(5));
    }

    #[test]
    fn arrays_append_in_1_0_and_concatenate_in_1_1() {
        let text = |v: &str| {
            format!(
                "overlay: {v}\ninfo: {{title: t, version: '1'}}\nactions:\n  - target: $.a\n    update: [9]\n"
            )
        };
        let mut doc = json!({"a": [1]});
        overlay(&text("1.0.0")).apply(&mut doc).expect("1.0");
        assert_eq!(doc, json!({"a": [1, [9]]}));
        let mut doc = json!({"a": [1]});
        overlay(&text("1.1.0")).apply(&mut doc).expect("1.1");
        assert_eq!(doc, json!({"a": [1, 9]}));
    }

    #[test]
    fn removal_of_several_array_items_keeps_the_others() {
        let o = overlay(
            "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.a[0,2,0]\n    remove: true\n",
        );
        let mut doc = json!({"a": ["x", "y", "z", "w"]});
        o.apply(&mut doc).expect("applies");
        assert_eq!(doc, json!({"a": ["y", "w"]}));
    }

    #[test]
    fn hostile_queries_are_refused_before_parsing() {
        let deep = format!("$[?{}@.a{}]", "(".repeat(1000), ")".repeat(1000));
        assert!(within_limits(&deep).is_err());
        let nested = format!("${}", "[?@".repeat(40));
        assert!(within_limits(&nested).is_err());
        assert!(within_limits(&"$.a".repeat(2000)).is_err());
        assert!(within_limits("$..a..b..c").is_err());
        // Quoted brackets and dots are names, not structure.
        assert!(within_limits("$.paths['((((((((((((((((((((((((((((((((((..x..y..z']").is_ok());
        assert!(within_limits("$.paths..responses['500']").is_ok());
        assert!(within_limits(r"$['it\'s..[[']").is_ok());
    }

    #[test]
    fn versions() {
        assert_eq!(version_of("1.0.0"), Some(OverlayVersion::V1_0));
        assert_eq!(version_of("1.1.12"), Some(OverlayVersion::V1_1));
        for v in ["1.1", "1.2.0", "2", "1.1.x", "1.0.0-rc"] {
            assert_eq!(version_of(v), None, "{v}");
        }
    }
}
