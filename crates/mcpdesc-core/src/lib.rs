//! # mcpdesc-core
//!
//! The MCP Description 0.8.0 document model, lossless JSON and restricted-YAML
//! serialization, the table of MCP protocol revision facts, and the workspace's one
//! diagnostic type.
//!
//! This crate does no I/O: callers hand it text and get text back.

pub mod diagnostic;
pub mod json;
pub mod refs;
pub mod limits;
pub mod revision;
pub mod source;
pub mod yaml;

pub use diagnostic::{Diagnostic, Severity, has_errors, pointer};
pub use limits::Limits;
pub use revision::{Feature, ObjectKind, ProtocolRevision, RevisionSet};
pub use source::{Decoded, Format, Position, SourceMap, decode, decode_bytes};
