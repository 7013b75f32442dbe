//! The small rules: credential variable names, allowed hosts, the log line, and which
//! JSON Schema dialect judges an output before tool schemas had one.

use super::*;
use crate::call::{CallLog, UpstreamLog};
use crate::output::{OutputCheck, Verdict};
use crate::{Origin, credential_env_var};
use std::time::Duration;

#[test]
fn credential_variables_are_upper_cased_with_underscores() {
    assert_eq!(credential_env_var("api-key"), "MCPDESC_CREDENTIAL_API_KEY");
    assert_eq!(
        credential_env_var("oauth2.v1"),
        "MCPDESC_CREDENTIAL_OAUTH2_V1"
    );
    assert_eq!(
        credential_env_var("Petstore_auth"),
        "MCPDESC_CREDENTIAL_PETSTORE_AUTH"
    );
    assert_eq!(credential_env_var("é"), "MCPDESC_CREDENTIAL__");
}

#[test]
fn allowed_hosts_by_host_port_or_origin() {
    let mut a = crate::origin::Allowlist::default();
    let o = |s: &str| Origin::of_url(s).expect("origin");
    // `:80` is written out: that port, either scheme (the URL parser drops it).
    a.add_allow_host("a.example:80").expect("host:80");
    assert!(a.allows(&o("http://a.example/")));
    assert!(a.allows(&o("https://a.example:80/")));
    assert!(!a.allows(&o("https://a.example/")));
    assert!(!a.allows(&o("http://b.example/")));
    for bad in ["u@a.example", "a.example?x", "a.example/p", "", "http://"] {
        let e = a.add_allow_host(bad).expect_err(bad);
        assert!(e.starts_with(&format!("`{bad}`")), "{e}");
    }
    assert_eq!(
        a.add_allow_host("a.example?x"),
        Err("`a.example?x` is not HOST, HOST:PORT or an http(s) origin".to_string())
    );
    // Host names compare case-insensitively.
    a.add_allow_host("API.Example").expect("host");
    assert!(a.allows(&o("http://api.example:8080/")));
}

#[test]
fn the_log_line_says_what_happened() {
    let mut l = CallLog {
        upstream: Some(UpstreamLog {
            method: "POST".into(),
            url: "https://a.example/x".into(),
            status: None,
            latency: Duration::from_micros(1500),
            attempts: 1,
        }),
        is_error: true,
        error: Some("timed out".into()),
        warnings: vec!["w1".into(), "w2".into()],
        notes: vec!["n".into()],
    };
    assert_eq!(
        l.to_string(),
        "POST https://a.example/x -> no response (1.5 ms); error: timed out; warning: w1; warning: w2; n"
    );
    l.upstream = None;
    l.warnings.clear();
    assert_eq!(l.to_string(), "not sent upstream; error: timed out; n");
}

#[test]
fn output_schemas_before_tool_schema_dialects_are_judged_by_draft_07_too() {
    // draft-07 ignores `$ref`'s siblings; 2020-12 applies them.
    let schema = json!({"type": "object", "properties": {"v": {"$ref": "#/definitions/S", "type": "integer"}},
                        "definitions": {"S": {"type": "string"}}});
    let check = OutputCheck::new(Arc::new(json!({ "s": schema })), "/s".into());
    let value = json!({"v": "x"});
    assert_eq!(
        check.check(&value, ProtocolRevision::V2025_06_18),
        Verdict::Valid
    );
    assert!(matches!(
        check.check(&value, ProtocolRevision::V2025_11_25),
        Verdict::Invalid(_)
    ));
    // A declared `$schema` is the dialect, at any revision.
    let mut declared = schema.clone();
    declared["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    let check = OutputCheck::new(Arc::new(json!({ "s": declared })), "/s".into());
    assert!(matches!(
        check.check(&value, ProtocolRevision::V2025_06_18),
        Verdict::Invalid(_)
    ));
    // At most three violations are listed, each at its instance path.
    let three = json!({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}, "d": {"type": "string"}}});
    let check = OutputCheck::new(Arc::new(json!({ "s": three })), "/s".into());
    match check.check(
        &json!({"a": 1, "b": 1, "c": 1, "d": 1}),
        ProtocolRevision::V2026_07_28,
    ) {
        Verdict::Invalid(e) => {
            assert_eq!(e.len(), 3, "{e:?}");
            assert!(e[0].starts_with("/a: "), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    // A pointer that names nothing: the schema is `null`, which does not compile.
    let none = OutputCheck::new(Arc::new(json!({})), "/nope".into());
    assert_eq!(none.schema(), &Value::Null);
}
