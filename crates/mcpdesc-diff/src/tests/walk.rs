//! Declaration-level findings: added and removed declarations of every kind, the
//! fields every declaration has, tools (output schema, annotations, task support),
//! prompts and their arguments, resources, transports, capabilities, client
//! requirements, elicitations, examples and primitive security.

use super::{doc, expect};
use serde_json::{Value, json};

#[test]
fn declarations_added_and_removed() {
    let old = doc(json!({
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
        "resources": [{"uri": "file:///a", "name": "a"}],
        "resourceTemplates": [{"uriTemplate": "file:///{x}", "name": "x"}],
        "prompts": [{"name": "p"}],
        "transports": [{"type": "stdio", "command": "./srv"}],
    }));
    let new = doc(json!({
        "tools": [{"name": "u", "inputSchema": {"type": "object"}}],
        "resources": [{"uri": "file:///b", "name": "b"}],
        "resourceTemplates": [{"uriTemplate": "file:///{y}", "name": "y"}],
        "prompts": [{"name": "q"}],
        "transports": [{"type": "streamable-http", "url": "https://example.com/mcp"}],
    }));
    expect(
        &old,
        &new,
        &[
            "breaking transport-removed transport `stdio ./srv`: removed | /transports/0 | /transports",
            "non-breaking transport-added transport `streamable-http https://example.com/mcp`: added | /transports | /transports/0",
            "breaking tool-removed tool `t`: removed | /tools/0 | /tools",
            "non-breaking tool-added tool `u`: added | /tools | /tools/0",
            "breaking resource-removed resource `file:///a`: removed | /resources/0 | /resources",
            "non-breaking resource-added resource `file:///b`: added | /resources | /resources/0",
            "breaking resource-template-removed resource template `file:///{x}`: removed | /resourceTemplates/0 | /resourceTemplates",
            "non-breaking resource-template-added resource template `file:///{y}`: added | /resourceTemplates | /resourceTemplates/0",
            "breaking prompt-removed prompt `p`: removed | /prompts/0 | /prompts",
            "non-breaking prompt-added prompt `q`: added | /prompts | /prompts/0",
        ],
    );
    // The other side has no collection at all: no pointer there.
    expect(
        &doc(json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})),
        &doc(json!({})),
        &["breaking tool-removed tool `t`: removed | /tools/0 | -"],
    );
    expect(
        &doc(json!({})),
        &doc(json!({"prompts": [{"name": "p"}]})),
        &["non-breaking prompt-added prompt `p`: added | - | /prompts/0"],
    );
}

/// A declaration is matched by identity, not position; one that only some revisions
/// see is added or removed for those revisions alone.
#[test]
fn matched_by_identity_and_scope() {
    let t = |name: &str, d: &str| json!({"name": name, "description": d, "inputSchema": {"type": "object"}});
    let old = doc(json!({"tools": [t("a", "A"), t("b", "B")]}));
    let new = doc(json!({"tools": [t("b", "B"), t("a", "A")]}));
    expect(&old, &new, &[]);
    let two = |tools: Value| {
        doc(json!({"protocolVersions": ["2025-06-18", "2025-11-25"], "tools": tools}))
    };
    let mut scoped = t("b", "B");
    scoped["protocolVersions"] = json!(["2025-11-25"]);
    expect(
        &two(json!([t("a", "A"), t("b", "B")])),
        &two(json!([t("a", "A"), scoped])),
        &["breaking tool-removed tool `b`: removed | /tools/1 | /tools [2025-06-18]"],
    );
    // Declarations of a kind are reported in the order of their identities.
    expect(
        &doc(json!({"tools": [t("z", "Z"), t("a", "A")]})),
        &doc(json!({})),
        &[
            "breaking tool-removed tool `a`: removed | /tools/1 | -",
            "breaking tool-removed tool `z`: removed | /tools/0 | -",
        ],
    );
    // The same change at both revisions is one finding.
    expect(
        &two(json!([t("a", "A")])),
        &two(json!([t("a", "A2")])),
        &[
            "info description-changed tool `a`: `description` changed | /tools/0/description | /tools/0/description",
        ],
    );
}

/// Two transports of the same type and target with overlapping scopes are told apart
/// (`#2`); with disjoint scopes they are one transport across revisions.
#[test]
fn transports_of_one_identity() {
    let two = |transports: Value| {
        doc(json!({"protocolVersions": ["2025-06-18", "2025-11-25"], "transports": transports}))
    };
    let tr = |args: Value, revs: Option<Value>| {
        let mut t = json!({"type": "stdio", "command": "srv", "args": args});
        if let Some(r) = revs {
            t["protocolVersions"] = r;
        }
        t
    };
    // Overlapping: the second is `#2`; changing its args is its own finding.
    expect(
        &two(json!([tr(json!(["a"]), None), tr(json!(["b"]), None)])),
        &two(json!([tr(json!(["a"]), None), tr(json!(["c"]), None)])),
        &[
            "possibly-breaking transport-changed transport `stdio srv #2`: `args` changed | /transports/1/args | /transports/1/args",
        ],
    );
    // Disjoint scopes: one identity, each revision its own source declaration.
    expect(
        &two(json!([
            tr(json!(["a"]), Some(json!(["2025-06-18"]))),
            tr(json!(["b"]), Some(json!(["2025-11-25"])))
        ])),
        &two(json!([
            tr(json!(["a"]), Some(json!(["2025-06-18"]))),
            tr(json!(["c"]), Some(json!(["2025-11-25"])))
        ])),
        &[
            "possibly-breaking transport-changed transport `stdio srv`: `args` changed | /transports/1/args | /transports/1/args [2025-11-25]",
        ],
    );
    // Past eight overlapping ones, each is its own, numbered after the first eight.
    let ten = |changed: &[(usize, &str)]| {
        two(Value::Array(
            (0..10)
                .map(|i| {
                    let arg = changed
                        .iter()
                        .find(|c| c.0 == i)
                        .map_or(i.to_string(), |c| c.1.to_string());
                    tr(json!([arg]), None)
                })
                .collect(),
        ))
    };
    expect(
        &ten(&[]),
        &ten(&[(7, "x"), (9, "y")]),
        &[
            "possibly-breaking transport-changed transport `stdio srv #18`: `args` changed | /transports/9/args | /transports/9/args",
            "possibly-breaking transport-changed transport `stdio srv #8`: `args` changed | /transports/7/args | /transports/7/args",
        ],
    );
    // A removed second transport of the same identity is `#2` removed.
    expect(
        &two(json!([tr(json!(["a"]), None), tr(json!(["b"]), None)])),
        &two(json!([tr(json!(["a"]), None)])),
        &[
            "breaking transport-removed transport `stdio srv #2`: removed | /transports/1 | /transports",
        ],
    );
}

#[test]
fn transport_members() {
    let one = |t: Value| doc(json!({"transports": [t]}));
    expect(
        &one(
            json!({"type": "stdio", "command": "srv", "args": ["a"], "env": {"A": "1"}, "x-n": 1, "description": "d"}),
        ),
        &one(
            json!({"type": "stdio", "command": "srv", "env": {"A": "2"}, "x-n": 2, "description": "e", "title": "T"}),
        ),
        &[
            "info title-changed transport `stdio srv`: `title` absent → `T` | /transports/0 | /transports/0/title",
            "info description-changed transport `stdio srv`: `description` changed | /transports/0/description | /transports/0/description",
            "possibly-breaking transport-changed transport `stdio srv`: `args` changed | /transports/0/args | /transports/0",
            "possibly-breaking transport-changed transport `stdio srv`: `env` changed | /transports/0/env | /transports/0/env",
            "info extension-changed transport `stdio srv`: extension `x-n` changed | /transports/0/x-n | /transports/0/x-n",
        ],
    );
    // A transport's own security against the root's (its effective requirement).
    let with = |t: Value| doc(json!({"security": [{"a": []}], "transports": [t]}));
    expect(
        &with(json!({"type": "streamable-http", "url": "https://e.example/mcp"})),
        &with(
            json!({"type": "streamable-http", "url": "https://e.example/mcp", "security": [{"a": [], "b": []}]}),
        ),
        &[
            "breaking security-requirement-added transport `streamable-http https://e.example/mcp`: a client presenting `a` is no longer authorized; now requires `a` and `b` | /security | /transports/0/security",
        ],
    );
    expect(
        &with(
            json!({"type": "streamable-http", "url": "https://e.example/mcp", "security": [{"a": [], "b": []}]}),
        ),
        &with(json!({"type": "streamable-http", "url": "https://e.example/mcp"})),
        &[
            "info security-requirement-relaxed transport `streamable-http https://e.example/mcp`: every old requirement still works; now accepts `a` | /transports/0/security | /security",
        ],
    );
    // Without a root requirement, dropping its own is "no longer declared", at the transport.
    expect(
        &one(
            json!({"type": "streamable-http", "url": "https://e.example/mcp", "security": [{"a": []}]}),
        ),
        &one(json!({"type": "streamable-http", "url": "https://e.example/mcp"})),
        &[
            "info security-undeclared transport `streamable-http https://e.example/mcp`: `security` is no longer declared | /transports/0/security | /transports/0",
        ],
    );
}

/// Title (quoted, short) and description (not quoted), deprecation, extensions and
/// other descriptive members, on a tool.
#[test]
fn common_members() {
    let one = |t: Value| doc(json!({"tools": [t]}));
    expect(
        &one(
            json!({"name": "t", "title": "Old", "description": "a", "inputSchema": {"type": "object"}, "x-a": 1, "icons": [{"src": "https://e.example/a.png"}]}),
        ),
        &one(
            json!({"name": "t", "title": "New", "description": "b", "inputSchema": {"type": "object"}, "x-a": 2, "icons": [{"src": "https://e.example/b.png"}], "deprecated": true}),
        ),
        &[
            "info title-changed tool `t`: `title` `Old` → `New` | /tools/0/title | /tools/0/title",
            "info description-changed tool `t`: `description` changed | /tools/0/description | /tools/0/description",
            "non-breaking declaration-deprecated tool `t`: now deprecated | /tools/0 | /tools/0/deprecated",
            "info extension-changed tool `t`: extension `x-a` changed | /tools/0/x-a | /tools/0/x-a",
            "info metadata-changed tool `t`: `icons` changed | /tools/0/icons | /tools/0/icons",
        ],
    );
    expect(
        &one(
            json!({"name": "t", "title": "T", "inputSchema": {"type": "object"}, "deprecated": true}),
        ),
        &one(json!({"name": "t", "inputSchema": {"type": "object"}, "deprecated": false})),
        &[
            "info title-changed tool `t`: `title` `T` → absent | /tools/0/title | /tools/0",
            "info declaration-undeprecated tool `t`: no longer deprecated | /tools/0/deprecated | /tools/0",
        ],
    );
}

#[test]
fn tool_output_schema_added_and_removed() {
    let one = |t: Value| doc(json!({"tools": [t]}));
    let bare = json!({"name": "t", "inputSchema": {"type": "object"}});
    let mut with = bare.clone();
    with["outputSchema"] = json!({"type": "object"});
    expect(
        &one(with.clone()),
        &one(bare.clone()),
        &[
            "breaking output-schema-removed tool `t`: `outputSchema` removed: clients lose the structured-content contract | /tools/0/outputSchema | /tools/0",
        ],
    );
    expect(
        &one(bare),
        &one(with),
        &[
            "non-breaking output-schema-added tool `t`: `outputSchema` added | /tools/0 | /tools/0/outputSchema",
        ],
    );
}

/// Behavior hints with their §9.6 defaults; `destructiveHint` and `idempotentHint`
/// count only while neither side is read-only; other annotation members are info.
#[test]
fn tool_annotations() {
    let one = |a: Option<Value>| {
        let mut t = json!({"name": "t", "inputSchema": {"type": "object"}});
        if let Some(a) = a {
            t["annotations"] = a;
        }
        doc(json!({"tools": [t]}))
    };
    let a = "/tools/0/annotations";
    expect(
        &one(Some(json!({"readOnlyHint": true}))),
        &one(Some(json!({"readOnlyHint": false}))),
        &[&format!(
            "breaking tool-annotation-risk-raised tool `t`: `readOnlyHint` true → false | {a}/readOnlyHint | {a}/readOnlyHint"
        )],
    );
    expect(
        &one(None),
        &one(Some(json!({"readOnlyHint": true}))),
        &[&format!(
            "info tool-annotation-risk-lowered tool `t`: `readOnlyHint` absent (false) → true | /tools/0 | {a}/readOnlyHint"
        )],
    );
    expect(
        &one(Some(
            json!({"destructiveHint": false, "idempotentHint": true}),
        )),
        &one(Some(json!({}))),
        &[
            &format!(
                "breaking tool-annotation-risk-raised tool `t`: `destructiveHint` false → absent (true) | {a}/destructiveHint | {a}"
            ),
            &format!(
                "breaking tool-annotation-risk-raised tool `t`: `idempotentHint` true → absent (false) | {a}/idempotentHint | {a}"
            ),
        ],
    );
    expect(
        &one(Some(
            json!({"destructiveHint": true, "idempotentHint": false, "openWorldHint": true}),
        )),
        &one(Some(
            json!({"destructiveHint": false, "idempotentHint": true, "openWorldHint": false}),
        )),
        &[
            &format!(
                "info tool-annotation-risk-lowered tool `t`: `destructiveHint` true → false | {a}/destructiveHint | {a}/destructiveHint"
            ),
            &format!(
                "info tool-annotation-risk-lowered tool `t`: `idempotentHint` false → true | {a}/idempotentHint | {a}/idempotentHint"
            ),
            &format!(
                "info tool-annotation-risk-lowered tool `t`: `openWorldHint` true → false | {a}/openWorldHint | {a}/openWorldHint"
            ),
        ],
    );
    expect(
        &one(Some(json!({"openWorldHint": false}))),
        &one(None),
        &[&format!(
            "breaking tool-annotation-risk-raised tool `t`: `openWorldHint` false → absent (true) | {a}/openWorldHint | /tools/0"
        )],
    );
    // Read-only on one side: only `readOnlyHint` is compared.
    expect(
        &one(Some(
            json!({"readOnlyHint": true, "destructiveHint": false}),
        )),
        &one(Some(
            json!({"readOnlyHint": false, "destructiveHint": true}),
        )),
        &[&format!(
            "breaking tool-annotation-risk-raised tool `t`: `readOnlyHint` true → false | {a}/readOnlyHint | {a}/readOnlyHint"
        )],
    );
    // Read-only on either side: the write hints mean nothing.
    expect(
        &one(Some(
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true}),
        )),
        &one(Some(
            json!({"readOnlyHint": true, "destructiveHint": true, "idempotentHint": false}),
        )),
        &[],
    );
    expect(
        &one(Some(json!({"title": "A", "x-k": 1}))),
        &one(Some(json!({"title": "B"}))),
        &[
            &format!(
                "info tool-annotation-changed tool `t`: annotation `title` `A` → `B` | {a} | {a}"
            ),
            &format!(
                "info tool-annotation-changed tool `t`: annotation `x-k` `1` → absent | {a} | {a}"
            ),
        ],
    );
}

/// `execution.taskSupport` as the ways a client may call (default `forbidden`).
#[test]
fn tool_task_support() {
    let one = |e: Option<Value>| {
        let mut t = json!({"name": "t", "inputSchema": {"type": "object"}});
        if let Some(e) = e {
            t["execution"] = e;
        }
        doc(json!({"tools": [t]}))
    };
    let mode = |m: &str| Some(json!({"taskSupport": m}));
    let e = "/tools/0/execution";
    let cases = [
        (
            None,
            mode("optional"),
            "non-breaking tool-task-support-widened",
            "`forbidden` → `optional`",
            "/tools/0",
            e,
        ),
        (
            mode("optional"),
            mode("required"),
            "breaking tool-task-support-narrowed",
            "`optional` → `required`",
            e,
            e,
        ),
        (
            mode("required"),
            mode("optional"),
            "non-breaking tool-task-support-widened",
            "`required` → `optional`",
            e,
            e,
        ),
        (
            mode("forbidden"),
            mode("required"),
            "breaking tool-task-support-narrowed",
            "`forbidden` → `required`",
            e,
            e,
        ),
        (
            mode("required"),
            None,
            "breaking tool-task-support-narrowed",
            "`required` → `forbidden`",
            e,
            "/tools/0",
        ),
        (
            mode("optional"),
            mode("forbidden"),
            "breaking tool-task-support-narrowed",
            "`optional` → `forbidden`",
            e,
            e,
        ),
    ];
    for (o, n, rule, words, op, np) in cases {
        expect(
            &one(o),
            &one(n),
            &[&format!(
                "{rule} tool `t`: `execution.taskSupport` {words} | {op} | {np}"
            )],
        );
    }
    // `forbidden` spelled out is the default.
    expect(&one(None), &one(mode("forbidden")), &[]);
    expect(
        &one(Some(json!({"taskSupport": "optional", "x-a": 1, "ttl": 1}))),
        &one(Some(json!({"taskSupport": "optional", "x-a": 2, "ttl": 2}))),
        &[
            &format!("info extension-changed tool `t`: `execution.x-a` changed | {e} | {e}"),
            &format!("info metadata-changed tool `t`: `execution.ttl` changed | {e} | {e}"),
        ],
    );
}

/// Prompt arguments by name: removed, added (required or not), required flipped, and
/// their own members (title, description, `x-`, others), or nothing when equal.
#[test]
fn prompt_arguments() {
    let one = |args: Value| doc(json!({"prompts": [{"name": "p", "arguments": args}]}));
    let a = "/prompts/0/arguments";
    expect(
        &one(
            json!([{"name": "gone", "required": true}, {"name": "b", "description": "d", "title": "T", "x-e": 1, "hint": 1}, {"name": "same", "description": "s"}]),
        ),
        &one(
            json!([{"name": "b", "required": true, "description": "d2", "title": "T2", "x-e": 2, "hint": 2}, {"name": "same", "description": "s"}, {"name": "opt"}, {"name": "req", "required": true}]),
        ),
        &[
            &format!(
                "breaking prompt-argument-removed prompt `p`: argument `gone` removed | {a}/0 | {a}"
            ),
            &format!(
                "breaking prompt-argument-required prompt `p`: argument `b` is now required | {a}/1/required | {a}/0/required"
            ),
            &format!(
                "info description-changed prompt `p`: argument `b`: `description` changed | {a}/1/description | {a}/0/description"
            ),
            &format!(
                "info title-changed prompt `p`: argument `b`: `title` changed | {a}/1/title | {a}/0/title"
            ),
            &format!(
                "info extension-changed prompt `p`: argument `b`: `x-e` changed | {a}/1/x-e | {a}/0/x-e"
            ),
            &format!(
                "info metadata-changed prompt `p`: argument `b`: `hint` changed | {a}/1/hint | {a}/0/hint"
            ),
            &format!(
                "non-breaking prompt-argument-added prompt `p`: argument `opt` added (optional) | {a} | {a}/2"
            ),
            &format!(
                "breaking prompt-argument-required prompt `p`: argument `req` added as required | {a} | {a}/3"
            ),
        ],
    );
    expect(
        &one(json!([{"name": "b", "required": true}])),
        &one(json!([{"name": "b", "required": false}])),
        &[&format!(
            "non-breaking prompt-argument-optional prompt `p`: argument `b` is no longer required | {a}/0/required | {a}/0/required"
        )],
    );
    // No arguments member at all on the other side: the prompt is the pointer.
    expect(
        &doc(json!({"prompts": [{"name": "p"}]})),
        &one(json!([{"name": "x"}])),
        &[
            "non-breaking prompt-argument-added prompt `p`: argument `x` added (optional) | /prompts/0 | /prompts/0/arguments/0",
        ],
    );
}

/// A resource's `mimeType` changed is breaking; added or removed it is metadata; the
/// programmatic `name` is info (its identity is the URI).
#[test]
fn resource_members() {
    let one = |r: Value| doc(json!({"resources": [r]}));
    let r = "/resources/0";
    expect(
        &one(json!({"uri": "file:///a", "name": "a", "mimeType": "text/plain", "size": 1})),
        &one(json!({"uri": "file:///a", "name": "b", "mimeType": "application/json", "size": 2})),
        &[
            &format!(
                "info name-changed resource `file:///a`: `name` `a` → `b` | {r}/name | {r}/name"
            ),
            &format!(
                "breaking mime-type-changed resource `file:///a`: `mimeType` `text/plain` → `application/json` | {r}/mimeType | {r}/mimeType"
            ),
            &format!(
                "info metadata-changed resource `file:///a`: `size` changed | {r}/size | {r}/size"
            ),
        ],
    );
    expect(
        &one(json!({"uri": "file:///a", "name": "a"})),
        &one(json!({"uri": "file:///a", "name": "a", "mimeType": "text/plain"})),
        &[&format!(
            "info metadata-changed resource `file:///a`: `mimeType` absent → `text/plain` | {r} | {r}/mimeType"
        )],
    );
    let t = |m: Option<&str>| {
        let mut t = json!({"uriTemplate": "file:///{x}", "name": "x"});
        if let Some(m) = m {
            t["mimeType"] = json!(m);
        }
        doc(json!({"resourceTemplates": [t]}))
    };
    expect(
        &t(Some("text/plain")),
        &t(None),
        &[
            "info metadata-changed resource template `file:///{x}`: `mimeType` `text/plain` → absent | /resourceTemplates/0/mimeType | /resourceTemplates/0",
        ],
    );
    expect(&t(Some("text/plain")), &t(Some("text/plain")), &[]);
}

/// Capabilities: the shallowest removed or added path, flags and scalar values, and the
/// extensions of the object and its tools/resources/prompts members.
#[test]
fn capabilities() {
    let caps = |c: Value| doc(json!({"capabilities": [c]}));
    let c = "/capabilities/0";
    expect(
        &caps(
            json!({"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true}, "logging": {}, "x-a": 1}),
        ),
        &caps(
            json!({"tools": {}, "prompts": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": false}, "x-a": 2, "completions": {"x-b": 1}}),
        ),
        &[
            &format!(
                "breaking capability-removed capabilities object: capability `tools.listChanged` removed | {c}/tools/listChanged | {c}"
            ),
            &format!(
                "breaking capability-removed capabilities object: capability `resources.listChanged` removed | {c}/resources/listChanged | {c}"
            ),
            &format!(
                "breaking capability-removed capabilities object: capability `logging` removed | {c}/logging | {c}"
            ),
            &format!(
                "info capability-added capabilities object: capability `prompts` added | {c} | {c}/prompts"
            ),
            &format!(
                "info capability-added capabilities object: capability `completions` added | {c} | {c}/completions"
            ),
            &format!(
                "info extension-changed capabilities object: extension `x-a` changed | {c} | {c}"
            ),
        ],
    );
    expect(
        &caps(json!({"tools": {"x-t": 1}, "experimental": {"mode": "a"}})),
        &caps(json!({"tools": {"x-t": 2}, "experimental": {"mode": "b"}})),
        &[
            &format!(
                "breaking capability-removed capabilities object: capability `experimental.mode=\"a\"` removed | {c}/experimental/mode | {c}"
            ),
            &format!(
                "info capability-added capabilities object: capability `experimental.mode=\"b\"` added | {c} | {c}/experimental/mode"
            ),
            &format!(
                "info extension-changed capabilities object: extension `x-t` changed | {c}/tools | {c}/tools"
            ),
        ],
    );
    // Extensions deeper than the capability objects are capabilities like any other.
    expect(
        &caps(json!({"experimental": {"feature": {"x-k": true}}})),
        &caps(json!({"experimental": {"feature": {}}})),
        &[&format!(
            "breaking capability-removed capabilities object: capability `experimental.feature.x-k` removed | {c}/experimental/feature/x-k | {c}"
        )],
    );
    // A Capabilities Object only OLD has: compared with an empty one.
    expect(
        &caps(json!({"tools": {"listChanged": true}})),
        &doc(json!({})),
        &[
            "breaking capability-removed capabilities object: capability `tools` removed | /capabilities/0/tools | /capabilities",
        ],
    );
    expect(
        &doc(json!({})),
        &caps(json!({"prompts": {}})),
        &[
            "info capability-added capabilities object: capability `prompts` added | /capabilities | /capabilities/0/prompts",
        ],
    );
}

/// Client requirements, elicitations and examples of a primitive.
#[test]
fn client_requirements_elicitations_examples() {
    let one = |extra: Value| {
        let mut t = json!({"name": "t", "inputSchema": {"type": "object"}});
        for (k, v) in extra.as_object().into_iter().flatten() {
            t[k] = v.clone();
        }
        doc(json!({"tools": [t]}))
    };
    let t = "/tools/0";
    expect(
        &one(json!({"clientRequirements": {"sampling": {}, "x-c": 1}})),
        &one(json!({"clientRequirements": {"roots": {"listChanged": true}, "x-c": 2}})),
        &[
            &format!(
                "non-breaking client-requirement-removed tool `t`: client capability `sampling` removed | {t}/clientRequirements/sampling | {t}/clientRequirements"
            ),
            &format!(
                "breaking client-requirement-added tool `t`: client capability `roots` added | {t}/clientRequirements | {t}/clientRequirements/roots"
            ),
            &format!(
                "info extension-changed tool `t`: extension `x-c` changed | {t}/clientRequirements | {t}/clientRequirements"
            ),
        ],
    );
    expect(
        &one(json!({})),
        &one(json!({"clientRequirements": {"elicitation": {}}})),
        &[&format!(
            "breaking client-requirement-added tool `t`: client capability `elicitation` added | {t} | {t}/clientRequirements/elicitation"
        )],
    );
    let el = |name: &str, msg: &str| json!({"name": name, "mode": "url", "message": msg});
    expect(
        &one(json!({"elicitations": [el("a", "m"), el("b", "m"), el("c", "m")]})),
        &one(json!({"elicitations": [el("b", "m2"), el("c", "m"), el("d", "m")]})),
        &[
            &format!(
                "info elicitation-removed tool `t`: elicitation `a` removed | {t}/elicitations/0 | {t}/elicitations"
            ),
            &format!(
                "info elicitation-changed tool `t`: elicitation `b` changed | {t}/elicitations/1 | {t}/elicitations/0"
            ),
            &format!(
                "non-breaking elicitation-added tool `t`: elicitation `d` added: the primitive may ask the user for input | {t}/elicitations | {t}/elicitations/2"
            ),
        ],
    );
    expect(
        &one(json!({"examples": {"a": {"arguments": {}}}, "interactionExamples": [1]})),
        &one(json!({"examples": {"a": {"arguments": {"x": 1}}}, "completionExamples": [1]})),
        &[
            &format!(
                "info examples-changed tool `t`: `examples` changed | {t}/examples | {t}/examples"
            ),
            &format!(
                "info examples-changed tool `t`: `interactionExamples` changed | {t}/interactionExamples | {t}"
            ),
            &format!(
                "info examples-changed tool `t`: `completionExamples` changed | {t} | {t}/completionExamples"
            ),
        ],
    );
}

/// A primitive's own security against the root's; equal effective requirements, in
/// either spelling, are no finding.
#[test]
fn primitive_security() {
    let with = |own: Option<Value>| {
        let mut t = json!({"name": "t", "inputSchema": {"type": "object"}});
        if let Some(s) = own {
            t["security"] = s;
        }
        doc(json!({"security": [{"a": []}], "tools": [t]}))
    };
    expect(&with(None), &with(Some(json!([{"a": []}]))), &[]);
    expect(
        &with(None),
        &with(Some(json!([{"b": []}]))),
        &[
            "breaking security-requirement-added tool `t`: a client presenting `a` is no longer authorized; now requires `b` | /security | /tools/0/security",
        ],
    );
}

/// Equal declarations whose `$componentRef`s resolve to different components are
/// compared; equal ones are not.
#[test]
fn component_references_are_followed() {
    let with = |schema: Value, example: Value| {
        doc(json!({
            "components": {"schemas": {"In": schema}, "toolExamples": {"E": example}},
            "tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/In"},
                       "examples": {"e": {"$componentRef": "#/components/toolExamples/E"}}}],
        }))
    };
    let s = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let e = json!({"arguments": {"q": "x"}});
    expect(
        &with(s.clone(), e.clone()),
        &with(s.clone(), e.clone()),
        &[],
    );
    let mut narrowed = s.clone();
    narrowed["required"] = json!(["q"]);
    expect(
        &with(s.clone(), e.clone()),
        &with(narrowed, e.clone()),
        &[
            "breaking input-property-required tool `t`: property `q` is now required | /components/schemas/In | /components/schemas/In/required/0",
        ],
    );
    expect(
        &with(s.clone(), e),
        &with(s, json!({"arguments": {"q": "y"}})),
        &[
            "info examples-changed tool `t`: `examples` changed | /tools/0/examples | /tools/0/examples",
        ],
    );
}

/// A declaration whose view differs between revisions (an elicitation scoped to one)
/// is compared at each: the change both revisions see is one finding, the other is
/// reported for its revision only, on either side.
#[test]
fn views_that_differ_between_revisions() {
    let e = json!({"name": "e", "mode": "url", "message": "m", "protocolVersions": ["2025-11-25"]});
    let t = |name: &str, d: &str, el: bool| {
        let mut t = json!({"name": name, "description": d, "inputSchema": {"type": "object"}});
        if el {
            t["elicitations"] = json!([e]);
        }
        t
    };
    let two = |tools: Value| {
        doc(json!({"protocolVersions": ["2025-06-18", "2025-11-25"], "tools": tools}))
    };
    expect(
        &two(json!([t("a", "A", true), t("b", "B", false)])),
        &two(json!([t("a", "A2", false), t("b", "B2", true)])),
        &[
            "info description-changed tool `a`: `description` changed | /tools/0/description | /tools/0/description",
            "info elicitation-removed tool `a`: elicitation `e` removed | /tools/0/elicitations/0 | /tools/0 [2025-11-25]",
            "info description-changed tool `b`: `description` changed | /tools/1/description | /tools/1/description",
            "non-breaking elicitation-added tool `b`: elicitation `e` added: the primitive may ask the user for input | /tools/1 | /tools/1/elicitations/0 [2025-11-25]",
        ],
    );
}
