//! Loading an OpenAPI document (and the files its relative `$ref`s name), resolving
//! references, and placing diagnostics back into the documents they point into.
//!
//! Everything is loaded up front, before any operation is converted: the set of
//! documents is then immutable and shared by the parallel operation converters
//! without locks. Loading is bounded (number of files, total bytes) and confined to
//! the spec's folder unless [`RefPolicy::allow_refs_outside_folder`] is set.
//!
//! **The `$ref` policy is decided once, at load.** [`Spec::load`] takes a [`RefPolicy`]
//! and resolves every file or URL any loaded document names: each `(document, file)`
//! pair gets its answer then (a loaded document, or why not), with the file-system
//! checks (canonical paths, the folder confinement, symlinks) done there and only
//! there. Classifying a `$ref` afterwards ([`Spec::classify`], [`Spec::deref`]) is a map
//! lookup: no options travel into the converters and no syscall runs on their path.

use crate::diag::Diags;
pub(crate) use crate::split_parse::Frees;
use mcpdesc_core::{Diagnostic, Format, Limits, SourceMap};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// What a spec may reference, decided by the caller and owned by the [`Spec`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefPolicy {
    /// Fetch `http(s)` documents that `$ref`s name (`--allow-remote-refs`).
    pub allow_remote_refs: bool,
    /// Let relative-file refs leave the spec's folder (and absolute paths).
    pub allow_refs_outside_folder: bool,
    /// Decoding limits for the spec and every referenced document (the total size of
    /// referenced documents shares `max_document_bytes`).
    pub limits: Limits,
}

impl RefPolicy {
    /// The policy of an import's options.
    pub fn of(opts: &crate::ImportOptions) -> Self {
        RefPolicy {
            allow_remote_refs: opts.allow_remote_refs,
            allow_refs_outside_folder: opts.allow_refs_outside_folder,
            limits: opts.limits,
        }
    }
}

/// The answer for one file named by a document's `$ref`s, decided at load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileRef {
    /// Loaded as `docs[i]`.
    Loaded(usize),
    /// Refused by the policy (absolute, `..` escape, symlink out of the folder, no
    /// folder known).
    Outside,
    /// Allowed, but it could not be read or decoded, or a limit was reached (a warning
    /// said which).
    Failed,
}

/// The OpenAPI flavor of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum SpecVersion {
    /// Swagger 2.0.
    #[serde(rename = "2.0")]
    Swagger2,
    /// OpenAPI 3.0.x.
    #[serde(rename = "3.0")]
    OpenApi30,
    /// OpenAPI 3.1.x (also used for later 3.x minor versions, with a warning).
    #[serde(rename = "3.1")]
    OpenApi31,
}

/// One loaded document: the root spec or a file reached through a relative `$ref`.
#[derive(Debug)]
pub struct SourceDoc {
    pub value: Value,
    pub source_map: Option<SourceMap>,
    /// Path on disk (None for in-memory input).
    pub path: Option<PathBuf>,
    /// Display name (relative to the root folder for referenced files).
    pub display: String,
    /// Set when overlays changed `value` after it was decoded (the root document only).
    /// `Some(Some(v))`: `source_map` belongs to `v`, the value as decoded; `Some(None)`:
    /// decoded without positions, which come from re-reading the file. Either way a
    /// position is reported only where the overlays left the value unchanged.
    pub overlaid: Option<Option<Value>>,
}

/// The root document plus every referenced file, and the `$ref` policy they were
/// loaded under.
#[derive(Debug)]
pub struct Spec {
    pub version: SpecVersion,
    /// The exact `openapi` / `swagger` string.
    pub version_string: String,
    /// `docs[0]` is the root document.
    pub docs: Vec<SourceDoc>,
    policy: RefPolicy,
    /// The canonical folder of the root document (what relative refs may not leave).
    root_dir: Option<PathBuf>,
    /// Loaded files by their normalized absolute path (`usize::MAX`: failed).
    by_path: HashMap<PathBuf, usize>,
    /// Per document: the answer for every file its `$ref`s name (the file part, as
    /// written).
    files: Vec<HashMap<String, FileRef>>,
    /// Remote documents fetched with `allow_remote_refs` (`usize::MAX`: failed).
    by_url: HashMap<String, usize>,
}

/// Where a `$ref` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefTarget {
    /// A JSON pointer (already percent-decoded) into `docs[doc]`.
    Local { doc: usize, pointer: String },
    /// An absolute URI with a scheme (http, https, urn, …): never fetched.
    Remote(String),
    /// Cannot be resolved: the reason.
    Broken(String),
}

impl std::fmt::Display for RefTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefTarget::Local { pointer, .. } => write!(f, "reference to `#{pointer}`"),
            RefTarget::Remote(r) => write!(f, "remote reference `{r}` is not fetched"),
            RefTarget::Broken(why) => f.write_str(why),
        }
    }
}

/// Bounds for loading referenced files.
const MAX_REF_FILES: usize = 256;
/// The one bound on reference chains (core's referencing module).
const MAX_REF_CHAIN: usize = mcpdesc_core::local_ref::MAX_REF_CHAIN;

/// A JSON spec at least this long is decoded on the rayon pool ([`crate::split_parse`]);
/// smaller ones take less time to parse than to hand out.
const SPLIT_DECODE_MIN_BYTES: usize = 1024 * 1024;

/// Decodes OpenAPI text leniently.
///
/// JSON goes through the located decoder of `mcpdesc-core` (same limits, positions).
/// YAML first tries the core's restricted-profile decoder (positions); real OpenAPI
/// YAML routinely uses what the MCP Description profile (§15.3) forbids, which is
/// an MCP Description rule, not an OpenAPI one: integer mapping keys (`200:`),
/// anchors and aliases, merge keys. On such a profile error we fall back to
/// `serde_yaml`, which resolves them (its alias expansion is bounded by the
/// library's repetition limit); the result is then checked against the same
/// [`Limits`]. Positions are not available on that path.
pub fn decode_openapi(
    bytes: &[u8],
    format: Format,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> Result<(Value, Option<SourceMap>), Diagnostic> {
    decode_spec(bytes, format, limits, diags).map(|(value, sm, _)| (value, sm))
}

/// [`decode_openapi`], with where a large JSON spec's parts were allocated, so that
/// they can be freed there ([`Frees::free`]).
pub(crate) fn decode_spec(
    bytes: &[u8],
    format: Format,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> Result<(Value, Option<SourceMap>, Frees), Diagnostic> {
    // Fast path for JSON: serde_json, without a source map. Positions are needed only
    // for diagnostics, and most large specs have none; `Diags::finish` re-decodes
    // with the located decoder when some diagnostic needs a line. This halves the
    // decode time and avoids the source map's memory (a pointer per value) on the
    // 13 MB GitHub spec. Anything serde_json rejects (including nesting deeper than
    // its 128 levels) goes through the located decoder, which gives the exact
    // diagnostic or accepts what the limits allow.
    if format == Format::Json && bytes.len() <= limits.max_document_bytes {
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        // A large body is parsed on the pool: the same value, or `None` and the
        // serial parse below.
        if body.len() >= SPLIT_DECODE_MIN_BYTES {
            if let Some(d) = crate::split_parse::parse(body) {
                return Ok((d.value, None, d.frees));
            }
        }
        if let Ok(v) = serde_json::from_slice::<Value>(body) {
            return Ok((v, None, Frees::default()));
        }
    }
    match mcpdesc_core::decode_bytes(bytes, format, limits) {
        Ok(d) => Ok((d.value, Some(d.source_map), Frees::default())),
        Err(e) if format == Format::Yaml && is_profile_error(&e.code) => {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| Diagnostic::error("invalid-utf8", "input is not valid UTF-8"))?;
            let yv: serde_yaml::Value = serde_yaml::from_str(text).map_err(|ye| {
                let mut d = Diagnostic::error("yaml-syntax", format!("YAML: {ye}"));
                if let Some(loc) = ye.location() {
                    d = d.with_position(loc.line() as u32, loc.column() as u32);
                }
                d
            })?;
            let mut count = 0usize;
            let v = yaml_to_json(yv, limits, 0, &mut count)?;
            diags.push(
                Diagnostic::info(
                    "openapi-yaml-lenient",
                    format!(
                        "the spec uses YAML that the MCP Description profile forbids ({}); it was read with a lenient decoder, so positions are not reported",
                        e.code
                    ),
                )
                .with_position(e.line.unwrap_or(1), e.column.unwrap_or(1)),
            );
            Ok((v, None, Frees::default()))
        }
        Err(e) => Err(e),
    }
}

fn is_profile_error(code: &str) -> bool {
    matches!(
        code,
        "yaml-anchor"
            | "yaml-alias"
            | "yaml-tag"
            | "yaml-non-string-key"
            | "yaml-complex-key"
            | "yaml-merge-key"
    ) || code.starts_with("yaml-") && code != "yaml-syntax"
}

fn yaml_to_json(
    v: serde_yaml::Value,
    limits: &Limits,
    depth: usize,
    count: &mut usize,
) -> Result<Value, Diagnostic> {
    use serde_yaml::Value as Y;
    *count += 1;
    if *count > limits.max_total_values {
        return Err(Diagnostic::error(
            "limit-total-values",
            "document has too many values (after alias expansion)",
        ));
    }
    if depth > limits.max_depth {
        return Err(Diagnostic::error(
            "limit-depth",
            format!("nesting deeper than {} levels", limits.max_depth),
        ));
    }
    Ok(match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .ok_or_else(|| {
                        Diagnostic::error("non-finite-number", "a number is not finite (.inf/.nan)")
                    })?
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                out.push(yaml_to_json(it, limits, depth + 1, count)?);
            }
            Value::Array(out)
        }
        Y::Mapping(m) => {
            let mut out = serde_json::Map::new();
            for (k, val) in m {
                let key = match k {
                    Y::String(s) => s,
                    Y::Number(n) => n.to_string(),
                    Y::Bool(b) => b.to_string(),
                    Y::Null => "null".to_string(),
                    _ => {
                        return Err(Diagnostic::error(
                            "yaml-complex-key",
                            "a sequence or mapping is used as a mapping key",
                        ));
                    }
                };
                let jv = yaml_to_json(val, limits, depth + 1, count)?;
                out.insert(key, jv);
            }
            Value::Object(out)
        }
        Y::Tagged(t) => yaml_to_json(t.value, limits, depth, count)?,
    })
}

/// Detects the flavor from the root object.
pub fn detect_version(root: &Value) -> Result<(SpecVersion, String), Diagnostic> {
    let Some(obj) = root.as_object() else {
        return Err(Diagnostic::error(
            "openapi-not-an-object",
            "the document root is not an object",
        ));
    };
    if let Some(s) = obj.get("swagger") {
        let s = scalar_string(s);
        return if s == "2.0" {
            Ok((SpecVersion::Swagger2, s))
        } else {
            Err(Diagnostic::error(
                "openapi-version-unsupported",
                format!("unsupported Swagger version `{s}` (only 2.0)"),
            )
            .at("/swagger"))
        };
    }
    if let Some(s) = obj.get("openapi") {
        let s = scalar_string(s);
        if s.starts_with("3.0") {
            return Ok((SpecVersion::OpenApi30, s));
        }
        if s.starts_with("3.") {
            return Ok((SpecVersion::OpenApi31, s));
        }
        return Err(Diagnostic::error(
            "openapi-version-unsupported",
            format!("unsupported OpenAPI version `{s}` (2.0, 3.0.x, 3.1.x)"),
        )
        .at("/openapi"));
    }
    Err(Diagnostic::error(
        "openapi-not-openapi",
        "not an OpenAPI document: the root has neither `openapi` nor `swagger`",
    ))
}

fn scalar_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

impl Spec {
    /// Builds the spec from the decoded root and loads every document reached through
    /// `$ref`s that `policy` allows (bounded), deciding each reference's answer now.
    pub fn load(
        root: Value,
        source_map: Option<SourceMap>,
        path: Option<&Path>,
        display: &str,
        policy: RefPolicy,
        diags: &mut Diags,
    ) -> Result<Spec, Diagnostic> {
        let (version, version_string) = detect_version(&root)?;
        if version == SpecVersion::OpenApi31 && !version_string.starts_with("3.1") {
            diags.warn(
                0,
                "openapi-version-newer",
                format!("OpenAPI `{version_string}` is read as 3.1"),
                "/openapi",
            );
        }
        let canonical = path.and_then(|p| p.canonicalize().ok());
        let mut spec = Spec {
            version,
            version_string,
            docs: vec![SourceDoc {
                value: root,
                source_map,
                path: path.map(Path::to_path_buf),
                display: display.to_string(),
                overlaid: None,
            }],
            policy,
            root_dir: canonical
                .as_ref()
                .and_then(|p| p.parent().map(Path::to_path_buf)),
            by_path: HashMap::new(),
            files: vec![HashMap::new()],
            by_url: HashMap::new(),
        };
        if let Some(p) = canonical {
            spec.by_path.insert(p, 0);
        }
        spec.load_referenced_files(diags);
        Ok(spec)
    }

    fn push_doc(&mut self, doc: SourceDoc) -> usize {
        self.docs.push(doc);
        self.files.push(HashMap::new());
        self.docs.len() - 1
    }

    fn load_referenced_files(&mut self, diags: &mut Diags) {
        let mut total_bytes = 0usize;
        let mut next = 0usize;
        while next < self.docs.len() {
            let mut refs = Vec::new();
            collect_file_refs(&self.docs[next].value, &mut refs);
            for file in refs {
                if is_http(&file) && self.policy.allow_remote_refs {
                    self.load_remote(next, &file, &mut total_bytes, diags);
                    continue;
                }
                if file.is_empty() || has_scheme(&file) || self.files[next].contains_key(&file) {
                    continue;
                }
                let answer = match self.file_path(next, &file) {
                    None => FileRef::Outside,
                    Some(abs) => self.load_file(next, &file, abs, &mut total_bytes, diags),
                };
                self.files[next].insert(file, answer);
            }
            next += 1;
        }
    }

    /// Loads one allowed file (once per path, whichever document names it first).
    fn load_file(
        &mut self,
        from: usize,
        file: &str,
        abs: PathBuf,
        total_bytes: &mut usize,
        diags: &mut Diags,
    ) -> FileRef {
        if let Some(&i) = self.by_path.get(&abs) {
            return if i == usize::MAX {
                FileRef::Failed
            } else {
                FileRef::Loaded(i)
            };
        }
        let mut fail = |spec: &mut Spec, code: &str, msg: String| {
            diags.warn(from, code, msg, "");
            spec.by_path.insert(abs.clone(), usize::MAX);
            FileRef::Failed
        };
        if self.docs.len() >= MAX_REF_FILES {
            return fail(
                self,
                "openapi-ref-limit",
                format!("more than {MAX_REF_FILES} referenced files; `{file}` is not loaded"),
            );
        }
        let bytes = match std::fs::read(&abs) {
            Ok(b) => b,
            Err(e) => {
                return fail(
                    self,
                    "openapi-ref-file",
                    format!("cannot read referenced file `{file}`: {e}"),
                );
            }
        };
        *total_bytes += bytes.len();
        if *total_bytes > self.policy.limits.max_document_bytes {
            return fail(
                self,
                "openapi-ref-limit",
                "referenced files exceed the total size limit".to_string(),
            );
        }
        let fmt = Format::detect(abs.to_str(), sniff_head(&bytes));
        let mut infos = Vec::new();
        match decode_openapi(&bytes, fmt, &self.policy.limits, &mut infos) {
            Ok((value, source_map)) => {
                let display = self
                    .root_dir
                    .as_ref()
                    .and_then(|d| abs.strip_prefix(d).ok().map(|p| p.display().to_string()))
                    .unwrap_or_else(|| abs.display().to_string());
                let i = self.push_doc(SourceDoc {
                    value,
                    source_map,
                    path: Some(abs.clone()),
                    display,
                    overlaid: None,
                });
                self.by_path.insert(abs, i);
                FileRef::Loaded(i)
            }
            Err(e) => fail(
                self,
                "openapi-ref-file",
                format!(
                    "cannot decode referenced file `{file}`: [{}] {}",
                    e.code, e.message
                ),
            ),
        }
    }

    /// Fetches one remote (http/https) document, only ever with `allow_remote_refs`:
    /// bounded time, bounded size (shared with referenced files), each URL once.
    fn load_remote(&mut self, from: usize, url: &str, total_bytes: &mut usize, diags: &mut Diags) {
        if self.by_url.contains_key(url) {
            return;
        }
        if self.docs.len() >= MAX_REF_FILES {
            diags.warn(
                from,
                "openapi-ref-limit",
                format!("more than {MAX_REF_FILES} referenced documents; `{url}` is not fetched"),
                "",
            );
            self.by_url.insert(url.to_string(), usize::MAX);
            return;
        }
        let limits = self.policy.limits;
        let budget = limits.max_document_bytes.saturating_sub(*total_bytes);
        let fetched = fetch(url, budget).and_then(|bytes| {
            *total_bytes += bytes.len();
            let fmt = Format::detect(Some(url), sniff_head(&bytes));
            let mut infos = Vec::new();
            decode_openapi(&bytes, fmt, &limits, &mut infos)
                .map_err(|e| format!("cannot decode it: [{}] {}", e.code, e.message))
        });
        match fetched {
            Ok((value, source_map)) => {
                let i = self.push_doc(SourceDoc {
                    value,
                    source_map,
                    path: None,
                    display: url.to_string(),
                    overlaid: None,
                });
                self.by_url.insert(url.to_string(), i);
            }
            Err(e) => {
                diags.warn(
                    from,
                    "openapi-ref-remote-fetch",
                    format!("cannot fetch `{url}`: {e}"),
                    "",
                );
                self.by_url.insert(url.to_string(), usize::MAX);
            }
        }
    }

    /// Absolute path of a relative file reference made in `docs[from]`, or None when
    /// the policy does not allow it (absolute, escaping the spec's folder, no folder
    /// known). Load time only: it asks the file system.
    fn file_path(&self, from: usize, file: &str) -> Option<PathBuf> {
        let allow_outside = self.policy.allow_refs_outside_folder;
        let file = percent_decode(file);
        let rel = Path::new(&file);
        let base = self.docs[from].path.as_ref()?.canonicalize().ok()?;
        let base_dir = base.parent()?;
        if rel.is_absolute() && !allow_outside {
            return None;
        }
        let joined = normalize(&base_dir.join(rel));
        if !allow_outside {
            let root = self.root_dir.as_ref()?;
            // A symlink inside the folder may point outside it (found by the hostile
            // suite): check where the file really is, too.
            let real = joined.canonicalize().unwrap_or_else(|_| joined.clone());
            if !joined.starts_with(root) || !real.starts_with(root) {
                return None;
            }
        }
        Some(joined)
    }

    /// Classifies a `$ref` string found in `docs[from]` (a lookup of what the load
    /// decided).
    pub fn classify(&self, from: usize, r: &str) -> RefTarget {
        let (file, frag) = match r.find('#') {
            Some(i) => (&r[..i], &r[i + 1..]),
            None => (r, ""),
        };
        let pointer = percent_decode(frag);
        if has_scheme(file) {
            if self.policy.allow_remote_refs
                && let Some(&i) = self.by_url.get(file)
                && i != usize::MAX
                && (pointer.is_empty() || pointer.starts_with('/'))
            {
                return RefTarget::Local { doc: i, pointer };
            }
            return RefTarget::Remote(r.to_string());
        }
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return RefTarget::Broken(format!("`{r}`: only JSON-pointer fragments are supported"));
        }
        if file.is_empty() {
            return RefTarget::Local { doc: from, pointer };
        }
        match self.files.get(from).and_then(|f| f.get(file)) {
            Some(FileRef::Loaded(i)) => RefTarget::Local { doc: *i, pointer },
            Some(FileRef::Outside) => RefTarget::Broken(format!(
                "`{r}`: relative file references must stay inside the spec's folder (absolute paths and `..` escapes are refused)"
            )),
            Some(FileRef::Failed) | None => {
                RefTarget::Broken(format!("`{r}`: the referenced file could not be loaded"))
            }
        }
    }

    /// The value at a pointer of a document.
    pub fn get(&self, doc: usize, pointer: &str) -> Option<&Value> {
        self.docs.get(doc)?.value.pointer(pointer)
    }

    /// Follows `$ref` chains from `v` (found at `doc`/`ptr`) to a non-reference value.
    /// Returns the document, pointer and value of the target, or the problem.
    pub fn deref<'a>(
        &'a self,
        doc: usize,
        ptr: &str,
        v: &'a Value,
    ) -> Result<(usize, String, &'a Value), RefTarget> {
        let mut cur = (doc, ptr.to_string(), v);
        // The one cycle policy: a chain that comes back to a place it passed stops. The
        // places are kept only once a value is a reference (most are not), in a list: a
        // hash set per call was a measurable part of the import (issue 30).
        let mut passed: Vec<(usize, String)> = Vec::new();
        for _ in 0..MAX_REF_CHAIN {
            let Some(r) = cur
                .2
                .as_object()
                .and_then(|m| m.get("$ref"))
                .and_then(Value::as_str)
            else {
                return Ok(cur);
            };
            if passed.iter().any(|(d, p)| *d == cur.0 && *p == cur.1) {
                break;
            }
            passed.push((cur.0, cur.1.clone()));
            match self.classify(cur.0, r) {
                RefTarget::Local { doc, pointer } => match self.get(doc, &pointer) {
                    Some(t) => cur = (doc, pointer, t),
                    None => return Err(RefTarget::Broken(format!("`{r}`: target not found"))),
                },
                other => return Err(other),
            }
        }
        Err(RefTarget::Broken(
            "reference chain too long or cyclic".to_string(),
        ))
    }
}

impl Spec {
    /// The import's diagnostics, finished: positions added (documents decoded on the
    /// fast path without positions are decoded again, once each, with the located
    /// decoder and the policy's limits, when a diagnostic needs a line), the file named
    /// for diagnostics outside the root document, and duplicates removed (a component
    /// schema used by many operations is converted many times), first occurrence first.
    pub fn finish_diagnostics(&self, diags: Diags) -> Vec<Diagnostic> {
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(diags.items.len());
        let mut relocated: HashMap<usize, Option<(Value, SourceMap)>> = HashMap::new();
        let mut unplaced = 0usize;
        for (doc, mut d) in diags.items {
            let mut lost = false;
            if let Some(sd) = self.docs.get(doc) {
                if d.line.is_none() && !d.pointer.is_empty() {
                    // The positions of the text as decoded, and the value they belong to.
                    let decoded: Option<(&Value, &SourceMap)> = match (&sd.overlaid, &sd.source_map)
                    {
                        (None, Some(sm)) => Some((&sd.value, sm)),
                        (Some(Some(v)), Some(sm)) => Some((v, sm)),
                        _ => relocated
                            .entry(doc)
                            .or_insert_with(|| self.relocate(sd))
                            .as_ref()
                            .map(|(v, sm)| (v, sm)),
                    };
                    if let Some((v, sm)) = decoded {
                        if sd.overlaid.is_some() && !unchanged(v, &sd.value, &d.pointer) {
                            lost = true;
                        } else if let Some(p) = sm.locate(v, &d.pointer) {
                            d.line = Some(p.line);
                            d.column = Some(p.column);
                        }
                    }
                }
                if doc != 0 {
                    d.message = format!("in `{}`: {}", sd.display, d.message);
                }
            }
            if seen.insert((d.code.clone(), d.pointer.clone(), d.message.clone())) {
                unplaced += usize::from(lost);
                out.push(d);
            }
        }
        if unplaced > 0 {
            out.push(Diagnostic::info(
                "openapi-overlay-positions",
                format!(
                    "{unplaced} diagnostic(s) point where overlays changed the spec: they have no line:column, and their pointers refer to the overlaid document"
                ),
            ));
        }
        out
    }

    /// Positions for a JSON document that was decoded without them.
    fn relocate(&self, sd: &SourceDoc) -> Option<(Value, SourceMap)> {
        let path = sd.path.as_ref()?;
        let fmt = Format::detect(path.to_str(), "");
        if fmt != Format::Json {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        let d = mcpdesc_core::decode_bytes(&bytes, fmt, &self.policy.limits).ok()?;
        Some((d.value, d.source_map))
    }
}

/// Whether overlays left the value at `ptr` (or, when it does not exist, at its nearest
/// existing ancestor) as it was decoded: only then is a position of the decoded text
/// the position of what the diagnostic is about.
fn unchanged(decoded: &Value, now: &Value, ptr: &str) -> bool {
    let mut p = ptr;
    loop {
        match (decoded.pointer(p), now.pointer(p)) {
            (None, None) if !p.is_empty() => p = p.rsplit_once('/').map_or("", |x| x.0),
            (a, b) => return a == b,
        }
    }
}

/// The longest UTF-8 prefix of the first 64 bytes: enough to sniff JSON from YAML
/// (`Format::sniff`), and never empty because the 64th byte splits a character.
pub fn sniff_head(bytes: &[u8]) -> &str {
    let head = &bytes[..bytes.len().min(64)];
    match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// The file parts (before `#`) of the non-local `$ref`s in `v`, each once, in
/// document order.
fn collect_file_refs(v: &Value, out: &mut Vec<String>) {
    let mut seen: HashSet<&str> = HashSet::new();
    // Iterative walk: input depth is bounded by the decoder, but stay stack-safe anyway.
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "$ref" {
                        if let Some(s) = x.as_str() {
                            let file = s.split('#').next().unwrap_or("");
                            if !s.starts_with('#') && seen.insert(file) {
                                out.push(file.to_string());
                            }
                            continue;
                        }
                    }
                    stack.push(x);
                }
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
}

/// `scheme:` prefix per RFC 3986 (letters then letters/digits/+-.), not a Windows drive.
pub fn has_scheme(s: &str) -> bool {
    let Some(i) = s.find(':') else { return false };
    let scheme = &s[..i];
    scheme.len() > 1
        && scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Lexical normalization of `.` and `..` (no symlink resolution: the result is
/// checked against the canonical root folder).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

pub use mcpdesc_core::pointer::percent_decode;

fn is_http(file: &str) -> bool {
    let lower = file.get(..8).unwrap_or(file).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// GET `url` with a 30 s overall timeout, reading at most `max` bytes.
fn fetch(url: &str, max: usize) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(30)))
        .build()
        .into();
    let resp = agent.get(url).call().map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    resp.into_body()
        .as_reader()
        .take(max as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    if buf.len() > max {
        return Err("the referenced documents exceed the total size limit".into());
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes() {
        assert!(has_scheme("https://x/y.json"));
        assert!(has_scheme("urn:x"));
        assert!(!has_scheme("c:/x"));
        assert!(!has_scheme("other.yaml"));
    }

    #[test]
    fn sniffing_stops_at_a_character_boundary() {
        // `é` is two bytes; put its first byte at index 63.
        let mut json = String::from("{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"");
        json.push_str(&"x".repeat(63 - json.len()));
        json.push_str("é\"}}");
        assert_eq!(json.as_bytes()[63], 0xC3);
        let head = sniff_head(json.as_bytes());
        assert_eq!(head.len(), 63);
        assert_eq!(Format::sniff(head), Format::Json);
        assert_eq!(sniff_head(b"\xff{"), "");
    }

    #[test]
    fn percent() {
        assert_eq!(percent_decode("/paths/~1a%7Bid%7D"), "/paths/~1a{id}");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }

    #[test]
    fn versions() {
        let v = serde_json::json!({"swagger": "2.0"});
        assert_eq!(detect_version(&v).map(|x| x.0), Ok(SpecVersion::Swagger2));
        let v = serde_json::json!({"openapi": "3.0.3"});
        assert_eq!(detect_version(&v).map(|x| x.0), Ok(SpecVersion::OpenApi30));
        let v = serde_json::json!({"openapi": "3.1.0"});
        assert_eq!(detect_version(&v).map(|x| x.0), Ok(SpecVersion::OpenApi31));
        assert!(detect_version(&serde_json::json!({"openapi": "4.0"})).is_err());
        assert!(detect_version(&serde_json::json!({"info": {}})).is_err());
    }
}
