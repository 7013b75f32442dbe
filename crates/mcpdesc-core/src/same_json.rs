//! When two JSON values are the same.
//!
//! - [`json_eq`] is JSON equality: the data model of mcpdesc §15 (and JSON Schema's
//!   `const`/`enum`/`uniqueItems`): object members in any order, numbers compared as
//!   the numbers they are (`1` = `1.0`, `-0.0` = `0`, `2^64-1` ≠ `2^64-1` as a double).
//!   [`canonical_text`] is its hash key: equal text exactly when [`json_eq`].
//! - [`SameJson`] is not an equality of JSON values but of serializations (member
//!   order, number spelling): it keys caches of derived artefacts whose output depends
//!   on the text (codegen type identity renders members in order; `1.0` renders as a
//!   float literal), so values that are merely JSON-equal must not share an entry.

use serde_json::{Number, Value};

/// JSON equality (mcpdesc §15): objects regardless of member order, arrays in order,
/// numbers by mathematical value, exactly (no rounding through `f64`: `2^53 + 1` is not
/// `2^53` as a double).
///
/// ```
/// use mcpdesc_core::same_json::json_eq;
/// use serde_json::json;
/// assert!(json_eq(&json!({"a": 1, "b": [2.0]}), &json!({"b": [2], "a": 1.0})));
/// assert!(!json_eq(&json!(9007199254740993u64), &json!(9007199254740992.0)));
/// ```
pub fn json_eq(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                if !number_eq(x, y) {
                    return false;
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return false,
                    }
                }
            }
            (Value::Array(_) | Value::Object(_) | Value::Number(_), _)
            | (_, Value::Array(_) | Value::Object(_) | Value::Number(_)) => return false,
            _ => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

/// An integer's exact value, when the number is an integer that `i128` holds (every
/// `i64`, every `u64`, and integral doubles below 2^127 in magnitude).
fn exact_int(n: &Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    // 2^127 as f64 is exact; below it `as` converts an integral double exactly.
    (f.fract() == 0.0 && f.abs() < 1.7014118346046923e38).then_some(f as i128)
}

/// Numbers equal by value, exactly: integers (however written) as integers; an
/// integer never equals a non-integral double; two other doubles by value (`-0.0` =
/// `0.0`).
fn number_eq(x: &Number, y: &Number) -> bool {
    match (exact_int(x), exact_int(y)) {
        (Some(i), Some(j)) => i == j,
        (None, None) => x.as_f64() == y.as_f64(),
        _ => false,
    }
}

/// A text of `v` that is equal for two values exactly when [`json_eq`] holds: members
/// sorted by key, integers (however written) as `i<value>`, other numbers as `f<bits>`.
/// For matching values through a hash map instead of comparing every pair.
pub fn canonical_text(v: &Value) -> String {
    use std::io::Write as _;
    fn go(v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Number(n) => match exact_int(n) {
                // Writing into a `Vec` cannot fail.
                Some(i) => drop(write!(out, "i{i}")),
                None => drop(write!(out, "f{}", n.as_f64().unwrap_or(0.0).to_bits())),
            },
            Value::String(s) => string(s, out),
            Value::Array(a) => {
                out.push(b'[');
                for x in a {
                    go(x, out);
                    out.push(b',');
                }
                out.push(b']');
            }
            Value::Object(m) => {
                let mut members: Vec<(&String, &Value)> = m.iter().collect();
                members.sort_by(|a, b| a.0.cmp(b.0));
                out.push(b'{');
                for (k, x) in members {
                    string(k, out);
                    out.push(b':');
                    go(x, out);
                    out.push(b',');
                }
                out.push(b'}');
            }
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        }
    }
    /// A string as serde_json writes it (quoted, escaped).
    fn string(s: &str, out: &mut Vec<u8>) {
        // Writing a string into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    }
    let mut out = Vec::new();
    go(v, &mut out);
    // Only UTF-8 was written: the strings as serde_json escapes them, and ASCII.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// JSON compared as its serialization would be: member order included, numbers by
/// representation (`1` ≠ `1.0`, `0.0` ≠ `-0.0`). Hash and comparison are iterative, and
/// the hash reads a bounded prefix (equal values still hash equally; `eq` decides).
/// Not JSON equality: see the module docs, and [`json_eq`] for that.
#[derive(Debug, Clone, Copy)]
pub struct SameJson<'a>(pub &'a Value);

impl PartialEq for SameJson<'_> {
    fn eq(&self, other: &Self) -> bool {
        if std::ptr::eq(self.0, other.0) {
            return true;
        }
        let mut stack = vec![(self.0, other.0)];
        while let Some((a, b)) = stack.pop() {
            match (a, b) {
                (Value::Object(x), Value::Object(y)) => {
                    if x.len() != y.len() {
                        return false;
                    }
                    for ((ka, va), (kb, vb)) in x.iter().zip(y) {
                        if ka != kb {
                            return false;
                        }
                        stack.push((va, vb));
                    }
                }
                (Value::Array(x), Value::Array(y)) => {
                    if x.len() != y.len() {
                        return false;
                    }
                    stack.extend(x.iter().zip(y));
                }
                (Value::Number(x), Value::Number(y)) => {
                    let same = if x.is_f64() || y.is_f64() {
                        x.is_f64()
                            && y.is_f64()
                            && x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
                    } else {
                        x == y
                    };
                    if !same {
                        return false;
                    }
                }
                (Value::Object(_) | Value::Array(_) | Value::Number(_), _)
                | (_, Value::Object(_) | Value::Array(_) | Value::Number(_)) => return false,
                _ => {
                    if a != b {
                        return false;
                    }
                }
            }
        }
        true
    }
}

impl Eq for SameJson<'_> {}

impl std::hash::Hash for SameJson<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        const NODES: usize = 32;
        const STRING_BYTES: usize = 24;
        // (the length of the member name it has in its object, a value): a name is
        // hashed when its value is read, so unread members cost nothing.
        let mut stack: Vec<(Option<usize>, &Value)> = vec![(None, self.0)];
        let mut budget = NODES;
        while let Some((name_len, v)) = stack.pop() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            if let Some(n) = name_len {
                h.write_usize(n);
            }
            match v {
                Value::Null => h.write_u8(0),
                Value::Bool(b) => h.write_u8(if *b { 1 } else { 2 }),
                Value::Number(n) => {
                    h.write_u8(3);
                    if let Some(u) = n.as_u64() {
                        h.write_u64(u);
                    } else if let Some(i) = n.as_i64() {
                        h.write_i64(i);
                    } else if let Some(f) = n.as_f64() {
                        h.write_u64(f.to_bits());
                    }
                }
                Value::String(s) => {
                    h.write_u8(4);
                    h.write_usize(s.len());
                    h.write(&s.as_bytes()[..s.len().min(STRING_BYTES)]);
                }
                // Only the first members fit in the node budget: the others are not
                // read (a wide object costs no more than a narrow one).
                Value::Array(a) => {
                    h.write_u8(5);
                    h.write_usize(a.len());
                    stack.extend(a.iter().take(budget).rev().map(|v| (None, v)));
                }
                Value::Object(o) => {
                    h.write_u8(6);
                    h.write_usize(o.len());
                    stack.extend(o.iter().take(budget).rev().map(|(k, v)| (Some(k.len()), v)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SameJson, canonical_text, json_eq};
    use serde_json::json;
    use std::hash::{BuildHasher, RandomState};

    /// `SameJson` must agree with comparing serializations (the identity it replaced).
    #[test]
    fn same_json_is_serialization_equality() {
        let cases = [
            (
                json!({"a": 1, "b": [1, {"c": "x"}]}),
                json!({"a": 1, "b": [1, {"c": "x"}]}),
            ),
            (json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1})),
            (json!({"m": 1}), json!({"m": 1.0})),
            (json!({"m": 0.0}), json!({"m": -0.0})),
            (json!({"m": 2.5}), json!({"m": 2.5})),
            (json!([1, [2]]), json!([[1], 2])),
            (json!("x".repeat(40)), json!(format!("{}y", "x".repeat(39)))),
            (json!(null), json!(false)),
        ];
        let s = RandomState::new();
        for (a, b) in &cases {
            let (text_a, text_b) = (a.to_string(), b.to_string());
            let by_text = text_a == text_b;
            assert_eq!(SameJson(a) == SameJson(b), by_text, "{a} vs {b}");
            if by_text {
                assert_eq!(s.hash_one(SameJson(a)), s.hash_one(SameJson(b)));
            }
        }
    }

    /// JSON equality on the cases §15 and JSON Schema make hard: hand-written verdicts.
    #[test]
    fn json_equality_compares_numbers_as_numbers() {
        let big = u64::MAX;
        let above_i64 = i64::MAX as u64 + 1;
        let cases = [
            (json!(1), json!(1.0), true),
            (json!(-1), json!(-1.0), true),
            (json!(0), json!(-0.0), true),
            (json!(0.0), json!(-0.0), true),
            (json!(1), json!(1.5), false),
            (json!(2.5), json!(2.5), true),
            (json!(0.1), json!(0.10000000000000002), false),
            (json!(above_i64), json!(above_i64), true),
            (json!(above_i64), json!(i64::MAX), false),
            (json!(above_i64), json!(9223372036854775808.0), true),
            (json!(big), json!(big), true),
            (json!(big), json!(big - 1), false),
            // u64::MAX rounds to 2^64 as a double: not the same number.
            (json!(big), json!(18446744073709551616.0), false),
            (json!(i64::MIN), json!(-9223372036854775808.0), true),
            (json!(i64::MIN), json!(big), false),
            // 2^53 + 1 is not a double; it equals no double.
            (json!(9007199254740993u64), json!(9007199254740992.0), false),
            (json!(9007199254740992u64), json!(9007199254740992.0), true),
            (json!(1e300), json!(1e300), true),
            (json!(1e300), json!(1e299), false),
            (json!({"a": 1, "b": 2}), json!({"b": 2.0, "a": 1}), true),
            (json!({"a": 1}), json!({"a": 1, "b": null}), false),
            (json!({"a": null}), json!({"b": null}), false),
            (json!([1, 2]), json!([2, 1]), false),
            (json!([1, [2.0]]), json!([1.0, [2]]), true),
            (json!("1"), json!(1), false),
            (json!(null), json!(false), false),
            (json!(true), json!(true), true),
            (json!([]), json!({}), false),
        ];
        for (a, b, same) in &cases {
            assert_eq!(json_eq(a, b), *same, "{a} vs {b}");
            assert_eq!(json_eq(b, a), *same, "{b} vs {a}");
            assert_eq!(
                canonical_text(a) == canonical_text(b),
                *same,
                "canonical text of {a} vs {b}"
            );
        }
    }

    #[test]
    fn json_equality_of_deep_values_does_not_recurse() {
        let mut a = json!(1);
        let mut b = json!(1.0);
        for _ in 0..100_000 {
            a = serde_json::Value::Array(vec![a]);
            b = serde_json::Value::Array(vec![b]);
        }
        assert!(json_eq(&a, &b));
        // Drop iteratively is serde_json's concern; keep the test's own frames small.
        std::mem::forget(a);
        std::mem::forget(b);
    }

    /// Counts what a hash is given.
    #[derive(Default)]
    struct Writes(usize);

    impl std::hash::Hasher for Writes {
        fn finish(&self) -> u64 {
            0
        }
        fn write(&mut self, _: &[u8]) {
            self.0 += 1;
        }
    }

    /// The hash reads at most 32 values, each with at most its member name's length, a
    /// tag, a length and one more word: never every member of wide nested objects.
    #[test]
    fn the_hash_of_wide_nested_objects_is_bounded() {
        use std::hash::Hash;
        // 40 levels, each an object of 40 members whose first member is the next level.
        let mut v = json!("leaf");
        for _ in 0..40 {
            let mut m = serde_json::Map::new();
            m.insert("next".into(), v);
            for i in 1..40 {
                m.insert(format!("m{i}"), json!(i));
            }
            v = serde_json::Value::Object(m);
        }
        let mut w = Writes::default();
        SameJson(&v).hash(&mut w);
        assert!(w.0 <= 32 * 4, "{} writes", w.0);
    }
}
