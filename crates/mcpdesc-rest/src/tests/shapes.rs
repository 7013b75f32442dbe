//! The values OpenAPI's styles cannot carry (RFC 6570 defines one level of structure;
//! the *Style Examples* table marks some combinations n/a): tool errors that say which
//! item, member or combination, as the model reads them.

use super::*;

fn query(style: &str, explode: bool) -> Value {
    doc(
        get(
            "/x",
            json!({"a": {"in": "query", "style": style, "explode": explode}}),
        ),
        json!({"a": {}}),
    )
}

fn error(d: &Value, v: Value) -> String {
    request(d, json!({ "a": v })).expect_err("cannot be serialized")
}

const ARG: &str = "argument `a` (query parameter `a`): ";

#[test]
fn nested_and_null_items_name_their_position() {
    let d = query("form", true);
    assert_eq!(
        error(&d, json!([1, [2]])),
        format!(
            "{ARG}item 1 is an array or object; OpenAPI parameter styles serialize only arrays of primitives (RFC 6570 defines one level)"
        )
    );
    assert_eq!(
        error(&d, json!(["x", {"b": 1}])),
        format!(
            "{ARG}item 1 is an array or object; OpenAPI parameter styles serialize only arrays of primitives (RFC 6570 defines one level)"
        )
    );
    assert_eq!(
        error(&d, json!([null])),
        format!(
            "{ARG}item 0 is null, which cannot be serialized inside an array (RFC 6570 has no undefined list members)"
        )
    );
    assert_eq!(
        error(&d, json!({"b": 1, "c": [2]})),
        format!(
            "{ARG}member `c` is an array or object; OpenAPI parameter styles serialize only objects with primitive members (RFC 6570 defines one level)"
        )
    );
    // `null` members are left out (undefined); numbers and booleans are their JSON text.
    assert_eq!(
        request(&d, json!({"a": {"b": null, "c": 1.5, "d": false}}))
            .expect("sent")
            .url,
        format!("{BASE}/x?c=1.5&d=false")
    );
}

#[test]
fn combinations_the_table_marks_not_applicable() {
    for style in ["spaceDelimited", "pipeDelimited"] {
        assert_eq!(
            error(&query(style, true), json!(["x"])),
            format!(
                "{ARG}style `{style}` with explode: true is undefined in OpenAPI (n/a in the Style Examples table)"
            )
        );
        for (v, kind) in [
            (json!("x"), "a primitive value"),
            (json!(null), "an undefined value (null or empty)"),
        ] {
            assert_eq!(
                error(&query(style, false), v),
                format!(
                    "{ARG}style `{style}` serializes arrays and objects, not {kind} (n/a in OpenAPI's Style Examples table)"
                )
            );
        }
    }
    assert_eq!(
        error(&query("deepObject", false), json!({"b": 1})),
        format!(
            "{ARG}style `deepObject` with explode: false is undefined in OpenAPI (n/a in the Style Examples table)"
        )
    );
    for (v, kind) in [
        (json!(["x"]), "an array"),
        (json!("x"), "a primitive value"),
        (json!({}), "an undefined value (null or empty)"),
    ] {
        assert_eq!(
            error(&query("deepObject", true), v),
            format!(
                "{ARG}style `deepObject` serializes objects with primitive members, not {kind} (n/a in OpenAPI's Style Examples table)"
            )
        );
    }
    // Cookies: `form` with explode cannot carry several values.
    let d = doc(
        get("/x", json!({"a": {"in": "cookie", "explode": true}})),
        json!({"a": {}}),
    );
    assert_eq!(
        request(&d, json!({"a": ["x", "y"]})).expect_err("several values"),
        "argument `a` (cookie parameter `a`): style `form` with explode: true cannot carry several cookie values (OpenAPI 3.1.1 Appendix D); the parameter needs explode: false"
    );
    assert_eq!(
        header(
            &request(&d, json!({"a": "x y"})).expect("one value"),
            "Cookie"
        ),
        Some("a=x%20y")
    );
}

#[test]
fn multipart_styles_the_table_marks_not_applicable() {
    let d = |style: &str, explode: bool| {
        doc(
            json!({"method": "POST", "path": "/x",
                   "requestBody": {"contentType": "multipart/form-data", "as": "properties",
                                   "encoding": {"a": {"style": style, "explode": explode}}},
                   "arguments": {"a": {"in": "body", "name": "a"}}}),
            json!({"a": {}}),
        )
    };
    assert_eq!(
        error(&d("pipeDelimited", true), json!(["x"])),
        "argument `a` (body member `a`): style `pipeDelimited` with explode: true is undefined in OpenAPI"
    );
    assert_eq!(
        error(&d("spaceDelimited", false), json!("x")),
        "argument `a` (body member `a`): style `spaceDelimited` serializes arrays and objects, not a primitive value"
    );
    assert_eq!(
        error(&d("deepObject", false), json!({"k": "v"})),
        "argument `a` (body member `a`): style `deepObject` needs explode: true and an object with primitive members, not an object"
    );
    assert_eq!(
        error(&d("matrix", false), json!("x")),
        "argument `a` (body member `a`): style `matrix` is not defined for form members (form, spaceDelimited, pipeDelimited, deepObject)"
    );
    // form-urlencoded members are query-like: the query rules name the style.
    let d = doc(
        json!({"method": "POST", "path": "/x",
               "requestBody": {"contentType": "application/x-www-form-urlencoded", "as": "properties",
                               "encoding": {"a": {"style": "label"}}},
               "arguments": {"a": {"in": "body", "name": "a"}}}),
        json!({"a": {}}),
    );
    assert_eq!(
        error(&d, json!("x")),
        "argument `a` (body member `a`): style `label` is not defined for query parameters (form, spaceDelimited, pipeDelimited, deepObject)"
    );
    // Undefined and primitive values of `form`.
    let d = d_form();
    let (_, body) = super::body_text(&d, json!({"a": null, "b": 2}));
    assert_eq!(body, "a=&b=2");
}

fn d_form() -> Value {
    doc(
        json!({"method": "POST", "path": "/x",
               "requestBody": {"contentType": "application/x-www-form-urlencoded", "as": "properties",
                               "encoding": {"a": {"style": "form"}, "b": {"style": "form"}}},
               "arguments": {"a": {"in": "body", "name": "a"}, "b": {"in": "body", "name": "b"}}}),
        json!({"a": {}, "b": {}}),
    )
}
