//! Tool rules: schemas (§9.2, in [`super::schema`]), named examples (§9.3) and
//! interaction examples (§9.4).

use super::content::{check_content_block, check_result_frame};
use super::schema::{self, Dialect, Role, ToolSchema, Verdict};
use super::{at, named_entries};
use crate::ctx::{Ctx, Primitive};
use mcpdesc_core::revision::content_types;
use mcpdesc_core::{Feature, RevisionSet};
use serde_json::{Map, Value};

/// What examples of one Tool are checked against.
struct ToolCx<'t, 'a> {
    input: Option<&'t ToolSchema<'a>>,
    output: Option<&'t ToolSchema<'a>>,
    has_output: bool,
    scope: RevisionSet,
}

/// All Tool payload rules.
pub(crate) fn check_tool<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>) {
    let input = schema::check_tool_schema(cx, p.value, &p.pointer, Role::Input, p.scope);
    let output = schema::check_tool_schema(cx, p.value, &p.pointer, Role::Output, p.scope);
    let t = ToolCx {
        input: input.as_ref(),
        output: output.as_ref(),
        has_output: p.value.contains_key("outputSchema"),
        scope: p.scope,
    };
    if let Some(map) = p.value.get("examples") {
        let map_ptr = at(&p.pointer, "examples");
        for (name, raw) in named_entries(cx, map, &map_ptr, "Tool example") {
            // Resolution errors are reported by the reference rules.
            let Ok((ex, comp)) = cx.resolve(raw, "toolExamples") else {
                continue;
            };
            let ex_ptr = comp.unwrap_or_else(|| at(&map_ptr, name));
            match ex.as_object() {
                Some(o) => check_invocation(cx, &t, o, &ex_ptr),
                None => cx.error(
                    "tool-example-shape",
                    ex_ptr,
                    "a Tool Example must be an object with `input` and `result`",
                ),
            }
        }
    }
    if let Some(map) = p.value.get("interactionExamples") {
        let map_ptr = at(&p.pointer, "interactionExamples");
        for (name, ex) in named_entries(cx, map, &map_ptr, "Tool interaction example") {
            let ex_ptr = at(&map_ptr, name);
            let Some(o) = ex.as_object() else {
                cx.error(
                    "tool-example-shape",
                    ex_ptr,
                    "a Tool Interaction Example must be an object",
                );
                continue;
            };
            check_invocation(cx, &t, o, &ex_ptr);
            match o.get("steps").and_then(Value::as_array) {
                Some(steps) if !steps.is_empty() => {
                    for (i, s) in steps.iter().enumerate() {
                        check_step(cx, p, s, &at(&at(&ex_ptr, "steps"), &i.to_string()));
                    }
                }
                _ => {
                    let sp = if o.contains_key("steps") {
                        at(&ex_ptr, "steps")
                    } else {
                        ex_ptr.clone()
                    };
                    cx.error(
                        "interaction-example-shape",
                        sp,
                        "`steps` must be a non-empty array of interaction steps (§9.4)",
                    );
                }
            }
        }
    }
}

/// `input` + `result` of a Tool Example or Tool Interaction Example.
fn check_invocation(cx: &mut Ctx<'_>, t: &ToolCx<'_, '_>, ex: &Map<String, Value>, ex_ptr: &str) {
    match ex.get("input") {
        None => cx.error(
            "tool-example-shape",
            ex_ptr,
            "missing `input` (a no-argument invocation uses `input: {}`) (§9.3)",
        ),
        Some(v) if !v.is_object() => cx.error(
            "tool-example-shape",
            at(ex_ptr, "input"),
            "`input` must be an object (§9.3)",
        ),
        Some(v) => check_against(
            cx,
            t.input,
            v,
            &at(ex_ptr, "input"),
            "tool-example-input-mismatch",
            "inputSchema",
            t.scope,
        ),
    }
    match ex.get("result") {
        None => cx.error("tool-example-shape", ex_ptr, "missing `result` (§9.3)"),
        Some(Value::Object(r)) => check_tool_result(cx, t, r, &at(ex_ptr, "result")),
        Some(_) => cx.error(
            "tool-example-shape",
            at(ex_ptr, "result"),
            "`result` must be an object (§9.3)",
        ),
    }
}

/// Validates an instance against a tool schema in every revision of `scope`.
fn check_against(
    cx: &mut Ctx<'_>,
    ts: Option<&ToolSchema<'_>>,
    inst: &Value,
    iptr: &str,
    code: &str,
    what: &str,
    scope: RevisionSet,
) {
    let Some(ts) = ts else { return };
    if ts.declared_unsupported || scope.is_empty() || !cx.take_budget(iptr) {
        return;
    }
    let dialect_revs = scope.with(Feature::ToolSchemaDialect);
    let pre_revs = scope.without(Feature::ToolSchemaDialect);
    let mut incomplete = Vec::new();
    if !dialect_revs.is_empty() {
        let d = ts.declared.unwrap_or_else(Dialect::default_dialect);
        match schema::validate(cx, ts, d, inst) {
            Verdict::Valid => {}
            Verdict::Invalid(errs) => {
                for (p, m) in errs {
                    cx.error(
                        code,
                        format!("{iptr}{p}"),
                        format!(
                            "does not validate against `{what}` under {} (MCP {dialect_revs}): {m}",
                            d.name()
                        ),
                    );
                }
            }
            Verdict::Incomplete => incomplete.push(format!(
                "for MCP {dialect_revs} the schema could not be evaluated completely (unresolved, external or looping references)"
            )),
        }
    }
    if !pre_revs.is_empty() {
        // No dialect is defined: an instance is certainly incompatible only when every
        // supported dialect rejects it (and nothing is certain if no dialect accepts
        // the schema itself).
        if !ts.interpretable {
            incomplete.push(format!("MCP {pre_revs} define no embedded-schema dialect and the schema is valid under none"));
            return warn_incomplete(cx, iptr, what, &incomplete);
        }
        let v7 = schema::validate(cx, ts, Dialect::Draft7, inst);
        let v2020 = schema::validate(cx, ts, Dialect::Draft202012, inst);
        if let (Verdict::Invalid(_), Verdict::Invalid(errs)) = (v7, v2020) {
            for (p, m) in errs {
                cx.error(code, format!("{iptr}{p}"), format!("does not validate against `{what}` under any supported dialect (MCP {pre_revs}): {m}"));
            }
        }
        incomplete.push(format!("MCP {pre_revs} define no embedded-schema dialect"));
    }
    warn_incomplete(cx, iptr, what, &incomplete);
}

fn warn_incomplete(cx: &mut Ctx<'_>, iptr: &str, what: &str, reasons: &[String]) {
    if !reasons.is_empty() {
        cx.warn(
            "tool-example-validation-incomplete",
            iptr,
            format!(
                "compatibility with `{what}` could not be completely validated: {} (§9.3)",
                reasons.join("; ")
            ),
        );
    }
}

/// A completed Tool Result (§9.3).
fn check_tool_result(cx: &mut Ctx<'_>, t: &ToolCx<'_, '_>, r: &Map<String, Value>, rptr: &str) {
    let scope = t.scope;
    check_result_frame(cx, r, rptr, scope);
    match r.get("content") {
        Some(Value::Array(blocks)) => {
            let cp = at(rptr, "content");
            for (i, b) in blocks.iter().enumerate() {
                check_content_block(cx, b, &at(&cp, &i.to_string()), scope);
            }
        }
        Some(_) => cx.error(
            "tool-result-content-missing",
            at(rptr, "content"),
            "`content` must be an array of content blocks (§9.3)",
        ),
        None => cx.error(
            "tool-result-content-missing",
            rptr,
            "a Tool result must contain unstructured `content` (§9.3)",
        ),
    }
    let is_error = r.get("isError") == Some(&Value::Bool(true));
    match r.get("structuredContent") {
        Some(sc) => {
            let scp = at(rptr, "structuredContent");
            if is_error {
                cx.error("tool-example-error-structured-content", scp, "an execution-error result (`isError: true`) must not contain `structuredContent` (§9.3)");
            } else {
                let revs = scope.without(Feature::StructuredContent);
                if !revs.is_empty() {
                    cx.error(
                        "structured-content-inapplicable",
                        &scp,
                        format!("`structuredContent` is not defined for MCP {revs} (§9.3)"),
                    );
                }
                if t.has_output {
                    check_against(
                        cx,
                        t.output,
                        sc,
                        &scp,
                        "tool-example-output-mismatch",
                        "outputSchema",
                        scope.with(Feature::OutputSchema),
                    );
                }
            }
        }
        None if !is_error && t.has_output => {
            let revs = scope.with(Feature::OutputSchema);
            if !revs.is_empty() {
                cx.error(
                    "tool-example-structured-content-missing",
                    rptr,
                    "the Tool declares `outputSchema`, so a successful result must contain `structuredContent` (§9.3)",
                );
            }
        }
        None => {}
    }
}

/// One Tool Interaction Step (§9.4).
fn check_step<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>, step: &Value, sptr: &str) {
    let Some(s) = step.as_object() else { return };
    let scope = p.scope;
    let empty = Map::new();
    let req = s
        .get("request")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let resp = s
        .get("response")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let reqp = at(sptr, "request");
    let respp = at(sptr, "response");
    match s.get("type").and_then(Value::as_str) {
        Some("elicitation") => {
            let revs = scope.without(Feature::ElicitationForm);
            if !revs.is_empty() {
                cx.error(
                    "interaction-step-inapplicable",
                    at(sptr, "type"),
                    format!("elicitation is not defined for MCP {revs}"),
                );
            }
            let mode = req.get("mode").and_then(Value::as_str);
            if mode == Some("url") {
                let revs = scope.without(Feature::ElicitationUrl);
                if !revs.is_empty() {
                    cx.error(
                        "interaction-step-inapplicable",
                        at(&reqp, "mode"),
                        format!("URL-mode elicitation is not defined for MCP {revs}"),
                    );
                }
            }
            check_declaration(cx, p, s, req, mode, sptr);
            let content = resp.get("content");
            match (mode, resp.get("action").and_then(Value::as_str)) {
                (Some("form"), Some("accept")) => match content {
                    None => cx.error(
                        "interaction-elicitation-response",
                        &respp,
                        "an accepted form elicitation must contain `content` (§9.4)",
                    ),
                    Some(c) => {
                        if let Some(rs) = req
                            .get("requestedSchema")
                            .filter(|_| cx.take_budget(&respp))
                        {
                            let dialect = rs
                                .get("$schema")
                                .and_then(Value::as_str)
                                .and_then(Dialect::from_uri)
                                .unwrap_or_else(Dialect::default_dialect);
                            let sc = schema::scan(rs);
                            if let schema::Verdict::Invalid(errs) =
                                schema::validate_value(cx, rs, &sc, dialect, c)
                            {
                                let cp = at(&respp, "content");
                                for (ip, m) in errs {
                                    cx.error(
                                        "interaction-elicitation-content-mismatch",
                                        format!("{cp}{ip}"),
                                        format!("accepted content does not conform to the request's `requestedSchema`: {m}"),
                                    );
                                }
                            }
                        }
                    }
                },
                (Some("form"), Some(action)) if content.is_some() => cx.error(
                    "interaction-elicitation-response",
                    at(&respp, "content"),
                    format!("a `{action}` response must not contain `content` (§9.4)"),
                ),
                (Some("url"), _) if content.is_some() => cx.error(
                    "interaction-elicitation-response",
                    at(&respp, "content"),
                    "a URL-mode elicitation response must omit `content` (§9.4)",
                ),
                _ => {}
            }
        }
        Some("sampling") => {
            for k in ["tools", "toolChoice"] {
                if req.contains_key(k) {
                    let revs = scope.without(Feature::SamplingContextTools);
                    if !revs.is_empty() {
                        cx.error(
                            "interaction-step-inapplicable",
                            at(&reqp, k),
                            format!("sampling `{k}` is not defined for MCP {revs}"),
                        );
                    }
                }
            }
            if let Some(msgs) = req.get("messages").and_then(Value::as_array) {
                for (i, m) in msgs.iter().enumerate() {
                    if let Some(c) = m.get("content") {
                        let mp = at(&at(&reqp, "messages"), &i.to_string());
                        sampling_content(cx, c, &at(&mp, "content"), scope);
                    }
                }
            }
            if let Some(c) = resp.get("content") {
                sampling_content(cx, c, &at(&respp, "content"), scope);
            }
        }
        Some("roots") => {
            if let Some(roots) = resp.get("roots").and_then(Value::as_array) {
                for (i, r) in roots.iter().enumerate() {
                    if let Some(u) = r.get("uri").and_then(Value::as_str) {
                        if !u.starts_with("file://") {
                            cx.error(
                                "interaction-roots-uri",
                                at(&at(&at(&respp, "roots"), &i.to_string()), "uri"),
                                format!("root URI `{u}` must be a `file://` URI"),
                            );
                        }
                    }
                }
            }
        }
        _ => {}
    }
    if let Some(reqs) = p.value.get("clientRequirements").and_then(Value::as_object) {
        contradictions(cx, reqs, s, req, sptr);
    }
}

/// `declaration` must name an Elicitation Declaration of the same Tool, compatible
/// with the step's request after reference resolution (§9.4).
fn check_declaration<'a>(
    cx: &mut Ctx<'a>,
    p: &Primitive<'a>,
    s: &Map<String, Value>,
    req: &Map<String, Value>,
    mode: Option<&str>,
    sptr: &str,
) {
    let Some(name) = s.get("declaration").and_then(Value::as_str) else {
        return;
    };
    let reqp = at(sptr, "request");
    let decl = p
        .value
        .get("elicitations")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .find(|e| e.get("name").and_then(Value::as_str) == Some(name))
        });
    let Some(decl) = decl else {
        cx.error(
            "interaction-declaration-unknown",
            at(sptr, "declaration"),
            format!("no Elicitation Declaration named `{name}` on this Tool"),
        );
        return;
    };
    let decl_mode = decl.get("mode").and_then(Value::as_str);
    if decl_mode != mode {
        cx.error(
            "interaction-declaration-mismatch",
            at(&reqp, "mode"),
            format!(
                "request mode {} differs from declaration `{name}` mode {}",
                mode.unwrap_or("(none)"),
                decl_mode.unwrap_or("(none)")
            ),
        );
        return;
    }
    match mode {
        Some("form") => {
            let decl_schema = decl
                .get("requestedSchema")
                .and_then(|v| cx.resolve(v, "schemas").ok())
                .map(|(v, _)| v);
            if let (Some(ds), Some(rs)) = (decl_schema, req.get("requestedSchema")) {
                if ds != rs {
                    cx.error(
                        "interaction-declaration-mismatch",
                        at(&reqp, "requestedSchema"),
                        format!("request `requestedSchema` differs from the schema of declaration `{name}`"),
                    );
                }
            }
        }
        Some("url") => {
            if let Some(du) = decl.get("url") {
                if req.get("url") != Some(du) {
                    cx.error(
                        "interaction-declaration-mismatch",
                        at(&reqp, "url"),
                        format!("request `url` differs from the known URL of declaration `{name}`"),
                    );
                }
            }
        }
        _ => {}
    }
}

/// Sampling message content: one block or (from `SamplingContextTools`) an array.
fn sampling_content(cx: &mut Ctx<'_>, c: &Value, ptr: &str, scope: RevisionSet) {
    let blocks: Vec<(String, &Value)> = match c {
        Value::Array(a) => {
            let revs = scope.without(Feature::SamplingContextTools);
            if !revs.is_empty() {
                cx.error(
                    "interaction-step-inapplicable",
                    ptr,
                    format!("arrays of sampling content blocks are not defined for MCP {revs}"),
                );
            }
            a.iter()
                .enumerate()
                .map(|(i, b)| (at(ptr, &i.to_string()), b))
                .collect()
        }
        b => vec![(ptr.to_string(), b)],
    };
    for (bp, b) in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some(t @ ("tool_use" | "tool_result")) => {
                let revs = scope.without(Feature::SamplingContextTools);
                if !revs.is_empty() {
                    cx.error(
                        "interaction-step-inapplicable",
                        at(&bp, "type"),
                        format!("sampling content `{t}` is not defined for MCP {revs}"),
                    );
                }
            }
            Some(t) => {
                let revs: RevisionSet = scope
                    .iter()
                    .filter(|r| !content_types(*r).contains(&t))
                    .collect();
                if !revs.is_empty() {
                    cx.error(
                        "content-type-inapplicable",
                        at(&bp, "type"),
                        format!("content type `{t}` is not defined for MCP {revs}"),
                    );
                }
            }
            None => {}
        }
    }
}

/// Scenario steps that use a client capability the explicit `clientRequirements`
/// omit: a warning, never an inferred requirement (§9.4).
fn contradictions(
    cx: &mut Ctx<'_>,
    reqs: &Map<String, Value>,
    s: &Map<String, Value>,
    req: &Map<String, Value>,
    sptr: &str,
) {
    const CODE: &str = "interaction-client-requirements-contradiction";
    let reqp = at(sptr, "request");
    let empty = Map::new();
    match s.get("type").and_then(Value::as_str) {
        Some("roots") if !reqs.contains_key("roots") => {
            cx.warn(CODE, at(sptr, "type"), "the scenario requests roots, but the Tool's `clientRequirements` do not declare `roots`");
        }
        Some("sampling") => match reqs.get("sampling") {
            None => cx.warn(CODE, at(sptr, "type"), "the scenario requests sampling, but the Tool's `clientRequirements` do not declare `sampling`"),
            Some(sv) => {
                let sampling = sv.as_object().unwrap_or(&empty);
                if let Some(k) = ["tools", "toolChoice"].into_iter().find(|k| req.contains_key(*k)) {
                    if !sampling.contains_key("tools") {
                        cx.warn(CODE, at(&reqp, k), "the scenario uses sampling tools, but `clientRequirements.sampling` does not declare `tools`");
                    }
                }
                let ctx = req.get("includeContext").and_then(Value::as_str);
                if ctx.is_some_and(|c| c != "none") && !sampling.contains_key("context") {
                    cx.warn(CODE, at(&reqp, "includeContext"), "the scenario includes context, but `clientRequirements.sampling` does not declare `context`");
                }
            }
        },
        Some("elicitation") => match reqs.get("elicitation") {
            None => cx.warn(CODE, at(sptr, "type"), "the scenario elicits input, but the Tool's `clientRequirements` do not declare `elicitation`"),
            Some(ev) => {
                let el = ev.as_object().unwrap_or(&empty);
                match req.get("mode").and_then(Value::as_str) {
                    Some("url") if !el.contains_key("url") => {
                        cx.warn(CODE, at(&reqp, "mode"), "the scenario uses URL-mode elicitation, but `clientRequirements.elicitation` does not declare `url`");
                    }
                    Some("form") if !el.is_empty() && !el.contains_key("form") => {
                        cx.warn(CODE, at(&reqp, "mode"), "the scenario uses form elicitation, but `clientRequirements.elicitation` does not declare `form`");
                    }
                    _ => {}
                }
            }
        },
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use serde_json::{Value, json};

    fn tool(revs: &[&str], t: Value) -> Value {
        doc(revs, json!({"tools": [t]}))
    }

    fn text(s: &str) -> Value {
        json!([{"type": "text", "text": s}])
    }

    #[test]
    fn valid_examples_pass() {
        let t = json!({"name": "weather",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false},
            "outputSchema": {"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]},
            "examples": {"paris": {"input": {"city": "Paris"}, "result": {"resultType": "complete", "content": text("21"), "structuredContent": {"t": 21.5}, "isError": false}},
                         "err": {"input": {"city": "X"}, "result": {"resultType": "complete", "content": text("no"), "isError": true}}}});
        assert!(run(&tool(&["2026-07-28"], t)).is_empty());
    }

    #[test]
    fn input_and_output_mismatches_point_into_the_instance() {
        let t = json!({"name": "m",
            "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
            "outputSchema": {"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]},
            "examples": {"w": {"input": {"count": "one"}, "result": {"resultType": "complete", "content": text("one"), "structuredContent": {"total": "one"}}}}});
        let e = errors(&tool(&["2026-07-28"], t));
        assert!(
            has(
                &e,
                "tool-example-input-mismatch",
                "/tools/0/examples/w/input/count"
            ),
            "{e:?}"
        );
        assert!(
            has(
                &e,
                "tool-example-output-mismatch",
                "/tools/0/examples/w/result/structuredContent/total"
            ),
            "{e:?}"
        );
        assert_eq!(e.len(), 2);
    }

    #[test]
    fn draft07_declared_schema_is_used() {
        // `items` as an array is tuple validation in draft-07 only.
        let t = json!({"name": "d7", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}},
            "examples": {"bad": {"input": {"pair": ["a", "b"]}, "result": {"resultType": "complete", "content": []}}}});
        assert!(has(
            &errors(&tool(&["2026-07-28"], t)),
            "tool-example-input-mismatch",
            "/tools/0/examples/bad/input/pair/1"
        ));
    }

    #[test]
    fn result_shapes() {
        let base = |result: Value, extra: Value| {
            let mut t = json!({"name": "r", "inputSchema": {"type": "object"}, "examples": {"x": {"input": {}, "result": result}}});
            if let (Some(o), Some(e)) = (t.as_object_mut(), extra.as_object()) {
                o.extend(e.clone());
            }
            tool(&["2026-07-28"], t)
        };
        let e = errors(&base(
            json!({"resultType": "complete", "content": text("x")}),
            json!({"outputSchema": {"type": "object"}}),
        ));
        assert!(has(
            &e,
            "tool-example-structured-content-missing",
            "/tools/0/examples/x/result"
        ));
        let e = errors(&base(
            json!({"resultType": "complete", "content": text("x"), "structuredContent": {}, "isError": true}),
            json!({}),
        ));
        assert!(has(
            &e,
            "tool-example-error-structured-content",
            "/tools/0/examples/x/result/structuredContent"
        ));
        let e = errors(&base(
            json!({"jsonrpc": "2.0", "id": 1, "resultType": "complete", "content": []}),
            json!({}),
        ));
        assert!(has(
            &e,
            "result-json-rpc-envelope",
            "/tools/0/examples/x/result/jsonrpc"
        ));
        assert!(has(
            &e,
            "result-json-rpc-envelope",
            "/tools/0/examples/x/result/id"
        ));
        let e = errors(&base(
            json!({"resultType": "complete", "content": [], "task": {"taskId": "t"}}),
            json!({}),
        ));
        assert!(has(
            &e,
            "result-not-completed",
            "/tools/0/examples/x/result/task"
        ));
        let e = errors(&base(json!({"content": []}), json!({})));
        assert!(has(&e, "result-type-missing", "/tools/0/examples/x/result"));
        let e = errors(&base(json!({"resultType": "complete"}), json!({})));
        assert!(has(
            &e,
            "tool-result-content-missing",
            "/tools/0/examples/x/result"
        ));
        let e = errors(&base(
            json!({"resultType": "incomplete", "content": []}),
            json!({}),
        ));
        assert!(has(
            &e,
            "result-not-completed",
            "/tools/0/examples/x/result/resultType"
        ));
    }

    #[test]
    fn revision_rules_for_results() {
        let t = json!({"name": "old", "inputSchema": {"type": "object"}, "examples": {"f": {"input": {},
            "result": {"resultType": "complete", "content": [{"type": "resource_link", "uri": "resource://x", "name": "n"}], "structuredContent": {"f": true}}}}});
        let e = errors(&tool(&["2025-03-26"], t));
        assert!(has(
            &e,
            "result-type-inapplicable",
            "/tools/0/examples/f/result/resultType"
        ));
        assert!(has(
            &e,
            "content-type-inapplicable",
            "/tools/0/examples/f/result/content/0/type"
        ));
        assert!(has(
            &e,
            "structured-content-inapplicable",
            "/tools/0/examples/f/result/structuredContent"
        ));
        // `resultType` in a scope spanning 2025-11-25 and 2026-07-28 is wrong either way.
        let t = |r: Value| json!({"name": "s", "inputSchema": {"type": "object"}, "examples": {"f": {"input": {}, "result": r}}});
        assert!(has(
            &errors(&tool(
                &["2025-11-25", "2026-07-28"],
                t(json!({"content": []}))
            )),
            "result-type-missing",
            "/tools/0/examples/f/result"
        ));
        assert!(has(
            &errors(&tool(
                &["2025-11-25", "2026-07-28"],
                t(json!({"content": [], "resultType": "complete"}))
            )),
            "result-type-inapplicable",
            "/tools/0/examples/f/result/resultType"
        ));
    }

    #[test]
    fn result_meta_rules() {
        let t = |meta: Value| {
            json!({"name": "m", "inputSchema": {"type": "object"}, "examples": {"x": {"input": {},
            "result": {"resultType": "complete", "content": [{"type": "text", "text": "t", "_meta": {"com.example/k": 1}}], "_meta": meta}}}})
        };
        assert!(
            run(&tool(
                &["2026-07-28"],
                t(json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}))
            ))
            .is_empty()
        );
        let e = errors(&tool(
            &["2026-07-28"],
            t(json!({"io.modelcontextprotocol/serverInfo": "not-an-implementation"})),
        ));
        assert!(has(
            &e,
            "payload-meta-reserved-key",
            "/tools/0/examples/x/result/_meta/io.modelcontextprotocol~1serverInfo"
        ));
        let e = errors(&tool(&["2026-07-28"], t(json!({"progressToken": 1}))));
        assert!(has(
            &e,
            "payload-meta-reserved-key",
            "/tools/0/examples/x/result/_meta/progressToken"
        ));
        let w = warnings(&tool(
            &["2026-07-28"],
            t(json!({"io.modelcontextprotocol/future": 1})),
        ));
        assert!(has(
            &w,
            "payload-meta-unknown-reserved-key",
            "/tools/0/examples/x/result/_meta/io.modelcontextprotocol~1future"
        ));
    }

    #[test]
    fn pre_dialect_examples_warn_and_still_catch_certain_mismatches() {
        let t = |input: Value| {
            json!({"name": "greet",
            "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": false},
            "examples": {"f": {"input": input, "result": {"content": text("hi")}}}})
        };
        let d = tool(&["2024-11-05"], t(json!({"name": "Example User"})));
        assert!(errors(&d).is_empty());
        assert!(has(
            &warnings(&d),
            "tool-example-validation-incomplete",
            "/tools/0/examples/f/input"
        ));
        let d = tool(&["2025-06-18"], t(json!({"name": 3})));
        assert!(has(
            &errors(&d),
            "tool-example-input-mismatch",
            "/tools/0/examples/f/input/name"
        ));
    }

    #[test]
    fn external_refs_make_example_validation_incomplete() {
        let t = json!({"name": "lookup", "inputSchema": {"type": "object",
            "properties": {"identifier": {"$ref": "https://schemas.example.invalid/identifier.json"}}, "required": ["identifier"]},
            "examples": {"e": {"input": {"identifier": "example-123"}, "result": {"resultType": "complete", "content": text("ok")}}}});
        let d = tool(&["2026-07-28"], t);
        assert!(errors(&d).is_empty());
        let w = warnings(&d);
        assert!(
            has(
                &w,
                "tool-example-validation-incomplete",
                "/tools/0/examples/e/input"
            ),
            "{w:?}"
        );
        assert!(has(
            &w,
            "tool-schema-ref-external",
            "/tools/0/inputSchema/properties/identifier/$ref"
        ));
    }

    #[test]
    fn referenced_examples_are_checked_in_context() {
        let d = doc(
            &["2026-07-28"],
            json!({"components": {"toolExamples": {"basic": {"input": {"query": 1}, "result": {"resultType": "complete", "content": []}}}},
                   "tools": [{"name": "s", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
                              "examples": {"basic": {"$componentRef": "#/components/toolExamples/basic"}}}]}),
        );
        assert!(has(
            &errors(&d),
            "tool-example-input-mismatch",
            "/components/toolExamples/basic/input/query"
        ));
    }

    #[test]
    fn example_names_and_shapes() {
        let t = json!({"name": "n", "inputSchema": {"type": "object"}, "examples": {
            "contains spaces": {"input": {}, "result": {"resultType": "complete", "content": []}},
            "missing": {"result": {"resultType": "complete", "content": []}},
            "array": {"input": [], "result": {"resultType": "complete", "content": []}},
            "noresult": {"input": {}}}});
        let e = errors(&tool(&["2026-07-28"], t));
        assert!(has(
            &e,
            "example-name-invalid",
            "/tools/0/examples/contains spaces"
        ));
        assert!(has(&e, "tool-example-shape", "/tools/0/examples/missing"));
        assert!(has(
            &e,
            "tool-example-shape",
            "/tools/0/examples/array/input"
        ));
        assert!(has(&e, "tool-example-shape", "/tools/0/examples/noresult"));
    }

    fn release_tool(revs_scope: Value, steps: Value, extra: Value) -> Value {
        let mut t = json!({"name": "prepare_release", "protocolVersions": revs_scope,
            "inputSchema": {"type": "object", "properties": {"version": {"type": "string"}}},
            "elicitations": [{"name": "confirm", "mode": "form", "message": "Approve?",
                "requestedSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"]}},
                {"name": "authorize", "mode": "url", "message": "Authorize.", "url": "https://mcp.example.com/connect"}],
            "interactionExamples": {"s": {"input": {"version": "2"}, "steps": steps, "result": {"content": text("done")}}}});
        if let (Some(o), Some(e)) = (t.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        t
    }

    #[test]
    fn interaction_steps() {
        let form_schema = json!({"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"]});
        let ok = release_tool(
            json!(["2025-11-25"]),
            json!([{"type": "roots", "request": {}, "response": {"roots": [{"uri": "file:///w"}]}},
                   {"type": "elicitation", "declaration": "confirm", "request": {"mode": "form", "message": "Approve?", "requestedSchema": form_schema},
                    "response": {"action": "accept", "content": {"approved": true}}},
                   {"type": "elicitation", "declaration": "authorize", "request": {"mode": "url", "message": "Authorize.", "url": "https://mcp.example.com/connect"},
                    "response": {"action": "accept"}},
                   {"type": "sampling", "request": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "tools": [{"name": "x", "inputSchema": {"type": "object"}}], "maxTokens": 10},
                    "response": {"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "x", "input": {}}], "model": "m"}}]),
            json!({}),
        );
        let d = tool(&["2025-11-25"], ok);
        assert!(run(&d).is_empty(), "{:?}", run(&d));

        let bad = release_tool(
            json!(["2025-06-18"]),
            json!([{"type": "elicitation", "declaration": "missing", "request": {"mode": "url", "message": "m", "url": "https://x.example"},
                    "response": {"action": "accept", "content": {"approved": true}}},
                   {"type": "elicitation", "declaration": "confirm", "request": {"mode": "form", "message": "m",
                        "requestedSchema": {"type": "object", "properties": {"approved": {"type": "string"}}, "required": ["approved"]}},
                    "response": {"action": "accept", "content": {"approved": true}}},
                   {"type": "elicitation", "request": {"mode": "form", "message": "m", "requestedSchema": form_schema}, "response": {"action": "decline", "content": {}}},
                   {"type": "sampling", "request": {"messages": [], "tools": [], "maxTokens": 1}, "response": {"role": "assistant", "content": {"type": "text", "text": "t"}, "model": "m"}},
                   {"type": "roots", "request": {}, "response": {"roots": [{"uri": "https://example.com/not-a-file-root"}]}}]),
            json!({}),
        );
        let e = errors(&tool(&["2025-06-18"], bad));
        let s = "/tools/0/interactionExamples/s/steps";
        assert!(
            has(
                &e,
                "interaction-declaration-unknown",
                &format!("{s}/0/declaration")
            ),
            "{e:?}"
        );
        assert!(has(
            &e,
            "interaction-step-inapplicable",
            &format!("{s}/0/request/mode")
        ));
        assert!(has(
            &e,
            "interaction-elicitation-response",
            &format!("{s}/0/response/content")
        ));
        assert!(has(
            &e,
            "interaction-declaration-mismatch",
            &format!("{s}/1/request/requestedSchema")
        ));
        assert!(has(
            &e,
            "interaction-elicitation-content-mismatch",
            &format!("{s}/1/response/content/approved")
        ));
        assert!(has(
            &e,
            "interaction-elicitation-response",
            &format!("{s}/2/response/content")
        ));
        assert!(has(
            &e,
            "interaction-step-inapplicable",
            &format!("{s}/3/request/tools")
        ));
        assert!(has(
            &e,
            "interaction-roots-uri",
            &format!("{s}/4/response/roots/0/uri")
        ));
    }

    #[test]
    fn interaction_contradicting_client_requirements_warn() {
        let t = release_tool(
            json!(["2026-07-28"]),
            json!([{"type": "roots", "request": {}, "response": {"roots": []}},
                   {"type": "sampling", "request": {"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}], "includeContext": "thisServer",
                        "tools": [{"name": "x", "inputSchema": {"type": "object"}}], "maxTokens": 1},
                    "response": {"role": "assistant", "content": {"type": "text", "text": "t"}, "model": "m"}},
                   {"type": "elicitation", "declaration": "authorize", "request": {"mode": "url", "message": "Authorize.", "url": "https://mcp.example.com/connect"},
                    "response": {"action": "accept"}}]),
            json!({"clientRequirements": {"elicitation": {"form": {}}, "sampling": {}}}),
        );
        let mut t = t;
        t["interactionExamples"]["s"]["result"]["resultType"] = json!("complete");
        let d = tool(&["2026-07-28"], t);
        assert!(errors(&d).is_empty(), "{:?}", errors(&d));
        let w = warnings(&d);
        let s = "/tools/0/interactionExamples/s/steps";
        const C: &str = "interaction-client-requirements-contradiction";
        assert!(has(&w, C, &format!("{s}/0/type")));
        assert!(has(&w, C, &format!("{s}/1/request/tools")));
        assert!(has(&w, C, &format!("{s}/1/request/includeContext")));
        assert!(has(&w, C, &format!("{s}/2/request/mode")));
        assert_eq!(w.len(), 4);
    }
}
