//! The oracle is serde_json itself: the split parse gives exactly its value (same
//! members in the same order), or `None` — never another `Ok`.

use super::*;
use proptest::prelude::*;

/// The serial parse's answer.
fn serial(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(bytes).ok()
}

/// The split parse's value.
fn split(bytes: &[u8], split_bytes: usize, levels: usize) -> Option<Value> {
    split_batched(bytes, split_bytes, levels, 1)
}

/// The split parse's value, its leaves handed to the pool in batches of `batch` bytes.
fn split_batched(bytes: &[u8], split_bytes: usize, levels: usize, batch: usize) -> Option<Value> {
    parse_with(bytes, split_bytes, levels, batch).map(|d| d.value)
}

/// The split parse agrees with the serial one: same value and same member order when it
/// answers at all.
fn agrees(bytes: &[u8], split_bytes: usize, batch: usize) -> Result<(), TestCaseError> {
    if let Some(split) = split_batched(bytes, split_bytes, 3, batch) {
        let Some(whole) = serial(bytes) else {
            return Err(TestCaseError::fail(format!(
                "split parse accepted what serde_json refuses: {:?}",
                String::from_utf8_lossy(bytes)
            )));
        };
        prop_assert_eq!(&split, &whole);
        prop_assert_eq!(split.to_string(), whole.to_string());
    }
    Ok(())
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", " ", "\n", "\t", "\r\n  "])
}

/// String literals with escapes (`\"` and `\\` right before the closing quote
/// included), unicode raw and escaped, and structural bytes inside.
fn string() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a",
        "b",
        "é",
        "😀",
        "\\\"",
        "\\\\",
        "\\n",
        "\\/",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\u0061",
        " ",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\\t",
    ]);
    prop::collection::vec(piece, 0..6).prop_map(|p| format!("\"{}\"", p.concat()))
}

/// Keys from a small set (so duplicates happen, also spelled differently: `a` and
/// `\u0061`), or any string.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["\"a\"", "\"b\"", "\"\\u0061\"", "\"k\\\"\"", "\"\\\\\""])
            .prop_map(String::from),
        1 => string(),
    ]
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "null",
            "true",
            "false",
            "0",
            "-0",
            "12",
            "-3.5",
            "1e5",
            "2E-3",
            "0.1",
            "123456789012345678901234567890",
            "1.7976931348623157e308",
            "5e-324",
            "-1.0e+2",
        ])
        .prop_map(String::from),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| f.to_string()),
        string(),
    ]
}

/// JSON text with random whitespace, nested arrays and objects.
fn json() -> impl Strategy<Value = String> {
    scalar().prop_recursive(6, 96, 6, |inner| {
        let item = (ws(), inner.clone(), ws()).prop_map(|(a, v, b)| format!("{a}{v}{b}"));
        let member = (ws(), key(), ws(), ws(), inner, ws())
            .prop_map(|(a, k, b, c, v, d)| format!("{a}{k}{b}:{c}{v}{d}"));
        prop_oneof![
            (prop::collection::vec(item, 0..5), ws())
                .prop_map(|(items, w)| format!("[{w}{}]", items.join(","))),
            (prop::collection::vec(member, 0..6), ws())
                .prop_map(|(ms, w)| format!("{{{w}{}}}", ms.join(","))),
        ]
    })
}

/// A document whose root is an object, as OpenAPI's is.
fn document() -> impl Strategy<Value = String> {
    let member =
        (ws(), key(), ws(), json(), ws()).prop_map(|(a, k, b, v, c)| format!("{a}{k}:{b}{v}{c}"));
    (ws(), prop::collection::vec(member, 0..8), ws())
        .prop_map(|(a, ms, b)| format!("{a}{{{}}}{b}", ms.join(",")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn a_valid_document_splits_to_serde_jsons_value(
        doc in document(),
        split_bytes in 0usize..48,
        levels in 1usize..5,
        batch in 1usize..64,
    ) {
        let whole = serial(doc.as_bytes()).expect("the generator writes valid JSON");
        let split = split_batched(doc.as_bytes(), split_bytes, levels, batch);
        prop_assert!(split.is_some(), "valid document not split: {}", doc);
        prop_assert_eq!(split.as_ref(), Some(&whole));
        prop_assert_eq!(split.map(|v| v.to_string()), Some(whole.to_string()));
    }

    #[test]
    fn any_root_gives_serde_jsons_value_or_none(
        doc in json(),
        split_bytes in 0usize..48,
        batch in 1usize..64,
    ) {
        agrees(doc.as_bytes(), split_bytes, batch)?;
    }

    #[test]
    fn a_corrupted_document_gives_none_or_serde_jsons_value(
        doc in document(),
        at in any::<prop::sample::Index>(),
        edit in 0u8..5,
        byte in prop::sample::select(vec![
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b' ', b'a', b'0', b'-', b'e',
            0xff, 0xc3, 0x01,
        ]),
        split_bytes in 0usize..48,
        batch in 1usize..64,
    ) {
        let mut b = doc.into_bytes();
        let i = at.index(b.len() + 1);
        match edit {
            0 => b.truncate(i),
            1 if i < b.len() => b[i] = byte,
            2 if i < b.len() => {
                b.remove(i);
            }
            3 => b.insert(i, byte),
            _ => b.extend_from_slice(&[b' ', byte]),
        }
        agrees(&b, split_bytes, batch)?;
    }
}

/// `{"a":{"b":[[…]]}}` with the arrays nested `arrays` deep: the leaf is the arrays,
/// inside two split objects.
fn nested(arrays: usize) -> Vec<u8> {
    format!(
        "{{\"a\":{{\"b\":{}{}}}}}",
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
    .into_bytes()
}

#[test]
fn nesting_is_refused_where_serde_json_refuses_it() {
    // serde_json refuses the 128th nested container (its recursion budget of 128):
    // 127 containers parse, 128 do not.
    let deepest = nested(125);
    let too_deep = nested(126);
    assert!(serial(&deepest).is_some());
    assert!(serial(&too_deep).is_none());
    let plan = plan(&deepest, 0, 3).expect("127 containers are allowed");
    assert_eq!(plan.leaves.len(), 1, "the arrays are one leaf: {plan:?}");
    assert!(matches!(&plan.root[0].value, Piece::Split(_)));
    assert_eq!(split(&deepest, 0, 3), serial(&deepest));
    // The leaf alone (126 arrays) is within serde_json's budget; the document is not.
    assert!(serial(&too_deep[10..too_deep.len() - 2]).is_some());
    assert_eq!(split(&too_deep, 0, 3), None);
}

#[test]
fn nesting_in_split_objects_counts_too() {
    // 127 objects, all split: accepted; 128: refused, as serde_json does.
    let chain = |n: usize| format!("{}1{}", "{\"k\":".repeat(n), "}".repeat(n)).into_bytes();
    assert_eq!(split(&chain(127), 0, 200), serial(&chain(127)));
    assert!(split(&chain(127), 0, 200).is_some());
    assert!(serial(&chain(128)).is_none());
    assert_eq!(split(&chain(128), 0, 200), None);
    // Objects as deep, the innermost empty: a split object holds no leaf to parse, so
    // the deepest ones must be a leaf whatever the levels asked for.
    let empty =
        |n: usize| format!("{}{{}}{}", "{\"k\":".repeat(n - 1), "}".repeat(n - 1)).into_bytes();
    assert!(serial(&empty(127)).is_some());
    assert!(serial(&empty(128)).is_none());
    assert_eq!(split(&empty(127), 0, 200), serial(&empty(127)));
    assert_eq!(split(&empty(128), 0, 200), None);
}

#[test]
fn a_duplicate_key_keeps_its_first_place_and_its_last_value() {
    // As serde_json's own visitor (`Map::insert`, preserve_order): `\u0061` is `a`.
    let doc = br#"{"a":1,"b":{"x":1},"\u0061":3,"b":{"y":2},"c":[]}"#;
    let split = split(doc, 0, 3).expect("valid");
    assert_eq!(split.to_string(), r#"{"a":3,"b":{"y":2},"c":[]}"#);
    assert_eq!(Some(split), serial(doc));
}

#[test]
fn escapes_before_closing_quotes_do_not_end_strings_early() {
    let doc = br#"{"k\"":"v\\","\\":{"x\\\"}":"]"},"e":"\"}"}"#;
    let split = split(doc, 0, 3).expect("valid");
    assert_eq!(
        split.to_string(),
        r#"{"k\"":"v\\","\\":{"x\\\"}":"]"},"e":"\"}"}"#
    );
    assert_eq!(Some(split), serial(doc));
}

#[test]
fn surprises_give_none_without_panicking() {
    for doc in [
        &b""[..],
        b"   ",
        b"[1,2]",
        b"{",
        b"{\"a\"",
        b"{\"a\":",
        b"{\"a\":\"\\",
        b"{\"a\":1,}",
        b"{\"a\" 1}",
        b"{\"a\":1 \"b\":2}",
        b"{\"a\":\"s\";\"b\":2}",
        b"{\"a\":[1] x\"b\":2}",
        b"{\"a\":{\"c\":1}:\"b\":2}",
        b"{\"a\":1}}",
        b"{\"a\":1} x",
        b"{\"a\":[1,2}",
        b"{\"a\":\"\xff\"}",
        b"{\"\xff\":1}",
        b"{\"a\":\"\x01\"}",
        b"{\"a\":01}",
        b"{\"a\":1e400}",
        b"{\"$serde_json::private::Number\":\"1\"}",
    ] {
        assert_eq!(split(doc, 0, 3), None, "{:?}", String::from_utf8_lossy(doc));
    }
}

#[test]
fn a_large_spec_is_split_where_it_is_large() {
    // `paths` is over the split size and is split into its path items; `info` is not.
    let item = format!("{{\"get\":{{\"description\":\"{}\"}}}}", "x".repeat(1000));
    let paths: Vec<String> = (0..400).map(|i| format!("\"/p{i}\":{item}")).collect();
    let doc = format!(
        "{{\"openapi\":\"3.1.0\",\"info\":{{\"title\":\"t\"}},\"paths\":{{{}}}}}",
        paths.join(",")
    );
    let plan = plan(doc.as_bytes(), SPLIT_OBJECT_BYTES, SPLIT_LEVELS).expect("valid");
    assert_eq!(plan.leaves.len(), 2 + 400);
    assert!(matches!(plan.root[1].value, Piece::Leaf));
    assert!(matches!(&plan.root[2].value, Piece::Split(m) if m.len() == 400));
    let split = parse(doc.as_bytes()).expect("valid");
    assert_eq!(
        split.value.to_string(),
        serial(doc.as_bytes()).expect("valid").to_string()
    );
}

#[test]
fn each_leaf_is_recorded_where_it_is_and_freed_by_its_thread() {
    let doc = br#"{"a":{"x":[1],"y":{"z":2}},"b":"s","a2":{}}"#;
    let d = parse_with(doc, 0, 2, 1).expect("valid");
    let keys: Vec<Vec<&str>> = d
        .frees
        .leaves
        .iter()
        .map(|(k, _)| k.iter().map(String::as_str).collect())
        .collect();
    // `a2` is split too (split size 0): an empty object, no leaf.
    assert_eq!(keys, [vec!["a", "x"], vec!["a", "y"], vec!["b"]]);
    assert!(
        d.frees
            .leaves
            .iter()
            .all(|(_, owner)| *owner < rayon::current_num_threads())
    );
    // A root changed since (as by an overlay) is freed all the same.
    let mut changed = d.value.clone();
    changed["a"] = Value::Null;
    d.frees.free(changed);
    d.frees.free(d.value);
}

#[test]
fn the_scan_hands_out_leaves_once_nothing_can_merge_them() {
    let doc = br#"{"a":1,"b":{"c":2},"d":{"long":"0123456789","x":3}}"#;
    let batches = |batch: usize| {
        let mut seen: Vec<(usize, Vec<String>)> = Vec::new();
        let mut record = |first: usize, leaves: &[Leaf]| {
            let texts = leaves
                .iter()
                .map(|l| String::from_utf8_lossy(&doc[l.bytes.clone()]).into_owned())
                .collect();
            seen.push((first, texts));
        };
        scan(doc, 8, 3, batch, &mut record).expect("valid");
        seen
    };
    // `b` (7 bytes) is parsed whole, so its `2` is never handed out alone; `d` is
    // split once it passes 8 bytes, and each of its leaves goes out at once.
    let one = |first: usize, text: &str| (first, vec![text.to_string()]);
    assert_eq!(
        batches(1),
        [
            one(0, "1"),
            one(1, r#"{"c":2}"#),
            one(2, r#""0123456789""#),
            one(3, "3")
        ]
    );
    // Batches of 100 bytes: all four at the end, in one batch.
    assert_eq!(
        batches(100),
        [(
            0,
            vec![
                "1".into(),
                r#"{"c":2}"#.into(),
                r#""0123456789""#.into(),
                "3".into()
            ]
        )]
    );
    let late = br#"{"d":{"long":"0123456789","s":1,"t":"abcdef","u":2}}"#;
    // `d` is split once it passes 30 bytes, at `t`: its three leaves so far go out
    // then, in batches of 10 bytes or the rest, before `u` is read.
    let mut seen: Vec<(usize, Vec<String>)> = Vec::new();
    let mut record = |first: usize, leaves: &[Leaf]| {
        let texts = leaves
            .iter()
            .map(|l| String::from_utf8_lossy(&late[l.bytes.clone()]).into_owned())
            .collect();
        seen.push((first, texts));
    };
    scan(late, 30, 3, 10, &mut record).expect("valid");
    let texts = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        seen,
        [
            (0, texts(&[r#""0123456789""#])),
            (1, texts(&["1", r#""abcdef""#])),
            (3, texts(&["2"]))
        ]
    );
}
