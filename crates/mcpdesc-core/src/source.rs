//! Decoding untrusted text into the JSON data model, with positions.
//!
//! Both serializations (§15) decode into one [`serde_json::Value`] (key order kept)
//! plus a [`SourceMap`] that turns any JSON pointer back into a line and column.
//! Parsers feed a [`ValueBuilder`] (see [`crate::builder`]), which enforces the
//! [`Limits`] iteratively.

use crate::diagnostic::Diagnostic;
use crate::limits::Limits;
use serde_json::Value;

pub use crate::builder::{Position, SourceMap, ValueBuilder, number_from_text};

/// A conforming serialization (§15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Yaml,
}

impl Format {
    /// Format from a file name (`.json` → JSON; `.yaml`/`.yml` → YAML).
    pub fn from_path(path: &str) -> Option<Format> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Some(Format::Json)
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Some(Format::Yaml)
        } else {
            None
        }
    }
    /// Content sniffing: JSON text starts with `{` or `[` after whitespace; anything else is YAML.
    pub fn sniff(text: &str) -> Format {
        match text
            .trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
            .as_bytes()
            .first()
        {
            Some(b'{') | Some(b'[') => Format::Json,
            _ => Format::Yaml,
        }
    }
    /// Path first, then content.
    pub fn detect(path: Option<&str>, text: &str) -> Format {
        path.and_then(Format::from_path)
            .unwrap_or_else(|| Format::sniff(text))
    }
}

/// A decoded document: the data model plus positions.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub value: Value,
    pub source_map: SourceMap,
    pub format: Format,
}

impl Decoded {
    /// Position of the value at a JSON pointer.
    pub fn locate(&self, ptr: &str) -> Option<Position> {
        self.source_map.locate(&self.value, ptr)
    }
    /// Adds positions to diagnostics that carry only a pointer.
    pub fn annotate(&self, diags: &mut [Diagnostic]) {
        self.source_map.annotate(&self.value, diags);
    }
}

/// Decodes text in the given format, enforcing `limits`.
///
/// Errors are diagnostics with a code (`json-syntax`, `yaml-alias`, `limit-depth`, …),
/// a pointer to the enclosing value when known, and the line/column of the problem.
pub fn decode(text: &str, format: Format, limits: &Limits) -> Result<Decoded, Diagnostic> {
    if text.len() > limits.max_document_bytes {
        return Err(Diagnostic::error(
            "limit-document-size",
            format!(
                "document is {} bytes, over the limit of {} bytes",
                text.len(),
                limits.max_document_bytes
            ),
        )
        .with_position(1, 1));
    }
    let (value, source_map) = match format {
        Format::Json => crate::json::parse(text, limits)?,
        Format::Yaml => crate::yaml::parse(text, limits)?,
    };
    Ok(Decoded {
        value,
        source_map,
        format,
    })
}

/// Decodes bytes: rejects invalid UTF-8 with a position, then [`decode`].
pub fn decode_bytes(bytes: &[u8], format: Format, limits: &Limits) -> Result<Decoded, Diagnostic> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() as u32 + 1;
        let last_nl = good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let col = String::from_utf8_lossy(&good[last_nl..]).chars().count() as u32 + 1;
        Diagnostic::error(
            "invalid-utf8",
            format!("input is not valid UTF-8 (byte offset {})", e.valid_up_to()),
        )
        .with_position(line, col)
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    decode(text, format, limits)
}
