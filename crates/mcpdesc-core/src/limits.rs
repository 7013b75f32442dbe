//! Input limits (§15.8, §17.7). Defaults are far above anything a real document needs
//! (the 13 MB GitHub REST spec passes with room to spare) and every one is configurable.

use serde::{Deserialize, Serialize};

/// Bounds applied while decoding untrusted JSON or YAML.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Maximum input size in bytes.
    pub max_document_bytes: usize,
    /// Maximum nesting depth of arrays/objects (root = depth 1).
    pub max_depth: usize,
    /// Maximum length of one string (or key) in bytes.
    pub max_scalar_bytes: usize,
    /// Maximum number of entries in one array or object.
    pub max_collection_len: usize,
    /// Maximum total number of values (nodes) in the document.
    pub max_total_values: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_document_bytes: 256 * 1024 * 1024,
            max_depth: 256,
            max_scalar_bytes: 16 * 1024 * 1024,
            max_collection_len: 1_000_000,
            max_total_values: 20_000_000,
        }
    }
}
