//! Whole requests: URL, header fields and their precedence, cookies, credentials, and
//! the tool errors that name what cannot be sent.

use super::*;
use crate::Secret;

fn q(path: &str, name: &str, arg: Value) -> Value {
    doc(get(path, json!({ name: arg })), json!({ name: {} }))
}

#[test]
fn header_parameters_named_accept_content_type_or_authorization_are_not_sent() {
    // OpenAPI 3.1.1 §4.8.12.1: such header parameters SHALL be ignored.
    let d = doc(
        get(
            "/x",
            json!({
                "a": {"in": "header", "name": "Accept"},
                "c": {"in": "header", "name": "content-type"},
                "z": {"in": "header", "name": "AUTHORIZATION"},
                "k": {"in": "header", "name": "X-Kind"},
                // Only header parameters: a query parameter may be called `accept`.
                "qa": {"in": "query", "name": "accept"}
            }),
        ),
        json!({"a": {}, "c": {}, "z": {}, "k": {}, "qa": {}}),
    );
    let r = request(
        &d,
        json!({"a": "text/html", "c": "text/csv", "z": "Bearer x", "k": "dog", "qa": "json"}),
    )
    .expect("sent");
    assert_eq!(r.url, format!("{BASE}/x?accept=json"));
    assert_eq!(r.headers, [("X-Kind".to_string(), "dog".to_string())]);
}

#[test]
fn content_parameters_are_their_media_type_then_percent_encoded() {
    // `content: application/json`: the JSON text, percent-encoded in a query.
    let d = q(
        "/x",
        "filter",
        json!({"in": "query", "name": "filter", "contentType": "application/json"}),
    );
    assert_eq!(
        request(&d, json!({"filter": {"a": 1}})).expect("sent").url,
        format!("{BASE}/x?filter=%7B%22a%22%3A1%7D")
    );
    // A string under a JSON type is a JSON string (quoted).
    assert_eq!(
        request(&d, json!({"filter": "a b"})).expect("sent").url,
        format!("{BASE}/x?filter=%22a%20b%22")
    );
    // Under a non-JSON type, the string itself; `allowReserved` does not apply.
    let d = q(
        "/x",
        "f",
        json!({"in": "query", "name": "f", "contentType": "text/plain", "allowReserved": true}),
    );
    assert_eq!(
        request(&d, json!({"f": "a/b"})).expect("sent").url,
        format!("{BASE}/x?f=a%2Fb")
    );
    // Path: percent-encoded the same way.
    let d = q(
        "/x/{p}",
        "p",
        json!({"in": "path", "name": "p", "contentType": "application/json"}),
    );
    assert_eq!(
        request(&d, json!({"p": [1, "a"]})).expect("sent").url,
        format!("{BASE}/x/%5B1%2C%22a%22%5D")
    );
    // Header: as is.
    let d = q(
        "/x",
        "h",
        json!({"in": "header", "name": "X-Q", "contentType": "application/json"}),
    );
    let r = request(&d, json!({"h": {"a": [1]}})).expect("sent");
    assert_eq!(header(&r, "X-Q"), Some(r#"{"a":[1]}"#));
    // Cookie: as is, when every byte is a cookie-octet (RFC 6265 §4.1.1).
    let d = q(
        "/x",
        "c",
        json!({"in": "cookie", "name": "prefs", "contentType": "application/json"}),
    );
    let r = request(&d, json!({"c": 5})).expect("sent");
    assert_eq!(header(&r, "Cookie"), Some("prefs=5"));
    // A JSON string is quoted, and DQUOTE is no cookie-octet.
    let e = request(&d, json!({"c": "x"})).expect_err("a quote");
    assert_eq!(
        e,
        "argument `c` (cookie parameter `prefs`): byte 0x22 cannot appear in a cookie value (RFC 6265 cookie-octet)"
    );
    let d = q(
        "/x",
        "c",
        json!({"in": "cookie", "name": "prefs", "contentType": "text/plain"}),
    );
    assert_eq!(
        header(&request(&d, json!({"c": "a!b"})).expect("sent"), "Cookie"),
        Some("prefs=a!b")
    );
    let e = request(&d, json!({"c": "x y"})).expect_err("a space");
    assert_eq!(
        e,
        "argument `c` (cookie parameter `prefs`): byte 0x20 cannot appear in a cookie value (RFC 6265 cookie-octet)"
    );
}

#[test]
fn swagger_collection_formats_in_query_path_and_header() {
    let value = json!(["a b", "c"]);
    for (cf, want) in [
        ("csv", "tags=a%20b,c"),
        ("ssv", "tags=a%20b%20c"),
        ("tsv", "tags=a%20b%09c"),
        ("pipes", "tags=a%20b%7Cc"),
        ("multi", "tags=a%20b&tags=c"),
    ] {
        let d = q(
            "/x",
            "tags",
            json!({"in": "query", "name": "tags", "collectionFormat": cf}),
        );
        assert_eq!(
            request(&d, json!({ "tags": value })).expect("sent").url,
            format!("{BASE}/x?{want}"),
            "{cf}"
        );
    }
    // A primitive is sent as one value whatever the format.
    let d = q(
        "/x",
        "tags",
        json!({"in": "query", "name": "tags", "collectionFormat": "pipes"}),
    );
    assert_eq!(
        request(&d, json!({"tags": "one"})).expect("sent").url,
        format!("{BASE}/x?tags=one")
    );
    // allowReserved keeps `/` in each item.
    let d = q(
        "/x",
        "tags",
        json!({"in": "query", "name": "tags", "collectionFormat": "multi", "allowReserved": true}),
    );
    assert_eq!(
        request(&d, json!({"tags": ["a/b", "c"]}))
            .expect("sent")
            .url,
        format!("{BASE}/x?tags=a/b&tags=c")
    );
    // Objects are no Swagger 2.0 parameter values.
    let e = request(&d, json!({"tags": {"a": 1}})).expect_err("object");
    assert_eq!(
        e,
        "argument `tags` (query parameter `tags`): Swagger 2.0 parameters cannot be objects"
    );
    for (cf, want) in [
        ("csv", "a%20b,c"),
        ("pipes", "a%20b%7Cc"),
        ("ssv", "a%20b%20c"),
    ] {
        let d = q(
            "/x/{tags}",
            "tags",
            json!({"in": "path", "name": "tags", "collectionFormat": cf}),
        );
        assert_eq!(
            request(&d, json!({ "tags": value })).expect("sent").url,
            format!("{BASE}/x/{want}"),
            "path {cf}"
        );
    }
    let d = q(
        "/x/{tags}",
        "tags",
        json!({"in": "path", "name": "tags", "collectionFormat": "multi"}),
    );
    assert_eq!(
        request(&d, json!({ "tags": value })).expect_err("multi in a path"),
        "argument `tags` (path parameter `tags`): collectionFormat `multi` is only valid in a query or form"
    );
    for (cf, want) in [
        ("csv", "a b,c"),
        ("ssv", "a b c"),
        ("pipes", "a b|c"),
        ("tsv", "a b\tc"),
    ] {
        let d = q(
            "/x",
            "tags",
            json!({"in": "header", "name": "X-Tags", "collectionFormat": cf}),
        );
        let r = request(&d, json!({ "tags": value })).expect("sent");
        assert_eq!(header(&r, "X-Tags"), Some(want), "header {cf}");
    }
    let d = q(
        "/x",
        "tags",
        json!({"in": "header", "name": "X-Tags", "collectionFormat": "multi"}),
    );
    assert_eq!(
        request(&d, json!({ "tags": value })).expect_err("multi in a header"),
        "argument `tags` (header parameter `X-Tags`): collectionFormat `multi` is only valid in a query or form"
    );
    let d = q(
        "/x",
        "tags",
        json!({"in": "query", "name": "tags", "collectionFormat": "bsv"}),
    );
    assert_eq!(
        request(&d, json!({ "tags": value })).expect_err("unknown format"),
        "the tool cannot be called through the gateway: argument `tags`: unknown collectionFormat `bsv`"
    );
}

#[test]
fn configured_forwarded_and_credential_headers_replace_earlier_ones() {
    let d = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "t", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "sid": {"type": "apiKey", "in": "cookie", "name": "sid"},
            "qk": {"type": "apiKey", "in": "query", "name": "api key"}
        },
        "security": [{"key": [], "sid": [], "qk": []}],
        "tools": [{
            "name": "t",
            "inputSchema": {"type": "object", "properties": {"h": {}, "c": {}, "q": {}}},
            "x-mcpdesc-openapi": {
                "method": "GET", "path": "/x", "servers": [BASE],
                "arguments": {
                    "h": {"in": "header", "name": "X-Trace"},
                    "c": {"in": "cookie", "name": "theme"},
                    "q": {"in": "query", "name": "q"}
                },
                "response": {"status": "200", "contentType": "application/json"}
            }
        }]
    });
    let opts = RestOptions {
        credentials: [
            ("key".to_string(), Secret::new("k1")),
            ("sid".to_string(), Secret::new("s1")),
            ("qk".to_string(), Secret::new("q/1")),
        ]
        .into(),
        static_headers: vec![
            ("x-trace".into(), Secret::new("configured")),
            ("X-Static".into(), Secret::new("on")),
        ],
        ..RestOptions::default()
    };
    let forwarded = [
        ("X-Static".to_string(), "forwarded".to_string()),
        ("Connection".to_string(), "close".to_string()),
        ("Transfer-Encoding".to_string(), "chunked".to_string()),
        ("Content-Length".to_string(), "5".to_string()),
        ("Host".to_string(), "evil.example".to_string()),
        ("x-key".to_string(), "forwarded-key".to_string()),
        ("Cookie".to_string(), "a=b".to_string()),
    ];
    let r = request_with(
        &d,
        opts,
        json!({"h": "param", "c": "dark", "q": "x"}),
        &forwarded,
    )
    .expect("sent");
    // One field per name (the later source wins); the order of fields of different
    // names carries no meaning (RFC 9110 §5.3).
    let mut headers = r.headers.clone();
    headers.sort_by_key(|(n, _)| n.to_ascii_lowercase());
    assert_eq!(
        headers,
        [
            (
                "Accept".to_string(),
                "application/json, */*;q=0.1".to_string()
            ),
            ("Cookie".to_string(), "a=b; theme=dark; sid=s1".to_string()),
            ("X-Key".to_string(), "k1".to_string()),
            ("X-Static".to_string(), "forwarded".to_string()),
            ("x-trace".to_string(), "configured".to_string()),
        ]
    );
    // The API key in the query is sent, percent-encoded, and never logged.
    assert_eq!(r.url, format!("{BASE}/x?q=x&api%20key=q%2F1"));
    assert_eq!(r.log_url, format!("{BASE}/x?q=x&api%20key=REDACTED"));
    assert!(r.oauth.is_empty() && r.body.is_none());
}

#[test]
fn a_forwarded_accept_is_kept_and_cookies_alone_make_one_field() {
    let d = doc(
        json!({"method": "GET", "path": "/x",
               "arguments": {"a": {"in": "cookie", "name": "a"}, "b": {"in": "cookie", "name": "b"}},
               "response": {"status": "200", "contentType": "application/xml"}}),
        json!({"a": {}, "b": {}}),
    );
    let fwd = [("accept".to_string(), "text/plain".to_string())];
    let r =
        request_with(&d, RestOptions::default(), json!({"a": 1, "b": true}), &fwd).expect("sent");
    assert_eq!(
        r.headers,
        [
            ("accept".to_string(), "text/plain".to_string()),
            ("Cookie".to_string(), "a=1; b=true".to_string())
        ]
    );
    // No cookie argument given: no Cookie field; the recorded type is accepted first.
    let r = request(&d, json!({})).expect("sent");
    assert_eq!(
        r.headers,
        [(
            "Accept".to_string(),
            "application/xml, */*;q=0.1".to_string()
        )]
    );
    assert_eq!(r.url, format!("{BASE}/x"));
}

#[test]
fn header_values_that_cannot_be_sent_are_tool_errors_naming_their_source() {
    let d = doc(get("/x", json!({})), json!({}));
    let fwd = [("X-F".to_string(), "a\r\nb".to_string())];
    assert_eq!(
        request_with(&d, RestOptions::default(), json!({}), &fwd).expect_err("CRLF"),
        "forwarded header X-F contains the control character 0x0D (CR, LF, NUL and other control characters cannot be sent in a header)"
    );
    let fwd = [("X-F".to_string(), " padded".to_string())];
    assert_eq!(
        request_with(&d, RestOptions::default(), json!({}), &fwd).expect_err("space"),
        "forwarded header X-F starts or ends with a space or tab, which HTTP strips from a header value"
    );
    // A hop-by-hop header is dropped before its value is looked at.
    let fwd = [("Upgrade".to_string(), "a\nb".to_string())];
    let r = request_with(&d, RestOptions::default(), json!({}), &fwd).expect("dropped");
    assert!(r.headers.is_empty(), "{:?}", r.headers);
    // A credential for an API-key cookie must be cookie-octets.
    let mut d = d;
    d["securitySchemes"] = json!({"sid": {"type": "apiKey", "in": "cookie", "name": "sid"}});
    d["security"] = json!([{"sid": []}]);
    let opts = RestOptions {
        credentials: [("sid".to_string(), Secret::new("a;b"))].into(),
        ..RestOptions::default()
    };
    assert_eq!(
        request_with(&d, opts, json!({}), &[]).expect_err("a semicolon"),
        "the credential for cookie `sid` has byte 0x3B, which a cookie value cannot carry"
    );
    let opts = RestOptions {
        credentials: [("sid".to_string(), Secret::new("s"))].into(),
        ..RestOptions::default()
    };
    assert_eq!(
        header(
            &request_with(&d, opts, json!({}), &[]).expect("sent"),
            "Cookie"
        ),
        Some("sid=s")
    );
}

#[test]
fn path_templates_and_their_errors() {
    // A template variable no argument declares, and a missing path argument.
    let d = doc(
        get(
            "/a/{id}/{other}",
            json!({"id": {"in": "path", "name": "id"}}),
        ),
        json!({"id": {}}),
    );
    assert_eq!(
        request(&d, json!({"id": 1})).expect_err("undeclared"),
        "the path template has `{other}` but no argument is declared for it"
    );
    let d = doc(
        get("/a/{id}", json!({"ident": {"in": "path", "name": "id"}})),
        json!({"ident": {}}),
    );
    assert_eq!(
        request(&d, json!({})).expect_err("missing"),
        "argument `ident` is required: it is path parameter `id`"
    );
    // The value of the whole segment is checked, not a piece of it.
    let d = doc(
        get(
            "/a/{x}{y}/b.{z}",
            json!({
                "x": {"in": "path", "name": "x"},
                "y": {"in": "path", "name": "y"},
                "z": {"in": "path", "name": "z"}
            }),
        ),
        json!({"x": {}, "y": {}, "z": {}}),
    );
    assert_eq!(
        request(&d, json!({"x": ".", "y": ".", "z": "."})).expect_err("dot-segment"),
        "the path segment would be `..`, a dot-segment that changes which resource is addressed; path values cannot be `.` or `..`"
    );
    assert_eq!(
        request(&d, json!({"x": ".", "y": "", "z": "."}))
            .expect_err("dot-segment")
            .split(',')
            .next(),
        Some("the path segment would be `.`")
    );
    assert_eq!(
        request(&d, json!({"x": "a", "y": ".", "z": "."}))
            .expect("sent")
            .url,
        format!("{BASE}/a/a./b..")
    );
    // A `%2E` the template's own text puts beside a value is a dot as well: WHATWG
    // URL parsing reads `.%2E`, `%2e.` and `%2E%2E` as `..`.
    let d = doc(
        get("/a/{x}%2E/b", json!({"x": {"in": "path", "name": "x"}})),
        json!({"x": {}}),
    );
    for (x, segment) in [(".", ".%2E"), ("", "%2E")] {
        assert_eq!(
            request(&d, json!({ "x": x })).expect_err("dot-segment"),
            format!(
                "the path segment would be `{segment}`, a dot-segment that changes which resource is addressed; path values cannot be `.` or `..`"
            )
        );
    }
    assert_eq!(
        request(&d, json!({"x": "v"})).expect("sent").url,
        format!("{BASE}/a/v%2E/b")
    );
    // A template whose own text is a dot-segment would leave the path it names (here
    // above the server's base path): the tool is refused, however the dots are written.
    for (path, dots) in [
        ("/a/../../admin", ".."),
        ("/a/./b", "."),
        ("/a/%2e%2E/b", "%2e%2E"),
        ("/.%2e/x", ".%2e"),
        ("/a/%2E", "%2E"),
    ] {
        let d = doc(get(path, json!({})), json!({}));
        assert_eq!(
            request(&d, json!({})).expect_err("unusable"),
            format!(
                "the tool cannot be called through the gateway: path `{path}` has the dot-segment `{dots}`: URL parsers remove it (RFC 3986 §5.2.4), so the request would address another resource than the path says, possibly outside the server's base path"
            )
        );
    }
    // Dots that are not a whole segment are ordinary path text.
    let d = doc(get("/a/.../b./.c/%2e%2e%2e", json!({})), json!({}));
    assert_eq!(
        request(&d, json!({})).expect("sent").url,
        format!("{BASE}/a/.../b./.c/%2e%2e%2e")
    );
    // `/` alone, and `%XX` already in the template kept while a stray `%` is encoded.
    let d = doc(get("/", json!({})), json!({}));
    assert_eq!(
        request(&d, json!({})).expect("sent").url,
        format!("{BASE}/")
    );
    let d = doc(get("/a%2Fb/%zz/%4/%", json!({})), json!({}));
    assert_eq!(
        request(&d, json!({})).expect("sent").url,
        format!("{BASE}/a%2Fb/%25zz/%254/%25")
    );
    // pchar characters stay; others are encoded byte by byte.
    let d = doc(get("/a:b@c!$&'()*+,;=/[x] y|\"", json!({})), json!({}));
    assert_eq!(
        request(&d, json!({})).expect("sent").url,
        format!("{BASE}/a:b@c!$&'()*+,;=/%5Bx%5D%20y%7C%22")
    );
}

#[test]
fn tools_that_cannot_be_called_say_why() {
    let unusable =
        |prov: Value, props: Value| request(&doc(prov, props), json!({})).expect_err("unusable");
    assert_eq!(
        unusable(
            get("/x", json!({"a": {"in": "query", "style": "matrix"}})),
            json!({"a": {}})
        ),
        "the tool cannot be called through the gateway: argument `a`: style `matrix` is not defined for query parameters"
    );
    for (loc, style) in [("path", "form"), ("header", "label"), ("cookie", "simple")] {
        let path = if loc == "path" { "/x/{a}" } else { "/x" };
        assert_eq!(
            unusable(
                get(path, json!({"a": {"in": loc, "style": style}})),
                json!({"a": {}})
            ),
            format!(
                "the tool cannot be called through the gateway: argument `a`: style `{style}` is not defined for {loc} parameters"
            )
        );
    }
    for style in ["form", "spaceDelimited", "pipeDelimited", "deepObject"] {
        let d = doc(
            get(
                "/x",
                json!({"a": {"in": "query", "style": style, "explode": style == "deepObject" || style == "form"}}),
            ),
            json!({"a": {}}),
        );
        assert!(
            request(&d, json!({"a": {"k": "v"}})).is_ok(),
            "query {style}"
        );
    }
    for style in ["simple", "label", "matrix"] {
        let d = doc(
            get("/x/{a}", json!({"a": {"in": "path", "style": style}})),
            json!({"a": {}}),
        );
        assert!(request(&d, json!({"a": "v"})).is_ok(), "path {style}");
    }
    assert_eq!(
        unusable(
            get("/x", json!({"a": {"in": "header", "name": "X Bad"}})),
            json!({"a": {}})
        ),
        "the tool cannot be called through the gateway: argument `a`: `X Bad` is not a valid header name (RFC 9110 token)"
    );
    // Headers the gateway sets itself: an argument could otherwise pick the virtual
    // host (`Host`) or the framing (`Content-Length`, `Transfer-Encoding`) of the request.
    for name in [
        "Host",
        "content-length",
        "Transfer-Encoding",
        "Connection",
        "TE",
        "Upgrade",
    ] {
        assert_eq!(
            unusable(
                get("/x", json!({"a": {"in": "header", "name": name}})),
                json!({"a": {}})
            ),
            format!(
                "the tool cannot be called through the gateway: argument `a`: header `{name}` is one the gateway sets itself (connection, framing or `Host`, RFC 9110 §7.6.1); an argument cannot set it"
            )
        );
    }
    assert_eq!(
        unusable(
            get("/x", json!({"a": {"in": "cookie", "name": "a=b"}})),
            json!({"a": {}})
        ),
        "the tool cannot be called through the gateway: argument `a`: `a=b` is not a valid cookie name (RFC 9110 token)"
    );
    assert_eq!(
        unusable(
            get("/x", json!({"a": {"in": "body", "name": "a"}})),
            json!({"a": {}})
        ),
        "the tool cannot be called through the gateway: arguments go to the body but the provenance records no `requestBody`"
    );
    assert_eq!(
        unusable(
            json!({"method": "POST", "path": "/x",
                   "requestBody": {"contentType": "application/json", "as": "body"},
                   "arguments": {"a": {"in": "body"}, "b": {"in": "body"}}}),
            json!({"a": {}, "b": {}})
        ),
        "the tool cannot be called through the gateway: `requestBody.as: body` with more than one `in: body` argument"
    );
    // Media types the gateway writes into header fields come from the description: a
    // CR or LF would add header lines (fuzzer finding: outer whitespace got through).
    let post = |content_type: &str, encoding: Value, response: Value| {
        json!({"method": "POST", "path": "/x",
               "requestBody": {"contentType": content_type, "as": "properties", "encoding": encoding},
               "response": response,
               "arguments": {"a": {"in": "body"}}})
    };
    let ok_response = json!({"status": "200", "contentType": "application/json"});
    for (prov, why) in [
        (
            post(
                "application/json\r\nX-Injected: 1",
                json!({}),
                ok_response.clone(),
            ),
            "the request body's media type `application/json\\r\\nX-Injected: 1` cannot be sent: it contains the control character 0x0D, which an HTTP field value cannot hold",
        ),
        (
            post(
                " application/x-www-form-urlencoded",
                json!({}),
                ok_response.clone(),
            ),
            "the request body's media type ` application/x-www-form-urlencoded` cannot be sent: it starts or ends with whitespace, which HTTP strips from a field value",
        ),
        (
            post("", json!({}), ok_response.clone()),
            "the request body's media type is empty",
        ),
        (
            post(
                "multipart/form-data",
                json!({"a": {"contentType": "text/plain\r\n\r\nforged"}}),
                ok_response.clone(),
            ),
            "the media type of body member `a` `text/plain\\r\\n\\r\\nforged` cannot be sent: it contains the control character 0x0D, which an HTTP field value cannot hold",
        ),
        (
            post(
                "multipart/form-data",
                json!({}),
                json!({"status": "200", "contentType": "application/json\nX: y"}),
            ),
            "the response's media type `application/json\\nX: y` cannot be sent: it contains the control character 0x0A, which an HTTP field value cannot hold",
        ),
    ] {
        assert_eq!(
            unusable(prov, json!({"a": {}})),
            format!("the tool cannot be called through the gateway: {why}")
        );
    }
    assert_eq!(
        unusable(get("x", json!({})), json!({})),
        "the tool cannot be called through the gateway: path `x` does not start with `/`"
    );
    // The first problem is the one reported.
    assert_eq!(
        unusable(
            get(
                "/x",
                json!({
                    "a": {"in": "query", "style": "simple"},
                    "b": {"in": "query", "style": "label"}
                })
            ),
            json!({"a": {}, "b": {}})
        ),
        "the tool cannot be called through the gateway: argument `a`: style `simple` is not defined for query parameters"
    );
}

#[test]
fn a_tool_without_provenance_names_itself_and_the_revision() {
    let mut d = doc(get("/x", json!({})), json!({}));
    d["tools"][0]
        .as_object_mut()
        .expect("tool")
        .remove("x-mcpdesc-openapi");
    let backend = RestBackend::new(&d, RestOptions::default()).expect("starts");
    let arguments = Map::new();
    let e = backend
        .build_request(&ToolCall {
            tool: &d["tools"][0],
            index: 0,
            revision: ProtocolRevision::V2025_06_18,
            arguments: &arguments,
            forwarded_headers: &[],
            meta: None,
            token_exchange: None,
        })
        .expect_err("no provenance");
    assert_eq!(
        e,
        "tool `t` has no x-mcpdesc-openapi provenance at MCP 2025-06-18: the gateway cannot call an API for it (a mock can answer it from its examples)"
    );
}

#[test]
fn servers_come_from_the_tool_then_the_root_then_base_url() {
    let mut d = doc(
        json!({"method": "DELETE", "path": "/x", "servers": []}),
        json!({}),
    );
    // No tool servers: the root's.
    d["x-mcpdesc-openapi"] = json!({"openapi": "3.1.0", "servers": ["https://root.example/v1/"]});
    let r = request(&d, json!({})).expect("sent");
    assert_eq!(r.url, "https://root.example/v1/x");
    assert_eq!(r.method.as_str(), "DELETE");
    // The tool's own servers win over the root's.
    d["tools"][0]["x-mcpdesc-openapi"]["servers"] = json!(["https://tool.example"]);
    assert_eq!(
        request(&d, json!({})).expect("sent").url,
        "https://tool.example/x"
    );
    // --base-url replaces both.
    let opts = RestOptions {
        base_url: Some("http://localhost:8080/mock/".into()),
        ..RestOptions::default()
    };
    assert_eq!(
        request_with(&d, opts, json!({}), &[]).expect("sent").url,
        "http://localhost:8080/mock/x"
    );
    // None anywhere: the call says what to do.
    let d = doc(
        json!({"method": "GET", "path": "/x", "servers": []}),
        json!({}),
    );
    assert_eq!(
        request(&d, json!({})).expect_err("no server"),
        "the description records no server for it, and no base URL is configured"
    );
    let d = doc(
        json!({"method": "GET", "path": "/x", "servers": ["/relative", "https://a.example/{v}"]}),
        json!({}),
    );
    assert_eq!(
        request(&d, json!({})).expect_err("no usable server"),
        "no usable server (`/relative`: not an absolute http(s) URL; `https://a.example/{v}`: the URL has an unexpanded server variable), and no base URL is configured"
    );
}

#[test]
fn a_forwarded_header_meets_the_scheme_whose_location_it_is() {
    let mut d = doc(get("/x", json!({})), json!({}));
    d["securitySchemes"] = json!({
        "hkey": {"type": "apiKey", "in": "header", "name": "X-Key"},
        "qkey": {"type": "apiKey", "in": "query", "name": "key"},
        "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://a.example/.well-known/openid-configuration"}
    });
    for (security, fwd, ok) in [
        (json!([{"hkey": []}]), ("x-key", "k"), true),
        (json!([{"hkey": []}]), ("Authorization", "Bearer t"), false),
        (json!([{"oidc": []}]), ("authorization", "Bearer t"), true),
        (json!([{"oidc": []}]), ("X-Key", "k"), false),
        // A query API key has no header to forward.
        (json!([{"qkey": []}]), ("key", "k"), false),
    ] {
        d["security"] = security.clone();
        let fwd = [(fwd.0.to_string(), fwd.1.to_string())];
        let r = request_with(&d, RestOptions::default(), json!({}), &fwd);
        match r {
            Ok(r) => {
                assert!(ok, "{security} {fwd:?}");
                // The inbound value goes upstream as it came.
                assert_eq!(header(&r, &fwd[0].0), Some(fwd[0].1.as_str()));
                assert_eq!(r.url, format!("{BASE}/x"));
            }
            Err(e) => {
                assert!(!ok, "{security} {fwd:?}: {e}");
                let scheme = security[0]
                    .as_object()
                    .and_then(|m| m.keys().next().cloned())
                    .unwrap_or_default();
                assert_eq!(
                    e,
                    format!(
                        "no security requirement of this tool can be met: scheme `{scheme}` has no credential (none is configured for it, and {} is not set)",
                        crate::credential_env_var(&scheme)
                    )
                );
            }
        }
    }
}

#[test]
fn self_referential_argument_schemas_are_read_to_a_bounded_depth() {
    // The schema facts follow `$ref`, `items` and nullable `anyOf`; a schema that
    // refers to itself through them still gives a gateway that sends the value.
    let mut d = doc(
        get(
            "/x",
            json!({"list": {"in": "query", "name": "list", "explode": false},
                   "maybe": {"in": "query", "name": "maybe"}}),
        ),
        json!({"list": {"$ref": "#/$defs/L"}, "maybe": {"$ref": "#/$defs/M"}}),
    );
    d["tools"][0]["inputSchema"]["$defs"] = json!({
        "L": {"type": "array", "items": {"$ref": "#/$defs/L"}},
        "M": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "null"}]}
    });
    assert_eq!(
        request(&d, json!({"list": ["a", "b"], "maybe": "m"}))
            .expect("sent")
            .url,
        format!("{BASE}/x?list=a,b&maybe=m")
    );
}
