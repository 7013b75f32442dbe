//! Prompt examples (§11.3) and Prompt completion examples (§11.4).

use super::content::{check_content_block, check_result_frame};
use super::resources::check_completion_examples;
use super::{at, named_entries};
use crate::ctx::{Ctx, Primitive};
use serde_json::Value;

/// All Prompt payload rules.
pub(crate) fn check_prompt<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>) {
    let declared: Vec<(String, bool)> = p
        .value
        .get("arguments")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|arg| {
                    let name = arg.get("name")?.as_str()?.to_string();
                    Some((name, arg.get("required") == Some(&Value::Bool(true))))
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(map) = p.value.get("examples") {
        let map_ptr = at(&p.pointer, "examples");
        for (name, raw) in named_entries(cx, map, &map_ptr, "Prompt example") {
            let Ok((ex, comp)) = cx.resolve(raw, "promptExamples") else {
                continue;
            };
            let ex_ptr = comp.unwrap_or_else(|| at(&map_ptr, name));
            let Some(o) = ex.as_object() else {
                cx.error(
                    "prompt-example-shape",
                    ex_ptr,
                    "a Prompt Example must be an object with `result`",
                );
                continue;
            };
            let args = o.get("arguments");
            match args {
                None => {}
                Some(Value::Object(m)) => {
                    let ap = at(&ex_ptr, "arguments");
                    for (k, v) in m {
                        let kp = at(&ap, k);
                        if !v.is_string() {
                            cx.error(
                                "prompt-example-shape",
                                &kp,
                                "Prompt example argument values must be strings (§11.3)",
                            );
                        }
                        if !declared.iter().any(|(n, _)| n == k) {
                            cx.error(
                                "prompt-example-argument-unknown",
                                &kp,
                                format!("`{k}` is not an argument of this Prompt (§11.3)"),
                            );
                        }
                    }
                }
                Some(_) => cx.error(
                    "prompt-example-shape",
                    at(&ex_ptr, "arguments"),
                    "`arguments` must be a map of strings (§11.3)",
                ),
            }
            let present = args.and_then(Value::as_object);
            for (n, required) in &declared {
                if *required && !present.is_some_and(|m| m.contains_key(n)) {
                    let ap = if present.is_some() {
                        at(&ex_ptr, "arguments")
                    } else {
                        ex_ptr.clone()
                    };
                    cx.error(
                        "prompt-example-argument-missing",
                        ap,
                        format!("required Prompt argument `{n}` is missing (§11.3)"),
                    );
                }
            }
            match o.get("result") {
                Some(Value::Object(r)) => {
                    let rp = at(&ex_ptr, "result");
                    check_result_frame(cx, r, &rp, p.scope);
                    match r.get("messages") {
                        Some(Value::Array(msgs)) => {
                            let mp = at(&rp, "messages");
                            for (i, m) in msgs.iter().enumerate() {
                                if let Some(c) = m.get("content") {
                                    check_content_block(
                                        cx,
                                        c,
                                        &at(&at(&mp, &i.to_string()), "content"),
                                        p.scope,
                                    );
                                }
                            }
                        }
                        Some(_) => cx.error(
                            "prompt-example-shape",
                            at(&rp, "messages"),
                            "`messages` must be an array (§11.3)",
                        ),
                        None => cx.error(
                            "prompt-example-shape",
                            &rp,
                            "a Prompt result must contain the ordered `messages` array (§11.3)",
                        ),
                    }
                }
                Some(_) => cx.error(
                    "prompt-example-shape",
                    at(&ex_ptr, "result"),
                    "`result` must be an object (§11.3)",
                ),
                None => cx.error(
                    "prompt-example-shape",
                    &ex_ptr,
                    "a Prompt Example must contain `result` (§11.3)",
                ),
            }
        }
    }
    let names: Vec<String> = declared.into_iter().map(|(n, _)| n).collect();
    check_completion_examples(cx, p, Some(&names));
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use serde_json::json;

    #[test]
    fn arguments_and_results() {
        let d = doc(
            &["2025-03-26", "2025-11-25", "2026-07-28"],
            json!({"prompts": [
                {"name": "city", "protocolVersions": ["2026-07-28"], "arguments": [{"name": "city", "required": true}, {"name": "audience"}],
                 "examples": {"u": {"arguments": {"audience": "eng", "rogue": "x"}, "result": {"messages": []}}}},
                {"name": "legacy", "protocolVersions": ["2025-03-26"],
                 "examples": {"l": {"result": {"messages": [{"role": "assistant", "content": {"type": "resource_link", "uri": "b://x", "name": "n"}}]}}}},
                {"name": "shape", "protocolVersions": ["2026-07-28"],
                 "examples": {"a": {"arguments": [], "result": {"resultType": "complete", "messages": []}},
                              "n": {"arguments": {"count": 1}, "result": {"resultType": "complete", "messages": []}},
                              "m": {"arguments": {}}}}]}),
        );
        let e = errors(&d);
        assert!(has(
            &e,
            "prompt-example-argument-unknown",
            "/prompts/0/examples/u/arguments/rogue"
        ));
        assert!(has(
            &e,
            "prompt-example-argument-missing",
            "/prompts/0/examples/u/arguments"
        ));
        assert!(has(
            &e,
            "result-type-missing",
            "/prompts/0/examples/u/result"
        ));
        assert!(has(
            &e,
            "content-type-inapplicable",
            "/prompts/1/examples/l/result/messages/0/content/type"
        ));
        assert!(has(
            &e,
            "prompt-example-shape",
            "/prompts/2/examples/a/arguments"
        ));
        assert!(has(
            &e,
            "prompt-example-shape",
            "/prompts/2/examples/n/arguments/count"
        ));
        assert!(has(&e, "prompt-example-shape", "/prompts/2/examples/m"));
    }

    #[test]
    fn valid_prompt_examples() {
        let d = doc(
            &["2025-11-25", "2026-07-28"],
            json!({"components": {"promptExamples": {"g": {"arguments": {}, "result": {"resultType": "complete", "messages": [{"role": "assistant", "content": {"type": "text", "text": "Hello."}}]}}}},
                   "prompts": [{"name": "greeting", "protocolVersions": ["2026-07-28"], "examples": {"default": {"$componentRef": "#/components/promptExamples/g"}}},
                               {"name": "greeting", "protocolVersions": ["2025-11-25"], "examples": {"default": {"result": {"messages": []}}}}]}),
        );
        assert!(run(&d).is_empty(), "{:?}", run(&d));
        // The same component is wrong where `resultType` is not defined.
        let d = doc(
            &["2025-11-25"],
            json!({"components": {"promptExamples": {"g": {"result": {"resultType": "complete", "messages": []}}}},
                   "prompts": [{"name": "greeting", "examples": {"default": {"$componentRef": "#/components/promptExamples/g"}}}]}),
        );
        assert!(has(
            &errors(&d),
            "result-type-inapplicable",
            "/components/promptExamples/g/result/resultType"
        ));
    }
}
