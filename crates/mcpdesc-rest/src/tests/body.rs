//! Request bodies by media type (OpenAPI 3.1.1 §4.8.13–§4.8.15, RFC 7578, WHATWG
//! `application/x-www-form-urlencoded`), byte for byte.

use super::*;
use crate::Secret;

/// `POST /x` with this request body and these arguments' provenance.
fn post(body: Value, arguments: Value, props: Value) -> Value {
    doc(
        json!({"method": "POST", "path": "/x", "requestBody": body, "arguments": arguments}),
        props,
    )
}

/// The body sent: its `Content-Type` and bytes as text.
fn sent(d: &Value, arguments: Value) -> Result<Option<(String, String)>, String> {
    request(d, arguments).map(|r| {
        r.body.map(|b| {
            (
                b.content_type,
                String::from_utf8(b.bytes).expect("a text body"),
            )
        })
    })
}

fn body_bytes(d: &Value, arguments: Value) -> Vec<u8> {
    request(d, arguments)
        .expect("sent")
        .body
        .expect("a body")
        .bytes
}

#[test]
fn json_members_become_one_object_in_provenance_order() {
    let d = post(
        json!({"contentType": "application/json", "as": "properties"}),
        json!({
            "petName": {"in": "body", "name": "name"},
            "tag": {"in": "body", "name": "tag"},
            "id": {"in": "query", "name": "id"}
        }),
        json!({"petName": {}, "tag": {}, "id": {}}),
    );
    assert_eq!(
        sent(&d, json!({"tag": null, "id": 1, "petName": "Rex"})),
        Ok(Some((
            "application/json".into(),
            r#"{"name":"Rex","tag":null}"#.into()
        )))
    );
    // No member given and the body is optional: no body at all.
    assert_eq!(sent(&d, json!({"id": 1})), Ok(None));
    let mut d = d;
    d["tools"][0]["x-mcpdesc-openapi"]["requestBody"]["required"] = json!(true);
    assert_eq!(
        sent(&d, json!({"id": 1})),
        Ok(Some(("application/json".into(), "{}".into())))
    );
}

#[test]
fn a_whole_body_argument_is_sent_as_its_media_type() {
    let d = post(
        json!({"contentType": "application/merge-patch+json", "as": "body"}),
        json!({"patch": {"in": "body"}}),
        json!({"patch": {}}),
    );
    assert_eq!(
        sent(&d, json!({"patch": {"a": [1, "x"], "b": null}})),
        Ok(Some((
            "application/merge-patch+json".into(),
            r#"{"a":[1,"x"],"b":null}"#.into()
        )))
    );
    assert_eq!(sent(&d, json!({})), Ok(None));
    let d = post(
        json!({"contentType": "text/plain; charset=utf-8", "as": "body"}),
        json!({"note": {"in": "body"}}),
        json!({"note": {"type": "string"}}),
    );
    assert_eq!(
        sent(&d, json!({"note": "héllo"})),
        Ok(Some(("text/plain; charset=utf-8".into(), "héllo".into())))
    );
    assert_eq!(
        sent(&d, json!({"note": 5})),
        Err("argument `note`: a text/plain; charset=utf-8 body must be a string".into())
    );
    // Separate members cannot make a text or binary body.
    let d = post(
        json!({"contentType": "text/plain", "as": "properties"}),
        json!({"a": {"in": "body", "name": "a"}}),
        json!({"a": {}}),
    );
    assert_eq!(
        sent(&d, json!({"a": "x"})),
        Err("a text/plain body cannot be built from separate members".into())
    );
}

#[test]
fn binary_bodies_are_decoded_from_base64_or_base64url() {
    let file = |encoding: Option<&str>| {
        let mut schema = json!({"type": "string"});
        if let Some(e) = encoding {
            schema["contentEncoding"] = json!(e);
        }
        post(
            json!({"contentType": "application/octet-stream", "as": "body"}),
            json!({"file": {"in": "body"}}),
            json!({ "file": schema }),
        )
    };
    let b64 = file(Some("base64"));
    assert_eq!(body_bytes(&b64, json!({"file": "aGVsbG8="})), b"hello");
    // Padding is optional.
    assert_eq!(body_bytes(&b64, json!({"file": "aGVsbG8"})), b"hello");
    let e = request(&b64, json!({"file": "-_8"})).expect_err("not base64");
    assert!(
        e.starts_with("argument `file` is not valid base64: "),
        "{e}"
    );
    let url = file(Some("base64url"));
    assert_eq!(body_bytes(&url, json!({"file": "-_8"})), [0xfb, 0xff]);
    let e = request(&url, json!({"file": "+/8="})).expect_err("not base64url");
    assert!(
        e.starts_with("argument `file` is not valid base64url: "),
        "{e}"
    );
    // No contentEncoding: the string's own bytes.
    assert_eq!(body_bytes(&file(None), json!({"file": "aGk="})), b"aGk=");
    assert_eq!(
        request(&b64, json!({"file": 1})).expect_err("a number"),
        "argument `file`: binary content must be a base64 string"
    );
    let r = request(&b64, json!({"file": "aGk="})).expect("sent");
    assert_eq!(
        r.body.map(|b| b.content_type).as_deref(),
        Some("application/octet-stream")
    );
}

#[test]
fn form_urlencoded_members_by_their_encoding_defaults() {
    // OpenAPI 3.1.1 Encoding Object defaults: primitives text/plain, objects JSON; an
    // array is one pair per item; WHATWG form-urlencoding (space `+`).
    let d = post(
        json!({"contentType": "application/x-www-form-urlencoded", "as": "properties",
               "encoding": {"s": {"contentType": "application/json"}}}),
        json!({
            "ab": {"in": "body", "name": "a b"},
            "n": {"in": "body", "name": "n"},
            "obj": {"in": "body", "name": "obj"},
            "tags": {"in": "body", "name": "tags"},
            "nul": {"in": "body", "name": "nul"},
            "s": {"in": "body", "name": "s"},
            "any": {"in": "body", "name": "any"}
        }),
        json!({
            "ab": {"type": "string"},
            "n": {"type": "integer"},
            "obj": {"type": "object"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "nul": {},
            "s": {"type": "string"},
            "any": {}
        }),
    );
    assert_eq!(
        sent(
            &d,
            json!({"ab": "x&y z*~", "n": 5, "obj": {"k": 1}, "tags": ["a", "b c"],
                   "nul": null, "s": "v", "any": {"z": true}})
        ),
        Ok(Some((
            "application/x-www-form-urlencoded".into(),
            "a+b=x%26y+z*%7E&n=5&obj=%7B%22k%22%3A1%7D&tags=a&tags=b+c&s=%22v%22&any=%7B%22z%22%3Atrue%7D"
                .into()
        )))
    );
    // A whole-body object argument: members by their values.
    let d = post(
        json!({"contentType": "application/x-www-form-urlencoded", "as": "body"}),
        json!({"form": {"in": "body"}}),
        json!({"form": {}}),
    );
    assert_eq!(
        sent(&d, json!({"form": {"a": 1, "b": "x y", "c": [1]}})),
        Ok(Some((
            "application/x-www-form-urlencoded".into(),
            "a=1&b=x+y&c=1".into()
        )))
    );
    assert_eq!(
        sent(&d, json!({"form": "a=1"})),
        Err("argument `form`: a application/x-www-form-urlencoded body must be an object".into())
    );
}

#[test]
fn form_members_with_a_style_are_serialized_like_query_parameters() {
    let d = post(
        json!({"contentType": "application/x-www-form-urlencoded", "as": "properties",
        "encoding": {
            "csv": {"style": "form", "explode": false},
            "pipes": {"style": "pipeDelimited"},
            "deep": {"style": "deepObject", "explode": true},
            "res": {"allowReserved": true},
            "unres": {"explode": true}
        }}),
        json!({
            "csv": {"in": "body", "name": "csv"},
            "pipes": {"in": "body", "name": "pipes"},
            "deep": {"in": "body", "name": "deep"},
            "res": {"in": "body", "name": "res"},
            "unres": {"in": "body", "name": "unres"}
        }),
        json!({"csv": {}, "pipes": {}, "deep": {}, "res": {}, "unres": {}}),
    );
    assert_eq!(
        sent(
            &d,
            json!({"csv": ["a", "b c"], "pipes": ["a", "b"], "deep": {"k": "v w"},
                   "res": "a/b?c", "unres": "a/b"})
        ),
        Ok(Some((
            "application/x-www-form-urlencoded".into(),
            "csv=a,b%20c&pipes=a%7Cb&deep%5Bk%5D=v%20w&res=a/b?c&unres=a%2Fb".into()
        )))
    );
    let e = sent(&d, json!({"pipes": "one"})).expect_err("n/a");
    assert_eq!(
        e,
        "argument `pipes` (body member `pipes`): style `pipeDelimited` serializes arrays and objects, not a primitive value (n/a in OpenAPI's Style Examples table)"
    );
    // Swagger 2.0 form parameters: collectionFormat for arrays (recorded with the 3.x
    // style beside it), the value as text otherwise.
    for (cf, style, explode, want) in [
        ("csv", "form", false, "t=a,b%20c"),
        ("ssv", "spaceDelimited", false, "t=a%20b%20c"),
        ("tsv", "form", false, "t=a%09b%20c"),
        ("pipes", "pipeDelimited", false, "t=a%7Cb%20c"),
        ("multi", "form", true, "t=a&t=b%20c"),
    ] {
        let d = post(
            json!({"contentType": "application/x-www-form-urlencoded", "as": "properties"}),
            json!({"t": {"in": "body", "name": "t", "collectionFormat": cf, "style": style, "explode": explode}}),
            json!({"t": {}}),
        );
        assert_eq!(
            sent(&d, json!({"t": ["a", "b c"]})).map(|b| b.map(|b| b.1)),
            Ok(Some(want.to_string())),
            "{cf}"
        );
        assert_eq!(
            sent(&d, json!({"t": "one two"})).map(|b| b.map(|b| b.1)),
            Ok(Some("t=one+two".to_string())),
            "{cf} with a primitive"
        );
    }
}

/// The boundary of a multipart body, and the body with it replaced by `B`.
fn multipart(d: &Value, arguments: Value) -> (String, String) {
    let r = request(d, arguments).expect("sent");
    let b = r.body.expect("a body");
    let boundary = b
        .content_type
        .strip_prefix("multipart/form-data; boundary=")
        .expect("the boundary parameter")
        .to_string();
    assert!(boundary.len() >= 16 && boundary.len() <= 70, "{boundary}");
    let text = String::from_utf8(b.bytes).expect("text parts");
    (boundary.clone(), text.replace(&boundary, "B"))
}

#[test]
fn multipart_parts_per_member_with_their_content_types() {
    let d = post(
        json!({"contentType": "multipart/form-data", "as": "properties",
        "encoding": {
            "img": {"contentType": "image/*"},
            "other": {"contentType": "image/*"},
            "any": {"contentType": "*/*"},
            "list": {"contentType": "text/csv, text/plain"}
        }}),
        json!({
            "text": {"in": "body", "name": "text"},
            "n": {"in": "body", "name": "n"},
            "obj": {"in": "body", "name": "obj"},
            "file": {"in": "body", "name": "file"},
            "tags": {"in": "body", "name": "tags"},
            "img": {"in": "body", "name": "img"},
            "other": {"in": "body", "name": "other"},
            "any": {"in": "body", "name": "any"},
            "list": {"in": "body", "name": "list"},
            "quoted": {"in": "body", "name": "a\"b\r\n%"}
        }),
        json!({
            "text": {"type": "string"},
            "n": {"type": "number"},
            "obj": {"type": "object"},
            "file": {"type": "string", "contentEncoding": "base64"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "img": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"},
            "other": {"type": "string", "contentEncoding": "base64", "contentMediaType": "text/plain"},
            "any": {"type": "string", "contentEncoding": "base64", "contentMediaType": "application/pdf"},
            "list": {"type": "string"},
            "quoted": {"type": "string"}
        }),
    );
    let (_, body) = multipart(
        &d,
        json!({"text": "hi", "n": 1.5, "obj": {"k": 1}, "file": "aGk=", "tags": ["a", "b"],
               "img": "aQ==", "other": "aQ==", "any": "aQ==", "list": "x,y", "quoted": "q"}),
    );
    let want = "--B\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhi\r\n\
                --B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n1.5\r\n\
                --B\r\nContent-Disposition: form-data; name=\"obj\"\r\nContent-Type: application/json\r\n\r\n{\"k\":1}\r\n\
                --B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"file\"\r\nContent-Type: application/octet-stream\r\n\r\nhi\r\n\
                --B\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\na\r\n\
                --B\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\nb\r\n\
                --B\r\nContent-Disposition: form-data; name=\"img\"; filename=\"img\"\r\nContent-Type: image/png\r\n\r\ni\r\n\
                --B\r\nContent-Disposition: form-data; name=\"other\"; filename=\"other\"\r\nContent-Type: application/octet-stream\r\n\r\ni\r\n\
                --B\r\nContent-Disposition: form-data; name=\"any\"; filename=\"any\"\r\nContent-Type: application/pdf\r\n\r\ni\r\n\
                --B\r\nContent-Disposition: form-data; name=\"list\"\r\nContent-Type: text/csv\r\n\r\nx,y\r\n\
                --B\r\nContent-Disposition: form-data; name=\"a%22b%0D%0A%25\"\r\n\r\nq\r\n\
                --B--\r\n";
    assert_eq!(body, want);
    // A member whose encoding says JSON is JSON text even when binary.
    let d = post(
        json!({"contentType": "multipart/form-data", "as": "properties",
               "encoding": {"meta": {"contentType": "application/json"}}}),
        json!({"meta": {"in": "body", "name": "meta"}}),
        json!({"meta": {"type": "string", "contentEncoding": "base64"}}),
    );
    let (_, body) = multipart(&d, json!({"meta": "aGk="}));
    assert_eq!(
        body,
        "--B\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n\"aGk=\"\r\n--B--\r\n"
    );
    // `null` is undefined: the member is left out.
    assert_eq!(multipart(&d, json!({"meta": null})).1, "--B--\r\n");
}

#[test]
fn multipart_members_with_a_style_are_raw_name_value_parts() {
    let d = post(
        json!({"contentType": "multipart/form-data", "as": "properties",
        "encoding": {
            "deep": {"style": "deepObject", "explode": true},
            "sp": {"style": "spaceDelimited", "explode": false},
            "pipes": {"style": "pipeDelimited", "explode": false},
            "flat": {"style": "form", "explode": false},
            "each": {"style": "form", "explode": true},
            "pairs": {"style": "form", "explode": true}
        }}),
        json!({
            "deep": {"in": "body", "name": "deep"},
            "sp": {"in": "body", "name": "sp"},
            "pipes": {"in": "body", "name": "pipes"},
            "flat": {"in": "body", "name": "flat"},
            "each": {"in": "body", "name": "each"},
            "pairs": {"in": "body", "name": "pairs"},
            "ssv": {"in": "body", "name": "ssv", "collectionFormat": "ssv", "style": "spaceDelimited", "explode": false},
            "multi": {"in": "body", "name": "multi", "collectionFormat": "multi", "style": "form", "explode": true}
        }),
        json!({"deep": {}, "sp": {}, "pipes": {}, "flat": {}, "each": {}, "pairs": {}, "ssv": {}, "multi": {}}),
    );
    let (_, body) = multipart(
        &d,
        json!({"deep": {"k": "v"}, "sp": ["a", "b"], "pipes": {"x": 1, "y": 2}, "flat": {"x": 1, "y": "z"},
               "each": ["a", "b"], "pairs": {"p": "1", "q": "2"}, "ssv": ["a", "b c"], "multi": ["m", "n"]}),
    );
    let part = |n: &str, v: &str| {
        format!("--B\r\nContent-Disposition: form-data; name=\"{n}\"\r\n\r\n{v}\r\n")
    };
    let want = [
        part("deep[k]", "v"),
        part("sp", "a b"),
        part("pipes", "x|1|y|2"),
        part("flat", "x,1,y,z"),
        part("each", "a"),
        part("each", "b"),
        part("p", "1"),
        part("q", "2"),
        part("ssv", "a b c"),
        part("multi", "m"),
        part("multi", "n"),
    ]
    .concat()
        + "--B--\r\n";
    assert_eq!(body, want);
    let e = request(&d, json!({"deep": ["a"]})).expect_err("deepObject needs an object");
    assert_eq!(
        e,
        "argument `deep` (body member `deep`): style `deepObject` needs explode: true and an object with primitive members, not an array"
    );
}

#[test]
fn a_configured_content_type_gives_way_to_the_body() {
    let opts = || RestOptions {
        static_headers: vec![("content-type".into(), Secret::new("text/csv"))],
        ..RestOptions::default()
    };
    let d = post(
        json!({"contentType": "application/json", "as": "body"}),
        json!({"b": {"in": "body"}}),
        json!({"b": {}}),
    );
    let r = request_with(&d, opts(), json!({"b": [1]}), &[]).expect("sent");
    assert_eq!(header(&r, "Content-Type"), None);
    assert_eq!(
        r.body.map(|b| (b.content_type, b.bytes)),
        Some(("application/json".to_string(), b"[1]".to_vec()))
    );
    // No body: the configured field is sent.
    let r = request_with(&d, opts(), json!({}), &[]).expect("sent");
    assert_eq!(header(&r, "Content-Type"), Some("text/csv"));
    assert!(r.body.is_none());
}

#[test]
fn untyped_members_take_their_defaults_from_the_value() {
    // No schema type: an object or array value is JSON, anything else text/plain.
    let d = post(
        json!({"contentType": "multipart/form-data", "as": "properties"}),
        json!({"o": {"in": "body", "name": "o"}, "s": {"in": "body", "name": "s"}}),
        json!({"o": {}, "s": {}}),
    );
    let (_, body) = multipart(&d, json!({"o": {"k": [1]}, "s": 2}));
    assert_eq!(
        body,
        "--B\r\nContent-Disposition: form-data; name=\"o\"\r\nContent-Type: application/json\r\n\r\n{\"k\":[1]}\r\n\
         --B\r\nContent-Disposition: form-data; name=\"s\"\r\n\r\n2\r\n--B--\r\n"
    );
}

#[test]
fn a_recorded_explode_alone_makes_a_member_style_serialized() {
    // Recording any of style, explode or allowReserved on the argument selects
    // style-based serialization (OpenAPI 3.1.1 §4.8.15): here `form` without explode.
    for (arg, want) in [
        (
            json!({"in": "body", "name": "t", "explode": false}),
            "t=a,b",
        ),
        (
            json!({"in": "body", "name": "t", "style": "pipeDelimited"}),
            "t=a%7Cb",
        ),
        (
            json!({"in": "body", "name": "t", "allowReserved": true}),
            "t=a&t=b",
        ),
        (json!({"in": "body", "name": "t"}), "t=a&t=b"),
    ] {
        let d = post(
            json!({"contentType": "application/x-www-form-urlencoded", "as": "properties"}),
            json!({ "t": arg }),
            json!({"t": {}}),
        );
        assert_eq!(
            sent(&d, json!({"t": ["a", "b"]})).map(|b| b.map(|b| b.1)),
            Ok(Some(want.to_string())),
            "{arg}"
        );
    }
    // allowReserved on the argument: reserved characters pass.
    let d = post(
        json!({"contentType": "application/x-www-form-urlencoded", "as": "properties"}),
        json!({"t": {"in": "body", "name": "t", "allowReserved": true}}),
        json!({"t": {}}),
    );
    assert_eq!(
        sent(&d, json!({"t": "a/b"})).map(|b| b.map(|b| b.1)),
        Ok(Some("t=a/b".to_string()))
    );
}

/// Swagger 2.0 `collectionFormat` of a `formData` array sent as `multipart/form-data`:
/// the Parameter Object's table (csv `,`, ssv space, tsv tab, pipes `|`) joins the items
/// into one part's raw text (RFC 7578 parts are not percent-encoded), and `multi` sends
/// one part per item ("corresponds to multiple parameter instances").
#[test]
fn multipart_collection_formats_follow_the_swagger_table() {
    for (cf, style, explode, want) in [
        ("csv", "form", false, vec!["a,b c"]),
        ("ssv", "spaceDelimited", false, vec!["a b c"]),
        ("tsv", "form", false, vec!["a\tb c"]),
        ("pipes", "pipeDelimited", false, vec!["a|b c"]),
        ("multi", "form", true, vec!["a", "b c"]),
    ] {
        let d = post(
            json!({"contentType": "multipart/form-data", "as": "properties"}),
            json!({"t": {"in": "body", "name": "t", "collectionFormat": cf, "style": style, "explode": explode}}),
            json!({"t": {}}),
        );
        let (_, body) = multipart(&d, json!({"t": ["a", "b c"]}));
        let parts: String = want
            .iter()
            .map(|v| format!("--B\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\n{v}\r\n"))
            .collect();
        assert_eq!(body, parts + "--B--\r\n", "{cf}");
    }
}

/// OpenAPI 3.1.1 §4.8.15's Encoding Object `contentType` defaults are by the *schema*:
/// a primitive type is `text/plain` (which RFC 7578 lets a part leave unsaid), an object
/// `application/json`, and only an untyped schema falls back to the value's own shape.
#[test]
fn a_primitive_schema_makes_a_text_part_whatever_the_value() {
    let d = post(
        json!({"contentType": "multipart/form-data", "as": "properties"}),
        json!({
            "s": {"in": "body", "name": "s"},
            "n": {"in": "body", "name": "n"},
            "o": {"in": "body", "name": "o"},
            "u": {"in": "body", "name": "u"}
        }),
        json!({
            "s": {"type": "string"},
            "n": {"type": "integer"},
            "o": {"type": "object"},
            "u": {}
        }),
    );
    let (_, body) = multipart(
        &d,
        json!({"s": {"k": 1}, "n": {"k": 2}, "o": {"k": 1}, "u": {"k": 1}}),
    );
    let want = "--B\r\nContent-Disposition: form-data; name=\"s\"\r\n\r\n{\"k\":1}\r\n\
                --B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n{\"k\":2}\r\n\
                --B\r\nContent-Disposition: form-data; name=\"o\"\r\nContent-Type: application/json\r\n\r\n{\"k\":1}\r\n\
                --B\r\nContent-Disposition: form-data; name=\"u\"\r\nContent-Type: application/json\r\n\r\n{\"k\":1}\r\n\
                --B--\r\n";
    assert_eq!(body, want);
}
