//! Loading an OpenAPI document (and the files its relative `$ref`s name) and
//! resolving references.
//!
//! Everything is loaded up front, before any operation is converted: the set of
//! documents is then immutable and shared by the parallel operation converters
//! without locks. Loading is bounded (number of files, total bytes) and confined to
//! the spec's folder unless [`crate::ImportOptions::allow_refs_outside_folder`] is set.

use crate::diag::Diags;
use mcpdesc_core::{Diagnostic, Format, Limits, SourceMap};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

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

impl SpecVersion {
    /// `"2.0"`, `"3.0"`, `"3.1"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SpecVersion::Swagger2 => "2.0",
            SpecVersion::OpenApi30 => "3.0",
            SpecVersion::OpenApi31 => "3.1",
        }
    }
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
}

/// The root document plus every referenced file.
#[derive(Debug)]
pub struct Spec {
    pub version: SpecVersion,
    /// The exact `openapi` / `swagger` string.
    pub version_string: String,
    /// `docs[0]` is the root document.
    pub docs: Vec<SourceDoc>,
    by_path: HashMap<PathBuf, usize>,
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
const MAX_REF_CHAIN: usize = 32;

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
    // Fast path for JSON: serde_json, without a source map. Positions are needed only
    // for diagnostics, and most large specs have none; `Diags::finish` re-decodes
    // with the located decoder when some diagnostic needs a line. This halves the
    // decode time and avoids the source map's memory (a pointer per value) on the
    // 13 MB GitHub spec. Anything serde_json rejects (including nesting deeper than
    // its 128 levels) goes through the located decoder, which gives the exact
    // diagnostic or accepts what the limits allow.
    if format == Format::Json && bytes.len() <= limits.max_document_bytes {
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if let Ok(v) = serde_json::from_slice::<Value>(body) {
            return Ok((v, None));
        }
    }
    match mcpdesc_core::decode_bytes(bytes, format, limits) {
        Ok(d) => Ok((d.value, Some(d.source_map))),
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
            Ok((v, None))
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
    /// Builds the spec from the decoded root and loads every file reached through
    /// relative `$ref`s (bounded).
    pub fn load(
        root: Value,
        source_map: Option<SourceMap>,
        path: Option<&Path>,
        display: &str,
        opts: &crate::ImportOptions,
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
        let mut spec = Spec {
            version,
            version_string,
            docs: vec![SourceDoc {
                value: root,
                source_map,
                path: path.map(Path::to_path_buf),
                display: display.to_string(),
            }],
            by_path: HashMap::new(),
            by_url: HashMap::new(),
        };
        if let Some(p) = path.and_then(|p| p.canonicalize().ok()) {
            spec.by_path.insert(p, 0);
        }
        spec.load_referenced_files(opts, diags);
        Ok(spec)
    }

    /// The folder that relative references may not escape.
    fn root_dir(&self) -> Option<PathBuf> {
        self.docs[0]
            .path
            .as_ref()
            .and_then(|p| p.canonicalize().ok())
            .and_then(|p| p.parent().map(Path::to_path_buf))
    }

    fn load_referenced_files(&mut self, opts: &crate::ImportOptions, diags: &mut Diags) {
        let mut total_bytes = 0usize;
        let mut next = 0usize;
        while next < self.docs.len() {
            let mut refs = Vec::new();
            collect_file_refs(&self.docs[next].value, &mut refs);
            for r in refs {
                let file = r.split('#').next().unwrap_or("");
                if is_http(file) && opts.allow_remote_refs {
                    self.load_remote(next, file, opts, &mut total_bytes, diags);
                    continue;
                }
                if file.is_empty() || has_scheme(file) {
                    continue;
                }
                let Some(abs) = self.file_path(next, file, opts) else {
                    continue;
                };
                if self.by_path.contains_key(&abs) {
                    continue;
                }
                if self.docs.len() >= MAX_REF_FILES {
                    diags.warn(
                        next,
                        "openapi-ref-limit",
                        format!(
                            "more than {MAX_REF_FILES} referenced files; `{file}` is not loaded"
                        ),
                        "",
                    );
                    self.by_path.insert(abs, usize::MAX);
                    continue;
                }
                let bytes = match std::fs::read(&abs) {
                    Ok(b) => b,
                    Err(e) => {
                        diags.warn(
                            next,
                            "openapi-ref-file",
                            format!("cannot read referenced file `{file}`: {e}"),
                            "",
                        );
                        self.by_path.insert(abs, usize::MAX);
                        continue;
                    }
                };
                total_bytes += bytes.len();
                if total_bytes > opts.limits.max_document_bytes {
                    diags.warn(
                        next,
                        "openapi-ref-limit",
                        "referenced files exceed the total size limit".to_string(),
                        "",
                    );
                    self.by_path.insert(abs, usize::MAX);
                    continue;
                }
                let fmt = Format::detect(abs.to_str(), std::str::from_utf8(&bytes).unwrap_or(""));
                let mut infos = Vec::new();
                match decode_openapi(&bytes, fmt, &opts.limits, &mut infos) {
                    Ok((value, sm)) => {
                        let display = self
                            .root_dir()
                            .and_then(|d| abs.strip_prefix(d).ok().map(|p| p.display().to_string()))
                            .unwrap_or_else(|| abs.display().to_string());
                        self.by_path.insert(abs.clone(), self.docs.len());
                        self.docs.push(SourceDoc {
                            value,
                            source_map: sm,
                            path: Some(abs),
                            display,
                        });
                    }
                    Err(e) => {
                        diags.warn(
                            next,
                            "openapi-ref-file",
                            format!(
                                "cannot decode referenced file `{file}`: [{}] {}",
                                e.code, e.message
                            ),
                            "",
                        );
                        self.by_path.insert(abs, usize::MAX);
                    }
                }
            }
            next += 1;
        }
    }

    /// Fetches one remote (http/https) document, only ever with `allow_remote_refs`:
    /// bounded time, bounded size (shared with referenced files), each URL once.
    fn load_remote(
        &mut self,
        from: usize,
        url: &str,
        opts: &crate::ImportOptions,
        total_bytes: &mut usize,
        diags: &mut Diags,
    ) {
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
        let budget = opts.limits.max_document_bytes.saturating_sub(*total_bytes);
        let fetched = fetch(url, budget).and_then(|bytes| {
            *total_bytes += bytes.len();
            let fmt = Format::detect(Some(url), std::str::from_utf8(&bytes).unwrap_or(""));
            let mut infos = Vec::new();
            decode_openapi(&bytes, fmt, &opts.limits, &mut infos)
                .map_err(|e| format!("cannot decode it: [{}] {}", e.code, e.message))
        });
        match fetched {
            Ok((value, source_map)) => {
                self.by_url.insert(url.to_string(), self.docs.len());
                self.docs.push(SourceDoc {
                    value,
                    source_map,
                    path: None,
                    display: url.to_string(),
                });
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
    /// it is not allowed (absolute, escaping the spec's folder, no folder known).
    fn file_path(&self, from: usize, file: &str, opts: &crate::ImportOptions) -> Option<PathBuf> {
        let file = percent_decode(file);
        let rel = Path::new(&file);
        let base = self.docs[from].path.as_ref()?.canonicalize().ok()?;
        let base_dir = base.parent()?;
        if rel.is_absolute() && !opts.allow_refs_outside_folder {
            return None;
        }
        let joined = normalize(&base_dir.join(rel));
        if !opts.allow_refs_outside_folder {
            let root = self.root_dir()?;
            // A symlink inside the folder may point outside it (found by the hostile
            // suite): check where the file really is, too.
            let real = joined.canonicalize().unwrap_or_else(|_| joined.clone());
            if !joined.starts_with(&root) || !real.starts_with(&root) {
                return None;
            }
        }
        Some(joined)
    }

    /// Classifies a `$ref` string found in `docs[from]`.
    pub fn classify(&self, from: usize, r: &str, opts: &crate::ImportOptions) -> RefTarget {
        let (file, frag) = match r.find('#') {
            Some(i) => (&r[..i], &r[i + 1..]),
            None => (r, ""),
        };
        let pointer = percent_decode(frag);
        if has_scheme(file) {
            if opts.allow_remote_refs
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
        let Some(abs) = self.file_path(from, file, opts) else {
            return RefTarget::Broken(format!(
                "`{r}`: relative file references must stay inside the spec's folder (absolute paths and `..` escapes are refused)"
            ));
        };
        match self.by_path.get(&abs) {
            Some(&i) if i != usize::MAX => RefTarget::Local { doc: i, pointer },
            _ => RefTarget::Broken(format!("`{r}`: the referenced file could not be loaded")),
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
        opts: &crate::ImportOptions,
    ) -> Result<(usize, String, &'a Value), RefTarget> {
        let mut cur = (doc, ptr.to_string(), v);
        for _ in 0..MAX_REF_CHAIN {
            let Some(r) = cur
                .2
                .as_object()
                .and_then(|m| m.get("$ref"))
                .and_then(Value::as_str)
            else {
                return Ok(cur);
            };
            match self.classify(cur.0, r, opts) {
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

fn collect_file_refs(v: &Value, out: &mut Vec<String>) {
    // Iterative walk: input depth is bounded by the decoder, but stay stack-safe anyway.
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "$ref" {
                        if let Some(s) = x.as_str() {
                            if !s.starts_with('#') {
                                out.push(s.to_string());
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
