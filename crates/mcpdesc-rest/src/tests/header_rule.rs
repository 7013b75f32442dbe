//! The one header rule, held to RFC 9110 §7.6.1 ("Connection"): the field names the
//! section lists as connection-specific (`Connection`, `Proxy-Connection`,
//! `Keep-Alive`, `TE`, `Transfer-Encoding`, `Upgrade`), the fields a `Connection` field
//! names as its connection options ("a proxy or gateway MUST … remove any header or
//! trailer field(s) from the message with the same name as the connection-option"),
//! and the same answer whether a header is configured or forwarded.

use super::{doc, header, request_with};
use crate::{HeaderRule, RestBackend, RestOptions, Secret};
use serde_json::json;

#[test]
fn the_names_rfc_9110_lists_are_hop_by_hop_in_any_case() {
    for n in [
        "Connection",
        "proxy-connection",
        "Keep-Alive",
        "TE",
        "Transfer-Encoding",
        "UPGRADE",
    ] {
        assert_eq!(HeaderRule::of(n), HeaderRule::HopByHop, "{n}");
    }
    assert_eq!(HeaderRule::of("Host"), HeaderRule::GatewaySets);
    assert_eq!(HeaderRule::of("content-length"), HeaderRule::GatewaySets);
    for n in ["Accept", "X-Trace", "Authorization", "Cookie", "Trailers"] {
        assert_eq!(HeaderRule::of(n), HeaderRule::EndToEnd, "{n}");
    }
}

#[test]
fn a_connection_option_makes_the_field_it_names_hop_by_hop() {
    // "Connection: close, X-Trace" (options are case-insensitive tokens, §7.6.1).
    let conn = ["close, x-TRACE", "keep-alive"];
    assert_eq!(
        HeaderRule::in_message("X-Trace", conn),
        HeaderRule::HopByHop
    );
    assert_eq!(
        HeaderRule::in_message("X-Other", conn),
        HeaderRule::EndToEnd
    );
    assert_eq!(HeaderRule::in_message("X-Trace", []), HeaderRule::EndToEnd);
}

#[test]
fn forwarded_fields_follow_the_rule_and_the_forwarded_connection_options() {
    let d = doc(
        json!({"method": "GET", "path": "/x", "arguments": {},
               "response": {"status": "200", "contentType": "application/json"}}),
        json!({}),
    );
    let forwarded = [
        ("Connection".to_string(), "close, X-Trace".to_string()),
        ("X-Trace".to_string(), "abc".to_string()),
        ("Keep-Alive".to_string(), "timeout=5".to_string()),
        ("Upgrade".to_string(), "websocket".to_string()),
        ("X-Other".to_string(), "kept".to_string()),
    ];
    let r = request_with(&d, RestOptions::default(), json!({}), &forwarded).expect("sent");
    assert_eq!(header(&r, "X-Other"), Some("kept"));
    for gone in ["Connection", "X-Trace", "Keep-Alive", "Upgrade"] {
        assert_eq!(header(&r, gone), None, "{gone} was forwarded");
    }
}

#[test]
fn a_configured_field_under_the_same_rule_is_refused() {
    let d = doc(
        json!({"method": "GET", "path": "/x", "arguments": {},
               "response": {"status": "200", "contentType": "application/json"}}),
        json!({}),
    );
    for n in ["Keep-Alive", "TE", "Upgrade", "Host"] {
        let opts = RestOptions {
            static_headers: vec![(n.to_string(), Secret::new("v"))],
            ..RestOptions::default()
        };
        assert!(RestBackend::new(&d, opts).is_err(), "{n} was accepted");
    }
}
