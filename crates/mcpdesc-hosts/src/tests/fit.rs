use crate::{FitOptions, Fitted, fit_tools_list, host};
use mcpdesc_core::ProtocolRevision;
use serde_json::{Value, json};

const REV: ProtocolRevision = ProtocolRevision::V2026_07_28;

/// A tool every host accepts as is (titled, annotated, a short plain name).
fn tool(name: &str, input: Value) -> Value {
    json!({
        "name": name,
        "title": "A tool",
        "description": "Gets one thing by id.",
        "inputSchema": input,
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false}
    })
}

fn fit(host_id: Option<&str>, budget: Option<usize>, tools: Vec<Value>) -> Fitted {
    let opts = FitOptions {
        host: host_id.map(|h| host(h).expect("a host of the table")),
        server_prefix: Some("gh"),
        budget,
    };
    fit_tools_list(json!({ "tools": tools }), REV, &opts)
}

/// (code, pointer, message) of every diagnostic.
fn said(f: &Fitted) -> Vec<(String, String, String)> {
    f.diagnostics
        .iter()
        .map(|d| (d.code.clone(), d.pointer.clone(), d.message.clone()))
        .collect()
}

fn one(code: &str, ptr: &str, msg: &str) -> Vec<(String, String, String)> {
    vec![(code.to_string(), ptr.to_string(), msg.to_string())]
}

fn tools(f: &Fitted) -> &Vec<Value> {
    f.tools_list["tools"].as_array().expect("tools")
}

#[test]
fn nothing_to_do_leaves_the_list_as_it_is() {
    let t = tool(
        "get_user",
        json!({"type": "object", "properties": {"id": {"type": "string", "description": "<b>x</b>"}}}),
    );
    // No host and no budget: nothing is rewritten, not even HTML.
    let f = fit(None, None, vec![t.clone()]);
    assert_eq!(f.tools_list, json!({ "tools": [t.clone()] }));
    assert!(f.diagnostics.is_empty() && f.renames.is_empty());
    // A host whose rules the tool meets.
    let clean = tool(
        "get_user",
        json!({"type": "object", "additionalProperties": false}),
    );
    for h in crate::host_ids() {
        let f = fit(Some(h), None, vec![clean.clone()]);
        assert_eq!(f.tools_list, json!({ "tools": [clean.clone()] }), "{h}");
        assert!(f.diagnostics.is_empty(), "{h}: {:?}", said(&f));
    }
}

#[test]
fn html_descriptions_are_rendered_to_text_and_counted() {
    let mut t = tool(
        "get_user",
        json!({"type": "object",
               "properties": {"id": {"type": "string", "description": "The <code>id</code>."},
                              "n": {"type": "integer", "description": "plain"}}}),
    );
    t["description"] = json!("<p>Gets a <b>user</b> &amp; more.</p>");
    t["outputSchema"] = json!({"type": "object", "description": "A <em>user</em>."});
    let f = fit(Some("chatgpt"), None, vec![t]);
    let out = &tools(&f)[0];
    assert_eq!(out["description"], "Gets a user & more.");
    assert_eq!(
        out["inputSchema"]["properties"]["id"]["description"],
        "The id."
    );
    assert_eq!(
        out["inputSchema"]["properties"]["n"]["description"],
        "plain"
    );
    assert_eq!(out["outputSchema"]["description"], "A user.");
    assert_eq!(
        said(&f),
        one(
            "fit-html-rendered",
            "/tools/0",
            "tool `get_user`: 3 description(s) rendered from HTML to plain text"
        )
    );
}

#[test]
fn refs_are_inlined_where_the_host_does_not_resolve_them() {
    let t = tool(
        "get_user",
        json!({"type": "object",
               "properties": {
                   "a": {"$ref": "#/$defs/A"},
                   "b": {"$ref": "#/$defs/A", "description": "same type, described"},
                   "c": {"$ref": "#/$defs/A", "type": "integer"},
                   "d": {"type": "array", "items": {"$ref": "#/$defs/B"}}
               },
               "$defs": {"A": {"type": "string"}, "B": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}}),
    );
    let f = fit(Some("gemini-cli"), None, vec![t.clone()]);
    assert_eq!(
        tools(&f)[0]["inputSchema"],
        json!({"type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string", "description": "same type, described"},
            "c": {"type": "integer", "allOf": [{"type": "string"}]},
            "d": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}}
        }})
    );
    assert_eq!(
        said(&f),
        one(
            "fit-ref-inlined",
            "/tools/0/inputSchema",
            "tool `get_user`: every `$ref` of inputSchema inlined, `$defs` removed"
        )
    );
    // A host that resolves `$ref` keeps them.
    let f = fit(Some("chatgpt"), None, vec![t.clone()]);
    assert_eq!(tools(&f)[0]["inputSchema"], t["inputSchema"]);
    // A recursive or unresolvable `$ref` cannot be inlined.
    let cyclic = tool(
        "walk",
        json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}},
               "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}}),
    );
    let f = fit(Some("gemini-cli"), None, vec![cyclic.clone()]);
    assert_eq!(
        said(&f),
        one(
            "fit-ref-cycle",
            "/tools/0/inputSchema",
            "tool `walk`: inputSchema: `$ref` #/$defs/Node is recursive (#/$defs/Node → #/$defs/Node); it cannot be inlined"
        )
    );
    assert_eq!(tools(&f)[0], cyclic, "left as it was");
    let dangling = tool(
        "get",
        json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Gone"}}, "$defs": {}}),
    );
    let f = fit(Some("gemini-cli"), None, vec![dangling]);
    assert_eq!(
        f.diagnostics
            .iter()
            .filter(|d| d.code == "tool-schema-ref-unresolved")
            .map(|d| (d.pointer.as_str(), d.message.as_str()))
            .collect::<Vec<_>>(),
        [(
            "/tools/0/inputSchema",
            "tool `get`: inputSchema: `$ref` \"#/$defs/Gone\" does not resolve inside its schema"
        )]
    );
}

#[test]
fn a_top_level_union_is_lifted_only_when_equivalent() {
    let f = fit(
        Some("claude-directory"),
        None,
        vec![tool(
            "make",
            json!({"type": "object", "required": ["a"],
            "allOf": [
                {"properties": {"a": {"type": "string"}}, "required": ["a", "b"]},
                {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "string"}}}
            ]}),
        )],
    );
    assert_eq!(
        tools(&f)[0]["inputSchema"],
        json!({"type": "object", "required": ["a", "b"],
               "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})
    );
    assert_eq!(
        said(&f),
        one(
            "fit-union-lifted",
            "/tools/0/inputSchema",
            "tool `make`: top-level `allOf` of 2 branch(es) merged into the root (equivalent: disjoint keywords)"
        )
    );
    // `anyOf` of one branch is that branch.
    let f = fit(
        Some("claude-code"),
        None,
        vec![tool(
            "make",
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}]}),
        )],
    );
    assert_eq!(
        tools(&f)[0]["inputSchema"],
        json!({"type": "object", "properties": {"a": {"type": "string"}}})
    );
    // Not equivalent: a choice, a conflict, a keyword whose meaning needs its siblings.
    for (input, key, n) in [
        (
            json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}),
            "oneOf",
            2,
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"properties": {"a": {"type": "integer"}}}]}),
            "allOf",
            1,
        ),
        (
            json!({"type": "object", "allOf": [{"type": "object", "additionalProperties": false}]}),
            "allOf",
            1,
        ),
        (
            json!({"type": "object", "additionalProperties": false, "allOf": [{"properties": {"a": {}}}]}),
            "allOf",
            1,
        ),
        (
            json!({"type": "object", "allOf": [{"type": "array"}]}),
            "allOf",
            1,
        ),
        (json!({"type": "object", "allOf": [true]}), "allOf", 1),
        (
            json!({"type": "object", "required": ["a"], "allOf": [{"required": "b"}]}),
            "allOf",
            1,
        ),
        (
            json!({"type": "object", "properties": {}, "allOf": [{"properties": []}]}),
            "allOf",
            1,
        ),
    ] {
        let t = tool("make", input.clone());
        let f = fit(Some("claude-code"), None, vec![t]);
        let errors: Vec<(String, String, String)> = said(&f)
            .into_iter()
            .filter(|d| d.0 == "fit-union-not-liftable")
            .collect();
        assert_eq!(
            errors,
            one(
                "fit-union-not-liftable",
                &format!("/tools/0/inputSchema/{key}"),
                &format!(
                    "tool `make`: top-level `{key}` of {n} branches has no equivalent schema without it; the host rejects the tool"
                )
            ),
            "{input}"
        );
        assert_eq!(tools(&f)[0]["inputSchema"], input, "left as it was");
    }
}

#[test]
fn strict_mode_refuses_what_it_would_have_to_change() {
    let closed = json!({"type": "object", "properties": {"a": {"type": "string"}},
                        "required": ["a"], "additionalProperties": false});
    let f = fit(Some("openai-strict"), None, vec![tool("get", closed)]);
    assert!(f.diagnostics.is_empty(), "{:?}", said(&f));
    let f = fit(
        Some("openai-strict"),
        None,
        vec![tool("get", json!({"type": "object"}))],
    );
    assert_eq!(
        said(&f),
        one(
            "fit-strict-not-liftable",
            "/tools/0/inputSchema",
            "tool `get`: inputSchema is not strict-mode compatible (1 finding(s), first at the root); making optional properties required or closing objects would change what the tool accepts"
        )
    );
    let f = fit(
        Some("openai-strict"),
        None,
        vec![tool(
            "get",
            json!({"type": "object", "properties": {"a": {"type": "object", "oneOf": [{}]}},
                   "required": ["a"], "additionalProperties": false}),
        )],
    );
    assert_eq!(
        f.diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect::<Vec<_>>(),
        [
            "tool `get`: inputSchema is not strict-mode compatible (2 finding(s), first at /properties/a); making optional properties required or closing objects would change what the tool accepts"
        ]
    );
}

#[test]
fn missing_titles_and_annotations_are_reported_never_invented() {
    let mut t = tool("get", json!({"type": "object"}));
    t.as_object_mut().expect("tool").remove("title");
    t["annotations"] = json!({"readOnlyHint": true});
    let f = fit(Some("claude-directory"), None, vec![t.clone()]);
    assert_eq!(
        said(&f),
        one(
            "fit-title-missing",
            "/tools/0",
            "tool `get` has no title, which claude-directory requires; left missing (never invented)"
        )
    );
    assert_eq!(tools(&f)[0], t);
    // annotations.title counts as a title.
    let mut titled = t.clone();
    titled["annotations"]["title"] = json!("Get");
    assert!(
        fit(Some("claude-directory"), None, vec![titled])
            .diagnostics
            .is_empty()
    );
    // ChatGPT wants all three hints; the directory one of two.
    let f = fit(Some("chatgpt"), None, vec![t.clone()]);
    assert_eq!(
        said(&f),
        one(
            "fit-annotations-missing",
            "/tools/0",
            "tool `get` lacks annotations chatgpt requires; left missing (never invented)"
        )
    );
    let mut bare = tool("get", json!({"type": "object"}));
    bare.as_object_mut().expect("tool").remove("annotations");
    let f = fit(Some("claude-directory"), None, vec![bare.clone()]);
    assert_eq!(
        said(&f),
        one(
            "fit-annotations-missing",
            "/tools/0",
            "tool `get` lacks annotations claude-directory requires; left missing (never invented)"
        )
    );
    // A hint must be a boolean to count.
    bare["annotations"] = json!({"destructiveHint": "yes"});
    let f = fit(Some("claude-directory"), None, vec![bare]);
    assert_eq!(
        f.diagnostics
            .iter()
            .filter(|d| d.code == "fit-annotations-missing")
            .count(),
        1
    );
}

#[test]
fn names_a_host_rejects_or_truncates_are_renamed_and_mapped_back() {
    let long = "a".repeat(60);
    let ok = tool("get_user", json!({"type": "object"}));
    // claude-code counts `mcp__gh__` (9 characters): 55 are left for the name.
    let f = fit(
        Some("claude-code"),
        None,
        vec![
            ok.clone(),
            tool(&long, json!({"type": "object"})),
            tool("repos.get", json!({"type": "object"})),
        ],
    );
    let names: Vec<&str> = tools(&f)
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names[0], "get_user", "an acceptable name is kept");
    for (i, n) in names.iter().enumerate().skip(1) {
        assert!(n.len() <= 55, "{n}");
        assert!(
            n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{n}"
        );
        assert_ne!(*n, "get_user");
        let old = if i == 1 { long.as_str() } else { "repos.get" };
        assert_eq!(f.renames.get(*n).map(String::as_str), Some(old));
    }
    assert_eq!(f.renames.len(), 2);
    assert_eq!(
        said(&f),
        vec![
            (
                "fit-renamed".to_string(),
                "/tools/1/name".to_string(),
                format!(
                    "tool `{long}` renamed `{}` for claude-code (names up to 55 characters matching ^[a-zA-Z0-9_-]+$); calls of `{}` go to `{long}`",
                    names[1], names[1]
                )
            ),
            (
                "fit-renamed".to_string(),
                "/tools/2/name".to_string(),
                format!(
                    "tool `repos.get` renamed `{}` for claude-code (names up to 55 characters matching ^[a-zA-Z0-9_-]+$); calls of `{}` go to `repos.get`",
                    names[2], names[2]
                )
            ),
        ]
    );
    // Exactly at the limit: kept.
    let at = "b".repeat(55);
    let f = fit(
        Some("claude-code"),
        None,
        vec![tool(&at, json!({"type": "object"}))],
    );
    assert!(
        f.renames.is_empty() && f.diagnostics.is_empty(),
        "{:?}",
        said(&f)
    );
    // Gemini CLI truncates past 63 with `mcp_gh_` (7) in front: 56 are left, and the
    // characters it would replace are renamed too.
    let f = fit(
        Some("gemini-cli"),
        None,
        vec![
            tool(&"c".repeat(57), json!({"type": "object"})),
            tool("a/b", json!({"type": "object"})),
            tool(&"d".repeat(56), json!({"type": "object"})),
        ],
    );
    let names: Vec<&str> = tools(&f)
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert!(
        names[0].len() <= 56 && names[0] != "c".repeat(57),
        "{}",
        names[0]
    );
    assert!(!names[1].contains('/'), "{}", names[1]);
    assert_eq!(names[2], "d".repeat(56));
    assert_eq!(f.renames.len(), 2);
    assert!(
        f.diagnostics[1]
            .message
            .contains("(names up to 56 characters matching ^[a-zA-Z0-9_.:-]+$)"),
        "{:?}",
        said(&f)
    );
    // Hosts without name rules rename nothing.
    let f = fit(
        Some("cursor"),
        None,
        vec![tool("a.b", json!({"type": "object"}))],
    );
    assert!(f.renames.is_empty());
}

/// The compact JSON length of `v` (serde's serializer, not the code under test).
fn bytes(v: &Value) -> usize {
    serde_json::to_string(v).expect("serializes").len()
}

fn stub(bytes: usize, budget: usize) -> Value {
    json!({"description": format!("pruned by mcpdesc to fit a {budget}-byte tool budget: a subschema of {bytes} bytes was cut")})
}

#[test]
fn output_schemas_are_pruned_deepest_first_to_the_budget() {
    let long = "x".repeat(400);
    let deep = json!({"type": "string", "description": long});
    let mut t = tool("get", json!({"type": "object"}));
    t["outputSchema"] = json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b": deep.clone()}},
        "s": {"type": "string"}
    }});
    let before = bytes(&t);
    let budget = before - 100;
    let f = fit(None, Some(budget), vec![t.clone()]);
    let mut want = t.clone();
    want["outputSchema"]["properties"]["a"]["properties"]["b"] = stub(bytes(&deep), budget);
    assert_eq!(tools(&f)[0], want);
    assert!(bytes(&want) <= budget);
    assert_eq!(
        said(&f),
        one(
            "fit-pruned-output",
            "/tools/0/outputSchema",
            &format!(
                "tool `get`: outputSchema cut at depth 2: 1 subschema(s) replaced by {{}} with a description; tool {before} → {} bytes",
                bytes(&want)
            )
        )
    );
    // Within the budget: untouched.
    let f = fit(None, Some(before), vec![t.clone()]);
    assert_eq!(tools(&f)[0], t);
    assert!(f.diagnostics.is_empty());
    // Unreachable `$defs` go when their `$ref`s are cut.
    let mut t = tool("get", json!({"type": "object"}));
    t["outputSchema"] = json!({"type": "object",
        "properties": {
            "a": {"type": "object", "description": long, "properties": {"b": {"$ref": "#/$defs/Big"}}},
            "k": {"$ref": "#/$defs/Keep"}
        },
        "$defs": {"Big": deep.clone(), "Keep": {"type": "integer"}}});
    let before = bytes(&t);
    let budget = before - 300;
    let f = fit(None, Some(budget), vec![t.clone()]);
    let out = &tools(&f)[0]["outputSchema"];
    assert_eq!(out["$defs"], json!({"Keep": {"type": "integer"}}));
    assert_eq!(
        out["properties"]["a"],
        stub(bytes(&t["outputSchema"]["properties"]["a"]), budget)
    );
    assert_eq!(
        said(&f),
        one(
            "fit-pruned-output",
            "/tools/0/outputSchema",
            &format!(
                "tool `get`: outputSchema cut at depth 1: 2 subschema(s) replaced by {{}} with a description, unreachable $defs dropped: Big; tool {before} → {} bytes",
                bytes(&tools(&f)[0])
            )
        )
    );
}

#[test]
fn input_defs_are_pruned_but_the_root_is_never_cut() {
    let long = "y".repeat(400);
    let big =
        json!({"type": "object", "properties": {"note": {"type": "string", "description": long}}});
    let t = tool(
        "put",
        json!({"type": "object", "required": ["v"],
               "properties": {"v": {"$ref": "#/$defs/V"}},
               "$defs": {"V": big.clone()}}),
    );
    let before = bytes(&t);
    let budget = before - 200;
    let f = fit(None, Some(budget), vec![t.clone()]);
    let mut want = t.clone();
    let note = &big["properties"]["note"];
    want["inputSchema"]["$defs"]["V"]["properties"]["note"] = stub(bytes(note), budget);
    assert_eq!(tools(&f)[0], want);
    assert_eq!(
        said(&f),
        one(
            "fit-pruned-input-defs",
            "/tools/0/inputSchema",
            &format!(
                "tool `put`: inputSchema $defs cut at depth 2: 1 subschema(s) replaced by {{}} with a description (accepting more, never fewer, arguments; required properties kept); tool {before} → {} bytes",
                bytes(&want)
            )
        )
    );
    // A root that alone is over the budget: an error, the properties kept.
    let fat = tool(
        "put",
        json!({"type": "object", "properties": {"v": {"type": "string", "description": long}}}),
    );
    let before = bytes(&fat);
    let f = fit(None, Some(100), vec![fat.clone()]);
    assert_eq!(tools(&f)[0], fat);
    assert_eq!(
        said(&f),
        one(
            "fit-over-budget",
            "/tools/0",
            &format!(
                "tool `put` is {before} bytes after pruning (was {before}), over the budget of 100 bytes: its input schema outside $defs is that large"
            )
        )
    );
    // With a host and no budget, mcpdesc's default budget applies.
    let huge = tool(
        "put",
        json!({"type": "object", "properties": {"v": {"type": "string", "description": "z".repeat(crate::DEFAULT_TOOL_BUDGET_BYTES)}}}),
    );
    let f = fit(Some("cursor"), None, vec![huge]);
    assert_eq!(f.diagnostics[0].code, "fit-over-budget");
    assert!(
        f.diagnostics[0].message.ends_with(&format!(
            "over the budget of {} bytes: its input schema outside $defs is that large",
            crate::DEFAULT_TOOL_BUDGET_BYTES
        )),
        "{:?}",
        said(&f)
    );
}

#[test]
fn the_result_is_validated_as_a_description() {
    let f = fit(None, None, vec![json!({"name": "no-schema"})]);
    assert!(!f.diagnostics.is_empty());
    for d in &f.diagnostics {
        assert_eq!(d.code, "fit-invalid");
        assert!(
            d.message
                .starts_with("the fitted tools/list does not validate: ["),
            "{}",
            d.message
        );
        assert!(d.pointer.starts_with("/tools/0"), "{}", d.pointer);
    }
    // A list without tools is an empty list.
    let f = fit_tools_list(json!({}), REV, &FitOptions::default());
    assert_eq!(f.tools_list, json!({"tools": []}));
    let d = crate::description_of_tools_list(
        &json!({"tools": [tool("get", json!({"type": "object"}))]}),
        REV,
    );
    assert_eq!(d["tools"][0]["name"], "get");
    assert!(
        mcpdesc_validate::validate_value(&d)
            .iter()
            .all(|d| !d.is_error()),
        "a valid one-revision description"
    );
    let d = crate::description_of_tools_list(&json!({}), REV);
    assert_eq!(d["tools"], json!([]));
}

#[test]
fn inlining_that_grows_without_bound_is_refused() {
    // Each definition refers to the next twice: inlined, 2^18 copies of the last.
    let mut defs = serde_json::Map::new();
    for i in 0..18 {
        let next = json!({"$ref": format!("#/$defs/L{}", i + 1)});
        defs.insert(
            format!("L{i}"),
            json!({"type": "object", "properties": {"a": next, "b": next}}),
        );
    }
    defs.insert("L18".into(), json!({"type": "string"}));
    let t = tool(
        "grow",
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": defs}),
    );
    let f = fit(Some("gemini-cli"), None, vec![t.clone()]);
    assert_eq!(
        said(&f),
        one(
            "fit-ref-cycle",
            "/tools/0/inputSchema",
            "tool `grow`: inputSchema: inlining grows past 200000 subschemas"
        )
    );
    assert_eq!(tools(&f)[0], t, "left as it was");
}

#[test]
fn a_new_name_never_takes_a_name_already_in_the_list() {
    // `a.b` would naturally become `a_b`, which another tool already has.
    let f = fit(
        Some("chatgpt"),
        None,
        vec![
            tool("a.b", json!({"type": "object"})),
            tool("a_b", json!({"type": "object"})),
        ],
    );
    let names: Vec<&str> = tools(&f)
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names[1], "a_b", "the acceptable name is kept");
    assert_ne!(names[0], "a_b");
    assert!(
        names[0]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    );
    assert_eq!(f.renames.get(names[0]).map(String::as_str), Some("a.b"));
    assert!(
        f.diagnostics.iter().all(|d| d.code == "fit-renamed"),
        "{:?}",
        said(&f)
    );
}

#[test]
fn a_pruned_tool_exactly_at_the_budget_fits() {
    let mut t = tool("get", json!({"type": "object"}));
    t["outputSchema"] = json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b": {"type": "string", "description": "x".repeat(400)}}},
        // A reference to the `$defs` container itself names no definition.
        "c": {"$ref": "#/$defs"}
    }, "$defs": {"Unused": {"type": "integer"}}});
    let first = fit(None, Some(bytes(&t) - 100), vec![t.clone()]);
    let pruned = bytes(&tools(&first)[0]);
    assert!(tools(&first)[0]["outputSchema"].get("$defs").is_none());
    // Pruning to exactly that size: it fits, which is no error.
    let f = fit(None, Some(pruned), vec![t]);
    assert_eq!(bytes(&tools(&f)[0]), pruned);
    assert!(
        f.diagnostics.iter().all(|d| d.code != "fit-over-budget"),
        "{:?}",
        said(&f)
    );
}

/// Inlining stops past `MAX_INLINED_NODES` subschemas, not at it: a schema of exactly
/// that many nodes (the root and an `allOf` of one fewer empty schemas) inlines, one more
/// is refused as growing without end.
#[test]
fn inlining_allows_exactly_the_node_bound() {
    use crate::fit::{MAX_INLINED_NODES, inline};
    let schema = |subschemas: usize| json!({ "allOf": vec![json!({}); subschemas] });
    let at_bound = schema(MAX_INLINED_NODES - 1);
    let mut nodes = 0;
    let res = mcpdesc_core::local_ref::Resolver::new(&at_bound);
    let out = inline(&res, &at_bound, &mut Vec::new(), &mut nodes);
    assert_eq!(nodes, MAX_INLINED_NODES);
    assert_eq!(out.expect("a schema at the bound inlines"), at_bound);

    let past = schema(MAX_INLINED_NODES);
    let mut nodes = 0;
    let err = inline(
        &mcpdesc_core::local_ref::Resolver::new(&past),
        &past,
        &mut Vec::new(),
        &mut nodes,
    )
    .expect_err("one node past the bound");
    assert_eq!(err.0, "fit-ref-cycle");
    assert!(err.1.contains("grows past 200000 subschemas"), "{}", err.1);
}
