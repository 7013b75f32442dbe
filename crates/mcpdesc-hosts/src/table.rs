//! **The host table**: every fact mcpdesc knows about what an MCP host rejects, mangles
//! or truncates, as data. Each fact carries the URL it was read from, the date it was
//! read and whether the source confirmed it; nothing else in the workspace states a
//! host limit (`mcpdesc-names` takes its length limit as a parameter).
//!
//! Keep it current by re-reading the sources: a fact whose status is
//! [`Status::Unconfirmed`] was not (yet) read in the host's own documentation or
//! code, and its source names the best third-party report found. Re-read on 2026-12-01.
//! Confirmed in the hosts' own material: the Claude directory's 64-character names,
//! `title` and readOnly/destructive hints (anthropics/claude-plugins-official's
//! directory checklist); Claude Code's `mcp__{server}__{tool}` names and its deferral
//! of MCP tools past 10 % of the context window (anthropics/claude-code's changelog);
//! ChatGPT's three required hints (openai/plugins' app-submission skill); OpenAI
//! function names of 64 characters from `[a-zA-Z0-9_-]` (openai-node's
//! `FunctionDefinition`); Gemini CLI's `mcp_{server}_{tool}` names and truncation
//! over 63 (its `generateValidName`). Corrected on that reading: Gemini CLI neither
//! rejects long names nor odd characters (it truncates and replaces them with `_`,
//! so it has no length-limit or character fact), it prefixes every MCP tool, and
//! Claude Code's budget is 10 % of a 200,000-token window (was 25,000, unsourced).
//! Everything else is unconfirmed: the name limits of Claude Code (counting its
//! prefix), ChatGPT, Cursor, Kiro and VS Code, the name characters of the Anthropic
//! hosts, Kiro and VS Code, the top-level-union rejections, OpenAI strict mode's
//! limits, Gemini's `$ref` handling and the tool caps of OpenAI, Cursor and VS Code.
//! Promote a fact to [`Status::Confirmed`] when its host's own source is read.
//!
//! Where a host rewrites names instead of rejecting them (Gemini CLI), the table models
//! the rewrite exactly ([`HostProfile::registered_name`]: prefix, character
//! replacement, truncation), so lint can name what the model will see and which tools
//! collide; `tests/lint_oracles.rs` checks the model against the host's own function.

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
    /// `^[a-zA-Z0-9_.:-]+$` (what Gemini CLI keeps of an MCP tool name).
    AlnumUnderscoreHyphenDotColon,
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
            NameChars::AlnumUnderscoreHyphenDotColon => {
                !name.is_empty() && name.chars().all(|c| ok(c) || matches!(c, '-' | '.' | ':'))
            }
        }
    }

    /// `name` with every character outside the set replaced by `_`, once per UTF-16
    /// code unit (what a JavaScript `replace(/[^…]/g, '_')` does: a character outside
    /// the Basic Multilingual Plane becomes `__`).
    pub fn replace(self, name: &str) -> String {
        let mut out = String::with_capacity(name.len());
        let mut buf = [0u8; 4];
        for c in name.chars() {
            if self.accepts(c.encode_utf8(&mut buf)) {
                out.push(c);
            } else {
                out.extend(std::iter::repeat_n('_', c.len_utf16()));
            }
        }
        out
    }

    /// The rule as a regular expression, for messages.
    pub fn pattern(self) -> &'static str {
        match self {
            NameChars::AlnumUnderscoreHyphen => "^[a-zA-Z0-9_-]+$",
            NameChars::AlnumUnderscore => "^[a-zA-Z0-9_]+$",
            NameChars::AlnumUnderscoreHyphenDotColon => "^[a-zA-Z0-9_.:-]+$",
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

/// How a host shortens a name longer than `over` characters: its first `head`
/// characters, `marker`, its last `tail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    pub over: usize,
    pub head: usize,
    pub marker: &'static str,
    pub tail: usize,
}

impl Truncation {
    /// `name` as the host shortens it (unchanged when it is short enough).
    pub fn apply(self, name: &str) -> String {
        let n = name.chars().count();
        if n <= self.over {
            return name.to_string();
        }
        let head: String = name.chars().take(self.head).collect();
        let tail: String = name.chars().skip(n.saturating_sub(self.tail)).collect();
        format!("{head}{}{tail}", self.marker)
    }
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
    /// Characters outside this set are replaced with `_` (not rejected) by the host.
    NameCharsReplaced(NameChars),
    /// Long names are truncated (not rejected) by the host, as [`Truncation`] says.
    NameTruncated(Truncation),
    /// The host shows the tool as `format` with `{server}` and `{tool}` replaced.
    ServerPrefix(&'static str),
    /// Every tool needs a `title`.
    RequiresTitle,
    /// Every tool needs these annotations.
    RequiresAnnotations(AnnotationRequirement),
    /// `anyOf`/`oneOf`/`allOf` at the top level of `inputSchema` is rejected.
    NoTopLevelUnion,
    /// `$ref` in a tool's `inputSchema` (what the host sends its model as the function's
    /// parameters) is rejected or not resolved. The `outputSchema` stays with the host's
    /// MCP client, which resolves local references (Gemini CLI: `mcp-client.js` passes
    /// only `inputSchema` on, as `parametersJsonSchema`).
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

const ANTHROPIC_TOOL_NAME: &str = "scopecraft/command .tasks/release-v1/TASK-BUG-001.md on GitHub (third-party, quoting the Messages API error: tools.16.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'); Anthropic's own docs not read";
const ANTHROPIC_TOP_LEVEL_UNION: &str = "https://github.com/anthropics/claude-code/issues/5319 (user report quoting the Messages API error: input_schema does not support oneOf, allOf, or anyOf at the top level); Anthropic's own docs not read";
const CLAUDE_DIRECTORY: &str = "https://github.com/anthropics/claude-plugins-official/blob/340e33aef211d95769d252324854497af871dafe/plugins/mcp-server-dev/skills/build-mcp-app/references/directory-checklist.md (hard review criteria: tool names <= 64 characters; every tool sets annotations.title plus the relevant hints, readOnlyHint: true for fetch/search tools, destructiveHint for writes; the same repo's build-mcp-server/references/tool-design.md asks for readOnlyHint, destructiveHint and title on every tool)";
const CLAUDE_CODE_NAME_LIMIT: &str = "https://github.com/anthropics/claude-code/issues/22276 (user report: names are mcp__<server>__<tool> with a 64-character limit; the Messages API error tools.N.custom.name: String should have at most 64 characters in #955); not in Anthropic's docs as read";
const OPENAI_FUNCTION_NAME: &str = "https://github.com/openai/openai-node/blob/7b7d6ca71130d37ec09792c50056b47861f2eccf/src/resources/shared.ts (FunctionDefinition.name, generated from OpenAI's API spec: must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64)";
const OPENAI_STRICT: &str = "https://jsonschemaprofiles.unitvectorylabs.com/schemas/openai (third-party digest of https://platform.openai.com/docs/guides/structured-outputs#supported-schemas: root must be an object, not anyOf; up to 5,000 object properties, 10 levels of nesting, 1,000 enum values); OpenAI's page itself not read";
const OPENAI_MAX_TOOLS: &str = "openai/openai-node commit f4202cef on GitHub (OpenAI's API spec said of chat tools: A max of 128 functions are supported, until this commit of 2025-08-07 removed the sentence; the current spec names no cap)";
const CHATGPT_NAME: &str = "https://github.com/openai/openai-node/blob/7b7d6ca71130d37ec09792c50056b47861f2eccf/src/resources/shared.ts (the OpenAI function-name rule; that ChatGPT applies it to MCP tools is not documented in what was read)";
const CHATGPT_APPS: &str = "https://github.com/openai/plugins/blob/3fdeeb4970a1fa176ccabf873ae64fd6053cb2b0/plugins/openai-developers/skills/chatgpt-app-submission/SKILL.md (ChatGPT Apps submissions require every tool to set all three hints explicitly; missing or null hints are submission blockers)";
const GEMINI_CLI_MCP: &str = "https://github.com/google-gemini/gemini-cli/blob/5411f113cafae26161b4969b0237b8e1e024e2c2/packages/core/src/tools/mcp-tool.ts (generateValidName of `${server}_${tool}`: prefixes mcp_, replaces characters outside a-zA-Z0-9_.:- with _, and a name over 63 characters becomes its first 30 + ... + its last 30; tool-registry.ts sends that name to the model; the same in @google/gemini-cli-core 0.61.0 on npm, dist/src/tools/mcp-tool.js)";
const GEMINI_CLI_REF: &str = "https://github.com/google-gemini/gemini-cli/issues/13326 (user report, open: the Gemini API rejects MCP schemas with $defs references); gemini-cli at 5411f113 passes inputSchema unchanged as parametersJsonSchema (mcp-client.ts discoverTools)";
const CURSOR_MCP: &str = "Mgabr90/universal-mcp-servers docs/troubleshooting/MCP_NAMING_ISSUES.md on GitHub (third-party, quoting Cursor's warning: Combined server and tool name length (65) exceeds 60 characters, where 65 is the two names without a separator); https://docs.cursor.com/context/model-context-protocol (40 tools) not read";
const KIRO_LIMIT: &str = "https://github.com/jwadow/kiro-gateway/pull/104 and https://github.com/severity1/nz-akahu-mcp/releases/tag/v0.1.4 (third-party, quoting Kiro: Tool name(s) exceed Kiro API limit of 64 characters, server prefix included); https://kiro.dev/docs/mcp/usage not read";
const VSCODE_MCP: &str = "https://code.visualstudio.com/docs/copilot/chat/mcp-servers (not read; microsoft/vscode's src/vs/workbench/contrib/mcp/common/mcpLanguageModelToolContribution.ts, as read, states no name rule)";
const VSCODE_MAX_TOOLS: &str = "https://github.com/postmanlabs/postman-mcp-server/pull/35 (third-party: VS Code only supports up to 128 tools); VS Code's docs not read";

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
                Confirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                ANTHROPIC_TOOL_NAME,
                Unconfirmed,
            ),
            fact(RequiresTitle, CLAUDE_DIRECTORY, Confirmed),
            fact(
                RequiresAnnotations(AnnotationRequirement::AnyOf(&[
                    "readOnlyHint",
                    "destructiveHint",
                ])),
                CLAUDE_DIRECTORY,
                Confirmed,
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
                CLAUDE_CODE_NAME_LIMIT,
                Unconfirmed,
            ),
            fact(
                ServerPrefix("mcp__{server}__{tool}"),
                concat!(
                    "https://github.com/anthropics/claude-code/blob/5cfc0a1905ce0c0a9bd81d8a90fe6b62ff614357/CHANGELOG.md",
                    " (permission rules mcp__server__* for all tools of a server; ",
                    "use mcp__brave-search__.* to match all tools from a hyphenated MCP server)"
                ),
                Confirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                ANTHROPIC_TOOL_NAME,
                Unconfirmed,
            ),
            fact(NoTopLevelUnion, ANTHROPIC_TOP_LEVEL_UNION, Unconfirmed),
            fact(
                ListTokenBudget(20_000),
                concat!(
                    "https://github.com/anthropics/claude-code/blob/5cfc0a1905ce0c0a9bd81d8a90fe6b62ff614357/CHANGELOG.md",
                    " (2.1.7: when MCP tool descriptions exceed 10% of the context window, ",
                    "they are deferred to tool search instead of being loaded upfront; ",
                    "20,000 tokens is 10% of a 200,000-token window, larger with a larger window)"
                ),
                // The 10 % rule is Claude Code's own; the window size is assumed.
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
                CHATGPT_NAME,
                Unconfirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                CHATGPT_NAME,
                Unconfirmed,
            ),
            fact(
                RequiresAnnotations(AnnotationRequirement::All(&[
                    "readOnlyHint",
                    "destructiveHint",
                    "openWorldHint",
                ])),
                CHATGPT_APPS,
                Confirmed,
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
                Confirmed,
            ),
            fact(
                NameChars(NameChars::AlnumUnderscoreHyphen),
                OPENAI_FUNCTION_NAME,
                Confirmed,
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
            fact(MaxTools(128), OPENAI_MAX_TOOLS, Unconfirmed),
        ],
    },
    HostProfile {
        id: "gemini-cli",
        name: "Gemini CLI",
        // No length limit and no character rule: the CLI truncates long names and
        // replaces odd characters itself, so the Gemini API's 64-character
        // `^[a-zA-Z_][a-zA-Z0-9_.:-]*$` never rejects an MCP tool (GEMINI_CLI_MCP);
        // what it does instead is modelled exactly (`registered_name`, checked against
        // the real function by tests/lint_oracles.rs).
        facts: &[
            fact(
                ServerPrefix("mcp_{server}_{tool}"),
                GEMINI_CLI_MCP,
                Confirmed,
            ),
            fact(
                NameCharsReplaced(NameChars::AlnumUnderscoreHyphenDotColon),
                GEMINI_CLI_MCP,
                Confirmed,
            ),
            fact(
                NameTruncated(Truncation {
                    over: 63,
                    head: 30,
                    marker: "...",
                    tail: 30,
                }),
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
                "https://kiro.dev/docs/mcp/usage (autoApprove example mcp_aws_docs_search_documentation; not re-read)",
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
            fact(MaxTools(128), VSCODE_MAX_TOOLS, Unconfirmed),
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

    /// The name the host registers `tool` under (the name its model calls): the shown
    /// name ([`HostProfile::shown_name`]) with the host's character replacement and
    /// truncation applied. Exact for Gemini CLI's `generateValidName` when the server
    /// name is given and does not itself start with `mcp_` (then Gemini CLI adds no
    /// second prefix); the letter-first fix-up it also applies never fires behind
    /// that prefix.
    pub fn registered_name(&self, server: Option<&str>, tool: &str) -> String {
        let mut n = self.shown_name(server, tool);
        if let Some(c) = self.replaced_chars() {
            n = c.replace(&n);
        }
        match self.truncation() {
            Some(t) => t.apply(&n),
            None => n,
        }
    }

    /// The characters the host keeps in names ([`HostRule::NameCharsReplaced`]).
    pub fn replaced_chars(&self) -> Option<NameChars> {
        self.find(|r| match r {
            NameCharsReplaced(c) => Some(*c),
            _ => None,
        })
    }

    /// How the host shortens long names ([`HostRule::NameTruncated`]).
    pub fn truncation(&self) -> Option<Truncation> {
        self.find(|r| match r {
            NameTruncated(t) => Some(*t),
            _ => None,
        })
    }

    /// Whether the host rewrites names (replaces characters or truncates), so two
    /// tools can end up under one name.
    pub fn rewrites_names(&self) -> bool {
        self.replaced_chars().is_some() || self.truncation().is_some()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed from Gemini CLI's generateValidName (`mcp-tool.ts`).
    #[test]
    fn gemini_cli_registered_names() {
        let g = host("gemini-cli").expect("profile");
        assert_eq!(
            g.registered_name(Some("gh"), "records/get"),
            "mcp_gh_records_get"
        );
        assert_eq!(
            g.registered_name(Some("gh"), "repos.get:v2"),
            "mcp_gh_repos.get:v2"
        );
        // One replacement per UTF-16 code unit, as JavaScript's `replace` counts.
        assert_eq!(
            g.registered_name(Some("gh"), "caf\u{e9}\u{1F600}"),
            "mcp_gh_caf___"
        );
        // 7 + 57 = 64 > 63: the first 30, `...`, the last 30.
        let long = format!("{}{}", "a".repeat(27), "b".repeat(30));
        assert_eq!(
            g.registered_name(Some("gh"), &long),
            format!("mcp_gh_{}...{}", "a".repeat(23), "b".repeat(30))
        );
        assert_eq!(g.registered_name(Some("gh"), &long[1..]).len(), 63);
        // Hosts that do not rewrite register the shown name.
        let k = host("kiro").expect("profile");
        assert_eq!(k.registered_name(Some("gh"), "a/b"), "mcp_gh_a/b");
        assert!(!k.rewrites_names() && g.rewrites_names());
    }
}
