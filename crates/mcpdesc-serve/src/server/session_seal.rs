//! Sealed session ids: sessions of the handshake revisions (2025-03-26 … 2025-11-25)
//! that any replica can serve, without load-balancer affinity and without a shared store.
//!
//! With `--session-key-env VAR` the `Mcp-Session-Id` an `initialize` answers with is the
//! session's state itself — what a later request needs: the negotiated revision, the
//! path the session was opened on and its creation time — sealed with XChaCha20-Poly1305
//! (authenticated encryption, a random 192-bit nonce per id) under a key every replica
//! shares. A replica that never saw the session opens the id and serves it; a changed,
//! truncated or foreign id (another key) does not open and is answered 404, as an
//! unknown session is. Nothing of the client is kept in it: this server sends no
//! server-initiated requests, so the client's capabilities and info are not needed after
//! `initialize`.
//!
//! Key material: VAR holds one key or several separated by commas, each 32 bytes as
//! base64 (standard or URL-safe, padded or not; e.g. `openssl rand -base64 32`) or as 64
//! hex digits. The first key seals; every key opens (rotation: add the new key second
//! everywhere, then move it first, then drop the old one).
//!
//! Lifetime: a sealed id is valid for [`SESSION_MAX_AGE`] from its creation on every
//! replica (an id carries no last-use time that replicas could share). Each replica
//! also keeps the sessions it served in memory for their in-flight calls (cancellation)
//! and forgets them after idling.
//!
//! `DELETE` of a sealed session ends it on the replica that received it: its calls
//! there are cancelled, and that replica refuses the id from then on (a local
//! revocation list, bounded, each entry kept until the id's own expiry). Another
//! replica that receives the id still serves it until [`SESSION_MAX_AGE`]: revocation
//! across replicas would need a shared store, which sealing is there to avoid. A client
//! that ends a session does not send its id again, so this only matters for an id that
//! leaked; treat a leaked id like a leaked token (rotate the key).

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use mcpdesc_core::ProtocolRevision;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a sealed session id is valid after its creation, on every replica.
pub const SESSION_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The prefix of a sealed id (its format version).
const PREFIX: &str = "s1.";
/// Associated data: binds the ciphertext to this use and format.
const AAD: &[u8] = b"mcpdesc serve session v1";
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
/// The longest id [`SessionKey::open`] looks at (a path is at most 1 KiB).
const MAX_ID_LEN: usize = 2048;

/// What a sealed session id carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionState {
    /// The negotiated revision.
    pub revision: ProtocolRevision,
    /// The HTTP path the session was opened on (a session answers on that path only).
    pub path: String,
    /// When it was opened, in seconds since the Unix epoch.
    pub created: u64,
}

/// Why key material was refused (the texts never show the material).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// No key at all.
    #[error("no key: give one or more 32-byte keys (base64 or 64 hex digits), comma-separated")]
    Empty,
    /// Key `n` (1-based) is not 32 bytes of base64 or hex.
    #[error(
        "key {0} is not 32 bytes as base64 or 64 hex digits (e.g. the output of `openssl rand -base64 32`)"
    )]
    Malformed(usize),
}

/// Why an id did not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// Not a sealed id of this format, or changed, or sealed under another key.
    #[error("the session id is not one this server set")]
    Invalid,
    /// Older than [`SESSION_MAX_AGE`] (or created in the future).
    #[error("the session expired")]
    Expired,
}

/// The keys that seal and open session ids.
pub struct SessionKey {
    keys: Vec<XChaCha20Poly1305>,
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionKey")
            .field("keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl SessionKey {
    /// Keys from the text of `--session-key-env`'s variable (see the module doc).
    pub fn parse(material: &str) -> Result<SessionKey, KeyError> {
        let mut keys = Vec::new();
        for (i, part) in material.split(',').map(str::trim).enumerate() {
            if part.is_empty() {
                continue;
            }
            let bytes = decode_key(part).ok_or(KeyError::Malformed(i + 1))?;
            keys.push(XChaCha20Poly1305::new(&bytes.into()));
        }
        if keys.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(SessionKey { keys })
    }

    /// The sealed id of `state` (visible ASCII, as MCP requires of session ids); `None`
    /// when no randomness is available.
    pub fn seal(&self, state: &SessionState) -> Option<String> {
        let mut plain = Vec::with_capacity(16 + state.path.len());
        plain.extend_from_slice(&state.created.to_be_bytes());
        let rev = state.revision.as_str().as_bytes();
        plain.push(u8::try_from(rev.len()).ok()?);
        plain.extend_from_slice(rev);
        plain.extend_from_slice(state.path.as_bytes());
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).ok()?;
        let key = self.keys.first()?;
        let sealed = key
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: &plain,
                    aad: AAD,
                },
            )
            .ok()?;
        let mut raw = nonce.to_vec();
        raw.extend_from_slice(&sealed);
        Some(format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
        ))
    }

    /// The state sealed in `id`, if one of the keys opens it and it is younger than
    /// `max_age` at `now`.
    pub fn open(
        &self,
        id: &str,
        now: SystemTime,
        max_age: Duration,
    ) -> Result<SessionState, OpenError> {
        if id.len() > MAX_ID_LEN {
            return Err(OpenError::Invalid);
        }
        let body = id.strip_prefix(PREFIX).ok_or(OpenError::Invalid)?;
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| OpenError::Invalid)?;
        if raw.len() < NONCE_LEN + TAG_LEN {
            return Err(OpenError::Invalid);
        }
        let (nonce, sealed) = raw.split_at(NONCE_LEN);
        let plain = self
            .keys
            .iter()
            .find_map(|k| {
                k.decrypt(
                    XNonce::from_slice(nonce),
                    Payload {
                        msg: sealed,
                        aad: AAD,
                    },
                )
                .ok()
            })
            .ok_or(OpenError::Invalid)?;
        let state = decode_state(&plain).ok_or(OpenError::Invalid)?;
        let now = now
            .duration_since(UNIX_EPOCH)
            .map_err(|_| OpenError::Expired)?
            .as_secs();
        // A clock a little behind another replica's is not an expiry.
        let skew = 60;
        if state.created > now.saturating_add(skew)
            || now.saturating_sub(state.created) >= max_age.as_secs()
        {
            return Err(OpenError::Expired);
        }
        Ok(state)
    }
}

/// Seconds since the Unix epoch, now.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn decode_state(plain: &[u8]) -> Option<SessionState> {
    let (created, rest) = plain.split_first_chunk::<8>()?;
    let (&len, rest) = rest.split_first()?;
    let len = usize::from(len);
    if rest.len() < len {
        return None;
    }
    let (rev, path) = rest.split_at(len);
    let revision = ProtocolRevision::parse(std::str::from_utf8(rev).ok()?)?;
    Some(SessionState {
        revision,
        path: String::from_utf8(path.to_vec()).ok()?,
        created: u64::from_be_bytes(*created),
    })
}

fn decode_key(s: &str) -> Option<[u8; 32]> {
    if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        let mut out = [0u8; 32];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        return Some(out);
    }
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|e| e.decode(s).ok())
        .and_then(|v| <[u8; 32]>::try_from(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Independent of the code under test: 32 bytes written out, and their base64 as
    // `openssl rand -base64 32` would print it (checked with Python's base64 module).
    const HEX_A: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    const B64_A: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    const HEX_B: &str = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

    fn state(created: u64) -> SessionState {
        SessionState {
            revision: ProtocolRevision::parse("2025-06-18").expect("revision"),
            path: "/mcp/x/pets".into(),
            created,
        }
    }

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    const T0: u64 = 1_800_000_000;

    #[test]
    fn round_trip_across_key_spellings() {
        let a = SessionKey::parse(HEX_A).expect("hex key");
        let b = SessionKey::parse(B64_A).expect("base64 key");
        let id = a.seal(&state(T0)).expect("sealed");
        assert!(id.starts_with("s1."));
        assert!(
            id.bytes().all(|c| (0x21..=0x7e).contains(&c)),
            "visible ASCII"
        );
        // Another replica holding the same key (spelled in base64) opens it.
        assert_eq!(b.open(&id, at(T0 + 10), SESSION_MAX_AGE), Ok(state(T0)));
        // Two seals of one state differ (random nonce).
        assert_ne!(id, a.seal(&state(T0)).expect("sealed"));
    }

    #[test]
    fn tampering_is_refused() {
        let k = SessionKey::parse(HEX_A).expect("key");
        let id = k.seal(&state(T0)).expect("sealed");
        let bytes = id.as_bytes();
        // Flip each character of the body in turn: none opens.
        for i in PREFIX.len()..bytes.len() {
            let mut t = bytes.to_vec();
            t[i] = if t[i] == b'A' { b'B' } else { b'A' };
            let t = String::from_utf8(t).expect("ascii");
            assert_eq!(
                k.open(&t, at(T0), SESSION_MAX_AGE),
                Err(OpenError::Invalid),
                "changed at {i}"
            );
        }
        assert_eq!(
            k.open(&id[..id.len() - 4], at(T0), SESSION_MAX_AGE),
            Err(OpenError::Invalid)
        );
        for junk in [
            "",
            "s1.",
            "s1.!!!",
            "0123456789abcdef0123456789abcdef",
            "s2.AAAA",
        ] {
            assert_eq!(
                k.open(junk, at(T0), SESSION_MAX_AGE),
                Err(OpenError::Invalid)
            );
        }
    }

    #[test]
    fn wrong_key_is_refused_and_rotation_opens() {
        let a = SessionKey::parse(HEX_A).expect("key");
        let b = SessionKey::parse(HEX_B).expect("key");
        let id = a.seal(&state(T0)).expect("sealed");
        assert_eq!(
            b.open(&id, at(T0), SESSION_MAX_AGE),
            Err(OpenError::Invalid)
        );
        // Rotation: the new key first seals, the old one still opens.
        let both = SessionKey::parse(&format!("{HEX_B}, {B64_A}")).expect("keys");
        assert_eq!(both.open(&id, at(T0), SESSION_MAX_AGE), Ok(state(T0)));
        let new_id = both.seal(&state(T0)).expect("sealed");
        assert_eq!(b.open(&new_id, at(T0), SESSION_MAX_AGE), Ok(state(T0)));
        assert_eq!(
            a.open(&new_id, at(T0), SESSION_MAX_AGE),
            Err(OpenError::Invalid)
        );
    }

    #[test]
    fn expiry() {
        let k = SessionKey::parse(HEX_A).expect("key");
        let id = k.seal(&state(T0)).expect("sealed");
        let max = Duration::from_secs(3600);
        assert!(k.open(&id, at(T0 + 3599), max).is_ok());
        assert_eq!(k.open(&id, at(T0 + 3600), max), Err(OpenError::Expired));
        // A little clock skew is tolerated, a creation far in the future is not.
        assert!(k.open(&id, at(T0 - 30), max).is_ok());
        assert_eq!(k.open(&id, at(T0 - 3600), max), Err(OpenError::Expired));
    }

    #[test]
    fn bad_key_material() {
        assert_eq!(SessionKey::parse("").err(), Some(KeyError::Empty));
        assert_eq!(SessionKey::parse(" , ").err(), Some(KeyError::Empty));
        assert_eq!(
            SessionKey::parse("short").err(),
            Some(KeyError::Malformed(1))
        );
        // 31 bytes of base64.
        assert_eq!(
            SessionKey::parse(&format!(
                "{HEX_A},AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg=="
            ))
            .err(),
            Some(KeyError::Malformed(2))
        );
        // The error never shows the material.
        let e = SessionKey::parse("sekrit-material").expect_err("refused");
        assert!(!e.to_string().contains("sekrit"));
        let k = SessionKey::parse(HEX_A).expect("key");
        assert!(!format!("{k:?}").contains("0001"));
    }
}

#[cfg(test)]
mod survivor_tests {
    use super::*;

    #[test]
    fn a_sealed_session_lives_24_hours() {
        // README: a sealed session id is valid for 24 h (86,400 s) after its creation.
        let k =
            SessionKey::parse("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
                .expect("key");
        let t0 = 1_800_000_000;
        let state = SessionState {
            revision: ProtocolRevision::parse("2025-06-18").expect("revision"),
            path: "/mcp".into(),
            created: t0,
        };
        let id = k.seal(&state).expect("sealed");
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
        assert!(k.open(&id, at(t0 + 86_399), SESSION_MAX_AGE).is_ok());
        assert_eq!(
            k.open(&id, at(t0 + 86_400), SESSION_MAX_AGE),
            Err(OpenError::Expired)
        );
    }
}
