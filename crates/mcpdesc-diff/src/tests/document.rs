//! Document-level findings: revisions, `info`, root members, security schemes and their
//! OAuth flows, root security requirements.

use super::{doc, expect, lines_of};
use crate::{DiffError, DiffOptions, diff_inputs};
use mcpdesc_core::ProtocolRevision;
use serde_json::json;

/// A revision NEW drops is one breaking finding for that revision alone; one it adds is
/// info; only the revisions both declare are compared.
#[test]
fn revisions_dropped_and_added() {
    let old = doc(json!({"protocolVersions": ["2025-03-26", "2025-06-18"]}));
    let new = doc(json!({"protocolVersions": ["2025-06-18", "2025-11-25"]}));
    expect(
        &old,
        &new,
        &[
            "breaking revision-removed document: protocol revision 2025-03-26 is no longer declared: its clients lose the whole server | /protocolVersions/0 | /protocolVersions [2025-03-26]",
            "info revision-added document: protocol revision 2025-11-25 is now declared | /protocolVersions | /protocolVersions/1 [2025-11-25]",
        ],
    );
    let r = super::report(&old, &new);
    assert_eq!(r.revisions.to_strings(), ["2025-06-18"]);
}

/// `--protocol-version` keeps one revision: a change elsewhere is not compared when the
/// revision is not declared by both, and a revision neither declares is an error.
#[test]
fn one_selected_revision() {
    let old = doc(json!({"protocolVersions": ["2025-03-26", "2025-06-18"]}));
    let mut new = doc(json!({"protocolVersions": ["2025-06-18"]}));
    new["info"]["version"] = json!("2");
    let run = |v: ProtocolRevision| {
        diff_inputs(
            (&old).into(),
            (&new).into(),
            &DiffOptions {
                protocol_version: Some(v),
            },
        )
    };
    let r = run(ProtocolRevision::V2025_03_26).expect("declared by OLD");
    assert!(r.revisions.is_empty());
    assert_eq!(
        lines_of(&r),
        [
            "breaking revision-removed document: protocol revision 2025-03-26 is no longer declared: its clients lose the whole server | /protocolVersions/0 | /protocolVersions [2025-03-26]"
        ]
    );
    let r = run(ProtocolRevision::V2025_06_18).expect("declared by both");
    assert_eq!(r.revisions.to_strings(), ["2025-06-18"]);
    assert_eq!(
        lines_of(&r),
        ["info info-changed document: `info.version` `1` → `2` | /info/version | /info/version"]
    );
    assert_eq!(
        run(ProtocolRevision::V2024_11_05),
        Err(DiffError::RevisionNotDeclared(
            ProtocolRevision::V2024_11_05
        ))
    );
}

/// `info` member by member: scalars show both values (absent when missing), objects
/// are "changed", `x-` members are extensions.
#[test]
fn info_members() {
    let old = doc(
        json!({"info": {"name": "s", "version": "1", "x-team": 1, "contact": {"email": "a@example.com"}}}),
    );
    let new = doc(
        json!({"info": {"name": "s", "version": "1.1", "x-team": 2, "contact": {"email": "b@example.com"}, "title": "S", "license": {"name": "MIT"}}}),
    );
    expect(
        &old,
        &new,
        &[
            "info info-changed document: `info.version` `1` → `1.1` | /info/version | /info/version",
            "info extension-changed document: `info.x-team` `1` → `2` | /info/x-team | /info/x-team",
            "info info-changed document: `info.contact` changed | /info/contact | /info/contact",
            "info info-changed document: `info.title` absent → `S` | /info/title | /info/title",
            "info info-changed document: `info.license` changed | /info/license | /info/license",
        ],
    );
}

#[test]
fn root_members_and_extensions() {
    let old = doc(json!({"instructions": "a", "tags": [{"name": "x"}], "x-root": 1, "x-same": 1}));
    let new = doc(json!({
        "instructions": "b", "tags": [{"name": "y"}], "x-root": 2, "x-same": 1,
        "$schema": "https://example.com/s", "x-new": true,
    }));
    expect(
        &old,
        &new,
        &[
            "info instructions-changed document: `instructions` changed | /instructions | /instructions",
            "info tags-changed document: `tags` changed | /tags | /tags",
            "info info-changed document: `$schema` changed | /$schema | /$schema",
            "info extension-changed document: extension `x-root` changed | /x-root | /x-root",
            "info extension-changed document: extension `x-new` changed | /x-new | /x-new",
        ],
    );
}

/// How a client obtains or presents a credential is breaking; descriptions, scope
/// catalogues and `bearerFormat` are metadata; `x-` keys are extensions.
#[test]
fn security_scheme_members() {
    let old = doc(json!({"securitySchemes": {
        "key": {"type": "apiKey", "name": "X-Key", "in": "header", "description": "a", "x-vendor": 1},
        "gone": {"type": "http", "scheme": "bearer"},
        "same": {"type": "http", "scheme": "basic"},
        "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
    }}));
    let new = doc(json!({"securitySchemes": {
        "key": {"type": "apiKey", "name": "X-Api-Key", "in": "query", "description": "b", "x-vendor": {"v": 2}},
        "same": {"type": "http", "scheme": "basic"},
        "bearer": {"type": "http", "scheme": "basic"},
        "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://example.com/.well-known/openid-configuration"},
    }}));
    expect(
        &old,
        &new,
        &[
            "breaking security-scheme-changed document: security scheme `key`: `name` `X-Key` → `X-Api-Key` | /securitySchemes/key/name | /securitySchemes/key/name",
            "breaking security-scheme-changed document: security scheme `key`: `in` `header` → `query` | /securitySchemes/key/in | /securitySchemes/key/in",
            "info security-scheme-metadata-changed document: security scheme `key`: `description` `a` → `b` | /securitySchemes/key/description | /securitySchemes/key/description",
            "info extension-changed document: security scheme `key`: `x-vendor` changed | /securitySchemes/key/x-vendor | /securitySchemes/key/x-vendor",
            "info security-scheme-removed document: security scheme `gone` removed | /securitySchemes/gone | /securitySchemes",
            "breaking security-scheme-changed document: security scheme `bearer`: `scheme` `bearer` → `basic` | /securitySchemes/bearer/scheme | /securitySchemes/bearer/scheme",
            "info security-scheme-metadata-changed document: security scheme `bearer`: `bearerFormat` `JWT` → absent | /securitySchemes/bearer/bearerFormat | /securitySchemes/bearer/bearerFormat",
            "info security-scheme-added document: security scheme `oidc` added | /securitySchemes | /securitySchemes/oidc",
        ],
    );
    let mut changed = old.clone();
    changed["securitySchemes"]["key"]["type"] = json!("http");
    changed["securitySchemes"]["same"]["openIdConnectUrl"] = json!("https://example.com/o");
    expect(
        &old,
        &changed,
        &[
            "breaking security-scheme-changed document: security scheme `key`: `type` `apiKey` → `http` | /securitySchemes/key/type | /securitySchemes/key/type",
            "breaking security-scheme-changed document: security scheme `same`: `openIdConnectUrl` absent → `https://example.com/o` | /securitySchemes/same/openIdConnectUrl | /securitySchemes/same/openIdConnectUrl",
        ],
    );
}

/// OAuth flows: a removed flow or a changed URL breaks clients; an added flow, scopes
/// and other members are metadata; `x-` keys are extensions.
#[test]
fn oauth_flows() {
    let scheme = |flows: serde_json::Value| {
        doc(json!({"securitySchemes": {"o": {"type": "oauth2", "flows": flows}}}))
    };
    let old = scheme(json!({
        "implicit": {"authorizationUrl": "https://a.example.com/auth", "scopes": {}},
        "clientCredentials": {"tokenUrl": "https://a.example.com/token", "scopes": {"r": "Read"}, "x-n": 1},
    }));
    let new = scheme(json!({
        "clientCredentials": {"tokenUrl": "https://b.example.com/token", "scopes": {"r": "Read", "w": "Write"}, "x-n": {"v": 2}, "refreshUrl": "https://b.example.com/refresh"},
        "authorizationCode": {"authorizationUrl": "https://a.example.com/auth", "tokenUrl": "https://a.example.com/token", "scopes": {}},
    }));
    let p = "/securitySchemes/o/flows";
    let cc = "/securitySchemes/o/flows/clientCredentials";
    expect(
        &old,
        &new,
        &[
            &format!(
                "breaking security-scheme-changed document: security scheme `o`: OAuth flow `implicit` removed | {p}/implicit | {p}"
            ),
            &format!(
                "breaking security-scheme-changed document: security scheme `o`: OAuth flow `clientCredentials`: `tokenUrl` `https://a.example.com/token` → `https://b.example.com/token` | {cc}/tokenUrl | {cc}/tokenUrl"
            ),
            &format!(
                "info security-scheme-metadata-changed document: security scheme `o`: OAuth flow `clientCredentials`: `scopes` changed | {cc}/scopes | {cc}/scopes"
            ),
            &format!(
                "info extension-changed document: security scheme `o`: OAuth flow `clientCredentials`: `x-n` changed | {cc}/x-n | {cc}/x-n"
            ),
            &format!(
                "breaking security-scheme-changed document: security scheme `o`: OAuth flow `clientCredentials`: `refreshUrl` absent → `https://b.example.com/refresh` | {cc}/refreshUrl | {cc}/refreshUrl"
            ),
            &format!(
                "info security-scheme-metadata-changed document: security scheme `o`: OAuth flow `authorizationCode` added | {p} | {p}/authorizationCode"
            ),
        ],
    );
}

/// Root security requirements, with the alternatives named in the message.
#[test]
fn root_security_messages() {
    let sec = |s: serde_json::Value| doc(json!({"security": s}));
    expect(
        &sec(json!([{"a": ["x", "y"]}, {"b": []}])),
        &sec(json!([{"a": ["x", "y", "z"]}, {"c": []}])),
        &[
            "breaking security-requirement-added document: a client presenting `a` with scopes `x y` is no longer authorized; now requires `a` with scopes `x y z` or `c` | /security | /security",
            "breaking security-requirement-added document: a client presenting `b` is no longer authorized; now requires `a` with scopes `x y z` or `c` | /security | /security",
        ],
    );
    expect(
        &sec(json!([{"a": ["x"], "b": []}])),
        &sec(json!([{"a": []}, {"b": []}])),
        &[
            "info security-requirement-relaxed document: every old requirement still works; now accepts `a` or `b` | /security | /security",
        ],
    );
    expect(
        &sec(json!([{"a": []}])),
        &sec(json!([{"a": []}, {}])),
        &[
            "info security-requirement-relaxed document: every old requirement still works; now accepts no credentials or `a` | /security | /security",
        ],
    );
    expect(
        &doc(json!({})),
        &sec(json!([{"a": []}, {"b": ["s"]}])),
        &[
            "possibly-breaking security-declared document: `security` was not declared; now requires `a` or `b` with scopes `s` | /security | /security",
        ],
    );
    expect(
        &doc(json!({})),
        &sec(json!([{}, {"b": []}])),
        &[
            "info security-changed document: `security` is now declared and lets clients in without credentials | /security | /security",
        ],
    );
    expect(
        &sec(json!([{"a": []}])),
        &doc(json!({})),
        &[
            "info security-undeclared document: `security` is no longer declared | /security | /security",
        ],
    );
    expect(
        &sec(json!([{}])),
        &sec(json!([])),
        &[
            "info security-changed document: `security` changed between `[]` (cleared) and `[{}]` (anonymous allowed) | /security | /security",
        ],
    );
    // Repeats and order of alternatives and scopes mean nothing.
    expect(
        &sec(json!([{"a": ["x", "y"]}, {"b": []}])),
        &sec(json!([{"b": []}, {"a": ["y", "x"]}, {"b": []}])),
        &[],
    );
    // Two anonymous alternatives are the same requirement as one.
    expect(&sec(json!([{}, {}])), &sec(json!([{}])), &[]);
}

/// Over 250,000 old × new alternative pairs the change is undecided, at exactly
/// 250,000 it is still compared, and equal requirements are never "too complex".
#[test]
fn security_alternative_budget() {
    let alts = |names: &mut dyn Iterator<Item = String>| {
        serde_json::Value::Array(names.map(|n| json!({ n: [] })).collect())
    };
    let sec = |s: serde_json::Value| doc(json!({"security": s}));
    let old = sec(alts(&mut (0..500).map(|i| format!("s{i}"))));
    let new = sec(alts(
        &mut (0..499).map(|i| format!("s{i}")).chain(["t".to_string()]),
    ));
    let r = super::report(&old, &new);
    let rules: Vec<&str> = r.findings.iter().map(|f| f.rule.id()).collect();
    assert_eq!(rules, ["security-requirement-added"]);
    assert!(
        r.findings[0].message.to_string().starts_with(
            "a client presenting `s499` is no longer authorized; now requires `s0` or `s1` or "
        ),
        "{}",
        r.findings[0].message
    );
    let old = sec(alts(&mut (0..501).map(|i| format!("s{i}"))));
    expect(
        &old,
        &new,
        &[
            "possibly-breaking security-too-complex document: 501 × 500 distinct alternatives are too many to compare; review by hand | /security | /security",
        ],
    );
    expect(&old, &old.clone(), &[]);
}

/// Both inputs are validated first (`check_pair`); each side's errors stay with that
/// side, positioned; `diff` of the handles validates nothing again.
#[test]
fn invalid_inputs_are_refused_per_side() {
    let valid = doc(json!({}));
    let invalid = json!({"mcpdesc": "0.8.0", "tools": [{"name": 1}]});
    let decode = |v: &serde_json::Value| {
        let text = serde_json::to_string_pretty(v).expect("serializes");
        mcpdesc_core::decode(&text, mcpdesc_core::Format::Json, &Default::default())
            .expect("decodes")
    };
    let run = |o: &serde_json::Value, n: &serde_json::Value| {
        let (o, n) = (decode(o), decode(n));
        let (o, n) = crate::check_pair(&o, &n)?;
        let before = mcpdesc_validate::runs_on_this_thread();
        let report = crate::diff(&o, &n, &DiffOptions::default());
        assert_eq!(mcpdesc_validate::runs_on_this_thread(), before);
        report
    };
    match run(&invalid, &valid) {
        Err(DiffError::Invalid { old, new }) => {
            assert!(!old.is_empty() && old.iter().all(mcpdesc_core::Diagnostic::is_error));
            assert!(old.iter().all(|d| d.line.is_some()), "{old:?}");
            assert!(new.is_empty());
        }
        other => panic!("{other:?}"),
    }
    match run(&valid, &invalid) {
        Err(DiffError::Invalid { old, new }) => assert!(old.is_empty() && !new.is_empty()),
        other => panic!("{other:?}"),
    }
    let mut changed = valid.clone();
    changed["info"]["version"] = json!("2");
    assert_eq!(run(&valid, &changed).map(|r| r.findings.len()), Ok(1));
}
