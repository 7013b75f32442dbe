//! Origins (RFC 6454) and the outbound allow-list: which scheme/host/port a request
//! may go to. Pure (the `url` crate's WHATWG parser, the one reqwest uses, and no
//! I/O), so request planning and the credential rules can name origins without the
//! HTTP client.

use std::collections::BTreeSet;
use std::fmt;

/// An origin (RFC 6454): scheme, host (lower-case), port.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    pub scheme: String,
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// The origin of an absolute `http`/`https` URL; `None` for anything else.
    pub fn of_url(url: &str) -> Option<Origin> {
        let u = url::Url::parse(url).ok()?;
        Origin::of(&u)
    }

    /// The origin of a parsed `http`/`https` URL; `None` for any other scheme.
    pub fn of(u: &url::Url) -> Option<Origin> {
        if !matches!(u.scheme(), "http" | "https") {
            return None;
        }
        Some(Origin {
            scheme: u.scheme().to_string(),
            host: u.host_str()?.to_ascii_lowercase(),
            port: u.port_or_known_default()?,
        })
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// Which origins requests may go to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Allowlist {
    origins: BTreeSet<Origin>,
    /// An allowed `HOST`: any scheme and port.
    hosts: BTreeSet<String>,
    /// An allowed `HOST:PORT`: either scheme.
    host_ports: BTreeSet<(String, u16)>,
}

impl Allowlist {
    /// Adds one allowed host: `HOST`, `HOST:PORT` or an origin `http(s)://HOST[:PORT]`
    /// ([`RestOptions::allow_hosts`](crate::RestOptions::allow_hosts)).
    pub(crate) fn add_allow_host(&mut self, v: &str) -> Result<(), String> {
        if v.contains("://") {
            let o = Origin::of_url(v).ok_or_else(|| format!("`{v}` is not an http(s) origin"))?;
            self.origins.insert(o);
            return Ok(());
        }
        let bad = || format!("`{v}` is not HOST, HOST:PORT or an http(s) origin");
        let u = url::Url::parse(&format!("http://{v}")).map_err(|_| bad())?;
        if u.path() != "/" || u.query().is_some() || !u.username().is_empty() {
            return Err(bad());
        }
        let host = u.host_str().ok_or_else(bad)?.to_ascii_lowercase();
        match u.port() {
            Some(p) => {
                self.host_ports.insert((host, p));
            }
            None if v.ends_with(":80") => {
                self.host_ports.insert((host, 80));
            }
            None => {
                self.hosts.insert(host);
            }
        }
        Ok(())
    }

    pub(crate) fn insert(&mut self, o: Origin) {
        self.origins.insert(o);
    }

    pub(crate) fn allows(&self, o: &Origin) -> bool {
        self.origins.contains(o)
            || self.hosts.contains(&o.host)
            || self.host_ports.contains(&(o.host.clone(), o.port))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let o = Origin::of_url("HTTPS://API.Example.com/v1?x=1").expect("origin");
        assert_eq!(o.to_string(), "https://api.example.com:443");
        assert_eq!(
            Origin::of_url("http://[::1]:8080/").map(|o| o.port),
            Some(8080)
        );
        assert!(Origin::of_url("ftp://a.example/").is_none());
        assert!(Origin::of_url("/relative").is_none());
    }

    #[test]
    fn allow_host_forms() {
        let mut a = Allowlist::default();
        a.add_allow_host("api.example.com").expect("host");
        a.add_allow_host("127.0.0.1:9000").expect("host:port");
        a.add_allow_host("https://other.example:8443")
            .expect("origin");
        let o = |s: &str| Origin::of_url(s).expect("origin");
        assert!(a.allows(&o("http://api.example.com:81/")));
        assert!(a.allows(&o("https://api.example.com/")));
        assert!(a.allows(&o("http://127.0.0.1:9000/")));
        assert!(!a.allows(&o("http://127.0.0.1:9001/")));
        assert!(a.allows(&o("https://other.example:8443/x")));
        assert!(!a.allows(&o("http://other.example:8443/x")));
        assert!(a.add_allow_host("a.example/path").is_err());
        assert!(a.add_allow_host("ftp://a.example").is_err());
    }
}
