//! Exact JSON identity for hash maps keyed by content (validator caches, codegen type
//! identity): two values are the same when their serializations would be.

use serde_json::Value;

/// JSON compared as its serialization would be: member order included, numbers by
/// representation (`1` ≠ `1.0`, `0.0` ≠ `-0.0`). Hash and comparison are iterative, and
/// the hash reads a bounded prefix (equal values still hash equally; `eq` decides).
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
        let mut stack = vec![self.0];
        let mut budget = NODES;
        while let Some(v) = stack.pop() {
            if budget == 0 {
                break;
            }
            budget -= 1;
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
                Value::Array(a) => {
                    h.write_u8(5);
                    h.write_usize(a.len());
                    stack.extend(a.iter().rev());
                }
                Value::Object(o) => {
                    h.write_u8(6);
                    h.write_usize(o.len());
                    for (k, v) in o.iter().rev() {
                        stack.push(v);
                        h.write_usize(k.len());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SameJson;
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
}
