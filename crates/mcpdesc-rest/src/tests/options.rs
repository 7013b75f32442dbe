//! What [`RestBackend::new`] refuses or warns about, in the words a user reads, and the
//! `--validate-output` spellings.

use super::*;
use crate::{GatewayError, OptionError, Problem, Secret, ValidateOutput};

fn refused(d: &Value, opts: RestOptions) -> Vec<(String, String)> {
    let e: GatewayError = RestBackend::new(d, opts).expect_err("refused");
    e.problems
        .iter()
        .map(|p| match p {
            Problem::Option(o) => (o.code().to_string(), o.to_string()),
            Problem::Description(d) => (d.code.clone(), format!("{}: {}", d.pointer, d.message)),
        })
        .collect()
}

#[test]
fn validate_output_modes_are_spelled_one_way() {
    for (s, m) in [
        ("off", ValidateOutput::Off),
        ("warn", ValidateOutput::Warn),
        ("strict", ValidateOutput::Strict),
    ] {
        assert_eq!(s.parse::<ValidateOutput>(), Ok(m));
        assert_eq!(m.to_string(), s);
    }
    assert_eq!(
        "Strict".parse::<ValidateOutput>(),
        Err("`Strict` is not an output validation mode (off, warn, strict)".to_string())
    );
    assert_eq!(ValidateOutput::default(), ValidateOutput::Warn);
}

#[test]
fn bad_options_are_refused_with_every_problem() {
    let d = doc(get("/x", json!({})), json!({}));
    let opts = RestOptions {
        static_headers: vec![
            ("Bad Name".into(), Secret::new("v")),
            ("Connection".into(), Secret::new("close")),
            ("content-length".into(), Secret::new("1")),
            ("X-Ok".into(), Secret::new("a\nb")),
            ("X-Space".into(), Secret::new("v ")),
            ("X-Fine".into(), Secret::new("v")),
        ],
        base_url: Some("https://a.example/v1?x=1".into()),
        ..RestOptions::default()
    };
    assert_eq!(
        refused(&d, opts),
        [
            ("serve-header-invalid".into(), "`Bad Name`: not a valid header name".into()),
            (
                "serve-header-invalid".into(),
                "`Connection`: hop-by-hop and framing headers cannot be set".into()
            ),
            (
                "serve-header-invalid".into(),
                "`content-length`: hop-by-hop and framing headers cannot be set".into()
            ),
            (
                "serve-header-invalid".into(),
                "X-Ok contains the control character 0x0A (CR, LF, NUL and other control characters cannot be sent in a header)".into()
            ),
            (
                "serve-header-invalid".into(),
                "X-Space starts or ends with a space or tab, which HTTP strips from a header value".into()
            ),
            (
                "serve-base-url-invalid".into(),
                "`https://a.example/v1?x=1`: a base URL cannot have a query or fragment".into()
            ),
        ]
    );
    for (url, why) in [
        ("ftp://a.example", "not an absolute http(s) URL"),
        (
            "https://a.example/#x",
            "a base URL cannot have a query or fragment",
        ),
        (
            "https://a.example/{v}",
            "the URL has an unexpanded server variable",
        ),
        (
            "https://a.example/a\tb",
            "the URL contains spaces or control characters",
        ),
    ] {
        let opts = RestOptions {
            base_url: Some(url.into()),
            ..RestOptions::default()
        };
        assert_eq!(
            refused(&d, opts),
            [(
                "serve-base-url-invalid".to_string(),
                format!("`{url}`: {why}")
            )]
        );
    }
    // Allowed hosts: the first bad one is reported.
    let opts = RestOptions {
        allow_hosts: vec![
            "ok.example".into(),
            "a.example/path".into(),
            "ftp://b.example".into(),
        ],
        ..RestOptions::default()
    };
    assert_eq!(
        refused(&d, opts),
        [(
            "serve-allow-host-invalid".to_string(),
            "`a.example/path` is not HOST, HOST:PORT or an http(s) origin".to_string()
        )]
    );
    let opts = RestOptions {
        allow_hosts: vec!["ftp://b.example".into()],
        ..RestOptions::default()
    };
    assert_eq!(
        refused(&d, opts),
        [(
            "serve-allow-host-invalid".to_string(),
            "`ftp://b.example` is not an http(s) origin".to_string()
        )]
    );
    let e = RestBackend::new(
        &d,
        RestOptions {
            static_headers: vec![
                ("a b".into(), Secret::new("v")),
                ("c d".into(), Secret::new("v")),
            ],
            ..RestOptions::default()
        },
    )
    .expect_err("refused");
    assert_eq!(
        e.to_string(),
        "the REST gateway cannot serve this description (2 problems)"
    );
}

#[test]
fn credentials_that_do_not_fit_their_scheme_are_refused_at_start() {
    let mut d = doc(get("/x", json!({})), json!({}));
    d["securitySchemes"] = json!({
        "basic": {"type": "http", "scheme": "Basic"},
        "bearer": {"type": "http", "scheme": "bearer"},
        "cc": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://auth.example/t", "scopes": {}}}}
    });
    let creds = |pairs: &[(&str, &str)]| RestOptions {
        credentials: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Secret::new(*v)))
            .collect(),
        ..RestOptions::default()
    };
    assert_eq!(
        refused(&d, creds(&[("basic", "user"), ("cc", "secret"), ("bearer", "a\u{1}b")])),
        [
            (
                "serve-credential-invalid".to_string(),
                "/securitySchemes/basic: the credential for security scheme `basic` must be `user:password` (http basic)".to_string()
            ),
            (
                "serve-credential-invalid".to_string(),
                "/securitySchemes/bearer: the credential for security scheme `bearer` contains control characters".to_string()
            ),
            (
                "serve-credential-invalid".to_string(),
                "/securitySchemes/cc: the credential for security scheme `cc` must be `client_id:client_secret` (clientCredentials flow) or `token:ACCESS_TOKEN`".to_string()
            ),
        ]
    );
    // The right forms start; a bearer token needs no colon, and surrounding spaces
    // are judged where the value becomes a header.
    let b = RestBackend::new(
        &d,
        creds(&[
            ("basic", "u:p"),
            ("bearer", " tok"),
            ("cc", "id:s"),
            ("unknown", "x"),
        ]),
    )
    .expect("starts");
    let w: Vec<(&str, &str, &str)> = b
        .warnings()
        .iter()
        .map(|w| (w.code.as_str(), w.pointer.as_str(), w.message.as_str()))
        .collect();
    assert_eq!(
        w,
        [(
            "serve-credential-unused",
            "/securitySchemes",
            "a credential is configured for `unknown`, which is not a security scheme of the description"
        )]
    );
}

#[test]
fn malformed_provenance_refuses_and_unusable_tools_warn() {
    let mut d = doc(get("/x", json!({})), json!({}));
    d["tools"][0]["x-mcpdesc-openapi"]["method"] = json!("FETCH");
    let problems = refused(&d, RestOptions::default());
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].1.starts_with("/tools/0/x-mcpdesc-openapi"),
        "{problems:?}"
    );
    let d = doc(
        get("/x", json!({"a": {"in": "query", "style": "label"}})),
        json!({"a": {}}),
    );
    let b = RestBackend::new(&d, RestOptions::default()).expect("starts");
    let w: Vec<(&str, &str, &str)> = b
        .warnings()
        .iter()
        .map(|w| (w.code.as_str(), w.pointer.as_str(), w.message.as_str()))
        .collect();
    assert_eq!(
        w,
        [(
            "serve-tool-unusable",
            "/tools/0/x-mcpdesc-openapi",
            "tool `t` cannot be called through the gateway: argument `a`: style `label` is not defined for query parameters"
        )]
    );
}

#[test]
fn debug_output_names_secrets_but_never_shows_them() {
    let opts = RestOptions {
        credentials: [("key".to_string(), Secret::new("s3cr3t-cred"))].into(),
        static_headers: vec![("X-Auth".into(), Secret::new("s3cr3t-header"))],
        ..RestOptions::default()
    };
    let shown = format!("{opts:?}");
    assert!(
        shown.contains("\"key\"") && shown.contains("\"X-Auth\""),
        "{shown}"
    );
    assert!(!shown.contains("s3cr3t"), "{shown}");
}

#[test]
fn option_error_codes() {
    assert_eq!(
        OptionError::Client(crate::ClientError::Tls("x".into())).code(),
        "serve-tls"
    );
    assert_eq!(
        OptionError::Client(crate::ClientError::Client("x".into())).code(),
        "serve-client"
    );
}
