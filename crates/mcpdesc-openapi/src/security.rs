//! OpenAPI security schemes → mcpdesc `securitySchemes` (§7), requirements →
//! `security`.
//!
//! - 3.x `http` (scheme, bearerFormat), `apiKey` (name, in), `oauth2` (flows with
//!   scopes), `openIdConnect` map one to one. `mutualTLS` has no mcpdesc form.
//! - 2.0 `basic` → http basic; `apiKey`; `oauth2` with `flow` implicit / password /
//!   application (→ clientCredentials) / accessCode (→ authorizationCode).
//! - Scheme names are kept when they match `^[A-Za-z0-9._-]+$`; others are
//!   sanitized (and given a short hash when that clashes).
//! - A scheme that cannot be mapped is dropped with a warning, and so is every
//!   requirement alternative that names it (an alternative cannot be represented
//!   without its scheme; keeping the rest would widen access).
//! - Fail closed: an operation whose own requirement has no representable alternative
//!   (or is not an array) is not imported when the root has a representable
//!   requirement, since its tool would inherit that one, which may be weaker; mcpdesc
//!   has no spec-valid form for "requires something unrepresentable"
//!   ([`unrepresentable_kept`] says why). Without a root requirement its `security` is
//!   omitted (no declaration, §7.4), with a warning.
//! - Requirement arrays keep their exact shape otherwise: `[]` stays `[]`, `[{}]`
//!   stays `[{}]`; omitted stays omitted. Scopes of http/apiKey schemes are cleared
//!   (mcpdesc requires empty arrays there), duplicates removed.
//! - Relative OAuth / OpenID URLs (allowed by OpenAPI 3) are resolved against the
//!   first absolute server URL (variables at their defaults) when there is one.

use crate::diag::Diags;
use crate::schema::push_token;
use crate::spec::{Spec, SpecVersion};
use mcpdesc_core::provenance::Server;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Mapping of OpenAPI scheme names to mcpdesc names and kinds.
#[derive(Debug, Default, Clone)]
pub struct SchemeNames {
    /// OpenAPI name → (mcpdesc name, scopes allowed).
    pub map: HashMap<String, (String, bool)>,
}

/// Maps the schemes; returns the `securitySchemes` map (None when empty).
pub fn map_schemes(
    spec: &Spec,
    servers: &[Server],
    diags: &mut Diags,
) -> (Option<Map<String, Value>>, SchemeNames) {
    let root = &spec.docs[0].value;
    let (defs, base_ptr) = if spec.version == SpecVersion::Swagger2 {
        (
            root.get("securityDefinitions"),
            "/securityDefinitions".to_string(),
        )
    } else {
        (
            root.get("components")
                .and_then(|c| c.get("securitySchemes")),
            "/components/securitySchemes".to_string(),
        )
    };
    let mut names = SchemeNames::default();
    let Some(Value::Object(defs)) = defs else {
        return (None, names);
    };
    let base_url = servers
        .iter()
        .map(Server::default_url)
        .find(|s| s.starts_with("http://") || s.starts_with("https://"));
    let mut out = Map::new();
    for (name, def) in defs {
        let mut ptr = base_ptr.clone();
        push_token(&mut ptr, name);
        let def = match spec.deref(0, &ptr, def) {
            Ok((_, _, d)) => d,
            Err(_) => {
                diags.warn(
                    0,
                    "openapi-security-scheme-dropped",
                    format!("security scheme `{name}` cannot be resolved; dropped"),
                    ptr,
                );
                continue;
            }
        };
        match map_scheme(spec.version, def, base_url.as_deref()) {
            Ok((scheme, scoped)) => {
                let mut new_name = sanitize(name);
                if out.contains_key(&new_name) {
                    new_name = format!("{new_name}-{}", short_hash(name));
                }
                if new_name != *name {
                    diags.info(0, "openapi-security-scheme-renamed", format!("security scheme `{name}` is named `{new_name}` (a description's scheme names match ^[A-Za-z0-9._-]+$)"), ptr);
                }
                names.map.insert(name.clone(), (new_name.clone(), scoped));
                out.insert(new_name, scheme);
            }
            Err(why) => diags.warn(
                0,
                "openapi-security-scheme-dropped",
                format!("security scheme `{name}` dropped: {why}"),
                ptr,
            ),
        }
    }
    ((!out.is_empty()).then_some(out), names)
}

fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "scheme".to_string()
    } else {
        s
    }
}

fn short_hash(s: &str) -> String {
    let h = Sha256::digest(s.as_bytes());
    h.iter().take(3).map(|b| format!("{b:02x}")).collect()
}

fn get_str<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// `u` as an absolute URL (resolved against `base` when relative). The output schema
/// requires RFC 3986 URIs here (`format: uri`), so a URL that is not one (spaces, quotes,
/// broken brackets: found by fuzzing) is an error and the scheme is dropped with a
/// warning instead of making the whole import non-conforming.
fn abs_url(u: &str, base: Option<&str>) -> Result<String, String> {
    let url = resolve_url(u, base)?;
    if !mcpdesc_validate::format_holds(mcpdesc_validate::StringFormat::Uri, &url) {
        return Err(format!("URL `{url}` is not a valid URI (RFC 3986)"));
    }
    Ok(url)
}

fn resolve_url(u: &str, base: Option<&str>) -> Result<String, String> {
    if u.starts_with("http://") || u.starts_with("https://") || crate::spec::has_scheme(u) {
        return Ok(u.to_string());
    }
    match base {
        Some(b) => {
            // Origin of the base + absolute path, or base folder + relative path.
            if let Some(rest) = u.strip_prefix('/') {
                let scheme_end = b.find("://").map(|i| i + 3).unwrap_or(0);
                let origin_end = b[scheme_end..]
                    .find('/')
                    .map(|i| i + scheme_end)
                    .unwrap_or(b.len());
                Ok(format!("{}/{rest}", &b[..origin_end]))
            } else {
                Ok(format!("{}/{u}", b.trim_end_matches('/')))
            }
        }
        None => Err(format!(
            "URL `{u}` is relative and the spec has no absolute server URL"
        )),
    }
}

fn map_scheme(
    version: SpecVersion,
    def: &Value,
    base: Option<&str>,
) -> Result<(Value, bool), String> {
    let ty = get_str(def, "type").ok_or("no `type`")?;
    let mut out = Map::new();
    let scoped = match (version, ty) {
        (SpecVersion::Swagger2, "basic") | (_, "http") => {
            let scheme = if ty == "basic" {
                "basic"
            } else {
                get_str(def, "scheme").ok_or("http scheme without `scheme`")?
            };
            out.insert("type".into(), json!("http"));
            out.insert("scheme".into(), json!(scheme));
            if let Some(b) = get_str(def, "bearerFormat") {
                out.insert("bearerFormat".into(), json!(b));
            }
            false
        }
        (_, "apiKey") => {
            let name = get_str(def, "name").ok_or("apiKey scheme without `name`")?;
            let loc = get_str(def, "in").ok_or("apiKey scheme without `in`")?;
            if !["header", "query", "cookie"].contains(&loc) {
                return Err(format!(
                    "apiKey location `{loc}` is not header, query or cookie"
                ));
            }
            out.insert("type".into(), json!("apiKey"));
            out.insert("name".into(), json!(name));
            out.insert("in".into(), json!(loc));
            false
        }
        (SpecVersion::Swagger2, "oauth2") => {
            let flow = get_str(def, "flow").ok_or("oauth2 scheme without `flow`")?;
            let (key, needs_auth, needs_token) = match flow {
                "implicit" => ("implicit", true, false),
                "password" => ("password", false, true),
                "application" => ("clientCredentials", false, true),
                "accessCode" => ("authorizationCode", true, true),
                other => return Err(format!("unknown oauth2 flow `{other}`")),
            };
            let f = map_flow(def, needs_auth, needs_token, base)?;
            out.insert("type".into(), json!("oauth2"));
            out.insert("flows".into(), json!({ key: f }));
            true
        }
        (_, "oauth2") => {
            let Some(Value::Object(flows)) = def.get("flows") else {
                return Err("oauth2 scheme without `flows`".into());
            };
            let mut fo = Map::new();
            let mut errs = Vec::new();
            for (key, needs_auth, needs_token) in [
                ("implicit", true, false),
                ("password", false, true),
                ("clientCredentials", false, true),
                ("authorizationCode", true, true),
            ] {
                if let Some(f) = flows.get(key) {
                    match map_flow(f, needs_auth, needs_token, base) {
                        Ok(m) => {
                            fo.insert(key.into(), m);
                        }
                        Err(e) => errs.push(format!("{key}: {e}")),
                    }
                }
            }
            if fo.is_empty() {
                return Err(if errs.is_empty() {
                    "no usable OAuth flow".into()
                } else {
                    errs.join("; ")
                });
            }
            out.insert("type".into(), json!("oauth2"));
            out.insert("flows".into(), Value::Object(fo));
            true
        }
        (_, "openIdConnect") => {
            let u = get_str(def, "openIdConnectUrl")
                .ok_or("openIdConnect scheme without `openIdConnectUrl`")?;
            out.insert("type".into(), json!("openIdConnect"));
            out.insert("openIdConnectUrl".into(), json!(abs_url(u, base)?));
            true
        }
        (_, other) => return Err(format!("type `{other}` has no mcpdesc equivalent")),
    };
    if let Some(d) = get_str(def, "description") {
        out.insert("description".into(), json!(d));
    }
    Ok((Value::Object(out), scoped))
}

fn map_flow(
    f: &Value,
    needs_auth: bool,
    needs_token: bool,
    base: Option<&str>,
) -> Result<Value, String> {
    let mut m = Map::new();
    if needs_auth {
        let u = get_str(f, "authorizationUrl").ok_or("missing `authorizationUrl`")?;
        m.insert("authorizationUrl".into(), json!(abs_url(u, base)?));
    }
    if needs_token {
        let u = get_str(f, "tokenUrl").ok_or("missing `tokenUrl`")?;
        m.insert("tokenUrl".into(), json!(abs_url(u, base)?));
    }
    if let Some(u) = get_str(f, "refreshUrl") {
        if let Ok(u) = abs_url(u, base) {
            m.insert("refreshUrl".into(), json!(u));
        }
    }
    let mut scopes = Map::new();
    if let Some(Value::Object(s)) = f.get("scopes") {
        for (k, v) in s {
            scopes.insert(k.clone(), json!(v.as_str().unwrap_or("")));
        }
    }
    m.insert("scopes".into(), Value::Object(scopes));
    Ok(Value::Object(m))
}

/// Maps a Security Requirement array. None when nothing representable remains of a
/// non-empty array (a warning says why).
pub fn map_requirements(
    v: &Value,
    names: &SchemeNames,
    doc: usize,
    ptr: &str,
    diags: &mut Diags,
) -> Option<Value> {
    let Some(arr) = v.as_array() else {
        diags.warn(
            doc,
            "openapi-security-dropped",
            "`security` is not an array; ignored",
            ptr,
        );
        return None;
    };
    let mut out = Vec::new();
    for (i, req) in arr.iter().enumerate() {
        let Some(req) = req.as_object() else { continue };
        let mut m = Map::new();
        let mut ok = true;
        for (k, scopes) in req {
            let Some((name, scoped)) = names.map.get(k) else {
                let mut p = ptr.to_string();
                push_token(&mut p, i.to_string());
                diags.warn(doc, "openapi-security-dropped", format!("security requirement names `{k}`, which is not a usable security scheme; this alternative is dropped"), p);
                ok = false;
                break;
            };
            let mut list: Vec<Value> = Vec::new();
            if *scoped {
                for s in scopes
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !list.iter().any(|x| x == s) {
                        list.push(json!(s));
                    }
                }
            }
            m.insert(name.clone(), Value::Array(list));
        }
        if ok {
            out.push(Value::Object(m));
        }
    }
    if out.is_empty() && !arr.is_empty() {
        diags.warn(
            doc,
            "openapi-security-dropped",
            "no alternative of this security requirement could be represented; it is omitted",
            ptr,
        );
        return None;
    }
    Some(Value::Array(out))
}

/// Fail closed: the operations of `kept` whose own `security` has no representable
/// alternative, while the root's requirement is representable, are not imported (a
/// warning at the operation's `security` says why); the others are returned in order.
///
/// Omitting such an operation's `security` would make its tool inherit the root
/// requirement (§7.5), which may be weaker (even `[]`), and mcpdesc has no form for
/// "requires something that cannot be represented": a scheme's `type` is one of four
/// (§7.2), every name a requirement uses must be declared (§7.3), `[]` says
/// explicitly no authentication (§6.4, §7.4), and an `x-*` extension must not change
/// `security` (§14.4). A placeholder scheme would invent a mechanism. A description
/// need not list every tool of a server (§2.2), so leaving the operation out is the
/// one spec-valid form that claims nothing false. When the root has no representable
/// requirement, an omitted `security` declares none at all (§7.4), which is what is
/// known: the tool is kept, with [`map_requirements`]' warning.
pub(crate) fn unrepresentable_kept<'s, 'a>(
    kept: Vec<&'s crate::site::OpSite<'a>>,
    root: &Value,
    names: &SchemeNames,
    diags: &mut Diags,
) -> Vec<&'s crate::site::OpSite<'a>> {
    let mut quiet = Diags::default();
    let root_declared = root
        .get("security")
        .and_then(|v| map_requirements(v, names, 0, "/security", &mut quiet))
        .is_some();
    if !root_declared {
        return kept;
    }
    kept.into_iter()
        .filter(|site| {
            let Some(own) = site.op.get("security") else {
                return true;
            };
            // (`[]` maps to `[]`; a value that is not an array maps to nothing.)
            if map_requirements(own, names, 0, "", &mut quiet).is_some() {
                return true;
            }
            let mut ptr = site.op_ptr.clone();
            push_token(&mut ptr, "security");
            diags.warn(
                site.item_doc,
                "openapi-security-dropped",
                format!(
                    "{} {}: its security requirement cannot be represented in mcpdesc (no alternative can, or it is not an array), and without one its tool would inherit the root requirement, which may be weaker; the operation is not imported",
                    site.method, site.path
                ),
                ptr,
            );
            false
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_urls() {
        assert_eq!(
            abs_url("/oauth/token", Some("https://api.x.com/v1")),
            Ok("https://api.x.com/oauth/token".into())
        );
        assert_eq!(
            abs_url("token", Some("https://api.x.com/v1/")),
            Ok("https://api.x.com/v1/token".into())
        );
        assert!(abs_url("/t", None).is_err());
        // not RFC 3986 URIs (fuzzer finding: the output failed `format: uri`)
        assert!(abs_url("https://x.example.com/o\"boolean\"orize", None).is_err());
        assert!(abs_url("https://x.example.com/t k", None).is_err());
        assert!(abs_url("t k", Some("https://api.x.com/v1")).is_err());
    }

    fn import(yaml: &str) -> (Value, Vec<mcpdesc_core::Diagnostic>) {
        let mut sink = crate::ValueSink::new();
        let report = crate::import(
            crate::Source::bytes(yaml.as_bytes()),
            &crate::ImportOptions::default(),
            &mut sink,
        )
        .expect("imports");
        assert!(report.stats.conforming, "{:#?}", report.diagnostics);
        (sink.into_value().expect("document"), report.diagnostics)
    }

    const SPEC: &str = r#"openapi: 3.0.3
info: {title: T, version: "1"}
servers: [{url: "https://api.example.com"}]
components:
  securitySchemes:
    oauth:
      type: oauth2
      flows:
        clientCredentials:
          tokenUrl: https://as.example.com/token
          scopes: {read: r, write: w}
    mtls: {type: mutualTLS}
ROOT
paths:
  /a:
    get: {operationId: a, responses: {"200": {description: ok}}}
  /b:
    get:
      operationId: b
      security: [{mtls: []}]
      responses: {"200": {description: ok}}
  /c:
    get:
      operationId: c
      security: [{mtls: []}, {oauth: [write]}]
      responses: {"200": {description: ok}}
  /d:
    get:
      operationId: d
      security: []
      responses: {"200": {description: ok}}
  /e:
    get:
      operationId: e
      security: {oauth: [write]}
      responses: {"200": {description: ok}}
"#;

    /// Written out by hand: with a root requirement, an operation none of whose
    /// alternatives can be represented (mutualTLS only; `security` not an array) is not
    /// imported, rather than inheriting the root's `oauth: [read]`; a partly
    /// representable one keeps what it can (narrower, never wider); `[]` stays `[]`.
    /// Without a root requirement, the tool declares none (§7.4) and is kept.
    #[test]
    fn an_operation_whose_requirement_cannot_be_represented_does_not_inherit_the_roots() {
        let (doc, diags) = import(&SPEC.replace("ROOT", "security: [{oauth: [read]}]"));
        let tools: Vec<(&str, Option<&Value>)> = doc["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| (t["name"].as_str().unwrap_or(""), t.get("security")))
            .collect();
        assert_eq!(
            tools,
            [
                ("a", None),
                ("c", Some(&json!([{"oauth": ["write"]}]))),
                ("d", Some(&json!([]))),
            ]
        );
        assert_eq!(doc["security"], json!([{"oauth": ["read"]}]));
        for (op, ptr) in [
            ("/b", "/paths/~1b/get/security"),
            ("/e", "/paths/~1e/get/security"),
        ] {
            let d = diags
                .iter()
                .find(|d| d.pointer == ptr && d.message.contains("not imported"))
                .unwrap_or_else(|| panic!("no warning for {op}: {diags:#?}"));
            assert_eq!(d.code, "openapi-security-dropped");
            assert_eq!(d.severity, mcpdesc_core::Severity::Warning, "{d:?}");
        }

        let (doc, diags) = import(&SPEC.replace("ROOT", ""));
        let names: Vec<&str> = doc["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        assert!(doc.get("security").is_none());
        assert!(doc["tools"][1].get("security").is_none());
        assert!(
            diags.iter().any(|d| d.code == "openapi-security-dropped"
                && d.pointer == "/paths/~1b/get/security"
                && d.message.contains("omitted")),
            "{diags:#?}"
        );
    }

    #[test]
    fn names() {
        assert_eq!(sanitize("api key"), "api_key");
        assert_eq!(sanitize("petstore_auth"), "petstore_auth");
    }
}
