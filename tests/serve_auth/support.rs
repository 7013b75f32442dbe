//! The suite's set-up: the issuer (node-oidc-provider), `mcpdesc serve` under test,
//! HTTP/1.1 over std, tokens (the issuer's and minted by hand), and the descriptions
//! served, so that each test reads as what it checks.

use crate::recorder::{Recorder, Reply};
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpdesc_tests::{mcpdesc_bin, workspace_root};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The provider on a loopback port; killed when dropped.
pub struct Issuer {
    child: Child,
    pub url: String,
}

impl Issuer {
    pub fn start() -> Issuer {
        let root = workspace_root();
        let mut child = Command::new("node")
            .arg(root.join("tests/fixtures/auth/issuer.mjs"))
            .arg(root.join("crates/mcpdesc-auth/testdata"))
            .arg(mcpdesc_tests::deps_dir().join("node/node_modules"))
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
    pub fn token(&self, client: &str, scope: &str, resource: Option<&str>) -> String {
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

pub fn lines(r: impl Read + Send + 'static) -> Receiver<String> {
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

pub fn enc(s: &str) -> String {
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
pub struct Serve {
    child: Child,
    pub base: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Serve {
    pub fn start(desc: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Serve {
        Serve::start_many(&[desc], args, env)
    }

    /// Several descriptions served as one (`mcpdesc serve A B …`).
    pub fn start_many(descs: &[&std::path::Path], args: &[&str], env: &[(&str, &str)]) -> Serve {
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

    pub fn log(&self) -> String {
        self.log.lock().map(|v| v.join("\n")).unwrap_or_default()
    }

    /// One 2026-07-28 request at `path` with `token`.
    pub fn rpc(&self, path: &str, token: Option<&str>, method: &str, params: Value) -> Resp {
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
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, n: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// HTTP/1.1 with `Connection: close` over std (the bytes as sent and received).
pub fn http(base: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
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

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

pub fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

pub fn sign(key: &[u8], kid: &str, claims: &Value) -> String {
    let mut h = Header::new(Algorithm::RS256);
    h.kid = Some(kid.into());
    h.typ = Some("at+jwt".into());
    jsonwebtoken::encode(&h, claims, &EncodingKey::from_rsa_der(key)).expect("sign")
}

pub const RSA1: &[u8] = include_bytes!("../../crates/mcpdesc-auth/testdata/rsa1.der");
pub const RSA2: &[u8] = include_bytes!("../../crates/mcpdesc-auth/testdata/rsa2.der");

/// The description imported from tests/fixtures/auth/notes.openapi.yaml (root
/// security `oauth: [notes:read]`; `create_note` needs `notes:write`).
pub fn notes(dir: &std::path::Path) -> std::path::PathBuf {
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

pub fn tool_names(r: &Resp) -> Vec<String> {
    r.json()["result"]["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

pub const UPSTREAM_CREDENTIAL: &str = "gateway-own-upstream-credential";

/// The text of a tool result (its first content block).
pub fn result_text(r: &Resp) -> String {
    r.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The claims of a JWT, its signature checked against the issuer's key rsa1 (the
/// fixture signs exchanged tokens with it): an oracle independent of the gateway.
pub fn verified_claims(token: &str) -> Value {
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
pub fn await_log(serve: &Serve, what: &str) -> String {
    let until = Instant::now() + TIMEOUT;
    loop {
        let log = serve.log();
        if log.contains(what) || Instant::now() > until {
            return log;
        }
        std::thread::yield_now();
    }
}

/// The OpenAPI text `yaml`, written as `<name>.openapi.yaml` and imported.
pub fn import_api(dir: &std::path::Path, name: &str, yaml: &str) -> std::path::PathBuf {
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
pub const TASKS: &str = r#"openapi: 3.0.3
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
pub const TWO_CREDENTIALS: [(&str, &str); 2] = [
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
pub fn notes_and_tasks(
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

/// The tasks description with these `transports` (written beside it).
pub fn with_transports(
    desc: &std::path::Path,
    name: &str,
    transports: Value,
) -> std::path::PathBuf {
    let mut d: Value =
        serde_json::from_str(&std::fs::read_to_string(desc).expect("read")).expect("json");
    d["transports"] = transports;
    let out = desc.with_file_name(format!("{name}.mcpdesc.json"));
    std::fs::write(&out, serde_json::to_vec_pretty(&d).expect("json")).expect("write");
    out
}

impl Issuer {
    /// A JWT of the fixture's `reader` client (`notes:read`) for `resource`.
    pub fn reader(&self, resource: &str) -> String {
        self.token("reader", "notes:read", Some(resource))
    }

    /// A JWT of the fixture's `writer` client (`notes:read notes:write`) for `resource`.
    pub fn writer(&self, resource: &str) -> String {
        self.token("writer", "notes:read notes:write", Some(resource))
    }

    /// A token signed with the issuer's own key (rsa1) for scopes its fixture does not
    /// hand out.
    pub fn mint(&self, scope: &str, aud: &str) -> String {
        sign(
            RSA1,
            "rsa1",
            &json!({"iss": self.url, "aud": aud, "sub": "alice", "client_id": "app",
                "scope": scope, "exp": now() + 300, "iat": now()}),
        )
    }
}

impl Serve {
    /// The MCP endpoint `/mcp`: the resource a token for it names.
    pub fn resource(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The RFC 9728 metadata URL of `/mcp`.
    pub fn meta_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.base)
    }

    /// `tools/call` of `name` with `args` at `path`.
    pub fn call_at(&self, path: &str, token: &str, name: &str, args: Value) -> Resp {
        self.rpc(
            path,
            Some(token),
            "tools/call",
            json!({"name": name, "arguments": args}),
        )
    }

    /// `tools/call` of `name` with `args` at `/mcp`.
    pub fn call(&self, token: &str, name: &str, args: Value) -> Resp {
        self.call_at("/mcp", token, name, args)
    }

    /// The tool names `tools/list` at `/mcp` gives `token` (answered 200).
    pub fn tools(&self, token: &str) -> Vec<String> {
        let r = self.rpc("/mcp", Some(token), "tools/list", json!({}));
        assert_eq!(r.status, 200, "{}", r.text());
        tool_names(&r)
    }

    /// The RFC 9728 metadata at `path` (under `/.well-known/oauth-protected-resource`),
    /// answered 200.
    pub fn metadata(&self, path: &str) -> Value {
        let url = format!("/.well-known/oauth-protected-resource{path}");
        let r = http(&self.base, "GET", &url, &[], b"");
        assert_eq!(r.status, 200, "{url}: {}", r.text());
        r.json()
    }
}

/// What the tests call a tool with: a text for a tool that creates, nothing else.
pub fn args_for(name: &str) -> Value {
    if name.contains("create") {
        json!({"text": "hi"})
    } else {
        json!({})
    }
}

/// `r` is the RFC 6750 step-up challenge: 403 `insufficient_scope` naming `scope`,
/// pointing at the metadata `meta`.
pub fn assert_step_up(r: &Resp, scope: &str, meta: &str) {
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
}

/// The recorder standing for the notes API: `{"notes": []}` to every request.
pub fn notes_upstream() -> Recorder {
    Recorder::always(Reply::json(200, "{\"notes\": []}"))
}

/// The issuer and the notes description ([`notes`]), which a test serves once or more.
pub struct Notes {
    pub issuer: Issuer,
    pub desc: PathBuf,
    _dir: tempfile::TempDir,
}

impl Notes {
    /// Starts the issuer and imports the description.
    pub fn start() -> Notes {
        let issuer = Issuer::start();
        let dir = tempfile::tempdir().expect("tmp");
        let desc = notes(dir.path());
        Notes {
            issuer,
            desc,
            _dir: dir,
        }
    }

    /// `mcpdesc serve` of notes calling `up`, checking tokens at the issuer, with the
    /// gateway's own upstream credential ([`UPSTREAM_CREDENTIAL`]), `args` and `env`.
    pub fn serve(&self, up: &Recorder, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let (cred, base) = (format!("token:{UPSTREAM_CREDENTIAL}"), up.base());
        let mut all_args = vec!["--base-url", &base, "--auth-issuer", &self.issuer.url];
        all_args.extend_from_slice(args);
        let mut all_env = vec![("MCPDESC_CREDENTIAL_OAUTH", cred.as_str())];
        all_env.extend_from_slice(env);
        Serve::start(&self.desc, &all_args, &all_env)
    }
}

/// The issuer and two descriptions, notes and tasks, each calling its own recorder
/// ([`notes_and_tasks`]).
pub struct TwoApis {
    pub issuer: Issuer,
    pub up_notes: Recorder,
    pub up_tasks: Recorder,
    pub notes: PathBuf,
    pub tasks: PathBuf,
    _dir: tempfile::TempDir,
}

impl TwoApis {
    /// Starts the issuer and the recorders, and imports both descriptions.
    pub fn start() -> TwoApis {
        let issuer = Issuer::start();
        let dir = tempfile::tempdir().expect("tmp");
        let up_notes = notes_upstream();
        let up_tasks = Recorder::always(Reply::json(200, "{\"tasks\": []}"));
        let (notes, tasks) = notes_and_tasks(dir.path(), &up_notes, &up_tasks);
        TwoApis {
            issuer,
            up_notes,
            up_tasks,
            notes,
            tasks,
            _dir: dir,
        }
    }

    /// `descs` served as one (one alone: served as itself), checking tokens at the
    /// issuer, with `args` and `env`.
    pub fn serve(&self, descs: &[&Path], args: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut all_args = vec!["--auth-issuer", self.issuer.url.as_str()];
        all_args.extend_from_slice(args);
        Serve::start_many(descs, &all_args, env)
    }

    /// Notes and tasks served as one with each one's own upstream credential
    /// ([`TWO_CREDENTIALS`]) and `args`.
    pub fn serve_both(&self, args: &[&str]) -> Serve {
        self.serve(&[&self.notes, &self.tasks], args, &TWO_CREDENTIALS)
    }

    /// Neither upstream has been called.
    pub fn assert_nothing_upstream(&self, what: &str) {
        assert!(
            self.up_notes.requests().is_empty() && self.up_tasks.requests().is_empty(),
            "{what}: an upstream got {:?} {:?}",
            self.up_notes.requests(),
            self.up_tasks.requests()
        );
    }
}

/// `mcpdesc serve DESC --http 127.0.0.1:0 --auth-issuer https://as.example ARGS` with
/// `env`, which must refuse to start (exit 2): its standard error.
pub fn refused_at_start(desc: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let o = Command::new(mcpdesc_bin())
        .arg("serve")
        .arg(desc)
        .args([
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            "https://as.example",
        ])
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("serve");
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The tool names a search facade or code mode answer lists (`structuredContent.tools`,
/// names or objects with a `name`), sorted.
pub fn found_tools(r: &Resp) -> Vec<String> {
    let mut n: Vec<String> = r.json()["result"]["structuredContent"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().or_else(|| t["name"].as_str()).map(String::from))
        .collect();
    n.sort_unstable();
    n
}

/// The answer is a tool error (`isError`).
pub fn is_tool_error(r: &Resp) -> bool {
    r.json()["result"]["isError"] == json!(true)
}
