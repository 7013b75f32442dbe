//! The typed MCP Description 0.8.0 document model.
//!
//! Struct fields follow the order of the spec's property tables, which is the order
//! they are emitted in. Conventions, everywhere:
//! - `Option<Vec<_>>` / `Option<IndexMap<_>>` for optional collections: omission and an
//!   explicit empty value stay distinct (§3.3, §15.6). Omitted is never emitted as `[]`.
//! - `security: Option<SecurityRequirements>` keeps omitted vs `[]` vs `[{}]` (§7.4).
//! - `protocol_versions: Option<Vec<String>>` keeps the author's strings verbatim
//!   (unknown revisions are the validator's business, not a decode failure).
//! - Embedded JSON Schemas, `_meta`, example payloads and extension values are
//!   [`serde_json::Value`] with key order preserved.
//! - `extensions` (flattened) holds every other property: `x-*` specification
//!   extensions (§14) and, on invalid documents, unknown properties, which the
//!   validator reports (§3.8). Nothing is silently dropped.

use crate::diagnostic::{Diagnostic, pointer};
use crate::revision::RevisionSet;
use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};
use serde_with::skip_serializing_none;

/// `x-*` extensions (and, on invalid input, unknown properties) of an object.
pub type Extensions = IndexMap<String, Value>;
/// One Security Requirement Object: scheme name → required scopes (§7.3).
pub type SecurityRequirement = IndexMap<String, Vec<String>>;
/// A Security Requirement Array: alternatives (OR) of requirements (AND).
pub type SecurityRequirements = Vec<SecurityRequirement>;
/// A named map (examples, completion examples…).
pub type NamedMap<T> = IndexMap<String, T>;

/// The root MCP Description Object (§3.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    #[serde(rename = "$schema")]
    pub schema: Option<String>,
    pub mcpdesc: String,
    pub info: Info,
    pub protocol_versions: Vec<String>,
    pub instructions: Option<String>,
    pub transports: Option<Vec<Transport>>,
    pub security_schemes: Option<IndexMap<String, SecurityScheme>>,
    pub security: Option<SecurityRequirements>,
    pub components: Option<Components>,
    pub capabilities: Option<Vec<Capabilities>>,
    pub tools: Option<Vec<Tool>>,
    pub resources: Option<Vec<Resource>>,
    pub resource_templates: Option<Vec<ResourceTemplate>>,
    pub prompts: Option<Vec<Prompt>>,
    pub tags: Option<Vec<Tag>>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Info Object (§5).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Info {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub id: Option<String>,
    pub icons: Option<Vec<Icon>>,
    pub website_url: Option<String>,
    pub contact: Option<Contact>,
    pub license: Option<License>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Contact Object (§5.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Contact {
    pub name: Option<String>,
    pub url: Option<String>,
    pub email: Option<String>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// License Object (§5.3).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct License {
    pub name: String,
    pub url: Option<String>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Icon Object (Appendix A).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    pub src: String,
    pub mime_type: Option<String>,
    pub sizes: Option<Vec<String>>,
    pub theme: Option<String>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Transport Object (§6.2), discriminated by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Transport {
    /// `streamable-http` (MCP 2025-03-26 and later).
    #[serde(rename = "streamable-http")]
    StreamableHttp(UrlTransport),
    /// `stdio`.
    #[serde(rename = "stdio")]
    Stdio(StdioTransport),
    /// `sse` (legacy).
    #[serde(rename = "sse")]
    Sse(UrlTransport),
}

impl Transport {
    /// The `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::StreamableHttp(_) => "streamable-http",
            Transport::Stdio(_) => "stdio",
            Transport::Sse(_) => "sse",
        }
    }
    /// Explicit `protocolVersions`.
    pub fn protocol_versions(&self) -> Option<&Vec<String>> {
        match self {
            Transport::StreamableHttp(t) | Transport::Sse(t) => t.protocol_versions.as_ref(),
            Transport::Stdio(t) => t.protocol_versions.as_ref(),
        }
    }
}

/// `streamable-http` and `sse` transports (§6.2.1, §6.2.3).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlTransport {
    pub url: String,
    pub protocol_versions: Option<Vec<String>>,
    pub security: Option<SecurityRequirements>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// `stdio` transport (§6.2.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StdioTransport {
    pub command: String,
    pub args: Option<Vec<String>>,
    pub env: Option<IndexMap<String, String>>,
    pub protocol_versions: Option<Vec<String>>,
    pub security: Option<SecurityRequirements>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Security scheme `type` (§7.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SecuritySchemeType {
    #[serde(rename = "http")]
    Http,
    #[serde(rename = "apiKey")]
    ApiKey,
    #[serde(rename = "oauth2")]
    OAuth2,
    #[serde(rename = "openIdConnect")]
    OpenIdConnect,
}

/// Security Scheme Object (§7.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityScheme {
    #[serde(rename = "type")]
    pub kind: SecuritySchemeType,
    pub scheme: Option<String>,
    pub bearer_format: Option<String>,
    pub name: Option<String>,
    #[serde(rename = "in")]
    pub location: Option<String>,
    pub flows: Option<OAuthFlows>,
    pub open_id_connect_url: Option<String>,
    pub description: Option<String>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// OAuth Flows Object (§7.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlows {
    pub implicit: Option<OAuthFlow>,
    pub password: Option<OAuthFlow>,
    pub client_credentials: Option<OAuthFlow>,
    pub authorization_code: Option<OAuthFlow>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// OAuth Flow Object (§7.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlow {
    pub authorization_url: Option<String>,
    pub token_url: Option<String>,
    pub refresh_url: Option<String>,
    pub scopes: IndexMap<String, String>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Capabilities Object (§8.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub protocol_versions: Option<Vec<String>>,
    pub tools: Option<ListChangedCapability>,
    pub resources: Option<ResourcesCapability>,
    pub prompts: Option<ListChangedCapability>,
    pub completions: Option<Value>,
    pub logging: Option<Value>,
    pub tasks: Option<Value>,
    /// Formal MCP protocol extensions (`capabilities.extensions`), not `x-*`.
    #[serde(rename = "extensions")]
    pub protocol_extensions: Option<IndexMap<String, Value>>,
    pub experimental: Option<Value>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// `tools` / `prompts` capability declaration.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    pub list_changed: Option<bool>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// `resources` capability declaration.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    pub subscribe: Option<bool>,
    pub list_changed: Option<bool>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Client Capability Requirements Object (§8.5). Its shape is revision-specific
/// and partly open, so members are kept as JSON.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientRequirements {
    pub roots: Option<Value>,
    pub sampling: Option<Value>,
    pub elicitation: Option<Value>,
    pub tasks: Option<Value>,
    /// Formal client extension requirements (`clientRequirements.extensions`).
    #[serde(rename = "extensions")]
    pub protocol_extensions: Option<IndexMap<String, Value>>,
    pub experimental: Option<Value>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// A Reference Object (§17.2): `{"$componentRef": "#/components/<ns>/<name>"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    #[serde(rename = "$componentRef")]
    pub component_ref: String,
    /// Sibling properties (invalid, kept for the validator to report).
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// A value that may be a Reference Object (any object with `$componentRef`) or inline.
#[derive(Debug, Clone, PartialEq)]
pub enum MaybeRef<T> {
    Ref(Reference),
    Inline(T),
}

impl<T> MaybeRef<T> {
    /// The inline value, if not a reference.
    pub fn inline(&self) -> Option<&T> {
        match self {
            MaybeRef::Inline(t) => Some(t),
            MaybeRef::Ref(_) => None,
        }
    }
}

impl<T: Serialize> Serialize for MaybeRef<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MaybeRef::Ref(r) => r.serialize(s),
            MaybeRef::Inline(t) => t.serialize(s),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for MaybeRef<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if crate::refs::is_reference(&v) {
            serde_json::from_value(v)
                .map(MaybeRef::Ref)
                .map_err(serde::de::Error::custom)
        } else {
            serde_json::from_value(v)
                .map(MaybeRef::Inline)
                .map_err(serde::de::Error::custom)
        }
    }
}

/// Components Object (§17.1).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Components {
    pub schemas: Option<NamedMap<MaybeRef<Value>>>,
    pub tool_examples: Option<NamedMap<MaybeRef<ToolExample>>>,
    pub resource_examples: Option<NamedMap<MaybeRef<ResourceExample>>>,
    pub resource_template_examples: Option<NamedMap<MaybeRef<ResourceTemplateExample>>>,
    pub prompt_examples: Option<NamedMap<MaybeRef<PromptExample>>>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Tool Object (§9.1).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub protocol_versions: Option<Vec<String>>,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: MaybeRef<Value>,
    pub output_schema: Option<MaybeRef<Value>>,
    pub annotations: Option<ToolAnnotations>,
    pub execution: Option<Execution>,
    pub examples: Option<NamedMap<MaybeRef<ToolExample>>>,
    pub interaction_examples: Option<NamedMap<InteractionExample>>,
    pub icons: Option<Vec<Icon>>,
    pub tags: Option<Vec<String>>,
    pub elicitations: Option<Vec<Elicitation>>,
    pub deprecated: Option<bool>,
    #[serde(rename = "_meta")]
    pub meta: Option<Value>,
    pub security: Option<SecurityRequirements>,
    pub client_requirements: Option<ClientRequirements>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

impl Tool {
    /// A tool with a name and an input schema, everything else omitted.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Tool {
            protocol_versions: None,
            name: name.into(),
            title: None,
            description: None,
            input_schema: MaybeRef::Inline(input_schema),
            output_schema: None,
            annotations: None,
            execution: None,
            examples: None,
            interaction_examples: None,
            icons: None,
            tags: None,
            elicitations: None,
            deprecated: None,
            meta: None,
            security: None,
            client_requirements: None,
            extensions: Extensions::new(),
        }
    }
}

/// Tool Annotations (§9.6). Open object: unknown members are kept in `other`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    pub title: Option<String>,
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
    #[serde(flatten)]
    pub other: IndexMap<String, Value>,
}

/// Execution Object (§9.7).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    pub task_support: Option<String>,
    #[serde(flatten)]
    pub other: IndexMap<String, Value>,
}

/// Tool Example Object (§9.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolExample {
    pub input: Value,
    pub result: Value,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Tool Interaction Example Object (§9.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InteractionExample {
    pub input: Value,
    pub steps: Vec<InteractionStep>,
    pub result: Value,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Tool Interaction Step Object (§9.4).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InteractionStep {
    #[serde(rename = "type")]
    pub kind: String,
    pub declaration: Option<String>,
    pub request: Value,
    pub response: Value,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Elicitation Declaration Object (§12.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Elicitation {
    pub name: String,
    pub mode: String,
    pub message: String,
    pub when: Option<String>,
    pub requested_schema: Option<MaybeRef<Value>>,
    pub url: Option<String>,
    pub on_decline: Option<String>,
    pub on_cancel: Option<String>,
    pub protocol_versions: Option<Vec<String>>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Resource Object (§10.1.1).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    pub protocol_versions: Option<Vec<String>>,
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<Number>,
    /// Resource Annotations (§10.3): open object, kept as JSON.
    pub annotations: Option<Value>,
    pub examples: Option<NamedMap<MaybeRef<ResourceExample>>>,
    pub icons: Option<Vec<Icon>>,
    pub tags: Option<Vec<String>>,
    pub elicitations: Option<Vec<Elicitation>>,
    pub deprecated: Option<bool>,
    #[serde(rename = "_meta")]
    pub meta: Option<Value>,
    pub security: Option<SecurityRequirements>,
    pub client_requirements: Option<ClientRequirements>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Static Resource Example Object (§10.4.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceExample {
    pub result: Value,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Resource Template Object (§10.2.1).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    pub protocol_versions: Option<Vec<String>>,
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub annotations: Option<Value>,
    pub examples: Option<NamedMap<MaybeRef<ResourceTemplateExample>>>,
    pub completion_examples: Option<NamedMap<CompletionExample>>,
    pub icons: Option<Vec<Icon>>,
    pub tags: Option<Vec<String>>,
    pub elicitations: Option<Vec<Elicitation>>,
    pub deprecated: Option<bool>,
    #[serde(rename = "_meta")]
    pub meta: Option<Value>,
    pub security: Option<SecurityRequirements>,
    pub client_requirements: Option<ClientRequirements>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Resource Template Example Object (§10.4.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateExample {
    pub uri: String,
    pub result: Value,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Completion Example Object (§10.4.6, §11.4).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionExample {
    pub argument: Value,
    pub context: Option<Value>,
    pub result: Value,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Prompt Object (§11.1).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    pub protocol_versions: Option<Vec<String>>,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Option<Vec<PromptArgument>>,
    pub examples: Option<NamedMap<MaybeRef<PromptExample>>>,
    pub completion_examples: Option<NamedMap<CompletionExample>>,
    pub icons: Option<Vec<Icon>>,
    pub tags: Option<Vec<String>>,
    pub elicitations: Option<Vec<Elicitation>>,
    pub deprecated: Option<bool>,
    #[serde(rename = "_meta")]
    pub meta: Option<Value>,
    pub security: Option<SecurityRequirements>,
    pub client_requirements: Option<ClientRequirements>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Prompt Argument Object (§11.2).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: Option<bool>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Prompt Example Object (§11.3).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptExample {
    pub arguments: Option<IndexMap<String, Value>>,
    pub result: Value,
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Tag Object (§13.1).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Tag {
    pub name: String,
    pub description: Option<String>,
    #[serde(flatten)]
    pub extensions: Extensions,
}

impl Document {
    /// A minimal document: `mcpdesc: 0.8.0`, info, root protocol revisions.
    pub fn new(info: Info, protocol_versions: RevisionSet) -> Self {
        Document {
            schema: Some(SCHEMA_URI.to_string()),
            mcpdesc: MCPDESC_VERSION.to_string(),
            info,
            protocol_versions: protocol_versions.to_strings(),
            instructions: None,
            transports: None,
            security_schemes: None,
            security: None,
            components: None,
            capabilities: None,
            tools: None,
            resources: None,
            resource_templates: None,
            prompts: None,
            tags: None,
            extensions: Extensions::new(),
        }
    }

    /// Converts the decoded data model into the typed model.
    ///
    /// Fails with one `model-shape` diagnostic (pointer to the offending value) when a
    /// value has the wrong JSON type for its property. Unknown properties do not fail:
    /// they are kept in `extensions` for the validator to report.
    pub fn from_value(value: Value) -> Result<Document, Vec<Diagnostic>> {
        serde_path_to_error::deserialize::<_, Document>(value).map_err(|e| {
            let ptr = path_to_pointer(e.path());
            vec![Diagnostic::error("model-shape", e.inner().to_string()).at(ptr)]
        })
    }

    /// [`Document::from_value`] from a borrowed value: same result, without first
    /// copying the whole data model (24 MB of schemas for the GitHub description).
    pub fn from_value_ref(value: &Value) -> Result<Document, Vec<Diagnostic>> {
        serde_path_to_error::deserialize::<_, Document>(value).map_err(|e| {
            let ptr = path_to_pointer(e.path());
            vec![Diagnostic::error("model-shape", e.inner().to_string()).at(ptr)]
        })
    }

    /// Converts back into the data model (fields in spec-table order).
    pub fn to_value(&self) -> Value {
        // Serialization of these types into a Value cannot fail: all keys are strings
        // and all numbers are finite.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Root revisions as a set (unknown strings ignored).
    pub fn root_scope(&self) -> RevisionSet {
        self.protocol_versions
            .iter()
            .filter_map(|s| crate::ProtocolRevision::parse(s))
            .collect()
    }

    /// Pretty JSON (2 spaces, trailing newline).
    pub fn to_json_string(&self) -> String {
        crate::emit::to_json(&self.to_value())
    }

    /// Block-style YAML in the restricted profile.
    pub fn to_yaml_string(&self) -> String {
        crate::emit::to_yaml(&self.to_value())
    }
}

/// The `mcpdesc` version this model implements.
pub const MCPDESC_VERSION: &str = "0.8.0";
/// The canonical schema URI of mcpdesc 0.8.0 (§15.7).
pub const SCHEMA_URI: &str = "https://mcpdesc.org/schema/mcp-description/0.8.0.json";

/// Effective scope of a declaration's `protocolVersions` (§4.10).
pub fn effective_scope(explicit: Option<&Vec<String>>, parent: RevisionSet) -> RevisionSet {
    match explicit {
        Some(v) => v
            .iter()
            .filter_map(|s| crate::ProtocolRevision::parse(s))
            .collect(),
        None => parent,
    }
}

fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    let mut p = String::new();
    for seg in path.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => p = pointer::push(&p, index.to_string()),
            serde_path_to_error::Segment::Map { key } => p = pointer::push(&p, key),
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
        }
    }
    p
}
