//! JWT validation with a warm JWKS (issue 28 budget: ≤ 50 µs per request).

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
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
