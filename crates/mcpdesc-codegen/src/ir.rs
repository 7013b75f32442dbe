//! The intermediate representation both target languages render.
//!
//! Plain data, `Serialize` so tests can snapshot it. Every string that came from the
//! description (wire names, docs, enum values, defaults) is kept raw here; escaping
//! happens once, in [`crate::escape`], when a renderer turns the IR into code.

use mcpdesc_core::ProtocolRevision;
use serde::Serialize;
use serde_json::Value;

/// Index into [`Ir::types`].
pub type TypeId = usize;

/// A typed view of one protocol revision of a description: its tools and every named
/// type their schemas need.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ir {
    /// The revision the description was projected to: the types are its view's.
    pub protocol_version: ProtocolRevision,
    /// Every revision the description declares, oldest first: the revisions a generated
    /// client accepts when it connects (each tool says how it decodes results there).
    pub protocol_versions: Vec<ProtocolRevision>,
    /// One line saying what the generated client is (package descriptions).
    pub summary: String,
    /// The generated client's header documentation.
    pub doc: String,
    /// Server identity from the Info Object.
    pub server: Server,
    /// Tools in declaration order.
    pub tools: Vec<Tool>,
    /// Named types, in allocation order (tool inputs/outputs first).
    pub types: Vec<NamedType>,
}

/// Server identity (Info Object).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Server {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub description: Option<String>,
}

impl Server {
    /// How documentation names the server: its title, else its name.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

/// A name per target language. Identifiers are already sanitized and unique in their
/// namespace; for object fields the TypeScript name is the wire name (quoted on output
/// when it is not an identifier), because TS objects travel to the server as they are.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Names {
    pub rust: String,
    pub ts: String,
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    /// The server's tool name, sent on the wire unchanged.
    pub wire_name: String,
    /// Method names: Rust `snake_case`, TS `camelCase`.
    pub names: Names,
    /// `title`, where the revision defines it.
    pub title: Option<String>,
    pub description: Option<String>,
    /// The method's documentation: title, description and wire name.
    pub doc: String,
    pub deprecated: bool,
    /// JSON pointer of the Tool Object.
    pub origin: String,
    /// The `<Tool>Input` type.
    pub input: TypeId,
    /// The `<Tool>Output` type: typed structuredContent when the tool has an
    /// outputSchema, otherwise [`Kind::ContentBlocks`].
    pub output: TypeId,
    /// Whether the output is typed structured content.
    pub structured_output: bool,
    /// How a result at each revision of [`Ir::protocol_versions`] becomes the output
    /// type (the same order).
    pub results: Vec<RevisionResult>,
    /// Where the resolved inputSchema is (for round-trip checks; not part of
    /// snapshots). A pointer, not a copy: the GitHub description's schemas are 24 MB.
    #[serde(skip)]
    pub input_schema: SchemaAt,
    /// Where the resolved outputSchema is, if the tool has one in this revision.
    #[serde(skip)]
    pub output_schema: Option<SchemaAt>,
}

/// How a tool's result at one revision becomes its output type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RevisionResult {
    pub revision: ProtocolRevision,
    #[serde(flatten)]
    pub decode: Decode,
}

/// How a result at a revision becomes the output type generated for the target one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decode", rename_all = "snake_case")]
pub enum Decode {
    /// As it is: the same output schema (and every result of a tool without one).
    Same,
    /// That revision wraps the output type in an object: the output is its `property`.
    Unwrap { property: String },
    /// That revision sends the value the output type wraps: the output is
    /// `{property: value}`.
    Wrap { property: String },
    /// That revision declares no output schema; decoded as it is (or from the JSON text
    /// content), as from a server that predates structured content.
    Unstructured,
    /// That revision declares another output schema; decoded as it is, with a warning
    /// at generation.
    Differs,
    /// The tool is not in that revision's view: calls fail without reaching the server.
    Absent,
}

impl Decode {
    /// What a generated client does at runtime: take the result as it is (`None`), or
    /// one of [`Decode::Unwrap`], [`Decode::Wrap`], [`Decode::Absent`].
    pub fn runtime(&self) -> Option<&Decode> {
        match self {
            Decode::Same | Decode::Unstructured | Decode::Differs => None,
            d => Some(d),
        }
    }
}

/// Where a tool's resolved schema is in the description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaAt {
    /// At this JSON pointer (the tool's own schema, or the component it references).
    Pointer(String),
    /// Missing or unresolvable: any JSON value (`true`).
    Any,
}

impl SchemaAt {
    /// The schema in `doc` (the description the IR was lowered from).
    pub fn resolve(&self, doc: &Value) -> Value {
        match self {
            SchemaAt::Pointer(p) => doc.pointer(p).cloned().unwrap_or(Value::Bool(true)),
            SchemaAt::Any => Value::Bool(true),
        }
    }
}

/// A named type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedType {
    pub names: Names,
    pub doc: Option<String>,
    /// JSON pointer of the schema in the description it was lowered from.
    pub origin: String,
    pub kind: Kind,
}

/// What a named type is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// An object with declared properties.
    Object(Object),
    /// A closed set of strings (`enum` of strings, or a string `const`).
    StrEnum { variants: Vec<EnumVariant> },
    /// `oneOf`/`anyOf`/multi-`type`.
    Union(Union),
    /// Another name for a type expression.
    Alias { ty: Ty },
    /// The tool's unstructured content blocks (tools without an outputSchema).
    ContentBlocks,
}

/// An object type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Object {
    pub fields: Vec<Field>,
    pub extra: Extra,
}

/// What happens to properties that are not declared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "extra", content = "ty", rename_all = "snake_case")]
pub enum Extra {
    /// `additionalProperties: false`: none allowed.
    Closed,
    /// Allowed, any value, not kept in a typed field.
    Open,
    /// Allowed, values of this type (`additionalProperties`/`patternProperties` schemas);
    /// kept in a map beside the declared fields.
    Typed(Ty),
}

/// A declared object property.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// Property name on the wire.
    pub wire: String,
    /// Rust field name; TS property name (= wire name).
    pub names: Names,
    pub ty: Ty,
    pub required: bool,
    pub doc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
}

/// A member of a string enum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnumVariant {
    pub wire: String,
    /// Rust variant name (TS uses the string literal).
    pub names: Names,
}

/// A union of alternatives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Union {
    /// The discriminating property when every alternative is an object with the same
    /// required `const` string property; `None` for untagged unions.
    pub tag: Option<String>,
    pub variants: Vec<Variant>,
}

/// One alternative of a union.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// Rust variant name (TS renders structurally).
    pub names: Names,
    pub doc: Option<String>,
    /// Tag value (tagged unions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag_value: Option<String>,
    pub payload: Payload,
}

/// What a union alternative carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Payload {
    /// Tagged unions: the alternative's fields without the tag property.
    Fields(Object),
    /// Untagged unions: any type.
    Type(Ty),
}

/// Integer representations, chosen conservatively from `format`/`minimum`/`maximum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IntKind {
    I32,
    U32,
    I64,
    U64,
}

/// A type expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "ty", rename_all = "snake_case")]
pub enum Ty {
    /// Any JSON value.
    Any,
    /// Only `null`.
    Null,
    Bool,
    Int {
        int: IntKind,
    },
    Number,
    String,
    /// A single non-string constant (string constants become one-member [`Kind::StrEnum`]s).
    Literal {
        value: Value,
    },
    /// A closed set of non-string constants.
    Enum {
        values: Vec<Value>,
    },
    Array {
        items: Box<Ty>,
    },
    /// `prefixItems` (or draft-07 array-form `items`): positional types, at least
    /// `min` present, then `rest` items (`None`: no more items allowed).
    Tuple {
        items: Vec<Ty>,
        min: usize,
        rest: Option<Box<Ty>>,
    },
    /// An object used as a dictionary.
    Map {
        values: Box<Ty>,
    },
    /// `T` or `null`.
    Nullable {
        inner: Box<Ty>,
    },
    /// A reference to a named type.
    Named {
        id: TypeId,
    },
}

impl Ty {
    /// `Nullable(self)`, without nesting nullables.
    pub fn nullable(self) -> Ty {
        match self {
            t @ (Ty::Nullable { .. } | Ty::Any | Ty::Null) => t,
            t => Ty::Nullable { inner: Box::new(t) },
        }
    }
}
