//! Tests a reviewer asked for when shown the mutants that survived a random sample of
//! this crate (issue 33): the settings' texts, the store keys, the store-failure log.

use super::*;

fn config(text: &str) -> Config {
    Config::new(text.parse().expect("a rate"))
}

#[test]
fn on_store_error_reads_and_writes_open_and_closed() {
    assert_eq!("open".parse::<OnStoreError>(), Ok(OnStoreError::Open));
    assert_eq!("closed".parse::<OnStoreError>(), Ok(OnStoreError::Closed));
    assert_eq!(OnStoreError::Open.to_string(), "open");
    assert_eq!(OnStoreError::Closed.to_string(), "closed");
}

#[test]
fn a_config_says_its_rate_burst_and_where_the_budget_lives() {
    let mut c = config("20/min");
    assert_eq!(
        c.to_string(),
        "20/min per caller, burst 20, in memory (each replica its own budget)"
    );
    c.burst = NonZeroU32::new(5);
    c.store = Some("redis://:hunter2@10.0.0.1:6379/0".parse().expect("url"));
    c.on_store_error = OnStoreError::Closed;
    assert_eq!(
        c.to_string(),
        "20/min per caller, burst 5, shared in redis://***@10.0.0.1:6379/0 (when it cannot be asked: closed)"
    );
}

/// A limiter's `Debug` shows its settings and never the store's password.
#[test]
fn a_limiters_debug_shows_its_config_without_the_password() {
    let mut c = config("5/s");
    c.store = Some("redis://:hunter2@10.0.0.1:6379/0".parse().expect("url"));
    let limiter = Limiter::new(c.clone());
    assert_eq!(limiter.config(), &c);
    let shown = format!("{limiter:?}");
    assert!(shown.starts_with("Limiter { config: Config {"), "{shown}");
    assert!(
        shown.contains("5/s") || shown.contains("count: 5"),
        "{shown}"
    );
    assert!(shown.contains("redis://***@10.0.0.1:6379/0"), "{shown}");
    assert!(!shown.contains("hunter2"), "{shown}");
}

/// One shared key per caller under [`KEY_PREFIX`]: the subject, or the peer address
/// (an IPv6 peer by its /64 prefix).
#[test]
fn store_keys_name_the_subject_or_the_address() {
    assert_eq!(
        Caller::subject("alice").store_key(),
        "mcpdesc:ratelimit:sub:alice"
    );
    assert_eq!(
        Caller::peer("203.0.113.7".parse().expect("ip")).store_key(),
        "mcpdesc:ratelimit:ip:203.0.113.7"
    );
    assert_eq!(
        Caller::peer("2001:db8:1:2:3:4:5:6".parse().expect("ip")).store_key(),
        "mcpdesc:ratelimit:ip:2001:db8:1:2::"
    );
}

/// While the store fails, the first failure is logged at once, the next ones within
/// [`STORE_ERROR_LOG_EVERY`] are not; the first answer after them says how many
/// requests failed, and later answers say nothing.
#[test]
fn store_failures_are_logged_once_per_period_and_the_recovery_counts_them() {
    let mut c = config("5/s");
    let url: StoreUrl = "redis://:hunter2@10.0.0.1:6379/0".parse().expect("url");
    c.store = Some(url.clone());
    c.on_store_error = OnStoreError::Closed;
    let store = Store::new(&c, &url);
    assert_eq!(store.answered(), None, "no failure yet, nothing to report");
    let first = store.failed("connection refused");
    assert_eq!(first.admission, Admission::StoreUnavailable);
    assert_eq!(
        first.log.as_deref(),
        Some(
            "rate limit: the store redis://***@10.0.0.1:6379/0 failed: connection refused; \
             requests are refused with 503 until it answers"
        )
    );
    let second = store.failed("connection refused");
    assert_eq!(second.admission, Admission::StoreUnavailable);
    assert_eq!(second.log, None, "within the period: not logged again");
    assert_eq!(
        store.answered().as_deref(),
        Some(
            "rate limit: the store redis://***@10.0.0.1:6379/0 answers again (after 2 failed requests)"
        )
    );
    assert_eq!(store.answered(), None);

    c.on_store_error = OnStoreError::Open;
    let open = Store::new(&c, &url);
    let checked = open.failed("timeout");
    assert_eq!(checked.admission, Admission::Allowed);
    assert!(
        checked
            .log
            .is_some_and(|l| l.ends_with("requests are admitted without a limit until it answers")),
    );
}

/// A Redis on a free loopback port (`/usr/bin/redis-server`, as `tests/serve_ratelimit`
/// uses), stopped on drop.
struct Redis(std::process::Child, String);

impl Redis {
    fn start() -> Redis {
        use std::io::BufRead as _;
        let bin = "/usr/bin/redis-server";
        assert!(
            std::path::Path::new(bin).exists(),
            "{bin} is missing: `cargo xtask deps` installs the test prerequisites"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port()
            .to_string();
        let mut child = std::process::Command::new(bin)
            .args(["--port", &port, "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "no", "--loglevel", "notice"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        // Its log says when it accepts connections; the end of the log means it died.
        let ready = out
            .lines()
            .map_while(Result::ok)
            .any(|l| l.contains("Ready to accept connections"));
        let redis = Redis(child, format!("redis://127.0.0.1:{port}"));
        assert!(ready, "redis-server did not start");
        redis
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The shared budget: a burst of 2 at 1/min admits two requests of a caller and limits
/// the third for about the interval (the GCRA of `gcra.lua`), another caller has its own.
/// The limit fails closed here, so a store that cannot be asked would show as
/// `StoreUnavailable`.
#[test]
fn a_shared_store_admits_the_burst_then_limits() {
    let redis = Redis::start();
    let mut c = config("1/min");
    c.burst = NonZeroU32::new(2);
    c.store = Some(redis.1.parse().expect("url"));
    c.on_store_error = OnStoreError::Closed;
    let limiter = Limiter::new(c);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let alice = Caller::subject("alice");
    for _ in 0..2 {
        let got = rt.block_on(limiter.check(&alice));
        assert_eq!(got.admission, Admission::Allowed, "{got:?}");
    }
    let third = rt.block_on(limiter.check(&alice));
    match third.admission {
        Admission::Limited { retry_after } => assert!(
            retry_after > Duration::from_secs(50) && retry_after <= Duration::from_secs(60),
            "{retry_after:?}"
        ),
        other => panic!("the third request: {other:?}"),
    }
    let bob = rt.block_on(limiter.check(&Caller::subject("bob")));
    assert_eq!(bob.admission, Admission::Allowed);
}
