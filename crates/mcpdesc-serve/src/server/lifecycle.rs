//! Operating an HTTP server: health and readiness probes, drain on SIGTERM/SIGINT,
//! reload on SIGHUP, and the settings of sessions shared by replicas.
//!
//! # Probes
//! `GET /healthz` is 200 while the process serves at all. `GET /readyz` is 200 when
//! every readiness gate is open ([`Readiness`]: the HTTP server opens `serving` once
//! its description is loaded and its indexes are built, which is before it listens;
//! other parts add their own, e.g. the JWKS of inbound auth), else 503 naming the
//! closed gates; it is 503 from the moment a drain begins. Both answer before any
//! host, origin or auth check and before any MCP processing (probes come from the
//! orchestrator, with its own `Host`), and neither reveals anything but gate names.
//!
//! # Drain
//! On SIGTERM or SIGINT (or [`Lifecycle::begin_drain`]): `/readyz` turns 503, the
//! listener is closed (new connections are refused, so a proxy tries another replica),
//! every open connection is told to finish: a keep-alive connection closes after the
//! request in flight on it is answered, an idle one at once. When the last connection
//! has closed, or after the drain timeout, the flush hooks run ([`Lifecycle::on_drained`],
//! e.g. the trace exporter) and the server returns (exit status 0).
//!
//! # Reload
//! On SIGHUP the reload hook ([`Lifecycle::set_reload`]) builds a new server from the
//! configuration on a blocking thread. When it succeeds, the HTTP server swaps its
//! routes at once: requests already running finish on the old server, every request
//! that starts afterwards is served by the new one. When it fails, the old server keeps
//! serving and the error is logged. 2026-07-28 list results carry `ttlMs: 0` (lists
//! are not cached), so clients see the new lists on their next list request.

use super::Server;
use super::session_seal::SessionKey;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, watch};

/// Default `--drain-timeout`.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The readiness gates of `/readyz`: each named gate is closed until its owner opens
/// it; a drain closes readiness for good.
#[derive(Debug, Default)]
pub struct Readiness {
    gates: Mutex<BTreeMap<String, bool>>,
    draining: AtomicBool,
}

/// One named gate of a [`Readiness`] (cheap to clone; every clone is the same gate).
#[derive(Debug, Clone)]
pub struct Gate {
    readiness: Arc<Readiness>,
    name: String,
}

impl Gate {
    /// The gate's condition holds (e.g. the JWKS was fetched).
    pub fn open(&self) {
        self.readiness.set(&self.name, true);
    }

    /// The gate's condition no longer holds.
    pub fn close(&self) {
        self.readiness.set(&self.name, false);
    }
}

impl Readiness {
    /// A gate named `name`, closed (asking again for a name gives the same gate, in
    /// the state it is in).
    pub fn gate(self: &Arc<Self>, name: &str) -> Gate {
        if let Ok(mut g) = self.gates.lock() {
            g.entry(name.to_string()).or_insert(false);
        }
        Gate {
            readiness: Arc::clone(self),
            name: name.to_string(),
        }
    }

    fn set(&self, name: &str, open: bool) {
        if let Ok(mut g) = self.gates.lock() {
            g.insert(name.to_string(), open);
        }
    }

    /// From now on not ready (a drain began).
    pub fn set_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Whether a drain began.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// `Ok(())` when ready, else why not: `draining`, or the closed gates' names.
    pub fn check(&self) -> Result<(), String> {
        if self.is_draining() {
            return Err("draining".into());
        }
        let closed: Vec<String> = match self.gates.lock() {
            Ok(g) => g
                .iter()
                .filter(|(_, open)| !**open)
                .map(|(n, _)| n.clone())
                .collect(),
            Err(_) => vec!["(state unreadable)".into()],
        };
        if closed.is_empty() {
            Ok(())
        } else {
            Err(format!("waiting for {}", closed.join(", ")))
        }
    }
}

/// What a reload built: the new server, and the listener-level settings of the new
/// configuration (compared with the running ones; they need a restart to change).
#[derive(Debug)]
pub struct Reloaded {
    /// The new server of the main path (the derived paths are built from it).
    pub server: Arc<Server>,
    /// The configuration's `--http` address.
    pub addr: Option<SocketAddr>,
    /// Listener-level settings that differ from the running ones, by name (the values
    /// are not shown: some are secrets).
    pub restart_needed: Vec<String>,
    /// Lines for the log about what changed beyond the tool lists (e.g. APIs added).
    pub notes: Vec<String>,
}

/// The reload hook: builds a new server from the configuration, or says why not
/// (the old server keeps serving).
pub type ReloadFn = dyn Fn() -> Result<Reloaded, String> + Send + Sync;

type FlushFn = Box<dyn FnOnce() + Send>;

/// How an HTTP server is operated: readiness, drain, reload, shared sessions. The CLI
/// builds one from its flags; [`Lifecycle::default`] is a server without reload and
/// with in-memory sessions.
pub struct Lifecycle {
    readiness: Arc<Readiness>,
    drain_timeout: Duration,
    session_key: Option<Arc<SessionKey>>,
    reload: Option<Arc<ReloadFn>>,
    flush: Mutex<Vec<FlushFn>>,
    drain: watch::Sender<bool>,
    reload_requested: Notify,
    /// Whether the process's signals (SIGTERM, SIGINT, SIGHUP) drive this lifecycle.
    signals: bool,
}

impl std::fmt::Debug for Lifecycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lifecycle")
            .field("readiness", &self.readiness)
            .field("drain_timeout", &self.drain_timeout)
            .field("sealed_sessions", &self.session_key.is_some())
            .field("reload", &self.reload.is_some())
            .field("signals", &self.signals)
            .finish_non_exhaustive()
    }
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            readiness: Arc::default(),
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            session_key: None,
            reload: None,
            flush: Mutex::new(Vec::new()),
            drain: watch::channel(false).0,
            reload_requested: Notify::new(),
            signals: false,
        }
    }
}

impl Lifecycle {
    /// A lifecycle driven by the process's signals: SIGTERM and SIGINT drain, SIGHUP
    /// reloads.
    pub fn with_signals() -> Lifecycle {
        Lifecycle {
            signals: true,
            ..Lifecycle::default()
        }
    }

    /// `--drain-timeout`: how long in-flight requests may take to finish once a drain began.
    pub fn drain_timeout(mut self, t: Duration) -> Self {
        self.drain_timeout = t;
        self
    }

    /// `--session-key-env`: sessions sealed into their ids (the `session_seal` module).
    pub fn session_key(mut self, key: SessionKey) -> Self {
        self.session_key = Some(Arc::new(key));
        self
    }

    /// The reload hook SIGHUP runs.
    pub fn set_reload(mut self, f: Arc<ReloadFn>) -> Self {
        self.reload = Some(f);
        self
    }

    /// The readiness gates (add one with [`Readiness::gate`]).
    pub fn readiness(&self) -> &Arc<Readiness> {
        &self.readiness
    }

    /// Runs `f` once the drain is over, before the server returns (e.g. flush traces).
    pub fn on_drained(&self, f: impl FnOnce() + Send + 'static) {
        if let Ok(mut v) = self.flush.lock() {
            v.push(Box::new(f));
        }
    }

    /// Begins the drain (what SIGTERM does).
    pub fn begin_drain(&self) {
        self.readiness.set_draining();
        self.drain.send_replace(true);
    }

    /// Asks for a reload (what SIGHUP does).
    pub fn request_reload(&self) {
        self.reload_requested.notify_one();
    }

    pub(crate) fn sealing(&self) -> Option<&Arc<SessionKey>> {
        self.session_key.as_ref()
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.drain_timeout
    }

    pub(crate) fn reload_hook(&self) -> Option<Arc<ReloadFn>> {
        self.reload.clone()
    }

    /// Resolves once a drain began.
    pub(crate) async fn drained_requested(&self) {
        let mut rx = self.drain.subscribe();
        let _ = rx.wait_for(|d| *d).await;
    }

    /// A receiver that turns `true` when the drain begins (for each connection).
    pub(crate) fn drain_watch(&self) -> watch::Receiver<bool> {
        self.drain.subscribe()
    }

    /// Resolves at the next reload request.
    pub(crate) async fn reload_requested(&self) {
        self.reload_requested.notified().await;
    }

    /// Runs the flush hooks (once).
    pub(crate) fn flush(&self) {
        let hooks = self
            .flush
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        for h in hooks {
            h();
        }
    }

    /// With [`Lifecycle::with_signals`]: a task turning SIGTERM/SIGINT into a drain and
    /// SIGHUP into reload requests, for as long as `self` lives.
    pub(crate) fn watch_signals(self: &Arc<Self>) -> std::io::Result<()> {
        if !self.signals {
            return Ok(());
        }
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let mut term = signal(SignalKind::terminate())?;
            let mut int = signal(SignalKind::interrupt())?;
            let mut hup = signal(SignalKind::hangup())?;
            let weak = Arc::downgrade(self);
            tokio::spawn(async move {
                loop {
                    let drain = tokio::select! {
                        _ = term.recv() => true,
                        _ = int.recv() => true,
                        _ = hup.recv() => false,
                    };
                    let Some(me) = weak.upgrade() else { return };
                    if drain {
                        me.begin_drain();
                    } else {
                        me.request_reload();
                    }
                }
            });
        }
        #[cfg(not(unix))]
        {
            let weak = Arc::downgrade(self);
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok()
                    && let Some(me) = weak.upgrade()
                {
                    me.begin_drain();
                }
            });
        }
        Ok(())
    }
}

/// `--public-url`'s scheme and host (lower-cased; no port): behind a proxy, the
/// DNS-rebinding checks accept this host in `Host` and this origin in `Origin` (a proxy
/// forwards the client's `Host`).
pub(crate) fn public_origin(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    (!host.is_empty()).then(|| (scheme.to_ascii_lowercase(), host.to_ascii_lowercase()))
}

/// The served tool names of `server` at every revision it serves.
pub(crate) fn tool_names(server: &Server) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for view in server.catalog().views() {
        for i in 0..view.tools().len() {
            out.insert(view.served_name(i).to_string());
        }
    }
    out
}

/// The log lines of a swap from `old` to `new` tool names.
pub(crate) fn describe_change(
    old: &std::collections::BTreeSet<String>,
    new: &std::collections::BTreeSet<String>,
) -> String {
    let added: Vec<&str> = new.difference(old).map(String::as_str).collect();
    let removed: Vec<&str> = old.difference(new).map(String::as_str).collect();
    let list = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    format!(
        "{} tools (was {}); added: {}; removed: {}",
        new.len(),
        old.len(),
        list(&added),
        list(&removed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_needs_every_gate_and_ends_with_the_drain() {
        let r = Arc::new(Readiness::default());
        assert_eq!(r.check(), Ok(()), "no gate: ready");
        let serving = r.gate("serving");
        let jwks = r.gate("jwks");
        assert_eq!(r.check(), Err("waiting for jwks, serving".into()));
        serving.open();
        assert_eq!(r.check(), Err("waiting for jwks".into()));
        // Asking for a gate again does not close it, nor open it.
        let again = r.gate("serving");
        assert_eq!(r.check(), Err("waiting for jwks".into()));
        jwks.open();
        assert_eq!(r.check(), Ok(()));
        again.close();
        assert_eq!(r.check(), Err("waiting for serving".into()));
        serving.open();
        r.set_draining();
        assert_eq!(r.check(), Err("draining".into()));
        jwks.open();
        assert_eq!(r.check(), Err("draining".into()), "a drain is for good");
    }

    #[tokio::test]
    async fn drain_and_flush() {
        let lc = Arc::new(Lifecycle::default());
        let mut w = lc.drain_watch();
        assert!(!*w.borrow());
        let flushed = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flushed);
        lc.on_drained(move || f.store(true, Ordering::SeqCst));
        let waiter = {
            let lc = Arc::clone(&lc);
            tokio::spawn(async move { lc.drained_requested().await })
        };
        lc.begin_drain();
        waiter.await.expect("drain seen");
        assert!(w.changed().await.is_ok() && *w.borrow());
        assert!(lc.readiness().is_draining());
        assert!(!flushed.load(Ordering::SeqCst));
        lc.flush();
        assert!(flushed.load(Ordering::SeqCst));
    }

    #[test]
    fn public_origins() {
        let o = |u: &str| public_origin(u).map(|(s, h)| format!("{s} {h}"));
        assert_eq!(
            o("https://MCP.example.com"),
            Some("https mcp.example.com".into())
        );
        assert_eq!(
            o("https://mcp.example.com:8443/base"),
            Some("https mcp.example.com".into())
        );
        assert_eq!(o("http://[::1]:9/x"), Some("http ::1".into()));
        assert_eq!(o("https://u@h.example"), Some("https h.example".into()));
        assert_eq!(o("https://"), None);
        assert_eq!(o("no-scheme"), None);
    }

    #[test]
    fn change_lines() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            describe_change(&set(&["a", "b"]), &set(&["b", "c", "d"])),
            "3 tools (was 2); added: c, d; removed: a"
        );
        assert_eq!(
            describe_change(&set(&["a"]), &set(&["a"])),
            "1 tools (was 1); added: none; removed: none"
        );
    }
}
