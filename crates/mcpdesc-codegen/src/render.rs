//! Values templates may print, and the askama filters that escape untrusted text.
//!
//! Templates see three kinds of values: [`Ident`] (a checked identifier), [`Code`]
//! (code assembled by the renderer from identifiers and fixed keywords) and
//! [`Untrusted`] (description text). Only the first two implement `Display`; untrusted
//! text reaches output only through the filters below, which call [`crate::escape`].

use crate::escape::{self, Untrusted};
use std::fmt;

/// An identifier that passed the target language's identifier check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident(String);

impl Ident {
    /// A checked Rust identifier.
    pub fn rust(s: &str) -> Result<Ident, crate::Error> {
        if escape::rust::is_ident(s) {
            Ok(Ident(s.to_string()))
        } else {
            Err(crate::Error::BadIdentifier(s.to_string()))
        }
    }

    /// A checked TypeScript identifier.
    pub fn ts(s: &str) -> Result<Ident, crate::Error> {
        if escape::ts::is_ident(s) {
            Ok(Ident(s.to_string()))
        } else {
            Err(crate::Error::BadIdentifier(s.to_string()))
        }
    }

    /// The identifier text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Code built by a renderer from [`Ident`]s, escaped literals and fixed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code(pub(crate) String);

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// askama filters (the only way templates print [`Untrusted`]).
pub mod filters {
    use crate::escape::{self, Untrusted};

    /// Rust outer doc comment (`///`), lines prefixed by `indent`.
    #[askama::filter_fn]
    pub fn rust_doc(
        s: &Untrusted,
        _env: &dyn askama::Values,
        indent: &str,
    ) -> askama::Result<String> {
        Ok(escape::rust::doc(s.raw(), indent, false))
    }

    /// Rust inner doc comment (`//!`).
    #[askama::filter_fn]
    pub fn rust_inner_doc(s: &Untrusted, _env: &dyn askama::Values) -> askama::Result<String> {
        Ok(escape::rust::doc(s.raw(), "", true))
    }

    /// Rust string literal.
    #[askama::filter_fn]
    pub fn rust_str(s: &Untrusted, _env: &dyn askama::Values) -> askama::Result<String> {
        Ok(escape::rust::str_lit(s.raw()))
    }

    /// TOML basic string.
    #[askama::filter_fn]
    pub fn toml_str(s: &Untrusted, _env: &dyn askama::Values) -> askama::Result<String> {
        Ok(escape::rust::toml_str(s.raw()))
    }

    /// JSDoc block, lines prefixed by `indent`.
    #[askama::filter_fn]
    pub fn ts_doc(
        s: &Untrusted,
        _env: &dyn askama::Values,
        indent: &str,
    ) -> askama::Result<String> {
        Ok(escape::ts::doc(s.raw(), indent, &[]))
    }

    /// JSDoc block marked `@deprecated`.
    #[askama::filter_fn]
    pub fn ts_doc_deprecated(
        s: &Untrusted,
        _env: &dyn askama::Values,
        indent: &str,
    ) -> askama::Result<String> {
        Ok(escape::ts::doc(s.raw(), indent, &["@deprecated"]))
    }

    /// TypeScript (and JSON) string literal.
    #[askama::filter_fn]
    pub fn ts_str(s: &Untrusted, _env: &dyn askama::Values) -> askama::Result<String> {
        Ok(escape::ts::str_lit(s.raw()))
    }

    /// TypeScript property key.
    #[askama::filter_fn]
    pub fn ts_key(s: &Untrusted, _env: &dyn askama::Values) -> askama::Result<String> {
        Ok(escape::ts::prop_key(s.raw()))
    }
}

/// Wraps description text.
pub fn untrusted(s: impl Into<String>) -> Untrusted {
    Untrusted(s.into())
}

/// Doc text for an optional doc plus notes (default value, deprecation).
pub fn doc_text(
    doc: Option<&str>,
    default: Option<&serde_json::Value>,
    deprecated: bool,
) -> Untrusted {
    let mut parts: Vec<String> = Vec::new();
    if deprecated {
        parts.push("Deprecated.".to_string());
    }
    if let Some(d) = doc {
        parts.push(d.to_string());
    }
    if let Some(v) = default {
        parts.push(format!("Default: {v}"));
    }
    Untrusted(parts.join("\n\n"))
}

/// What a generated method does at the revision the client negotiated, beyond taking
/// the result as it is: from the tool's [`RevisionResult`](crate::ir::RevisionResult)s,
/// the revisions where it is absent, and the others grouped by what they need (in
/// revision order). Revisions not listed take the result as it is (the default arm).
#[derive(Debug, Default)]
pub(crate) struct Dispatch<'a> {
    pub absent: Vec<&'static str>,
    pub arms: Vec<(Vec<&'static str>, Reshape<'a>)>,
}

/// A result reshaped at a revision (see [`crate::ir::Decode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reshape<'a> {
    Unwrap(&'a str),
    Wrap(&'a str),
}

/// Which reshapes some method of an IR needs (the variants of the generated code's
/// private `Decode` type).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Reshapes {
    pub unwrap: bool,
    pub wrap: bool,
}

impl Reshapes {
    pub fn of(ir: &crate::ir::Ir) -> Reshapes {
        let mut r = Reshapes::default();
        for (_, reshape) in ir.tools.iter().flat_map(|t| Dispatch::of(t).arms) {
            match reshape {
                Reshape::Unwrap(_) => r.unwrap = true,
                Reshape::Wrap(_) => r.wrap = true,
            }
        }
        r
    }

    /// Whether any method reshapes (the `Decode` type exists).
    pub fn any(self) -> bool {
        self.unwrap || self.wrap
    }
}

impl<'a> Dispatch<'a> {
    pub fn of(tool: &'a crate::ir::Tool) -> Dispatch<'a> {
        use crate::ir::Decode;
        let mut d = Dispatch::default();
        for r in &tool.results {
            let reshape = match r.decode.runtime() {
                None => continue,
                Some(Decode::Absent) => {
                    d.absent.push(r.revision.as_str());
                    continue;
                }
                // Content blocks are not reshaped (lowering gives them none).
                Some(_) if !tool.structured_output => continue,
                Some(Decode::Unwrap { property }) => Reshape::Unwrap(property),
                Some(Decode::Wrap { property }) => Reshape::Wrap(property),
                Some(_) => continue,
            };
            match d.arms.iter_mut().find(|(_, x)| *x == reshape) {
                Some((revs, _)) => revs.push(r.revision.as_str()),
                None => d.arms.push((vec![r.revision.as_str()], reshape)),
            }
        }
        d
    }
}
