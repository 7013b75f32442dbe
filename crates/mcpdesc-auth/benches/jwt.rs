//! JWT validation with a warm JWKS (issue 28 budget: ≤ 50 µs per request): `validate`
//! per algorithm beside ring's signature check alone (the floor), and `Issuer::verify`
//! of a token seen before (remembered until its `exp`, at most 60 s).

use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use mcpdesc_auth::jwt::{Checks, KeySet, validate};
use serde_json::{Value, json};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let doc: Value = serde_json::from_str(include_str!("../testdata/jwks.json")).expect("jwks");
    let keys = KeySet::parse(&doc).expect("keys");
    let checks = Checks {
        issuer: "https://issuer.example".into(),
        audience: "https://mcp.example.com/mcp".into(),
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let claims = json!({"iss": checks.issuer, "aud": checks.audience, "sub": "alice",
        "scope": "read write", "exp": now + 3600, "iat": now});
    let cases: [(&str, Algorithm, &[u8], &str); 3] = [
        (
            "RS256",
            Algorithm::RS256,
            include_bytes!("../testdata/rsa1.der"),
            "rsa1",
        ),
        (
            "ES256",
            Algorithm::ES256,
            include_bytes!("../testdata/ec256.der"),
            "ec256",
        ),
        (
            "EdDSA",
            Algorithm::EdDSA,
            include_bytes!("../testdata/ed25519.der"),
            "ed25519",
        ),
    ];
    for (name, alg, pem, kid) in cases {
        let key = match alg {
            Algorithm::ES256 => EncodingKey::from_ec_der(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_der(pem),
            _ => EncodingKey::from_rsa_der(pem),
        };
        let mut h = Header::new(alg);
        h.kid = Some(kid.into());
        h.typ = Some("at+jwt".into());
        let token = encode(&h, &claims, &key).expect("sign");
        c.bench_function(&format!("validate {name}"), |b| {
            b.iter(|| validate(black_box(&token), &keys, &checks).expect("valid"))
        });
        // The floor: ring's signature check alone, from the JWK's key material.
        let (msg, sig) = token.rsplit_once('.').expect("jwt");
        let sig = base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, sig)
            .expect("sig");
        let jwk = doc["keys"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|k| k["kid"] == kid)
            .expect("jwk");
        let b = |k: &str| {
            base64::Engine::decode(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                jwk[k].as_str().unwrap_or(""),
            )
            .unwrap_or_default()
        };
        use ring::signature as rs;
        match alg {
            Algorithm::RS256 => {
                let (n, e) = (b("n"), b("e"));
                c.bench_function(&format!("ring floor {name}"), |bch| {
                    bch.iter(|| {
                        rs::RsaPublicKeyComponents { n: &n, e: &e }
                            .verify(&rs::RSA_PKCS1_2048_8192_SHA256, msg.as_bytes(), &sig)
                            .expect("ok")
                    })
                });
            }
            Algorithm::ES256 => {
                let mut point = vec![4u8];
                point.extend(b("x"));
                point.extend(b("y"));
                let key = rs::UnparsedPublicKey::new(&rs::ECDSA_P256_SHA256_FIXED, point);
                c.bench_function(&format!("ring floor {name}"), |bch| {
                    bch.iter(|| key.verify(msg.as_bytes(), &sig).expect("ok"))
                });
            }
            _ => {
                let key = rs::UnparsedPublicKey::new(&rs::ED25519, b("x"));
                c.bench_function(&format!("ring floor {name}"), |bch| {
                    bch.iter(|| key.verify(msg.as_bytes(), &sig).expect("ok"))
                });
            }
        }
    }
}

/// `Issuer::verify` of a token it verified before: its SHA-256 and a map lookup.
fn remembered(c: &mut Criterion) {
    let doc: Value = serde_json::from_str(include_str!("../testdata/jwks.json")).expect("jwks");
    let iss = "https://issuer.example";
    let aud = "https://mcp.example.com/mcp";
    let issuer = mcpdesc_auth::Issuer::from_parts(
        mcpdesc_auth::IssuerOptions {
            issuer: iss.into(),
            client_credential: None,
        },
        mcpdesc_auth::Metadata {
            issuer: iss.into(),
            jwks_uri: format!("{iss}/jwks"),
            token_endpoint: None,
            introspection_endpoint: None,
            introspection_post: false,
            token_post: false,
        },
        KeySet::parse(&doc).expect("keys"),
    )
    .expect("issuer");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let claims = json!({"iss": iss, "aud": aud, "sub": "alice", "scope": "read write",
        "exp": now + 3600, "iat": now});
    let mut h = Header::new(Algorithm::RS256);
    h.kid = Some("rsa1".into());
    h.typ = Some("at+jwt".into());
    let token = encode(
        &h,
        &claims,
        &EncodingKey::from_rsa_der(include_bytes!("../testdata/rsa1.der")),
    )
    .expect("sign");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("rt");
    rt.block_on(issuer.verify(&token, aud)).expect("valid");
    c.bench_function("Issuer::verify RS256, remembered", |b| {
        b.iter(|| {
            rt.block_on(issuer.verify(black_box(&token), aud))
                .expect("valid")
        })
    });
}

criterion_group!(benches, bench, remembered);
criterion_main!(benches);
