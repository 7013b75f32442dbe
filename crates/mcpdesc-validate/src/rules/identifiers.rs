//! The validator's extension catalogue (validator metadata, §8.4). The identifier
//! grammars themselves are MCP vocabulary and live in [`mcpdesc_core::meta`].

/// How mature a catalogued official MCP extension is (§8.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maturity {
    /// Catalogued official extension: no identifier warning.
    Official,
    /// Catalogued experimental extension: warn that its maturity must be reviewed.
    Experimental,
}

/// One extension-catalogue row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogueEntry {
    pub identifier: &'static str,
    pub maturity: Maturity,
}

/// Where the catalogue comes from (§8.4 requires disclosing source, date and maturity).
pub const EXTENSION_CATALOGUE_SOURCE: &str = "MCP extension identifiers used as recognized \
     official extensions by the mcpdesc 0.8.0 specification text and its official fixtures \
     (spec §8.7; fixtures expected-valid/client-capability-requirements.json, \
     expected-valid/security-root-and-override.json)";

/// Effective date of the catalogue snapshot (the mcpdesc 0.8.0 release date).
pub const EXTENSION_CATALOGUE_DATE: &str = "2026-09-08";

/// The frozen extension catalogue.
pub const EXTENSION_CATALOGUE: &[CatalogueEntry] = &[
    CatalogueEntry {
        identifier: "io.modelcontextprotocol/tasks",
        maturity: Maturity::Official,
    },
    CatalogueEntry {
        identifier: "io.modelcontextprotocol/ui",
        maturity: Maturity::Official,
    },
];

/// Catalogue maturity of an identifier, if catalogued.
pub fn catalogued(identifier: &str) -> Option<Maturity> {
    EXTENSION_CATALOGUE
        .iter()
        .find(|e| e.identifier == identifier)
        .map(|e| e.maturity)
}

pub use mcpdesc_core::meta::{has_reserved_prefix, is_extension_identifier};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue() {
        assert_eq!(
            catalogued("io.modelcontextprotocol/ui"),
            Some(Maturity::Official)
        );
        assert_eq!(
            catalogued("io.modelcontextprotocol/future-capability"),
            None
        );
    }
}
