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
