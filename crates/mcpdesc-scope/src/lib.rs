//! # mcpdesc-scope
//!
//! Protocol scopes of MCP Descriptions (mcpdesc 0.8.0 §4.10–§4.13): Effective Protocol
//! Views ([`project()`]), merging descriptions into disjoint protocol-scoped variants
//! ([`merge()`], [`merge_views`]), splitting declarations that are not valid in every
//! revision of their scope ([`split()`], [`split_declaration`]), semantic equivalence
//! ([`equivalent`]) and the list exports ([`export_tools_list`], [`list_of_view`]).
//!
//! Consumers of a valid description take the validator's handle
//! ([`mcpdesc_validate::Validated`]) and do not validate it again; producers (`split`,
//! `merge`) validate what they emit once and return it as a handle.
//!
//! Everything works on the decoded data model (`serde_json::Value` with key order
//! preserved) and is generic over every scoped declaration kind ([`DeclKind`]);
//! whatever a step does not touch is carried over unchanged (extensions, `_meta`,
//! examples, the three forms of `security`). Revision facts come only from
//! [`mcpdesc_core::revision`].

pub mod equiv;
pub mod export;
pub mod kinds;
pub mod merge;
pub mod project;
pub mod split;

mod components;

#[cfg(test)]
mod tests;

pub use equiv::{equivalent, first_difference, normalize_view, views_equivalent};
pub use export::{
    WireTool, compact_len, export_tools_list, list_of_view, server_info, tools_at,
    tools_list_of_view, wire_fields, wire_size, wire_tools, wire_value,
};
pub use kinds::{DeclKind, decl_scope, root_scope};
pub use merge::{MergeInput, merge, merge_views};
pub use project::{
    ProjectOptions, project, project_declaration, project_declaration_classes, project_with,
};
pub use split::{
    LossAction, OutputRootStrategy, SplitLoss, SplitPolicy, Variant, restrict, split,
    split_declaration, split_tool_output_root, split_with,
};
