//! MCP protocol revisions and the ONE table of revision facts.
//!
//! Every fact of the form "field X exists in revision Y" lives here, as data, and
//! every other crate (validator, split, export, live import, codegen) asks this
//! module. Nothing else in the workspace hard-codes a revision fact.
//!
//! Sources: mcpdesc 0.8.0 §4.9, §6.2, §8, §9–§12 and the MCP schemas of each revision.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An MCP protocol revision in scope for mcpdesc 0.8.0 (§4.9). Ordered by date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ProtocolRevision {
    #[serde(rename = "2024-11-05")]
    V2024_11_05,
    #[serde(rename = "2025-03-26")]
    V2025_03_26,
    #[serde(rename = "2025-06-18")]
    V2025_06_18,
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

use ProtocolRevision::*;

impl ProtocolRevision {
    /// All revisions, oldest first.
    pub const ALL: [ProtocolRevision; 5] = [
        V2024_11_05,
        V2025_03_26,
        V2025_06_18,
        V2025_11_25,
        V2026_07_28,
    ];

    /// The newest revision.
    pub const LATEST: ProtocolRevision = V2026_07_28;

    /// The wire string, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            V2024_11_05 => "2024-11-05",
            V2025_03_26 => "2025-03-26",
            V2025_06_18 => "2025-06-18",
            V2025_11_25 => "2025-11-25",
            V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire string; `None` for unknown revisions.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether `feature` is defined in this revision.
    pub fn has(self, feature: Feature) -> bool {
        feature.available_in(self)
    }

    /// Revisions before 2025-06-18 get only "sound structural and selected checks"
    /// (§3.5, §12.5, §16.2): validators must warn that validation is incomplete.
    pub fn is_legacy(self) -> bool {
        !self.has(Feature::CompleteSemanticValidation)
    }

    /// Sorted position, 0 = oldest.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ProtocolRevision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for [`ProtocolRevision::from_str`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown MCP protocol revision `{0}` (mcpdesc 0.8.0 knows {known})",
    known = RevisionSet::ALL.to_strings().join(", ")
)]
pub struct UnknownRevision(pub String);

impl FromStr for ProtocolRevision {
    type Err = UnknownRevision;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| UnknownRevision(s.to_string()))
    }
}

/// A set of revisions (a protocol scope), as a 5-bit set. Cheap to copy and compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct RevisionSet(u8);

impl RevisionSet {
    pub const EMPTY: RevisionSet = RevisionSet(0);
    pub const ALL: RevisionSet = RevisionSet(0b1_1111);

    pub fn single(r: ProtocolRevision) -> Self {
        RevisionSet(1 << r.index())
    }
    pub fn contains(self, r: ProtocolRevision) -> bool {
        self.0 & (1 << r.index()) != 0
    }
    pub fn insert(&mut self, r: ProtocolRevision) {
        self.0 |= 1 << r.index();
    }
    pub fn union(self, o: Self) -> Self {
        RevisionSet(self.0 | o.0)
    }
    pub fn intersection(self, o: Self) -> Self {
        RevisionSet(self.0 & o.0)
    }
    pub fn difference(self, o: Self) -> Self {
        RevisionSet(self.0 & !o.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn is_subset(self, o: Self) -> bool {
        self.0 & !o.0 == 0
    }
    pub fn is_disjoint(self, o: Self) -> bool {
        self.0 & o.0 == 0
    }
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// Members, oldest first.
    pub fn iter(self) -> impl Iterator<Item = ProtocolRevision> {
        ProtocolRevision::ALL
            .into_iter()
            .filter(move |r| self.contains(*r))
    }
    /// Members as wire strings, oldest first.
    pub fn to_strings(self) -> Vec<String> {
        self.iter().map(|r| r.as_str().to_string()).collect()
    }
    /// Revisions of this set where `feature` is available.
    pub fn with(self, feature: Feature) -> Self {
        self.iter().filter(|r| r.has(feature)).collect()
    }
    /// Revisions of this set where `feature` is not available.
    pub fn without(self, feature: Feature) -> Self {
        self.difference(self.with(feature))
    }
    /// Members of a `protocolVersions` JSON array; unknown or non-string entries are
    /// ignored (the validator reports them).
    pub fn from_json(v: &serde_json::Value) -> Self {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().and_then(ProtocolRevision::parse))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Effective scope (§4.10): the explicit `protocolVersions` when present, else the
    /// parent's effective scope. `explicit` is the raw JSON value of the property.
    pub fn effective(explicit: Option<&serde_json::Value>, parent: RevisionSet) -> Self {
        match explicit {
            Some(v) => Self::from_json(v),
            None => parent,
        }
    }

    /// Newest member.
    pub fn latest(self) -> Option<ProtocolRevision> {
        self.iter().last()
    }

    /// The revisions importers target when none are asked for: every revision with
    /// complete semantic validation ([`Feature::CompleteSemanticValidation`]), so an
    /// imported description never starts with the legacy incomplete-validation warning.
    pub fn import_default() -> Self {
        RevisionSet::ALL.with(Feature::CompleteSemanticValidation)
    }
}

/// Error for [`RevisionSet::from_str`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseRevisionSetError {
    #[error(transparent)]
    Unknown(#[from] UnknownRevision),
    #[error(
        "no protocol revision given (use `all` or a comma-separated list such as `{}`)",
        ProtocolRevision::LATEST
    )]
    Empty,
}

/// Parses `all` or a comma-separated list of wire strings (`2025-06-18,2026-07-28`);
/// surrounding whitespace and repeats are allowed, order does not matter.
///
/// ```
/// use mcpdesc_core::{ProtocolRevision, RevisionSet};
/// assert_eq!("all".parse::<RevisionSet>(), Ok(RevisionSet::ALL));
/// let s: RevisionSet = "2026-07-28, 2025-06-18".parse().unwrap();
/// assert_eq!(s.to_strings(), ["2025-06-18", "2026-07-28"]);
/// assert!("2025-06-18,1999-01-01".parse::<RevisionSet>().is_err());
/// ```
impl FromStr for RevisionSet {
    type Err = ParseRevisionSetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(RevisionSet::ALL);
        }
        let set = s
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::parse::<ProtocolRevision>)
            .collect::<Result<RevisionSet, _>>()?;
        if set.is_empty() {
            return Err(ParseRevisionSetError::Empty);
        }
        Ok(set)
    }
}

impl FromIterator<ProtocolRevision> for RevisionSet {
    fn from_iter<I: IntoIterator<Item = ProtocolRevision>>(iter: I) -> Self {
        let mut s = RevisionSet::EMPTY;
        for r in iter {
            s.insert(r);
        }
        s
    }
}

impl fmt::Display for RevisionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, r) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(r.as_str())?;
        }
        f.write_str("]")
    }
}

/// A protocol feature whose availability depends on the revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Feature {
    // --- declaration fields (BaseMetadata, Tool, Resource, Prompt) ---
    /// `title` on Tool, Resource, Resource Template, Prompt, Prompt Argument.
    Title,
    /// Tool `outputSchema`.
    OutputSchema,
    /// `outputSchema` with a non-object root (any JSON Schema root).
    OutputSchemaAnyRoot,
    /// Tool `annotations` (Tool Annotations).
    ToolAnnotations,
    /// Tool `execution` (taskSupport).
    ToolExecution,
    /// `icons` on primitives.
    Icons,
    /// `_meta` on Tool/Resource/Resource Template/Prompt declarations and on results/content.
    Meta,
    /// Explicit `$schema` at the root of an embedded tool schema; also: a defined
    /// default dialect (JSON Schema 2020-12) for tool schemas.
    ToolSchemaDialect,
    /// `x-mcp-header` annotations in Tool `inputSchema` properties.
    McpHeader,
    /// Resource Annotations `lastModified`.
    ResourceAnnotationLastModified,

    // --- results and content ---
    /// `structuredContent` in tool results.
    StructuredContent,
    /// `resultType: "complete"` is REQUIRED on completed results (and forbidden before).
    ResultType,
    /// `ttlMs` + `cacheScope` required on completed resource read results (and forbidden before).
    ResourceResultCache,
    /// `resource_link` content blocks.
    ResourceLinkContent,
    /// `audio` content blocks.
    AudioContent,
    /// `io.modelcontextprotocol/serverInfo` in result `_meta`.
    ServerInfoMeta,

    // --- transports ---
    /// `streamable-http` transport.
    StreamableHttp,
    /// `sse` transport is the standard remote transport (later revisions: legacy, warn).
    SseStandard,

    // --- server capabilities ---
    /// `completions` server capability / completion examples.
    Completions,
    /// `context` in completion requests.
    CompletionContext,
    /// Core `tasks` capability and task-augmented requests.
    Tasks,
    /// Formal `extensions` capability negotiation.
    Extensions,
    /// `logging` capability is defined and not deprecated.
    LoggingUndeprecated,

    // --- client capabilities / elicitation ---
    /// Elicitation, form mode.
    ElicitationForm,
    /// Elicitation, URL mode.
    ElicitationUrl,
    /// Elicitation schemas: defaults for every primitive type, titled enums, multi-select.
    ElicitationRichSchemas,
    /// Client `elicitation.form` / `elicitation.url` sub-capabilities.
    ElicitationSubCapabilities,
    /// Client `roots` capability with `listChanged` (2026-07-28: deprecated, must be empty).
    RootsListChanged,
    /// Client `sampling` capability is defined and not deprecated.
    SamplingUndeprecated,
    /// Client `sampling.context` / `sampling.tools`.
    SamplingContextTools,

    // --- lifecycle ---
    /// Stateless lifecycle: `server/discover` plus a per-request `_meta` envelope
    /// (`io.modelcontextprotocol/protocolVersion`, `clientInfo`, `clientCapabilities`)
    /// instead of the `initialize` handshake; `initialize` cannot negotiate it.
    StatelessLifecycle,

    /// The `ping` request (either direction); the stateless revision removed it.
    Ping,
    /// JSON-RPC batches (arrays of requests/notifications) on the wire.
    JsonRpcBatch,
    /// `ttlMs` + `cacheScope` cache hints required on the list results (`tools/list`,
    /// `resources/list`, `resources/templates/list`, `prompts/list`) and on
    /// `server/discover` (and forbidden before).
    ListResultCache,

    // --- Streamable HTTP ---
    /// Clients send `MCP-Protocol-Version` on every HTTP request after initialization;
    /// an invalid or unsupported value is answered `400 Bad Request`.
    ProtocolVersionHeader,
    /// `Mcp-Method` (and, for `tools/call` / `prompts/get` / `resources/read`, `Mcp-Name`)
    /// HTTP headers that must equal the JSON-RPC body; a mismatch is error -32020.
    RoutingHeaders,
    /// Error -32002 "Resource not found" answers `resources/read` of an unknown URI;
    /// MCP 2026-07-28 retired the code (SEP-2164): such a read is -32602 Invalid params.
    ResourceNotFoundCode,

    /// Complete revision-specific semantic validation (`_meta`, elicitation, client
    /// requirements). Before this, validators must warn that validation is incomplete.
    CompleteSemanticValidation,
}

/// Availability of a feature: the first revision that defines it and the last one
/// (inclusive), if it was removed later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Availability {
    pub feature: Feature,
    pub since: ProtocolRevision,
    pub until: Option<ProtocolRevision>,
    /// Where the fact comes from.
    pub source: &'static str,
}

const fn since(feature: Feature, since: ProtocolRevision, source: &'static str) -> Availability {
    Availability {
        feature,
        since,
        until: None,
        source,
    }
}
const fn only(
    feature: Feature,
    since: ProtocolRevision,
    until: ProtocolRevision,
    source: &'static str,
) -> Availability {
    Availability {
        feature,
        since,
        until: Some(until),
        source,
    }
}

/// THE table of revision facts.
pub const AVAILABILITY: &[Availability] = &[
    since(
        Feature::Title,
        V2025_06_18,
        "§9.1, §10.1.1, §10.2.1, §11.1, §11.2",
    ),
    since(Feature::OutputSchema, V2025_06_18, "§9.1"),
    since(Feature::OutputSchemaAnyRoot, V2026_07_28, "§9.2"),
    since(Feature::ToolAnnotations, V2025_03_26, "§9.1"),
    only(Feature::ToolExecution, V2025_11_25, V2025_11_25, "§9.1"),
    since(Feature::Icons, V2025_11_25, "§9.1, §10.1.1, §11.1"),
    since(Feature::Meta, V2025_06_18, "§3.5, §9.1, §10.4.4"),
    since(Feature::ToolSchemaDialect, V2025_11_25, "§9.2"),
    since(Feature::McpHeader, V2026_07_28, "§9.2"),
    since(
        Feature::ResourceAnnotationLastModified,
        V2025_06_18,
        "§10.3",
    ),
    since(
        Feature::StructuredContent,
        V2025_06_18,
        "§9.3; MCP 2025-06-18 CallToolResult",
    ),
    since(Feature::ResultType, V2026_07_28, "§9.3, §10.4.4, §11.3"),
    since(Feature::ResourceResultCache, V2026_07_28, "§10.4.4"),
    since(
        Feature::ResourceLinkContent,
        V2025_06_18,
        "MCP 2025-06-18 ContentBlock",
    ),
    since(
        Feature::AudioContent,
        V2025_03_26,
        "MCP 2025-03-26 AudioContent",
    ),
    since(Feature::ServerInfoMeta, V2026_07_28, "§9.3, §10.4.4"),
    since(Feature::StreamableHttp, V2025_03_26, "§6.2.1"),
    only(Feature::SseStandard, V2024_11_05, V2024_11_05, "§6.2.3"),
    since(Feature::Completions, V2025_03_26, "§8.2"),
    since(Feature::CompletionContext, V2025_06_18, "§11.4"),
    only(Feature::Tasks, V2025_11_25, V2025_11_25, "§8.2, §8.3"),
    since(Feature::Extensions, V2026_07_28, "§8.2, §8.4"),
    only(
        Feature::LoggingUndeprecated,
        V2024_11_05,
        V2025_11_25,
        "§8.4",
    ),
    since(Feature::ElicitationForm, V2025_06_18, "§12.5"),
    since(Feature::ElicitationUrl, V2025_11_25, "§12.5"),
    since(Feature::ElicitationRichSchemas, V2025_11_25, "§12.3"),
    since(Feature::ElicitationSubCapabilities, V2025_11_25, "§8.5"),
    only(Feature::RootsListChanged, V2024_11_05, V2025_11_25, "§8.5"),
    only(
        Feature::SamplingUndeprecated,
        V2024_11_05,
        V2025_11_25,
        "§8.5",
    ),
    since(Feature::SamplingContextTools, V2025_11_25, "§8.5"),
    since(
        Feature::CompleteSemanticValidation,
        V2025_06_18,
        "§3.5, §12.5, §16.2",
    ),
    only(
        Feature::Ping,
        V2024_11_05,
        V2025_11_25,
        "MCP 2024-11-05..2025-11-25 PingRequest; the 2026-07-28 schema has none (mcp_types 2.3.0 CLIENT_REQUESTS)",
    ),
    only(
        Feature::JsonRpcBatch,
        V2025_03_26,
        V2025_03_26,
        "MCP 2025-03-26 JSONRPCBatchRequest; removed in 2025-06-18 (changelog: remove JSON-RPC batching)",
    ),
    since(
        Feature::ListResultCache,
        V2026_07_28,
        "MCP 2026-07-28 CacheableResult (ListToolsResult, ListResourcesResult, ListResourceTemplatesResult, ListPromptsResult, DiscoverResult)",
    ),
    since(
        Feature::ProtocolVersionHeader,
        V2025_06_18,
        "MCP 2025-06-18 transports: MCP-Protocol-Version header",
    ),
    since(
        Feature::RoutingHeaders,
        V2026_07_28,
        "MCP 2026-07-28 Streamable HTTP: Mcp-Method / Mcp-Name headers (error -32020 on mismatch)",
    ),
    only(
        Feature::ResourceNotFoundCode,
        V2024_11_05,
        V2025_11_25,
        "MCP 2024-11-05…2025-11-25 resources (error handling: -32002 Resource not found); retired in 2026-07-28 (SEP-2164: -32602)",
    ),
    since(
        Feature::StatelessLifecycle,
        V2026_07_28,
        "MCP 2026-07-28 lifecycle (server/discover); measured: mcp 2.3.0 answers initialize(2026-07-28) with 2025-11-25",
    ),
];

impl Availability {
    /// Where the feature exists, for messages: "from MCP 2025-11-25 on",
    /// "only in MCP 2025-11-25", "in MCP 2024-11-05 through 2025-11-25". Messages take
    /// their dates from here, never from a literal.
    pub fn phrase(&self) -> String {
        match self.until {
            None => format!("from MCP {} on", self.since),
            Some(u) if u == self.since => format!("only in MCP {u}"),
            Some(u) => format!("in MCP {} through {u}", self.since),
        }
    }
}

impl Feature {
    /// The first revision that defines the feature.
    pub fn since(self) -> ProtocolRevision {
        self.availability().since
    }

    /// Where the feature exists, for messages (see [`Availability::phrase`]).
    pub fn phrase(self) -> String {
        self.availability().phrase()
    }

    /// The table row for this feature.
    pub fn availability(self) -> &'static Availability {
        AVAILABILITY
            .iter()
            .find(|a| a.feature == self)
            .unwrap_or(&AVAILABILITY[0]) // every variant has a row: see `table_is_complete`
    }
    /// Whether the feature is defined in `rev`.
    pub fn available_in(self, rev: ProtocolRevision) -> bool {
        let a = self.availability();
        rev >= a.since && a.until.is_none_or(|u| rev <= u)
    }
    /// All revisions where the feature is defined.
    pub fn revisions(self) -> RevisionSet {
        ProtocolRevision::ALL
            .into_iter()
            .filter(|r| self.available_in(*r))
            .collect()
    }
}

/// The kinds of MCP Description objects whose fields depend on the revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ObjectKind {
    Tool,
    Resource,
    ResourceTemplate,
    Prompt,
    PromptArgument,
}

/// "Field `field` of `object` exists only where `feature` is available."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FieldFact {
    pub object: ObjectKind,
    pub field: &'static str,
    pub feature: Feature,
}

const fn field(object: ObjectKind, field: &'static str, feature: Feature) -> FieldFact {
    FieldFact {
        object,
        field,
        feature,
    }
}

/// Revision-dependent fields of declarations (the same table, by field name).
/// Fields not listed exist in every revision.
pub const FIELD_FACTS: &[FieldFact] = &[
    field(ObjectKind::Tool, "title", Feature::Title),
    field(ObjectKind::Tool, "outputSchema", Feature::OutputSchema),
    field(ObjectKind::Tool, "annotations", Feature::ToolAnnotations),
    field(ObjectKind::Tool, "execution", Feature::ToolExecution),
    field(ObjectKind::Tool, "icons", Feature::Icons),
    field(ObjectKind::Tool, "_meta", Feature::Meta),
    field(ObjectKind::Resource, "title", Feature::Title),
    field(ObjectKind::Resource, "icons", Feature::Icons),
    field(ObjectKind::Resource, "_meta", Feature::Meta),
    field(ObjectKind::ResourceTemplate, "title", Feature::Title),
    field(ObjectKind::ResourceTemplate, "icons", Feature::Icons),
    field(ObjectKind::ResourceTemplate, "_meta", Feature::Meta),
    field(ObjectKind::Prompt, "title", Feature::Title),
    field(ObjectKind::Prompt, "icons", Feature::Icons),
    field(ObjectKind::Prompt, "_meta", Feature::Meta),
    field(ObjectKind::PromptArgument, "title", Feature::Title),
];

/// The feature a declaration field depends on, if any.
pub fn field_feature(object: ObjectKind, field: &str) -> Option<Feature> {
    FIELD_FACTS
        .iter()
        .find(|f| f.object == object && f.field == field)
        .map(|f| f.feature)
}

/// Whether `field` of `object` exists in `rev`.
pub fn field_available(object: ObjectKind, field: &str, rev: ProtocolRevision) -> bool {
    field_feature(object, field).is_none_or(|f| f.available_in(rev))
}

/// JSON Schema dialects accepted in an explicit tool-schema `$schema` (from 2025-11-25 on).
/// Real servers (TypeScript SDK) send draft-07.
pub const SUPPORTED_TOOL_SCHEMA_DIALECTS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
];

/// The default dialect of tool schemas where [`Feature::ToolSchemaDialect`] is available.
pub const DEFAULT_TOOL_SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Content block `type`s defined in a revision.
pub fn content_types(rev: ProtocolRevision) -> &'static [&'static str] {
    if rev.has(Feature::ResourceLinkContent) {
        &["text", "image", "audio", "resource", "resource_link"]
    } else if rev.has(Feature::AudioContent) {
        &["text", "image", "audio", "resource"]
    } else {
        &["text", "image", "resource"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_complete_and_unique() {
        let all = [
            Feature::Title,
            Feature::OutputSchema,
            Feature::OutputSchemaAnyRoot,
            Feature::ToolAnnotations,
            Feature::ToolExecution,
            Feature::Icons,
            Feature::Meta,
            Feature::ToolSchemaDialect,
            Feature::McpHeader,
            Feature::ResourceAnnotationLastModified,
            Feature::StructuredContent,
            Feature::ResultType,
            Feature::ResourceResultCache,
            Feature::ResourceLinkContent,
            Feature::AudioContent,
            Feature::ServerInfoMeta,
            Feature::StreamableHttp,
            Feature::SseStandard,
            Feature::Completions,
            Feature::CompletionContext,
            Feature::Tasks,
            Feature::Extensions,
            Feature::LoggingUndeprecated,
            Feature::ElicitationForm,
            Feature::ElicitationUrl,
            Feature::ElicitationRichSchemas,
            Feature::ElicitationSubCapabilities,
            Feature::RootsListChanged,
            Feature::SamplingUndeprecated,
            Feature::SamplingContextTools,
            Feature::CompleteSemanticValidation,
            Feature::StatelessLifecycle,
            Feature::Ping,
            Feature::JsonRpcBatch,
            Feature::ListResultCache,
            Feature::ProtocolVersionHeader,
            Feature::RoutingHeaders,
            Feature::ResourceNotFoundCode,
        ];
        for f in all {
            assert_eq!(
                AVAILABILITY.iter().filter(|a| a.feature == f).count(),
                1,
                "{f:?}"
            );
        }
        assert_eq!(AVAILABILITY.len(), all.len());
    }

    // Hand-written expectations straight from the spec text, not from the table.
    #[test]
    fn spec_facts() {
        assert!(!V2025_03_26.has(Feature::Title));
        assert!(V2025_06_18.has(Feature::Title));
        assert!(!V2024_11_05.has(Feature::ToolAnnotations));
        assert!(V2025_03_26.has(Feature::ToolAnnotations));
        assert!(V2025_11_25.has(Feature::ToolExecution));
        assert!(!V2026_07_28.has(Feature::ToolExecution));
        assert!(!V2025_06_18.has(Feature::ToolSchemaDialect));
        assert!(!V2025_11_25.has(Feature::OutputSchemaAnyRoot));
        assert!(V2026_07_28.has(Feature::McpHeader));
        assert!(!V2024_11_05.has(Feature::StreamableHttp));
        // Lifecycle and transport facts (MCP schemas/changelogs of each revision).
        assert!(V2025_11_25.has(Feature::Ping) && !V2026_07_28.has(Feature::Ping));
        assert!(V2025_03_26.has(Feature::JsonRpcBatch));
        assert!(!V2024_11_05.has(Feature::JsonRpcBatch) && !V2025_06_18.has(Feature::JsonRpcBatch));
        assert!(
            !V2025_11_25.has(Feature::ListResultCache) && V2026_07_28.has(Feature::ListResultCache)
        );
        assert!(!V2025_03_26.has(Feature::ProtocolVersionHeader));
        assert!(V2025_06_18.has(Feature::ProtocolVersionHeader));
        assert!(
            !V2025_11_25.has(Feature::RoutingHeaders) && V2026_07_28.has(Feature::RoutingHeaders)
        );
        assert!(V2024_11_05.is_legacy() && V2025_03_26.is_legacy() && !V2025_06_18.is_legacy());
        assert!(!field_available(ObjectKind::Tool, "title", V2024_11_05));
        assert!(field_available(
            ObjectKind::Tool,
            "description",
            V2024_11_05
        ));
    }

    #[test]
    fn revision_set_ops() {
        let s: RevisionSet = [V2025_06_18, V2026_07_28].into_iter().collect();
        assert_eq!(s.len(), 2);
        assert_eq!(
            s.with(Feature::OutputSchemaAnyRoot),
            RevisionSet::single(V2026_07_28)
        );
        assert!(s.is_subset(RevisionSet::ALL));
        assert_eq!(s.to_string(), "[2025-06-18, 2026-07-28]");
        assert_eq!("2025-11-25".parse::<ProtocolRevision>(), Ok(V2025_11_25));
        assert!("2027-01-01".parse::<ProtocolRevision>().is_err());
        assert_eq!(
            RevisionSet::import_default().to_strings(),
            ["2025-06-18", "2025-11-25", "2026-07-28"]
        );
        assert_eq!("ALL".parse::<RevisionSet>(), Ok(RevisionSet::ALL));
        assert_eq!(
            " , ".parse::<RevisionSet>(),
            Err(ParseRevisionSetError::Empty)
        );
        assert!(matches!(
            "2025-06-18,2027-01-01".parse::<RevisionSet>(),
            Err(ParseRevisionSetError::Unknown(UnknownRevision(r))) if r == "2027-01-01"
        ));
    }

    #[test]
    fn phrases_for_messages() {
        assert_eq!(
            Feature::ToolSchemaDialect.phrase(),
            "from MCP 2025-11-25 on"
        );
        assert_eq!(Feature::ToolExecution.phrase(), "only in MCP 2025-11-25");
        assert_eq!(
            Feature::LoggingUndeprecated.phrase(),
            "in MCP 2024-11-05 through 2025-11-25"
        );
        assert_eq!(Feature::OutputSchemaAnyRoot.since(), V2026_07_28);
        assert_eq!(
            UnknownRevision("x".into()).to_string(),
            "unknown MCP protocol revision `x` (mcpdesc 0.8.0 knows 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)"
        );
    }
}
