//! HTTP grammar facts the workspace checks in several places (provenance validation,
//! the gateway's request building, CLI header flags): one definition each.

/// Whether `s` is an RFC 9110 §5.6.2 `token` (`1*tchar`): what an HTTP field name, a
/// method and a cookie name must be.
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::is_token;

    #[test]
    fn tokens_per_rfc_9110() {
        for ok in ["X-Api_Key.v2", "a", "!#$%&'*+-.^_`|~", "Authorization"] {
            assert!(is_token(ok), "{ok}");
        }
        for bad in [
            "", "a b", "a:b", "a\r\nb", "(x)", "é", "a/b", "a=b", "\"q\"",
        ] {
            assert!(!is_token(bad), "{bad:?}");
        }
    }
}
