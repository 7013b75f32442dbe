//! Media types: which ones carry one JSON value, which carry a stream of them, and how
//! a request or response body of each is serialized. The importer (what it declares)
//! and the gateway (what it parses) read the same answers here, so a tool never
//! declares an output schema for a body the gateway will not parse as JSON.
//!
//! The decisions, by registry:
//! - **JSON** is `application/json` (RFC 8259 §11) and every type with the `+json`
//!   structured syntax suffix (RFC 6839 §3.1, e.g. `application/problem+json`,
//!   `application/merge-patch+json`). Type and subtype compare case-insensitively and
//!   parameters (`; charset=utf-8`) are ignored (RFC 6838 §4.2, RFC 9110 §8.3.1).
//! - **`text/json`** is not registered (RFC 8259 registers only `application/json`), so
//!   it is not JSON here: its body is text.
//! - **JSON streams** (`application/x-ndjson`, `application/jsonl` (JSON Lines),
//!   `application/json-seq` (RFC 7464)) hold a sequence of JSON values, not one, so
//!   they are not JSON: no single schema describes the body and a JSON parser rejects
//!   it. On the wire they are UTF-8 text ([`BodyKind::Text`]).

/// `type/subtype` lower-cased, without parameters or surrounding whitespace.
///
/// ```
/// assert_eq!(mcpdesc_core::media::essence(" Application/JSON ; charset=utf-8"), "application/json");
/// ```
pub fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Whether a body of `media_type` is one JSON value: `application/json` or any
/// `+json` type (RFC 6839). Parameters are ignored, case does not matter.
///
/// ```
/// use mcpdesc_core::media::is_json;
/// assert!(is_json("application/problem+json; charset=utf-8"));
/// assert!(!is_json("application/x-ndjson"));
/// ```
pub fn is_json(media_type: &str) -> bool {
    let e = essence(media_type);
    match e.split_once('/') {
        Some((ty, sub)) if !ty.is_empty() && !sub.is_empty() => {
            e == "application/json" || (sub.len() > "+json".len() && sub.ends_with("+json"))
        }
        _ => false,
    }
}

/// Whether a body of `media_type` is a stream of JSON values: newline-delimited JSON
/// (`application/x-ndjson`), JSON Lines (`application/jsonl`) or an RFC 7464 JSON text
/// sequence (`application/json-seq`). Such a body is not [`is_json`].
pub fn is_json_stream(media_type: &str) -> bool {
    matches!(
        essence(media_type).as_str(),
        "application/x-ndjson" | "application/jsonl" | "application/json-seq"
    )
}

/// Whether a body of `media_type` is the `multipart/form-data` of HTML forms.
pub fn is_form_data(media_type: &str) -> bool {
    essence(media_type) == "multipart/form-data"
}

/// How a body of a media type is serialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// One JSON value ([`is_json`]).
    Json,
    /// `application/x-www-form-urlencoded`.
    FormUrlencoded,
    /// Any `multipart/*` type.
    Multipart,
    /// Characters: `text/*`, XML (`*/xml`, `+xml`) and JSON streams.
    Text,
    /// Bytes: everything else (base64 in a tool's arguments).
    Binary,
}

impl BodyKind {
    /// Classifies a media type (parameters ignored, case-insensitive).
    ///
    /// ```
    /// use mcpdesc_core::media::BodyKind;
    /// assert_eq!(BodyKind::of("Application/Merge-Patch+JSON"), BodyKind::Json);
    /// assert_eq!(BodyKind::of("application/x-ndjson"), BodyKind::Text);
    /// assert_eq!(BodyKind::of("image/png"), BodyKind::Binary);
    /// ```
    pub fn of(media_type: &str) -> BodyKind {
        let base = essence(media_type);
        if is_json(&base) {
            BodyKind::Json
        } else if base == "application/x-www-form-urlencoded" {
            BodyKind::FormUrlencoded
        } else if base.starts_with("multipart/") {
            BodyKind::Multipart
        } else if base.starts_with("text/")
            || base.ends_with("/xml")
            || base.ends_with("+xml")
            || is_json_stream(&base)
        {
            BodyKind::Text
        } else {
            BodyKind::Binary
        }
    }

    /// Whether the body is a set of named members (form-urlencoded or multipart).
    pub fn is_form(self) -> bool {
        matches!(self, BodyKind::FormUrlencoded | BodyKind::Multipart)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_per_rfc_8259_and_6839() {
        for mt in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "APPLICATION/JSON;CHARSET=UTF-8",
            " application/json ",
            "application/problem+json",
            "application/merge-patch+json",
            "application/vnd.github.v3+json",
            "application/VND.API+JSON; ext=\"x\"",
            "application/mcp-description+json",
        ] {
            assert!(is_json(mt), "{mt}");
            assert_eq!(BodyKind::of(mt), BodyKind::Json, "{mt}");
            assert!(!is_json_stream(mt), "{mt}");
        }
        for mt in [
            "text/json",
            "application/x-ndjson",
            "application/jsonl",
            "application/json-seq",
            "application/jsonpath",
            "application/json5",
            "application/x-json-stream",
            "application/+json",
            "+json",
            "json",
            "",
            "application/octet-stream",
            "text/plain; x=application/json",
        ] {
            assert!(!is_json(mt), "{mt}");
        }
    }

    #[test]
    fn json_streams_are_text_not_json() {
        for mt in [
            "application/x-ndjson",
            "Application/X-NDJSON; charset=utf-8",
            "application/jsonl",
            "application/json-seq",
        ] {
            assert!(is_json_stream(mt), "{mt}");
            assert!(!is_json(mt), "{mt}");
            assert_eq!(BodyKind::of(mt), BodyKind::Text, "{mt}");
        }
        assert!(!is_json_stream("application/json"));
        assert!(!is_json_stream("text/json"));
    }

    #[test]
    fn body_kinds() {
        let cases = [
            ("text/json", BodyKind::Text),
            ("text/csv", BodyKind::Text),
            ("Text/Plain; charset=utf-8", BodyKind::Text),
            ("application/xml", BodyKind::Text),
            ("application/atom+xml", BodyKind::Text),
            (
                "application/x-www-form-urlencoded",
                BodyKind::FormUrlencoded,
            ),
            (
                "Application/X-WWW-Form-Urlencoded; charset=utf-8",
                BodyKind::FormUrlencoded,
            ),
            ("multipart/form-data; boundary=x", BodyKind::Multipart),
            ("multipart/mixed", BodyKind::Multipart),
            ("image/png", BodyKind::Binary),
            ("application/octet-stream", BodyKind::Binary),
            ("application/pdf", BodyKind::Binary),
        ];
        for (mt, kind) in cases {
            assert_eq!(BodyKind::of(mt), kind, "{mt}");
        }
        assert!(BodyKind::Multipart.is_form() && BodyKind::FormUrlencoded.is_form());
        assert!(!BodyKind::Json.is_form());
        assert!(is_form_data("Multipart/Form-Data; boundary=a"));
        assert!(!is_form_data("multipart/mixed"));
    }
}
