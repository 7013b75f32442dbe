//! Tests for mutants that survived the serve crate's unit tests (issue 33); each
//! expectation is written by hand from the rule quoted beside it.

use super::args::ArgsValidator;
use super::catalog::Catalog;
use super::jsonrpc::RequestId;
use super::telemetry::Telemetry;
use mcpdesc_core::{ProtocolRevision, RevisionSet};
use serde_json::{Value, json};
use std::sync::Arc;

/// A description with one Resource and templates `resources/read` must choose among.
fn with_templates(templates: &[&str]) -> Catalog {
    let templates: Vec<Value> = templates
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"uriTemplate": t, "name": format!("t{i}")}))
        .collect();
    let d = json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-11-25"],
        "resources": [
            {"uri": "notes://all", "name": "all"},
            {"uri": "notes://first", "name": "first"}
        ],
        "resourceTemplates": templates});
    Catalog::new(
        Arc::new(d.clone()),
        RevisionSet::from_json(&d["protocolVersions"]),
        50,
    )
}

fn read_target(c: &Catalog, uri: &str) -> Option<String> {
    let v = c.view(ProtocolRevision::V2025_11_25).expect("served");
    v.resource_for(uri).map(|e| {
        let d = e.decl();
        d.get("uri")
            .or_else(|| d.get("uriTemplate"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    })
}

/// A Resource whose `uri` is the requested one is read; of the templates the URI is an
/// RFC 6570 expansion of, the one with the most literal characters wins, whatever its
/// position.
#[test]
fn resources_read_reaches_the_exact_resource_else_the_most_specific_template() {
    for templates in [
        ["notes://{id}", "notes://x{id}", "other://{id}"],
        ["notes://x{id}", "notes://{id}", "other://{id}"],
    ] {
        let c = with_templates(&templates);
        assert_eq!(
            read_target(&c, "notes://first").as_deref(),
            Some("notes://first")
        );
        assert_eq!(
            read_target(&c, "notes://all").as_deref(),
            Some("notes://all")
        );
        // Both `notes` templates expand to `notes://xyz`; `notes://x{id}` has 9 literal
        // characters, `notes://{id}` 8.
        assert_eq!(
            read_target(&c, "notes://xyz").as_deref(),
            Some("notes://x{id}"),
            "{templates:?}"
        );
        // Only `notes://{id}` expands to `notes://abc`.
        assert_eq!(
            read_target(&c, "notes://abc").as_deref(),
            Some("notes://{id}")
        );
        assert_eq!(read_target(&c, "nothing://here"), None);
    }
}

/// A tool name is a metric label of at most 128 bytes, cut at a character boundary.
#[test]
fn a_long_tool_name_is_cut_to_128_bytes_in_the_metrics() {
    let t = Telemetry::metrics_only();
    let id = RequestId::Number("1".into());
    let long = "t".repeat(200);
    let params = json!({"name": long});
    t.request("tools/call", &id, params.as_object(), None)
        .finish(None);
    // 127 ASCII bytes then `é` (2 bytes, 127..129): byte 128 is inside it, so the cut
    // falls back to 127.
    let accented = format!("{}{}", "u".repeat(127), "é".repeat(5));
    let params = json!({"name": accented});
    t.request("tools/call", &id, params.as_object(), None)
        .finish(None);
    let text = t.encode_metrics().unwrap_or_default();
    let label = |v: &str| format!("gen_ai_tool_name=\"{v}\"");
    assert!(text.contains(&label(&"t".repeat(128))), "{text}");
    assert!(!text.contains(&"t".repeat(129)), "{text}");
    assert!(text.contains(&label(&"u".repeat(127))), "{text}");
    assert!(!text.contains('é'), "{text}");
}

/// `unix_now` is the seconds since 1970-01-01T00:00:00Z (it dates sealed sessions).
#[test]
fn unix_now_is_the_clock_in_seconds() {
    let secs = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs()
    };
    let before = secs();
    let now = super::session_seal::unix_now();
    let after = secs();
    assert!(
        before <= now && now <= after,
        "{before} <= {now} <= {after}"
    );
}

/// The validator's `Debug` names the type and hides the compiled schema.
#[test]
fn an_args_validator_debugs_as_its_type() {
    let v = ArgsValidator::compile(&json!({"type": "object"})).expect("compiles");
    assert_eq!(format!("{v:?}"), "ArgsValidator { .. }");
}

/// The start-up line of one served revision: its tools kept and dropped, and the size
/// of the `tools/list` a client gets.
#[test]
fn a_revision_report_reads_as_its_start_up_line() {
    let r = super::report::RevisionReport {
        revision: ProtocolRevision::V2025_06_18,
        kept: 3,
        dropped: 1,
        list: mcpdesc_hosts::Size {
            bytes: 1200,
            tokens: 300,
        },
    };
    assert_eq!(
        r.to_string(),
        "MCP 2025-06-18: 3 tools served, 1 not selected; tools/list 1200 bytes, ~300 tokens"
    );
}

/// An enveloped (2026-07-28) request fixes a fresh connection's era as stateless; a
/// connection that negotiated with `initialize` keeps its revision.
#[test]
fn only_a_fresh_connection_becomes_stateless() {
    use super::{Era, Session, TransportKind};
    let fresh = Session::new(TransportKind::Stdio);
    assert_eq!(fresh.era(), Era::Fresh);
    fresh.lock_modern();
    assert_eq!(fresh.era(), Era::Modern);
    fresh.lock_modern();
    assert_eq!(fresh.era(), Era::Modern);
    let legacy = Session::new(TransportKind::Http);
    legacy.set_era(Era::Legacy(ProtocolRevision::V2025_06_18));
    legacy.lock_modern();
    assert_eq!(legacy.era(), Era::Legacy(ProtocolRevision::V2025_06_18));
}

/// A tool pinned beside the search facade is listed (and callable) as itself; the
/// others are reached through `call_tool` only.
#[test]
fn only_the_pinned_tools_are_pinned() {
    let tool = |n: &str| json!({"name": n, "inputSchema": {"type": "object"}});
    let d = json!({"mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
        "protocolVersions": ["2025-11-25"], "tools": [tool("a"), tool("b")]});
    let c = Catalog::new(
        Arc::new(d.clone()),
        RevisionSet::from_json(&d["protocolVersions"]),
        50,
    );
    let f = super::facade::Facade::build(&c, &["a".to_string()], None).expect("facade");
    assert!(f.is_pinned("a"));
    assert!(!f.is_pinned("b"));
    assert!(!f.is_pinned("search_tools"));
}

/// A loopback OTLP/HTTP receiver: answers every request `200` with an empty
/// (valid, empty protobuf) body and sends each request line to the returned channel.
fn otlp_receiver() -> (u16, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("bound").port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let tx = tx.clone();
            std::thread::spawn(move || {
                let mut r = BufReader::new(stream);
                loop {
                    let mut first = String::new();
                    if r.read_line(&mut first).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0usize;
                    loop {
                        let mut h = String::new();
                        if r.read_line(&mut h).unwrap_or(0) == 0 {
                            return;
                        }
                        let h = h.trim_end();
                        if h.is_empty() {
                            break;
                        }
                        if let Some((n, v)) = h.split_once(':')
                            && n.eq_ignore_ascii_case("content-length")
                        {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if r.read_exact(&mut body).is_err() {
                        return;
                    }
                    let _ = tx.send(first.trim_end().to_string());
                    let ok = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
                    if r.get_mut().write_all(ok.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, rx)
}

/// `Telemetry::flush` "exports the spans ended so far (blocks until the exporter has
/// sent them)": once it returns, the receiver has had the POST to `/v1/traces`, long
/// before the batch processor's own 5 s schedule and without a shutdown.
#[test]
fn flush_exports_the_ended_spans_before_it_returns() {
    let (port, requests) = otlp_receiver();
    let t = Telemetry::start(&super::telemetry::TelemetryOptions {
        metrics: false,
        otlp_endpoint: Some(format!("http://127.0.0.1:{port}")),
    })
    .expect("starts");
    t.request("ping", &RequestId::Number("1".into()), None, None)
        .finish(None);
    t.flush();
    assert_eq!(
        requests.try_recv().as_deref(),
        Ok("POST /v1/traces HTTP/1.1")
    );
    t.shutdown();
}
