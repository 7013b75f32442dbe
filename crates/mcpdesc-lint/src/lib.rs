//! # mcpdesc-lint
//!
//! What each MCP host rejects, mangles or chokes on, found before users do — and fixed
//! on export.
//!
//! - [`hosts`]: **the host table** (profiles as data, each fact with its source URL,
//!   the date read and whether it is confirmed). No other crate states a host limit.
//! - [`rules`]: the rule table (id, default level, meaning); `--allow`/`--deny` act on
//!   these ids.
//! - [`lint()`]: quality rules for every host, the requested hosts' rules and the size
//!   report, per protocol revision, on the tools as [`mcpdesc_scope::export_tools_list`]
//!   exports them.
//! - [`estimate`]: sizes (compact JSON bytes) and the calibrated token estimator.
//! - [`fit_tools_list`]: rewrites one revision's tools/list so a host accepts it
//!   (renames, `$ref` inlining, equivalent union lifting, HTML to text) and prunes it
//!   to a byte budget; the result is validated. This is what `export tools-list
//!   --host/--budget` and `serve --host/--budget` call.
//!
//! Diagnostic codes of [`fit_tools_list`]: `fit-renamed`, `fit-ref-inlined`,
//! `fit-ref-cycle`, `fit-ref-unresolved`, `fit-union-lifted`, `fit-union-not-liftable`,
//! `fit-html-rendered`, `fit-title-missing`, `fit-annotations-missing`,
//! `fit-strict-not-liftable`, `fit-pruned-output`, `fit-pruned-input-defs`,
//! `fit-over-budget`, `fit-invalid` (a validator finding on the result, with the
//! validator's code in the message), `fit-name-unallocatable`.

pub mod estimate;
mod fit;
pub mod hosts;
mod lint;
pub mod rules;
mod schema;

pub use estimate::{Size, estimate_tokens};
pub use fit::{FitOptions, Fitted, description_of_tools_list, fit_tools_list};
pub use hosts::{HOSTS, HostProfile, HostRule, host, host_ids};
pub use lint::{
    DEFAULT_TOOL_BUDGET_BYTES, LintOptions, LintReport, MIN_DESCRIPTION_WORDS, RevisionSizes,
    apply_levels, is_rule, lint,
};
pub use schema::{has_html, html_to_text};

/// Whether a Tool has a display title: its `title` (2025-06-18 on) or
/// `annotations.title` (2025-03-26 on, the only place before 2025-06-18, and the one the
/// Claude directory checklist names).
pub(crate) fn has_title(tool: &serde_json::Value) -> bool {
    let text = |v: Option<&serde_json::Value>| {
        v.and_then(serde_json::Value::as_str)
            .is_some_and(|s| !s.trim().is_empty())
    };
    text(tool.get("title")) || text(tool.get("annotations").and_then(|a| a.get("title")))
}

#[cfg(test)]
mod tests;
