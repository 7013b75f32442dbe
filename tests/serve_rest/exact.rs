//! Proof 3: exact requests. Each expectation is written by hand from the rule it
//! cites; the recorder shows the bytes that arrived.

use super::recorder::{Recorder, Reply};
use super::*;
use mcpdesc_core::ProtocolRevision::V2026_07_28 as LATEST;

fn ok_json() -> Recorder {
    Recorder::always(Reply::json(200, r#"{"ok":true}"#))
}

#[tokio::test]
async fn parameters_in_every_location_and_style() {
    let rec = ok_json();
    let d = doc(
        vec![tool(
            "params",
            json!({"type": "object", "properties": {
                "id": {"type": "integer"}, "label": {"type": "array", "items": {"type": "string"}},
                "matrix": {"type": "array", "items": {"type": "string"}},
                "q": {"type": "array", "items": {"type": "integer"}},
                "s": {"type": "array", "items": {"type": "string"}},
                "p": {"type": "array", "items": {"type": "string"}},
                "deep": {"type": "object"}, "reserved": {"type": "string"},
                "filter": {"type": "object"}, "trace": {"type": "array", "items": {"type": "string"}},
                "session": {"type": "string"}, "id__query": {"type": "string"}
            }}),
            json!({
                "method": "GET",
                "path": "/items/{id}/{label}/x{m}",
                "servers": ["http://127.0.0.1:9/unused"],
                "arguments": {
                    "id": {"in": "path", "name": "id", "style": "simple", "explode": false},
                    "label": {"in": "path", "name": "label", "style": "label", "explode": false},
                    "matrix": {"in": "path", "name": "m", "style": "matrix", "explode": true},
                    "q": {"in": "query", "name": "q", "style": "form", "explode": true},
                    "s": {"in": "query", "name": "s", "style": "spaceDelimited", "explode": false},
                    "p": {"in": "query", "name": "p", "style": "pipeDelimited", "explode": false},
                    "deep": {"in": "query", "name": "d", "style": "deepObject", "explode": true},
                    "reserved": {"in": "query", "name": "r", "style": "form", "explode": true, "allowReserved": true},
                    "filter": {"in": "query", "name": "f", "contentType": "application/json"},
                    "trace": {"in": "header", "name": "X-Trace", "style": "simple", "explode": false},
                    "session": {"in": "cookie", "name": "session", "style": "form", "explode": true},
                    "id__query": {"in": "query", "name": "id", "style": "form", "explode": true}
                }
            }),
        )],
        json!({}),
    );
    let b = gateway(&d, at(&format!("{}/base/", rec.base())));
    let args = json!({
        "id": 7, "label": ["a", "b"], "matrix": ["x", "y"], "q": [1, 2], "s": ["a", "b"],
        "p": ["a", "b"], "deep": {"k": "v", "n": 1}, "reserved": "a/b?c", "filter": {"a": 1},
        "trace": ["t1", "t2"], "session": "abc d", "id__query": "dup"
    });
    let out = call(&b, &d, "params", args, LATEST).await;
    assert_eq!(out.result.get("isError"), None, "{:#}", out.result);
    let r = rec.one();
    assert_eq!(r.method, "GET");
    // --base-url replaces the server; trailing `/` dropped; label `.a,b`, matrix exploded.
    assert_eq!(
        r.target,
        "/base/items/7/.a,b/x;m=x;m=y?q=1&q=2&s=a%20b&p=a%7Cb&d%5Bk%5D=v&d%5Bn%5D=1&r=a/b?c&f=%7B%22a%22%3A1%7D&id=dup"
    );
    assert_eq!(r.header("X-Trace"), Some("t1,t2"));
    assert_eq!(r.header("Cookie"), Some("session=abc%20d"));
    // The recorded response media type is not known here: no Accept from the plan.
    assert_eq!(out.log.upstream.as_ref().map(|u| u.status), Some(Some(200)));
}

#[tokio::test]
async fn ignored_headers_and_absent_arguments() {
    let rec = ok_json();
    let d = doc(
        vec![tool(
            "t",
            json!({"type": "object", "properties": {"accept": {}, "ct": {}, "auth": {}, "opt": {}}}),
            json!({
                "method": "DELETE", "path": "/x",
                "response": {"status": "200", "contentType": "application/json"},
                "arguments": {
                    "accept": {"in": "header", "name": "Accept"},
                    "ct": {"in": "header", "name": "content-type"},
                    "auth": {"in": "header", "name": "Authorization"},
                    "opt": {"in": "query", "name": "opt"}
                }
            }),
        )],
        json!({}),
    );
    let b = gateway(&d, at(&rec.base()));
    call(
        &b,
        &d,
        "t",
        json!({"accept": "text/html", "ct": "x/y", "auth": "Bearer stolen"}),
        LATEST,
    )
    .await;
    let r = rec.one();
    assert_eq!(r.method, "DELETE");
    // Absent arguments send nothing; OpenAPI: header parameters Accept, Content-Type,
    // Authorization SHALL be ignored; Accept comes from the recorded response.
    assert_eq!(r.target, "/x");
    assert_eq!(r.headers_named("accept"), ["application/json, */*;q=0.1"]);
    assert!(r.header("authorization").is_none());
    assert!(r.header("content-type").is_none());
}

#[tokio::test]
async fn json_bodies() {
    let rec = ok_json();
    let d = doc(
        vec![
            tool(
                "patch",
                json!({"type": "object", "properties": {"id": {}, "name": {}, "tags": {}, "gone": {}}}),
                json!({
                    "method": "PATCH", "path": "/pets/{id}",
                    "requestBody": {"contentType": "application/merge-patch+json", "as": "properties"},
                    "arguments": {
                        "id": {"in": "path", "name": "id"},
                        "name": {"in": "body", "name": "name"},
                        "tags": {"in": "body", "name": "tags"},
                        "gone": {"in": "body", "name": "gone"}
                    }
                }),
            ),
            tool(
                "put_all",
                json!({"type": "object", "properties": {"body": {"type": "array"}}}),
                json!({
                    "method": "PUT", "path": "/all",
                    "requestBody": {"contentType": "application/json", "as": "body", "required": true},
                    "arguments": {"body": {"in": "body", "contentType": "application/json"}}
                }),
            ),
            tool(
                "maybe",
                json!({"type": "object", "properties": {"a": {}}}),
                json!({
                    "method": "POST", "path": "/maybe",
                    "requestBody": {"contentType": "application/json", "as": "properties"},
                    "arguments": {"a": {"in": "body", "name": "a"}}
                }),
            ),
        ],
        json!({}),
    );
    let b = gateway(&d, at(&rec.base()));
    call(
        &b,
        &d,
        "patch",
        json!({"id": "p1", "name": "Rex", "tags": ["a"], "gone": null}),
        LATEST,
    )
    .await;
    call(&b, &d, "put_all", json!({"body": [1, {"x": "é"}]}), LATEST).await;
    call(&b, &d, "maybe", json!({}), LATEST).await;
    let r = rec.requests();
    assert_eq!(r[0].target, "/pets/p1");
    assert_eq!(
        r[0].header("Content-Type"),
        Some("application/merge-patch+json")
    );
    assert_eq!(
        r[0].body_text(),
        r#"{"name":"Rex","tags":["a"],"gone":null}"#
    );
    assert_eq!(r[1].body_text(), r#"[1,{"x":"é"}]"#);
    assert_eq!(r[1].header("Content-Type"), Some("application/json"));
    // An optional body with no member present is not sent.
    assert!(r[2].body.is_empty());
    assert!(r[2].header("Content-Type").is_none());
}

/// OpenAPI 3.1.1 §4.8.15: Encoding Objects of `application/x-www-form-urlencoded`.
#[tokio::test]
async fn form_urlencoded_per_encoding_object() {
    let rec = ok_json();
    let d = doc(
        vec![tool(
            "form",
            json!({"type": "object", "properties": {
                "id": {"type": "string"}, "address": {"type": "object"}, "meta": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "note": {"type": "string"}, "n": {"type": "integer"},
                "icon": {"type": "string", "contentEncoding": "base64"},
                "raw": {"type": "object"}
            }}),
            json!({
                "method": "POST", "path": "/form",
                "requestBody": {
                    "contentType": "application/x-www-form-urlencoded", "as": "properties",
                    "encoding": {
                        "meta": {"style": "deepObject", "explode": true},
                        "tags": {"style": "form", "explode": false},
                        "raw": {"contentType": "text/plain"}
                    }
                },
                "arguments": {
                    "id": {"in": "body", "name": "id"}, "address": {"in": "body", "name": "address"},
                    "meta": {"in": "body", "name": "meta"}, "tags": {"in": "body", "name": "tags"},
                    "note": {"in": "body", "name": "note"}, "n": {"in": "body", "name": "n"},
                    "icon": {"in": "body", "name": "icon"}, "raw": {"in": "body", "name": "raw"}
                }
            }),
        )],
        json!({}),
    );
    let b = gateway(&d, at(&rec.base()));
    let args = json!({
        "id": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "address": {"city": "Somewhere", "zip": "99999+1234"},
        "meta": {"a": 1, "b": "x y"},
        "tags": ["x", "y"],
        "note": "a b+c&d=e*~",
        "n": 5,
        "icon": "iVBO+w==",
        "raw": {"k": 1}
    });
    call(&b, &d, "form", args, LATEST).await;
    let r = rec.one();
    assert_eq!(
        r.header("Content-Type"),
        Some("application/x-www-form-urlencoded")
    );
    // id: text/plain (content-based, WHATWG form-urlencoding); address: no encoding, an
    // object → application/json, as 3.1.1's "URL Encoded Form with JSON Values";
    // meta: explicit deepObject; tags: explicit form, explode false (`,` literal, RFC
    // 6570); note: `+` for space; icon: binary stays base64 text in a text format.
    assert_eq!(
        r.body_text(),
        "id=f81d4fae-7dec-11d0-a765-00a0c91e6bf6\
         &address=%7B%22city%22%3A%22Somewhere%22%2C%22zip%22%3A%2299999%2B1234%22%7D\
         &meta%5Ba%5D=1&meta%5Bb%5D=x%20y\
         &tags=x,y\
         &note=a+b%2Bc%26d%3De*%7E\
         &n=5\
         &icon=iVBO%2Bw%3D%3D\
         &raw=%7B%22k%22%3A1%7D"
    );
}

#[tokio::test]
async fn multipart_parts_by_encoding() {
    let rec = ok_json();
    let d = doc(
        vec![tool(
            "upload",
            json!({"type": "object", "properties": {
                "name": {"type": "string"}, "meta": {"type": "object"},
                "file": {"type": "string", "contentEncoding": "base64"},
                "photos": {"type": "array", "items": {"type": "string", "contentEncoding": "base64"}},
                "icon": {"type": "string", "contentEncoding": "base64"},
                "ids": {"type": "array", "items": {"type": "integer"}},
                "quoted\"name": {"type": "string"}
            }}),
            json!({
                "method": "POST", "path": "/upload",
                "requestBody": {
                    "contentType": "multipart/form-data", "as": "properties",
                    "encoding": {"icon": {"contentType": "image/png, image/jpeg"}}
                },
                "arguments": {
                    "name": {"in": "body", "name": "name"}, "meta": {"in": "body", "name": "meta"},
                    "file": {"in": "body", "name": "file"}, "photos": {"in": "body", "name": "photos"},
                    "icon": {"in": "body", "name": "icon"}, "ids": {"in": "body", "name": "ids"},
                    "quoted\"name": {"in": "body", "name": "quoted\"name"}
                }
            }),
        )],
        json!({}),
    );
    let b = gateway(&d, at(&rec.base()));
    let args = json!({
        "name": "Rex", "meta": {"a": [1]}, "file": "AAEC/w==", "photos": ["AQ==", "Ag"],
        "icon": "iVBORw==", "ids": [1, 2], "quoted\"name": "q"
    });
    let out = call(&b, &d, "upload", args, LATEST).await;
    assert_eq!(out.result.get("isError"), None, "{:#}", out.result);
    let r = rec.one();
    let ct = r.header("Content-Type").expect("content type").to_string();
    assert!(ct.starts_with("multipart/form-data; boundary="), "{ct}");
    let parts = multipart_parts(&ct, &r.body);
    let expect: Vec<(Vec<&str>, &[u8])> = vec![
        // Primitive: text/plain, RFC 7578 §4.4 default, no Content-Type field.
        (
            vec![r#"Content-Disposition: form-data; name="name""#],
            b"Rex",
        ),
        // Object: application/json (OpenAPI 3.1.1 Encoding Object default).
        (
            vec![
                r#"Content-Disposition: form-data; name="meta""#,
                "Content-Type: application/json",
            ],
            br#"{"a":[1]}"#,
        ),
        // Binary (contentEncoding): decoded bytes, application/octet-stream, a filename.
        (
            vec![
                r#"Content-Disposition: form-data; name="file"; filename="file""#,
                "Content-Type: application/octet-stream",
            ],
            &[0, 1, 2, 255],
        ),
        // Arrays: one part per item, same name (RFC 7578 §4.3); unpadded base64 too.
        (
            vec![
                r#"Content-Disposition: form-data; name="photos"; filename="photos""#,
                "Content-Type: application/octet-stream",
            ],
            &[1],
        ),
        (
            vec![
                r#"Content-Disposition: form-data; name="photos"; filename="photos""#,
                "Content-Type: application/octet-stream",
            ],
            &[2],
        ),
        // Encoding contentType list: the first media type.
        (
            vec![
                r#"Content-Disposition: form-data; name="icon"; filename="icon""#,
                "Content-Type: image/png",
            ],
            &[0x89, 0x50, 0x4e, 0x47],
        ),
        (vec![r#"Content-Disposition: form-data; name="ids""#], b"1"),
        (vec![r#"Content-Disposition: form-data; name="ids""#], b"2"),
        // `"` in a name is percent-encoded (RFC 7578 §2, as HTML forms do).
        (
            vec![r#"Content-Disposition: form-data; name="quoted%22name""#],
            b"q",
        ),
    ];
    assert_eq!(parts.len(), expect.len(), "{parts:#?}");
    for ((h, body), (eh, eb)) in parts.iter().zip(&expect) {
        assert_eq!(h, eh);
        assert_eq!(body.as_slice(), *eb, "{eh:?}");
    }
}

#[tokio::test]
async fn binary_and_text_bodies() {
    let rec = ok_json();
    let d = doc(
        vec![
            tool(
                "blob",
                json!({"type": "object", "properties": {"body": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"}}}),
                json!({
                    "method": "PUT", "path": "/blob",
                    "requestBody": {"contentType": "image/png", "as": "body"},
                    "arguments": {"body": {"in": "body", "contentType": "image/png"}}
                }),
            ),
            tool(
                "url_blob",
                json!({"type": "object", "properties": {"body": {"type": "string", "contentEncoding": "base64url"}}}),
                json!({
                    "method": "PUT", "path": "/blob",
                    "requestBody": {"contentType": "application/octet-stream", "as": "body"},
                    "arguments": {"body": {"in": "body"}}
                }),
            ),
            tool(
                "csv",
                json!({"type": "object", "properties": {"body": {"type": "string"}}}),
                json!({
                    "method": "POST", "path": "/csv",
                    "requestBody": {"contentType": "text/csv; charset=utf-8", "as": "body"},
                    "arguments": {"body": {"in": "body"}}
                }),
            ),
        ],
        json!({}),
    );
    let b = gateway(&d, at(&rec.base()));
    call(&b, &d, "blob", json!({"body": "/+8A"}), LATEST).await;
    call(&b, &d, "url_blob", json!({"body": "_-8A"}), LATEST).await;
    call(&b, &d, "csv", json!({"body": "a,b\né,1\n"}), LATEST).await;
    let bad = call(&b, &d, "blob", json!({"body": "not base64!"}), LATEST).await;
    assert_eq!(bad.result["isError"], true);
    assert!(
        text(&bad.result).contains("argument `body` is not valid base64"),
        "{:#}",
        bad.result
    );
    let r = rec.requests();
    assert_eq!(r.len(), 3, "the invalid call sent nothing");
    assert_eq!(r[0].body, [0xff, 0xef, 0]);
    assert_eq!(r[0].header("Content-Type"), Some("image/png"));
    assert_eq!(r[1].body, [0xff, 0xef, 0]);
    assert_eq!(r[2].body_text(), "a,b\né,1\n");
    assert_eq!(r[2].header("Content-Type"), Some("text/csv; charset=utf-8"));
}

/// Swagger 2.0 `formData` (importers record `in: formData` or `in: body` with a
/// `collectionFormat`) sends what the OpenAPI 3.x equivalent sends.
#[tokio::test]
async fn swagger_2_form_data_equals_its_3x_equivalent() {
    let rec = ok_json();
    let props = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "file": {"type": "string", "contentEncoding": "base64"}
    }});
    let v2_args = json!({
        "name": {"in": "formData", "name": "name", "collectionFormat": "csv", "style": "form", "explode": false},
        "tags": {"in": "formData", "name": "tags", "collectionFormat": "csv", "style": "form", "explode": false},
        "ids": {"in": "formData", "name": "ids", "collectionFormat": "multi", "style": "form", "explode": true},
        "file": {"in": "formData", "name": "file", "collectionFormat": "csv", "style": "form", "explode": false}
    });
    let v3_args = json!({
        "name": {"in": "body", "name": "name"}, "tags": {"in": "body", "name": "tags"},
        "ids": {"in": "body", "name": "ids"}, "file": {"in": "body", "name": "file"}
    });
    let mut tools = Vec::new();
    for ct in ["application/x-www-form-urlencoded", "multipart/form-data"] {
        let short = if ct.starts_with("multipart") {
            "mp"
        } else {
            "form"
        };
        tools.push(tool(
            &format!("v2_{short}"),
            props.clone(),
            json!({"method": "POST", "path": "/f", "requestBody": {"contentType": ct, "as": "properties"}, "arguments": v2_args}),
        ));
        tools.push(tool(
            &format!("v3_{short}"),
            props.clone(),
            json!({"method": "POST", "path": "/f", "requestBody": {"contentType": ct, "as": "properties",
                "encoding": {"tags": {"style": "form", "explode": false}, "ids": {"style": "form", "explode": true}}},
                "arguments": v3_args}),
        ));
    }
    let d = doc(tools, json!({}));
    let b = gateway(&d, at(&rec.base()));
    let form_args = json!({"name": "a b", "tags": ["x", "y z"], "ids": [1, 2]});
    call(&b, &d, "v2_form", form_args.clone(), LATEST).await;
    call(&b, &d, "v3_form", form_args, LATEST).await;
    let mp_args = json!({"name": "n", "tags": ["x", "y"], "ids": [1, 2], "file": "AAE="});
    call(&b, &d, "v2_mp", mp_args.clone(), LATEST).await;
    call(&b, &d, "v3_mp", mp_args, LATEST).await;
    let r = rec.requests();
    assert_eq!(r.len(), 4);
    // csv → `,` (items percent-encoded), multi → repeated; the primitive `name` is
    // content-based text in both (collectionFormat concerns arrays only).
    assert_eq!(r[0].body_text(), "name=a+b&tags=x,y%20z&ids=1&ids=2");
    assert_eq!(r[0].body, r[1].body);
    let mp = |i: usize| multipart_parts(r[i].header("Content-Type").expect("ct"), &r[i].body);
    assert_eq!(mp(2), mp(3));
    let parts = mp(2);
    assert_eq!(parts[1].1, b"x,y");
    assert_eq!(parts[4].1, [0, 1], "the file part is the decoded bytes");
}

/// Swagger 2.0 `collectionFormat` on query, path and header parameters sends what
/// the OpenAPI 3.x style the importer records beside it sends (`tsv` has no 3.x
/// style: tab-joined, `%09`).
#[tokio::test]
async fn swagger_2_collection_formats() {
    let rec = ok_json();
    let v2 = |cf: &str, style: &str, explode: bool| json!({"in": "query", "name": "tags", "collectionFormat": cf, "style": style, "explode": explode});
    let v3 = |style: &str, explode: bool| json!({"in": "query", "name": "tags", "style": style, "explode": explode});
    let cases = [
        (
            "csv",
            v2("csv", "form", false),
            Some(v3("form", false)),
            "tags=a,b%20c",
        ),
        (
            "ssv",
            v2("ssv", "spaceDelimited", false),
            Some(v3("spaceDelimited", false)),
            "tags=a%20b%20c",
        ),
        ("tsv", v2("tsv", "form", false), None, "tags=a%09b%20c"),
        (
            "pipes",
            v2("pipes", "pipeDelimited", false),
            Some(v3("pipeDelimited", false)),
            "tags=a%7Cb%20c",
        ),
        (
            "multi",
            v2("multi", "form", true),
            Some(v3("form", true)),
            "tags=a&tags=b%20c",
        ),
    ];
    let input = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}});
    let mut tools = Vec::new();
    for (cf, a2, a3, _) in &cases {
        tools.push(tool(
            &format!("v2_{cf}"),
            input.clone(),
            json!({"method": "GET", "path": "/q", "arguments": {"tags": a2}}),
        ));
        if let Some(a3) = a3 {
            tools.push(tool(
                &format!("v3_{cf}"),
                input.clone(),
                json!({"method": "GET", "path": "/q", "arguments": {"tags": a3}}),
            ));
        }
    }
    tools.push(tool(
        "v2_path_header",
        json!({"type": "object", "properties": {
            "ids": {"type": "array", "items": {"type": "integer"}},
            "h": {"type": "array", "items": {"type": "string"}}
        }}),
        json!({"method": "GET", "path": "/p/{ids}", "arguments": {
            "ids": {"in": "path", "name": "ids", "collectionFormat": "csv", "style": "simple", "explode": false},
            "h": {"in": "header", "name": "X-H", "collectionFormat": "pipes", "style": "simple", "explode": false}
        }}),
    ));
    let d = doc(tools, json!({}));
    let b = gateway(&d, at(&rec.base()));
    for (cf, _, a3, want) in &cases {
        call(
            &b,
            &d,
            &format!("v2_{cf}"),
            json!({"tags": ["a", "b c"]}),
            LATEST,
        )
        .await;
        let got = rec.requests().last().map(|r| r.target.clone());
        assert_eq!(got, Some(format!("/q?{want}")), "collectionFormat {cf}");
        if a3.is_some() {
            call(
                &b,
                &d,
                &format!("v3_{cf}"),
                json!({"tags": ["a", "b c"]}),
                LATEST,
            )
            .await;
            let v3 = rec.requests().last().map(|r| r.target.clone());
            assert_eq!(v3, got, "3.x equivalent of {cf}");
        }
    }
    call(
        &b,
        &d,
        "v2_path_header",
        json!({"ids": [1, 2], "h": ["x", "y"]}),
        LATEST,
    )
    .await;
    let r = rec.requests().pop().expect("request");
    assert_eq!(r.target, "/p/1,2");
    assert_eq!(r.header("X-H"), Some("x|y"));
}
