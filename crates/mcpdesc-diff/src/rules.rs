//! The one table of diff rules: every finding names one of these, and its class comes
//! from here (README's rule table is checked against it).
//!
//! Schema rules come in an `input-` and an `output-` form. Input schemas are
//! contravariant (a change that rejects an argument set OLD accepted breaks callers),
//! output schemas covariant (a change that lets the server produce a value OLD did not
//! allow breaks clients), so the same keyword change has opposite classes on the two
//! sides.

use serde::Serialize;
use std::fmt;

/// How much a change matters to the agents and clients that use the server, most
/// severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Existing callers or clients break.
    Breaking,
    /// Compatibility could not be decided (e.g. an unequal `pattern`, a rewritten
    /// `anyOf`); a human has to look. Never reported as compatible.
    PossiblyBreaking,
    /// An addition or relaxation: existing callers keep working.
    NonBreaking,
    /// Documentation and metadata only.
    Info,
}

impl Class {
    /// All classes, most severe first.
    pub const ALL: [Class; 4] = [
        Class::Breaking,
        Class::PossiblyBreaking,
        Class::NonBreaking,
        Class::Info,
    ];

    /// The kebab-case name used in every output format.
    pub const fn as_str(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::PossiblyBreaking => "possibly-breaking",
            Class::NonBreaking => "non-breaking",
            Class::Info => "info",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One diff rule: a stable kebab-case id, its class and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    pub id: &'static str,
    pub class: Class,
    pub summary: &'static str,
}

use Class::{Breaking as B, Info as I, NonBreaking as NB, PossiblyBreaking as PB};

/// Declares [`RuleId`] and [`RULES`] from one list, so an id can only be used if it has
/// a class and a summary, and the table order is the enum order.
macro_rules! rules {
    ($($variant:ident = $id:literal, $class:ident, $summary:literal;)*) => {
        /// Names one rule of [`RULES`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RuleId {
            $(#[doc = $summary] $variant,)*
        }

        /// Every rule, grouped as the README table shows them.
        pub const RULES: &[Rule] = &[
            $(Rule { id: $id, class: $class, summary: $summary },)*
        ];
    };
}

rules! {
    // --- document ---
    RevisionRemoved = "revision-removed", B, "A protocol revision was dropped from root `protocolVersions`: its clients lose the whole server (reported once, not per declaration).";
    RevisionAdded = "revision-added", I, "A protocol revision was added to root `protocolVersions` (its clients get a server they did not have).";
    InfoChanged = "info-changed", I, "Server metadata (`info`) changed.";
    InstructionsChanged = "instructions-changed", I, "Root `instructions` changed.";
    TagsChanged = "tags-changed", I, "The root tag catalogue changed.";
    SecuritySchemeChanged = "security-scheme-changed", B, "How clients obtain or present a credential changed: a scheme's `type`, `scheme`, `in`, `name`, `openIdConnectUrl` or an OAuth flow or its URLs.";
    SecuritySchemeAdded = "security-scheme-added", I, "A named security scheme was added.";
    SecuritySchemeRemoved = "security-scheme-removed", I, "A named security scheme was removed (requirements that used it are reported where they changed).";
    SecuritySchemeMetadataChanged = "security-scheme-metadata-changed", I, "A security scheme's description, scope catalogue or `bearerFormat` changed.";
    ExtensionChanged = "extension-changed", I, "A specification extension (`x-*`) changed.";
    // --- security requirements (root, transports, primitives) ---
    SecurityRequirementAdded = "security-requirement-added", B, "A client that satisfied an old requirement no longer satisfies any new one: a new scheme or scope is required.";
    SecurityRequirementRelaxed = "security-requirement-relaxed", I, "Every old way of authorizing still works and some new one needs less.";
    SecurityDeclared = "security-declared", PB, "OLD declared no requirement (omitted `security`), NEW requires credentials.";
    SecurityUndeclared = "security-undeclared", I, "NEW no longer declares a requirement (omitted `security`).";
    SecurityChanged = "security-changed", I, "The requirement changed without changing what a client must present (e.g. `[]` and `[{}]`).";
    SecurityTooComplex = "security-too-complex", PB, "Too many requirement alternatives to compare (over 250,000 old × new pairs): undecided.";
    // --- transports and capabilities ---
    TransportRemoved = "transport-removed", B, "A transport (matched by type and URL or command) was removed.";
    TransportAdded = "transport-added", NB, "A transport was added.";
    TransportChanged = "transport-changed", PB, "A stdio transport's `args` or `env` changed: configured launches may no longer work.";
    CapabilityRemoved = "capability-removed", B, "A server capability (or a flag such as `listChanged`, `subscribe`, an extension) is no longer declared.";
    CapabilityAdded = "capability-added", I, "A server capability was added.";
    // --- declarations of every kind ---
    ToolRemoved = "tool-removed", B, "A tool was removed.";
    ToolAdded = "tool-added", NB, "A tool was added.";
    ResourceRemoved = "resource-removed", B, "A resource (matched by `uri`) was removed.";
    ResourceAdded = "resource-added", NB, "A resource was added.";
    ResourceTemplateRemoved = "resource-template-removed", B, "A resource template (matched by `uriTemplate`) was removed.";
    ResourceTemplateAdded = "resource-template-added", NB, "A resource template was added.";
    PromptRemoved = "prompt-removed", B, "A prompt was removed.";
    PromptAdded = "prompt-added", NB, "A prompt was added.";
    TitleChanged = "title-changed", I, "A title changed.";
    DescriptionChanged = "description-changed", I, "A description changed.";
    NameChanged = "name-changed", I, "The programmatic `name` of a resource or template changed (its identity is the URI).";
    MimeTypeChanged = "mime-type-changed", B, "A resource's or template's `mimeType` changed.";
    DeclarationDeprecated = "declaration-deprecated", NB, "A declaration is newly `deprecated: true`.";
    DeclarationUndeprecated = "declaration-undeprecated", I, "A declaration is no longer deprecated.";
    ClientRequirementAdded = "client-requirement-added", B, "Calling the primitive now requires a client capability it did not require.";
    ClientRequirementRemoved = "client-requirement-removed", NB, "A required client capability was dropped.";
    ElicitationAdded = "elicitation-added", NB, "The primitive may now ask the user for input (a new Elicitation Declaration).";
    ElicitationRemoved = "elicitation-removed", I, "An Elicitation Declaration was removed.";
    ElicitationChanged = "elicitation-changed", I, "An Elicitation Declaration changed.";
    ExamplesChanged = "examples-changed", I, "Named examples changed.";
    MetadataChanged = "metadata-changed", I, "Other descriptive fields changed (icons, tags, `_meta`, resource annotations, size…).";
    // --- tools ---
    ToolAnnotationRiskRaised = "tool-annotation-risk-raised", B, "A behavior hint now claims more risk (`readOnlyHint` true→false, `destructiveHint` false→true, `idempotentHint` true→false, `openWorldHint` false→true; absent hints take their §9.6 defaults): hosts that auto-approve stop doing so.";
    ToolAnnotationRiskLowered = "tool-annotation-risk-lowered", I, "A behavior hint now claims less risk.";
    ToolAnnotationChanged = "tool-annotation-changed", I, "Another tool annotation changed (its `title`, unknown hints).";
    ToolTaskSupportNarrowed = "tool-task-support-narrowed", B, "`execution.taskSupport` no longer allows a way of calling the tool that it allowed (default `forbidden`).";
    ToolTaskSupportWidened = "tool-task-support-widened", NB, "`execution.taskSupport` allows more ways of calling the tool.";
    OutputSchemaAdded = "output-schema-added", NB, "The tool gained an `outputSchema`.";
    OutputSchemaRemoved = "output-schema-removed", B, "The tool lost its `outputSchema`: clients that read `structuredContent` lose their contract.";
    // --- prompts ---
    PromptArgumentRequired = "prompt-argument-required", B, "A prompt argument is new and required, or became required.";
    PromptArgumentAdded = "prompt-argument-added", NB, "An optional prompt argument was added.";
    PromptArgumentRemoved = "prompt-argument-removed", B, "A prompt argument was removed.";
    PromptArgumentOptional = "prompt-argument-optional", NB, "A prompt argument is no longer required.";
    // --- input schemas (contravariant) ---
    InputSchemaNarrowed = "input-schema-narrowed", B, "The input schema (or a part of it) now rejects every value.";
    InputSchemaWidened = "input-schema-widened", NB, "A part of the input schema that rejected every value now accepts some.";
    InputTypeNarrowed = "input-type-narrowed", B, "`type` accepts fewer JSON types (`integer` ⊂ `number`).";
    InputTypeWidened = "input-type-widened", NB, "`type` accepts more JSON types.";
    InputTypeChanged = "input-type-changed", B, "`type` accepts different JSON types.";
    InputEnumValueRemoved = "input-enum-value-removed", B, "An `enum`/`const` value is no longer accepted.";
    InputEnumValueAdded = "input-enum-value-added", NB, "An `enum` value was added.";
    InputEnumAdded = "input-enum-added", B, "An `enum`/`const` now restricts the values.";
    InputEnumRemoved = "input-enum-removed", NB, "An `enum`/`const` restriction was dropped.";
    InputRangeNarrowed = "input-range-narrowed", B, "A numeric bound (`minimum`, `maximum`, `exclusive*`, `multipleOf`) is stricter or new.";
    InputRangeWidened = "input-range-widened", NB, "A numeric bound is looser or gone.";
    InputRangeChanged = "input-range-changed", B, "`multipleOf` changed to an incomparable value.";
    InputSizeNarrowed = "input-size-narrowed", B, "A length or count bound (`minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties`) is stricter or new.";
    InputSizeWidened = "input-size-widened", NB, "A length or count bound is looser or gone.";
    InputPatternAdded = "input-pattern-added", PB, "A `pattern` was added (regular expressions are not compared).";
    InputPatternRemoved = "input-pattern-removed", NB, "A `pattern` was removed.";
    InputPatternChanged = "input-pattern-changed", PB, "A `pattern` changed (regular expressions are not compared).";
    InputFormatAdded = "input-format-added", B, "A string `format` was added.";
    InputFormatRemoved = "input-format-removed", NB, "A string `format` was removed.";
    InputFormatChanged = "input-format-changed", B, "A string `format` changed.";
    InputUniqueItemsAdded = "input-unique-items-added", B, "`uniqueItems: true` was added.";
    InputUniqueItemsRemoved = "input-unique-items-removed", NB, "`uniqueItems: true` was removed.";
    InputPropertyRequired = "input-property-required", B, "A property is new and required, or became required.";
    InputPropertyOptional = "input-property-optional", NB, "A property is no longer required.";
    InputPropertyAdded = "input-property-added", NB, "An optional property was declared.";
    InputPropertyRemoved = "input-property-removed", B, "A property was removed and the schema rejects undeclared ones (`additionalProperties: false`).";
    InputPropertyUndeclared = "input-property-undeclared", NB, "A property is no longer declared, but the open schema still accepts it.";
    InputAdditionalPropertiesClosed = "input-additional-properties-closed", B, "`additionalProperties` now rejects undeclared properties.";
    InputAdditionalPropertiesOpened = "input-additional-properties-opened", NB, "`additionalProperties` now accepts undeclared properties.";
    InputAlternativeAdded = "input-alternative-added", NB, "An `anyOf`/`oneOf` alternative was added.";
    InputAlternativeRemoved = "input-alternative-removed", B, "An `anyOf`/`oneOf` alternative was removed.";
    InputConjunctAdded = "input-conjunct-added", PB, "A constraint was added through `allOf` (or a new `anyOf`/`oneOf`, or a `$ref` beside other keywords).";
    InputConjunctRemoved = "input-conjunct-removed", NB, "A constraint given through `allOf` (or `anyOf`/`oneOf`/`$ref`) was removed.";
    InputCompositionChanged = "input-composition-changed", PB, "`anyOf`/`oneOf`/`allOf`, `not` or `if`/`then`/`else` were rewritten so that compatibility cannot be decided.";
    InputKeywordChanged = "input-keyword-changed", PB, "A keyword whose effect is not modelled changed (`patternProperties`, `propertyNames`, `contains`, `dependent*`, `unevaluated*`, unknown keywords…).";
    InputRefUnresolved = "input-ref-unresolved", PB, "A `$ref` that cannot be resolved locally changed.";
    InputTooComplex = "input-too-complex", PB, "The schemas differ deeper than the comparison follows (depth or work budget).";
    InputDialectChanged = "input-dialect-changed", PB, "The schema's `$schema` dialect changed.";
    InputAnnotationChanged = "input-annotation-changed", I, "An annotation changed (`title`, `description`, `default`, `deprecated`, `readOnly`, `writeOnly`, `content*`, `format` on non-strings).";
    // --- output schemas (covariant) ---
    OutputSchemaNarrowed = "output-schema-narrowed", NB, "A part of the output schema now allows no value.";
    OutputSchemaWidened = "output-schema-widened", B, "A part of the output schema that allowed no value now allows some.";
    OutputTypeNarrowed = "output-type-narrowed", NB, "`type` allows fewer JSON types.";
    OutputTypeWidened = "output-type-widened", B, "`type` allows more JSON types (e.g. `null`): clients may receive values they do not handle.";
    OutputTypeChanged = "output-type-changed", B, "`type` allows different JSON types.";
    OutputEnumValueRemoved = "output-enum-value-removed", NB, "An `enum` value is no longer produced.";
    OutputEnumValueAdded = "output-enum-value-added", B, "An `enum`/`const` value may now be produced.";
    OutputEnumAdded = "output-enum-added", NB, "An `enum`/`const` now restricts the values produced.";
    OutputEnumRemoved = "output-enum-removed", B, "An `enum`/`const` restriction was dropped: any value of the type may be produced.";
    OutputRangeNarrowed = "output-range-narrowed", NB, "A numeric bound is stricter or new.";
    OutputRangeWidened = "output-range-widened", B, "A numeric bound is looser or gone.";
    OutputRangeChanged = "output-range-changed", B, "`multipleOf` changed to an incomparable value.";
    OutputSizeNarrowed = "output-size-narrowed", NB, "A length or count bound is stricter or new.";
    OutputSizeWidened = "output-size-widened", B, "A length or count bound is looser or gone.";
    OutputPatternAdded = "output-pattern-added", NB, "A `pattern` was added.";
    OutputPatternRemoved = "output-pattern-removed", PB, "A `pattern` was removed (regular expressions are not compared).";
    OutputPatternChanged = "output-pattern-changed", PB, "A `pattern` changed (regular expressions are not compared).";
    OutputFormatAdded = "output-format-added", NB, "A string `format` was added.";
    OutputFormatRemoved = "output-format-removed", B, "A string `format` was removed.";
    OutputFormatChanged = "output-format-changed", B, "A string `format` changed.";
    OutputUniqueItemsAdded = "output-unique-items-added", NB, "`uniqueItems: true` was added.";
    OutputUniqueItemsRemoved = "output-unique-items-removed", B, "`uniqueItems: true` was removed.";
    OutputPropertyRequired = "output-property-required", NB, "A property is now always present (required).";
    OutputPropertyOptional = "output-property-optional", B, "A property is no longer required: clients may not receive it.";
    OutputPropertyAdded = "output-property-added", NB, "A property was declared where the schema allowed any value for it.";
    OutputPropertyAddedToClosed = "output-property-added-to-closed", B, "A property was added although OLD forbade undeclared properties: clients validating with OLD reject it.";
    OutputPropertyRemoved = "output-property-removed", B, "A property is no longer declared (it was required, or its value is now unconstrained).";
    OutputOptionalPropertyRemoved = "output-optional-property-removed", NB, "An optional property is no longer produced (the schema now forbids it).";
    OutputAdditionalPropertiesClosed = "output-additional-properties-closed", NB, "`additionalProperties` now forbids undeclared properties.";
    OutputAdditionalPropertiesOpened = "output-additional-properties-opened", B, "`additionalProperties` now allows undeclared properties.";
    OutputAlternativeAdded = "output-alternative-added", B, "An `anyOf`/`oneOf` alternative was added: clients may receive a new shape.";
    OutputAlternativeRemoved = "output-alternative-removed", NB, "An `anyOf`/`oneOf` alternative was removed.";
    OutputConjunctAdded = "output-conjunct-added", NB, "A constraint was added through `allOf` (or a new `anyOf`/`oneOf`/`$ref`).";
    OutputConjunctRemoved = "output-conjunct-removed", PB, "A constraint given through `allOf` (or `anyOf`/`oneOf`/`$ref`) was removed.";
    OutputCompositionChanged = "output-composition-changed", PB, "`anyOf`/`oneOf`/`allOf`, `not` or `if`/`then`/`else` were rewritten so that compatibility cannot be decided.";
    OutputKeywordChanged = "output-keyword-changed", PB, "A keyword whose effect is not modelled changed.";
    OutputRefUnresolved = "output-ref-unresolved", PB, "A `$ref` that cannot be resolved locally changed.";
    OutputTooComplex = "output-too-complex", PB, "The schemas differ deeper than the comparison follows (depth or work budget).";
    OutputDialectChanged = "output-dialect-changed", PB, "The schema's `$schema` dialect changed.";
    OutputAnnotationChanged = "output-annotation-changed", I, "An annotation changed.";
}

impl RuleId {
    /// The table row of this rule.
    pub fn rule(self) -> &'static Rule {
        &RULES[self as usize]
    }
    /// The stable kebab-case id.
    pub fn id(self) -> &'static str {
        self.rule().id
    }
    /// The rule's class.
    pub fn class(self) -> Class {
        self.rule().class
    }
}

/// The rule with this id.
pub fn rule_by_id(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_described() {
        for (i, r) in RULES.iter().enumerate() {
            assert!(
                r.id.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                r.id
            );
            assert!(!r.summary.is_empty(), "{}", r.id);
            assert!(
                RULES[i + 1..].iter().all(|o| o.id != r.id),
                "duplicate {}",
                r.id
            );
        }
    }

    /// Input and output schema rules are mirror images: a narrowing breaks callers
    /// (input) and is harmless for clients (output), and vice versa. Hand-written from
    /// the definition of direction, not from the table.
    #[test]
    fn schema_rules_follow_direction() {
        let harmful_for_input = [
            "schema-narrowed",
            "type-narrowed",
            "enum-value-removed",
            "enum-added",
            "range-narrowed",
            "size-narrowed",
            "format-added",
            "unique-items-added",
            "additional-properties-closed",
            "alternative-removed",
        ];
        let harmful_for_output = [
            "schema-widened",
            "type-widened",
            "enum-value-added",
            "enum-removed",
            "range-widened",
            "size-widened",
            "format-removed",
            "unique-items-removed",
            "additional-properties-opened",
            "alternative-added",
        ];
        for f in harmful_for_input {
            assert_eq!(get_owned(&format!("input-{f}")), B, "input-{f}");
            assert_eq!(get_owned(&format!("output-{f}")), NB, "output-{f}");
        }
        for f in harmful_for_output {
            assert_eq!(get_owned(&format!("input-{f}")), NB, "input-{f}");
            assert_eq!(get_owned(&format!("output-{f}")), B, "output-{f}");
        }
        for f in ["type-changed", "range-changed", "format-changed"] {
            assert_eq!(get_owned(&format!("input-{f}")), B);
            assert_eq!(get_owned(&format!("output-{f}")), B);
        }
        for f in [
            "pattern-changed",
            "composition-changed",
            "keyword-changed",
            "ref-unresolved",
            "too-complex",
            "dialect-changed",
        ] {
            assert_eq!(get_owned(&format!("input-{f}")), PB);
            assert_eq!(get_owned(&format!("output-{f}")), PB);
        }
    }

    fn get_owned(id: &str) -> Class {
        rule_by_id(id)
            .map(|r| r.class)
            .unwrap_or_else(|| panic!("no rule {id}"))
    }
}
