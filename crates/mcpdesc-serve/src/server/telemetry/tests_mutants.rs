//! Tests for mutants of the metric label sets' one-word hash that survived every
//! behavioural test (issue 33): a hash that ignores its fields still keeps the family's
//! map correct (`Eq` decides), only every series then shares one bucket. Each label set
//! here must hash like its equal and unlike a set differing in any one field.

use super::*;
use std::hash::{BuildHasher as _, BuildHasherDefault, DefaultHasher};

/// The hash a `HashMap` with std's hasher would give `value` (deterministic: no seed).
fn hash_of<T: std::hash::Hash>(value: &T) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(value)
}

/// `base` hashes like its clone, and unlike each of `others` (every one differing from
/// it in exactly one field).
fn every_field_feeds_the_hash<T: std::hash::Hash + Clone + Eq + fmt::Debug>(
    base: &T,
    others: &[T],
) {
    assert_eq!(hash_of(base), hash_of(&base.clone()));
    for other in others {
        assert_ne!(base, other);
        assert_ne!(hash_of(base), hash_of(other), "{base:?} and {other:?}");
    }
}

#[test]
fn every_operation_label_feeds_its_hash() {
    let base = OperationLabels {
        method: "tools/call",
        tool: Some(InlineText::from("get_pet")),
        revision: Some(ProtocolRevision::V2025_11_25),
        error_type: None,
    };
    every_field_feeds_the_hash(
        &base,
        &[
            OperationLabels {
                method: "prompts/get",
                ..base.clone()
            },
            OperationLabels {
                tool: Some(InlineText::from("add_pet")),
                ..base.clone()
            },
            OperationLabels {
                tool: None,
                ..base.clone()
            },
            OperationLabels {
                revision: Some(ProtocolRevision::V2026_07_28),
                ..base.clone()
            },
            OperationLabels {
                error_type: Some("tool_error".into()),
                ..base.clone()
            },
        ],
    );
}

#[test]
fn every_upstream_label_feeds_its_hash() {
    let base = UpstreamLabels {
        tool: "get_pet".into(),
        method: "GET".into(),
        status: Some(200),
    };
    every_field_feeds_the_hash(
        &base,
        &[
            UpstreamLabels {
                tool: "add_pet".into(),
                ..base.clone()
            },
            UpstreamLabels {
                method: "POST".into(),
                ..base.clone()
            },
            UpstreamLabels {
                status: Some(404),
                ..base.clone()
            },
            UpstreamLabels {
                status: None,
                ..base.clone()
            },
        ],
    );
}

/// README (`--otlp-endpoint`): without `OTEL_BSP_*` (no test sets them) the exporter's
/// queue holds 8,192 spans, and the span recorder's buffers as many together.
#[test]
fn the_recorders_queue_is_the_batch_processors_8192() {
    assert_eq!(queue_size(), 8192);
}

/// A traced telemetry says so in its `Debug`; its shutdown reports the spans it had to
/// drop: none after a clean run, then the one ended after the exporter had stopped.
#[test]
fn shutdown_reports_the_spans_dropped_after_it() {
    // A closed port: nothing is exported, so nothing waits on a receiver.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a port");
    let t = Telemetry::start(&TelemetryOptions {
        metrics: false,
        otlp_endpoint: Some(format!("http://127.0.0.1:{port}")),
    })
    .expect("starts");
    assert!(format!("{t:?}").contains("traces: true"), "{t:?}");
    assert_eq!(t.shutdown(), 0);
    t.request("ping", &RequestId::Number("1".into()), None, None)
        .finish(None);
    assert_eq!(t.shutdown(), 1);
}
