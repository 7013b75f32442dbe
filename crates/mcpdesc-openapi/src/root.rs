//! The description's root from the spec's root: Info (§5) from `info`, and the tag
//! catalogue (§13.3) from `tags` and the tags the operations use.
//!
//! Only what the output can carry is copied: contact and license URLs that are RFC 3986
//! URIs, e-mail addresses of a conservative shape (the output's `format: uri` /
//! `format: email` would reject the rest: fuzzer findings).

use crate::diag::Diags;
use crate::site::OpSite;
use mcpdesc_validate::{StringFormat, format_holds};
use serde_json::{Map, Value, json};

/// Info from the spec's `info`: a slug of the title as `name` (`openapi-server` when
/// there is none), `version` (`0.0.0` with a warning when missing), title, description,
/// contact and license where valid.
pub(crate) fn info(root: &Value, diags: &mut Diags) -> Value {
    let i = root.get("info");
    let s = |k: &str| {
        i.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let mut out = Map::new();
    let title = s("title");
    let slug: String = title
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    out.insert(
        "name".into(),
        json!(if slug.is_empty() {
            "openapi-server".to_string()
        } else {
            slug
        }),
    );
    let version = match i.and_then(|i| i.get("version")) {
        Some(Value::String(v)) if !v.trim().is_empty() => v.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => {
            diags.warn(
                0,
                "openapi-info-version",
                "`info.version` is missing or empty; using `0.0.0`",
                "/info",
            );
            "0.0.0".into()
        }
    };
    out.insert("version".into(), json!(version));
    if let Some(t) = title {
        out.insert("title".into(), json!(t));
    }
    if let Some(d) = s("description") {
        out.insert("description".into(), json!(d));
    }
    if let Some(Value::Object(c)) = i.and_then(|i| i.get("contact")) {
        let mut m = Map::new();
        if let Some(n) = c.get("name").and_then(Value::as_str) {
            m.insert("name".into(), json!(n));
        }
        if let Some(u) = c
            .get("url")
            .and_then(Value::as_str)
            .filter(|u| is_abs_url(u))
        {
            m.insert("url".into(), json!(u));
        }
        if let Some(e) = c
            .get("email")
            .and_then(Value::as_str)
            .filter(|e| looks_like_email(e))
        {
            m.insert("email".into(), json!(e));
        }
        if !m.is_empty() {
            out.insert("contact".into(), Value::Object(m));
        }
    }
    if let Some(Value::Object(l)) = i.and_then(|i| i.get("license")) {
        if let Some(n) = l
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty())
        {
            let mut m = Map::new();
            m.insert("name".into(), json!(n));
            if let Some(u) = l
                .get("url")
                .and_then(Value::as_str)
                .filter(|u| is_abs_url(u))
            {
                m.insert("url".into(), json!(u));
            }
            out.insert("license".into(), Value::Object(m));
        }
    }
    Value::Object(out)
}

/// An absolute http(s) URL that the output's `format: uri` accepts (quotes or brackets
/// in a URL made imports non-conforming: fuzzer finding).
fn is_abs_url(u: &str) -> bool {
    let after_scheme = u
        .strip_prefix("https://")
        .or_else(|| u.strip_prefix("http://"));
    // a host follows the scheme
    after_scheme.is_some_and(|r| !r.is_empty() && !r.starts_with(['/', '?', '#']))
        && format_holds(StringFormat::Uri, u)
}

/// An address the output's `format: email` accepts, checked by the validator itself
/// (a hand-written dot-atom check let a 100-character domain label through: fuzzer
/// finding), so an address the validator would reject is dropped rather than copied.
fn looks_like_email(e: &str) -> bool {
    format_holds(StringFormat::Email, e)
}

/// Root tag catalogue: the spec's declared tags (first declaration wins), then tags
/// used by tools but not declared (a catalogue must declare every reference, §13.3).
pub(crate) fn tag_catalogue(root: &Value, ops: &[&OpSite<'_>], diags: &mut Diags) -> Option<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
    if let Some(Value::Array(tags)) = root.get("tags") {
        for (i, t) in tags.iter().enumerate() {
            let Some(name) = t
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
            else {
                continue;
            };
            if !names.insert(name.to_string()) {
                diags.warn(
                    0,
                    "openapi-duplicate-tag",
                    format!("tag `{name}` is declared twice; the first declaration is used"),
                    format!("/tags/{i}"),
                );
                continue;
            }
            let mut m = Map::new();
            m.insert("name".into(), json!(name));
            if let Some(d) = t.get("description").and_then(Value::as_str) {
                m.insert("description".into(), json!(d));
            }
            out.push(Value::Object(m));
        }
    }
    for op in ops {
        for t in op.tags() {
            if names.insert(t.clone()) {
                out.push(json!({ "name": t }));
            }
        }
    }
    (!out.is_empty()).then_some(Value::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_and_urls() {
        assert!(looks_like_email("a@b.io"));
        assert!(!looks_like_email("a.b.io"));
        assert!(!looks_like_email("pets@examp\"swagger\"le.com"));
        // a DNS label is at most 63 octets (RFC 1035 2.3.4): fuzzer finding
        let long = format!("pets@exa{}mple.com", "T".repeat(100));
        assert!(!looks_like_email(&long));
        assert!(looks_like_email(&format!("pets@{}.com", "a".repeat(63))));
        assert!(!looks_like_email(&format!("pets@{}.com", "a".repeat(64))));
        assert!(is_abs_url("https://x.io"));
        assert!(is_abs_url("http://x"));
        assert!(!is_abs_url("www.x.io"));
        // URIs, but not web addresses: a contact or license URL is one
        assert!(!is_abs_url("ftp://example.com/x"));
        assert!(!is_abs_url("urn:isbn:0451450523"));
        // no host
        assert!(!is_abs_url("https://"));
        assert!(!is_abs_url("https:///path"));
        // web addresses, but not URIs
        assert!(!is_abs_url("https://x.io/a b"));
        assert!(!is_abs_url("https://x.io/o\"boolean\"orize"));
    }
}
