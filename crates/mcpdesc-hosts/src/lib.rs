//! # mcpdesc-hosts
//!
//! What each MCP host rejects, mangles or truncates, and the rewrite that makes a
//! tools/list acceptable to one. `mcpdesc-lint` reads this crate to report, and
//! `mcpdesc serve --host` and `mcpdesc export tools-list --host` call [`fit_tools_list`]
//! to rewrite.
//!
//! - [`table`]: **the host table** (profiles as data, each fact with its source URL,
//!   the date read and whether it is confirmed). No other crate states a host limit.
//! - [`estimate`]: sizes (compact JSON bytes) and the calibrated token estimator.
//! - [`strict`]: what OpenAI structured-outputs strict mode rejects in a schema, as
//!   typed findings (lint phrases them; fitting refuses on them).
//! - [`schema`]: JSON Schema walks (explicit stack) and HTML in descriptions.
//! - [`fit_tools_list`]: rewrites one revision's tools/list so a host accepts it
//!   (renames, `$ref` inlining, equivalent union lifting, HTML to text) and prunes it
//!   to a byte budget; the result is validated. This is what `export tools-list
//!   --host/--budget` and `serve --host/--budget` call.
//!
//! Diagnostic codes of [`fit_tools_list`]: `fit-renamed`, `fit-ref-inlined`,
//! `fit-ref-cycle`, `tool-schema-ref-unresolved`/`tool-schema-ref-external` (the one
//! referencing module's codes, [`mcpdesc_core::local_ref`]), `fit-union-lifted`, `fit-union-not-liftable`,
//! `fit-html-rendered`, `fit-title-missing`, `fit-annotations-missing`,
//! `fit-strict-not-liftable`, `fit-pruned-output`, `fit-pruned-input-defs`,
//! `fit-over-budget`, `fit-invalid` (a validator finding on the result, with the
//! validator's code in the message), `fit-name-unallocatable`.

pub mod estimate;
mod fit;
pub mod schema;
pub mod strict;
pub mod table;

// `bounded` sorts before every other test module: see its docs.
#[cfg(test)]
#[path = "tests/bounded.rs"]
mod bounded;
#[cfg(test)]
mod tests;
pub use estimate::{ListSize, Size, estimate_tokens};
pub use fit::{FitOptions, Fitted, description_of_tools_list, fit_tools_list, fit_tools_list_of};
pub use schema::{has_html, html_to_text};
pub use table::{HOSTS, HostProfile, HostRule, host, host_ids};

/// mcpdesc's own default budget for one tool as a host receives it (no host documents
/// one): 32 KiB of compact JSON, about 8,000 tokens. `lint`'s `tool-over-budget`,
/// the importer's summary and fitting with a host and no `--budget` use it.
pub const DEFAULT_TOOL_BUDGET_BYTES: usize = 32 * 1024;

/// Whether a Tool has a display title: its `title` (2025-06-18 on) or
/// `annotations.title` (2025-03-26 on, the only place before 2025-06-18, and the one the
/// Claude directory checklist names).
pub fn has_title(tool: &serde_json::Value) -> bool {
    let text = |v: Option<&serde_json::Value>| {
        v.and_then(serde_json::Value::as_str)
            .is_some_and(|s| !s.trim().is_empty())
    };
    text(tool.get("title")) || text(tool.get("annotations").and_then(|a| a.get("title")))
}
