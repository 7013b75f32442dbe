//! HTTP response → Tool Result for the call's revision (pure). See the
//! [`crate`] docs for the rules; revision facts come from [`Feature`].

use super::ValidateOutput;
use super::output::Verdict;
use super::plan::{BodyKind, ToolPlan, essence};
use crate::call::{complete, error_result, text_block};
use mcpdesc_core::{Feature, ProtocolRevision};
use serde_json::{Map, Value, json};

/// What a response body of a media type becomes in a Tool Result: one reader, on
/// core's [`BodyKind`] (the request side's classification), for every branch below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResponseKind {
    /// One JSON value: parsed, structured when the tool declares an output.
    Json,
    /// Characters (`text/*`, XML): a text block. JSON streams are not read as text here:
    /// they stay an embedded resource, as before.
    Text,
    /// `image/*`: an image block.
    Image,
    /// `audio/*`: an audio block where the revision has one.
    Audio,
    /// Anything else: an embedded blob resource.
    Other,
}

impl ResponseKind {
    /// The kind of a media type's essence (lower case, no parameters).
    fn of(essence: &str) -> ResponseKind {
        match BodyKind::of(essence) {
            BodyKind::Json => ResponseKind::Json,
            BodyKind::Text if !mcpdesc_core::media::is_json_stream(essence) => ResponseKind::Text,
            _ if essence.starts_with("image/") => ResponseKind::Image,
            _ if essence.starts_with("audio/") => ResponseKind::Audio,
            _ => ResponseKind::Other,
        }
    }
}

/// An upstream response as read (the body bounded by the client).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    /// The canonical reason phrase of `status`, when it has one.
    pub reason: Option<String>,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// The body was cut at the read limit (error responses only).
    pub truncated: bool,
}

/// The Tool Result and what to log.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapped {
    pub result: Value,
    pub is_error: bool,
    /// Why the result is an error, for the log.
    pub error: Option<String>,
    pub warnings: Vec<String>,
}

fn status_line(r: &HttpResponse) -> String {
    match &r.reason {
        Some(reason) => format!("HTTP {} {reason}", r.status),
        None => format!("HTTP {}", r.status),
    }
}

/// Cuts `text` to `budget` bytes at a character boundary, saying how much was left out.
pub fn cut(text: &str, budget: usize, total: usize, more: bool) -> String {
    if text.len() <= budget && !more {
        return text.to_string();
    }
    let mut end = budget.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n… (body cut: {end} of {}{} bytes shown)",
        &text[..end],
        total,
        if more { "+" } else { "" }
    )
}

/// Maps a response. `url` is the redacted request URL (an embedded resource's `uri`).
pub fn map(
    plan: &ToolPlan,
    rev: ProtocolRevision,
    resp: &HttpResponse,
    url: &str,
    mode: ValidateOutput,
) -> Mapped {
    let ct = resp.content_type.as_deref().map(essence);
    if !(200..300).contains(&resp.status) {
        let body = if resp.body.is_empty() {
            String::new()
        } else {
            let text = match (ct.as_deref(), resp.truncated) {
                (Some(c), false) if ResponseKind::of(c) == ResponseKind::Json => {
                    serde_json::from_slice::<Value>(&resp.body)
                        .ok()
                        .and_then(|v| serde_json::to_string_pretty(&v).ok())
                }
                _ => None,
            }
            .unwrap_or_else(|| String::from_utf8_lossy(&resp.body).into_owned());
            let total = resp.body.len();
            format!(
                "\n\n{}",
                cut(&text, super::ERROR_BODY_BUDGET, total, resp.truncated)
            )
        };
        let msg = format!("The API answered {}.{body}", status_line(resp));
        return Mapped {
            result: error_result(rev, &msg),
            is_error: true,
            error: Some(status_line(resp)),
            warnings: Vec::new(),
        };
    }
    let wants_structured = plan.output.is_some() && rev.has(Feature::StructuredContent);
    let missing_structured = |why: String| -> Mapped {
        if mode == ValidateOutput::Off || !wants_structured {
            return ok(rev, vec![text_block(why.clone())], None, vec![]);
        }
        let msg = format!(
            "The API answered {} but the tool declares an outputSchema: {why}",
            status_line(resp)
        );
        Mapped {
            result: error_result(rev, &msg),
            is_error: true,
            error: Some(msg),
            warnings: Vec::new(),
        }
    };
    if resp.body.is_empty() {
        return missing_structured(format!(
            "{}: the request succeeded; the response has no body.",
            status_line(resp)
        ));
    }
    match ct.as_deref() {
        Some(c) if ResponseKind::of(c) == ResponseKind::Json => {
            let body: Value = match serde_json::from_slice(&resp.body) {
                Ok(v) => v,
                Err(e) => {
                    let msg = format!(
                        "The API answered {} with Content-Type {c}, but the body is not JSON ({e}).\n\n{}",
                        status_line(resp),
                        cut(
                            &String::from_utf8_lossy(&resp.body),
                            super::ERROR_BODY_BUDGET,
                            resp.body.len(),
                            false
                        )
                    );
                    return Mapped {
                        result: error_result(rev, &msg),
                        is_error: true,
                        error: Some(format!("invalid JSON under {c}")),
                        warnings: Vec::new(),
                    };
                }
            };
            json_result(plan, rev, body, mode, wants_structured)
        }
        Some(c) if ResponseKind::of(c) == ResponseKind::Text => {
            if wants_structured {
                return missing_structured(String::from_utf8_lossy(&resp.body).into_owned());
            }
            ok(
                rev,
                vec![text_block(String::from_utf8_lossy(&resp.body))],
                None,
                vec![],
            )
        }
        Some(c) if ResponseKind::of(c) == ResponseKind::Image && !wants_structured => ok(
            rev,
            vec![
                json!({"type": "image", "data": super::auth::base64_std(&resp.body), "mimeType": c}),
            ],
            None,
            vec![],
        ),
        Some(c)
            if ResponseKind::of(c) == ResponseKind::Audio
                && rev.has(Feature::AudioContent)
                && !wants_structured =>
        {
            ok(
                rev,
                vec![
                    json!({"type": "audio", "data": super::auth::base64_std(&resp.body), "mimeType": c}),
                ],
                None,
                vec![],
            )
        }
        other => {
            if wants_structured {
                return missing_structured(format!(
                    "the response is {} bytes of {}",
                    resp.body.len(),
                    other.unwrap_or("content without a Content-Type")
                ));
            }
            if other.is_none() {
                if let Ok(t) = std::str::from_utf8(&resp.body) {
                    return ok(rev, vec![text_block(t)], None, vec![]);
                }
            }
            let mime = other.unwrap_or("application/octet-stream");
            ok(
                rev,
                vec![json!({"type": "resource", "resource": {
                    "uri": url,
                    "mimeType": mime,
                    "blob": super::auth::base64_std(&resp.body),
                }})],
                None,
                vec![],
            )
        }
    }
}

fn ok(
    rev: ProtocolRevision,
    content: Vec<Value>,
    structured: Option<Value>,
    warnings: Vec<String>,
) -> Mapped {
    let mut m = Map::new();
    m.insert("content".into(), Value::Array(content));
    if let Some(s) = structured {
        m.insert("structuredContent".into(), s);
    }
    Mapped {
        result: complete(rev, m),
        is_error: false,
        error: None,
        warnings,
    }
}

fn json_result(
    plan: &ToolPlan,
    rev: ProtocolRevision,
    body: Value,
    mode: ValidateOutput,
    wants_structured: bool,
) -> Mapped {
    let structured = match &plan.result_wrapper {
        Some(w) => {
            let mut m = Map::new();
            m.insert(w.clone(), body);
            Value::Object(m)
        }
        None => body,
    };
    let text = structured.to_string();
    let can_structure = rev.has(Feature::StructuredContent)
        && (structured.is_object() || rev.has(Feature::OutputSchemaAnyRoot));
    if !wants_structured {
        // No outputSchema: structured content where the revision can carry it.
        return ok(
            rev,
            vec![text_block(text)],
            can_structure.then_some(structured),
            vec![],
        );
    }
    let mut warnings = Vec::new();
    if mode != ValidateOutput::Off {
        let verdict = match &plan.output {
            Some(o) if can_structure => o.check(&structured, rev),
            Some(_) => Verdict::Invalid(vec![
                "(root): the body is not a JSON object, which structuredContent must be at this revision".into(),
            ]),
            None => Verdict::Valid,
        };
        match verdict {
            Verdict::Valid => {}
            Verdict::Unchecked(why) => warnings.push(why),
            Verdict::Invalid(errs) => {
                let what = format!(
                    "the API's response does not match the tool's outputSchema: {}",
                    errs.join("; ")
                );
                if mode == ValidateOutput::Strict || !can_structure {
                    let msg = if mode == ValidateOutput::Strict {
                        format!("{what} (output validation is strict)")
                    } else {
                        format!(
                            "{what} (a result of a tool with an outputSchema must carry matching structured content)"
                        )
                    };
                    return Mapped {
                        result: error_result(rev, &msg),
                        is_error: true,
                        error: Some(what),
                        warnings,
                    };
                }
                warnings.push(what);
            }
        }
    } else if !can_structure {
        return ok(rev, vec![text_block(text)], None, vec![]);
    }
    ok(rev, vec![text_block(text)], Some(structured), warnings)
}

#[cfg(test)]
mod kind_tests {
    use super::ResponseKind;

    /// Hand-written from RFC 8259 / RFC 6839 (`+json`), RFC 7303 (`*/xml`, `+xml`) and
    /// the top-level types of RFC 6838; a JSON stream stays a resource.
    #[test]
    fn one_reader_for_every_branch() {
        for (m, k) in [
            ("application/json", ResponseKind::Json),
            ("application/problem+json", ResponseKind::Json),
            ("text/html", ResponseKind::Text),
            ("application/xml", ResponseKind::Text),
            ("application/atom+xml", ResponseKind::Text),
            ("application/x-ndjson", ResponseKind::Other),
            ("image/png", ResponseKind::Image),
            ("audio/mpeg", ResponseKind::Audio),
            ("application/pdf", ResponseKind::Other),
        ] {
            assert_eq!(ResponseKind::of(m), k, "{m}");
        }
    }
}
