//! Request bodies by media type: JSON, `application/x-www-form-urlencoded` and
//! `multipart/form-data` per Encoding Object (OpenAPI 3.1.1 §4.8.15), binary from
//! base64, text as is. See the [`crate`] docs for the rules.

use super::plan::{ArgPlan, BodyKind, BodyPlan, SchemaFacts, essence, is_json};
use super::serialize::{self, Encoding};
use super::wire::Body;
use mcpdesc_core::provenance::BodyShape;
use serde_json::{Map, Value};

/// One member of an object body: its plan (when the provenance has one) and value.
struct Member<'a> {
    name: &'a str,
    plan: Option<&'a ArgPlan>,
    value: &'a Value,
}

/// The body of one call, `None` when nothing is sent.
pub fn build(plan: &BodyPlan, args: &Map<String, Value>) -> Result<Option<Body>, String> {
    let content_type = plan.content_type.clone();
    match plan.shape {
        BodyShape::Body => {
            let Some(arg) = plan.members.first() else {
                return Ok(None);
            };
            let Some(v) = args.get(&arg.property) else {
                return Ok(None);
            };
            let bytes = match plan.kind {
                BodyKind::Json => json_bytes(v),
                BodyKind::Text => match v {
                    Value::String(s) => s.clone().into_bytes(),
                    _ => {
                        return Err(format!(
                            "argument `{}`: a {content_type} body must be a string",
                            arg.property
                        ));
                    }
                },
                BodyKind::Binary => binary(&arg.property, &arg.facts, v)?,
                BodyKind::FormUrlencoded | BodyKind::Multipart => {
                    let Value::Object(m) = v else {
                        return Err(format!(
                            "argument `{}`: a {content_type} body must be an object",
                            arg.property
                        ));
                    };
                    let members: Vec<Member<'_>> = m
                        .iter()
                        .map(|(k, v)| Member {
                            name: k,
                            plan: None,
                            value: v,
                        })
                        .collect();
                    return form(plan, &members).map(Some);
                }
            };
            Ok(Some(Body {
                content_type,
                bytes,
            }))
        }
        BodyShape::Properties => {
            let members: Vec<Member<'_>> = plan
                .members
                .iter()
                .filter_map(|a| {
                    args.get(&a.property).map(|v| Member {
                        name: &a.name,
                        plan: Some(a),
                        value: v,
                    })
                })
                .collect();
            if members.is_empty() && !plan.required {
                return Ok(None);
            }
            match plan.kind {
                BodyKind::Json => {
                    let mut m = Map::new();
                    for mem in &members {
                        m.insert(mem.name.to_string(), mem.value.clone());
                    }
                    Ok(Some(Body {
                        content_type,
                        bytes: json_bytes(&Value::Object(m)),
                    }))
                }
                BodyKind::FormUrlencoded | BodyKind::Multipart => form(plan, &members).map(Some),
                BodyKind::Text | BodyKind::Binary => Err(format!(
                    "a {content_type} body cannot be built from separate members"
                )),
            }
        }
    }
}

fn json_bytes(v: &Value) -> Vec<u8> {
    // Serializing a `Value` cannot fail.
    serde_json::to_vec(v).unwrap_or_default()
}

/// Decodes a base64 / base64url argument (padding optional).
pub fn binary(property: &str, facts: &SchemaFacts, v: &Value) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    let Value::String(s) = v else {
        return Err(format!(
            "argument `{property}`: binary content must be a base64 string"
        ));
    };
    if !facts.is_binary() {
        // No contentEncoding: the string's own bytes.
        return Ok(s.clone().into_bytes());
    }
    let url = facts.content_encoding.as_deref() == Some("base64url");
    let trimmed = s.trim_end_matches('=');
    let engine = if url {
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
    } else {
        &base64::engine::general_purpose::STANDARD_NO_PAD
    };
    engine.decode(trimmed).map_err(|e| {
        format!(
            "argument `{property}` is not valid {}: {e}",
            if url { "base64url" } else { "base64" }
        )
    })
}

/// The `contentType` an Encoding Object gives a member, or OpenAPI 3.1.1's default for
/// its schema (`type` absent: by the value itself).
fn member_content_type(plan: &BodyPlan, name: &str, facts: &SchemaFacts, v: &Value) -> String {
    if let Some(ct) = plan
        .encoding
        .get(name)
        .and_then(|e| e.content_type.as_deref())
    {
        // A list: the first entry; a wildcard: the schema's contentMediaType, else
        // octet-stream.
        let first = ct.split(',').next().unwrap_or(ct).trim();
        if first.ends_with("/*") || first == "*/*" {
            let prefix = &first[..first.len() - 1];
            return match &facts.content_media_type {
                Some(m) if first == "*/*" || m.starts_with(prefix) => m.clone(),
                _ => "application/octet-stream".into(),
            };
        }
        return first.to_string();
    }
    default_content_type(facts, v)
}

/// OpenAPI 3.1.1 Encoding Object defaults.
pub fn default_content_type(facts: &SchemaFacts, v: &Value) -> String {
    if facts.is_binary() {
        return "application/octet-stream".into();
    }
    match facts.ty.as_deref() {
        Some("string" | "number" | "integer" | "boolean") => "text/plain".into(),
        Some("object") => "application/json".into(),
        _ => match v {
            Value::Object(_) | Value::Array(_) => "application/json".into(),
            _ => "text/plain".into(),
        },
    }
}

/// Form bodies: `application/x-www-form-urlencoded` or `multipart/form-data`.
fn form(plan: &BodyPlan, members: &[Member<'_>]) -> Result<Body, String> {
    let multipart = plan.kind == BodyKind::Multipart;
    let mut pairs: Vec<String> = Vec::new();
    let mut parts: Vec<Part> = Vec::new();
    let empty = SchemaFacts::default();
    for m in members {
        let facts = m.plan.map_or(&empty, |p| &p.facts);
        let err = |e: &dyn std::fmt::Display| {
            format!(
                "argument `{}` (body member `{}`): {e}",
                m.plan.map_or(m.name, |p| p.property.as_str()),
                m.name
            )
        };
        // Style-based: an Encoding Object with style/explode/allowReserved (3.x), or a
        // Swagger 2.0 form parameter's collectionFormat for an array.
        let style_based = m
            .plan
            .filter(|p| p.explicit_style && (p.collection_format.is_none() || m.value.is_array()));
        if let Some(p) = style_based {
            if let Some(cf) = p
                .collection_format
                .as_deref()
                .filter(|_| m.value.is_array())
            {
                let items = match serialize::Shape::of(m.value).map_err(|e| err(&e))? {
                    serialize::Shape::List(i) => i,
                    _ => Vec::new(),
                };
                if multipart {
                    if cf == "multi" {
                        for i in items {
                            parts.push(Part::text(m.name, i));
                        }
                    } else {
                        parts.push(Part::text(
                            m.name,
                            items.join(serialize::collection_delimiter(cf, false)),
                        ));
                    }
                } else if cf == "multi" {
                    for i in items {
                        pairs.push(format!(
                            "{}={}",
                            serialize::encode(m.name, Encoding::Unreserved),
                            serialize::encode(&i, Encoding::Unreserved)
                        ));
                    }
                } else {
                    let joined = items
                        .iter()
                        .map(|i| serialize::encode(i, Encoding::Unreserved))
                        .collect::<Vec<_>>()
                        .join(serialize::collection_delimiter(cf, true));
                    pairs.push(format!(
                        "{}={joined}",
                        serialize::encode(m.name, Encoding::Unreserved)
                    ));
                }
                continue;
            }
            if multipart {
                for (n, v) in serialize::multipart_pairs(m.name, p.style, p.explode, m.value)
                    .map_err(|e| err(&e))?
                {
                    parts.push(Part::text(&n, v));
                }
            } else {
                let enc = if p.allow_reserved {
                    Encoding::QueryReserved
                } else {
                    Encoding::Unreserved
                };
                pairs.extend(
                    serialize::query_pairs(m.name, p.style, p.explode, m.value, enc)
                        .map_err(|e| err(&e))?,
                );
            }
            continue;
        }
        // Content-based: each value (each item of an array) as its content type.
        let items: Vec<(&Value, &SchemaFacts)> = match m.value {
            // Arrays: one pair / part per item, each as its items schema says (RFC 7578
            // §4.3, OpenAPI 3.1.1 Encoding Object defaults).
            Value::Array(a) => {
                let item_facts = facts.items.as_deref().unwrap_or(&empty);
                a.iter().map(|i| (i, item_facts)).collect()
            }
            // Undefined: omitted.
            Value::Null => continue,
            other => vec![(other, facts)],
        };
        for (v, f) in items {
            let ct = member_content_type(plan, m.name, f, v);
            if multipart {
                if f.is_binary() && !is_json(&essence(&ct)) {
                    let bytes = binary(m.name, f, v).map_err(|e| err(&e))?;
                    parts.push(Part {
                        name: m.name.to_string(),
                        filename: true,
                        content_type: Some(ct),
                        bytes,
                    });
                } else {
                    let text = serialize::content_text(&ct, v);
                    let plain = essence(&ct) == "text/plain";
                    parts.push(Part {
                        name: m.name.to_string(),
                        filename: false,
                        content_type: (!plain).then_some(ct),
                        bytes: text.into_bytes(),
                    });
                }
            } else {
                let mut s = String::new();
                serialize::form_urlencode_into(&mut s, m.name);
                s.push('=');
                serialize::form_urlencode_into(&mut s, &serialize::content_text(&ct, v));
                pairs.push(s);
            }
        }
    }
    if multipart {
        Ok(multipart_body(&parts))
    } else {
        Ok(Body {
            content_type: plan.content_type.clone(),
            bytes: pairs.join("&").into_bytes(),
        })
    }
}

/// One `multipart/form-data` part.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    /// Adds `filename="NAME"` (binary parts: servers tell files from fields by it).
    pub filename: bool,
    /// `None`: no `Content-Type` field (RFC 7578 §4.4 default `text/plain`).
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

impl Part {
    fn text(name: &str, value: String) -> Part {
        Part {
            name: name.to_string(),
            filename: false,
            content_type: None,
            bytes: value.into_bytes(),
        }
    }
}

/// A `Content-Disposition` parameter value: `"`, CR and LF percent-encoded (as HTML's
/// form submission does, RFC 7578 §4.2 / §2).
fn quote_param(s: &str) -> String {
    s.replace('%', "%25")
        .replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A boundary that occurs in no part.
fn boundary(parts: &[Part]) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut n = 0u64;
    loop {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(n);
        let b = format!("mcpdesc-{:016x}{:08x}", h.finish(), n);
        if !parts
            .iter()
            .any(|p| p.bytes.windows(b.len()).any(|w| w == b.as_bytes()))
        {
            return b;
        }
        n += 1;
    }
}

/// Assembles parts into a body (RFC 7578 / RFC 2046 §5.1.1).
pub fn multipart_body(parts: &[Part]) -> Body {
    let b = boundary(parts);
    let mut out = Vec::new();
    for p in parts {
        out.extend_from_slice(format!("--{b}\r\n").as_bytes());
        let mut disp = format!(
            "Content-Disposition: form-data; name=\"{}\"",
            quote_param(&p.name)
        );
        if p.filename {
            disp.push_str(&format!("; filename=\"{}\"", quote_param(&p.name)));
        }
        out.extend_from_slice(disp.as_bytes());
        out.extend_from_slice(b"\r\n");
        if let Some(ct) = &p.content_type {
            out.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&p.bytes);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{b}--\r\n").as_bytes());
    Body {
        content_type: format!("multipart/form-data; boundary={b}"),
        bytes: out,
    }
}
