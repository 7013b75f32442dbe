//! The words and places of every lint rule a user reads (issue 23): small valid
//! descriptions, each finding as `SEVERITY CODE POINTER: MESSAGE`, against
//! hand-written expectations. Host facts are quoted from the host table (the one home
//! of host facts), in the `SOURCE, read DATE, STATUS` form the messages end with.
//! Sizes come from `mcpdesc_scope::export_tools_list` (what a host receives), not from
//! lint.

use crate::{LintOptions, LintReport};
use mcpdesc_core::ProtocolRevision;
use mcpdesc_hosts::{HostProfile, HostRule, estimate_tokens, host};
use serde_json::{Value, json};

const REV: ProtocolRevision = ProtocolRevision::V2025_06_18;

/// Lints `d` as the CLI does: validated once (an invalid description gets the
/// validator's errors only), then [`crate::lint`] of the handle, which validates nothing
/// again.
fn lint(d: &Value, o: &LintOptions) -> LintReport {
    match mcpdesc_validate::Validator::new().check(d) {
        Ok(valid) => {
            let before = mcpdesc_validate::runs_on_this_thread();
            let report = crate::lint(&valid, o);
            assert_eq!(
                mcpdesc_validate::runs_on_this_thread(),
                before,
                "lint validated again"
            );
            report
        }
        Err(diags) => LintReport {
            diagnostics: diags.into_iter().filter(|d| d.is_error()).collect(),
            sizes: Vec::new(),
        },
    }
}

fn doc(tools: Vec<Value>) -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "lint-unit", "version": "1.0.0"},
        "protocolVersions": ["2025-06-18"],
        "tools": tools,
    })
}

/// A clean tool: described, titled, annotated, its one parameter described and required.
fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "title": "A tool",
        "description": format!("Does the {name} thing."),
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string", "description": "The id."}},
            "required": ["id"],
            "additionalProperties": false,
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false},
    })
}

fn with(mut t: Value, k: &str, v: Value) -> Value {
    t[k] = v;
    t
}

fn without(mut t: Value, k: &str) -> Value {
    if let Some(m) = t.as_object_mut() {
        m.shift_remove(k);
    }
    t
}

fn opts(hosts: &[&str], prefix: Option<&str>) -> LintOptions {
    LintOptions {
        hosts: hosts
            .iter()
            .map(|h| host(h).unwrap_or_else(|| panic!("no host {h}")))
            .collect(),
        server_prefix: prefix.map(String::from),
        ..Default::default()
    }
}

/// Every finding but the size note, as `SEVERITY CODE POINTER: MESSAGE`.
fn said(d: &Value, o: &LintOptions) -> Vec<String> {
    lint(d, o)
        .diagnostics
        .iter()
        .filter(|d| d.code != "tools-list-size")
        .map(|d| format!("{} {} {}: {}", d.severity, d.code, d.pointer, d.message))
        .collect()
}

#[track_caller]
fn expect(d: &Value, o: &LintOptions, want: &[&str]) {
    let got = said(d, o);
    assert_eq!(got, want, "\ngot:\n{}\n", got.join("\n"));
}

/// The provenance the messages of `host`'s facts matching `f` end with.
fn src(h: &str, f: impl Fn(&HostRule) -> bool) -> String {
    let p: &HostProfile = host(h).expect("host");
    let fact = p.facts.iter().find(|x| f(&x.rule)).expect("fact");
    format!(
        "{}, read {}, {}",
        fact.source,
        fact.read,
        fact.status.as_str()
    )
}

/// The exported tools/list text and one tool's text at REV (what a host receives).
fn exported(d: &Value) -> (String, Vec<String>) {
    let valid = mcpdesc_validate::Validator::new().check(d).expect("valid");
    let list = mcpdesc_scope::export_tools_list(&valid, REV).expect("export");
    let tools = list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(Value::to_string)
        .collect();
    (list.to_string(), tools)
}

#[test]
fn the_clean_tool_is_clean() {
    expect(&doc(vec![tool("a"), tool("b")]), &opts(&[], None), &[]);
}

#[test]
fn descriptions() {
    let o = opts(&[], None);
    expect(
        &doc(vec![without(tool("t"), "description")]),
        &o,
        &["warning tool-description-missing /tools/0: tool `t` has no description"],
    );
    expect(
        &doc(vec![with(tool("t"), "description", json!(" \n "))]),
        &o,
        &[
            "warning tool-description-missing /tools/0/description: tool `t` has an empty description",
        ],
    );
    expect(
        &doc(vec![with(tool("t"), "description", json!("Gets  it"))]),
        &o,
        &[
            "warning tool-description-short /tools/0/description: tool `t` has a description of 2 word(s), fewer than 3",
        ],
    );
    expect(
        &doc(vec![with(
            tool("t"),
            "description",
            json!("Gets the\trecord"),
        )]),
        &o,
        &[],
    );
    expect(
        &doc(vec![with(
            tool("t"),
            "description",
            json!("<p>Gets <b>one</b> record.</p>"),
        )]),
        &o,
        &[
            "warning html-in-description /tools/0/description: tool `t`: the description contains HTML markup",
        ],
    );
    expect(
        &doc(vec![with(tool("t"), "description", json!("<p>Gets</p>"))]),
        &o,
        &[
            "warning tool-description-short /tools/0/description: tool `t` has a description of 1 word(s), fewer than 3",
            "warning html-in-description /tools/0/description: tool `t`: the description contains HTML markup",
        ],
    );
    // Equal up to whitespace: the second is the duplicate, naming the first.
    let d = doc(vec![
        tool("a"),
        with(tool("b"), "description", json!("Does  the a\nthing.")),
        with(tool("c"), "description", json!("Does the a thing")),
    ]);
    expect(
        &d,
        &o,
        &[
            "warning tool-description-duplicate /tools/1/description: tool `b` has the same description as tool `a`",
        ],
    );
    // Two empty descriptions are missing, not duplicates.
    let d = doc(vec![
        with(tool("a"), "description", json!(" ")),
        with(tool("b"), "description", json!(" ")),
    ]);
    expect(
        &d,
        &o,
        &[
            "warning tool-description-missing /tools/0/description: tool `a` has an empty description",
            "warning tool-description-missing /tools/1/description: tool `b` has an empty description",
        ],
    );
}

#[test]
fn annotations() {
    let o = opts(&[], None);
    let ann = |a: Value| doc(vec![with(tool("t"), "annotations", a)]);
    expect(
        &ann(json!({"readOnlyHint": true, "destructiveHint": true})),
        &o,
        &[
            "error annotations-contradictory /tools/0/annotations: tool `t` declares readOnlyHint: true and destructiveHint: true",
        ],
    );
    expect(
        &ann(json!({"readOnlyHint": false, "destructiveHint": true})),
        &o,
        &[],
    );
    expect(
        &ann(json!({"readOnlyHint": true, "destructiveHint": false})),
        &o,
        &[],
    );
    let http = |method: &str, a: Option<Value>| {
        let mut t = with(
            tool("t"),
            "x-mcpdesc-openapi",
            json!({"method": method, "path": "/records/{id}", "arguments": {"id": {"in": "path"}}}),
        );
        match a {
            Some(a) => t["annotations"] = a,
            None => t = without(t, "annotations"),
        }
        doc(vec![t])
    };
    for m in ["POST", "PUT", "PATCH", "DELETE"] {
        expect(
            &http(m, None),
            &o,
            &[&format!(
                "warning write-annotations-missing /tools/0: tool `t` calls {m} /records/{{id}} but declares neither readOnlyHint nor destructiveHint"
            )],
        );
        expect(&http(m, Some(json!({"readOnlyHint": false}))), &o, &[]);
        expect(&http(m, Some(json!({"destructiveHint": true}))), &o, &[]);
    }
    for m in ["GET", "HEAD", "OPTIONS"] {
        expect(&http(m, None), &o, &[]);
    }
    // Hints that are not booleans are not declared.
    expect(
        &http("POST", Some(json!({"openWorldHint": true}))),
        &o,
        &[
            "warning write-annotations-missing /tools/0: tool `t` calls POST /records/{id} but declares neither readOnlyHint nor destructiveHint",
        ],
    );
}

#[test]
fn parameters() {
    let o = opts(&[], None);
    let schema = |s: Value| doc(vec![with(tool("t"), "inputSchema", s)]);
    expect(
        &schema(json!({
            "type": "object",
            "properties": {
                "a/b": {"type": "string"},
                "ref": {"$ref": "#/$defs/R"},
                "ok": {"type": "string", "description": "Fine."},
                "html": {"type": "string", "description": "The <code>id</code>."},
                "sort": {"type": "string", "description": "Order. One of: asc, desc."},
                "kind": {"type": "string", "description": "Possible values are a and b.", "enum": ["a", "b"]},
                "fixed": {"type": "string", "description": "Allowed values: x.", "const": "x"},
                "count": {"type": "integer", "description": "Must be either 1 or 2."},
                "nested": {"type": "object", "description": "Nested.", "properties": {
                    "mode": {"type": "string", "description": "It CAN BE EITHER on or off."}}},
            },
            "$defs": {"R": {"type": "string"}},
            "description": "The <b>arguments</b>.",
        })),
        &o,
        &[
            "info param-description-missing /tools/0/inputSchema/properties/a~1b: tool `t`: parameter `a/b` has no description",
            "warning html-in-description /tools/0/inputSchema/properties/html/description: tool `t`: a schema description contains HTML markup",
            "info enum-like-string /tools/0/inputSchema/properties/sort: tool `t`: a free string whose description lists its values; declare them as `enum`",
            "info enum-like-string /tools/0/inputSchema/properties/nested/properties/mode: tool `t`: a free string whose description lists its values; declare them as `enum`",
        ],
    );
    // Every phrase that lists values, in any case.
    for phrase in [
        "one of: a, b",
        "One of `a`, `b`",
        "one of \"a\"",
        "one of 'a'",
        "POSSIBLE VALUES: a",
        "Allowed values: a",
        "valid values: a",
        "must be either a or b",
        "can be either a or b",
    ] {
        expect(
            &schema(
                json!({"type": "object", "properties": {"s": {"type": "string", "description": phrase}}}),
            ),
            &o,
            &[
                "info enum-like-string /tools/0/inputSchema/properties/s: tool `t`: a free string whose description lists its values; declare them as `enum`",
            ],
        );
    }
    expect(
        &schema(
            json!({"type": "object", "properties": {"s": {"type": "string", "description": "One of the ids, or none."}}}),
        ),
        &o,
        &[],
    );
}

#[test]
fn budget_sizes_and_counts() {
    let d = doc(vec![tool("a"), tool("b")]);
    let (list, tools) = exported(&d);
    let size = |t: &str| format!("{} bytes, ~{} tokens", t.len(), estimate_tokens(t));
    let report = lint(&d, &opts(&[], None));
    let notes: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| format!("{} {} {}: {}", d.severity, d.code, d.pointer, d.message))
        .collect();
    assert_eq!(
        notes,
        [format!(
            "info tools-list-size : tools/list at 2025-06-18: 2 tools, {} (estimated tokens: see the README)",
            size(&list)
        )]
    );
    assert_eq!(report.sizes.len(), 1);
    assert_eq!(report.sizes[0].revision, REV);
    assert_eq!(
        report.sizes[0]
            .tools
            .iter()
            .map(|(n, s)| (n.as_str(), s.bytes, s.tokens))
            .collect::<Vec<_>>(),
        [
            ("a", tools[0].len(), estimate_tokens(&tools[0])),
            ("b", tools[1].len(), estimate_tokens(&tools[1]))
        ]
    );
    // At the budget is within it; one byte under is over.
    let mut o = opts(&[], None);
    o.budget = Some(tools[0].len());
    expect(&d, &o, &[]);
    o.budget = Some(tools[0].len() - 1);
    let b = tools[0].len() - 1;
    expect(
        &d,
        &o,
        &[
            &format!(
                "warning tool-over-budget /tools/0: tool `a` is {} as a host receives it at 2025-06-18, over the budget of {b} bytes (fitting the list to the host within the budget prunes it)",
                size(&tools[0])
            ),
            &format!(
                "warning tool-over-budget /tools/1: tool `b` is {} as a host receives it at 2025-06-18, over the budget of {b} bytes (fitting the list to the host within the budget prunes it)",
                size(&tools[1])
            ),
        ],
    );
    let mut o = opts(&[], None);
    o.max_tools = Some(2);
    expect(&d, &o, &[]);
    o.max_tools = Some(1);
    expect(
        &d,
        &o,
        &[&format!(
            "warning too-many-tools /tools: 2 tools at 2025-06-18, more than the maximum of 1; the list is ~{} tokens of the model's context",
            estimate_tokens(&list)
        )],
    );
}

/// `--discovery search`: the facade's start-up context against the direct list.
#[test]
fn facade_context() {
    let d = doc(vec![tool("a"), tool("b"), tool("c")]);
    let (list, _) = exported(&d);
    let mut o = opts(&[], None);
    o.discovery_search = true;
    let got = said(&d, &o);
    assert_eq!(got.len(), 1, "{got:?}");
    let direct = format!("{} bytes, ~{} tokens", list.len(), estimate_tokens(&list));
    let (head, tail) = got[0]
        .split_once(" (search_tools, describe_tools, call_tool for 3 tools); directly: ")
        .unwrap_or_else(|| panic!("{}", got[0]));
    assert_eq!(tail, direct);
    let facade = head
        .strip_prefix("info facade-context : with search discovery, tools/list at 2025-06-18 is ")
        .unwrap_or_else(|| panic!("{head}"));
    // Three facade tools with their schemas: more than a few hundred bytes, less than
    // the 6,000 bytes issue 21 allows.
    let bytes: usize = facade
        .split(' ')
        .next()
        .and_then(|b| b.parse().ok())
        .unwrap_or_else(|| panic!("{facade}"));
    assert!((1000..6000).contains(&bytes), "{facade}");
    assert!(facade.starts_with(&format!("{bytes} bytes, ~")), "{facade}");
}

/// Tool pointers point into the file at every revision, also when a revision's view
/// drops tools before them; a finding equal at several revisions is reported once.
#[test]
fn pointers_into_the_file_across_revisions() {
    let mut d = doc(vec![
        with(
            with(tool("new_only"), "protocolVersions", json!(["2025-11-25"])),
            "description",
            json!("Only new"),
        ),
        without(tool("both"), "description"),
    ]);
    d["protocolVersions"] = json!(["2025-06-18", "2025-11-25"]);
    let report = lint(&d, &opts(&[], None));
    let found: Vec<(String, String)> = report
        .diagnostics
        .iter()
        .map(|x| (x.code.clone(), x.pointer.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "tool-description-missing".to_string(),
                "/tools/1".to_string()
            ),
            ("tools-list-size".to_string(), String::new()),
            (
                "tool-description-short".to_string(),
                "/tools/0/description".to_string()
            ),
            ("tools-list-size".to_string(), String::new()),
        ]
    );
    assert_eq!(
        report
            .sizes
            .iter()
            .map(|s| (s.revision.as_str(), s.tools.len()))
            .collect::<Vec<_>>(),
        [("2025-06-18", 1), ("2025-11-25", 2)]
    );
}

#[test]
fn invalid_descriptions_get_the_validator_errors_only() {
    let d = json!({"mcpdesc": "0.8.0", "tools": [{"name": "t"}]});
    let report = lint(&d, &opts(&["kiro"], None));
    assert!(!report.diagnostics.is_empty());
    assert!(
        report
            .diagnostics
            .iter()
            .all(mcpdesc_core::Diagnostic::is_error)
    );
    assert!(report.diagnostics.iter().all(|d| !crate::is_rule(&d.code)));
    assert!(report.sizes.is_empty());
}

#[test]
fn allow_and_deny_act_on_their_rule_only() {
    let d = doc(vec![
        without(tool("t"), "description"),
        with(tool("u"), "description", json!("Two words")),
    ]);
    let mut o = opts(&[], None);
    o.deny = vec!["tool-description-short".into()];
    o.allow = vec!["tools-list-size".into()];
    let got: Vec<String> = lint(&d, &o)
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.severity, d.code))
        .collect();
    assert_eq!(
        got,
        [
            "warning tool-description-missing",
            "error tool-description-short"
        ]
    );
    assert!(crate::is_rule("host-strict-limit") && !crate::is_rule("strict-limit"));
}

#[test]
fn host_name_rules() {
    let name = |n: &str| doc(vec![tool(n)]);
    let len_src = |h: &str| src(h, |r| matches!(r, HostRule::NameMaxLen { .. }));
    let chars_src = |h: &str| src(h, |r| matches!(r, HostRule::NameChars(_)));
    // Kiro counts its `mcp_gh_` prefix: 57 + 7 = 64 is the limit.
    let o = opts(&["kiro"], Some("gh"));
    expect(&name(&"n".repeat(57)), &o, &[]);
    let n58 = "n".repeat(58);
    expect(
        &name(&n58),
        &o,
        &[&format!(
            "error host-name-too-long /tools/0/name: kiro: tool name `mcp_gh_{n58}` has 65 characters, the host allows 64 ({})",
            len_src("kiro")
        )],
    );
    expect(
        &name("get-record"),
        &o,
        &[&format!(
            "error host-name-chars /tools/0/name: kiro: tool name `get-record` does not match ^[a-zA-Z0-9_]+$ ({})",
            chars_src("kiro")
        )],
    );
    // ChatGPT does not count a prefix.
    let o = opts(&["chatgpt"], Some("gh"));
    expect(&name(&"n".repeat(64)), &o, &[]);
    let n65 = "n".repeat(65);
    expect(
        &name(&n65),
        &o,
        &[&format!(
            "error host-name-too-long /tools/0/name: chatgpt: tool name `{n65}` has 65 characters, the host allows 64 ({})",
            len_src("chatgpt")
        )],
    );
    expect(
        &name("records.get"),
        &o,
        &[&format!(
            "error host-name-chars /tools/0/name: chatgpt: tool name `records.get` does not match ^[a-zA-Z0-9_-]+$ ({})",
            chars_src("chatgpt")
        )],
    );
}

#[test]
fn host_name_rewrites() {
    let g = |r: &HostRule| matches!(r, HostRule::NameTruncated(_));
    let trunc_src = src("gemini-cli", g);
    let repl_src = src("gemini-cli", |r| {
        matches!(r, HostRule::NameCharsReplaced(_))
    });
    let o = opts(&["gemini-cli"], Some("gh"));
    // `mcp_gh_` + 56 = 63 is kept whole; + 57 = 64 is cut to the first 30, `...`, the last 30.
    expect(&doc(vec![tool(&"a".repeat(56))]), &o, &[]);
    let long = format!("{}{}", "a".repeat(27), "b".repeat(30));
    expect(
        &doc(vec![tool(&long)]),
        &o,
        &[&format!(
            "warning host-name-truncated /tools/0/name: gemini-cli: tool name `mcp_gh_{long}` is longer than 63 characters; the host truncates it to `mcp_gh_{}...{}` ({trunc_src})",
            "a".repeat(23),
            "b".repeat(30)
        )],
    );
    expect(
        &doc(vec![tool("records/get"), tool("records_get")]),
        &o,
        &[
            &format!(
                "warning host-name-rewritten /tools/0/name: gemini-cli: tool name `records/get` has characters outside ^[a-zA-Z0-9_.:-]+$; the host replaces them with `_` and registers `mcp_gh_records_get` ({repl_src})"
            ),
            &format!(
                "error host-name-collision /tools/1/name: gemini-cli: tools `records/get` and `records_get` are both registered as `mcp_gh_records_get` at 2025-06-18; the host's model reaches one of them ({trunc_src})"
            ),
        ],
    );
    // Without the host, names are not rewritten, so nothing collides.
    expect(
        &doc(vec![tool("records/get"), tool("records_get")]),
        &opts(&[], Some("gh")),
        &[],
    );
}

#[test]
fn host_title_annotations_and_schema_rules() {
    let dir = "claude-directory";
    let title_src = src(dir, |r| matches!(r, HostRule::RequiresTitle));
    let ann_src = src(dir, |r| matches!(r, HostRule::RequiresAnnotations(_)));
    let o = opts(&[dir], None);
    expect(&doc(vec![tool("t")]), &o, &[]);
    expect(
        &doc(vec![without(tool("t"), "title")]),
        &o,
        &[&format!(
            "error host-title-missing /tools/0: claude-directory: tool `t` has no title ({title_src})"
        )],
    );
    expect(
        &doc(vec![with(
            without(tool("t"), "title"),
            "annotations",
            json!({"readOnlyHint": true, "title": "T"}),
        )]),
        &o,
        &[],
    );
    expect(
        &doc(vec![with(tool("t"), "title", json!("  "))]),
        &o,
        &[&format!(
            "error host-title-missing /tools/0: claude-directory: tool `t` has no title ({title_src})"
        )],
    );
    expect(
        &doc(vec![with(
            tool("t"),
            "annotations",
            json!({"openWorldHint": true}),
        )]),
        &o,
        &[&format!(
            "error host-annotations-missing /tools/0: claude-directory: tool `t` lacks readOnlyHint, destructiveHint; the host requires one of them ({ann_src})"
        )],
    );
    expect(
        &doc(vec![with(
            tool("t"),
            "annotations",
            json!({"destructiveHint": false}),
        )]),
        &o,
        &[],
    );
    let all_src = src("chatgpt", |r| matches!(r, HostRule::RequiresAnnotations(_)));
    expect(
        &doc(vec![with(
            tool("t"),
            "annotations",
            json!({"destructiveHint": false}),
        )]),
        &opts(&["chatgpt"], None),
        &[&format!(
            "error host-annotations-missing /tools/0: chatgpt: tool `t` lacks readOnlyHint, openWorldHint; the host requires every one of them ({all_src})"
        )],
    );
    let union_src = src("claude-code", |r| matches!(r, HostRule::NoTopLevelUnion));
    expect(
        &doc(vec![with(
            tool("t"),
            "inputSchema",
            json!({"type": "object", "anyOf": [{"required": ["a"]}], "oneOf": [{"required": ["b"]}], "properties": {"a": {"type": "string", "description": "A."}, "b": {"type": "string", "description": "B."}}}),
        )]),
        &opts(&["claude-code"], None),
        &[
            &format!(
                "error host-top-level-union /tools/0/inputSchema/anyOf: claude-code: tool `t` has `anyOf` at the top level of inputSchema ({union_src})"
            ),
            &format!(
                "error host-top-level-union /tools/0/inputSchema/oneOf: claude-code: tool `t` has `oneOf` at the top level of inputSchema ({union_src})"
            ),
        ],
    );
    let ref_src = src("gemini-cli", |r| matches!(r, HostRule::NoRef));
    expect(
        &doc(vec![with(
            tool("t"),
            "inputSchema",
            json!({"type": "object", "properties": {
                "a": {"type": "string", "description": "A."},
                "b": {"$ref": "#/$defs/B"},
                "c": {"$ref": "#/$defs/B"}},
                "$defs": {"B": {"type": "string"}}}),
        )]),
        &opts(&["gemini-cli"], None),
        &[&format!(
            "error host-schema-ref /tools/0/inputSchema/properties/b/$ref: gemini-cli: tool `t` uses `$ref` in inputSchema; the host does not resolve it ({ref_src})"
        )],
    );
}

#[test]
fn host_counts() {
    let many = |n: usize| doc((0..n).map(|i| tool(&format!("t{i}"))).collect());
    let cursor = src("cursor", |r| matches!(r, HostRule::MaxTools(_)));
    expect(&many(40), &opts(&["cursor"], None), &[]);
    expect(
        &many(41),
        &opts(&["cursor"], None),
        &[&format!(
            "warning host-too-many-tools /tools: cursor: 41 tools at 2025-06-18, the host sends at most 40 ({cursor})"
        )],
    );
    // Claude Code's 20,000-token budget for the tool definitions.
    let words = |n: usize| vec!["word"; n].join(" ");
    let big = doc(vec![with(tool("t"), "description", json!(words(21_000)))]);
    let (list, tools) = exported(&big);
    let tokens = estimate_tokens(&list);
    assert!(tokens > 20_000, "{tokens}");
    let budget = src("claude-code", |r| matches!(r, HostRule::ListTokenBudget(_)));
    expect(
        &big,
        &opts(&["claude-code"], None),
        &[
            &format!(
                "warning tool-over-budget /tools/0: tool `t` is {} bytes, ~{} tokens as a host receives it at 2025-06-18, over the budget of 32768 bytes (fitting the list to the host within the budget prunes it)",
                tools[0].len(),
                estimate_tokens(&tools[0])
            ),
            &format!(
                "warning tools-list-over-budget /tools: claude-code: tools/list at 2025-06-18 is ~{tokens} tokens, over the host's 20000 ({budget})"
            ),
        ],
    );
    // Exactly at the budget passes, one token over does not: n words cost n tokens
    // plus what the rest of the list costs.
    let at = |n: usize| doc(vec![with(tool("t"), "description", json!(words(n)))]);
    let rest = estimate_tokens(&exported(&at(1)).0) - 1;
    let list_budget = |n: usize| {
        said(&at(n), &opts(&["claude-code"], None))
            .into_iter()
            .filter(|l| l.contains("tools-list-over-budget"))
            .count()
    };
    assert_eq!(estimate_tokens(&exported(&at(20_000 - rest)).0), 20_000);
    assert_eq!(list_budget(20_000 - rest), 0);
    assert_eq!(list_budget(20_001 - rest), 1);
}

/// OpenAI strict mode: what the Agents SDK must rewrite, and the limits (at the limit
/// passes, one over fails).
#[test]
fn host_strict_mode() {
    let strict = src("openai-strict", |r| matches!(r, HostRule::Strict(_)));
    let mut o = opts(&["openai-strict"], None);
    // Large schemas on purpose: only the strict-mode rules are under test.
    o.budget = Some(usize::MAX);
    let schema = |s: Value| doc(vec![with(tool("t"), "inputSchema", s)]);
    let b = "/tools/0/inputSchema";
    expect(
        &schema(json!({"type": "object", "properties": {
            "a": {"type": "string", "description": "A."},
            "b": {"type": "string", "description": "B."},
            "k": {"description": "K.", "oneOf": [{"type": "string"}, {"type": "integer"}]},
            "r": {"description": "R.", "$ref": "#/$defs/R"},
            "o": {"description": "O.", "properties": {"x": {"type": "string", "description": "X."}}, "required": ["x"]},
            "bare": {"$ref": "#/$defs/R"}},
            "required": ["a", "k", "r", "o", "bare"],
            "$defs": {"R": {"type": "string"}}})),
        &o,
        &[
            &format!(
                "error host-strict-object {b}: openai-strict: tool `t`: an object without `additionalProperties: false` ({strict})"
            ),
            &format!(
                "error host-strict-object {b}: openai-strict: tool `t`: optional properties b; strict mode requires every property ({strict})"
            ),
            &format!(
                "error host-strict-object {b}/properties/k: openai-strict: tool `t`: `oneOf`; strict mode takes `anyOf` only ({strict})"
            ),
            &format!(
                "error host-strict-object {b}/properties/r: openai-strict: tool `t`: `$ref` with sibling keywords; strict mode takes a bare `$ref` ({strict})"
            ),
            &format!(
                "error host-strict-object {b}/properties/o: openai-strict: tool `t`: an object without `additionalProperties: false` ({strict})"
            ),
        ],
    );
    // Depth: 10 nested objects below the root pass, 11 fail.
    let nested = |levels: usize| {
        let mut s = json!({"type": "string", "description": "Leaf."});
        for _ in 0..levels {
            s = json!({"type": "object", "description": "Level.", "properties": {"n": s}, "required": ["n"], "additionalProperties": false});
        }
        s
    };
    expect(&schema(nested(10)), &o, &[]);
    expect(
        &schema(nested(11)),
        &o,
        &[&format!(
            "error host-strict-limit {b}: openai-strict: tool `t`: 11 schema nesting depth, over the limit of 10 ({strict})"
        )],
    );
    let enums = |n: usize| {
        json!({"type": "object", "properties": {
            "e": {"type": "string", "description": "E.", "enum": (0..n).map(|i| format!("v{i}")).collect::<Vec<_>>()}},
            "required": ["e"], "additionalProperties": false})
    };
    expect(&schema(enums(1000)), &o, &[]);
    expect(
        &schema(enums(1001)),
        &o,
        &[&format!(
            "error host-strict-limit {b}: openai-strict: tool `t`: 1001 enum values, over the limit of 1000 ({strict})"
        )],
    );
    let props = |n: usize| {
        let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
        let mut m = serde_json::Map::new();
        for p in &names {
            m.insert(p.clone(), json!({"type": "integer", "description": "P."}));
        }
        json!({"type": "object", "properties": m, "required": names, "additionalProperties": false})
    };
    expect(&schema(props(5000)), &o, &[]);
    expect(
        &schema(props(5001)),
        &o,
        &[&format!(
            "error host-strict-limit {b}: openai-strict: tool `t`: 5001 object properties, over the limit of 5000 ({strict})"
        )],
    );
}

/// The schema walk: every subschema once, pre-order, with its pointer and depth;
/// `items` as one schema or a list; non-schema values skipped.
#[test]
fn schema_walk() {
    let s = json!({
        "type": "object",
        "properties": {"a": {"items": {"type": "string"}}, "b/c": {"anyOf": [{}, {"not": {}}]}},
        "additionalProperties": true,
        "items": [{"x": 1}],
        "$defs": {"D": {"if": {}, "then": {}}},
        "enum": [{"type": "string"}],
    });
    let got: Vec<(String, usize)> = mcpdesc_hosts::schema::walk(&s, "/r")
        .into_iter()
        .map(|(p, d, _)| (p, d))
        .collect();
    let want: Vec<(String, usize)> = [
        ("/r", 0),
        ("/r/properties/a", 1),
        ("/r/properties/a/items", 2),
        ("/r/properties/b~1c", 1),
        ("/r/properties/b~1c/anyOf/0", 2),
        ("/r/properties/b~1c/anyOf/1", 2),
        ("/r/properties/b~1c/anyOf/1/not", 3),
        ("/r/items/0", 1),
        ("/r/$defs/D", 1),
        ("/r/$defs/D/if", 2),
        ("/r/$defs/D/then", 2),
    ]
    .iter()
    .map(|(p, d)| (p.to_string(), *d))
    .collect();
    assert_eq!(got, want);
    assert!(mcpdesc_hosts::schema::walk(&json!(true), "").len() == 1);
    let mut v = json!({"a": [{"b": 1}]});
    let toks = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        mcpdesc_hosts::schema::get_mut(&mut v, &toks(&["a", "0", "b"])).cloned(),
        Some(json!(1))
    );
    assert!(mcpdesc_hosts::schema::get_mut(&mut v, &toks(&["a", "1"])).is_none());
    assert!(mcpdesc_hosts::schema::get_mut(&mut v, &toks(&["a", "x"])).is_none());
    assert!(mcpdesc_hosts::schema::get_mut(&mut v, &toks(&["a", "0", "b", "c"])).is_none());
    assert_eq!(
        mcpdesc_hosts::schema::get_mut(&mut v, &[]).cloned(),
        Some(json!({"a": [{"b": 1}]}))
    );
}

#[test]
fn html_markup_and_text() {
    use mcpdesc_hosts::{has_html, html_to_text};
    for yes in [
        "<br>",
        "a<br/>b",
        "<BR>",
        "x</p>",
        "<pre\n>",
        "<a href=\"x\">y</a>",
        "<td\t>",
    ] {
        assert!(has_html(yes), "{yes:?}");
    }
    for no in [
        "<p",
        "<px>",
        "<p-x>",
        "<custom>",
        "a < b > c",
        "<>",
        "<",
        "</>",
    ] {
        assert!(!has_html(no), "{no:?}");
    }
    assert_eq!(
        html_to_text("<h2>Title</h2>Body<br>next<hr/>end"),
        "Title\nBody\nnext\nend"
    );
    assert_eq!(html_to_text("<p>a</p><p></p><p>b</p>"), "a\n\nb");
    assert_eq!(html_to_text("a  <br>  b  "), "a\n  b");
    assert_eq!(
        html_to_text("<ol><li>x</li><li>y</li></ol>z"),
        "- x\n- y\nz"
    );
    assert_eq!(
        html_to_text("&lt;&gt;&quot;&apos;&nbsp;&#X41;&#x42;&#67;|&#x;&#abc;&verylongentity;&amp"),
        "<>\"' ABC|&#x;&#abc;&verylongentity;&amp"
    );
    assert_eq!(
        html_to_text("<table><tr><td>1</td></tr></table><blockquote>q</blockquote>"),
        "1\n\nq"
    );
    assert_eq!(html_to_text("<div>é</div><span>ü</span>"), "é\nü");
    assert_eq!(html_to_text("a <custom> b"), "a <custom> b");
}

/// The estimator's charges (module docs), counted by hand.
#[test]
fn token_estimates_by_hand() {
    let cases: [(&str, usize); 21] = [
        ("abcdef", 1),           // one sub-word of 6 letters: 20
        ("abcdefg", 2),          // 7 letters: 25
        ("abcdefghij", 2),       // 10 letters: 40
        ("ABCdef", 2),           // AB + Cdef: 40
        ("ABc", 2),              // A + Bc: 40
        ("Ab", 1),               // one word: 20
        ("AB", 1),               // a capital run: 20
        ("ABCDEFGH", 2),         // one capital run of 8: 30
        ("123", 2),              // one group: 35
        ("1234", 4),             // two groups: 70
        ("日本", 2),             // two characters: 40
        ("_ \n\t", 0),           // free
        (".", 1),                // 6
        ("....", 2),             // 24
        ("a.b", 3),              // 20 + 6 + 20 = 46
        ("aB1", 4),              // a + B + 1 group: 20 + 20 + 35 = 75
        ("a123", 3),             // a + one group: 55
        ("ABCDEFGHIJKLmn..", 4), // ABCDEFGHIJK (45) + Lmn (20) + 12 = 77
        ("abcdefgABc", 4),       // abcdefg (25) + A + Bc = 65
        ("abABCDEFGHIJc", 4),    // ab + ABCDEFGHI (35) + Jc = 75
        ("abABCDEFGHIJ", 3),     // ab + a capital run of 10 (40) = 60
    ];
    for (text, tokens) in cases {
        assert_eq!(estimate_tokens(text), tokens, "{text:?}");
    }
    // {"a":1}: 5 punctuation (30) + a (20) + 1 (35) = 85 → 5.
    let s = mcpdesc_hosts::Size::of(&json!({"a": 1}));
    assert_eq!((s.bytes, s.tokens), (7, 5));
    assert_eq!(s.to_string(), "7 bytes, ~5 tokens");
}
