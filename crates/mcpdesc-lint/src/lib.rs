//! # mcpdesc-lint
//!
//! What each MCP host rejects, mangles or chokes on, found before users do. The host
//! facts themselves, sizes and the rewrite that fixes a list on export live in
//! [`mcpdesc_hosts`]; this crate reads them to report.
//!
//! - [`rules`]: the rule table (id, default level, meaning); `--allow`/`--deny` act on
//!   these ids.
//! - [`lint()`]: quality rules for every host, the requested hosts' rules and the size
//!   report, per protocol revision, on the tools as [`mcpdesc_scope::export_tools_list`]
//!   exports them.

mod lint;
pub mod rules;

pub use lint::{
    LintOptions, LintReport, MIN_DESCRIPTION_WORDS, RevisionSizes, apply_levels, is_rule, lint,
};

#[cfg(test)]
mod tests;
