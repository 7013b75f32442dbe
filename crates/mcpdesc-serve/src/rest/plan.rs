//! Per-tool plans, read once from the description: provenance, path template,
//! argument serializers, server, security, output schema.

use super::RestOptions;
use mcpdesc_core::{Diagnostic, ProtocolRevision, RevisionSet};
use std::collections::HashMap;

/// Every tool's plan, by name and protocol scope.
#[derive(Debug, Default)]
pub struct Plans {
    by_name: HashMap<String, Vec<(RevisionSet, ToolPlan)>>,
    warnings: Vec<Diagnostic>,
}

/// What the gateway needs to call one tool variant.
#[derive(Debug)]
pub struct ToolPlan {}

impl Plans {
    /// Reads the plans of every tool of `doc`.
    pub fn new(doc: &serde_json::Value, opts: &RestOptions) -> Result<Plans, Vec<Diagnostic>> {
        let _ = (doc, opts);
        Ok(Plans::default())
    }

    /// The plan of tool `name` at `rev`.
    pub fn find(&self, name: &str, rev: ProtocolRevision) -> Option<&ToolPlan> {
        self.by_name
            .get(name)?
            .iter()
            .find(|(s, _)| s.contains(rev))
            .map(|(_, p)| p)
    }

    /// Non-fatal findings.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
}
