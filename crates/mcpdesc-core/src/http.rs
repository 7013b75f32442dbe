//! HTTP grammar facts the workspace checks in several places (provenance validation,
//! the gateway's request building, CLI header flags, the live client), and the names
//! of the MCP transport's own headers: one definition each.

/// Whether `s` is an RFC 9110 §5.6.2 `token` (`1*tchar`): what an HTTP field name, a
/// method and a cookie name must be.
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Why a string is not an RFC 9110 §5.5 field value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FieldValueError {
    /// A control character other than an inner HTAB (CR, LF, NUL, DEL…): HTTP cannot
    /// carry it, and CR/LF would split the message.
    #[error("contains the control character 0x{0:02X}, which an HTTP field value cannot hold")]
    Control(u8),
    /// Space or HTAB at the start or end: it is optional whitespace around the value
    /// (RFC 9110 §5.5), which every recipient strips, so it cannot be sent.
    #[error("starts or ends with whitespace, which HTTP strips from a field value")]
    OuterWhitespace,
}

/// Checks an RFC 9110 §5.5 field value:
/// `field-value = *field-content`,
/// `field-content = field-vchar [ 1*( SP / HTAB / field-vchar ) field-vchar ]`, with
/// `field-vchar = VCHAR / obs-text`. So: no control character except HTAB, and HTAB or
/// SP only inside the value. The empty value is valid. Bytes ≥ 0x80 (obs-text, which
/// is how UTF-8 travels) are allowed.
///
/// ```
/// use mcpdesc_core::http::{check_field_value, FieldValueError};
/// assert_eq!(check_field_value("Bearer a\tb"), Ok(()));
/// assert_eq!(check_field_value("a\r\nX: y"), Err(FieldValueError::Control(b'\r')));
/// assert_eq!(check_field_value("\tx"), Err(FieldValueError::OuterWhitespace));
/// ```
pub fn check_field_value(s: &str) -> Result<(), FieldValueError> {
    if let Some(b) = s.bytes().find(|&b| (b < 0x20 && b != b'\t') || b == 0x7f) {
        return Err(FieldValueError::Control(b));
    }
    if s.starts_with([' ', '\t']) || s.ends_with([' ', '\t']) {
        return Err(FieldValueError::OuterWhitespace);
    }
    Ok(())
}

/// Whether `s` is an RFC 9110 §5.5 field value ([`check_field_value`]).
pub fn is_field_value(s: &str) -> bool {
    check_field_value(s).is_ok()
}

/// The MCP streamable HTTP transport's headers, lower-cased (field names compare
/// case-insensitively, RFC 9110 §5.1). Which revision has which is in
/// [`crate::revision`].
pub mod mcp {
    /// The session a server assigned at initialization.
    pub const SESSION_ID: &str = "mcp-session-id";
    /// The negotiated protocol revision, sent on every request after initialization.
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    /// 2026-07-28 routing header: the JSON-RPC method.
    pub const METHOD: &str = "mcp-method";
    /// 2026-07-28 routing header: the tool, prompt or resource named by the request.
    pub const NAME: &str = "mcp-name";
    /// Prefix of the headers that mirror `x-mcp-header` inputs.
    pub const PARAM_PREFIX: &str = "mcp-param-";
}

#[cfg(test)]
mod tests {
    use super::{FieldValueError, check_field_value, is_field_value, is_token};

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

    #[test]
    fn field_values_per_rfc_9110_section_5_5() {
        for ok in [
            "",
            "x",
            "Bearer abc.def",
            "a b",
            "a\tb",
            "a \t b",
            "\"quoted, with comma\"",
            "café",
            "!~",
            "=?base64?eA==?=",
        ] {
            assert!(is_field_value(ok), "{ok:?}");
        }
        for (bad, why) in [
            ("a\rb", FieldValueError::Control(b'\r')),
            ("a\nb", FieldValueError::Control(b'\n')),
            ("a\r\nSet-Cookie: x", FieldValueError::Control(b'\r')),
            ("a\0", FieldValueError::Control(0)),
            ("\x7f", FieldValueError::Control(0x7f)),
            ("a\x0bb", FieldValueError::Control(0x0b)),
            ("\tx", FieldValueError::OuterWhitespace),
            ("x\t", FieldValueError::OuterWhitespace),
            (" x", FieldValueError::OuterWhitespace),
            ("x ", FieldValueError::OuterWhitespace),
            ("\t", FieldValueError::OuterWhitespace),
            (" ", FieldValueError::OuterWhitespace),
        ] {
            assert_eq!(check_field_value(bad), Err(why), "{bad:?}");
        }
    }
}
