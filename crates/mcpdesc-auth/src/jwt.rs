//! JWT access-token validation (RFC 9068 profile, RFC 8725 best practice), on
//! `jsonwebtoken`: the header is read first and refused unless its `alg` is one of
//! [`ALLOWED_ALGORITHMS`] (never `none`, never HMAC: an HMAC "verification" with a
//! public key as the secret is the classic forgery) and its `typ` is `at+jwt`/`JWT`;
//! the key is chosen by `kid` and must be of the algorithm's key type; then the
//! signature, `iss` (exactly), `aud` (contains the audience), `exp` and `nbf` (at most
//! [`LEEWAY_SECS`] of clock skew) are checked by `jsonwebtoken`.

use base64::Engine as _;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use std::collections::BTreeSet;

/// The only signature algorithms accepted.
pub const ALLOWED_ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Clock skew allowed on `exp` and `nbf`.
pub const LEEWAY_SECS: u64 = 60;

/// Keys tried for a token that names no `kid`.
const MAX_KEYS_TRIED: usize = 8;

/// What a token must satisfy.
#[derive(Debug, Clone)]
pub struct Checks {
    /// The issuer identifier, compared exactly.
    pub issuer: String,
    /// The audience the token's `aud` must contain.
    pub audience: String,
}

/// Why a token is refused (the text is for the server's log: it never quotes the token).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reject {
    #[error("not a JWT: {0}")]
    Malformed(String),
    #[error("algorithm `{0}` is not accepted (RS256/RS384/RS512/PS256/ES256/ES384/EdDSA only)")]
    Algorithm(String),
    #[error("typ `{0}` is not at+jwt or JWT")]
    Type(String),
    /// The token names a key the JWKS does not have (a refetch may find it).
    #[error("no key `{0}` in the issuer's JWKS")]
    UnknownKey(String),
    #[error("no key of the issuer fits algorithm {0:?}")]
    NoKey(Algorithm),
    #[error("{0}")]
    Invalid(String),
}

/// The claims the gateway uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Claims {
    pub sub: Option<String>,
    pub client_id: Option<String>,
    pub scopes: BTreeSet<String>,
    /// `exp` (seconds since the epoch), when the token has one.
    pub exp: Option<u64>,
}

impl Claims {
    /// Reads `sub`, `client_id` (else `azp`, else `appid` as Entra writes it), and
    /// the scopes from `scope` (space-separated) or `scp` (a string or an array).
    pub fn from_value(v: &Value) -> Claims {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
        let mut scopes = BTreeSet::new();
        for key in ["scope", "scp"] {
            match v.get(key) {
                Some(Value::String(s)) => {
                    scopes.extend(s.split(' ').filter(|x| !x.is_empty()).map(String::from));
                }
                Some(Value::Array(a)) => {
                    scopes.extend(a.iter().filter_map(Value::as_str).map(String::from));
                }
                _ => {}
            }
        }
        Claims {
            sub: s("sub"),
            client_id: s("client_id").or_else(|| s("azp")).or_else(|| s("appid")),
            scopes,
            exp: v.get("exp").and_then(Value::as_u64),
        }
    }
}

/// One usable verification key of a JWKS.
#[derive(Clone)]
pub struct Key {
    pub kid: Option<String>,
    /// The key's `alg`, when the JWK pins one.
    pub alg: Option<String>,
    kind: KeyKind,
    key: DecodingKey,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .field("kind", &self.kind)
            .finish()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    P256,
    P384,
    Ed25519,
}

/// The verification keys of a JWKS (keys of other types, encryption keys and
/// unparsable entries are left out).
#[derive(Debug, Clone, Default)]
pub struct KeySet {
    keys: Vec<Key>,
}

impl KeySet {
    /// Parses a JWKS document (`{"keys": [...]}`).
    pub fn parse(doc: &Value) -> Result<KeySet, String> {
        let Some(arr) = doc.get("keys").and_then(Value::as_array) else {
            return Err("the JWKS has no `keys` array".into());
        };
        let mut keys = Vec::new();
        for k in arr {
            if k.get("use")
                .and_then(Value::as_str)
                .is_some_and(|u| u != "sig")
            {
                continue;
            }
            let Ok(jwk) = serde_json::from_value::<Jwk>(k.clone()) else {
                continue;
            };
            let kind = match &jwk.algorithm {
                AlgorithmParameters::RSA(_) => KeyKind::Rsa,
                AlgorithmParameters::EllipticCurve(p) => match p.curve {
                    EllipticCurve::P256 => KeyKind::P256,
                    EllipticCurve::P384 => KeyKind::P384,
                    _ => continue,
                },
                AlgorithmParameters::OctetKeyPair(p) if p.curve == EllipticCurve::Ed25519 => {
                    KeyKind::Ed25519
                }
                _ => continue,
            };
            let Ok(key) = DecodingKey::from_jwk(&jwk) else {
                continue;
            };
            keys.push(Key {
                kid: jwk.common.key_id.clone(),
                alg: k.get("alg").and_then(Value::as_str).map(String::from),
                kind,
                key,
            });
        }
        Ok(KeySet { keys })
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn has_kid(&self, kid: &str) -> bool {
        self.keys.iter().any(|k| k.kid.as_deref() == Some(kid))
    }
}

/// The parts of a JWT's header read before anything is verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peek {
    pub alg: Algorithm,
    pub kid: Option<String>,
}

/// Whether `token` has a JWT's shape: three base64url segments, the first a JSON
/// object with `alg`. Anything else is an opaque token.
pub fn looks_like_jwt(token: &str) -> bool {
    header_json(token).is_some_and(|h| h.get("alg").is_some())
}

fn header_json(token: &str) -> Option<Value> {
    let mut parts = token.split('.');
    let (h, _, _, None) = (parts.next()?, parts.next()?, parts.next()?, parts.next()) else {
        return None;
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(h)
        .ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    v.is_object().then_some(v)
}

/// Reads the header and refuses it unless `alg` and `typ` are acceptable.
pub fn peek(token: &str) -> Result<Peek, Reject> {
    let Some(h) = header_json(token) else {
        return Err(Reject::Malformed(
            "expected three base64url segments with a JSON header".into(),
        ));
    };
    let alg_name = h.get("alg").and_then(Value::as_str).unwrap_or("(none)");
    let alg = ALLOWED_ALGORITHMS
        .iter()
        .copied()
        .find(|a| alg_str(*a) == alg_name)
        .ok_or_else(|| Reject::Algorithm(alg_name.chars().take(20).collect()))?;
    match h.get("typ").and_then(Value::as_str) {
        Some(t) if typ_ok(t) => {}
        Some(t) => return Err(Reject::Type(t.chars().take(40).collect())),
        None => return Err(Reject::Type("(absent)".into())),
    }
    if h.get("crit").is_some() {
        return Err(Reject::Malformed(
            "a `crit` header names extensions this server does not understand".into(),
        ));
    }
    Ok(Peek {
        alg,
        kid: h.get("kid").and_then(Value::as_str).map(String::from),
    })
}

fn typ_ok(t: &str) -> bool {
    let t = t.strip_prefix("application/").unwrap_or(t);
    t.eq_ignore_ascii_case("at+jwt") || t.eq_ignore_ascii_case("jwt")
}

fn alg_str(a: Algorithm) -> &'static str {
    match a {
        Algorithm::RS256 => "RS256",
        Algorithm::RS384 => "RS384",
        Algorithm::RS512 => "RS512",
        Algorithm::PS256 => "PS256",
        Algorithm::PS384 => "PS384",
        Algorithm::PS512 => "PS512",
        Algorithm::ES256 => "ES256",
        Algorithm::ES384 => "ES384",
        Algorithm::EdDSA => "EdDSA",
        Algorithm::HS256 => "HS256",
        Algorithm::HS384 => "HS384",
        Algorithm::HS512 => "HS512",
    }
}

fn kind_of(a: Algorithm) -> Option<KeyKind> {
    match a {
        Algorithm::RS256
        | Algorithm::RS384
        | Algorithm::RS512
        | Algorithm::PS256
        | Algorithm::PS384
        | Algorithm::PS512 => Some(KeyKind::Rsa),
        Algorithm::ES256 => Some(KeyKind::P256),
        Algorithm::ES384 => Some(KeyKind::P384),
        Algorithm::EdDSA => Some(KeyKind::Ed25519),
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => None,
    }
}

/// Validates `token` against `keys` and `checks`.
pub fn validate(token: &str, keys: &KeySet, checks: &Checks) -> Result<Claims, Reject> {
    let peek = peek(token)?;
    let Some(kind) = kind_of(peek.alg) else {
        return Err(Reject::Algorithm(alg_str(peek.alg).into()));
    };
    let fits = |k: &&Key| k.kind == kind && k.alg.as_deref().is_none_or(|a| a == alg_str(peek.alg));
    let candidates: Vec<&Key> = match &peek.kid {
        Some(kid) => {
            let named: Vec<&Key> = keys
                .keys
                .iter()
                .filter(|k| k.kid.as_deref() == Some(kid.as_str()))
                .collect();
            if named.is_empty() {
                return Err(Reject::UnknownKey(kid.chars().take(64).collect()));
            }
            named.into_iter().filter(fits).collect()
        }
        None => keys.keys.iter().filter(fits).take(MAX_KEYS_TRIED).collect(),
    };
    if candidates.is_empty() {
        return Err(Reject::NoKey(peek.alg));
    }
    let mut v = Validation::new(peek.alg);
    v.leeway = LEEWAY_SECS;
    v.validate_exp = true;
    v.validate_nbf = true;
    v.set_issuer(&[checks.issuer.as_str()]);
    v.set_audience(&[checks.audience.as_str()]);
    v.set_required_spec_claims(&["exp", "iss", "aud"]);
    let mut last = Reject::NoKey(peek.alg);
    for key in candidates {
        match jsonwebtoken::decode::<Value>(token, &key.key, &v) {
            Ok(data) => return Ok(Claims::from_value(&data.claims)),
            Err(e) => last = Reject::Invalid(describe(&e)),
        }
    }
    Err(last)
}

fn describe(e: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind as K;
    match e.kind() {
        K::InvalidSignature => "the signature does not verify".into(),
        K::ExpiredSignature => "the token has expired".into(),
        K::ImmatureSignature => "the token is not valid yet (nbf)".into(),
        K::InvalidIssuer => "the token is from another issuer".into(),
        K::InvalidAudience => "the token is for another audience".into(),
        K::MissingRequiredClaim(c) => format!("the token has no `{c}` claim"),
        K::InvalidAlgorithm => "the key does not fit the token's algorithm".into(),
        _ => "the token could not be verified".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header, encode};
    use serde_json::json;

    const ISS: &str = "https://issuer.example";
    const AUD: &str = "https://mcp.example.com/mcp";

    fn keys() -> KeySet {
        let doc: Value = serde_json::from_str(include_str!("../testdata/jwks.json")).expect("jwks");
        KeySet::parse(&doc).expect("parse")
    }

    fn checks() -> Checks {
        Checks {
            issuer: ISS.into(),
            audience: AUD.into(),
        }
    }

    fn now() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    }

    fn claims() -> Value {
        json!({"iss": ISS, "aud": AUD, "sub": "alice", "client_id": "app", "scope": "read write",
               "exp": now() + 300, "iat": now(), "nbf": now() - 5})
    }

    fn sign_with(alg: Algorithm, pem: &[u8], kid: &str, typ: &str, c: &Value) -> String {
        let key = match alg {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_der(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_der(pem),
            _ => EncodingKey::from_rsa_der(pem),
        };
        let mut h = Header::new(alg);
        h.kid = Some(kid.into());
        h.typ = Some(typ.into());
        encode(&h, c, &key).expect("sign")
    }

    const RSA1: &[u8] = include_bytes!("../testdata/rsa1.der");
    const RSA2: &[u8] = include_bytes!("../testdata/rsa2.der");

    fn rs(c: &Value) -> String {
        sign_with(Algorithm::RS256, RSA1, "rsa1", "at+jwt", c)
    }

    fn b64(b: &[u8]) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
    }

    #[test]
    fn every_allowed_algorithm_verifies() {
        let c = claims();
        let cases = [
            (Algorithm::RS256, RSA1, "rsa1"),
            (Algorithm::RS384, RSA1, "rsa1"),
            (Algorithm::RS512, RSA2, "rsa2"),
            (Algorithm::PS256, RSA1, "rsa1"),
            (
                Algorithm::ES256,
                include_bytes!("../testdata/ec256.der"),
                "ec256",
            ),
            (
                Algorithm::ES384,
                include_bytes!("../testdata/ec384.der"),
                "ec384",
            ),
            (
                Algorithm::EdDSA,
                include_bytes!("../testdata/ed25519.der"),
                "ed25519",
            ),
        ];
        for (alg, pem, kid) in cases {
            let t = sign_with(alg, pem, kid, "at+jwt", &c);
            let got = validate(&t, &keys(), &checks()).unwrap_or_else(|e| panic!("{alg:?}: {e}"));
            assert_eq!(got.sub.as_deref(), Some("alice"));
            assert_eq!(got.client_id.as_deref(), Some("app"));
            assert_eq!(
                got.scopes,
                ["read", "write"].map(String::from).into_iter().collect()
            );
        }
    }

    #[test]
    fn typ_variants() {
        for typ in ["at+jwt", "AT+JWT", "JWT", "application/at+jwt"] {
            let t = sign_with(Algorithm::RS256, RSA1, "rsa1", typ, &claims());
            assert!(validate(&t, &keys(), &checks()).is_ok(), "{typ}");
        }
        for typ in ["id_token+jwt", "dpop+jwt", "JOSE"] {
            let t = sign_with(Algorithm::RS256, RSA1, "rsa1", typ, &claims());
            assert!(
                matches!(validate(&t, &keys(), &checks()), Err(Reject::Type(_))),
                "{typ}"
            );
        }
    }

    #[test]
    fn forged_signature_under_known_kid() {
        let t = sign_with(Algorithm::RS256, RSA2, "rsa1", "at+jwt", &claims());
        assert_eq!(
            validate(&t, &keys(), &checks()),
            Err(Reject::Invalid("the signature does not verify".into()))
        );
        // A valid token with its payload swapped keeps a signature of other bytes.
        let good = rs(&claims());
        let parts: Vec<&str> = good.split('.').collect();
        let mut c = claims();
        c["scope"] = json!("read write admin");
        let evil = format!(
            "{}.{}.{}",
            parts[0],
            b64(&serde_json::to_vec(&c).expect("json")),
            parts[2]
        );
        assert!(matches!(
            validate(&evil, &keys(), &checks()),
            Err(Reject::Invalid(_))
        ));
    }

    #[test]
    fn alg_none_is_refused() {
        let h = b64(br#"{"alg":"none","typ":"at+jwt","kid":"rsa1"}"#);
        let p = b64(&serde_json::to_vec(&claims()).expect("json"));
        for t in [format!("{h}.{p}."), format!("{h}.{p}.AAAA")] {
            assert_eq!(
                validate(&t, &keys(), &checks()),
                Err(Reject::Algorithm("none".into()))
            );
        }
        let h = b64(br#"{"alg":"None","typ":"JWT"}"#);
        assert!(matches!(
            validate(&format!("{h}.{p}."), &keys(), &checks()),
            Err(Reject::Algorithm(_))
        ));
    }

    #[test]
    fn hs256_with_the_public_key_as_secret_is_refused() {
        // The public key, exactly as the JWKS publishes it and as PEM: both are refused
        // before any HMAC is computed.
        let pub_pem = include_str!("../testdata/rsa1.pub.pem");
        let doc: Value = serde_json::from_str(include_str!("../testdata/jwks.json")).expect("jwks");
        let jwk = doc["keys"][0].to_string();
        let n = doc["keys"][0]["n"].as_str().unwrap_or_default().to_string();
        for secret in [pub_pem.as_bytes(), jwk.as_bytes(), n.as_bytes()] {
            for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
                let mut h = Header::new(alg);
                h.kid = Some("rsa1".into());
                h.typ = Some("at+jwt".into());
                let t = encode(&h, &claims(), &EncodingKey::from_secret(secret)).expect("sign");
                assert!(matches!(
                    validate(&t, &keys(), &checks()),
                    Err(Reject::Algorithm(_))
                ));
            }
        }
    }

    #[test]
    fn key_type_must_match_the_algorithm() {
        // ES256 header naming an RSA key: no fitting key, nothing verified.
        let t = sign_with(
            Algorithm::ES256,
            include_bytes!("../testdata/ec256.der"),
            "rsa1",
            "at+jwt",
            &claims(),
        );
        assert_eq!(
            validate(&t, &keys(), &checks()),
            Err(Reject::NoKey(Algorithm::ES256))
        );
        // A JWK pinned to RS256 refuses a PS256 token.
        let mut doc: Value =
            serde_json::from_str(include_str!("../testdata/jwks.json")).expect("jwks");
        doc["keys"][0]["alg"] = json!("RS256");
        let pinned = KeySet::parse(&doc).expect("parse");
        let t = sign_with(Algorithm::PS256, RSA1, "rsa1", "at+jwt", &claims());
        assert!(matches!(
            validate(&t, &pinned, &checks()),
            Err(Reject::NoKey(_))
        ));
    }

    #[test]
    fn audience_issuer_and_times() {
        let cases: [(&str, Value, &str); 7] = [
            (
                "aud",
                json!("https://other.example/mcp"),
                "the token is for another audience",
            ),
            (
                "aud",
                json!(["https://mcp.example.com/mcp/x/other"]),
                "the token is for another audience",
            ),
            (
                "iss",
                json!("https://issuer.example/"),
                "the token is from another issuer",
            ),
            (
                "iss",
                json!("https://evil.example"),
                "the token is from another issuer",
            ),
            (
                "exp",
                json!(now() - LEEWAY_SECS - 5),
                "the token has expired",
            ),
            (
                "nbf",
                json!(now() + LEEWAY_SECS + 30),
                "the token is not valid yet (nbf)",
            ),
            ("exp", Value::Null, "the token has no `exp` claim"),
        ];
        for (claim, value, why) in cases {
            let mut c = claims();
            if value.is_null() {
                c.as_object_mut().map(|m| m.remove(claim));
            } else {
                c[claim] = value.clone();
            }
            assert_eq!(
                validate(&rs(&c), &keys(), &checks()),
                Err(Reject::Invalid(why.into())),
                "{claim}={value}"
            );
        }
        // Within the leeway, and an audience array containing ours.
        let mut c = claims();
        c["exp"] = json!(now() - 10);
        c["nbf"] = json!(now() + 10);
        c["aud"] = json!(["https://other.example", AUD]);
        assert!(validate(&rs(&c), &keys(), &checks()).is_ok());
        // No aud, no iss.
        for claim in ["aud", "iss"] {
            let mut c = claims();
            c.as_object_mut().map(|m| m.remove(claim));
            assert!(validate(&rs(&c), &keys(), &checks()).is_err(), "{claim}");
        }
    }

    #[test]
    fn malformed_and_unknown_kid() {
        for t in [
            "",
            "abc",
            "a.b",
            "a.b.c",
            "....",
            "eyJhbGciOiJSUzI1NiJ9",
            "a.b.c.d",
        ] {
            assert!(
                matches!(validate(t, &keys(), &checks()), Err(Reject::Malformed(_))),
                "{t}"
            );
            assert!(!looks_like_jwt(t));
        }
        let h = b64(br#"{"alg":"RS256","typ":"JWT","kid":"rsa1"}"#);
        let t = format!("{h}.bm90IGpzb24.c2ln");
        assert!(matches!(
            validate(&t, &keys(), &checks()),
            Err(Reject::Invalid(_))
        ));
        let t = sign_with(Algorithm::RS256, RSA1, "rotated", "at+jwt", &claims());
        assert_eq!(
            validate(&t, &keys(), &checks()),
            Err(Reject::UnknownKey("rotated".into()))
        );
        let h = b64(br#"{"alg":"RS256","typ":"JWT","crit":["exp"]}"#);
        assert!(matches!(
            validate(&format!("{h}.e30.c2ln"), &keys(), &checks()),
            Err(Reject::Malformed(_))
        ));
    }

    #[test]
    fn a_token_without_kid_tries_the_fitting_keys() {
        let mut h = Header::new(Algorithm::RS256);
        h.typ = Some("at+jwt".into());
        let key = EncodingKey::from_rsa_der(RSA2);
        let t = encode(&h, &claims(), &key).expect("sign");
        assert!(validate(&t, &keys(), &checks()).is_ok());
    }

    #[test]
    fn claims_from_the_issuers_shapes() {
        let c = Claims::from_value(&json!({"sub": "u", "azp": "cli", "scp": ["a", "b"]}));
        assert_eq!(c.client_id.as_deref(), Some("cli"));
        assert_eq!(c.scopes.len(), 2);
        let c = Claims::from_value(&json!({"appid": "x", "scp": "a  b"}));
        assert_eq!(c.client_id.as_deref(), Some("x"));
        assert_eq!(c.scopes, ["a", "b"].map(String::from).into_iter().collect());
    }

    #[test]
    fn jwks_skips_what_it_cannot_use() {
        let doc = json!({"keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "h"},
            {"kty": "RSA", "use": "enc", "n": "AQAB", "e": "AQAB", "kid": "e"},
            {"kty": "weird"},
            {"kty": "EC", "crv": "P-256", "x": "!!", "y": "!!"}
        ]});
        let k = KeySet::parse(&doc).expect("parse");
        assert!(k.is_empty());
        assert!(KeySet::parse(&json!({})).is_err());
        let h = b64(br#"{"alg":"RS256","typ":"JWT","kid":"h"}"#);
        assert!(validate(&format!("{h}.e30.c2ln"), &k, &checks()).is_err());
    }
}
