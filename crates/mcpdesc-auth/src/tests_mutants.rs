//! Tests a reviewer asked for when shown the mutants that survived a random sample of
//! this crate (issue 33): RFC 7662 introspection and RFC 8693 token exchange against a
//! loopback endpoint answering what each test writes, and the token hash (FIPS 180-2).

use crate::issuer::{
    ClientCredential, ExchangeError, Issuer, IssuerOptions, Metadata, SubjectToken, token_hash,
};
use crate::jwt::{Checks, KeySet, LEEWAY_SECS};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

const ISSUER: &str = "https://as.example";
const AUDIENCE: &str = "https://mcp.example/mcp";

/// One request the endpoint received: its head (request line and fields) and body.
#[derive(Debug, Clone)]
struct Seen {
    head: String,
    body: String,
}

/// A loopback HTTP/1.1 endpoint answering every request with `status` and `answer`
/// (one connection per request), recording what it received.
struct Endpoint {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Endpoint {
    fn answering(status: u16, answer: Value) -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/oauth", listener.local_addr().expect("addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let text = answer.to_string();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let mut reader = BufReader::new(conn.try_clone().expect("clone"));
                let (mut head, mut len) = (String::new(), 0usize);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':')
                        && k.eq_ignore_ascii_case("content-length")
                    {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; len];
                let _ = reader.read_exact(&mut body);
                log.lock().expect("log").push(Seen {
                    head,
                    body: String::from_utf8_lossy(&body).into_owned(),
                });
                let _ = write!(
                    conn,
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                );
            }
        });
        Endpoint { url, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("log").clone()
    }
}

/// An issuer with the gateway credential `gw` / `s:e t`, its token and introspection
/// endpoint at `endpoint`, sending the credential in the form when `post`.
fn issuer(endpoint: &str, post: bool) -> Issuer {
    let metadata = Metadata {
        issuer: ISSUER.into(),
        jwks_uri: format!("{ISSUER}/jwks"),
        token_endpoint: Some(endpoint.into()),
        introspection_endpoint: Some(endpoint.into()),
        introspection_post: post,
        token_post: post,
    };
    let opts = IssuerOptions {
        issuer: ISSUER.into(),
        client_credential: ClientCredential::parse("gw:s:e t"),
    };
    let keys = KeySet::parse(&json!({"keys": []})).expect("keys");
    Issuer::from_parts(opts, metadata, keys).expect("issuer")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

/// FIPS 180-2 Appendix B.1: SHA-256("abc").
#[test]
fn the_token_hash_is_sha_256() {
    let hex: String = token_hash("abc")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        hex,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn an_issuer_is_named_as_configured() {
    assert_eq!(issuer("http://127.0.0.1:9/x", false).issuer(), ISSUER);
}

/// RFC 7662 §2.2: `token_type` is the token's type (RFC 6749 §7.1, `Bearer`); a token
/// expired longer ago than the leeway is refused, one within it is not.
#[test]
fn introspection_accepts_bearer_tokens_and_refuses_long_expired_ones() {
    let checks = Checks {
        issuer: ISSUER.into(),
        audience: AUDIENCE.into(),
    };
    let check = |v: Value| Issuer::check_introspection(&v, &checks);
    for t in ["Bearer", "bearer", "access_token"] {
        assert!(
            check(json!({"active": true, "token_type": t})).is_ok(),
            "{t}"
        );
    }
    assert!(check(json!({"active": true, "token_type": "refresh_token"})).is_err());
    // Expired in 2001.
    assert!(check(json!({"active": true, "exp": 1_000_000_000u64})).is_err());
    assert!(check(json!({"active": true, "exp": now() - LEEWAY_SECS / 2})).is_ok());
    assert!(check(json!({"active": true, "exp": now() - LEEWAY_SECS - 30})).is_err());
}

/// An opaque token is introspected (RFC 7662 §2.1: `token` and `token_type_hint` in a
/// form POST, the gateway authenticated with `client_secret_post` here); the answer's
/// claims are the caller's. A non-200 answer refuses the token whatever its body says.
#[test]
fn an_opaque_token_is_introspected_at_the_endpoint() {
    let rt = runtime();
    let ok = Endpoint::answering(
        200,
        json!({"active": true, "sub": "bob", "aud": AUDIENCE, "token_type": "Bearer"}),
    );
    let iss = issuer(&ok.url, true);
    let claims = rt
        .block_on(iss.verify("opaque-abc", AUDIENCE))
        .expect("active token");
    assert_eq!(claims.sub.as_deref(), Some("bob"));
    let seen = ok.seen();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].head.starts_with("POST /oauth HTTP/1.1"), "{seen:?}");
    let mut pairs: Vec<&str> = seen[0].body.split('&').collect();
    pairs.sort_unstable();
    assert_eq!(
        pairs,
        [
            "client_id=gw",
            "client_secret=s%3Ae+t",
            "token=opaque-abc",
            "token_type_hint=access_token"
        ]
    );

    let refused = Endpoint::answering(401, json!({"active": true, "sub": "bob"}));
    let iss = issuer(&refused.url, true);
    assert!(rt.block_on(iss.verify("opaque-abc", AUDIENCE)).is_err());
    assert_eq!(refused.seen().len(), 1);
}

/// RFC 8693 §2.1 request with `client_secret_basic` (RFC 6749 §2.3.1: id and secret
/// form-urlencoded, then Basic); the issued token is cached per (caller token, scheme,
/// resource) while it lasts, and `refresh` asks again.
#[test]
fn a_token_exchange_follows_rfc_8693_and_is_cached() {
    let rt = runtime();
    let ep = Endpoint::answering(
        200,
        json!({
            "access_token": "up-1",
            "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "token_type": "Bearer",
            "expires_in": 3600
        }),
    );
    let iss = issuer(&ep.url, false);
    let subject = SubjectToken::new("caller-token");
    let resource = "https://api.example/";
    let first = rt
        .block_on(iss.exchange(&subject, "oauth", resource, false))
        .expect("exchanged");
    assert_eq!(first.expose(), "up-1");
    let seen = ep.seen();
    assert_eq!(seen.len(), 1);
    use base64::Engine as _;
    let basic = base64::engine::general_purpose::STANDARD.encode("gw:s%3Ae+t");
    assert!(
        seen[0].head.lines().any(|l| l
            .eq_ignore_ascii_case(&format!("authorization: Basic {basic}\r"))
            || l.eq_ignore_ascii_case(&format!("authorization: Basic {basic}"))),
        "{seen:?}"
    );
    let mut pairs: Vec<&str> = seen[0].body.split('&').collect();
    pairs.sort_unstable();
    assert_eq!(
        pairs,
        [
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange",
            "requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token",
            "resource=https%3A%2F%2Fapi.example%2F",
            "subject_token=caller-token",
            "subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token",
        ]
    );
    let again = rt
        .block_on(iss.exchange(&subject, "oauth", resource, false))
        .expect("cached");
    assert_eq!(again, first);
    assert_eq!((iss.exchanges_sent(), ep.seen().len()), (1, 1));
    rt.block_on(iss.exchange(&subject, "oauth", resource, true))
        .expect("refreshed");
    assert_eq!((iss.exchanges_sent(), ep.seen().len()), (2, 2));
}

/// An issued token goes into an `Authorization` field: a space or a control character
/// in it (RFC 9110 §5.5 field values; RFC 6750 §2.1 b64token) refuses the exchange.
#[test]
fn an_issued_token_a_header_cannot_carry_is_refused() {
    let rt = runtime();
    for bad in ["up 1", "up\u{7f}1"] {
        let ep = Endpoint::answering(
            200,
            json!({"access_token": bad, "token_type": "Bearer", "expires_in": 60}),
        );
        let iss = issuer(&ep.url, false);
        let got = rt.block_on(iss.exchange(&SubjectToken::new("t"), "oauth", "https://a/", false));
        assert!(
            matches!(got, Err(ExchangeError::Fetch { ref why, .. }) if why.contains("header")),
            "{bad:?}: {got:?}"
        );
    }
}

/// RFC 8037 §2: an Octet Key Pair signs with `Ed25519` (or Ed448); an OKP key naming
/// another curve (here the EC curve P-256, with RFC 8037 A.2's `x`) is no signing key
/// this server uses, so the key set skips it.
#[test]
fn an_octet_key_pair_on_another_curve_is_skipped() {
    let x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    let wrong = json!({"keys": [{"kty": "OKP", "crv": "P-256", "x": x, "kid": "p"}]});
    assert!(KeySet::parse(&wrong).expect("parse").is_empty());
    let right = json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": x, "kid": "e"}]});
    let keys = KeySet::parse(&right).expect("parse");
    assert_eq!(keys.len(), 1);
    assert!(keys.has_kid("e"));
}

/// An issued token never shows in logs: its `Debug` is the type and a redaction mark,
/// as the caller's token's is.
#[test]
fn an_upstream_tokens_debug_is_redacted() {
    let ep = Endpoint::answering(
        200,
        json!({"access_token": "up-secret", "token_type": "Bearer"}),
    );
    let iss = issuer(&ep.url, false);
    let t = runtime()
        .block_on(iss.exchange(&SubjectToken::new("t"), "oauth", "https://a/", false))
        .expect("exchanged");
    assert_eq!(format!("{t:?}"), "UpstreamToken(REDACTED)");
}

/// A JWT naming an unknown `kid` refetches the JWKS at once (a key rotation), but at
/// most once per `JWKS_REFETCH_INTERVAL`: a stream of forged `kid`s costs the issuer
/// one fetch.
#[test]
fn unknown_key_ids_refetch_the_jwks_once_per_interval() {
    use base64::Engine as _;
    let jwks = Endpoint::answering(200, json!({"keys": []}));
    let mut iss = issuer("http://127.0.0.1:9/unused", false);
    iss.metadata.jwks_uri = jwks.url.clone();
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    let token = |kid: &str| {
        let header = format!(r#"{{"alg":"RS256","typ":"at+jwt","kid":"{kid}"}}"#);
        format!("{}.{}.c2ln", b64(&header), b64("{}"))
    };
    let rt = runtime();
    assert!(
        rt.block_on(iss.verify(&token("rotated-1"), AUDIENCE))
            .is_err()
    );
    assert_eq!(jwks.seen().len(), 1, "the first unknown kid fetches");
    assert!(
        rt.block_on(iss.verify(&token("rotated-2"), AUDIENCE))
            .is_err()
    );
    assert_eq!(
        jwks.seen().len(),
        1,
        "the next one within the interval does not"
    );
    assert!(jwks.seen()[0].head.starts_with("GET /oauth HTTP/1.1"));
}
