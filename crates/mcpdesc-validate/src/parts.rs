//! Validation of a document whose `tools` arrive in parts, for producers that stream.
//!
//! A producer with thousands of tools (the OpenAPI importer on the GitHub spec: 1,500
//! tool objects, 24 MB of JSON) need not hold the whole document to validate it. It
//! builds the **skeleton** (the document with `"tools": []` where the tools will go),
//! then hands each part of the tools array to [`ToolParts::check`] — from any thread,
//! in any order — and drops the tool values after emitting them. [`ToolParts::finish`]
//! takes the reports in the order of the parts in the array and returns exactly the diagnostics [`Validator::validate_value`] gives for the whole
//! document, in the same order.
//!
//! How it stays exact:
//! - each part is validated as the skeleton plus that part's tools (structural and
//!   semantic layers); every diagnostic under `/tools/k` is moved to the tool's index in
//!   the whole array, and its document-order key with it;
//! - the only rule that relates tools *across* parts is `overlapping-primitive-scope`
//!   (same-name Tools with overlapping scopes, §9.5); it reads nothing but each tool's
//!   `name` and `protocolVersions`, so it runs once in [`ToolParts::finish`] over the
//!   skeleton with a stub per tool (`name` and `protocolVersions` kept, a minimal
//!   `inputSchema` added; a non-object tool kept as it is), with the real indices. Its findings inside the parts (local
//!   indices in the message) are dropped;
//! - everything at a pointer outside `/tools/…` comes from the skeleton alone or from
//!   what a tool reaches (a shared component): repeats across parts are exact copies and
//!   collapse, as in the whole-document run, where each is reported once;
//! - a structural error restated by a semantic error at the same pointer is dropped
//!   after merging, across parts, as `validate_value` does.
//!
//! One documented difference: the example-validation budget
//! (`payload-validation-limit`, 20,000 instance validations per document) applies per
//! part. A document that reaches it is validated more completely in parts, never less.
//! `tests/conformance.rs` (workspace tests) checks equality against `validate_value` on every
//! official fixture and spec example, cut into parts of several sizes.

use crate::schema_facts::DefVerdicts;
use crate::{Validator, is_restated, order_key};
use mcpdesc_core::Diagnostic;
use serde_json::{Map, Value};
use std::sync::{Mutex, PoisonError};

/// Code of the one cross-tool rule (see the module docs).
const OVERLAP: &str = "overlapping-primitive-scope";

/// A document being validated part by part. `Sync`: parts may be checked in parallel.
#[derive(Debug)]
pub struct ToolParts {
    validator: Validator,
    skeleton: Map<String, Value>,
    /// Copies of the skeleton between parts: a part borrows one, puts its tools in,
    /// and gives it back with `tools` empty again, so the skeleton is copied once per
    /// thread rather than once per part.
    spare: Mutex<Vec<Map<String, Value>>>,
    /// Meta-schema verdicts on `$defs` members, shared by the parts.
    defs: DefVerdicts,
}

/// What one part contributed, with tool indices local to the part; hand every report
/// to [`ToolParts::finish`].
#[derive(Debug)]
pub struct PartReport {
    structural: Vec<Keyed>,
    semantic: Vec<Keyed>,
    /// One stub per tool of the part, for the cross-tool rule.
    stubs: Vec<Value>,
}

/// A diagnostic with its document-order key (see `order_key`).
type Keyed = (Vec<usize>, Diagnostic);

impl ToolParts {
    /// `skeleton` is the document with `"tools": []` at the position the tools take
    /// (any other `tools` value is replaced by an empty array). Returns `None` when the
    /// skeleton is not an object: validate such a document whole.
    pub fn new(validator: Validator, skeleton: Value) -> Option<Self> {
        let Value::Object(mut skeleton) = skeleton else {
            return None;
        };
        skeleton.insert("tools".into(), Value::Array(Vec::new()));
        Some(ToolParts {
            validator,
            skeleton,
            spare: Mutex::new(Vec::new()),
            defs: DefVerdicts::default(),
        })
    }

    /// Validates `tools`, one part of the whole array, and gives them back unchanged.
    /// An empty part contributes nothing.
    pub fn check(&self, tools: Vec<Value>) -> (PartReport, Vec<Value>) {
        let mut report = PartReport {
            structural: Vec::new(),
            semantic: Vec::new(),
            stubs: tools.iter().map(stub).collect(),
        };
        if tools.is_empty() {
            return (report, tools);
        }
        let mut doc = self.borrow_skeleton();
        // `tools` is a member of the skeleton: its value is replaced in place.
        doc.insert("tools".into(), Value::Array(tools));
        let doc = Value::Object(doc);
        let (structural, semantic) = self.validator.layers_sharing(&doc, Some(&self.defs));
        let keyed = |d: Diagnostic| (order_key(&doc, &d.pointer), d);
        report.structural = structural.into_iter().map(keyed).collect();
        report.semantic = semantic
            .into_iter()
            .filter(|d| d.code != OVERLAP)
            .map(keyed)
            .collect();
        let Value::Object(mut doc) = doc else {
            unreachable!("built as an object above")
        };
        let tools = match doc.get_mut("tools") {
            Some(Value::Array(t)) => std::mem::take(t),
            _ => unreachable!("inserted as an array above"),
        };
        self.give_back(doc);
        (report, tools)
    }

    /// A copy of the skeleton (`tools` empty): a spare one, else a new clone.
    fn borrow_skeleton(&self) -> Map<String, Value> {
        let spare = self
            .spare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        spare.unwrap_or_else(|| self.skeleton.clone())
    }

    /// Returns a copy taken by [`ToolParts::borrow_skeleton`], its `tools` emptied.
    fn give_back(&self, doc: Map<String, Value>) {
        self.spare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(doc);
    }

    /// A part whose tools are not checked again: tools of a validated description that
    /// a derivation left as they were (host fitting re-checks only the tools it
    /// changed). Only the cross-tool rule reads them, in [`ToolParts::finish_derived`].
    pub fn vouched(&self, tools: &[Value]) -> PartReport {
        PartReport {
            structural: Vec::new(),
            semantic: Vec::new(),
            stubs: tools.iter().map(stub).collect(),
        }
    }

    /// [`ToolParts::finish`] of the re-check of a derivation of a validated document
    /// (some parts [`ToolParts::vouched`], the others what the derivation changed): not
    /// a whole-document validation, so not counted in [`crate::runs_in_this_process`].
    pub fn finish_derived(self, parts: Vec<PartReport>) -> Vec<Diagnostic> {
        self.merge(parts)
    }

    /// The diagnostics of the whole document (skeleton plus every part), sorted and
    /// deduplicated as [`Validator::validate_value`] sorts them. `parts` are the reports
    /// of the parts in their order in the tools array.
    pub fn finish(self, parts: Vec<PartReport>) -> Vec<Diagnostic> {
        crate::validated::count_run();
        self.merge(parts)
    }

    /// [`ToolParts::finish`] without counting.
    fn merge(self, parts: Vec<PartReport>) -> Vec<Diagnostic> {
        let tools_at = self.skeleton.keys().position(|k| k == "tools");
        let mut stubs = Vec::new();
        let mut structural = Vec::new();
        let mut semantic = Vec::new();
        for p in parts {
            let first = stubs.len();
            let rebase = |(key, d)| rebase(key, d, tools_at, first);
            stubs.extend(p.stubs);
            structural.extend(p.structural.into_iter().map(rebase));
            semantic.extend(p.semantic.into_iter().map(rebase));
        }
        // The skeleton with every tool as a stub: document-level rules (an empty
        // `tools`, the skeleton's own members) and the cross-tool rule.
        let mut doc = self.skeleton;
        doc.insert("tools".into(), Value::Array(stubs));
        let doc = Value::Object(doc);
        let (s, m) = self.validator.layers(&doc);
        let whole = |d: &Diagnostic| !d.pointer.starts_with("/tools/") || d.code == OVERLAP;
        for d in s.into_iter().filter(whole) {
            structural.push((order_key(&doc, &d.pointer), d));
        }
        for d in m.into_iter().filter(whole) {
            semantic.push((order_key(&doc, &d.pointer), d));
        }
        let mut out: Vec<Keyed> = structural
            .into_iter()
            .filter(|(_, s)| !is_restated(s, semantic.iter().map(|(_, m)| m)))
            .collect();
        out.extend(semantic);
        crate::sort_keyed(out)
    }
}

/// What the cross-tool rule reads of a tool.
fn stub(tool: &Value) -> Value {
    match tool {
        Value::Object(t) => {
            let mut s = Map::new();
            for k in ["name", "protocolVersions"] {
                if let Some(v) = t.get(k) {
                    s.insert(k.into(), v.clone());
                }
            }
            // Not read by the rule; keeps a well-formed stub on the structural fast
            // path (its findings under `/tools/…` are not kept anyway).
            s.insert("inputSchema".into(), serde_json::json!({"type": "object"}));
            Value::Object(s)
        }
        other => other.clone(),
    }
}

/// Moves a diagnostic found in a part to the whole document: `/tools/k…` becomes
/// `/tools/(first + k)…`, in the pointer and in the order key.
fn rebase(mut key: Vec<usize>, mut d: Diagnostic, tools_at: Option<usize>, first: usize) -> Keyed {
    if first == 0 {
        return (key, d);
    }
    let Some(rest) = d.pointer.strip_prefix("/tools/") else {
        return (key, d);
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let Ok(k) = rest[..digits].parse::<usize>() else {
        return (key, d);
    };
    d.pointer = format!("/tools/{}{}", first + k, &rest[digits..]);
    if key.first().copied() == tools_at && key.len() > 1 {
        key[1] = first + k;
    }
    (key, d)
}
