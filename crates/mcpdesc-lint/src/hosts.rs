//! **The host table**: every fact mcpdesc knows about what an MCP host rejects, mangles
//! or truncates, as data. Each fact carries the URL it was read from, the date it was
//! read and whether the source confirmed it; nothing else in the workspace states a
//! host limit (`mcpdesc-names` takes its length limit as a parameter).
//!
//! Keep it current by re-reading the sources: a fact whose status is
//! [`Status::Unconfirmed`] was not (yet) read in the host's own documentation or
//! code. Confirmed so far: Gemini CLI's `mcp_{server}_` prefix, name characters and
//! 63-character truncation (its own `generateValidName`, run by tests/lint_oracles.rs
//! against lint and export). Every other fact is unconfirmed: the
//! sources name where each is documented or reported (third-party reports seen on
//! 2026-12-01: Kiro's 64 with prefix in kiro-gateway#104, Claude Code's `mcp__`
//! prefix counting against 64 in awslabs/agent-plugins#131, Gemini CLI's 63-character
//! truncation and Gemini's name characters in notes and code quoting gemini-cli);
//! promote a fact to [`Status::Confirmed`] when its host's own source is read.

/// Whether a fact was confirmed by the host's own documentation or code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Read in the host's documentation or source code.
    Confirmed,
    /// Reported by users, peers or a third party; not confirmed by the host.
    Unconfirmed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Confirmed => "confirmed",
            Status::Unconfirmed => "unconfirmed",
        }
    }
}

/// Characters a host accepts in a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameChars {
    /// `^[a-zA-Z0-9_-]+$` (Anthropic Messages API and OpenAI function names).
    AlnumUnderscoreHyphen,
    /// `^[a-zA-Z0-9_]+$`: no hyphens, no dots (Kiro).
    AlnumUnderscore,
    /// `^[a-zA-Z_][a-zA-Z0-9_.:-]*$` (Gemini function declarations).
    Gemini,
    /// `^[a-zA-Z0-9_.:-]+$`: Gemini's characters without its first-character rule,
    /// which the `mcp_` Gemini CLI puts in front already meets.
    GeminiCliTool,
}

impl NameChars {
    /// Whether `name` uses only these characters.
    pub fn accepts(self, name: &str) -> bool {
        let ok = |c: char| c.is_ascii_alphanumeric() || c == '_';
        match self {
            NameChars::AlnumUnderscoreHyphen => {
                !name.is_empty() && name.chars().all(|c| ok(c) || c == '-')
            }
            NameChars::AlnumUnderscore => !name.is_empty() && name.chars().all(ok),
            NameChars::Gemini => {
                name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| ok(c) || matches!(c, '.' | ':' | '-'))
            }
            NameChars::GeminiCliTool => {
                !name.is_empty() && name.chars().all(|c| ok(c) || matches!(c, '.' | ':' | '-'))
            }
        }
    }

    /// The rule as a regular expression, for messages.
    pub fn pattern(self) -> &'static str {
        match self {
            NameChars::AlnumUnderscoreHyphen => "^[a-zA-Z0-9_-]+$",
            NameChars::AlnumUnderscore => "^[a-zA-Z0-9_]+$",
            NameChars::Gemini => "^[a-zA-Z_][a-zA-Z0-9_.:-]*$",
            NameChars::GeminiCliTool => "^[a-zA-Z0-9_.:-]+$",
        }
    }
}

/// Which annotations a host requires on every tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotationRequirement {
    /// Every one of these hints.
    All(&'static [&'static str]),
    /// At least one of these hints.
    AnyOf(&'static [&'static str]),
}

/// Limits of OpenAI structured-outputs strict mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrictLimits {
    /// Maximum object nesting depth.
    pub max_depth: usize,
    /// Maximum number of object properties in the whole schema.
    pub max_properties: usize,
    /// Maximum number of enum values in the whole schema.
    pub max_enum_values: usize,
}

/// One thing a host does to, or demands of, the tools it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostRule {
    /// Tool names longer than `max` characters are rejected; when `counts_prefix`, the
    /// host's server prefix ([`HostRule::ServerPrefix`]) counts against `max`.
    NameMaxLen { max: usize, counts_prefix: bool },
    /// Tool names may use only these characters.
    NameChars(NameChars),
    /// Names longer than this are truncated (not rejected) by the host.
    NameTruncatedOver(usize),
    /// The host shows the tool as `format` with `{server}` and `{tool}` replaced.
    ServerPrefix(&'static str),
    /// Every tool needs a `title`.
    RequiresTitle,
    /// Every tool needs these annotations.
    RequiresAnnotations(AnnotationRequirement),
    /// `anyOf`/`oneOf`/`allOf` at the top level of `inputSchema` is rejected.
    NoTopLevelUnion,
    /// `$ref` in a tool schema is rejected or not resolved.
    NoRef,
    /// Structured-outputs strict mode: every object `additionalProperties: false`,
    /// every property required, and these limits.
    Strict(StrictLimits),
    /// At most this many tools are sent to the model.
    MaxTools(usize),
    /// The host warns when the tool definitions exceed this many tokens.
    ListTokenBudget(usize),
}

/// One fact with its provenance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fact {
    pub rule: HostRule,
    /// Where it was read.
    pub source: &'static str,
    /// When it was read (UTC date).
    pub read: &'static str,
    pub status: Status,
}

/// One host profile: an id (the `--host` value) and its facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostProfile {
    pub id: &'static str,
    pub name: &'static str,
    pub facts: &'static [Fact],
}

const READ: &str = "2026-12-01";

const fn fact(rule: HostRule, source: &'static str, status: Status) -> Fact {
    Fact {
        rule,
        source,
        read: READ,
        status,
    }
}

use HostRule::*;
use Status::*;

const ANTHROPIC_TOOL_NAME: &str = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#specifying-client-tools";
const ANTHROPIC_TOP_LEVEL_UNION: &str = "https://github.com/anthropics/claude-code/issues (API error: input_schema does not support oneOf, allOf, or anyOf at the top level)";
const CLAUDE_DIRECTORY: &str =
    "https://support.claude.com/en/articles/12922832-anthropic-mcp-directory-policy";
const OPENAI_FUNCTION_NAME: &str =
    "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools";
const OPENAI_STRICT: &str =
    "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas";
const CHATGPT_APPS: &str = "https://developers.openai.com/apps-sdk/app-submission-guidelines";
const GEMINI_FUNCTION_NAME: &str = "https://ai.google.dev/api/caching#FunctionDeclaration (name: must start with a letter or an underscore; a-z, A-Z, 0-9, underscores, dots, colons, dashes; max 64)";
const GEMINI_CLI_MCP: &str = "@google/gemini-cli-core 0.61.0 (npm), dist/src/tools/mcp-tool.js (generateValidName(`${server}_${tool}`): `mcp_` put in front, characters outside a-zA-Z0-9_.:- become _, a name over 63 characters becomes its first 30 + ... + its last 30; checked by tests/lint_oracles.rs)";
const GEMINI_CLI_REF: &str = "https://github.com/google-gemini/gemini-cli/issues/13326";
const CURSOR_MCP: &str = "https://docs.cursor.com/context/model-context-protocol";
const KIRO_LIMIT: &str = "https://github.com/jwadow/kiro-gateway/pull/104 (Kiro API limit of 64 characters, server prefix included); https://kiro.dev/docs/mcp/usage";
const VSCODE_MCP: &str = "https://code.visualstudio.com/docs/copilot/chat/mcp-servers";

/// The host table. Order = `--host` listing order.
pub const HOSTS: &[HostProfile] = &[
    HostProfile {
        id: "claude-directory",
        name: "Anthropic MCP directory (Claude.ai connectors)",
        facts: &[
            fact(
                NameMaxLen {
                    max: 64,
                    counts_prefix: false,
                },
                CLAUDE_DIRECTORY,
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                ANTHROPIC_TOOL_NAME,
                Unconfirmed,
            ),
            fact(RequiresTitle, CLAUDE_DIRECTORY, Unconfirmed),
            fact(
                RequiresAnnotations(AnnotationRequirement::AnyOf(&[
                    "readOnlyHint",
                    "destructiveHint",
                ])),
                CLAUDE_DIRECTORY,
                Unconfirmed,
            ),
            fact(NoTopLevelUnion, ANTHROPIC_TOP_LEVEL_UNION, Unconfirmed),
        ],
    },
    HostProfile {
        id: "claude-code",
        name: "Claude Code",
        facts: &[
            fact(
                NameMaxLen {
                    max: 64,
                    counts_prefix: true,
                },
                ANTHROPIC_TOOL_NAME,
                Unconfirmed,
            ),
            fact(
                ServerPrefix("mcp__{server}__{tool}"),
                "https://docs.anthropic.com/en/docs/claude-code/mcp",
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                ANTHROPIC_TOOL_NAME,
                Unconfirmed,
            ),
            fact(NoTopLevelUnion, ANTHROPIC_TOP_LEVEL_UNION, Unconfirmed),
            fact(
                ListTokenBudget(25_000),
                "https://docs.anthropic.com/en/docs/claude-code/mcp (large MCP tool context warning)",
                Unconfirmed,
            ),
        ],
    },
    HostProfile {
        id: "chatgpt",
        name: "ChatGPT apps and connectors",
        facts: &[
            fact(
                NameMaxLen {
                    max: 64,
                    counts_prefix: false,
                },
                OPENAI_FUNCTION_NAME,
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                OPENAI_FUNCTION_NAME,
                Unconfirmed,
            ),
            fact(
                RequiresAnnotations(AnnotationRequirement::All(&[
                    "readOnlyHint",
                    "destructiveHint",
                    "openWorldHint",
                ])),
                CHATGPT_APPS,
                Unconfirmed,
            ),
        ],
    },
    HostProfile {
        id: "openai-strict",
        name: "OpenAI function calling, structured outputs strict mode",
        facts: &[
            fact(
                NameMaxLen {
                    max: 64,
                    counts_prefix: false,
                },
                OPENAI_FUNCTION_NAME,
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                OPENAI_FUNCTION_NAME,
                Unconfirmed,
            ),
            fact(NoTopLevelUnion, OPENAI_STRICT, Unconfirmed),
            fact(
                Strict(StrictLimits {
                    max_depth: 10,
                    max_properties: 5000,
                    max_enum_values: 1000,
                }),
                OPENAI_STRICT,
                Unconfirmed,
            ),
            fact(MaxTools(128), OPENAI_FUNCTION_NAME, Unconfirmed),
        ],
    },
    HostProfile {
        id: "gemini-cli",
        name: "Gemini CLI",
        facts: &[
            fact(
                NameMaxLen {
                    max: 64,
                    counts_prefix: false,
                },
                GEMINI_FUNCTION_NAME,
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::GeminiCliTool),
                GEMINI_CLI_MCP,
                Confirmed,
            ),
            fact(NameTruncatedOver(63), GEMINI_CLI_MCP, Confirmed),
            fact(
                ServerPrefix("mcp_{server}_{tool}"),
                GEMINI_CLI_MCP,
                Confirmed,
            ),
            fact(NoRef, GEMINI_CLI_REF, Unconfirmed),
        ],
    },
    HostProfile {
        id: "cursor",
        name: "Cursor",
        facts: &[
            fact(
                NameMaxLen {
                    max: 60,
                    counts_prefix: true,
                },
                CURSOR_MCP,
                Unconfirmed,
            ),
            fact(ServerPrefix("{server}_{tool}"), CURSOR_MCP, Unconfirmed),
            fact(MaxTools(40), CURSOR_MCP, Unconfirmed),
        ],
    },
    HostProfile {
        id: "kiro",
        name: "Kiro",
        facts: &[
            fact(
                NameMaxLen {
                    max: 64,
                    counts_prefix: true,
                },
                KIRO_LIMIT,
                Unconfirmed,
            ),
            fact(
                ServerPrefix("mcp_{server}_{tool}"),
                "https://kiro.dev/docs/mcp/usage (autoApprove example mcp_aws_docs_search_documentation)",
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscore),
                KIRO_LIMIT,
                Unconfirmed,
            ),
        ],
    },
    HostProfile {
        id: "vscode",
        name: "VS Code (GitHub Copilot chat)",
        facts: &[
            fact(
                NameMaxLen {
                    max: 64,
                    counts_prefix: false,
                },
                VSCODE_MCP,
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                VSCODE_MCP,
                Unconfirmed,
            ),
            fact(MaxTools(128), VSCODE_MCP, Unconfirmed),
        ],
    },
];

/// The profile with this id.
pub fn host(id: &str) -> Option<&'static HostProfile> {
    HOSTS.iter().find(|h| h.id == id)
}

/// Every `--host` value, for messages.
pub fn host_ids() -> Vec<&'static str> {
    HOSTS.iter().map(|h| h.id).collect()
}

impl HostProfile {
    /// The first fact matching `f`.
    pub fn find<T>(&self, f: impl Fn(&HostRule) -> Option<T>) -> Option<T> {
        self.facts.iter().find_map(|x| f(&x.rule))
    }

    /// The name the host shows for `tool` under `server` (the tool name itself when
    /// the host adds no prefix or no server name is given).
    pub fn shown_name(&self, server: Option<&str>, tool: &str) -> String {
        match (
            server,
            self.find(|r| match r {
                ServerPrefix(f) => Some(*f),
                _ => None,
            }),
        ) {
            (Some(s), Some(f)) => f.replace("{server}", s).replace("{tool}", tool),
            _ => tool.to_string(),
        }
    }

    /// The room the host leaves for the tool name itself: its length limit minus the
    /// prefix it adds around the name when that prefix counts.
    pub fn name_budget(&self, server: Option<&str>) -> Option<usize> {
        let (max, counts) = self.find(|r| match r {
            NameMaxLen { max, counts_prefix } => Some((*max, *counts_prefix)),
            _ => None,
        })?;
        if !counts {
            return Some(max);
        }
        let overhead = self.shown_name(server, "").chars().count();
        Some(max.saturating_sub(overhead))
    }

    pub fn name_chars(&self) -> Option<NameChars> {
        self.find(|r| match r {
            NameChars(c) => Some(*c),
            _ => None,
        })
    }

    pub fn has(&self, rule: HostRule) -> bool {
        self.facts.iter().any(|f| f.rule == rule)
    }

    pub fn strict(&self) -> Option<StrictLimits> {
        self.find(|r| match r {
            Strict(l) => Some(*l),
            _ => None,
        })
    }

    pub fn max_tools(&self) -> Option<usize> {
        self.find(|r| match r {
            MaxTools(n) => Some(*n),
            _ => None,
        })
    }

    pub fn list_token_budget(&self) -> Option<usize> {
        self.find(|r| match r {
            ListTokenBudget(n) => Some(*n),
            _ => None,
        })
    }

    /// The source of the first fact matching `f`, for messages.
    pub fn source_of(&self, f: impl Fn(&HostRule) -> bool) -> String {
        self.facts
            .iter()
            .find(|x| f(&x.rule))
            .map(|x| format!("{}, read {}, {}", x.source, x.read, x.status.as_str()))
            .unwrap_or_default()
    }
}
