//! A value that must never be shown: credentials, tokens, configured header values.

use std::fmt;

/// A credential or other secret string. `Debug` prints `<redacted>`, and there is no
/// `Display`: the value is reached only through [`Secret::expose`], at the one place
/// that sends it. No error, diagnostic, log line or transcript may contain it.
///
/// ```
/// use mcpdesc_core::Secret;
/// let s = Secret::new("hunter2");
/// assert_eq!(format!("{s:?}"), "<redacted>");
/// assert_eq!(s.expose(), "hunter2");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The value itself: only for the place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn debug_never_shows_the_value() {
        let s = Secret::new("s3cr3t-value");
        for shown in [
            format!("{s:?}"),
            format!("{s:#?}"),
            format!("{:?}", Some(&s)),
        ] {
            assert!(!shown.contains("s3cr3t"), "{shown}");
            assert!(shown.contains("<redacted>"), "{shown}");
        }
        assert_eq!(s.expose(), "s3cr3t-value");
    }
}
