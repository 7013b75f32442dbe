//! The rule table: every rule id, its default level and what it means. The README's
//! rule table is this table.

use mcpdesc_core::Severity;

/// Default level of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Info,
}

impl Level {
    pub fn severity(self) -> Severity {
        match self {
            Level::Error => Severity::Error,
            Level::Warning => Severity::Warning,
            Level::Info => Severity::Info,
        }
    }
}

/// One lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case id (the diagnostic code).
    pub id: &'static str,
    pub level: Level,
    /// `true`: checked for a `--host` whose table entry has the fact; `false`: for every host.
    pub host_rule: bool,
    pub meaning: &'static str,
}

const fn rule(id: &'static str, level: Level, host_rule: bool, meaning: &'static str) -> Rule {
    Rule {
        id,
        level,
        host_rule,
        meaning,
    }
}

pub const HOST_NAME_TOO_LONG: &str = "host-name-too-long";
pub const HOST_NAME_CHARS: &str = "host-name-chars";
pub const HOST_NAME_TRUNCATED: &str = "host-name-truncated";
pub const HOST_NAME_REWRITTEN: &str = "host-name-rewritten";
pub const HOST_NAME_COLLISION: &str = "host-name-collision";
pub const HOST_TITLE_MISSING: &str = "host-title-missing";
pub const HOST_ANNOTATIONS_MISSING: &str = "host-annotations-missing";
pub const HOST_TOP_LEVEL_UNION: &str = "host-top-level-union";
pub const HOST_SCHEMA_REF: &str = "host-schema-ref";
pub const HOST_STRICT_OBJECT: &str = "host-strict-object";
pub const HOST_STRICT_LIMIT: &str = "host-strict-limit";
pub const HOST_TOO_MANY_TOOLS: &str = "host-too-many-tools";
pub const TOOL_OVER_BUDGET: &str = "tool-over-budget";
pub const LIST_OVER_BUDGET: &str = "tools-list-over-budget";
pub const LIST_SIZE: &str = "tools-list-size";
pub const FACADE_CONTEXT: &str = "facade-context";
pub const TOO_MANY_TOOLS: &str = "too-many-tools";
pub const DESCRIPTION_MISSING: &str = "tool-description-missing";
pub const DESCRIPTION_SHORT: &str = "tool-description-short";
pub const PARAM_DESCRIPTION_MISSING: &str = "param-description-missing";
pub const DESCRIPTION_DUPLICATE: &str = "tool-description-duplicate";
pub const WRITE_ANNOTATIONS_MISSING: &str = "write-annotations-missing";
pub const ANNOTATIONS_CONTRADICT: &str = "annotations-contradictory";
pub const ENUM_LIKE_STRING: &str = "enum-like-string";
pub const HTML_IN_DESCRIPTION: &str = "html-in-description";

/// Every rule, in README order.
pub const RULES: &[Rule] = &[
    rule(
        HOST_NAME_TOO_LONG,
        Level::Error,
        true,
        "the tool name (with the host's server prefix where it counts) exceeds the host's length limit",
    ),
    rule(
        HOST_NAME_CHARS,
        Level::Error,
        true,
        "the tool name uses characters the host rejects",
    ),
    rule(
        HOST_NAME_TRUNCATED,
        Level::Warning,
        true,
        "the host truncates the name, so the model sees another name",
    ),
    rule(
        HOST_NAME_REWRITTEN,
        Level::Warning,
        true,
        "the host replaces characters of the name, so the model sees another name",
    ),
    rule(
        HOST_NAME_COLLISION,
        Level::Error,
        true,
        "two tools end up under one name once the host has rewritten them; the model reaches one",
    ),
    rule(
        HOST_TITLE_MISSING,
        Level::Error,
        true,
        "the host requires a `title` on every tool",
    ),
    rule(
        HOST_ANNOTATIONS_MISSING,
        Level::Error,
        true,
        "the host requires annotations (hints) the tool lacks",
    ),
    rule(
        HOST_TOP_LEVEL_UNION,
        Level::Error,
        true,
        "`anyOf`/`oneOf`/`allOf` at the top level of `inputSchema`",
    ),
    rule(
        HOST_SCHEMA_REF,
        Level::Error,
        true,
        "`$ref` in a tool schema, which the host does not resolve",
    ),
    rule(
        HOST_STRICT_OBJECT,
        Level::Error,
        true,
        "strict mode: an object without `additionalProperties: false` or with optional properties, a `oneOf`, or a `$ref` with sibling keywords",
    ),
    rule(
        HOST_STRICT_LIMIT,
        Level::Error,
        true,
        "strict mode: nesting depth, property count or enum size over the limit",
    ),
    rule(
        HOST_TOO_MANY_TOOLS,
        Level::Warning,
        true,
        "more tools than the host sends to the model",
    ),
    rule(
        TOOL_OVER_BUDGET,
        Level::Warning,
        false,
        "a tool as the host receives it is larger than the budget (default 32768 bytes)",
    ),
    rule(
        LIST_OVER_BUDGET,
        Level::Warning,
        false,
        "the whole tools/list exceeds the host's token budget",
    ),
    rule(
        LIST_SIZE,
        Level::Info,
        false,
        "size of the tools/list per revision, bytes and estimated tokens",
    ),
    rule(
        FACADE_CONTEXT,
        Level::Info,
        false,
        "with search discovery: the start-up context the search facade gives per revision, against the direct tools/list",
    ),
    rule(
        TOO_MANY_TOOLS,
        Level::Warning,
        false,
        "more tools than the configured maximum",
    ),
    rule(
        DESCRIPTION_MISSING,
        Level::Warning,
        false,
        "a tool without description",
    ),
    rule(
        DESCRIPTION_SHORT,
        Level::Warning,
        false,
        "a tool description of fewer than 3 words",
    ),
    rule(
        PARAM_DESCRIPTION_MISSING,
        Level::Info,
        false,
        "an `inputSchema` property without description",
    ),
    rule(
        DESCRIPTION_DUPLICATE,
        Level::Warning,
        false,
        "the description equals another tool's (the model cannot tell them apart)",
    ),
    rule(
        WRITE_ANNOTATIONS_MISSING,
        Level::Warning,
        false,
        "provenance shows an HTTP method that writes (POST, PUT, PATCH, DELETE) but `readOnlyHint`/`destructiveHint` are not declared",
    ),
    rule(
        ANNOTATIONS_CONTRADICT,
        Level::Error,
        false,
        "`readOnlyHint: true` together with `destructiveHint: true`",
    ),
    rule(
        ENUM_LIKE_STRING,
        Level::Info,
        false,
        "a free string whose description lists its allowed values (`one of`, `possible values`…) but no `enum`",
    ),
    rule(
        HTML_IN_DESCRIPTION,
        Level::Warning,
        false,
        "HTML markup in a description (fitting the list to a host renders it to plain text)",
    ),
];

pub fn rule_of(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}
