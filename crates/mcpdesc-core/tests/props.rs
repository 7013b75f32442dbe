//! Property tests of the model round trip (§15): a document → typed model → JSON or
//! YAML text → decode → typed model is the identity, on both the data model and the
//! typed model, and emission is a fixpoint (emitting the re-read document gives the same
//! bytes).
//!
//! Inputs: generated documents (tools/resources/prompts with hostile strings, embedded
//! schemas and `x-` extensions of arbitrary JSON), and the official valid fixtures with
//! every string leaf replaced by a generated one (real structure, hostile content).

use mcpdesc_core::{Document, Format, Limits, decode, emit};
use proptest::prelude::*;
use serde_json::{Map, Number, Value, json};
use std::path::PathBuf;

/// Strings that stress both emitters: YAML 1.1/Core look-alikes, indicators, quotes,
/// escapes, line/paragraph separators, bidi controls, BOM, non-BMP characters.
fn hostile_string() -> impl Strategy<Value = String> {
    let specials = prop::sample::select(vec![
        "",
        " ",
        "~",
        "null",
        "Null",
        "NULL",
        "true",
        "yes",
        "No",
        "off",
        "y",
        "0x1F",
        "0o17",
        "017",
        "1e5",
        "-1",
        ".inf",
        "-.Inf",
        ".nan",
        "1_000",
        "12:30:00",
        "2001-12-14",
        "- a",
        "a: b",
        "#c",
        "&a",
        "*a",
        "!tag",
        "|",
        ">",
        "'",
        "\"",
        "`",
        "%",
        "@",
        "---",
        "...",
        "? k",
        "[",
        "{}",
        "a\nb",
        "\n",
        " lead",
        "trail ",
        "\t",
        "\r\n",
        "\u{2028}",
        "\u{2029}",
        "\u{202E}",
        "\u{FEFF}",
        "\u{85}",
        "\u{0}",
        "\u{1F}",
        "\u{7F}",
        "😀",
        "\\",
        "\\u{41}",
        "*/",
        "${x}",
        "<<",
        "= ",
    ]);
    prop_oneof![
        specials.prop_map(str::to_string),
        "\\PC{0,24}",
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec![
                    "a", " ", "\n", ":", "#", "-", "'", "\"", "\\", "\u{2028}", "é", "😀", "\t",
                ])
                .prop_map(str::to_string),
                "[a-z0-9]{1,5}"
            ],
            0..8
        )
        .prop_map(|v| v.concat()),
    ]
}

fn number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Number::from_f64(f).unwrap_or_else(|| Number::from(0))),
        prop::sample::select(vec![0.0, -0.0, 0.1, 1e300, 5e-324, 1.5])
            .prop_map(|f: f64| { Number::from_f64(f).unwrap_or_else(|| Number::from(0)) }),
    ]
}

/// Arbitrary JSON (bounded depth and width), keys included.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number().prop_map(Value::Number),
        hostile_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((hostile_string(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,20}"
}

fn revisions() -> impl Strategy<Value = Vec<&'static str>> {
    prop::sample::subsequence(
        vec![
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
        ],
        1..=5,
    )
}

fn opt_insert(m: &mut Map<String, Value>, k: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(k.to_string(), v);
    }
}

fn tool() -> impl Strategy<Value = Value> {
    (
        name(),
        proptest::option::of(hostile_string()),
        proptest::option::of(hostile_string()),
        prop::collection::vec((name(), json_value()), 0..5),
        proptest::option::of(json_value()),
        proptest::option::of((any::<bool>(), any::<bool>())),
        proptest::option::of(json_value()),
    )
        .prop_map(|(n, title, desc, props, out, ann, ext)| {
            let mut t = Map::new();
            t.insert("name".into(), json!(n));
            opt_insert(&mut t, "title", title.map(Value::String));
            opt_insert(&mut t, "description", desc.map(Value::String));
            let props: Map<String, Value> = props.into_iter().collect();
            t.insert(
                "inputSchema".into(),
                json!({"type": "object", "properties": props}),
            );
            opt_insert(
                &mut t,
                "outputSchema",
                out.map(|o| json!({"type": "object", "x-any": o})),
            );
            opt_insert(
                &mut t,
                "annotations",
                ann.map(|(r, d)| json!({"readOnlyHint": r, "destructiveHint": d})),
            );
            opt_insert(&mut t, "x-ext", ext);
            Value::Object(t)
        })
}

fn resource() -> impl Strategy<Value = Value> {
    (
        name(),
        hostile_string(),
        proptest::option::of(hostile_string()),
    )
        .prop_map(|(n, d, mime)| {
            let mut r = Map::new();
            r.insert("uri".into(), json!(format!("file:///{n}")));
            r.insert("name".into(), json!(n));
            r.insert("description".into(), json!(d));
            opt_insert(&mut r, "mimeType", mime.map(Value::String));
            Value::Object(r)
        })
}

fn prompt() -> impl Strategy<Value = Value> {
    (
        name(),
        prop::collection::vec((name(), any::<bool>(), hostile_string()), 0..3),
    )
        .prop_map(|(n, args)| {
            let args: Vec<Value> = args
                .into_iter()
                .map(|(a, req, d)| json!({"name": a, "description": d, "required": req}))
                .collect();
            json!({"name": n, "arguments": args})
        })
}

fn document() -> impl Strategy<Value = Value> {
    (
        hostile_string(),
        hostile_string(),
        proptest::option::of(hostile_string()),
        revisions(),
        proptest::option::of(hostile_string()),
        proptest::option::of(prop::collection::vec(tool(), 0..4)),
        proptest::option::of(prop::collection::vec(resource(), 0..3)),
        proptest::option::of(prop::collection::vec(prompt(), 0..3)),
        proptest::option::of(json_value()),
    )
        .prop_map(
            |(info_name, version, title, revs, instructions, tools, resources, prompts, ext)| {
                let mut info = Map::new();
                info.insert("name".into(), json!(info_name));
                info.insert("version".into(), json!(version));
                opt_insert(&mut info, "title", title.map(Value::String));
                let mut d = Map::new();
                d.insert("mcpdesc".into(), json!("0.8.0"));
                d.insert("info".into(), Value::Object(info));
                d.insert("protocolVersions".into(), json!(revs));
                opt_insert(&mut d, "instructions", instructions.map(Value::String));
                opt_insert(&mut d, "tools", tools.map(Value::Array));
                opt_insert(&mut d, "resources", resources.map(Value::Array));
                opt_insert(&mut d, "prompts", prompts.map(Value::Array));
                opt_insert(&mut d, "x-extension", ext);
                Value::Object(d)
            },
        )
}

/// The whole round trip; returns an error message instead of panicking so proptest
/// can shrink.
fn round_trip(value: &Value) -> Result<(), TestCaseError> {
    let doc = Document::from_value(value.clone())
        .map_err(|e| TestCaseError::fail(format!("generated document rejected: {e:?}")))?;
    // Reading from a borrowed value (the CLI's path) gives the same document.
    let borrowed = Document::from_value_ref(value)
        .map_err(|e| TestCaseError::fail(format!("from_value_ref rejected it: {e:?}")))?;
    prop_assert_eq!(&borrowed, &doc, "from_value_ref differs from from_value");
    let model_value = doc.to_value();
    prop_assert_eq!(&model_value, value, "the typed model lost or changed data");
    for fmt in [Format::Json, Format::Yaml] {
        let text = emit::to_format(&model_value, fmt);
        let decoded = decode(&text, fmt, &Limits::default()).map_err(|d| {
            TestCaseError::fail(format!("{fmt:?} output does not decode: {d:?}\n{text}"))
        })?;
        prop_assert_eq!(
            &decoded.value,
            &model_value,
            "{:?} changed the data model:\n{}",
            fmt,
            text
        );
        let again = Document::from_value(decoded.value)
            .map_err(|e| TestCaseError::fail(format!("{fmt:?} re-read rejected: {e:?}")))?;
        prop_assert_eq!(&again, &doc);
        let text2 = emit::to_format(&again.to_value(), fmt);
        prop_assert_eq!(text2, text, "{:?} emission is not a fixpoint", fmt);
    }
    Ok(())
}

fn valid_fixtures() -> &'static [Value] {
    static CACHE: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    CACHE.get_or_init(load_valid_fixtures)
}

fn load_valid_fixtures() -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/spec/fixtures/expected-valid");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    for p in paths {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let fmt = Format::detect(p.to_str(), &text);
        if let Ok(d) = decode(&text, fmt, &Limits::default()) {
            out.push(d.value);
        }
    }
    assert!(out.len() > 10, "only {} valid fixtures", out.len());
    out
}

/// Replaces string leaves (not keys, not the enum-like values the model parses:
/// `mcpdesc`, revisions, `type`/`mode`/`in` discriminators) with generated strings.
fn replace_strings(v: &mut Value, key: Option<&str>, pool: &[String], i: &mut usize) {
    match v {
        Value::String(s) => {
            let keep = matches!(
                key,
                Some(
                    "mcpdesc"
                        | "type"
                        | "mode"
                        | "in"
                        | "$componentRef"
                        | "protocolVersions"
                        | "resultType"
                        | "role"
                        | "cacheScope"
                        | "scheme"
                        | "taskSupport"
                )
            );
            if !keep && !pool.is_empty() {
                *s = pool[*i % pool.len()].clone();
                *i += 1;
            }
        }
        Value::Array(a) => {
            for x in a {
                replace_strings(x, key, pool, i);
            }
        }
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                replace_strings(x, Some(k.as_str()), pool, i);
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_documents_round_trip(doc in document()) {
        round_trip(&doc)?;
    }

    #[test]
    fn arbitrary_json_round_trips_through_both_emitters(v in json_value()) {
        for fmt in [Format::Json, Format::Yaml] {
            let text = emit::to_format(&v, fmt);
            let decoded = decode(&text, fmt, &Limits::default())
                .map_err(|d| TestCaseError::fail(format!("{fmt:?}: {d:?}\n{text}")))?;
            prop_assert_eq!(&decoded.value, &v, "{:?}:\n{}", fmt, text);
        }
    }

    #[test]
    fn fixtures_with_hostile_strings_round_trip(
        pick in any::<prop::sample::Index>(),
        pool in prop::collection::vec(hostile_string(), 1..16),
    ) {
        let fixtures = valid_fixtures();
        let mut v = pick.get(fixtures).clone();
        let mut i = 0;
        replace_strings(&mut v, None, &pool, &mut i);
        // A replaced string can make the fixture unparseable by the model (e.g. a
        // URL-shaped or enum-like field): only the documents the model accepts count.
        // Both readers agree on rejection too (same pointer and message).
        prop_assert_eq!(
            Document::from_value_ref(&v).err(),
            Document::from_value(v.clone()).err()
        );
        if Document::from_value(v.clone()).is_ok() {
            round_trip(&v)?;
        }
    }
}
