//! A deterministic valid-instance generator for tool input schemas (JSON Schema
//! 2020-12 as the importer writes it): `type`, `enum`, `const`, `format`, numeric and
//! length bounds, `pattern` (a few candidates, checked), `required`, nested objects
//! and arrays, local `$ref`, `allOf`/`anyOf`/`oneOf` (first branch). Every generated
//! argument set is then validated against the whole schema, so nothing invalid is
//! ever sent; what cannot be generated is reported as a reason to skip.

use serde_json::{Map, Value, json};

/// Candidates tried against a `pattern`, in order.
const PATTERN_CANDIDATES: [&str; 12] = [
    "abc",
    "a",
    "A",
    "1",
    "123",
    "a1",
    "ABC",
    "abc-123",
    "a_b",
    "2024-01-02",
    "AB12",
    "x.y",
];

pub struct Gen<'a> {
    root: &'a Value,
}

impl<'a> Gen<'a> {
    pub fn new(root: &'a Value) -> Self {
        Gen { root }
    }

    /// Arguments for the whole input schema (an object), or why not.
    pub fn arguments(&self) -> Result<Value, String> {
        let v = self.value(self.root, 0)?;
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(self.root)
            .map_err(|e| format!("inputSchema does not compile: {e}"))?;
        if let Some(e) = validator.iter_errors(&v).next() {
            return Err(format!(
                "generated arguments do not validate ({} at {})",
                e,
                e.instance_path().as_str()
            ));
        }
        Ok(v)
    }

    fn deref(&self, s: &'a Value, depth: usize) -> Result<&'a Value, String> {
        let mut cur = s;
        for _ in 0..16 {
            match cur.get("$ref").and_then(Value::as_str) {
                Some(r) => {
                    let ptr = r
                        .strip_prefix('#')
                        .ok_or_else(|| format!("external $ref {r}"))?;
                    cur = self
                        .root
                        .pointer(&mcpdesc_core::pointer::percent_decode(ptr))
                        .ok_or_else(|| format!("unresolved $ref {r}"))?;
                }
                None => return Ok(cur),
            }
        }
        let _ = depth;
        Err("$ref chain too long".into())
    }

    fn value(&self, schema: &'a Value, depth: usize) -> Result<Value, String> {
        if depth > 12 {
            return Err("schema nests too deep for the generator".into());
        }
        let s = self.deref(schema, depth)?;
        let Some(m) = s.as_object() else {
            return match s {
                Value::Bool(false) => Err("schema `false`".into()),
                _ => Ok(json!("x")),
            };
        };
        if let Some(c) = m.get("const") {
            return Ok(c.clone());
        }
        if let Some(Value::Array(e)) = m.get("enum") {
            return e
                .iter()
                .find(|v| !v.is_null())
                .or(e.first())
                .cloned()
                .ok_or_else(|| "empty enum".into());
        }
        if let Some(Value::Array(all)) = m.get("allOf") {
            // Merge object branches; otherwise the first branch.
            let mut merged = Map::new();
            let mut any_obj = false;
            for b in all {
                match self.value(b, depth + 1)? {
                    Value::Object(o) => {
                        any_obj = true;
                        merged.extend(o);
                    }
                    other if !any_obj => return Ok(other),
                    _ => {}
                }
            }
            if let Some(Value::Object(props)) = m.get("properties") {
                for (k, p) in props {
                    if !merged.contains_key(k) {
                        merged.insert(k.clone(), self.value(p, depth + 1)?);
                    }
                }
            }
            return Ok(Value::Object(merged));
        }
        for k in ["oneOf", "anyOf"] {
            if let Some(Value::Array(alts)) = m.get(k) {
                // The first alternative whose value the whole `oneOf`/`anyOf` accepts
                // (for `oneOf`: exactly one branch).
                let mut probe = Map::new();
                if let Some(defs) = self.root.get("$defs") {
                    probe.insert("$defs".into(), defs.clone());
                }
                probe.insert(k.into(), Value::Array(alts.clone()));
                let check = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&Value::Object(probe))
                    .ok();
                let mut last = String::from("no alternative");
                for a in alts {
                    if self.deref(a, depth)?.get("type").and_then(Value::as_str) == Some("null") {
                        continue;
                    }
                    match self.value(a, depth + 1) {
                        Ok(v) if check.as_ref().is_none_or(|c| c.is_valid(&v)) => return Ok(v),
                        Ok(_) => last = format!("no `{k}` alternative is matched alone"),
                        Err(e) => last = e,
                    }
                }
                return Err(last);
            }
        }
        let ty = match m.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null"),
            _ if m.contains_key("properties") => "object",
            _ if m.contains_key("items") => "array",
            _ => "string",
        };
        match ty {
            "string" => self.string(m),
            "integer" | "number" => number(m, ty == "integer"),
            "boolean" => Ok(json!(true)),
            "null" => Ok(Value::Null),
            "array" => {
                let min = m
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1);
                let max = m
                    .get("maxItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX);
                let n = min.min(max).min(3);
                let items = m.get("items").unwrap_or(&Value::Bool(true));
                let unique = m.get("uniqueItems").and_then(Value::as_bool) == Some(true);
                let mut out = Vec::new();
                for i in 0..n {
                    let mut v = self.value(items, depth + 1)?;
                    if unique && i > 0 {
                        // Make items distinct where the generator can.
                        match &mut v {
                            Value::String(s) => s.push_str(&i.to_string()),
                            Value::Number(_) => v = json!(i + 1),
                            _ => break,
                        }
                    }
                    out.push(v);
                }
                Ok(Value::Array(out))
            }
            "object" => {
                let mut out = Map::new();
                let required: Vec<&str> = m
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(Value::Object(props)) = m.get("properties") {
                    for (k, p) in props {
                        match self.value(p, depth + 1) {
                            Ok(v) => {
                                out.insert(k.clone(), v);
                            }
                            Err(e) if required.contains(&k.as_str()) => {
                                return Err(format!("`{k}`: {e}"));
                            }
                            Err(_) => {}
                        }
                    }
                }
                for r in required {
                    if !out.contains_key(r) {
                        out.insert(r.to_string(), json!("x"));
                    }
                }
                let min = m.get("minProperties").and_then(Value::as_u64).unwrap_or(0) as usize;
                let extra = match m.get("additionalProperties") {
                    Some(Value::Bool(false)) => None,
                    Some(s @ Value::Object(_)) => Some(s),
                    _ => Some(&Value::Bool(true)),
                };
                if let Some(extra) = extra {
                    let mut i = 0;
                    while out.len() < min {
                        i += 1;
                        let v = match extra {
                            Value::Object(_) => self.value(extra, depth + 1)?,
                            _ => json!("x"),
                        };
                        out.insert(format!("key{i}"), v);
                    }
                }
                Ok(Value::Object(out))
            }
            other => Err(format!("type {other}")),
        }
    }

    fn string(&self, m: &Map<String, Value>) -> Result<Value, String> {
        match m.get("contentEncoding").and_then(Value::as_str) {
            // Four bytes (0, 1, 2, 3).
            Some("base64url") => return Ok(json!("AAECAw")),
            Some(_) => return Ok(json!("AAECAw==")),
            None => {}
        }
        let by_format = match m.get("format").and_then(Value::as_str) {
            Some("date-time") => Some("2024-01-02T03:04:05Z"),
            Some("date") => Some("2024-01-02"),
            Some("time") => Some("03:04:05Z"),
            Some("uuid") => Some("3fa85f64-5717-4562-b3fc-2c963f66afa6"),
            Some("email") => Some("someone@example.com"),
            Some("uri" | "url" | "iri") => Some("https://example.com/x"),
            Some("hostname") => Some("example.com"),
            Some("ipv4") => Some("192.0.2.1"),
            Some("ipv6") => Some("2001:db8::1"),
            Some("byte") => Some("AAECAw=="),
            Some("int32" | "int64") => Some("1"),
            _ => None,
        };
        let min = m.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = m.get("maxLength").and_then(Value::as_u64).unwrap_or(64) as usize;
        if let Some(p) = m.get("pattern").and_then(Value::as_str) {
            let check = jsonschema::options()
                .build(&json!({"type": "string", "pattern": p, "minLength": min, "maxLength": max}))
                .map_err(|e| format!("pattern {p}: {e}"))?;
            let mut cands: Vec<String> = by_format.into_iter().map(String::from).collect();
            cands.extend(
                PATTERN_CANDIDATES
                    .iter()
                    .map(|c| c.repeat(1.max(min.div_ceil(c.len().max(1))))),
            );
            return cands
                .into_iter()
                .find(|c| check.is_valid(&json!(c)))
                .map(Value::String)
                .ok_or_else(|| format!("no candidate matches pattern {p}"));
        }
        let mut s = by_format.unwrap_or("abc").to_string();
        while s.chars().count() < min {
            s.push('a');
        }
        if s.chars().count() > max {
            s = s.chars().take(max).collect();
        }
        Ok(Value::String(s))
    }
}

fn number(m: &Map<String, Value>, integer: bool) -> Result<Value, String> {
    let f = |k: &str| m.get(k).and_then(Value::as_f64);
    let mut lo = f("minimum").unwrap_or(f64::MIN);
    let mut hi = f("maximum").unwrap_or(f64::MAX);
    if let Some(x) = f("exclusiveMinimum") {
        lo = lo.max(x + if integer { 1.0 } else { 0.5 });
    }
    if let Some(x) = f("exclusiveMaximum") {
        hi = hi.min(x - if integer { 1.0 } else { 0.5 });
    }
    let mut v = if lo <= 1.0 && 1.0 <= hi {
        1.0
    } else if lo > 1.0 {
        lo.ceil()
    } else {
        hi.floor()
    };
    if let Some(step) = f("multipleOf").filter(|s| *s > 0.0) {
        v = (v / step).ceil() * step;
    }
    if v < lo || v > hi {
        return Err("no number within the bounds".into());
    }
    if integer || v.fract() == 0.0 {
        Ok(json!(v as i64))
    } else {
        Ok(json!(v))
    }
}
