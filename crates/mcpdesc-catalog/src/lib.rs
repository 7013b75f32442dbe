//! # mcpdesc-catalog
//!
//! What makes a large API usable by a model (issue 21): choosing what is served
//! ([`select`]: toolsets, name globs, read-only), an offline tool search ([`search`]:
//! BM25F over a tool's fields, optionally fused with a semantic ranking), and the search
//! facade's fixed tool list and result shapes ([`facade`]), and code mode's two tools
//! ([`code`]). Pure functions over description values: no I/O, no network;
//! `mcpdesc-serve` does the serving.

pub mod code;
pub mod deps;
pub mod facade;
#[cfg(test)]
mod recall;
pub mod search;
pub mod select;
pub mod semantic;
#[cfg(test)]
mod tests_mutants;
pub mod text;

pub use search::{Filter, Hit, Index, ToolText};
pub use select::{
    Selection, SelectionError, TOOLSETS_EXTENSION, is_read_only, toolsets, toolsets_of,
};
