//! `mcpdesc serve --http --auth-issuer` against a real authorization server (issue 28):
//! node-oidc-provider (a certified OpenID provider, `tests/fixtures/auth/issuer.mjs`)
//! issues client-credentials tokens, RFC 8707/9068 JWTs for a resource and opaque
//! tokens for introspection; a recording upstream (std only) shows what reaches the API.
//!
//! Oracles the gateway did not produce: the provider's tokens and metadata, tokens
//! minted here by hand (the provider signs with the test key rsa1 of
//! crates/mcpdesc-auth/testdata, so a hostile token can carry a valid signature under
//! the real kid), RFC 9728/6750 texts written out below, and the recorder's wire bytes.

#[path = "../serve_rest/recorder.rs"]
#[allow(dead_code)]
mod recorder;

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpdesc_tests::{mcpdesc_bin, workspace_root};
use recorder::{Recorder, Reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TIMEOUT: Duration = Duration::from_secs(60);

/// The provider on a loopback port; killed when dropped.
struct Issuer {
    child: Child,
    url: String,
}

impl Issuer {
    fn start() -> Issuer {
        let root = workspace_root();
        let mut child = Command::new("node")
            .arg(root.join("tests/fixtures/auth/issuer.mjs"))
            .arg(root.join("crates/mcpdesc-auth/testdata"))
            .arg(root.join(".deps/node/node_modules"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node");
        let out = child.stdout.take().expect("stdout");
        let rx = lines(out);
        let port = loop {
            let l = rx
                .recv_timeout(TIMEOUT)
                .expect("the issuer printed no port");
            if let Some(p) = l.strip_prefix("PORT ") {
                break p.trim().to_string();
            }
        };
        Issuer {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// A client-credentials token (`resource`: an RFC 8707 JWT for it; else opaque).
    fn token(&self, client: &str, scope: &str, resource: Option<&str>) -> String {
        let mut form = format!("grant_type=client_credentials&scope={}", enc(scope));
        if let Some(r) = resource {
            form.push_str(&format!("&resource={}", enc(r)));
        }
        let basic =
            base64::engine::general_purpose::STANDARD.encode(format!("{client}:{client}-secret"));
        let r = http(
            &self.url,
            "POST",
            "/token",
            &[
                ("Authorization", &format!("Basic {basic}")),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            form.as_bytes(),
        );
        assert_eq!(r.status, 200, "token: {}", r.text());
        r.json()["access_token"]
            .as_str()
            .expect("access_token")
            .to_string()
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lines(r: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `mcpdesc serve --http 127.0.0.1:0` with these flags; its whole log is kept.
struct Serve {
    child: Child,
    base: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Serve {
    fn start(desc: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Serve {
        Serve::start_many(&[desc], args, env)
    }

    /// Several descriptions served as one (`mcpdesc serve A B …`).
    fn start_many(descs: &[&std::path::Path], args: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut child = Command::new(mcpdesc_bin())
            .arg("serve")
            .args(descs)
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn serve");
        let rx = lines(child.stderr.take().expect("stderr"));
        let log = Arc::new(Mutex::new(Vec::new()));
        let until = Instant::now() + TIMEOUT;
        let base = loop {
            let Ok(l) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) else {
                let _ = child.kill();
                panic!(
                    "serve did not start:\n{}",
                    log.lock().map(|v| v.join("\n")).unwrap_or_default()
                );
            };
            if let Ok(mut v) = log.lock() {
                v.push(l.clone());
            }
            // (In a JSON log line the URL ends the message string.)
            if let Some(u) = l
                .split_whitespace()
                .map(|u| u.trim_end_matches(['"', '}']))
                .find(|u| u.starts_with("http://") && u.ends_with("/mcp"))
            {
                break u.trim_end_matches("/mcp").to_string();
            }
        };
        let keep = Arc::clone(&log);
        std::thread::spawn(move || {
            while let Ok(l) = rx.recv() {
                if let Ok(mut v) = keep.lock() {
                    v.push(l);
                }
            }
        });
        Serve { child, base, log }
    }

    fn log(&self) -> String {
        self.log.lock().map(|v| v.join("\n")).unwrap_or_default()
    }

    /// One 2026-07-28 request at `path` with `token`.
    fn rpc(&self, path: &str, token: Option<&str>, method: &str, params: Value) -> Resp {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let auth = token.map(|t| format!("Bearer {t}"));
        let mut h = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        let name;
        if method == "tools/call" {
            name = params["name"].as_str().unwrap_or("").to_string();
            h.push(("Mcp-Name", &name));
        }
        if let Some(a) = &auth {
            h.push(("Authorization", a));
        }
        http(&self.base, "POST", path, &h, body.to_string().as_bytes())
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, n: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.as_str())
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// HTTP/1.1 with `Connection: close` over std (the bytes as sent and received).
fn http(base: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    let authority = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(authority).expect("connect");
    s.set_read_timeout(Some(TIMEOUT)).expect("timeout");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).expect("write");
    s.write_all(body).expect("write");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut rest = raw[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(end) = rest[at..].windows(2).position(|w| w == b"\r\n") {
            let size =
                usize::from_str_radix(String::from_utf8_lossy(&rest[at..at + end]).trim(), 16)
                    .unwrap_or(0);
            if size == 0 {
                break;
            }
            let start = at + end + 2;
            out.extend_from_slice(&rest[start..start + size]);
            at = start + size + 2;
        }
        rest = out;
    }
    Resp {
        status,
        headers,
        body: rest,
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

fn sign(key: &[u8], kid: &str, claims: &Value) -> String {
    let mut h = Header::new(Algorithm::RS256);
    h.kid = Some(kid.into());
    h.typ = Some("at+jwt".into());
    jsonwebtoken::encode(&h, claims, &EncodingKey::from_rsa_der(key)).expect("sign")
}

const RSA1: &[u8] = include_bytes!("../../crates/mcpdesc-auth/testdata/rsa1.der");
const RSA2: &[u8] = include_bytes!("../../crates/mcpdesc-auth/testdata/rsa2.der");

/// The description imported from tests/fixtures/auth/notes.openapi.yaml (root
/// security `oauth: [notes:read]`; `create_note` needs `notes:write`).
fn notes(dir: &std::path::Path) -> std::path::PathBuf {
    let desc = dir.join("notes.mcpdesc.json");
    let o = Command::new(mcpdesc_bin())
        .args(["import", "openapi"])
        .arg(workspace_root().join("tests/fixtures/auth/notes.openapi.yaml"))
        .arg("-o")
        .arg(&desc)
        .output()
        .expect("import");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    desc
}

fn tool_names(r: &Resp) -> Vec<String> {
    r.json()["result"]["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

const UPSTREAM_CREDENTIAL: &str = "gateway-own-upstream-credential";

#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn resource_server_against_a_real_issuer() {
    let issuer = Issuer::start();
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    let up = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let serve = Serve::start(
        &desc,
        &[
            "--base-url",
            &up.base(),
            "--auth-issuer",
            &issuer.url,
            "--auth-client-credential",
            "GW_CRED",
        ],
        &[
            ("GW_CRED", "gateway:gateway-secret"),
            (
                "MCPDESC_CREDENTIAL_OAUTH",
                &format!("token:{UPSTREAM_CREDENTIAL}"),
            ),
        ],
    );
    let resource = format!("{}/mcp", serve.base);
    let toolset = format!("{}/mcp/x/notes", serve.base);
    let meta_url = format!("{}/.well-known/oauth-protected-resource/mcp", serve.base);

    // RFC 9728 metadata, at the path-suffixed URL and (for /mcp) the root one.
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = http(&serve.base, "GET", path, &[], b"");
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(
            r.json(),
            json!({
                "resource": resource,
                "authorization_servers": [issuer.url],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"],
                "resource_name": r.json()["resource_name"],
            })
        );
    }
    let r = http(
        &serve.base,
        "GET",
        "/.well-known/oauth-protected-resource/mcp/x/notes",
        &[],
        b"",
    );
    assert_eq!(r.json()["resource"], json!(toolset));
    let r = http(
        &serve.base,
        "GET",
        "/.well-known/oauth-protected-resource/mcp/x/nope",
        &[],
        b"",
    );
    assert_eq!(r.status, 404);

    // No token: 401 pointing at the metadata, no error code.
    let r = serve.rpc("/mcp", None, "tools/list", json!({}));
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{meta_url}\"").as_str())
    );

    // Hostile tokens: each 401 invalid_token.
    let good = json!({"iss": issuer.url, "aud": resource, "sub": "mallory", "client_id": "writer",
        "scope": "notes:read notes:write", "exp": now() + 300, "iat": now()});
    let with = |k: &str, v: Value| {
        let mut c = good.clone();
        c[k] = v;
        c
    };
    let payload = b64(good.to_string().as_bytes());
    let hs256 = {
        let mut h = Header::new(Algorithm::HS256);
        h.kid = Some("rsa1".into());
        h.typ = Some("at+jwt".into());
        let pem = std::fs::read(workspace_root().join("crates/mcpdesc-auth/testdata/rsa1.pub.pem"))
            .expect("pem");
        jsonwebtoken::encode(&h, &good, &EncodingKey::from_secret(&pem)).expect("hs")
    };
    let other_resource = issuer.token(
        "writer",
        "notes:read notes:write",
        Some("http://127.0.0.1:9/other-api"),
    );
    let hostile: Vec<(&str, String)> = vec![
        (
            "forged signature under a known kid",
            sign(RSA2, "rsa1", &good),
        ),
        (
            "alg none",
            format!(
                "{}.{payload}.",
                b64(br#"{"alg":"none","typ":"at+jwt","kid":"rsa1"}"#)
            ),
        ),
        ("HS256 with the public key as secret", hs256),
        (
            "another audience",
            sign(RSA1, "rsa1", &with("aud", json!("http://127.0.0.1:9/mcp"))),
        ),
        (
            "another issuer",
            sign(RSA1, "rsa1", &with("iss", json!("http://127.0.0.1:9"))),
        ),
        (
            "expired",
            sign(RSA1, "rsa1", &with("exp", json!(now() - 120))),
        ),
        (
            "not yet valid",
            sign(RSA1, "rsa1", &with("nbf", json!(now() + 600))),
        ),
        ("malformed", "eyJhbGciOiJSUzI1NiJ9.!!!.xyz".into()),
        (
            "garbage opaque token",
            "d2hhdGV2ZXI-not-a-token-of-this-issuer".into(),
        ),
        (
            "a token for another resource of the same issuer",
            other_resource,
        ),
    ];
    for (what, token) in &hostile {
        let r = serve.rpc("/mcp", Some(token), "tools/list", json!({}));
        assert_eq!(r.status, 401, "{what}: {}", r.text());
        let ch = r.header("www-authenticate").unwrap_or("");
        assert!(
            ch.starts_with("Bearer error=\"invalid_token\"")
                && ch.contains(&format!("resource_metadata=\"{meta_url}\"")),
            "{what}: {ch}"
        );
        assert!(!ch.contains(token.as_str()) && !r.text().contains(token.as_str()));
    }

    // Per-tool scopes: the reader lacks create_note in its list, and calling it is a
    // 403 step-up challenge with nothing sent upstream.
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let r = serve.rpc("/mcp", Some(&reader), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(tool_names(&r), ["list_notes"]);
    assert_eq!(r.json()["result"]["cacheScope"], "private");
    let r = serve.rpc(
        "/mcp",
        Some(&reader),
        "tools/call",
        json!({"name": "create_note", "arguments": {"text": "hi"}}),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.header("www-authenticate"),
        Some(
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{meta_url}\""
            )
            .as_str()
        )
    );
    assert!(
        up.requests().is_empty(),
        "the upstream got {:?}",
        up.requests()
    );
    let r = serve.rpc(
        "/mcp",
        Some(&reader),
        "tools/call",
        json!({"name": "list_notes", "arguments": {}}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["result"]["structuredContent"],
        json!({"notes": []}),
        "{}",
        r.text()
    );
    assert_eq!(up.requests().len(), 1);

    // The writer lists and calls the write tool.
    let writer = issuer.token("writer", "notes:read notes:write", Some(&resource));
    let r = serve.rpc("/mcp", Some(&writer), "tools/list", json!({}));
    assert_eq!(tool_names(&r), ["list_notes", "create_note"]);
    let r = serve.rpc(
        "/mcp",
        Some(&writer),
        "tools/call",
        json!({"name": "create_note", "arguments": {"text": "hi"}}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let reqs = up.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].method, "POST");

    // A toolset path is its own resource: the /mcp token is not for it.
    let r = serve.rpc("/mcp/x/notes", Some(&writer), "tools/list", json!({}));
    assert_eq!(r.status, 401);
    let for_toolset = issuer.token("writer", "notes:read notes:write", Some(&toolset));
    let r = serve.rpc("/mcp/x/notes", Some(&for_toolset), "tools/list", json!({}));
    assert_eq!(tool_names(&r), ["list_notes", "create_note"]);

    // Opaque tokens are introspected with the gateway's own credential.
    let opaque = issuer.token("reader", "notes:read", None);
    assert_eq!(opaque.matches('.').count(), 0, "opaque: {opaque}");
    let r = serve.rpc("/mcp", Some(&opaque), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(tool_names(&r), ["list_notes"]);

    // Key rotation: a key published after start signs an accepted token.
    let rotated = sign(RSA2, "rsa2", &good);
    let r = http(&issuer.url, "POST", "/test/rotate", &[], b"");
    assert_eq!(r.status, 204);
    let r = serve.rpc("/mcp", Some(&rotated), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());

    // No passthrough: the upstream saw the gateway's own credential only, and no
    // inbound token is in its requests or in the server's log.
    let mut inbound: Vec<&str> = vec![&reader, &writer, &for_toolset, &opaque, &rotated];
    inbound.extend(hostile.iter().map(|(_, t)| t.as_str()));
    let log = serve.log();
    for req in up.requests() {
        assert_eq!(
            req.header("authorization"),
            Some(format!("Bearer {UPSTREAM_CREDENTIAL}").as_str())
        );
        let wire = format!("{} {:?} {}", req.target, req.headers, req.body_text());
        for t in &inbound {
            assert!(!wire.contains(t), "an inbound token reached the upstream");
        }
    }
    for t in &inbound {
        assert!(!log.contains(t), "an inbound token is in the log");
    }
    assert!(log.contains("auth: refused a token"), "{log}");

    // The official TypeScript client v2 finds its way alone, over /mcp and a toolset
    // path (it asks for the metadata's `scopes_supported`: the writer's).
    for url in [&resource, &toolset] {
        let o = Command::new("node")
            .arg(workspace_root().join("tests/fixtures/auth/ts_client.cjs"))
            .arg(workspace_root().join(".deps/node/node_modules"))
            .args([
                url.as_str(),
                "writer",
                "writer-secret",
                "notes:read notes:write",
                &issuer.url,
            ])
            .arg("list_notes")
            .output()
            .expect("node");
        assert!(
            o.status.success(),
            "{url}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out: Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(out["tools"], json!(["list_notes", "create_note"]), "{url}");
        assert_eq!(
            out["result"]["structuredContent"],
            json!({"notes": []}),
            "{url}"
        );
        assert_eq!(out["version"], "2026-07-28", "{url}");
    }
    // Python SDK with a bearer token.
    let py = workspace_root().join(".deps/venv/bin/python");
    if py.exists() {
        let o = Command::new(&py)
            .arg(workspace_root().join("tests/fixtures/auth/py_client.py"))
            .args([resource.as_str(), writer.as_str()])
            .output()
            .expect("python");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out: Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(out["tools"], json!(["list_notes", "create_note"]));
        assert_eq!(out["isError"], json!(false));
    }
    let up_now = up.requests();
    for req in &up_now {
        assert_eq!(
            req.header("authorization"),
            Some(format!("Bearer {UPSTREAM_CREDENTIAL}").as_str())
        );
    }
    let log = serve.log();
    for t in [&reader, &writer] {
        assert!(!log.contains(t.as_str()));
    }
}

/// The text of a tool result (its first content block).
fn result_text(r: &Resp) -> String {
    r.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The authenticated caller is whom the rate limit counts and the JSON log names (issue
/// 29 with 28): two callers behind one peer address hold a budget each, and a call's
/// log line carries the caller's key — the token's `sub`, read here from the token the
/// issuer minted — and never the token.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn the_rate_limit_and_the_log_follow_the_authenticated_caller() {
    let issuer = Issuer::start();
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    let up = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let cred = format!("token:{UPSTREAM_CREDENTIAL}");
    let serve = Serve::start(
        &desc,
        &[
            "--base-url",
            &up.base(),
            "--auth-issuer",
            &issuer.url,
            "--rate-limit",
            "2/min",
            "--log-format",
            "json",
        ],
        &[("MCPDESC_CREDENTIAL_OAUTH", cred.as_str())],
    );
    let resource = format!("{}/mcp", serve.base);
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let writer = issuer.token("writer", "notes:read notes:write", Some(&resource));
    let call = |token: &str| {
        serve.rpc(
            "/mcp",
            Some(token),
            "tools/call",
            json!({"name": "list_notes", "arguments": {}}),
        )
    };
    assert_eq!(call(&reader).status, 200);
    assert_eq!(call(&reader).status, 200);
    let limited = call(&reader);
    assert_eq!(limited.status, 429, "{}", limited.text());
    assert!(limited.header("retry-after").is_some());
    // Same peer address, another subject: a budget of its own.
    assert_eq!(call(&writer).status, 200, "the writer's own budget");

    let sub = |token: &str| -> String {
        let payload = token.split('.').nth(1).expect("a JWT");
        let claims: Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(payload)
                .expect("base64url"),
        )
        .expect("claims");
        claims["sub"].as_str().expect("sub").to_string()
    };
    let (reader_sub, writer_sub) = (sub(&reader), sub(&writer));
    assert_ne!(reader_sub, writer_sub);
    let until = Instant::now() + TIMEOUT;
    let calls = loop {
        let calls: Vec<Value> = serve
            .log()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["method"] == "tools/call")
            .collect();
        if calls.len() >= 3 || Instant::now() > until {
            break calls;
        }
        std::thread::yield_now();
    };
    let callers: Vec<&str> = calls.iter().filter_map(|v| v["caller"].as_str()).collect();
    assert_eq!(
        callers,
        [
            reader_sub.as_str(),
            reader_sub.as_str(),
            writer_sub.as_str()
        ],
        "{calls:?}"
    );
    let log = serve.log();
    assert!(
        !log.contains(&reader) && !log.contains(&writer),
        "a token in the log"
    );
}

/// The search facade and code mode follow the caller's scopes as `tools/list` does: a
/// read-scoped caller's search_tools, describe_tools and search_api never answer the
/// write tool (nor its schema), and its script's `api` call of it fails naming the
/// missing scope with nothing sent upstream; a write-scoped caller's succeeds.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn search_facade_and_code_mode_follow_the_callers_scopes() {
    let issuer = Issuer::start();
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    let cred = format!("token:{UPSTREAM_CREDENTIAL}");
    let env = [("MCPDESC_CREDENTIAL_OAUTH", cred.as_str())];
    let start = |up: &Recorder, discovery: &str| {
        Serve::start(
            &desc,
            &[
                "--base-url",
                &up.base(),
                "--auth-issuer",
                &issuer.url,
                "--discovery",
                discovery,
            ],
            &env,
        )
    };
    let call = |serve: &Serve, token: &str, name: &str, args: Value| {
        let r = serve.rpc(
            "/mcp",
            Some(token),
            "tools/call",
            json!({"name": name, "arguments": args}),
        );
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        r
    };
    let names = |r: &Resp| -> Vec<String> {
        r.json()["result"]["structuredContent"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().or_else(|| t["name"].as_str()).map(String::from))
            .collect()
    };
    let is_error = |r: &Resp| r.json()["result"]["isError"] == json!(true);

    // --discovery search.
    let up = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let serve = start(&up, "search");
    // Ready: the issuer's metadata and JWKS were fetched (the `auth-issuer` gate).
    let r = http(&serve.base, "GET", "/readyz", &[], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    let resource = format!("{}/mcp", serve.base);
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let writer = issuer.token("writer", "notes:read notes:write", Some(&resource));
    // The write tool ranks first for this query; the reader still gets `limit` hits,
    // of the tools it may call.
    let q = json!({"query": "create notes", "limit": 1});
    let r = call(&serve, &writer, "search_tools", q.clone());
    assert_eq!(names(&r), ["create_note"], "{}", r.text());
    let r = call(&serve, &reader, "search_tools", q);
    assert_eq!(names(&r), ["list_notes"], "{}", r.text());
    assert!(!r.text().contains("create_note"), "{}", r.text());
    let r = call(
        &serve,
        &reader,
        "search_tools",
        json!({"query": "create notes", "limit": 10}),
    );
    assert_eq!(names(&r), ["list_notes"], "{}", r.text());
    // describe_tools: the write tool is unknown to the reader, its schema never shown,
    // and a near miss does not suggest it.
    let r = call(
        &serve,
        &reader,
        "describe_tools",
        json!({"names": ["list_notes", "create_note"]}),
    );
    assert!(is_error(&r), "{}", r.text());
    assert!(!r.text().contains("inputSchema"), "{}", r.text());
    let r = call(
        &serve,
        &reader,
        "describe_tools",
        json!({"names": ["creat_note"]}),
    );
    assert!(
        is_error(&r) && !r.text().contains("create_note"),
        "{}",
        r.text()
    );
    let r = call(
        &serve,
        &writer,
        "describe_tools",
        json!({"names": ["creat_note"]}),
    );
    assert!(r.text().contains("create_note"), "{}", r.text());
    let r = call(
        &serve,
        &reader,
        "describe_tools",
        json!({"names": ["list_notes"]}),
    );
    assert_eq!(names(&r), ["list_notes"], "{}", r.text());
    let r = call(
        &serve,
        &writer,
        "describe_tools",
        json!({"names": ["create_note"]}),
    );
    assert_eq!(names(&r), ["create_note"], "{}", r.text());
    assert!(r.text().contains("inputSchema"), "{}", r.text());
    assert!(up.requests().is_empty());
    drop(serve);

    // --discovery code.
    let up = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let serve = start(&up, "code");
    let resource = format!("{}/mcp", serve.base);
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let writer = issuer.token("writer", "notes:read notes:write", Some(&resource));
    for q in ["create notes", ""] {
        let r = call(&serve, &reader, "search_api", json!({"query": q}));
        assert_eq!(names(&r), ["list_notes"], "{}", r.text());
        let t = r.text().to_lowercase();
        assert!(
            !t.contains("create_note") && !t.contains("createnote"),
            "{t}"
        );
        let r = call(&serve, &writer, "search_api", json!({"query": q}));
        assert!(
            names(&r).contains(&"create_note".to_string()),
            "{}",
            r.text()
        );
    }
    let write = "return await api.create_note({text: 'hi'});";
    let r = call(&serve, &reader, "execute", json!({"code": write}));
    assert!(is_error(&r), "{}", r.text());
    let t = result_text(&r);
    assert!(
        t.contains("insufficient_scope") && t.contains("notes:write"),
        "{t}"
    );
    assert!(
        up.requests().is_empty(),
        "the upstream got {:?}",
        up.requests()
    );
    let r = call(
        &serve,
        &reader,
        "execute",
        json!({"code": "return await api.list_notes({});"}),
    );
    assert!(!is_error(&r), "{}", r.text());
    assert_eq!(up.requests().len(), 1);
    let r = call(&serve, &writer, "execute", json!({"code": write}));
    assert!(!is_error(&r), "{}", r.text());
    let reqs = up.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].method, "POST");
    let log = serve.log();
    for t in [&reader, &writer] {
        assert!(!log.contains(t.as_str()));
    }
}

#[test]
fn auth_issuer_refuses_another_use_of_the_authorization_header() {
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    for (extra, why) in [
        (
            vec!["--inbound-token-env", "TOK"],
            "--auth-issuer and --inbound-token-env",
        ),
        (
            vec!["--forward-header", "Authorization"],
            "token passthrough",
        ),
    ] {
        let o = Command::new(mcpdesc_bin())
            .arg("serve")
            .arg(&desc)
            .args([
                "--http",
                "127.0.0.1:0",
                "--auth-issuer",
                "https://as.example",
            ])
            .args(&extra)
            .env("TOK", "x")
            .output()
            .expect("serve");
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(why), "{extra:?}: {err}");
    }
}

/// The claims of a JWT, its signature checked against the issuer's key rsa1 (the
/// fixture signs exchanged tokens with it): an oracle independent of the gateway.
fn verified_claims(token: &str) -> Value {
    let jwks: Value =
        serde_json::from_str(include_str!("../../crates/mcpdesc-auth/testdata/jwks.json"))
            .expect("jwks");
    let jwk = jwks["keys"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|k| k["kid"] == "rsa1")
        .expect("rsa1");
    let key = jsonwebtoken::DecodingKey::from_rsa_components(
        jwk["n"].as_str().expect("n"),
        jwk["e"].as_str().expect("e"),
    )
    .expect("key");
    let mut v = jsonwebtoken::Validation::new(Algorithm::RS256);
    v.validate_aud = false;
    jsonwebtoken::decode::<Value>(token, &key, &v)
        .expect("a JWT signed by the issuer")
        .claims
}

/// Waits until the server's log has a line containing `what`.
fn await_log(serve: &Serve, what: &str) -> String {
    let until = Instant::now() + TIMEOUT;
    loop {
        let log = serve.log();
        if log.contains(what) || Instant::now() > until {
            return log;
        }
        std::thread::yield_now();
    }
}

/// `--upstream-token-exchange oauth` (RFC 8693): the upstream gets, per caller, a token
/// the issuer minted for the upstream (`aud`: the base URL the request goes to) on the
/// caller's behalf (`sub`: the caller's), never the caller's own token nor the gateway's
/// configured credential. A second call within the token's lifetime exchanges nothing
/// (counted at the provider); two callers get different tokens; a refused exchange is a
/// tool error naming it, nothing sent upstream, no token in the answer or the log.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn token_exchange_gives_the_upstream_a_token_for_it_on_the_callers_behalf() {
    let issuer = Issuer::start();
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    let up = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let configured = format!("token:{UPSTREAM_CREDENTIAL}");
    let serve = Serve::start(
        &desc,
        &[
            "--base-url",
            &up.base(),
            "--auth-issuer",
            &issuer.url,
            "--auth-client-credential",
            "GW_CRED",
            "--upstream-token-exchange",
            "oauth",
        ],
        &[
            ("GW_CRED", "gateway:gateway-secret"),
            ("MCPDESC_CREDENTIAL_OAUTH", configured.as_str()),
        ],
    );
    let resource = format!("{}/mcp", serve.base);
    let exchanges = || -> u64 {
        http(&issuer.url, "GET", "/test/exchanges", &[], b"").json()["count"]
            .as_u64()
            .expect("count")
    };
    let call = |token: &str| {
        let r = serve.rpc(
            "/mcp",
            Some(token),
            "tools/call",
            json!({"name": "list_notes", "arguments": {}}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r
    };
    let upstream_token = |i: usize| -> String {
        let reqs = up.requests();
        let auth = reqs[i].header("authorization").expect("authorization");
        auth.strip_prefix("Bearer ").expect("bearer").to_string()
    };
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let writer = issuer.token("writer", "notes:read notes:write", Some(&resource));
    let reader_sub = verified_claims(&reader)["sub"].clone();
    let writer_sub = verified_claims(&writer)["sub"].clone();
    assert_ne!(reader_sub, writer_sub);
    assert_eq!(exchanges(), 0);

    let r = call(&reader);
    assert_eq!(
        r.json()["result"]["structuredContent"],
        json!({"notes": []}),
        "{}",
        r.text()
    );
    let first = upstream_token(0);
    assert_ne!(first, reader);
    assert_ne!(first, UPSTREAM_CREDENTIAL);
    let claims = verified_claims(&first);
    assert_eq!(claims["aud"], json!(up.base()), "{claims}");
    assert_eq!(claims["sub"], reader_sub, "{claims}");
    assert_eq!(claims["iss"], json!(issuer.url), "{claims}");
    assert_eq!(claims["act"]["sub"], "gateway", "{claims}");
    assert_eq!(exchanges(), 1);

    // Within the token's lifetime: the cached token, no second exchange.
    call(&reader);
    assert_eq!(upstream_token(1), first);
    assert_eq!(exchanges(), 1);

    // Another caller: a token of its own.
    call(&writer);
    let second = upstream_token(2);
    assert_ne!(second, first);
    assert_ne!(second, writer);
    let claims = verified_claims(&second);
    assert_eq!(claims["sub"], writer_sub, "{claims}");
    assert_eq!(claims["aud"], json!(up.base()), "{claims}");
    assert_eq!(exchanges(), 2);

    // An opaque token is a valid caller (introspected) the issuer will not exchange
    // (the fixture exchanges JWT access tokens only): a tool error naming the refusal,
    // nothing sent upstream.
    let opaque = issuer.token("reader", "notes:read", None);
    let r = call(&opaque);
    assert_eq!(r.json()["result"]["isError"], json!(true), "{}", r.text());
    let text = result_text(&r);
    assert!(
        text.contains("exchange") && text.contains("invalid_grant"),
        "{text}"
    );
    assert!(!r.text().contains(&opaque), "{}", r.text());
    assert_eq!(up.requests().len(), 3);

    let log = await_log(&serve, "invalid_grant");
    assert!(log.contains("invalid_grant"), "{log}");
    for t in [&reader, &writer, &opaque, &first, &second] {
        assert!(!log.contains(t.as_str()), "a token in the log");
    }
    for req in up.requests() {
        let wire = format!("{} {:?} {}", req.target, req.headers, req.body_text());
        for t in [&reader, &writer, &opaque] {
            assert!(
                !wire.contains(t.as_str()),
                "an inbound token reached the upstream"
            );
        }
        assert!(!wire.contains(UPSTREAM_CREDENTIAL));
    }
}

/// `--upstream-token-exchange` is refused at start (exit 2, naming why) without the
/// gateway's client credential or for a scheme the description does not declare.
#[test]
fn token_exchange_is_checked_at_start() {
    let dir = tempfile::tempdir().expect("tmp");
    let desc = notes(dir.path());
    for (extra, why) in [
        (
            vec!["--upstream-token-exchange", "oauth"],
            "--upstream-token-exchange needs --auth-client-credential",
        ),
        (
            vec![
                "--upstream-token-exchange",
                "nope",
                "--auth-client-credential",
                "GW",
            ],
            "declares no security scheme `nope`",
        ),
    ] {
        let o = Command::new(mcpdesc_bin())
            .arg("serve")
            .arg(&desc)
            .args([
                "--http",
                "127.0.0.1:0",
                "--auth-issuer",
                "https://as.example",
            ])
            .args(&extra)
            .env("GW", "gateway:gateway-secret")
            .output()
            .expect("serve");
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(why), "{extra:?}: {err}");
    }
}

/// The OpenAPI text `yaml`, written as `<name>.openapi.yaml` and imported.
fn import_api(dir: &std::path::Path, name: &str, yaml: &str) -> std::path::PathBuf {
    let src = dir.join(format!("{name}.openapi.yaml"));
    std::fs::write(&src, yaml).expect("write");
    let desc = dir.join(format!("{name}.mcpdesc.json"));
    let o = Command::new(mcpdesc_bin())
        .args(["import", "openapi"])
        .arg(&src)
        .arg("-o")
        .arg(&desc)
        .output()
        .expect("import");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    desc
}

/// A second API beside notes: its scheme is also named `oauth` but has its own scopes
/// (root `oauth: [tasks:read]`; `create_task` needs `tasks:write`).
const TASKS: &str = r#"openapi: 3.0.3
info:
  title: Tasks
  version: "1.0"
servers:
  - url: BASE
components:
  securitySchemes:
    oauth:
      type: oauth2
      flows:
        clientCredentials:
          tokenUrl: https://tasks-as.invalid/token
          scopes:
            tasks:read: read tasks
            tasks:write: write tasks
security:
  - oauth: [tasks:read]
paths:
  /tasks:
    get:
      operationId: list_tasks
      tags: [tasks]
      responses:
        "200":
          description: the tasks
          content:
            application/json:
              schema:
                type: object
    post:
      operationId: create_task
      tags: [tasks]
      security:
        - oauth: [tasks:write]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                text:
                  type: string
              required: [text]
      responses:
        "201":
          description: created
          content:
            application/json:
              schema:
                type: object
"#;

/// Each description's own upstream credential (`MCPDESC_CREDENTIAL_<PREFIX>_<SCHEME>`).
const TWO_CREDENTIALS: [(&str, &str); 2] = [
    (
        "MCPDESC_CREDENTIAL_NOTES_OAUTH",
        "token:notes-own-credential",
    ),
    (
        "MCPDESC_CREDENTIAL_TASKS_OAUTH",
        "token:tasks-own-credential",
    ),
];

/// The notes and tasks descriptions, each served by its own recorder.
fn notes_and_tasks(
    dir: &std::path::Path,
    up_notes: &Recorder,
    up_tasks: &Recorder,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let notes_yaml =
        std::fs::read_to_string(workspace_root().join("tests/fixtures/auth/notes.openapi.yaml"))
            .expect("notes")
            .replace("http://notes.invalid", &up_notes.base());
    let notes = import_api(dir, "notes", &notes_yaml);
    let tasks = import_api(dir, "tasks", &TASKS.replace("BASE", &up_tasks.base()));
    (notes, tasks)
}

/// A token signed with the issuer's own key (rsa1) for scopes its fixture does not hand
/// out.
fn mint(issuer: &Issuer, scope: &str, aud: &str) -> String {
    sign(
        RSA1,
        "rsa1",
        &json!({"iss": issuer.url, "aud": aud, "sub": "alice", "client_id": "app",
            "scope": scope, "exp": now() + 300, "iat": now()}),
    )
}

/// Two descriptions served together (issue 28 with issue 21's composition): each
/// tool's scopes are its own description's, although both name their scheme `oauth`;
/// the metadata covers both; toolset paths and `tool-scopes` globs (on the served,
/// prefixed names) follow the same rule; nothing reaches an upstream for a refused call.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn several_descriptions_keep_each_tools_own_scopes() {
    let issuer = Issuer::start();
    let dir = tempfile::tempdir().expect("tmp");
    let up_notes = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let up_tasks = Recorder::always(Reply::json(200, "{\"tasks\": []}"));
    let (notes, tasks) = notes_and_tasks(dir.path(), &up_notes, &up_tasks);
    let env = TWO_CREDENTIALS;
    let serve = Serve::start_many(&[&notes, &tasks], &["--auth-issuer", &issuer.url], &env);
    let resource = format!("{}/mcp", serve.base);
    let toolset = format!("{}/mcp/x/tasks", serve.base);
    let meta_url = format!("{}/.well-known/oauth-protected-resource/mcp", serve.base);
    let nothing_upstream = |what: &str| {
        assert!(
            up_notes.requests().is_empty() && up_tasks.requests().is_empty(),
            "{what}: an upstream got {:?} {:?}",
            up_notes.requests(),
            up_tasks.requests()
        );
    };

    // The metadata names every scope of both descriptions.
    let r = http(
        &serve.base,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["scopes_supported"],
        json!(["notes:read", "notes:write", "tasks:read", "tasks:write"]),
        "{}",
        r.text()
    );
    let r = http(
        &serve.base,
        "GET",
        "/.well-known/oauth-protected-resource/mcp/x/tasks",
        &[],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["resource"], json!(toolset));
    assert_eq!(
        r.json()["scopes_supported"],
        json!(["tasks:read", "tasks:write"]),
        "{}",
        r.text()
    );

    let call = |token: &str, path: &str, name: &str| {
        serve.rpc(
            path,
            Some(token),
            "tools/call",
            json!({"name": name, "arguments": if name.contains("create") {
                json!({"text": "hi"})
            } else {
                json!({})
            }}),
        )
    };
    let step_up = |r: &Resp, scope: &str, meta: &str| {
        assert_eq!(r.status, 403, "{}", r.text());
        assert_eq!(
            r.header("www-authenticate"),
            Some(
                format!(
                    "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{meta}\""
                )
                .as_str()
            )
        );
    };

    // A notes reader (a token of the real issuer): only notes' read tool.
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let r = serve.rpc("/mcp", Some(&reader), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(tool_names(&r), ["notes_list_notes"]);
    step_up(
        &call(&reader, "/mcp", "notes_create_note"),
        "notes:write",
        &meta_url,
    );
    step_up(
        &call(&reader, "/mcp", "tasks_list_tasks"),
        "tasks:read",
        &meta_url,
    );
    step_up(
        &call(&reader, "/mcp", "tasks_create_task"),
        "tasks:write",
        &meta_url,
    );
    nothing_upstream("the notes reader's refused calls");

    // A tasks reader (the issuer's key signs scopes its fixture does not hand out).
    let tasks_reader = mint(&issuer, "tasks:read", &resource);
    let r = serve.rpc("/mcp", Some(&tasks_reader), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(tool_names(&r), ["tasks_list_tasks"]);
    step_up(
        &call(&tasks_reader, "/mcp", "tasks_create_task"),
        "tasks:write",
        &meta_url,
    );
    step_up(
        &call(&tasks_reader, "/mcp", "notes_list_notes"),
        "notes:read",
        &meta_url,
    );
    // A notes:write scope does not open the tasks write tool (same scheme name `oauth`).
    let notes_writer = mint(&issuer, "notes:read notes:write tasks:read", &resource);
    step_up(
        &call(&notes_writer, "/mcp", "tasks_create_task"),
        "tasks:write",
        &meta_url,
    );
    nothing_upstream("the refused calls");

    // The permitted calls reach each one's own upstream with its own credential.
    for (token, name) in [
        (&reader, "notes_list_notes"),
        (&tasks_reader, "tasks_list_tasks"),
    ] {
        let r = call(token, "/mcp", name);
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        assert_ne!(r.json()["result"]["isError"], json!(true), "{}", r.text());
    }
    let writer = mint(
        &issuer,
        "notes:read notes:write tasks:read tasks:write",
        &resource,
    );
    let r = serve.rpc("/mcp", Some(&writer), "tools/list", json!({}));
    assert_eq!(
        tool_names(&r),
        [
            "notes_list_notes",
            "notes_create_note",
            "tasks_list_tasks",
            "tasks_create_task"
        ]
    );
    for name in ["notes_create_note", "tasks_create_task"] {
        let r = call(&writer, "/mcp", name);
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        assert_ne!(r.json()["result"]["isError"], json!(true), "{}", r.text());
    }
    let (n, t) = (up_notes.requests(), up_tasks.requests());
    assert_eq!(
        n.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(),
        ["GET", "POST"]
    );
    assert_eq!(
        t.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(),
        ["GET", "POST"]
    );
    for r in &n {
        assert_eq!(
            r.header("authorization"),
            Some("Bearer notes-own-credential")
        );
    }
    for r in &t {
        assert_eq!(
            r.header("authorization"),
            Some("Bearer tasks-own-credential")
        );
    }

    // A toolset path follows the same rule.
    let for_toolset = mint(&issuer, "notes:read notes:write tasks:read", &toolset);
    let r = serve.rpc("/mcp/x/tasks", Some(&for_toolset), "tools/list", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(tool_names(&r), ["tasks_list_tasks"]);
    step_up(
        &call(&for_toolset, "/mcp/x/tasks", "tasks_create_task"),
        "tasks:write",
        &format!(
            "{}/.well-known/oauth-protected-resource/mcp/x/tasks",
            serve.base
        ),
    );
    assert_eq!(up_tasks.requests().len(), 2, "a refused call reached tasks");
    drop(serve);

    // `tool-scopes` globs match the served (prefixed) names: `tasks_*` needs
    // tasks:admin; `list_notes` (a name only inside its description) matches nothing.
    let serve = Serve::start_many(
        &[&notes, &tasks],
        &[
            "--auth-issuer",
            &issuer.url,
            "--tool-scopes",
            "tasks_*=tasks:admin",
            "--tool-scopes",
            "list_notes=nobody",
        ],
        &env,
    );
    let resource = format!("{}/mcp", serve.base);
    let meta_url = format!("{}/.well-known/oauth-protected-resource/mcp", serve.base);
    let writer = mint(
        &issuer,
        "notes:read notes:write tasks:read tasks:write",
        &resource,
    );
    let r = serve.rpc("/mcp", Some(&writer), "tools/list", json!({}));
    assert_eq!(tool_names(&r), ["notes_list_notes", "notes_create_note"]);
    let r = serve.rpc(
        "/mcp",
        Some(&writer),
        "tools/call",
        json!({"name": "tasks_list_tasks", "arguments": {}}),
    );
    step_up(&r, "tasks:admin", &meta_url);
    let admin = mint(&issuer, "tasks:admin", &resource);
    let r = serve.rpc("/mcp", Some(&admin), "tools/list", json!({}));
    assert_eq!(tool_names(&r), ["tasks_list_tasks", "tasks_create_task"]);
    let r = http(
        &serve.base,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        b"",
    );
    assert_eq!(
        r.json()["scopes_supported"],
        json!(["notes:read", "notes:write", "tasks:admin"]),
        "{}",
        r.text()
    );
    assert_eq!(up_tasks.requests().len(), 2, "a refused call reached tasks");
}

/// The search facade and code mode over two descriptions: search never shows a tool of
/// either description the caller may not call, and `call_tool` / `execute` are checked
/// against the tool's own description's scopes, with nothing sent upstream.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn several_descriptions_search_facade_and_code_mode_follow_each_tools_scopes() {
    let issuer = Issuer::start();
    let dir = tempfile::tempdir().expect("tmp");
    let up_notes = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let up_tasks = Recorder::always(Reply::json(200, "{\"tasks\": []}"));
    let (notes, tasks) = notes_and_tasks(dir.path(), &up_notes, &up_tasks);
    let names = |r: &Resp| -> Vec<String> {
        let mut n: Vec<String> = r.json()["result"]["structuredContent"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().or_else(|| t["name"].as_str()).map(String::from))
            .collect();
        n.sort_unstable();
        n
    };
    let is_error = |r: &Resp| r.json()["result"]["isError"] == json!(true);
    let nothing_upstream = || {
        assert!(
            up_notes.requests().is_empty() && up_tasks.requests().is_empty(),
            "an upstream got {:?} {:?}",
            up_notes.requests(),
            up_tasks.requests()
        );
    };

    // --discovery search.
    let serve = Serve::start_many(
        &[&notes, &tasks],
        &["--auth-issuer", &issuer.url, "--discovery", "search"],
        &TWO_CREDENTIALS,
    );
    let resource = format!("{}/mcp", serve.base);
    let call = |token: &str, name: &str, args: Value| {
        serve.rpc(
            "/mcp",
            Some(token),
            "tools/call",
            json!({"name": name, "arguments": args}),
        )
    };
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let tasks_writer = mint(&issuer, "tasks:read tasks:write", &resource);
    let q = json!({"query": "create tasks notes", "limit": 10});
    let r = call(&reader, "search_tools", q.clone());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(names(&r), ["notes_list_notes"], "{}", r.text());
    assert!(!r.text().contains("tasks_"), "{}", r.text());
    let r = call(&tasks_writer, "search_tools", q);
    assert_eq!(
        names(&r),
        ["tasks_create_task", "tasks_list_tasks"],
        "{}",
        r.text()
    );
    let r = call(
        &reader,
        "describe_tools",
        json!({"names": ["tasks_create_task"]}),
    );
    assert!(
        is_error(&r) && !r.text().contains("inputSchema"),
        "{}",
        r.text()
    );
    // call_tool of the other description's write tool: the step-up 403.
    let r = call(
        &reader,
        "call_tool",
        json!({"name": "tasks_create_task", "arguments": {"text": "hi"}}),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(
        r.header("www-authenticate")
            .is_some_and(|c| c.contains("scope=\"tasks:write\"")),
        "{:?}",
        r.header("www-authenticate")
    );
    let r = call(
        &tasks_writer,
        "call_tool",
        json!({"name": "notes_list_notes", "arguments": {}}),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    nothing_upstream();
    let r = call(
        &tasks_writer,
        "call_tool",
        json!({"name": "tasks_create_task", "arguments": {"text": "hi"}}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(!is_error(&r), "{}", r.text());
    assert_eq!(up_tasks.requests().len(), 1);
    assert!(up_notes.requests().is_empty());
    drop(serve);

    // --discovery code.
    let serve = Serve::start_many(
        &[&notes, &tasks],
        &["--auth-issuer", &issuer.url, "--discovery", "code"],
        &TWO_CREDENTIALS,
    );
    let resource = format!("{}/mcp", serve.base);
    let call = |token: &str, name: &str, args: Value| {
        serve.rpc(
            "/mcp",
            Some(token),
            "tools/call",
            json!({"name": name, "arguments": args}),
        )
    };
    let reader = issuer.token("reader", "notes:read", Some(&resource));
    let r = call(
        &reader,
        "search_api",
        json!({"query": "create tasks notes"}),
    );
    assert_eq!(names(&r), ["notes_list_notes"], "{}", r.text());
    assert!(!r.text().contains("tasks_"), "{}", r.text());
    let r = call(
        &reader,
        "execute",
        json!({"code": "return await api.tasks_create_task({text: 'hi'});"}),
    );
    assert!(is_error(&r), "{}", r.text());
    let t = result_text(&r);
    assert!(
        t.contains("insufficient_scope") && t.contains("tasks:write"),
        "{t}"
    );
    assert_eq!(up_tasks.requests().len(), 1, "a refused call reached tasks");
    let r = call(
        &reader,
        "execute",
        json!({"code": "return await api.notes_list_notes({});"}),
    );
    assert!(!is_error(&r), "{}", r.text());
    assert_eq!(up_notes.requests().len(), 1);
}

/// The tasks description with these `transports` (written beside it).
fn with_transports(desc: &std::path::Path, name: &str, transports: Value) -> std::path::PathBuf {
    let mut d: Value =
        serde_json::from_str(&std::fs::read_to_string(desc).expect("read")).expect("json");
    d["transports"] = transports;
    let out = desc.with_file_name(format!("{name}.mcpdesc.json"));
    std::fs::write(&out, serde_json::to_vec_pretty(&d).expect("json")).expect("write");
    out
}

/// Spec §7.5 (a primitive's own `security`, then the selected transport's, then the
/// root's) for the transport the gateway serves, the description's `streamable-http`
/// entry, with one description and with two composed. Tasks' root needs `tasks:read`,
/// `create_task` its own `tasks:write`; its streamable-http transport needs `tasks:http`
/// (and its stdio transport nothing, which must not apply). Expectations by hand:
/// `list_tasks` needs `tasks:http`, not `tasks:read`; `create_task` still `tasks:write`.
#[test]
#[cfg_attr(
    mcpdesc_missing_node,
    ignore = ".deps/node is missing (cargo xtask deps)"
)]
fn the_streamable_http_transports_security_comes_between_the_tool_and_the_root() {
    let issuer = Issuer::start();
    let dir = tempfile::tempdir().expect("tmp");
    let up_notes = Recorder::always(Reply::json(200, "{\"notes\": []}"));
    let up_tasks = Recorder::always(Reply::json(200, "{\"tasks\": []}"));
    let (notes, tasks) = notes_and_tasks(dir.path(), &up_notes, &up_tasks);
    let stdio = json!({"type": "stdio", "command": "tasks", "security": []});
    let http_entry = |security: Value| json!({"type": "streamable-http", "url": "https://tasks.example/mcp", "security": security});
    let tasks_http = with_transports(
        &tasks,
        "tasks-http",
        json!([stdio, http_entry(json!([{"oauth": ["tasks:http"]}]))]),
    );
    // Each description's upstream credential, alone (unprefixed) and composed.
    let env = [
        TWO_CREDENTIALS[0],
        TWO_CREDENTIALS[1],
        ("MCPDESC_CREDENTIAL_OAUTH", "token:tasks-own-credential"),
    ];
    let step_up = |r: &Resp, scope: &str, meta: &str| {
        assert_eq!(r.status, 403, "{}", r.text());
        assert_eq!(
            r.header("www-authenticate"),
            Some(
                format!(
                    "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{meta}\""
                )
                .as_str()
            )
        );
    };
    let scopes_supported = |serve: &Serve| {
        let r = http(
            &serve.base,
            "GET",
            "/.well-known/oauth-protected-resource/mcp",
            &[],
            b"",
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["scopes_supported"].clone()
    };
    let call = |serve: &Serve, token: &str, name: &str| {
        serve.rpc(
            "/mcp",
            Some(token),
            "tools/call",
            json!({"name": name, "arguments": if name.contains("create") {
                json!({"text": "hi"})
            } else {
                json!({})
            }}),
        )
    };
    let list = |serve: &Serve, token: &str| {
        let r = serve.rpc("/mcp", Some(token), "tools/list", json!({}));
        assert_eq!(r.status, 200, "{}", r.text());
        tool_names(&r)
    };

    // One description, and the same description composed with notes.
    for (many, (list_tasks, create_task)) in [
        (false, ("list_tasks", "create_task")),
        (true, ("tasks_list_tasks", "tasks_create_task")),
    ] {
        let serve = if many {
            Serve::start_many(
                &[&notes, &tasks_http],
                &["--auth-issuer", &issuer.url],
                &env,
            )
        } else {
            Serve::start(&tasks_http, &["--auth-issuer", &issuer.url], &env)
        };
        let resource = format!("{}/mcp", serve.base);
        let meta_url = format!("{}/.well-known/oauth-protected-resource/mcp", serve.base);
        let before = up_tasks.requests().len();
        assert_eq!(
            scopes_supported(&serve),
            if many {
                json!(["notes:read", "notes:write", "tasks:http", "tasks:write"])
            } else {
                json!(["tasks:http", "tasks:write"])
            },
            "many: {many}"
        );
        // The root's scope no longer opens the inheriting tool.
        let root_reader = mint(&issuer, "tasks:read", &resource);
        assert!(list(&serve, &root_reader).is_empty(), "many: {many}");
        step_up(
            &call(&serve, &root_reader, list_tasks),
            "tasks:http",
            &meta_url,
        );
        assert_eq!(
            up_tasks.requests().len(),
            before,
            "a refused call reached tasks"
        );
        // The transport's scope does, and not the tool with its own requirement.
        let http_reader = mint(&issuer, "tasks:http", &resource);
        assert_eq!(list(&serve, &http_reader), [list_tasks]);
        step_up(
            &call(&serve, &http_reader, create_task),
            "tasks:write",
            &meta_url,
        );
        let r = call(&serve, &http_reader, list_tasks);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_ne!(r.json()["result"]["isError"], json!(true), "{}", r.text());
        let writer = mint(&issuer, "tasks:write", &resource);
        assert_eq!(list(&serve, &writer), [create_task]);
        let r = call(&serve, &writer, create_task);
        assert_eq!(r.status, 200, "{}", r.text());
        let got = up_tasks.requests();
        assert_eq!(
            got[before..]
                .iter()
                .map(|r| r.method.as_str())
                .collect::<Vec<_>>(),
            ["GET", "POST"]
        );
        if many {
            // notes (no transports) keeps its root's and its own.
            let notes_reader = issuer.token("reader", "notes:read", Some(&resource));
            assert_eq!(list(&serve, &notes_reader), ["notes_list_notes"]);
        }
    }

    // `security: []` on the transport: explicitly no authentication beyond a valid
    // token for the inheriting tool.
    let open = with_transports(&tasks, "tasks-open", json!([http_entry(json!([]))]));
    let serve = Serve::start(&open, &["--auth-issuer", &issuer.url], &env);
    let resource = format!("{}/mcp", serve.base);
    let nobody = mint(&issuer, "other", &resource);
    assert_eq!(list(&serve, &nobody), ["list_tasks"]);
    assert_eq!(scopes_supported(&serve), json!(["tasks:write"]));
    drop(serve);

    // Two streamable-http entries that disagree: the inheriting tool fails closed (403
    // naming no scope, listed to no one), for one description and composed; the tool
    // with its own requirement is unaffected.
    let two = with_transports(
        &tasks,
        "tasks-two",
        json!([
            http_entry(json!([])),
            http_entry(json!([{"oauth": ["tasks:http"]}]))
        ]),
    );
    for many in [false, true] {
        let serve = if many {
            Serve::start_many(&[&notes, &two], &["--auth-issuer", &issuer.url], &env)
        } else {
            Serve::start(&two, &["--auth-issuer", &issuer.url], &env)
        };
        let (list_tasks, create_task) = if many {
            ("tasks_list_tasks", "tasks_create_task")
        } else {
            ("list_tasks", "create_task")
        };
        let resource = format!("{}/mcp", serve.base);
        let meta_url = format!("{}/.well-known/oauth-protected-resource/mcp", serve.base);
        let before = up_tasks.requests().len();
        let all = mint(&issuer, "tasks:read tasks:write tasks:http", &resource);
        assert_eq!(list(&serve, &all), [create_task], "many: {many}");
        let r = call(&serve, &all, list_tasks);
        assert_eq!(r.status, 403, "{}", r.text());
        assert_eq!(
            r.header("www-authenticate"),
            Some(
                format!(
                    "Bearer error=\"insufficient_scope\", error_description=\"the tool's security requirement cannot be read\", resource_metadata=\"{meta_url}\""
                )
                .as_str()
            )
        );
        assert_eq!(
            up_tasks.requests().len(),
            before,
            "a refused call reached tasks"
        );
        let why = "streamable-http transports declare different security";
        let log = await_log(&serve, why);
        assert!(log.contains(why), "{log}");
    }
    // `--auth-list all` lists it (the call is still refused) without the composition's
    // internal marker.
    let serve = Serve::start_many(
        &[&notes, &two],
        &["--auth-issuer", &issuer.url, "--auth-list", "all"],
        &env,
    );
    let token = mint(&issuer, "tasks:http", &format!("{}/mcp", serve.base));
    let r = serve.rpc("/mcp", Some(&token), "tools/list", json!({}));
    assert!(tool_names(&r).contains(&"tasks_list_tasks".to_string()));
    assert!(
        !r.text().contains("x-mcpdesc-security-unresolved"),
        "{}",
        r.text()
    );
    assert_eq!(call(&serve, &token, "tasks_list_tasks").status, 403);
}
