//! # mcpdesc-pipeline
//!
//! What teams run in CI over the descriptions they keep in git, as a library so a
//! project's own xtask can call it (`cargo xtask roundtrip DIR` is a thin wrapper):
//!
//! ```no_run
//! let report = mcpdesc_pipeline::roundtrip(std::path::Path::new("server.mcpdesc.yaml"));
//! assert!(report.ok(), "{}", report.render());
//! ```
//!
//! This is the one place that reads files for these checks: `mcpdesc-core` does no
//! I/O by design, and validation and scope invariants live in their own crates.

use mcpdesc_core::{Decoded, Diagnostic, Document, Format, Limits, ProtocolRevision};
use mcpdesc_validate::Validated;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One failed check of one file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Failure {
    /// Stable check name: `decode`, `model`, `validate`, `json-reemit`, `yaml-reemit`,
    /// `json-yaml-json`, `model-reparse`, `scope-invariants`.
    pub check: &'static str,
    pub detail: String,
}

/// The result for one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub path: PathBuf,
    pub format: Option<Format>,
    pub failures: Vec<Failure>,
    /// Validator diagnostics (warnings are allowed and listed here too).
    pub diagnostics: Vec<Diagnostic>,
}

impl FileReport {
    /// No failed check.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
    /// Human-readable lines.
    pub fn render(&self) -> String {
        let name = self.path.display().to_string();
        if self.ok() {
            let w = self.diagnostics.iter().filter(|d| !d.is_error()).count();
            return format!(
                "ok    {name}{}",
                if w > 0 {
                    format!(" ({w} warnings)")
                } else {
                    String::new()
                }
            );
        }
        let mut s = format!("FAIL  {name}");
        for f in &self.failures {
            s.push_str(&format!("\n      [{}] {}", f.check, f.detail));
        }
        s
    }
}

/// The result for a set of files.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub files: Vec<FileReport>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.files.iter().all(FileReport::ok)
    }
    /// Per-file lines and a summary line `N passed, M failed`.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for f in &self.files {
            s.push_str(&f.render());
            s.push('\n');
        }
        let failed = self.files.iter().filter(|f| !f.ok()).count();
        s.push_str(&format!(
            "roundtrip: {} passed, {} failed\n",
            self.files.len() - failed,
            failed
        ));
        s
    }
}

/// Runs every round-trip check on one file:
/// decode (JSON or restricted YAML) → typed model → validate (no errors) →
/// JSON re-emit decodes to the same model → YAML re-emit decodes to the same model →
/// JSON→YAML→JSON preserves the data model → projection/merge invariants.
pub fn roundtrip(path: &Path) -> FileReport {
    let mut rep = FileReport {
        path: path.to_path_buf(),
        format: None,
        failures: Vec::new(),
        diagnostics: Vec::new(),
    };
    let fail = |rep: &mut FileReport, check: &'static str, detail: String| {
        rep.failures.push(Failure { check, detail })
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            fail(&mut rep, "decode", e.to_string());
            return rep;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let format = Format::detect(path.to_str(), &text);
    rep.format = Some(format);
    let limits = Limits::default();
    let decoded = match mcpdesc_core::decode_bytes(&bytes, format, &limits) {
        Ok(d) => d,
        Err(d) => {
            fail(&mut rep, "decode", d.render(&path.display().to_string()));
            return rep;
        }
    };
    let doc = match Document::from_value_ref(&decoded.value) {
        Ok(d) => d,
        Err(ds) => {
            fail(&mut rep, "model", render_all(path, &decoded, ds));
            return rep;
        }
    };
    let valid = match mcpdesc_validate::Validator::new().check(&decoded.value) {
        Ok(valid) => {
            rep.diagnostics = valid.diagnostics().to_vec();
            Some(valid)
        }
        Err(diags) => {
            let errs: Vec<_> = diags.iter().filter(|d| d.is_error()).cloned().collect();
            fail(&mut rep, "validate", render_all(path, &decoded, errs));
            rep.diagnostics = diags;
            None
        }
    };
    let model_value = doc.to_value();
    if model_value != decoded.value {
        fail(
            &mut rep,
            "model-reparse",
            "typed model does not reproduce the decoded data model".into(),
        );
    }
    for (check, fmt) in [("json-reemit", Format::Json), ("yaml-reemit", Format::Yaml)] {
        let out = mcpdesc_core::emit::to_format(&model_value, fmt);
        for detail in reemit_failures(&doc, &model_value, &out, fmt, &limits) {
            fail(&mut rep, check, detail);
        }
    }
    let yaml = mcpdesc_core::emit::to_yaml(&decoded.value);
    if let Some(detail) = json_yaml_json_failure(&decoded.value, &yaml, &limits) {
        fail(&mut rep, "json-yaml-json", detail);
    }
    if let Some(valid) = &valid {
        if let Err(detail) = views_of(valid).and_then(|views| merge_invariants(valid, &views)) {
            fail(&mut rep, "scope-invariants", detail);
        }
    }
    rep
}

/// The re-emit check in `fmt`, given `out`, the data model `model` of the typed `doc`
/// emitted in `fmt`: `out` decodes to `model` again, to the same typed document, and
/// emitting that once more is byte-identical (stable output). One detail per failure.
fn reemit_failures(
    doc: &Document,
    model: &Value,
    out: &str,
    fmt: Format,
    limits: &Limits,
) -> Vec<String> {
    let v = match mcpdesc_core::decode(out, fmt, limits).map(|d| d.value) {
        Ok(v) if v == *model => v,
        Ok(_) => return vec!["re-emitted document decodes to a different data model".into()],
        Err(d) => return vec![format!("re-emitted document does not decode: {d}")],
    };
    let mut failures = Vec::new();
    if mcpdesc_core::emit::to_format(&v, fmt) != out {
        failures.push("emitting twice is not byte-identical".into());
    }
    match Document::from_value(v) {
        Ok(d2) if d2 == *doc => {}
        _ => failures.push("re-decoded document is a different model".into()),
    }
    failures
}

/// The JSON→YAML→JSON check: `yaml` (`original` emitted as YAML), decoded and emitted
/// as JSON, decodes to `original` again.
fn json_yaml_json_failure(original: &Value, yaml: &str, limits: &Limits) -> Option<String> {
    let back = mcpdesc_core::decode(yaml, Format::Yaml, limits)
        .map(|d| mcpdesc_core::emit::to_json(&d.value))
        .and_then(|j| mcpdesc_core::decode(&j, Format::Json, limits));
    match back {
        Ok(d) if d.value == *original => None,
        _ => Some("JSON→YAML→JSON changed the data model".into()),
    }
}

/// Diagnostics on one line, `; `-separated.
fn flat(ds: Vec<Diagnostic>) -> String {
    ds.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// `project_V(D)` for every revision V of `doc` (§4.12), each as a data model.
fn views_of(doc: &Validated<'_>) -> Result<Vec<(ProtocolRevision, Value)>, String> {
    doc.revisions()
        .iter()
        .map(|rev| {
            mcpdesc_scope::project(doc, rev)
                .map(|view| (rev, view.into_value()))
                .map_err(|d| format!("project {rev}: {}", flat(vec![d])))
        })
        .collect()
}

/// Given `views` (`project_V(D)` of `doc` for each V): `merge(views) ≡ D`, each view
/// validates (merge validates each view it is given, and the result), and
/// `P_V(merge(views)) ≡ view_V` (§4.12, §4.13).
fn merge_invariants(
    doc: &Validated<'_>,
    views: &[(ProtocolRevision, Value)],
) -> Result<(), String> {
    // `merge` (not `merge_views`): each view is validated as an input.
    let inputs: Vec<mcpdesc_scope::MergeInput> = views
        .iter()
        .map(|(rev, v)| mcpdesc_scope::MergeInput::new(format!("view at {rev}"), v.clone()))
        .collect();
    let merged =
        mcpdesc_scope::merge(&inputs).map_err(|d| format!("merge of views: {}", flat(d)))?;
    if let Some(diff) = mcpdesc_scope::first_difference(&merged, doc) {
        return Err(format!("merge(project_V(D)) differs from D: {diff}"));
    }
    for (rev, view) in views {
        let again = mcpdesc_scope::project(&merged, *rev)
            .map_err(|d| format!("project merged {rev}: {}", flat(vec![d])))?;
        if !mcpdesc_scope::views_equivalent(again.value(), view) {
            return Err(format!(
                "P_{rev}(merge(views)) differs from the view at {rev}"
            ));
        }
    }
    Ok(())
}

fn render_all(path: &Path, decoded: &Decoded, mut diags: Vec<Diagnostic>) -> String {
    decoded.annotate(&mut diags);
    let name = path.display().to_string();
    diags
        .iter()
        .map(|d| d.render(&name))
        .collect::<Vec<_>>()
        .join("\n      ")
}

/// Description files under `dir`, recursively: `*.json`, `*.yaml`, `*.yml` (any case),
/// in sorted path order (`mcpdesc validate DIR` and [`roundtrip_dir`] both walk this).
///
/// Hidden entries (a name starting with `.`: `.git`, `.deps`, `.eslintrc.json`, our own
/// temporary files), `target` and `node_modules` folders are skipped, and links to
/// folders are not followed (a walk stays in the tree and cannot loop); links to files
/// are read. `dir` itself is always walked, whatever its name. An unreadable folder is
/// an error naming it.
pub fn description_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    const SKIPPED_DIRS: [&str; 2] = ["target", "node_modules"];
    let at = |p: &Path| {
        let p = p.display().to_string();
        move |e: std::io::Error| std::io::Error::new(e.kind(), format!("{p}: {e}"))
    };
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).map_err(at(&d))? {
            let e = e.map_err(at(&d))?;
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let p = e.path();
            let kind = e.file_type().map_err(at(&p))?;
            if kind.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push(p);
                }
            } else if Format::from_path(&name).is_some() && (kind.is_file() || p.is_file()) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// [`roundtrip`] over every description file under `dir`, in parallel.
pub fn roundtrip_dir(dir: &Path) -> std::io::Result<Report> {
    let files = description_files(dir)?;
    Ok(Report {
        files: files.par_iter().map(|p| roundtrip(p)).collect(),
    })
}

#[cfg(test)]
mod tests;
