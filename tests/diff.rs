//! `mcpdesc diff` (issue 14), against oracles the diff did not produce:
//!
//! - hand-written OLD/NEW pairs under `tests/fixtures/diff/<case>/` whose `expect.yaml`
//!   lists every finding (rule, class, pointers, revisions) and no other; every rule of
//!   the table has one; insta snapshots of the three formats for some;
//! - `diff(D, D)` is empty for every fixture, spec example, valid spec fixture and
//!   committed generated description;
//! - random schemas and random mutations, judged by the `jsonschema` crate: when a value
//!   OLD accepts is rejected by NEW (input) or NEW allows a value OLD did not (output),
//!   the diff must not call the change compatible;
//! - real history: two consecutive majors of `@octokit/openapi`, imported with the same
//!   flags and diffed; `tests/support/openapi_changes.py` computes the removed
//!   operations, newly required parameters and removed enum values from the OpenAPI
//!   documents alone, and each must be in the report under its rule;
//! - the CLI's wiring: exit codes, `-`, invalid inputs, `--fail-on`, `--protocol-version`.

use mcpdesc_core::{Decoded, Format, Limits, ProtocolRevision, RevisionSet};
use mcpdesc_diff::render::{self, Names};
use mcpdesc_diff::{Class, DiffOptions, FailOn, Finding, RULES, Report};
use mcpdesc_tests::{deps_dir, fixture, mcpdesc_bin, missing, snapshot_dir, workspace_root};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn decode(path: &Path) -> Decoded {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let format = Format::detect(path.to_str(), std::str::from_utf8(&bytes).unwrap_or(""));
    mcpdesc_core::decode_bytes(&bytes, format, &Limits::default())
        .unwrap_or_else(|d| panic!("{}: {d}", path.display()))
}

/// `mcpdesc diff` as the CLI runs it: each input validated once (the handle, with
/// positions when the input was decoded from text), then compared.
fn diff_any<T: AsInput + ?Sized>(
    old: &T,
    new: &T,
    opts: &DiffOptions,
) -> Result<Report, mcpdesc_diff::DiffError> {
    let (o, n) = (old.check(), new.check());
    match (o, n) {
        (Ok(o), Ok(n)) => mcpdesc_diff::diff(&o, &n, opts),
        (o, n) => {
            let errors = |r: Result<_, Vec<mcpdesc_core::Diagnostic>>| -> Vec<_> {
                r.err()
                    .unwrap_or_default()
                    .into_iter()
                    .filter(mcpdesc_core::Diagnostic::is_error)
                    .collect()
            };
            Err(mcpdesc_diff::DiffError::Invalid {
                old: errors(o.map(drop)),
                new: errors(n.map(drop)),
            })
        }
    }
}

/// A test input: a decoded file or a value.
trait AsInput {
    fn check(&self) -> Result<mcpdesc_validate::Validated<'_>, Vec<mcpdesc_core::Diagnostic>>;
}

impl AsInput for Decoded {
    fn check(&self) -> Result<mcpdesc_validate::Validated<'_>, Vec<mcpdesc_core::Diagnostic>> {
        mcpdesc_validate::Validator::new().check_decoded(self)
    }
}

impl AsInput for Value {
    fn check(&self) -> Result<mcpdesc_validate::Validated<'_>, Vec<mcpdesc_core::Diagnostic>> {
        mcpdesc_validate::Validator::new().check(self)
    }
}

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixture("diff"))
        .expect("tests/fixtures/diff")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expect.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn diff_case(dir: &Path) -> (Report, Decoded, Decoded) {
    let (old, new) = (decode(&dir.join("old.yaml")), decode(&dir.join("new.yaml")));
    let report = diff_any(&old, &new, &DiffOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()));
    (report, old, new)
}

/// (rule, class, old pointer, new pointer, revisions) of a finding.
type Row = (String, String, Option<String>, Option<String>, Vec<String>);

fn row(f: &Finding) -> Row {
    (
        f.rule.id().to_string(),
        f.class.as_str().to_string(),
        f.old.as_ref().map(|l| l.pointer.clone()),
        f.new.as_ref().map(|l| l.pointer.clone()),
        f.revisions.to_strings(),
    )
}

fn expected(dir: &Path, report: &Report) -> Vec<Row> {
    let exp = decode(&dir.join("expect.yaml")).value;
    let default_revs = report.revisions.to_strings();
    exp["expect"]
        .as_array()
        .expect("expect: [...]")
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().map(str::to_string);
            let revs = match e.get("revisions") {
                Some(r) => r
                    .as_array()
                    .expect("revisions")
                    .iter()
                    .map(|v| v.as_str().expect("revision").to_string())
                    .collect(),
                None => default_revs.clone(),
            };
            (
                s("rule").expect("rule"),
                s("class").expect("class"),
                s("old"),
                s("new"),
                revs,
            )
        })
        .collect()
}

#[test]
fn every_case_reports_exactly_its_hand_written_findings() {
    let mut failures = Vec::new();
    let all = cases();
    assert!(all.len() > 100, "only {} cases", all.len());
    for dir in &all {
        let (report, old, new) = diff_case(dir);
        let mut got: Vec<Row> = report.findings.iter().map(row).collect();
        let mut want = expected(dir, &report);
        got.sort();
        want.sort();
        if got != want {
            failures.push(format!(
                "{}:\n  got  {got:?}\n  want {want:?}",
                dir.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
        // Positions: every location that exists in its document has line and column.
        for f in &report.findings {
            for (loc, doc) in [(&f.old, &old), (&f.new, &new)] {
                if let Some(l) = loc
                    && doc.value.pointer(&l.pointer).is_some()
                {
                    assert!(
                        l.line.is_some() && l.column.is_some(),
                        "{}: {l:?}",
                        dir.display()
                    );
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_hand_written_case() {
    let mut covered = BTreeSet::new();
    for dir in cases() {
        let exp = decode(&dir.join("expect.yaml")).value;
        for e in exp["expect"].as_array().into_iter().flatten() {
            covered.insert(e["rule"].as_str().unwrap_or("").to_string());
        }
    }
    let missing: Vec<&str> = RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !covered.contains(*id))
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
    let unknown: Vec<&String> = covered
        .iter()
        .filter(|id| mcpdesc_diff::rule_by_id(id).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "fixtures name unknown rules: {unknown:?}"
    );
}

#[test]
fn snapshots_of_the_three_formats() {
    for case in ["showcase", "hostile-text", "input-property-required"] {
        let dir = fixture(&format!("diff/{case}"));
        let (report, _, _) = diff_case(&dir);
        let names = Names {
            old: "old.yaml",
            new: "new.yaml",
        };
        insta::with_settings!({snapshot_path => snapshot_dir("diff"), prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("{case}-text"), render::text(&report, names));
            insta::assert_snapshot!(format!("{case}-json"), render::json(&report, names));
            insta::assert_snapshot!(format!("{case}-markdown"), render::markdown(&report, names));
        });
    }
}

/// Hostile text stays inert in every format (checked on the output, not on a snapshot).
#[test]
fn hostile_text_is_inert() {
    let (report, _, _) = diff_case(&fixture("diff/hostile-text"));
    let names = Names {
        old: "o`<b>@x.yaml",
        new: "n\n.yaml",
    };
    let text = render::text(&report, names);
    // One line per finding plus summary and semver: no forged lines, no bidi controls.
    assert_eq!(text.lines().count(), report.findings.len() + 2, "{text}");
    assert!(!text.contains('\u{202e}'));
    let md = render::markdown(&report, names);
    // Outside code spans nothing from the document survives: strip every code span and
    // look for what GitHub would turn into HTML, links, mentions or issue references.
    let mut outside = String::new();
    let mut rest = md.as_str();
    while let Some(start) = rest.find('`') {
        outside.push_str(&rest[..start]);
        let fence_len = rest[start..].chars().take_while(|c| *c == '`').count();
        let fence = "`".repeat(fence_len);
        let after = &rest[start + fence_len..];
        match after.find(&fence) {
            Some(end) => rest = &after[end + fence_len..],
            None => panic!("unclosed code span in {md}"),
        }
    }
    outside.push_str(rest);
    for bad in ["<img", "@all", "@x", "](", "#1", "evil.example", "\u{202e}"] {
        assert!(
            !outside.contains(bad),
            "`{bad}` outside code spans:\n{outside}"
        );
    }
    // The only HTML is our own.
    let tags: BTreeSet<&str> = outside
        .match_indices('<')
        .map(|(i, _)| {
            let t = &outside[i..];
            &t[..t.find('>').map_or(t.len(), |e| e + 1)]
        })
        .collect();
    for t in &tags {
        assert!(
            ["<details>", "<summary>", "</summary>", "</details>", "<br>"].contains(t),
            "unexpected tag {t}"
        );
    }
    let json: Value = serde_json::from_str(&render::json(&report, names)).expect("JSON");
    assert_eq!(json["format"], "mcpdesc-diff/1");
}

// ---------------------------------------------------------------- diff(D, D) is empty

fn descriptions() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let dirs = [
        fixture("spec/examples"),
        fixture("spec/fixtures/expected-valid"),
        fixture("spec/fixtures/expected-warning"),
        workspace_root().join("tests/generated"),
    ];
    for d in dirs {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("entry").path();
            let name = p.to_string_lossy();
            if name.ends_with(".json") || name.ends_with(".yaml") {
                out.push(p);
            }
        }
    }
    for c in cases() {
        out.push(c.join("old.yaml"));
        out.push(c.join("new.yaml"));
    }
    out.sort();
    out
}

#[test]
fn a_description_against_itself_is_empty() {
    let all = descriptions();
    assert!(all.len() > 300, "{}", all.len());
    for p in all {
        let d = decode(&p);
        let report = diff_any(&d, &d, &DiffOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e:?}", p.display()));
        assert!(report.is_empty(), "{}: {:?}", p.display(), report.findings);
        assert_eq!(report.semver(), mcpdesc_diff::Semver::None);
        // and against an independently re-encoded copy (the other serialization)
        let other = if d.format == Format::Json {
            Format::Yaml
        } else {
            Format::Json
        };
        let text = mcpdesc_core::emit::to_format(&d.value, other);
        let copy = mcpdesc_core::decode(&text, other, &Limits::default()).expect("re-decodes");
        let report = diff_any(&d, &copy, &DiffOptions::default()).expect("valid");
        assert!(
            report.is_empty(),
            "{} re-encoded: {:?}",
            p.display(),
            report.findings
        );
    }
}

/// Wide hostile inputs (tens of thousands of properties, enum values, alternatives,
/// tools, arguments, all different): every matching is by hash, so this is linear. A
/// quadratic comparison would not finish (no timing is asserted; see PERFORMANCE.md).
#[test]
fn wide_inputs_stay_linear() {
    const N: usize = 20_000;
    let side = |tag: &str| {
        let props: serde_json::Map<String, Value> = (0..N)
            .map(|i| (format!("{tag}{i}"), json!({"type": "string"})))
            .collect();
        let values: Vec<Value> = (0..N).map(|i| json!(format!("{tag}{i}"))).collect();
        let alts: Vec<Value> = (0..N)
            .map(|i| json!({"const": format!("{tag}{i}")}))
            .collect();
        let mut tools = vec![json!({"name": "wide", "inputSchema": {"type": "object",
            "properties": props, "additionalProperties": false},
            "outputSchema": {"type": "object", "properties": {"e": {"enum": values}, "a": {"anyOf": alts}}}})];
        tools.extend(
            (0..N)
                .map(|i| json!({"name": format!("{tag}_{i}"), "inputSchema": {"type": "object"}})),
        );
        let args: Vec<Value> = (0..N)
            .map(|i| json!({"name": format!("{tag}{i}")}))
            .collect();
        json!({"mcpdesc": "0.8.0", "info": {"name": "wide", "version": "1"},
               "protocolVersions": ["2025-06-18", "2025-11-25"], "tools": tools,
               "prompts": [{"name": "p", "arguments": args}]})
    };
    let (old, new) = (side("a"), side("b"));
    let report = diff_any(&old, &new, &DiffOptions::default()).expect("declared revisions");
    let count = |rule: &str| {
        report
            .findings
            .iter()
            .filter(|f| f.rule.id() == rule)
            .count()
    };
    assert_eq!(count("tool-removed"), N);
    assert_eq!(count("tool-added"), N);
    assert_eq!(count("prompt-argument-removed"), N);
    assert!(report.fails(FailOn::Breaking));
    // grouped: one finding per change, naming both revisions
    assert!(report.findings.iter().all(|f| f.revisions.len() == 2));
}

// ---------------------------------------------------------------- random schemas

/// A small deterministic generator (xorshift64*), so a failing seed reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
}

const WORDS: [&str; 6] = ["a", "b", "ab", "ba", "abc", ""];
const PATTERNS: [&str; 4] = ["^a", "b$", "^[ab]*$", "^.{0,2}$"];
const NAMES: [&str; 5] = ["p", "q", "r", "s", "t"];

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => json!(WORDS[rng.below(WORDS.len())]),
        1 => json!(rng.int(-3, 12)),
        2 => json!(rng.int(-3, 12) as f64 + 0.5),
        3 => json!(rng.chance(50)),
        4 => Value::Null,
        _ => json!(WORDS[rng.below(WORDS.len())].len() as i64),
    }
}

fn leaf(rng: &mut Rng, depth: usize) -> Value {
    let k = if depth >= 2 {
        rng.below(6)
    } else {
        rng.below(12)
    };
    match k {
        0 => {
            let mut s = json!({"type": "string"});
            if rng.chance(30) {
                s["minLength"] = json!(rng.int(0, 2));
            }
            if rng.chance(30) {
                s["maxLength"] = json!(rng.int(1, 3));
            }
            if rng.chance(25) {
                s["pattern"] = json!(PATTERNS[rng.below(PATTERNS.len())]);
            }
            if rng.chance(25) {
                s["enum"] = json!(["a", "b", "abc"]);
            }
            s
        }
        1 | 2 => {
            let mut s = json!({"type": if k == 1 { "integer" } else { "number" }});
            if rng.chance(40) {
                s["minimum"] = json!(rng.int(-2, 4));
            }
            if rng.chance(40) {
                let key = if rng.chance(50) {
                    "maximum"
                } else {
                    "exclusiveMaximum"
                };
                s[key] = json!(rng.int(4, 10));
            }
            if rng.chance(20) {
                s["multipleOf"] = json!(rng.int(1, 3));
            }
            s
        }
        3 => json!({"type": ["string", "null"]}),
        4 => json!({"enum": [scalar(rng), scalar(rng), scalar(rng)]}),
        5 => json!({}),
        6 => {
            let mut s = json!({"type": "array", "items": leaf(rng, depth + 1)});
            if rng.chance(30) {
                s["maxItems"] = json!(rng.int(1, 3));
            }
            if rng.chance(20) {
                s["uniqueItems"] = json!(true);
            }
            s
        }
        7 => json!({"anyOf": [leaf(rng, depth + 1), leaf(rng, depth + 1)]}),
        8 => json!({"allOf": [leaf(rng, depth + 1), leaf(rng, depth + 1)]}),
        9 => json!({"oneOf": [leaf(rng, depth + 1), leaf(rng, depth + 1)]}),
        10 => {
            json!({"type": "array", "prefixItems": [leaf(rng, depth + 1)], "items": leaf(rng, depth + 1)})
        }
        _ => object(rng, depth + 1),
    }
}

fn object(rng: &mut Rng, depth: usize) -> Value {
    let n = 1 + rng.below(3);
    let mut props = serde_json::Map::new();
    let mut required = Vec::new();
    for name in NAMES.iter().take(n) {
        props.insert(name.to_string(), leaf(rng, depth));
        if rng.chance(40) {
            required.push(json!(name));
        }
    }
    let mut s = json!({"type": "object", "properties": props});
    if !required.is_empty() {
        s["required"] = Value::Array(required);
    }
    match rng.below(3) {
        0 => s["additionalProperties"] = json!(false),
        1 if depth < 2 => s["additionalProperties"] = leaf(rng, depth + 1),
        _ => {}
    }
    // At the root, sometimes a definition that properties reach through `$ref`.
    if depth == 0 && rng.chance(35) {
        s["$defs"] = json!({"D": leaf(rng, 1)});
        let name = NAMES[rng.below(n)];
        s["properties"][name] = json!({"$ref": "#/$defs/D"});
        if rng.chance(50) {
            let other = NAMES[rng.below(n)];
            s["properties"][other] = json!({"type": "array", "items": {"$ref": "#/$defs/D"}});
        }
    }
    s
}

/// Pointers of every subschema (root first).
fn subschemas(v: &Value, ptr: String, out: &mut Vec<String>) {
    out.push(ptr.clone());
    if let Some(props) = v.get("properties").and_then(Value::as_object) {
        for (k, c) in props {
            subschemas(c, format!("{ptr}/properties/{k}"), out);
        }
    }
    for k in ["items", "additionalProperties"] {
        if let Some(c) = v.get(k).filter(|c| c.is_object()) {
            subschemas(c, format!("{ptr}/{k}"), out);
        }
    }
    for k in ["anyOf", "allOf", "oneOf", "prefixItems"] {
        if let Some(alts) = v.get(k).and_then(Value::as_array) {
            for (i, c) in alts.iter().enumerate() {
                subschemas(c, format!("{ptr}/{k}/{i}"), out);
            }
        }
    }
    if let Some(defs) = v.get("$defs").and_then(Value::as_object) {
        for (k, c) in defs {
            subschemas(c, format!("{ptr}/$defs/{k}"), out);
        }
    }
}

/// One random change at one random place: narrowing, widening, renames, rewrites.
fn mutate(root: &Value, rng: &mut Rng) -> Value {
    let mut out = root.clone();
    let mut places = Vec::new();
    subschemas(root, String::new(), &mut places);
    let at = places[rng.below(places.len())].clone();
    let is_root = at.is_empty();
    let Some(s) = out.pointer_mut(&at).and_then(Value::as_object_mut) else {
        return out;
    };
    match rng.below(16) {
        0 if !is_root => {
            let types = [
                "string", "integer", "number", "boolean", "null", "object", "array",
            ];
            s.insert("type".into(), json!(types[rng.below(types.len())]));
        }
        1 => {
            if let Some(Value::Array(e)) = s.get_mut("enum") {
                if e.len() > 1 {
                    let i = rng.below(e.len());
                    e.remove(i);
                } else {
                    e.push(scalar(rng));
                }
            } else if !is_root {
                s.insert("enum".into(), json!([scalar(rng), scalar(rng)]));
            }
        }
        2 => {
            let key = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"][rng.below(4)];
            if s.contains_key(key) && rng.chance(40) {
                s.remove(key);
            } else {
                s.insert(key.into(), json!(rng.int(-2, 10)));
            }
        }
        3 => {
            let key = ["minLength", "maxLength", "minItems", "maxItems"][rng.below(4)];
            if s.contains_key(key) && rng.chance(40) {
                s.remove(key);
            } else {
                s.insert(key.into(), json!(rng.int(0, 3)));
            }
        }
        4 => {
            if s.contains_key("pattern") && rng.chance(50) {
                s.remove("pattern");
            } else {
                s.insert("pattern".into(), json!(PATTERNS[rng.below(PATTERNS.len())]));
            }
        }
        5 | 6 => {
            // required: toggle one name (declared or not)
            let name = NAMES[rng.below(NAMES.len())];
            let req = s.entry("required").or_insert_with(|| json!([]));
            if let Value::Array(r) = req {
                if let Some(i) = r.iter().position(|v| v == name) {
                    r.remove(i);
                } else {
                    r.push(json!(name));
                }
                if r.is_empty() {
                    s.remove("required");
                }
            }
        }
        7 => {
            // remove or add a property
            let name = NAMES[rng.below(NAMES.len())];
            if let Some(Value::Object(p)) = s.get_mut("properties") {
                if p.contains_key(name) {
                    p.shift_remove(name);
                } else {
                    p.insert(name.into(), leaf(rng, 2));
                }
            }
        }
        8 => {
            // rename a property
            if let Some(Value::Object(p)) = s.get_mut("properties")
                && let Some(k) = p.keys().next().cloned()
                && let Some(v) = p.shift_remove(&k)
            {
                p.insert(format!("{k}_renamed"), v);
            }
        }
        9 => match s.get("additionalProperties") {
            Some(Value::Bool(false)) => {
                s.remove("additionalProperties");
            }
            None if rng.chance(50) => {
                s.insert("additionalProperties".into(), json!(false));
            }
            _ => {
                s.insert("additionalProperties".into(), leaf(rng, 2));
            }
        },
        10 => {
            let key = ["anyOf", "allOf", "oneOf"][rng.below(3)];
            if let Some(Value::Array(a)) = s.get_mut(key) {
                if a.len() > 1 && rng.chance(50) {
                    let i = rng.below(a.len());
                    a.remove(i);
                } else {
                    a.push(leaf(rng, 2));
                }
            } else if !is_root {
                let inner = Value::Object(s.clone());
                s.clear();
                s.insert(key.into(), json!([inner, leaf(rng, 2)]));
            }
        }
        11 => {
            if s.get("uniqueItems") == Some(&json!(true)) {
                s.remove("uniqueItems");
            } else {
                s.insert("uniqueItems".into(), json!(true));
            }
        }
        12 if !is_root => {
            let replacement = leaf(rng, 2);
            *s = replacement.as_object().cloned().unwrap_or_default();
        }
        13 if !is_root => {
            s.clear();
            if rng.chance(50) {
                s.insert("not".into(), json!({}));
            }
        }
        14 => {
            if s.contains_key("multipleOf") && rng.chance(50) {
                s.remove("multipleOf");
            } else {
                s.insert("multipleOf".into(), json!(rng.int(1, 4)));
            }
        }
        _ => {
            if let Some(Value::Object(p)) = s.get_mut("items") {
                p.insert("type".into(), json!(["string", "integer"][rng.below(2)]));
            } else if !is_root {
                s.insert("const".into(), scalar(rng));
            }
        }
    }
    out
}

/// A value shaped after `schema` (local `$ref`s into `root`) most of the time,
/// arbitrary otherwise.
fn value_for(root: &Value, schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    if depth > 4 || rng.chance(15) {
        return scalar(rng);
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
    {
        return value_for(root, target, rng, depth + 1);
    }
    for key in ["allOf", "oneOf"] {
        if let Some(alts) = schema.get(key).and_then(Value::as_array)
            && !alts.is_empty()
        {
            return value_for(root, &alts[rng.below(alts.len())], rng, depth + 1);
        }
    }
    if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array)
        && rng.chance(80)
    {
        let rest = schema.get("items").cloned().unwrap_or(json!({}));
        let mut items: Vec<Value> = prefix
            .iter()
            .map(|p| value_for(root, p, rng, depth + 1))
            .collect();
        for _ in 0..rng.below(3) {
            items.push(value_for(root, &rest, rng, depth + 1));
        }
        return Value::Array(items);
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.is_empty()
        && rng.chance(70)
    {
        return e[rng.below(e.len())].clone();
    }
    if let Some(c) = schema.get("const")
        && rng.chance(70)
    {
        return c.clone();
    }
    if let Some(alts) = schema.get("anyOf").and_then(Value::as_array)
        && !alts.is_empty()
    {
        return value_for(root, &alts[rng.below(alts.len())], rng, depth + 1);
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => ts[rng.below(ts.len())]
            .as_str()
            .unwrap_or("null")
            .to_string(),
        _ => ["string", "integer", "object", "array", "null"][rng.below(5)].to_string(),
    };
    match ty.as_str() {
        "string" => json!(WORDS[rng.below(WORDS.len())]),
        "integer" => json!(rng.int(-3, 12)),
        "number" => {
            if rng.chance(50) {
                json!(rng.int(-3, 12))
            } else {
                json!(rng.int(-3, 12) as f64 + 0.5)
            }
        }
        "boolean" => json!(rng.chance(50)),
        "null" => Value::Null,
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            let n = rng.below(4);
            Value::Array(
                (0..n)
                    .map(|_| value_for(root, &items, rng, depth + 1))
                    .collect(),
            )
        }
        _ => {
            let mut m = serde_json::Map::new();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, c) in props {
                    let p = if required.contains(&k.as_str()) {
                        90
                    } else {
                        60
                    };
                    if rng.chance(p) {
                        m.insert(k.clone(), value_for(root, c, rng, depth + 1));
                    }
                }
            }
            if rng.chance(20) {
                let extra = schema
                    .get("additionalProperties")
                    .cloned()
                    .unwrap_or(json!({}));
                m.insert(
                    NAMES[rng.below(NAMES.len())].to_string(),
                    value_for(root, &extra, rng, depth + 1),
                );
            }
            Value::Object(m)
        }
    }
}

fn tool_doc(key: &str, schema: &Value) -> Value {
    let mut tool = json!({"name": "t", "inputSchema": {"type": "object"}});
    tool[key] = schema.clone();
    json!({"mcpdesc": "0.8.0", "info": {"name": "random", "version": "1"},
           "protocolVersions": ["2026-07-28"], "tools": [tool]})
}

/// What one seed showed.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    input_discriminated: bool,
    output_discriminated: bool,
}

/// The property for one seed; panics (with the seed's schemas) when it fails.
fn random_case(seed: u64) -> Seen {
    let mut rng = Rng(seed | 1);
    let old_schema = object(&mut rng, 0);
    let new_schema = mutate(&old_schema, &mut rng);
    let compile = |s: &Value| {
        jsonschema::validator_for(s).unwrap_or_else(|e| panic!("seed {seed}: {s}: {e}"))
    };
    let (vo, vn) = (compile(&old_schema), compile(&new_schema));
    let mut seen = Seen::default();
    for (key, from_old) in [("inputSchema", true), ("outputSchema", false)] {
        let (old_doc, new_doc) = (tool_doc(key, &old_schema), tool_doc(key, &new_schema));
        let report = diff_any(&old_doc, &new_doc, &DiffOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e:?}\nold {old_schema}\nnew {new_schema}"));
        let same = diff_any(&old_doc, &old_doc, &DiffOptions::default()).expect("valid");
        assert!(
            same.is_empty(),
            "seed {seed}: diff(S, S) = {:?}",
            same.findings
        );
        // input: a value OLD accepts and NEW rejects; output: NEW allows, OLD does not.
        let (gen_from, accepts, rejects) = if from_old {
            (&old_schema, &vo, &vn)
        } else {
            (&new_schema, &vn, &vo)
        };
        let witness = (0..60)
            .map(|_| value_for(gen_from, gen_from, &mut rng, 0))
            .find(|v| accepts.is_valid(v) && !rejects.is_valid(v));
        if let Some(v) = witness {
            if from_old {
                seen.input_discriminated = true;
            } else {
                seen.output_discriminated = true;
            }
            let harmful = report
                .findings
                .iter()
                .any(|f| matches!(f.class, Class::Breaking | Class::PossiblyBreaking));
            assert!(
                harmful,
                "seed {seed} ({key}): {v} separates OLD from NEW, but the diff calls the change compatible: {:?}\nold {old_schema}\nnew {new_schema}",
                report
                    .findings
                    .iter()
                    .map(|f| (f.rule.id(), f.class, f.message.to_string()))
                    .collect::<Vec<_>>()
            );
            assert!(report.fails(FailOn::Breaking));
        }
    }
    seen
}

/// Seeds per random property run: 400, or `MCPDESC_DIFF_CASES` for a longer hunt.
fn random_cases() -> u32 {
    std::env::var("MCPDESC_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

mod properties {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: super::random_cases(), failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn a_change_that_rejects_an_old_value_is_never_compatible(seed in any::<u64>()) {
            super::random_case(seed);
        }
    }
}

/// The random property is not vacuous: many seeds do find separating values.
#[test]
fn random_mutations_often_separate_old_from_new() {
    let (mut input, mut output) = (0, 0);
    let n = 300;
    for seed in 0..n {
        let s = random_case(0x9E37_79B9_7F4A_7C15 ^ seed);
        input += usize::from(s.input_discriminated);
        output += usize::from(s.output_discriminated);
    }
    eprintln!(
        "random mutations: {input}/{n} input and {output}/{n} output cases separated OLD from NEW"
    );
    // Most mutations narrow, so inputs separate more often than outputs.
    assert!(
        input * 5 > n as usize,
        "only {input}/{n} input cases separated"
    );
    assert!(
        output * 10 > n as usize,
        "only {output}/{n} output cases separated"
    );
}

// ---------------------------------------------------------------- real history

/// The consecutive majors of `@octokit/openapi` installed by `cargo xtask deps`.
fn octokit_pair() -> Option<(PathBuf, PathBuf)> {
    let node = deps_dir().join("node/node_modules");
    let old = node.join("octokit-openapi-22/generated/api.github.com.json");
    let new = node.join("@octokit/openapi/generated/api.github.com.json");
    (old.is_file() && new.is_file()).then_some((old, new))
}

fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// operationId → (tool name, `(in, name)` → argument), from `x-mcpdesc-openapi`.
type Provenance = std::collections::HashMap<String, (String, Vec<((String, String), String)>)>;

fn provenance(doc: &Value) -> Provenance {
    let mut out = Provenance::new();
    for t in doc["tools"].as_array().into_iter().flatten() {
        let p = &t["x-mcpdesc-openapi"];
        let Some(op) = p["operationId"].as_str() else {
            continue;
        };
        let args = p["arguments"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(arg, a)| {
                let loc = a["in"].as_str().unwrap_or("").to_string();
                let name = a["name"].as_str().unwrap_or("").to_string();
                ((loc, name), arg.clone())
            })
            .collect();
        out.insert(
            op.to_string(),
            (t["name"].as_str().unwrap_or("").to_string(), args),
        );
    }
    out
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn real_history_of_the_github_api() {
    let Some((old_spec, new_spec)) = octokit_pair() else {
        return missing("octokit-openapi-22 and @octokit/openapi in .deps/node");
    };
    let bin = mcpdesc_bin();
    if !bin.is_file() {
        return missing("the mcpdesc binary (cargo build -p mcpdesc-cli)");
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let (old, new) = (tmp.path().join("old.json"), tmp.path().join("new.json"));
    // Same flags for both imports (the defaults).
    for (spec, out) in [(&old_spec, &old), (&new_spec, &new)] {
        run_ok(
            Command::new(&bin)
                .args(["import", "openapi"])
                .arg(spec)
                .arg("-o")
                .arg(out),
        );
    }
    let report: Value = serde_json::from_slice(&run_ok(
        Command::new(&bin)
            .args(["diff", "--format", "json", "--fail-on", "none"])
            .arg(&old)
            .arg(&new),
    ))
    .expect("JSON report");
    let oracle: Value = serde_json::from_slice(&run_ok(
        Command::new("python3")
            .arg(workspace_root().join("tests/support/openapi_changes.py"))
            .arg(&old_spec)
            .arg(&new_spec),
    ))
    .expect("oracle JSON");
    let read = |p: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(p).expect("imported")).expect("JSON")
    };
    let (old_doc, new_doc) = (read(&old), read(&new));
    let (old_prov, new_prov) = (provenance(&old_doc), provenance(&new_doc));
    let findings = report["findings"].as_array().expect("findings");
    let has = |rule: &str, tool: &str, check: &dyn Fn(&Value) -> bool| {
        findings.iter().any(|f| {
            f["rule"] == rule
                && f["declaration"]["kind"] == "tool"
                && f["declaration"]["id"] == tool
                && check(f)
        })
    };
    let mut problems = Vec::new();
    let mut checked = [0usize; 3];
    for op in oracle["removedOperations"].as_array().into_iter().flatten() {
        let op = op.as_str().unwrap_or("");
        let Some((tool, _)) = old_prov.get(op) else {
            continue; // the importer did not make a tool of it
        };
        if new_doc["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t["name"] == tool.as_str())
        {
            continue; // the name now belongs to another operation
        }
        checked[0] += 1;
        if !has("tool-removed", tool, &|_| true) {
            problems.push(format!(
                "removed operation {op} (tool {tool}) not reported as tool-removed"
            ));
        }
    }
    let arg_of = |prov: &Provenance, op: &str, loc: &str, name: &str| -> Option<(String, String)> {
        let (tool, args) = prov.get(op)?;
        let arg = args
            .iter()
            .find(|(k, _)| k.0 == loc && k.1 == name)?
            .1
            .clone();
        Some((tool.clone(), arg))
    };
    for r in oracle["newlyRequired"].as_array().into_iter().flatten() {
        let (op, loc, name) = (
            r["operationId"].as_str().unwrap_or(""),
            r["in"].as_str().unwrap_or(""),
            r["name"].as_str().unwrap_or(""),
        );
        let Some((tool, arg)) = arg_of(&new_prov, op, loc, name) else {
            problems.push(format!(
                "{op}: {loc} {name} has no argument in the imported NEW"
            ));
            continue;
        };
        checked[1] += 1;
        let quoted = format!("property `{arg}`");
        if !has("input-property-required", &tool, &|f| {
            f["message"].as_str().unwrap_or("").contains(&quoted)
        }) {
            problems.push(format!("{op}: newly required {loc} `{name}` (tool {tool}, argument {arg}) not reported as input-property-required"));
        }
    }
    for r in oracle["removedEnumValues"].as_array().into_iter().flatten() {
        let (op, loc, name) = (
            r["operationId"].as_str().unwrap_or(""),
            r["in"].as_str().unwrap_or(""),
            r["name"].as_str().unwrap_or(""),
        );
        let Some((tool, arg)) = arg_of(&old_prov, op, loc, name) else {
            problems.push(format!(
                "{op}: {loc} {name} has no argument in the imported OLD"
            ));
            continue;
        };
        checked[2] += 1;
        let value = format!("`{}`", r["value"]);
        let prefix = format!("`{arg}");
        if !has("input-enum-value-removed", &tool, &|f| {
            let m = f["message"].as_str().unwrap_or("");
            m.starts_with(&prefix) && m.contains(&value)
        }) {
            problems.push(format!("{op}: enum value {value} of {loc} `{name}` (tool {tool}) not reported as input-enum-value-removed"));
        }
    }
    eprintln!(
        "real history 22 -> 23: {} removed operations, {} newly required, {} removed enum values checked; report: {}",
        checked[0], checked[1], checked[2], report["summary"]
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        checked[0] > 0,
        "the oracle found no removed operation to check"
    );
    assert!(
        report["summary"]["breaking"].as_u64().unwrap_or(0) > 0,
        "no breaking finding between two majors"
    );
    assert_eq!(report["semver"], "major");
}

// ---------------------------------------------------------------- CLI wiring

fn cli(args: &[&str], stdin: Option<&[u8]>) -> Option<(i32, String, String)> {
    let bin = mcpdesc_bin();
    if !bin.is_file() {
        missing("the mcpdesc binary (cargo build -p mcpdesc-cli)");
        return None;
    }
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .current_dir(fixture("diff"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn mcpdesc");
    if let Some(input) = stdin {
        use std::io::Write as _;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().expect("mcpdesc runs");
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[test]
fn cli_exit_codes_follow_fail_on() {
    let o = "input-property-required/old.yaml";
    let n = "input-property-required/new.yaml";
    let Some((code, out, _)) = cli(&["diff", o, n], None) else {
        return;
    };
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("input-property-required/new.yaml:"),
        "{out}"
    );
    assert!(out.contains("breaking[input-property-required]"), "{out}");
    assert_eq!(
        cli(&["diff", o, n, "--fail-on", "none"], None).map(|r| r.0),
        Some(0)
    );
    // info only: passes the default gate, fails `any`
    let (io, inn) = ("title-changed/old.yaml", "title-changed/new.yaml");
    assert_eq!(cli(&["diff", io, inn], None).map(|r| r.0), Some(0));
    assert_eq!(
        cli(&["diff", io, inn, "--fail-on", "any"], None).map(|r| r.0),
        Some(1)
    );
    // possibly breaking fails the default gate: it is not proven compatible
    let (po, pn) = (
        "input-pattern-changed/old.yaml",
        "input-pattern-changed/new.yaml",
    );
    assert_eq!(cli(&["diff", po, pn], None).map(|r| r.0), Some(1));
    // nothing changed
    let (code, out, _) = cli(&["diff", o, o, "--format", "json"], None).expect("ran");
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["semver"], "none");
    assert_eq!(v["findings"], json!([]));
}

#[test]
fn cli_reads_stdin_and_rejects_bad_usage() {
    let o = "input-property-required/old.yaml";
    let n = "input-property-required/new.yaml";
    let new = std::fs::read(fixture(&format!("diff/{n}"))).expect("fixture");
    let (code, out, _) = cli(&["diff", o, "-", "--format", "markdown"], Some(&new)).expect("ran");
    assert_eq!(code, 1);
    assert!(
        out.contains("`input-property-required`") && out.contains("`<stdin>`"),
        "{out}"
    );
    // both from stdin: usage
    let (code, _, err) = cli(&["diff", "-", "-"], Some(b"")).expect("ran");
    assert_eq!(code, 2, "{err}");
    // a revision neither declares: usage
    let (code, _, err) =
        cli(&["diff", o, n, "--protocol-version", "2024-11-05"], None).expect("ran");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("2024-11-05"), "{err}");
    // an unknown revision: clap usage error
    assert_eq!(
        cli(&["diff", o, n, "--protocol-version", "2027-01-01"], None).map(|r| r.0),
        Some(2)
    );
    // missing file: I/O
    assert_eq!(cli(&["diff", o, "nope.yaml"], None).map(|r| r.0), Some(2));
}

#[test]
fn cli_validates_both_inputs_first() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bad = tmp.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "mcpdesc: 0.8.0\ninfo:\n  name: x\nprotocolVersions: [\"2025-06-18\"]\n",
    )
    .expect("write");
    let bad = bad.to_string_lossy().into_owned();
    let broken = tmp.path().join("broken.json");
    std::fs::write(&broken, "{\"mcpdesc\": ").expect("write");
    let broken = broken.to_string_lossy().into_owned();
    let good = "input-property-required/old.yaml";
    // a decode error names its file and position
    let (code, out, err) = cli(&["diff", &broken, good], None).expect("ran");
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "no report for invalid input: {out}");
    assert!(err.starts_with(&format!("{broken}:1:")), "{err}");
    // validation errors of either side name that side's file
    for (o, n) in [(good, bad.as_str()), (bad.as_str(), good)] {
        let (code, out, err) = cli(&["diff", o, n], None).expect("ran");
        assert_eq!(code, 1, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            !err.is_empty() && err.lines().all(|l| l.starts_with(&bad)),
            "{err}"
        );
        assert!(err.contains("error["), "{err}");
    }
}

#[test]
fn protocol_version_selects_one_view() {
    let dir = fixture("diff/per-revision-variant");
    let (old, new) = (decode(&dir.join("old.yaml")), decode(&dir.join("new.yaml")));
    let only = |v: ProtocolRevision| {
        diff_any(
            &old,
            &new,
            &DiffOptions {
                protocol_version: Some(v),
            },
        )
        .expect("valid")
    };
    let r = only(ProtocolRevision::V2025_06_18);
    assert!(r.is_empty(), "{:?}", r.findings);
    assert_eq!(
        r.revisions,
        RevisionSet::single(ProtocolRevision::V2025_06_18)
    );
    let r = only(ProtocolRevision::V2025_11_25);
    assert_eq!(r.findings.len(), 1);
    assert!(matches!(
        diff_any(
            &old,
            &new,
            &DiffOptions {
                protocol_version: Some(ProtocolRevision::V2026_07_28)
            }
        ),
        Err(mcpdesc_diff::DiffError::RevisionNotDeclared(_))
    ));
}

/// README documents every rule with its class, in one table.
#[test]
fn readme_rule_table_matches_the_rules() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README");
    let mut missing = Vec::new();
    for r in RULES {
        let row = format!("| `{}` | {} |", r.id, r.class.as_str());
        if !readme.contains(&row) {
            missing.push(row);
        }
    }
    assert!(
        missing.is_empty(),
        "README rule table lacks:\n{}",
        missing.join("\n")
    );
}
