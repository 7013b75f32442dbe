//! The restricted YAML profile of spec §15.3 and the input limits of §15.8, one test
//! per rule: each asserts the diagnostic code and the line/column of the offending
//! node, worked out by hand from the input text (not copied from the decoder).
//! Then round trips: property-based (value → YAML → value) and over the vendored
//! spec examples and fixtures.

use mcpdesc_core::source::{Format, decode};
use mcpdesc_core::yaml::{parse, to_yaml_string};
use mcpdesc_core::{Diagnostic, Limits};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};
use std::path::PathBuf;

fn ok(text: &str) -> Value {
    match parse(text, &Limits::default()) {
        Ok((v, _)) => v,
        Err(e) => panic!("expected {text:?} to parse, got {e}"),
    }
}

fn fails(text: &str) -> Diagnostic {
    fails_with(text, &Limits::default())
}

fn fails_with(text: &str, limits: &Limits) -> Diagnostic {
    match parse(text, limits) {
        Ok((v, _)) => panic!("expected {text:?} to be rejected, got {v}"),
        Err(e) => e,
    }
}

/// Asserts code, line and column.
#[track_caller]
fn assert_diag(d: &Diagnostic, code: &str, line: u32, column: u32) {
    assert_eq!(
        (d.code.as_str(), d.line, d.column),
        (code, Some(line), Some(column)),
        "{d}"
    );
}

// ---------- exactly one document (§15.3) ----------

#[test]
fn zero_documents_are_rejected() {
    for text in ["", "\n\n", "# only a comment\n", "...\n"] {
        let d = fails(text);
        assert_eq!(d.code, "yaml-no-document", "{text:?}");
    }
}

#[test]
fn a_second_document_is_rejected_where_it_starts() {
    assert_diag(
        &fails("a: 1\nb: 2\n---\nc: 3\n"),
        "yaml-multiple-documents",
        3,
        1,
    );
    // an explicit end followed by more content starts a second (implicit) document
    assert_diag(&fails("a: 1\n...\nc: 3\n"), "yaml-multiple-documents", 3, 1);
    assert_diag(&fails("- 1\n...\n  - 2\n"), "yaml-multiple-documents", 3, 3);
    // even an empty second document counts
    assert_eq!(fails("--- 1\n---\n").code, "yaml-multiple-documents");
}

#[test]
fn one_document_with_markers_is_fine() {
    assert_eq!(ok("---\na: 1\n...\n"), json!({"a": 1}));
    assert_eq!(ok("%YAML 1.2\n---\na: 1\n"), json!({"a": 1}));
    // an explicit empty document is one document holding null
    assert_eq!(ok("---\n"), Value::Null);
}

#[test]
fn only_yaml_1_2_is_accepted() {
    assert_diag(
        &fails("# c\n%YAML 1.1\n---\na: yes\n"),
        "yaml-version",
        2,
        1,
    );
    assert_diag(&fails("%YAML 2.0\n---\na: 1\n"), "yaml-version", 1, 1);
    assert_eq!(
        ok("%YAML 1.2 # ok\n%TAG !e! tag:example.com,2000:\n---\na: yes\n"),
        json!({"a": "yes"})
    );
    // `%YAML` inside content is not a directive
    assert_eq!(ok("a: |\n  %YAML 1.1\n"), json!({"a": "%YAML 1.1\n"}));
}

#[test]
fn crlf_line_breaks_are_line_breaks() {
    let d = decode("a: 1\r\nb:\r\n  c: x\r\n", Format::Yaml, &Limits::default()).expect("valid");
    assert_eq!(d.value, json!({"a": 1, "b": {"c": "x"}}));
    assert_eq!(d.locate("/b/c").map(|p| (p.line, p.column)), Some((3, 3)));
    assert_diag(&fails("a: 1\r\na: 2\r\n"), "duplicate-key", 2, 1);
}

// ---------- anchors and aliases (§15.3.5) ----------

#[test]
fn anchors_are_rejected_at_the_anchor() {
    // the anchor is on line 4, col 6; the node it names starts on line 5
    let text = "a: 1\nb:\n  c: 2\n  d: &x\n    e: 3\n";
    let d = fails(text);
    assert_diag(&d, "yaml-anchor", 4, 6);
    assert_eq!(d.pointer, "/b/d");
    assert_diag(&fails("- &a x\n"), "yaml-anchor", 1, 3);
    // an anchor on a key
    assert_diag(&fails("a: 1\n&k b: 2\n"), "yaml-anchor", 2, 1);
}

#[test]
fn aliases_are_rejected_at_the_alias() {
    // alias to an undefined anchor on line 4
    let d = fails("a: 1\nb: 2\nc: 3\nd: *x\n");
    assert_diag(&d, "yaml-alias", 4, 4);
    // an alias used as a key
    assert_diag(&fails("a: 1\n*x : 2\n"), "yaml-alias", 2, 1);
}

#[test]
fn alias_bombs_cost_nothing() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..30 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let t = std::time::Instant::now();
    assert_diag(&fails(&text), "yaml-anchor", 1, 5);
    assert!(t.elapsed().as_secs() < 2);
}

// ---------- tags (§15.3.4) ----------

#[test]
fn every_explicit_tag_is_rejected() {
    assert_diag(&fails("a: !!str 1\n"), "yaml-tag", 1, 4);
    assert_diag(&fails("a:\n  - ok\n  - !custom x\n"), "yaml-tag", 3, 5);
    assert_diag(&fails("--- !!map\na: 1\n"), "yaml-tag", 1, 5);
    assert_diag(&fails("a: !!binary aGVsbG8=\n"), "yaml-tag", 1, 4);
    assert_diag(&fails("a: ! 12\n"), "yaml-tag", 1, 4);
    assert_diag(&fails("x: 1\n!!str k: v\n"), "yaml-tag", 2, 1);
    assert_diag(&fails("a: !<tag:example.com,2000:x> 1\n"), "yaml-tag", 1, 4);
    // a tag on a collection, on the line before its content
    assert_diag(&fails("a: !!seq\n  - 1\n"), "yaml-tag", 1, 4);
    // a tag and an anchor on one node: the first property is reported
    assert_eq!(fails("a: !!str &x 1\n").code, "yaml-tag");
    assert_eq!(fails("a: &x !!str 1\n").code, "yaml-anchor");
}

// ---------- keys (§15.3.1, §15.3.2) ----------

#[test]
fn plain_keys_that_resolve_to_non_strings_are_rejected() {
    for (text, line, col) in [
        ("1: a\n", 1, 1),
        ("a: 1\ntrue: x\n", 2, 1),
        ("a: 1\nb:\n  null: x\n", 3, 3),
        ("1.5: x\n", 1, 1),
        ("-3: x\n", 1, 1),
        ("1e999: x\n", 1, 1),
        ("{a: 1, 2: b}\n", 1, 8),
        ("- x\n- false: y\n", 2, 3),
    ] {
        let d = fails(text);
        assert_diag(&d, "yaml-non-string-key", line, col);
    }
    // the empty key is null
    assert_eq!(fails(": x\n").code, "yaml-non-string-key");
    assert_eq!(fails("? \n: x\n").code, "yaml-non-string-key");
}

#[test]
fn keys_that_look_non_string_elsewhere_are_strings_here() {
    // quoted keys are always strings; `yes`, `~`, `Null`, `0x1`, `<<` are strings under
    // the JSON schema; an explicit `? key` with a scalar is still a string key
    let v = ok("\"1\": a\n'true': b\nyes: c\n~: d\nNull: e\n0x1: f\n<<: g\n? k\n: h\n");
    assert_eq!(
        v,
        json!({"1": "a", "true": "b", "yes": "c", "~": "d", "Null": "e", "0x1": "f", "<<": "g", "k": "h"})
    );
}

#[test]
fn complex_keys_are_rejected() {
    assert_diag(&fails("? [a]\n: 1\n"), "yaml-complex-key", 1, 3);
    assert_diag(&fails("x: 1\n? {a: 1}\n: 2\n"), "yaml-complex-key", 2, 3);
    assert_diag(&fails("{[a]: 1}\n"), "yaml-complex-key", 1, 2);
    assert_diag(&fails("a:\n  ? - b\n  : 1\n"), "yaml-complex-key", 2, 5);
}

#[test]
fn duplicate_keys_are_rejected_after_resolution() {
    let d = fails("a: 1\nb: 2\na: 3\n");
    assert_diag(&d, "duplicate-key", 3, 1);
    assert_diag(&fails("a: 1\n\"a\": 2\n"), "duplicate-key", 2, 1);
    assert_diag(&fails("'1': x\nx: 0\n\"1\": y\n"), "duplicate-key", 3, 1);
    assert_diag(&fails("o:\n  k: 1\n  'k': 2\n"), "duplicate-key", 3, 3);
    assert_eq!(fails("o:\n  k: 1\n  'k': 2\n").pointer, "/o");
    assert_diag(&fails("{a: 1, a: 2}\n"), "duplicate-key", 1, 8);
}

#[test]
fn merge_key_is_an_ordinary_key() {
    let v = ok("base:\n  a: 1\nx:\n  <<: {b: 2}\n  c: 3\n");
    assert_eq!(v, json!({"base": {"a": 1}, "x": {"<<": {"b": 2}, "c": 3}}));
    // and the classic merge idiom fails on its anchor, never merges
    assert_eq!(fails("base: &b {a: 1}\nx:\n  <<: *b\n").code, "yaml-anchor");
}

// ---------- scalars (§15.3.3: YAML 1.2.2 JSON schema) ----------

#[test]
fn plain_scalars_resolve_by_the_json_schema() {
    let v = ok(concat!(
        "- null\n- true\n- false\n- 0\n- -0\n- 42\n- -17\n- 1.5\n- 1.\n- -2.5e-3\n- 1E+2\n",
        "- 18446744073709551615\n- 123456789012345678901234567890\n",
        "- ~\n- Null\n- NULL\n- True\n- yes\n- on\n- 0.8.0\n- 0x1F\n- 0o17\n- 1_000\n- +1\n- .5\n",
        "- 2025-06-18\n- .iNf\n- -.nan\n- inf\n- 012\n- 1:20\n-\n",
    ));
    let expected = json!([
        null,
        true,
        false,
        0,
        0,
        42,
        -17,
        1.5,
        1.0,
        -0.0025,
        100.0,
        18446744073709551615u64,
        1.2345678901234568e29,
        "~",
        "Null",
        "NULL",
        "True",
        "yes",
        "on",
        "0.8.0",
        "0x1F",
        "0o17",
        "1_000",
        "+1",
        ".5",
        "2025-06-18",
        ".iNf",
        "-.nan",
        "inf",
        "012",
        "1:20",
        null
    ]);
    assert_eq!(v, expected);
    // integers stay integers, floats stay floats
    assert!(v[5].is_i64() && v[7].is_f64() && v[8].is_f64());
}

#[test]
fn quoted_and_block_scalars_are_always_strings() {
    let v = ok(
        "a: \"1\"\nb: 'true'\nc: \"null\"\nd: |\n  1\ne: >-\n  false\nf: ''\ng: \"\\u00e9\\n\"\n",
    );
    assert_eq!(
        v,
        json!({"a": "1", "b": "true", "c": "null", "d": "1\n", "e": "false", "f": "", "g": "é\n"})
    );
}

#[test]
fn non_finite_numbers_are_rejected() {
    assert_diag(&fails("a: 1\nb: 1e999\n"), "non-finite-number", 2, 4);
    assert_diag(&fails("- -1e400\n"), "non-finite-number", 1, 3);
    // quoted, they are just strings
    assert_eq!(
        ok("a: '1e999'\nb: \".inf\"\nc: '-.Inf'\nd: \".NaN\"\n"),
        json!({"a": "1e999", "b": ".inf", "c": "-.Inf", "d": ".NaN"})
    );
}

/// YAML 1.2.2 Core-schema infinity and NaN (§10.3.2) in plain scalars: the author means
/// a number, and §15.3.3 rejects non-finite numbers. Positions are the scalar's first
/// character, counted by hand.
#[test]
fn core_schema_infinity_and_nan_are_rejected_where_they_stand() {
    for (text, line, column) in [
        ("maximum: .inf\n", 1, 10),
        ("a: 1\nminimum: -.inf\n", 2, 10),
        ("x: +.inf\n", 1, 4),
        ("x: .Inf\n", 1, 4),
        ("x: -.Inf\n", 1, 4),
        ("x: .INF\n", 1, 4),
        ("x: +.INF\n", 1, 4),
        ("x: .nan\n", 1, 4),
        ("x: .NaN\n", 1, 4),
        ("schema:\n  default: .NAN\n", 2, 12),
        ("- 1\n- .inf\n", 2, 3),
        ("{a: [1, .Inf]}\n", 1, 9),
    ] {
        let d = fails(text);
        assert_diag(&d, "non-finite-number", line, column);
        assert!(
            d.message.contains("non-finite") && d.message.contains("Quote it"),
            "{d}"
        );
    }
    assert_eq!(
        fails("schema:\n  default: .NAN\n").pointer,
        "/schema/default"
    );
    // as a key it is a number, like `1e999`, and keys must be strings
    assert_diag(&fails(".inf: x\n"), "yaml-non-string-key", 1, 1);
    // other spellings are strings in every YAML schema
    assert_eq!(
        ok("a: .iNf\nb: -.nan\nc: +.NaN\nd: inf\ne: NaN\nf: .infinity\n"),
        json!({"a": ".iNf", "b": "-.nan", "c": "+.NaN", "d": "inf", "e": "NaN", "f": ".infinity"})
    );
}

// ---------- syntax ----------

#[test]
fn syntax_errors_carry_positions() {
    let d = fails("a: 1\nb: [1, 2\nc: 3\n");
    assert_eq!(d.code, "yaml-syntax");
    assert!(d.line.is_some_and(|l| l >= 2), "{d}");
    let d = fails("a: 'unterminated\n");
    assert_eq!(d.code, "yaml-syntax");
    // a tab used as indentation (the scanner reports just after it)
    let d = fails("a:\n\t- b\n");
    assert_eq!((d.code.as_str(), d.line), ("yaml-syntax", Some(2)));
    let d = fails("a: 1\n b: 2\n");
    assert_diag(&d, "yaml-syntax", 2, 3);
    assert_diag(&fails("a: b: c\n"), "yaml-syntax", 1, 5);
    assert_diag(&fails("k: v\nl:\n  - a\n  b: 1\n"), "yaml-syntax", 4, 3);
    // an invalid escape in a double-quoted scalar on line 4
    assert_eq!(fails("a: 1\nb: 2\nc: 3\nd: \"x\\q\"\n").line, Some(4));
    // `- a` then `  - b` is not an error: it is the plain scalar "a - b"
    assert_eq!(ok("l:\n- a\n  - b\n"), json!({"l": ["a - b"]}));
}

#[test]
fn arbitrary_text_never_panics() {
    // hand-picked nasty inputs; the property test below adds random ones
    for text in [
        "[",
        "{",
        "]",
        "}",
        "- [",
        "? ",
        ":",
        "-",
        "--- |",
        "|",
        ">-\n",
        "'",
        "\"",
        "\"\\",
        "a: \"\\x\"",
        "&",
        "*",
        "!",
        "%",
        "%YAML 1.2\n%YAML 1.2\n---\n",
        "%TAG ! x\n--- a",
        "{a: [}",
        "[a: 1, b]",
        "- - - - -",
        "\t",
        "\u{feff}a: 1",
        "a: b: c",
        "? ? ? a",
        "[? a : b]",
        "{? a}",
        "a: |2\n x\n",
    ] {
        let _ = parse(text, &Limits::default());
    }
}

// ---------- limits (§15.8) ----------

#[test]
fn deep_flow_nesting_is_a_depth_error_not_a_crash() {
    let text = "[".repeat(100_000);
    let t = std::time::Instant::now();
    let d = fails(&text);
    assert_diag(&d, "limit-depth", 1, 256);
    assert!(t.elapsed().as_secs() < 2);
    let d = fails(&format!("a: {}", "{a: ".repeat(100_000)));
    assert_eq!(d.code, "limit-depth");
    // compact block sequences on one line: `- - - … x`; the 257th `-` is at column 513
    let t = std::time::Instant::now();
    let d = fails(&format!("{}x", "- ".repeat(100_000)));
    assert_diag(&d, "limit-depth", 1, 513);
    assert!(t.elapsed().as_secs() < 2);
}

#[test]
fn deep_block_nesting_is_a_depth_error() {
    // 300 nested mappings; the 257th opens on line 257, its key at column 2*256+1
    let mut text = String::new();
    for i in 0..300 {
        text.push_str(&" ".repeat(2 * i));
        text.push_str("a:\n");
    }
    assert_diag(&fails(&text), "limit-depth", 257, 513);
    // 300 nested sequences, one per line
    let mut text = String::new();
    for i in 0..300 {
        text.push_str(&" ".repeat(2 * i));
        text.push_str("-\n");
    }
    assert_diag(&fails(&text), "limit-depth", 257, 513);
    // a configured depth
    let l = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert_diag(
        &fails_with("a:\n  b:\n    c:\n      d: 1\n", &l),
        "limit-depth",
        4,
        7,
    );
    assert!(parse("a:\n  b:\n    c: 1\n", &l).is_ok());
}

#[test]
fn deep_nesting_with_raised_limits_is_linear_and_stack_safe() {
    // 10k levels of one-space block nesting (text is 50 MB of indentation); with
    // the depth limit raised it parses. Run on a big stack only because dropping a
    // 10k-deep serde_json::Value recurses.
    let run = |n: usize| {
        let mut text = String::with_capacity(n * n / 2 + 4 * n);
        for i in 0..n {
            text.push_str(&" ".repeat(i));
            text.push_str("a:\n");
        }
        let l = Limits {
            max_depth: n + 1,
            ..Limits::default()
        };
        let t = std::time::Instant::now();
        let r = parse(&text, &l).map(|_| ());
        (r, t.elapsed(), text.len())
    };
    let h = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || (run(2000), run(4000)))
        .expect("thread");
    let ((r1, t1, n1), (r2, t2, n2)) = h.join().expect("no panic");
    assert!(r1.is_ok() && r2.is_ok());
    // 4x the bytes: allow generous noise but not 4x the per-byte cost
    let per_byte_1 = t1.as_secs_f64() / n1 as f64;
    let per_byte_2 = t2.as_secs_f64() / n2 as f64;
    assert!(
        per_byte_2 < per_byte_1 * 3.0 + 1e-9,
        "{t1:?} for {n1} bytes vs {t2:?} for {n2} bytes"
    );
}

#[test]
fn collection_size_limit() {
    let l = Limits {
        max_collection_len: 2,
        ..Limits::default()
    };
    assert_diag(&fails_with("[1, 2, 3]", &l), "limit-collection-size", 1, 8);
    assert_diag(
        &fails_with("- 1\n- 2\n- 3\n", &l),
        "limit-collection-size",
        3,
        3,
    );
    assert_diag(
        &fails_with("a: 1\nb: 2\nc: 3\n", &l),
        "limit-collection-size",
        3,
        4,
    );
    assert!(parse("a: 1\nb: 2\n", &l).is_ok());
}

#[test]
fn scalar_size_limit() {
    let l = Limits {
        max_scalar_bytes: 3,
        ..Limits::default()
    };
    assert_diag(
        &fails_with("a: abc\nb: abcd\n", &l),
        "limit-scalar-size",
        2,
        4,
    );
    assert_diag(&fails_with("abcd: 1\n", &l), "limit-scalar-size", 1, 1);
    assert_diag(&fails_with("a: |\n  abcd\n", &l), "limit-scalar-size", 2, 3);
}

#[test]
fn total_values_limit() {
    let l = Limits {
        max_total_values: 3,
        ..Limits::default()
    };
    assert_diag(&fails_with("[1, 2, 3]", &l), "limit-total-values", 1, 8);
    assert!(parse("[1, 2]", &l).is_ok());
}

#[test]
fn document_size_limit() {
    let l = Limits {
        max_document_bytes: 10,
        ..Limits::default()
    };
    let d = decode("a: 123456789\n", Format::Yaml, &l).expect_err("too big");
    assert_diag(&d, "limit-document-size", 1, 1);
}

// ---------- positions ----------

#[test]
fn source_map_positions_members_at_their_keys() {
    let text = "a: 1\nb:\n  - x\n  - k: v\n    j: [1, {z: 2}]\n";
    let d = decode(text, Format::Yaml, &Limits::default()).expect("valid");
    let at = |p: &str| d.locate(p).map(|p| (p.line, p.column));
    assert_eq!(at("/a"), Some((1, 1)));
    assert_eq!(at("/b"), Some((2, 1)));
    assert_eq!(at("/b/0"), Some((3, 5)));
    assert_eq!(at("/b/1"), Some((4, 5)));
    assert_eq!(at("/b/1/j"), Some((5, 5)));
    assert_eq!(at("/b/1/j/1"), Some((5, 12)));
    assert_eq!(at("/b/1/j/1/z"), Some((5, 13)));
    // columns count characters, not bytes
    let d = decode("é: 1\nü: {ö: 2}\n", Format::Yaml, &Limits::default()).expect("valid");
    assert_eq!(d.locate("/ü/ö").map(|p| (p.line, p.column)), Some((2, 5)));
}

// ---------- emitter ----------

#[test]
fn emitter_output_shape() {
    let v = json!({
        "mcpdesc": "0.8.0",
        "tools": [{"name": "t", "description": "two\nlines", "inputSchema": {"type": "object"}}],
        "empty": [], "none": {}, "n": null, "f": 1.0, "big": 1e300, "neg": -5,
    });
    let y = to_yaml_string(&v);
    assert_eq!(
        y,
        "mcpdesc: \"0.8.0\"\ntools:\n  - name: t\n    description: |-\n      two\n      lines\n    inputSchema:\n      type: object\nempty: []\nnone: {}\n\"n\": null\nf: 1.0\nbig: 1e+300\nneg: -5\n"
    );
    assert_eq!(ok(&y), v);
    assert_eq!(to_yaml_string(&json!("x")), "x\n");
    assert_eq!(to_yaml_string(&json!([])), "[]\n");
    assert_eq!(to_yaml_string(&json!({})), "{}\n");
    assert_eq!(to_yaml_string(&json!("a\nb")), "\"a\\nb\"\n");
}

#[test]
fn emitter_handles_tricky_strings() {
    let v = tricky_map();
    let y = to_yaml_string(&v);
    let back = parse(&y, &Limits::default())
        .unwrap_or_else(|e| panic!("{e}\n{y}"))
        .0;
    assert_eq!(back, v, "{y}");
    // and as sequence items, nested one level deeper
    let v = json!([v, [v.clone()]]);
    let y = to_yaml_string(&v);
    assert_eq!(
        parse(&y, &Limits::default())
            .unwrap_or_else(|e| panic!("{e}\n{y}"))
            .0,
        v
    );
}

#[test]
fn emitter_handles_long_scalars_everywhere() {
    // YAML limits implicit keys to 1024 characters; long values must not be mistaken
    // for (over-long) keys in any position.
    let long = "word ".repeat(1000).trim_end().to_string();
    let long_lines = format!("{long}\n{long}\n");
    for v in [
        json!(long),
        json!(long_lines),
        json!([long, long_lines, {"a": long, "b": long_lines}, [long]]),
        json!({"a": long, "b": [long], "c": {"d": long_lines}, long.clone(): 1}),
    ] {
        let y = to_yaml_string(&v);
        assert_eq!(
            parse(&y, &Limits::default())
                .unwrap_or_else(|e| panic!("{e}"))
                .0,
            v
        );
    }
}

/// Strings that need care, each as key and value.
fn tricky_map() -> Value {
    let long_key = "k".repeat(5000);
    let mut m = serde_json::Map::new();
    for s in [
        "",
        " ",
        "-",
        "- x",
        "?",
        "? x",
        ":",
        "a: b",
        "a:",
        "#",
        "a #b",
        "<<",
        "true",
        "1",
        "1.0",
        "0.8.0",
        "~",
        "null",
        "Yes",
        "\u{2028}",
        "\u{feff}x",
        "x\u{85}y",
        "\u{7f}",
        "tab\there",
        "cr\rlf",
        "\"q\"",
        "'s'",
        "@",
        "`",
        "%",
        "!x",
        "&x",
        "*x",
        "|",
        ">",
        "[x]",
        "{x}",
        "---",
        "...",
        "... x",
        "é",
        "\n",
        "\n\n",
        "a\n",
        "a\n\n",
        "a\n\n\n",
        " lead\nx",
        "x\n  indented\n",
        "x\n \ny",
        "\nx",
        "x\r\ny",
        &long_key,
    ] {
        m.insert(s.to_string(), Value::String(s.to_string()));
    }
    Value::Object(m)
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|i| json!(i)),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        tricky_string().prop_map(Value::String),
    ]
}

fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~\\n\\t]{0,12}",
        prop::sample::select(vec![
            "<<", "true", "false", "null", "1", "-1", "1.5", "1e5", "-", "? x", "#", ": ", "~",
            "yes", "0.8.0", "", " ", "\n", "a\n", "a\nb\n\n", "é", "\u{2028}", "\u{feff}", "---",
            "...",
        ])
        .prop_map(str::to_string),
        "[a-z:#\\- \\n]{1,8}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((tricky_string(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn emit_then_parse_is_identity(v in json_value()) {
        let y = to_yaml_string(&v);
        let back = parse(&y, &Limits::default()).map(|(v, _)| v);
        prop_assert_eq!(back.as_ref().ok(), Some(&v), "YAML:\n{}\nerror: {:?}", y, back.as_ref().err());
        // deterministic
        prop_assert_eq!(to_yaml_string(&v), y);
    }

    #[test]
    fn random_text_never_panics(s in "[ -~\\n\\t\u{e9}]{0,64}") {
        let _ = parse(&s, &Limits::default());
    }

    #[test]
    fn random_yamlish_text_never_panics(
        parts in prop::collection::vec(
            prop::sample::select(vec![
                "a", ":", " ", "\n", "  ", "-", "[", "]", "{", "}", ",", "?", "&x", "*x", "!t", "'", "\"", "|", ">",
                "#", "---", "...", "1", "\t", "\\",
            ]),
            0..40,
        )
    ) {
        let _ = parse(&parts.concat(), &Limits::default());
    }
}

// ---------- the spec's own YAML and JSON files ----------

fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/spec")
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(spec_dir().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn spec_yaml_files_round_trip() {
    let mut n = 0;
    for dir in [
        "examples",
        "fixtures/expected-valid",
        "fixtures/expected-invalid",
        "fixtures/expected-warning",
    ] {
        for p in files(dir, "yaml") {
            let text = std::fs::read_to_string(&p).expect("read");
            let (v, _) =
                parse(&text, &Limits::default()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert!(v.is_object(), "{}", p.display());
            let y = to_yaml_string(&v);
            let (back, _) = parse(&y, &Limits::default())
                .unwrap_or_else(|e| panic!("{}: {e}\n{y}", p.display()));
            assert_eq!(back, v, "{}", p.display());
            assert_eq!(
                to_yaml_string(&back),
                y,
                "{}: emitting is stable",
                p.display()
            );
            n += 1;
        }
    }
    assert!(
        n >= 9,
        "expected the 8 examples and the YAML fixture, found {n}"
    );
}

#[test]
fn spec_yaml_examples_agree_with_an_independent_reading() {
    // Independent oracle: the `mcpdesc: 0.8.0` and quoted revision strings every
    // example carries, read by hand from the files.
    for p in files("examples", "yaml") {
        let text = std::fs::read_to_string(&p).expect("read");
        let (v, _) = parse(&text, &Limits::default()).expect("valid");
        assert_eq!(v["mcpdesc"], "0.8.0", "{}", p.display());
        assert!(
            v["protocolVersions"]
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string)),
            "{}",
            p.display()
        );
    }
}

#[test]
fn spec_json_files_round_trip_through_yaml() {
    let mut n = 0;
    for dir in [
        "fixtures/expected-valid",
        "fixtures/expected-invalid",
        "fixtures/expected-warning",
    ] {
        for p in files(dir, "json") {
            let text = std::fs::read_to_string(&p).expect("read");
            let v: Value = serde_json::from_str(&text).expect("fixture is JSON");
            let y = to_yaml_string(&v);
            let (back, _) = parse(&y, &Limits::default())
                .unwrap_or_else(|e| panic!("{}: {e}\n{y}", p.display()));
            assert_eq!(back, v, "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 90, "found {n} JSON fixtures");
}

// ---------- independent oracle: the `yaml` npm package (eemeli/yaml) ----------

/// Equality across the JavaScript boundary: JS has one number type, so `1.0` comes
/// back as `1` and big integers as the nearest double.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        // order-insensitive: JavaScript objects list integer-like keys first
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, va)| y.get(k).is_some_and(|vb| same(va, vb)))
        }
        _ => a == b,
    }
}

/// Our emitted YAML must read back as the same data in another implementation, both
/// as YAML 1.2 (Core schema, the npm package's default) and as YAML 1.1 (where `yes`,
/// `~`, `0x1F`, dates and `<<` merges mean something else): the emitter quotes
/// generously precisely so that this holds.
#[test]
fn emitted_yaml_reads_the_same_in_an_independent_parser() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.deps/node/node_modules");
    if !root.join("yaml/package.json").exists() {
        assert!(
            std::env::var("MCPDESC_REQUIRE_DEPS").as_deref() != Ok("1"),
            "MCPDESC_REQUIRE_DEPS=1 but .deps/node/node_modules/yaml (npm yaml@2.9.1) is missing"
        );
        eprintln!(
            "SKIPPED emitted_yaml_reads_the_same_in_an_independent_parser: npm `yaml` not installed under .deps/node"
        );
        return;
    }
    // values: the spec's files, the tricky strings, and a fixed sample of random values
    let mut values = vec![tricky_map()];
    for dir in [
        "examples",
        "fixtures/expected-valid",
        "fixtures/expected-invalid",
        "fixtures/expected-warning",
    ] {
        for p in files(dir, "json") {
            values.push(
                serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json"),
            );
        }
        for p in files(dir, "yaml") {
            values.push(
                parse(
                    &std::fs::read_to_string(&p).expect("read"),
                    &Limits::default(),
                )
                .expect("valid")
                .0,
            );
        }
    }
    let mut runner = TestRunner::deterministic();
    for _ in 0..400 {
        values.push(
            json_value()
                .new_tree(&mut runner)
                .expect("strategy")
                .current(),
        );
    }
    let dir = std::env::temp_dir().join(format!("mcpdesc-yaml-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut paths = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let p = dir.join(format!("{i}.yaml"));
        std::fs::write(&p, to_yaml_string(v)).expect("write");
        paths.push(p);
    }
    // The other direction, for the decoder: the spec's hand-written YAML files must
    // decode here as they do there (YAML 1.2 mode only; they are not written for 1.1).
    let emitted = values.len();
    for dir in ["examples", "fixtures/expected-valid"] {
        for p in files(dir, "yaml") {
            let text = std::fs::read_to_string(&p).expect("read");
            values.push(parse(&text, &Limits::default()).expect("valid").0);
            paths.push(p);
        }
    }
    let script = r#"
        const YAML = require(process.argv[1]);
        const fs = require('fs');
        for (const f of process.argv.slice(2)) {
            const text = fs.readFileSync(f, 'utf8');
            const out = {};
            for (const [name, opts] of [['v12', {}], ['v11', { version: '1.1' }]]) {
                try {
                    const doc = YAML.parseDocument(text, { ...opts, uniqueKeys: true, strict: true });
                    out[name] = doc.errors.length ? { error: String(doc.errors[0]) } : { value: doc.toJS() };
                } catch (e) { out[name] = { error: String(e) }; }
            }
            console.log(JSON.stringify(out));
        }
    "#;
    let output = std::process::Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(root.join("yaml"))
        .args(&paths)
        .output()
        .expect("node runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("utf8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), values.len());
    for (i, (v, line)) in values.iter().zip(lines).enumerate() {
        let got: Value = serde_json::from_str(line).expect("node printed JSON");
        let modes: &[&str] = if i < emitted {
            &["v12", "v11"]
        } else {
            &["v12"]
        };
        for &mode in modes {
            let r = &got[mode];
            if !same(&r["value"], v) {
                let what = if i < emitted {
                    format!("our YAML:\n{}", to_yaml_string(v))
                } else {
                    paths[i].display().to_string()
                };
                panic!("{mode}: npm yaml read {what}\ndifferently: expected {v}\ngot {r}");
            }
        }
    }
}
