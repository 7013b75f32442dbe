//! Proof 1: the *Style Examples* table of OpenAPI 3.1.1 §4.8.12.4 (identical in 3.0.4
//! §4.7.12.4, which carry the corrections: label with `explode: false` joins with `,`;
//! `|`, `[`, `]` and space percent-encoded), transcribed by hand, every row and column,
//! for every location a style is defined in — checked both on the serializer functions
//! and on the whole request the gateway builds from a tool's provenance.
//!
//! The value of `color` is, per column:
//! - undefined: `null` (RFC 6570 also counts `[]` and `{}` as undefined; and the
//!   empty string gives the same texts by RFC 6570's empty-string rules)
//! - string: `"blue"`
//! - array: `["blue", "black", "brown"]`
//! - object: `{"R": 100, "G": 200, "B": 150}`
//!
//! `None` is the table's *n/a*: the gateway answers with a tool error.

use crate::call::ToolCall;
use crate::serialize::{Encoding, cookie_pairs, header_value, path_expansion, query_pairs};
use crate::{HttpRequest, RestBackend, RestOptions};
use mcpdesc_core::ProtocolRevision;
use mcpdesc_core::provenance::Style;
use serde_json::{Map, Value, json};

type Row = (Style, bool, [Option<&'static str>; 4]);

/// Path styles (`in: path`), exactly as the table prints them.
const PATH_ROWS: [Row; 6] = [
    (
        Style::Matrix,
        false,
        [
            Some(";color"),
            Some(";color=blue"),
            Some(";color=blue,black,brown"),
            Some(";color=R,100,G,200,B,150"),
        ],
    ),
    (
        Style::Matrix,
        true,
        [
            Some(";color"),
            Some(";color=blue"),
            Some(";color=blue;color=black;color=brown"),
            Some(";R=100;G=200;B=150"),
        ],
    ),
    (
        Style::Label,
        false,
        [
            Some("."),
            Some(".blue"),
            Some(".blue,black,brown"),
            Some(".R,100,G,200,B,150"),
        ],
    ),
    (
        Style::Label,
        true,
        [
            Some("."),
            Some(".blue"),
            Some(".blue.black.brown"),
            Some(".R=100.G=200.B=150"),
        ],
    ),
    (
        Style::Simple,
        false,
        [
            Some(""),
            Some("blue"),
            Some("blue,black,brown"),
            Some("R,100,G,200,B,150"),
        ],
    ),
    (
        Style::Simple,
        true,
        [
            Some(""),
            Some("blue"),
            Some("blue,black,brown"),
            Some("R=100,G=200,B=150"),
        ],
    ),
];

/// Query styles (`in: query`), without the leading `?` the table shows.
const QUERY_ROWS: [Row; 8] = [
    (
        Style::Form,
        false,
        [
            Some("color="),
            Some("color=blue"),
            Some("color=blue,black,brown"),
            Some("color=R,100,G,200,B,150"),
        ],
    ),
    (
        Style::Form,
        true,
        [
            Some("color="),
            Some("color=blue"),
            Some("color=blue&color=black&color=brown"),
            Some("R=100&G=200&B=150"),
        ],
    ),
    (
        Style::SpaceDelimited,
        false,
        [
            None,
            None,
            Some("color=blue%20black%20brown"),
            Some("color=R%20100%20G%20200%20B%20150"),
        ],
    ),
    (Style::SpaceDelimited, true, [None, None, None, None]),
    (
        Style::PipeDelimited,
        false,
        [
            None,
            None,
            Some("color=blue%7Cblack%7Cbrown"),
            Some("color=R%7C100%7CG%7C200%7CB%7C150"),
        ],
    ),
    (Style::PipeDelimited, true, [None, None, None, None]),
    (Style::DeepObject, false, [None, None, None, None]),
    (
        Style::DeepObject,
        true,
        [
            None,
            None,
            None,
            Some("color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"),
        ],
    ),
];

fn values() -> [Value; 4] {
    [
        Value::Null,
        json!("blue"),
        json!(["blue", "black", "brown"]),
        json!({"R": 100, "G": 200, "B": 150}),
    ]
}

const COLUMNS: [&str; 4] = ["undefined", "string", "array", "object"];

#[test]
fn path_styles_match_the_table() {
    for (style, explode, expected) in PATH_ROWS {
        for (i, v) in values().iter().enumerate() {
            let got = path_expansion("color", style, explode, v).ok();
            assert_eq!(
                got.as_deref(),
                expected[i],
                "{style} explode={explode} {}",
                COLUMNS[i]
            );
        }
        // RFC 6570 undefined values and the empty string give the undefined column.
        for v in [json!([]), json!({}), json!("")] {
            assert_eq!(
                path_expansion("color", style, explode, &v).ok().as_deref(),
                expected[0],
                "{style} explode={explode} {v}"
            );
        }
    }
}

#[test]
fn query_styles_match_the_table() {
    for (style, explode, expected) in QUERY_ROWS {
        for (i, v) in values().iter().enumerate() {
            let got = query_pairs("color", style, explode, v, Encoding::Unreserved)
                .ok()
                .map(|p| p.join("&"));
            assert_eq!(
                got.as_deref(),
                expected[i],
                "{style} explode={explode} {}",
                COLUMNS[i]
            );
        }
        for v in [json!([]), json!({})] {
            assert_eq!(
                query_pairs("color", style, explode, &v, Encoding::Unreserved)
                    .ok()
                    .map(|p| p.join("&"))
                    .as_deref(),
                expected[0],
                "{style} explode={explode} {v}"
            );
        }
    }
}

#[test]
fn header_simple_matches_the_table() {
    // `in: header` allows only `simple`; header values are not percent-encoded
    // (OpenAPI 3.2.0 §4.15.1), which changes nothing for these values.
    for (style, explode, expected) in PATH_ROWS.iter().filter(|r| r.0 == Style::Simple) {
        for (i, v) in values().iter().enumerate() {
            assert_eq!(
                header_value(*style, *explode, v).ok().as_deref(),
                expected[i],
                "header explode={explode} {}",
                COLUMNS[i]
            );
        }
    }
    // The table's path styles are not header styles.
    assert!(header_value(Style::Label, false, &json!("blue")).is_err());
}

#[test]
fn cookie_form_matches_the_table() {
    // `in: cookie` allows only `form`. Unexploded rows are the table's (without `?`);
    // exploded arrays and objects would join cookies with `&`, which OpenAPI 3.1.1
    // Appendix D calls incorrect for several cookie values: a tool error.
    let (_, _, unexploded) = QUERY_ROWS[0];
    let (_, _, exploded) = QUERY_ROWS[1];
    for (i, v) in values().iter().enumerate() {
        assert_eq!(
            cookie_pairs("color", Style::Form, false, v)
                .ok()
                .map(|p| p.join("; "))
                .as_deref(),
            unexploded[i],
            "cookie explode=false {}",
            COLUMNS[i]
        );
        let want = if i >= 2 { None } else { exploded[i] };
        assert_eq!(
            cookie_pairs("color", Style::Form, true, v)
                .ok()
                .map(|p| p.join("; "))
                .as_deref(),
            want,
            "cookie explode=true {}",
            COLUMNS[i]
        );
    }
}

/// A description with one tool whose `color` argument has the given provenance.
fn doc(path: &str, arg: Value) -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "styles", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "tools": [{
            "name": "paint",
            "inputSchema": {"type": "object", "properties": {"color": {}}},
            "x-mcpdesc-openapi": {
                "method": "GET",
                "path": path,
                "servers": ["http://127.0.0.1:9/base"],
                "arguments": {"color": arg}
            }
        }]
    })
}

fn built(d: &Value, v: &Value) -> Result<HttpRequest, String> {
    let backend = RestBackend::new(d, RestOptions::default()).expect("backend");
    let mut args = Map::new();
    args.insert("color".into(), v.clone());
    let tool = &d["tools"][0];
    backend.build_request(&ToolCall {
        tool,
        index: 0,
        revision: ProtocolRevision::V2026_07_28,
        arguments: &args,
        forwarded_headers: &[],
        meta: None,
        token_exchange: None,
    })
}

#[test]
fn whole_requests_carry_the_table_in_every_location() {
    for (style, explode, expected) in PATH_ROWS {
        let d = doc(
            "/items/{color}/x",
            json!({"in": "path", "name": "color", "style": style.as_str(), "explode": explode}),
        );
        for (i, v) in values().iter().enumerate() {
            let got = built(&d, v).ok().map(|r| r.url);
            // A value that makes the whole segment `.` (label, undefined) would be a
            // dot-segment: a tool error.
            let want = expected[i]
                .filter(|e| *e != ".")
                .map(|e| format!("http://127.0.0.1:9/base/items/{e}/x"));
            assert_eq!(got, want, "path {style} explode={explode} {}", COLUMNS[i]);
        }
    }
    for (style, explode, expected) in QUERY_ROWS {
        let d = doc(
            "/items",
            json!({"in": "query", "name": "color", "style": style.as_str(), "explode": explode}),
        );
        for (i, v) in values().iter().enumerate() {
            let got = built(&d, v).ok().map(|r| r.url);
            let want = expected[i].map(|e| format!("http://127.0.0.1:9/base/items?{e}"));
            assert_eq!(got, want, "query {style} explode={explode} {}", COLUMNS[i]);
        }
    }
    for explode in [false, true] {
        let d = doc(
            "/items",
            json!({"in": "header", "name": "X-Color", "style": "simple", "explode": explode}),
        );
        let expected = PATH_ROWS[if explode { 5 } else { 4 }].2;
        for (i, v) in values().iter().enumerate() {
            let got = built(&d, v).ok().map(|r| {
                r.headers
                    .iter()
                    .find(|(n, _)| n == "X-Color")
                    .map(|(_, v)| v.clone())
            });
            assert_eq!(
                got,
                expected[i].map(|e| Some(e.to_string())),
                "header explode={explode} {}",
                COLUMNS[i]
            );
        }
        let d = doc(
            "/items",
            json!({"in": "cookie", "name": "color", "style": "form", "explode": explode}),
        );
        let expected = QUERY_ROWS[0].2;
        for (i, v) in values().iter().enumerate() {
            let got = built(&d, v).ok().map(|r| {
                r.headers
                    .iter()
                    .find(|(n, _)| n == "Cookie")
                    .map(|(_, v)| v.clone())
            });
            let want = if explode && i >= 2 {
                None
            } else {
                expected[i].map(|e| Some(e.to_string()))
            };
            assert_eq!(got, want, "cookie explode={explode} {}", COLUMNS[i]);
        }
    }
}

#[test]
fn percent_encoding_per_location() {
    let path = doc(
        "/items/{color}",
        json!({"in": "path", "name": "color", "style": "simple", "explode": false}),
    );
    let url = |v: Value| built(&path, &v).map(|r| r.url);
    // A path value never adds a segment, a query, a fragment or a dot-segment.
    assert_eq!(
        url(json!("a/b?c#d e%")).as_deref(),
        Ok("http://127.0.0.1:9/base/items/a%2Fb%3Fc%23d%20e%25")
    );
    assert!(url(json!("..")).is_err_and(|e| e.contains("dot-segment")));
    assert!(url(json!(".")).is_err_and(|e| e.contains("dot-segment")));
    assert_eq!(
        url(json!("%2F")).as_deref(),
        Ok("http://127.0.0.1:9/base/items/%252F")
    );
    assert_eq!(
        url(json!("...")).as_deref(),
        Ok("http://127.0.0.1:9/base/items/...")
    );
    assert_eq!(
        url(json!("é")).as_deref(),
        Ok("http://127.0.0.1:9/base/items/%C3%A9")
    );
    // Array items are encoded one by one; the `,` delimiter stays literal.
    assert_eq!(
        url(json!(["a,b", "c"])).as_deref(),
        Ok("http://127.0.0.1:9/base/items/a%2Cb,c")
    );
    // Query: unreserved only by default; allowReserved keeps the reserved characters a
    // query may hold and still encodes `[`, `]`, `#`, `&`, `=`, `+`.
    let q = doc(
        "/items",
        json!({"in": "query", "name": "color", "style": "form", "explode": true}),
    );
    assert_eq!(
        built(&q, &json!("a/b?c:d[e]#&=+ "))
            .map(|r| r.url)
            .as_deref(),
        Ok("http://127.0.0.1:9/base/items?color=a%2Fb%3Fc%3Ad%5Be%5D%23%26%3D%2B%20")
    );
    let qr = doc(
        "/items",
        json!({"in": "query", "name": "color", "style": "form", "explode": true, "allowReserved": true}),
    );
    assert_eq!(
        built(&qr, &json!("a/b?c:d[e]#&=+ %41"))
            .map(|r| r.url)
            .as_deref(),
        Ok("http://127.0.0.1:9/base/items?color=a/b?c:d%5Be%5D%23%26%3D%2B%20%41")
    );
    // allowReserved applies to query only: a path ignores it.
    let pr = doc(
        "/items/{color}",
        json!({"in": "path", "name": "color", "style": "simple", "allowReserved": true}),
    );
    assert_eq!(
        built(&pr, &json!("a/b")).map(|r| r.url).as_deref(),
        Ok("http://127.0.0.1:9/base/items/a%2Fb")
    );
    // Parameter names are percent-encoded too (OpenAPI 3.1.1 Appendix C).
    let n = doc(
        "/items",
        json!({"in": "query", "name": "filter[status]", "style": "form", "explode": true}),
    );
    assert_eq!(
        built(&n, &json!("on")).map(|r| r.url).as_deref(),
        Ok("http://127.0.0.1:9/base/items?filter%5Bstatus%5D=on")
    );
    // Header values with CR, LF, NUL or other control characters are tool errors.
    let h = doc(
        "/items",
        json!({"in": "header", "name": "X-Color", "style": "simple"}),
    );
    for bad in ["a\r\nInjected: 1", "a\nb", "a\u{0}b", "a\u{7f}"] {
        let e = built(&h, &json!(bad)).expect_err("control characters");
        assert!(
            e.contains("argument `color`") && e.contains("control character"),
            "{e}"
        );
    }
    assert!(built(&h, &json!("tab\tok")).is_ok());
    // Nested values are not defined by RFC 6570 / OpenAPI styles.
    let e = built(&q, &json!([["x"]])).expect_err("nested");
    assert!(e.contains("argument `color`"), "{e}");
}

/// Lists the Style Examples table does not print, expanded by RFC 6570 §3.2.7's `;`
/// algorithm (and §3.2.6's `.` and §3.2.2's simple one): a list is `;name=` followed by its
/// items joined, so a one-item list and a list whose first item is empty still get `=`.
/// Only a list that is undefined (`[]`) is the bare `;name`. Path values are never
/// expanded with reserved characters (`allowReserved` is defined for query parameters
/// only, OpenAPI 3.1.1 §4.8.12.1): `/`, `?`, `,` and `;` inside an item are encoded.
#[test]
fn path_lists_outside_the_table_follow_rfc_6570() {
    let cases: [(Style, bool, Value, &str); 9] = [
        (Style::Matrix, false, json!(["blue"]), ";color=blue"),
        (Style::Matrix, false, json!(["", "x"]), ";color=,x"),
        (Style::Matrix, false, json!([]), ";color"),
        (Style::Matrix, true, json!(["blue"]), ";color=blue"),
        (Style::Matrix, true, json!(["", "x"]), ";color;color=x"),
        (Style::Label, false, json!(["blue"]), ".blue"),
        (Style::Simple, false, json!(["", "x"]), ",x"),
        (
            Style::Simple,
            false,
            json!(["a/b?c", "d;e,f"]),
            "a%2Fb%3Fc,d%3Be%2Cf",
        ),
        (
            Style::Matrix,
            false,
            json!(["a/b", "c;d"]),
            ";color=a%2Fb,c%3Bd",
        ),
    ];
    for (style, explode, value, want) in cases {
        assert_eq!(
            path_expansion("color", style, explode, &value).as_deref(),
            Ok(want),
            "{style:?} explode={explode} {value}"
        );
    }
}
