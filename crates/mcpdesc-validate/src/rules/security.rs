//! Security (§7): scheme names, OAuth flow URLs, requirement references and scopes,
//! and the ineligibility of `x-*` members on Security Requirement Objects (§14.2).

use crate::ctx::{Ctx, Primitive, ptr};
use mcpdesc_core::Diagnostic;
use mcpdesc_core::decl::is_extension;
use mcpdesc_core::refs::is_local_name;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Scopes defined by OpenID Connect Core 1.0 §5.4 / §11. An OpenID Connect scheme has no
/// static catalogue in the document, so only these count as catalogued (§7.3 warning).
pub const STANDARD_OIDC_SCOPES: &[&str] = &[
    "openid",
    "profile",
    "email",
    "address",
    "phone",
    "offline_access",
];

/// OAuth flows and the URLs each must carry (§7.2).
const FLOW_URLS: [(&str, &[&str]); 4] = [
    ("implicit", &["authorizationUrl"]),
    ("password", &["tokenUrl"]),
    ("clientCredentials", &["tokenUrl"]),
    ("authorizationCode", &["authorizationUrl", "tokenUrl"]),
];

/// §7.1, §7.2: scheme names and OAuth flow requirements.
pub fn check_schemes(cx: &mut Ctx<'_>) {
    let Some(Value::Object(schemes)) = cx.root_obj.get("securitySchemes") else {
        return;
    };
    for (name, scheme) in schemes {
        let at = ptr("/securitySchemes", name);
        if !is_local_name(name) {
            cx.push(
                Diagnostic::error(
                    "invalid-security-scheme-name",
                    format!("security scheme name `{name}` must match ^[A-Za-z0-9._-]+$ (§7.1)"),
                )
                .at(at.clone()),
            );
        }
        let Some(scheme) = scheme.as_object() else {
            continue;
        };
        match scheme.get("type").and_then(Value::as_str) {
            Some("oauth2") => {}
            Some("http" | "apiKey" | "openIdConnect") | None => continue,
            Some(other) => {
                cx.push(
                    Diagnostic::error(
                        "unknown-security-scheme-type",
                        format!(
                            "security scheme type `{other}` is not one of http, apiKey, oauth2, \
                             openIdConnect (§7.2)"
                        ),
                    )
                    .at(ptr(&at, "type")),
                );
                continue;
            }
        }
        let Some(Value::Object(flows)) = scheme.get("flows") else {
            continue;
        };
        let flows_at = ptr(&at, "flows");
        for (flow, urls) in FLOW_URLS {
            let Some(Value::Object(f)) = flows.get(flow) else {
                continue;
            };
            for url in urls {
                if !f.contains_key(*url) {
                    cx.push(
                        Diagnostic::error(
                            "oauth-flow-missing-url",
                            format!("the OAuth `{flow}` flow must contain `{url}` (§7.2)"),
                        )
                        .at(ptr(&ptr(&flows_at, flow), url)),
                    );
                }
            }
        }
    }
}

/// Scope catalogue of a scheme: `None` for schemes that take no scopes (http, apiKey).
fn scope_catalogue(scheme: &Map<String, Value>) -> Option<BTreeSet<&str>> {
    match scheme.get("type").and_then(Value::as_str) {
        Some("oauth2") => {
            let mut set = BTreeSet::new();
            if let Some(Value::Object(flows)) = scheme.get("flows") {
                for (k, f) in flows {
                    if is_extension(k) {
                        continue;
                    }
                    if let Some(Value::Object(scopes)) = f.get("scopes") {
                        set.extend(scopes.keys().map(String::as_str));
                    }
                }
            }
            Some(set)
        }
        Some("openIdConnect") => Some(STANDARD_OIDC_SCOPES.iter().copied().collect()),
        _ => None,
    }
}

/// The Security Requirement Arrays of the root and of every transport (§7.5).
pub fn check_document_requirements(cx: &mut Ctx<'_>) {
    if let Some(Value::Array(a)) = cx.root_obj.get("security") {
        check_requirements(cx, "/security", a);
    }
    for (i, t) in cx.root_array("transports").iter().enumerate() {
        if let Some(Value::Array(a)) = t.get("security") {
            check_requirements(cx, &format!("/transports/{i}/security"), a);
        }
    }
}

/// A primitive's Security Requirement Array (§7.5).
pub fn check_primitive_requirements(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    if let Some(Value::Array(a)) = p.value.get("security") {
        check_requirements(cx, &ptr(&p.pointer, "security"), a);
    }
}

/// §7.3: references resolve, scope arrays are unique, only OAuth/OpenID take scopes,
/// uncatalogued OAuth/OpenID scopes warn; §14.2: no `x-*` on requirement objects.
fn check_requirements(cx: &mut Ctx<'_>, base: &str, arr: &[Value]) {
    let empty = Map::new();
    let schemes = match cx.root_obj.get("securitySchemes") {
        Some(Value::Object(m)) => m,
        _ => &empty,
    };
    for (k, req) in arr.iter().enumerate() {
        let Some(req) = req.as_object() else { continue };
        let req_at = ptr(base, k.to_string());
        for (name, scopes) in req {
            let at = ptr(&req_at, name);
            let Some(scheme) = schemes.get(name).and_then(Value::as_object) else {
                if is_extension(name) {
                    cx.push(
                            Diagnostic::error(
                                "extension-not-allowed",
                                format!(
                                    "`{name}`: Security Requirement Objects cannot carry \
                                     specification extensions; every key names a security scheme (§14.2)"
                                ),
                            )
                            .at(at),
                        );
                } else {
                    cx.push(
                        Diagnostic::error(
                            "unknown-security-scheme",
                            format!("`{name}` is not declared in root `securitySchemes` (§7.3)"),
                        )
                        .at(at),
                    );
                }
                continue;
            };
            let Some(scopes) = scopes.as_array() else {
                continue;
            };
            let strs: Vec<&str> = scopes.iter().filter_map(Value::as_str).collect();
            let unique: BTreeSet<&str> = strs.iter().copied().collect();
            if unique.len() != strs.len() {
                cx.push(
                    Diagnostic::error(
                        "duplicate-security-scope",
                        format!("the scope array for `{name}` repeats a scope (§7.3)"),
                    )
                    .at(at.clone()),
                );
            }
            match scope_catalogue(scheme) {
                None => {
                    if !scopes.is_empty() {
                        cx.push(
                            Diagnostic::error(
                                "non-oauth-scopes",
                                format!(
                                    "`{name}` is not an OAuth2 or OpenID Connect scheme; its \
                                         requirement must use an empty scope array (§7.3)"
                                ),
                            )
                            .at(at.clone()),
                        );
                    }
                }
                Some(catalogue) => {
                    for (j, s) in scopes.iter().enumerate() {
                        let Some(s) = s.as_str() else { continue };
                        if !catalogue.contains(s) {
                            cx.push(
                                Diagnostic::warning(
                                    "uncatalogued-security-scope",
                                    format!(
                                        "scope `{s}` of `{name}` is not in the scheme's static \
                                             scope catalogue (allowed, but check it, §7.3)"
                                    ),
                                )
                                .at(ptr(&at, j.to_string())),
                            );
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, errors, warnings_at};
    use serde_json::json;

    fn with_schemes() -> serde_json::Value {
        let mut doc = base(&["2026-07-28"]);
        doc["securitySchemes"] = json!({
            "oauth": {"type": "oauth2", "flows": {"authorizationCode": {
                "authorizationUrl": "https://a.example/authorize", "tokenUrl": "https://a.example/token",
                "scopes": {"read": "Read"}}}},
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://id.example/.well-known/openid-configuration"}
        });
        doc
    }

    #[test]
    fn references_must_resolve_and_x_keys_are_not_extensions() {
        let mut doc = with_schemes();
        doc["security"] =
            json!([{"missing": []}, {"x-policy": []}, {}, {"oauth": ["read"], "key": []}]);
        assert_eq!(
            codes_at(&doc, "unknown-security-scheme"),
            vec!["/security/0/missing"]
        );
        assert_eq!(
            codes_at(&doc, "extension-not-allowed"),
            vec!["/security/1/x-policy"]
        );
        assert_eq!(errors(&doc).len(), 2, "{:?}", errors(&doc));
    }

    #[test]
    fn scopes_unique_and_only_for_oauth() {
        let mut doc = with_schemes();
        doc["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"},
            "security": [{"oauth": ["read", "read"]}, {"key": ["admin"]}]}]);
        assert_eq!(
            codes_at(&doc, "duplicate-security-scope"),
            vec!["/tools/0/security/0/oauth"]
        );
        assert_eq!(
            codes_at(&doc, "non-oauth-scopes"),
            vec!["/tools/0/security/1/key"]
        );
    }

    #[test]
    fn uncatalogued_scopes_warn_but_do_not_fail() {
        let mut doc = with_schemes();
        doc["transports"] = json!([{"type": "stdio", "command": "x",
            "security": [{"oauth": ["write"]}, {"oidc": ["openid", "profile:read"]}]}]);
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
        assert_eq!(
            warnings_at(&doc, "uncatalogued-security-scope"),
            vec![
                "/transports/0/security/0/oauth/0",
                "/transports/0/security/1/oidc/1"
            ]
        );
    }

    #[test]
    fn scheme_names_and_flow_urls() {
        let mut doc = base(&["2026-07-28"]);
        doc["securitySchemes"] = json!({
            "bad name": {"type": "http", "scheme": "bearer"},
            "o": {"type": "oauth2", "flows": {"implicit": {"scopes": {}},
                  "clientCredentials": {"tokenUrl": "https://a.example/t", "scopes": {}}}}
        });
        assert_eq!(
            codes_at(&doc, "invalid-security-scheme-name"),
            vec!["/securitySchemes/bad name"]
        );
        assert_eq!(
            codes_at(&doc, "oauth-flow-missing-url"),
            vec!["/securitySchemes/o/flows/implicit/authorizationUrl"]
        );
    }

    #[test]
    fn unknown_scheme_type() {
        let mut doc = base(&["2026-07-28"]);
        doc["securitySchemes"] = json!({"m": {"type": "mutualTLS"}});
        assert_eq!(
            codes_at(&doc, "unknown-security-scheme-type"),
            vec!["/securitySchemes/m/type"]
        );
    }

    #[test]
    fn empty_forms_are_significant_and_valid() {
        let mut doc = with_schemes();
        doc["security"] = json!([]);
        doc["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}, "security": [{}]}]);
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
    }
}
