//! OpenAPI parameter serialization: `style` × `explode` × value shape, per the
//! *Style Examples* table of OpenAPI 3.1.1 §4.8.12.4 (3.0.4 §4.7.12.4), with RFC 6570
//! expansion and RFC 3986 percent-encoding. Pure functions; every output is what goes
//! on the wire.
//!
//! A value is first reduced to a [`Shape`] (RFC 6570 knows one level: a primitive, a
//! list of primitives, or an associative array of primitives). JSON `null`, `[]` and
//! `{}` are RFC 6570 *undefined* values and give the table's `undefined` column; the
//! empty string gives the same texts by RFC 6570's empty-string rules. Deeper nesting,
//! `null` inside an array, and every combination the table marks *n/a* are
//! [`SerError`]s.

use mcpdesc_core::provenance::Style;
use serde_json::Value;
use std::fmt;

/// Why a value cannot be serialized as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerError(pub String);

impl fmt::Display for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, SerError> {
    Err(SerError(msg.into()))
}

/// A value as RFC 6570 sees it (§2.3): primitives already turned into text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// `null`, `[]`, `{}` (and an object whose members are all `null`).
    Undefined,
    Primitive(String),
    List(Vec<String>),
    /// Members in their JSON order; `null` members are left out (RFC 6570 ignores
    /// undefined values).
    Pairs(Vec<(String, String)>),
}

/// A Swagger 2.0 `collectionFormat` (Swagger 2.0 Parameter Object): how an array
/// parameter's items are joined, or `multi` for one pair per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectionFormat {
    Csv,
    Ssv,
    Tsv,
    Pipes,
    Multi,
}

impl CollectionFormat {
    /// The format a `collectionFormat` value names; `None` for an unknown one.
    pub fn parse(s: &str) -> Option<CollectionFormat> {
        Some(match s {
            "csv" => CollectionFormat::Csv,
            "ssv" => CollectionFormat::Ssv,
            "tsv" => CollectionFormat::Tsv,
            "pipes" => CollectionFormat::Pipes,
            "multi" => CollectionFormat::Multi,
            _ => return None,
        })
    }

    /// The delimiter between items, as raw text or percent-encoded (a query, path or
    /// form value); `,` for `csv` (and for `multi`, which repeats the pair instead).
    pub fn delimiter(self, encoded: bool) -> &'static str {
        match (self, encoded) {
            (CollectionFormat::Ssv, true) => "%20",
            (CollectionFormat::Ssv, false) => " ",
            (CollectionFormat::Tsv, true) => "%09",
            (CollectionFormat::Tsv, false) => "\t",
            (CollectionFormat::Pipes, true) => "%7C",
            (CollectionFormat::Pipes, false) => "|",
            (CollectionFormat::Csv | CollectionFormat::Multi, _) => ",",
        }
    }
}

/// [`CollectionFormat::delimiter`] of a recorded `collectionFormat` value (`,` for an
/// unknown one, which the plan refuses before any call).
pub fn collection_delimiter(cf: &str, encoded: bool) -> &'static str {
    CollectionFormat::parse(cf).map_or(",", |c| c.delimiter(encoded))
}

/// The text of a value serialized as `media_type` (a parameter or form member
/// described by a media type): JSON text for JSON types, a string as it is otherwise,
/// anything else as JSON text.
pub fn content_text(media_type: &str, v: &Value) -> String {
    match v {
        Value::String(s) if !mcpdesc_core::media::is_json(media_type) => s.clone(),
        other => other.to_string(),
    }
}

/// The text of a JSON primitive (strings as they are, numbers as JSON writes them,
/// `true`/`false`); `None` for `null`, arrays and objects.
pub fn primitive_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

impl Shape {
    /// Reduces a JSON value. Nested arrays/objects and `null` inside arrays are errors
    /// (RFC 6570 defines one level of structure; OpenAPI leaves deeper ones undefined).
    pub fn of(v: &Value) -> Result<Shape, SerError> {
        match v {
            Value::Null => Ok(Shape::Undefined),
            Value::Array(items) => {
                if items.is_empty() {
                    return Ok(Shape::Undefined);
                }
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match primitive_text(item) {
                        Some(t) => out.push(t),
                        None if item.is_null() => {
                            return err(format!(
                                "item {i} is null, which cannot be serialized inside an array (RFC 6570 has no undefined list members)"
                            ));
                        }
                        None => {
                            return err(format!(
                                "item {i} is an array or object; OpenAPI parameter styles serialize only arrays of primitives (RFC 6570 defines one level)"
                            ));
                        }
                    }
                }
                Ok(Shape::List(out))
            }
            Value::Object(members) => {
                let mut out = Vec::with_capacity(members.len());
                for (k, m) in members {
                    match primitive_text(m) {
                        Some(t) => out.push((k.clone(), t)),
                        None if m.is_null() => {}
                        None => {
                            return err(format!(
                                "member `{k}` is an array or object; OpenAPI parameter styles serialize only objects with primitive members (RFC 6570 defines one level)"
                            ));
                        }
                    }
                }
                if out.is_empty() {
                    Ok(Shape::Undefined)
                } else {
                    Ok(Shape::Pairs(out))
                }
            }
            other => Ok(Shape::Primitive(primitive_text(other).unwrap_or_default())),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Shape::Undefined => "an undefined value (null or empty)",
            Shape::Primitive(_) => "a primitive value",
            Shape::List(_) => "an array",
            Shape::Pairs(_) => "an object",
        }
    }
}

/// Which characters pass unencoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// RFC 3986 unreserved only (`A-Z a-z 0-9 - . _ ~`): RFC 6570 simple expansion.
    Unreserved,
    /// `allowReserved: true` in a query: unreserved, the reserved set except `[`, `]`,
    /// `#` (not allowed in a query) and `&`, `=`, `+` (form delimiters), and existing
    /// `%XX` triples (OpenAPI 3.1.1 `allowReserved`).
    QueryReserved,
    /// Nothing is encoded (header values, multipart names and values).
    Raw,
}

/// Whether a path segment is a dot-segment as a URL parser reads it: `.` or `..` with
/// any dot written as `%2E` or `%2e` (the WHATWG URL Standard's single- and double-dot
/// segments, which reqwest's `url` implements; RFC 3986 §5.2.4 removes them). Such a
/// segment is removed or climbs one level, so the request would address another
/// resource than the path says.
pub fn is_dot_segment(segment: &str) -> bool {
    let dots = segment.to_ascii_lowercase().replace("%2e", ".");
    dots == "." || dots == ".."
}

/// RFC 3986 §2.3 unreserved.
pub fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn is_reserved_allowed_in_query(b: u8) -> bool {
    // gen-delims ":/?#[]@" and sub-delims "!$&'()*+,;=", minus "[]#" and "&=+".
    matches!(
        b,
        b':' | b'/' | b'?' | b'@' | b'!' | b'$' | b'\'' | b'(' | b')' | b'*' | b',' | b';'
    )
}

/// Whether `b[i..]` starts with a percent-encoded octet, `%` and two hex digits (RFC
/// 3986 §2.1): the `%XX` triples that `allowReserved` and path template text keep.
pub(crate) fn is_pct_triplet(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'%')
        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Appends `%XX` for one byte.
pub fn push_pct(out: &mut String, b: u8) {
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}

/// Appends `s` percent-encoded under `enc` (UTF-8 bytes, upper-case hex).
pub fn encode_into(out: &mut String, s: &str, enc: Encoding) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let keep = match enc {
            Encoding::Raw => {
                out.push_str(&s[i..]);
                return;
            }
            Encoding::Unreserved => is_unreserved(c),
            Encoding::QueryReserved => {
                if is_pct_triplet(b, i) {
                    out.push_str(&s[i..i + 3]);
                    i += 3;
                    continue;
                }
                is_unreserved(c) || is_reserved_allowed_in_query(c)
            }
        };
        if keep {
            out.push(char::from(c));
        } else {
            push_pct(out, c);
        }
        i += 1;
    }
}

/// `s` percent-encoded under `enc`.
pub fn encode(s: &str, enc: Encoding) -> String {
    let mut out = String::with_capacity(s.len());
    encode_into(&mut out, s, enc);
    out
}

/// `application/x-www-form-urlencoded` serializing of one name or value (WHATWG URL
/// §5.2, the set OpenAPI 3.1.1 Appendix E recommends for browser compatibility): space
/// → `+`; `A-Z a-z 0-9 * - . _` kept; every other byte `%XX`.
pub fn form_urlencode_into(out: &mut String, s: &str) {
    for &c in s.as_bytes() {
        if c == b' ' {
            out.push('+');
        } else if c.is_ascii_alphanumeric() || matches!(c, b'*' | b'-' | b'.' | b'_') {
            out.push(char::from(c));
        } else {
            push_pct(out, c);
        }
    }
}

/// `{name}` in a path template, expanded for `style` (`simple`, `label`, `matrix`);
/// the result replaces the braces. Percent-encoded with [`Encoding::Unreserved`], so no
/// value adds `/`, `?` or `#`.
///
/// ```
/// use mcpdesc_core::provenance::Style;
/// use mcpdesc_rest::serialize::path_expansion;
/// use serde_json::json;
/// assert_eq!(path_expansion("color", Style::Matrix, true, &json!(["blue", "black"])).unwrap(),
///            ";color=blue;color=black");
/// assert_eq!(path_expansion("id", Style::Simple, false, &json!("a/b?c")).unwrap(), "a%2Fb%3Fc");
/// ```
pub fn path_expansion(
    name: &str,
    style: Style,
    explode: bool,
    value: &Value,
) -> Result<String, SerError> {
    let shape = Shape::of(value)?;
    let enc = Encoding::Unreserved;
    let mut out = String::new();
    match style {
        Style::Simple => simple(&mut out, &shape, explode, enc),
        Style::Label => {
            // RFC 6570 `.`: every item is prefixed with `.` when exploded, else the
            // whole comma-joined value once.
            out.push('.');
            match &shape {
                Shape::Undefined => {}
                Shape::Primitive(p) => encode_into(&mut out, p, enc),
                Shape::List(items) => join(&mut out, items, if explode { "." } else { "," }, enc),
                Shape::Pairs(pairs) => {
                    if explode {
                        pairs_join(&mut out, pairs, "=", ".", enc);
                    } else {
                        pairs_join(&mut out, pairs, ",", ",", enc);
                    }
                }
            }
        }
        Style::Matrix => {
            let n = encode(name, enc);
            match &shape {
                Shape::Undefined => {
                    out.push(';');
                    out.push_str(&n);
                }
                Shape::Primitive(p) => matrix_named(&mut out, &n, p, enc),
                Shape::List(items) if explode => {
                    for item in items {
                        matrix_named(&mut out, &n, item, enc);
                    }
                }
                Shape::List(items) => {
                    out.push(';');
                    out.push_str(&n);
                    if !(items.len() == 1 && items[0].is_empty()) {
                        out.push('=');
                        join(&mut out, items, ",", enc);
                    }
                }
                Shape::Pairs(pairs) if explode => {
                    for (k, v) in pairs {
                        matrix_named(&mut out, &encode(k, enc), v, enc);
                    }
                }
                Shape::Pairs(pairs) => {
                    out.push(';');
                    out.push_str(&n);
                    out.push('=');
                    pairs_join(&mut out, pairs, ",", ",", enc);
                }
            }
        }
        other => {
            return err(format!(
                "style `{other}` is not defined for path parameters (matrix, label, simple)"
            ));
        }
    }
    Ok(out)
}

/// RFC 6570 `;` for one named value: `;name` when empty, else `;name=value`.
fn matrix_named(out: &mut String, name: &str, v: &str, enc: Encoding) {
    out.push(';');
    out.push_str(name);
    if !v.is_empty() {
        out.push('=');
        encode_into(out, v, enc);
    }
}

fn join(out: &mut String, items: &[String], sep: &str, enc: Encoding) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        encode_into(out, item, enc);
    }
}

fn pairs_join(out: &mut String, pairs: &[(String, String)], kv: &str, sep: &str, enc: Encoding) {
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        encode_into(out, k, enc);
        out.push_str(kv);
        encode_into(out, v, enc);
    }
}

/// RFC 6570 simple expansion (no operator).
fn simple(out: &mut String, shape: &Shape, explode: bool, enc: Encoding) {
    match shape {
        Shape::Undefined => {}
        Shape::Primitive(p) => encode_into(out, p, enc),
        Shape::List(items) => join(out, items, ",", enc),
        Shape::Pairs(pairs) => {
            if explode {
                pairs_join(out, pairs, "=", ",", enc);
            } else {
                pairs_join(out, pairs, ",", ",", enc);
            }
        }
    }
}

/// A header parameter's value (`simple`, the only header style): RFC 6570 simple
/// expansion without percent-encoding (OpenAPI 3.2.0 §4.15.1 states it; 3.1.1
/// Appendix D calls the encoding inappropriate for headers). The caller checks the
/// result for forbidden bytes.
///
/// ```
/// use mcpdesc_core::provenance::Style;
/// use mcpdesc_rest::serialize::header_value;
/// use serde_json::json;
/// assert_eq!(header_value(Style::Simple, true, &json!({"R": 100, "G": 200})).unwrap(), "R=100,G=200");
/// ```
pub fn header_value(style: Style, explode: bool, value: &Value) -> Result<String, SerError> {
    if style != Style::Simple {
        return err(format!(
            "style `{style}` is not defined for header parameters (simple)"
        ));
    }
    let shape = Shape::of(value)?;
    let mut out = String::new();
    simple(&mut out, &shape, explode, Encoding::Raw);
    Ok(out)
}

/// The name=value pairs of a query parameter (or a style-serialized form member):
/// `form`, `spaceDelimited`, `pipeDelimited`, `deepObject`, each pair already
/// percent-encoded (names always [`Encoding::Unreserved`], values per `enc`). Joining
/// them with `&` (after a `?` in a URL) gives the table's text.
///
/// ```
/// use mcpdesc_core::provenance::Style;
/// use mcpdesc_rest::serialize::{query_pairs, Encoding};
/// use serde_json::json;
/// let p = query_pairs("color", Style::DeepObject, true, &json!({"R": 100}), Encoding::Unreserved).unwrap();
/// assert_eq!(p, ["color%5BR%5D=100"]);
/// ```
pub fn query_pairs(
    name: &str,
    style: Style,
    explode: bool,
    value: &Value,
    enc: Encoding,
) -> Result<Vec<String>, SerError> {
    let shape = Shape::of(value)?;
    let n = encode(name, Encoding::Unreserved);
    let named = |v: &str| {
        let mut s = String::with_capacity(n.len() + v.len() + 1);
        s.push_str(&n);
        s.push('=');
        encode_into(&mut s, v, enc);
        s
    };
    let joined = |items: &[String], sep: &str| {
        let mut s = String::with_capacity(n.len() + 16);
        s.push_str(&n);
        s.push('=');
        join(&mut s, items, sep, enc);
        s
    };
    let joined_pairs = |pairs: &[(String, String)], sep: &str| {
        let mut s = String::with_capacity(n.len() + 16);
        s.push_str(&n);
        s.push('=');
        pairs_join(&mut s, pairs, sep, sep, enc);
        s
    };
    match style {
        Style::Form => Ok(match &shape {
            Shape::Undefined => vec![named("")],
            Shape::Primitive(p) => vec![named(p)],
            Shape::List(items) if explode => items.iter().map(|i| named(i)).collect(),
            Shape::List(items) => vec![joined(items, ",")],
            Shape::Pairs(pairs) if explode => pairs
                .iter()
                .map(|(k, v)| {
                    let mut s = encode(k, Encoding::Unreserved);
                    s.push('=');
                    encode_into(&mut s, v, enc);
                    s
                })
                .collect(),
            Shape::Pairs(pairs) => vec![joined_pairs(pairs, ",")],
        }),
        Style::SpaceDelimited | Style::PipeDelimited => {
            let sep = if style == Style::SpaceDelimited {
                "%20"
            } else {
                "%7C"
            };
            if explode {
                return err(format!(
                    "style `{style}` with explode: true is undefined in OpenAPI (n/a in the Style Examples table)"
                ));
            }
            match &shape {
                Shape::List(items) => Ok(vec![joined(items, sep)]),
                Shape::Pairs(pairs) => Ok(vec![joined_pairs(pairs, sep)]),
                other => err(format!(
                    "style `{style}` serializes arrays and objects, not {} (n/a in OpenAPI's Style Examples table)",
                    other.kind()
                )),
            }
        }
        Style::DeepObject => {
            if !explode {
                return err(
                    "style `deepObject` with explode: false is undefined in OpenAPI (n/a in the Style Examples table)",
                );
            }
            match &shape {
                Shape::Pairs(pairs) => Ok(pairs
                    .iter()
                    .map(|(k, v)| {
                        let mut s = n.clone();
                        s.push_str("%5B");
                        encode_into(&mut s, k, Encoding::Unreserved);
                        s.push_str("%5D=");
                        encode_into(&mut s, v, enc);
                        s
                    })
                    .collect()),
                other => err(format!(
                    "style `deepObject` serializes objects with primitive members, not {} (n/a in OpenAPI's Style Examples table)",
                    other.kind()
                )),
            }
        }
        other => err(format!(
            "style `{other}` is not defined for query parameters (form, spaceDelimited, pipeDelimited, deepObject)"
        )),
    }
}

/// A cookie parameter (`form`, the only cookie style in OpenAPI 3.0/3.1): `name=value`
/// pairs, percent-encoded, to be joined by `; `. `explode: true` with an array or
/// object is an error: OpenAPI 3.1.1 Appendix D calls `form` incorrect for several
/// cookie values (it would join them with `&`).
pub fn cookie_pairs(
    name: &str,
    style: Style,
    explode: bool,
    value: &Value,
) -> Result<Vec<String>, SerError> {
    if style != Style::Form {
        return err(format!(
            "style `{style}` is not defined for cookie parameters (form)"
        ));
    }
    let shape = Shape::of(value)?;
    if explode && matches!(shape, Shape::List(_) | Shape::Pairs(_)) {
        return err(
            "style `form` with explode: true cannot carry several cookie values (OpenAPI 3.1.1 Appendix D); the parameter needs explode: false",
        );
    }
    query_pairs(name, Style::Form, false, value, Encoding::Unreserved)
}

/// The (name, value) pairs of a style-serialized `multipart/form-data` member, without
/// percent-encoding (OpenAPI Appendix C: names go to `Content-Disposition`, values to
/// the part bodies; `?`, `=` and `&` are not used). Delimiters are the raw characters
/// (`,`, space, `|`).
pub fn multipart_pairs(
    name: &str,
    style: Style,
    explode: bool,
    value: &Value,
) -> Result<Vec<(String, String)>, SerError> {
    let shape = Shape::of(value)?;
    let joined = |items: &[String], sep: &str| items.join(sep);
    let joined_pairs = |pairs: &[(String, String)], sep: &str| {
        pairs
            .iter()
            .flat_map(|(k, v)| [k.as_str(), v.as_str()])
            .collect::<Vec<_>>()
            .join(sep)
    };
    match style {
        Style::Form => Ok(match shape {
            Shape::Undefined => vec![(name.to_string(), String::new())],
            Shape::Primitive(p) => vec![(name.to_string(), p)],
            Shape::List(items) if explode => {
                items.into_iter().map(|i| (name.to_string(), i)).collect()
            }
            Shape::List(items) => vec![(name.to_string(), joined(&items, ","))],
            Shape::Pairs(pairs) if explode => pairs,
            Shape::Pairs(pairs) => vec![(name.to_string(), joined_pairs(&pairs, ","))],
        }),
        Style::SpaceDelimited | Style::PipeDelimited => {
            let sep = if style == Style::SpaceDelimited {
                " "
            } else {
                "|"
            };
            if explode {
                return err(format!(
                    "style `{style}` with explode: true is undefined in OpenAPI"
                ));
            }
            match shape {
                Shape::List(items) => Ok(vec![(name.to_string(), joined(&items, sep))]),
                Shape::Pairs(pairs) => Ok(vec![(name.to_string(), joined_pairs(&pairs, sep))]),
                other => err(format!(
                    "style `{style}` serializes arrays and objects, not {}",
                    other.kind()
                )),
            }
        }
        Style::DeepObject => match shape {
            Shape::Pairs(pairs) if explode => Ok(pairs
                .into_iter()
                .map(|(k, v)| (format!("{name}[{k}]"), v))
                .collect()),
            other => err(format!(
                "style `deepObject` needs explode: true and an object with primitive members, not {}",
                other.kind()
            )),
        },
        other => err(format!(
            "style `{other}` is not defined for form members (form, spaceDelimited, pipeDelimited, deepObject)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn percent_encoding_sets() {
        assert_eq!(
            encode("a b/c?d#e%", Encoding::Unreserved),
            "a%20b%2Fc%3Fd%23e%25"
        );
        assert_eq!(encode("é", Encoding::Unreserved), "%C3%A9");
        assert_eq!(encode("-._~", Encoding::Unreserved), "-._~");
        // allowReserved keeps reserved characters except []# and &=+, and %XX triples.
        assert_eq!(
            encode("a/b?c:d@e!$'()*,;[x]#&=+%2F%zz", Encoding::QueryReserved),
            "a/b?c:d@e!$'()*,;%5Bx%5D%23%26%3D%2B%2F%25zz"
        );
        assert_eq!(encode("50%", Encoding::QueryReserved), "50%25");
        assert_eq!(encode("%4", Encoding::QueryReserved), "%254");
        let mut s = String::new();
        form_urlencode_into(&mut s, "a b+c*~");
        assert_eq!(s, "a+b%2Bc*%7E");
    }

    #[test]
    fn nested_values_are_errors() {
        assert!(Shape::of(&json!([[1]])).is_err());
        assert!(Shape::of(&json!([null])).is_err());
        assert!(Shape::of(&json!({"a": {"b": 1}})).is_err());
        assert_eq!(Shape::of(&json!({"a": null})), Ok(Shape::Undefined));
        assert_eq!(
            Shape::of(&json!({"a": null, "b": 1})),
            Ok(Shape::Pairs(vec![("b".into(), "1".into())]))
        );
        assert_eq!(Shape::of(&json!(1.5)), Ok(Shape::Primitive("1.5".into())));
    }

    #[test]
    fn styles_outside_their_location_are_errors() {
        assert!(path_expansion("x", Style::Form, false, &json!("a")).is_err());
        assert!(header_value(Style::Matrix, false, &json!("a")).is_err());
        assert!(query_pairs("x", Style::Label, false, &json!("a"), Encoding::Unreserved).is_err());
        assert!(cookie_pairs("x", Style::Simple, false, &json!("a")).is_err());
    }
}
