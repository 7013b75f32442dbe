//! Tests for mutants that survived the crate's tests (issue 33); each expectation is
//! written by hand from the rule quoted beside it.

/// README (`mcpdesc serve`): `--max-response-bytes` defaults to 16 MiB.
#[test]
fn the_default_response_budget_is_16_mib() {
    assert_eq!(crate::DEFAULT_MAX_RESPONSE_BYTES, 16_777_216);
}

/// Only a server URL of another scheme is refused at start ("not an http(s) URL; it is
/// never used"): a relative reference (RFC 3986 §4.2, no scheme) is no such URL, and
/// with a base URL configured the tool has its server, so nothing is said.
#[test]
fn a_relative_server_is_not_refused_as_another_scheme() {
    use super::{BASE, doc};
    use crate::{RestBackend, RestOptions};
    use serde_json::json;
    let d = doc(
        json!({"method": "GET", "path": "/x", "servers": ["/v1"]}),
        json!({}),
    );
    let opts = RestOptions {
        base_url: Some(BASE.into()),
        ..RestOptions::default()
    };
    let b = RestBackend::new(&d, opts).expect("starts");
    let codes: Vec<&str> = b.warnings().iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, Vec::<&str>::new());
}
