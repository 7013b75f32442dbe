//! Per-caller rate limits for `mcpdesc serve --http` (`--rate-limit RATE`,
//! `--rate-limit-burst N`, `--rate-limit-store redis://HOST:PORT`,
//! `--rate-limit-on-store-error open|closed`).
//!
//! # The algorithm
//! GCRA, the generic cell rate algorithm (ITU-T I.371; the "leaky bucket as a meter"):
//! a rate of `COUNT/UNIT` has the emission interval `T = UNIT / COUNT`, and each caller a
//! theoretical arrival time `TAT` (initially now). A request at `now` is admitted when
//! `now >= max(TAT, now) + T - B·T` (B the burst), and then `TAT := max(TAT, now) + T`;
//! otherwise it waits `max(TAT, now) + T - B·T - now`, which is the `Retry-After`
//! (rounded up to whole seconds, at least 1). An idle caller can send B requests at
//! once; after that one every T.
//!
//! # Where the budget lives
//! - In memory ([`governor`]'s keyed GCRA limiter, DashMap-backed): each replica its
//!   own budget. Memory is bounded: every [`SWEEP_EVERY`] checks, callers whose state is
//!   indistinguishable from a fresh one (their TAT is an interval past) are dropped, so
//!   what is kept is at most the callers seen within the last burst window and interval,
//!   plus `SWEEP_EVERY`.
//! - In Redis ([`redis`], a reconnecting connection manager): one atomic GCRA Lua
//!   script per request (`EVALSHA`, loaded again on `NOSCRIPT`), on Redis's own clock,
//!   each caller's key expiring when its TAT is reached. Every call has
//!   [`STORE_TIMEOUT`]; a store that fails or is slow admits or refuses the request as
//!   [`OnStoreError`] says, and the failure is logged at most once per
//!   [`STORE_ERROR_LOG_EVERY`] (with the count of failures since), then once when the
//!   store answers again.
//!
//! # Callers
//! [`Caller::Subject`]: the authenticated token's subject; [`Caller::peer`]: the peer
//! address (IPv4 as is, IPv6 by its /64 prefix — one host usually holds a whole /64).

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DashMapStateStore;
use governor::{Quota, RateLimiter};
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The largest COUNT of a rate and the largest burst (a budget beyond this is no limit).
pub const MAX_COUNT: u32 = 1_000_000;
/// How long one call to the shared store may take before the request is decided without
/// it.
pub const STORE_TIMEOUT: Duration = Duration::from_millis(100);
/// A failing store is logged at most this often.
pub const STORE_ERROR_LOG_EVERY: Duration = Duration::from_secs(30);
/// The local limiter drops idle callers every this many checks.
pub const SWEEP_EVERY: u64 = 1024;
/// The prefix of every key the limiter writes in Redis.
pub const KEY_PREFIX: &str = "mcpdesc:ratelimit:";

/// `COUNT/UNIT`: COUNT requests per second (`s`), minute (`min`) or hour (`h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    count: NonZeroU32,
    unit: Unit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Second,
    Minute,
    Hour,
}

impl Unit {
    fn period(self) -> Duration {
        Duration::from_secs(match self {
            Unit::Second => 1,
            Unit::Minute => 60,
            Unit::Hour => 3600,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Unit::Second => "s",
            Unit::Minute => "min",
            Unit::Hour => "h",
        }
    }
}

/// Why a rate does not parse; each text names the value given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error("`{0}` is not a rate: write COUNT/UNIT, e.g. 20/min, 5/s or 1000/h")]
    Shape(String),
    #[error("`{value}`: the count `{count}` is not a whole number from 1 to {MAX_COUNT}")]
    Count { value: String, count: String },
    #[error("`{value}`: `{unit}` is not a unit: use s, min or h (e.g. 20/min)")]
    Unit { value: String, unit: String },
}

impl Rate {
    /// COUNT requests per `unit` (`s`, `min`, `h`).
    pub fn count(&self) -> NonZeroU32 {
        self.count
    }

    /// The unit's length.
    pub fn period(&self) -> Duration {
        self.unit.period()
    }

    /// T: the time between two requests at this rate.
    pub fn interval(&self) -> Duration {
        self.period() / self.count.get()
    }
}

impl FromStr for Rate {
    type Err = RateError;

    fn from_str(s: &str) -> Result<Rate, RateError> {
        let Some((count, unit)) = s.trim().split_once('/') else {
            return Err(RateError::Shape(s.to_string()));
        };
        let (count, unit) = (count.trim(), unit.trim());
        if count.is_empty() || unit.is_empty() {
            return Err(RateError::Shape(s.to_string()));
        }
        let n = count
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| count.parse::<u32>().ok())
            .flatten()
            .filter(|n| (1..=MAX_COUNT).contains(n))
            .and_then(NonZeroU32::new)
            .ok_or_else(|| RateError::Count {
                value: s.to_string(),
                count: count.to_string(),
            })?;
        let unit = match unit {
            "s" | "sec" | "second" => Unit::Second,
            "min" | "minute" => Unit::Minute,
            "h" | "hour" => Unit::Hour,
            other => {
                return Err(RateError::Unit {
                    value: s.to_string(),
                    unit: other.to_string(),
                });
            }
        };
        Ok(Rate { count: n, unit })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.count, self.unit.name())
    }
}

/// `--rate-limit-burst`: a whole number from 1 to [`MAX_COUNT`].
pub fn parse_burst(s: &str) -> Result<NonZeroU32, String> {
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_COUNT).contains(n))
        .and_then(NonZeroU32::new)
        .ok_or_else(|| format!("`{s}` is not a whole number from 1 to {MAX_COUNT}"))
}

/// What a request gets while the shared store cannot be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnStoreError {
    /// Admitted unchecked (the default: a Redis outage must not become an outage of
    /// every replica).
    #[default]
    Open,
    /// Refused: HTTP 503 with `Retry-After: 1`.
    Closed,
}

impl FromStr for OnStoreError {
    type Err = String;

    fn from_str(s: &str) -> Result<OnStoreError, String> {
        match s {
            "open" => Ok(OnStoreError::Open),
            "closed" => Ok(OnStoreError::Closed),
            _ => Err(format!("`{s}` is neither `open` nor `closed`")),
        }
    }
}

impl fmt::Display for OnStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OnStoreError::Open => "open",
            OnStoreError::Closed => "closed",
        })
    }
}

/// `--rate-limit-store`: a `redis://` URL. Its password (if any) never appears in
/// `Debug` or `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct StoreUrl(String);

impl StoreUrl {
    /// The URL as given (with its password): for connecting only.
    fn secret_url(&self) -> &str {
        &self.0
    }
}

impl FromStr for StoreUrl {
    type Err = String;

    fn from_str(s: &str) -> Result<StoreUrl, String> {
        let shown = redact(s);
        let Some(rest) = s.strip_prefix("redis://") else {
            return Err(format!(
                "`{shown}` is not a redis:// URL (e.g. redis://127.0.0.1:6379; TLS and unix sockets are not supported)"
            ));
        };
        let authority = rest.split('/').next().unwrap_or("");
        let host = authority.rsplit('@').next().unwrap_or("");
        if host.is_empty() {
            return Err(format!(
                "`{shown}` names no host (e.g. redis://127.0.0.1:6379)"
            ));
        }
        redis::Client::open(s).map_err(|e| format!("`{shown}`: {e}"))?;
        Ok(StoreUrl(s.to_string()))
    }
}

/// `s` with the userinfo of its authority (a password) replaced by `***`.
fn redact(s: &str) -> String {
    let Some((scheme, rest)) = s.split_once("://") else {
        return if s.contains('@') {
            "***".to_string()
        } else {
            s.to_string()
        };
    };
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => s.to_string(),
    }
}

impl fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact(&self.0))
    }
}

impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreUrl({self})")
    }
}

/// The rate limit's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub rate: Rate,
    /// Requests an idle caller may send at once (default: the rate's COUNT).
    pub burst: Option<NonZeroU32>,
    /// One budget across replicas, in this Redis; `None`: each replica its own.
    pub store: Option<StoreUrl>,
    pub on_store_error: OnStoreError,
}

impl Config {
    /// A local limit of `rate`, its burst the rate's count.
    pub fn new(rate: Rate) -> Config {
        Config {
            rate,
            burst: None,
            store: None,
            on_store_error: OnStoreError::default(),
        }
    }

    /// B: the burst given, else the rate's COUNT.
    pub fn burst(&self) -> NonZeroU32 {
        self.burst.unwrap_or(self.rate.count)
    }

    fn quota(&self) -> Quota {
        // The interval is at least 1 µs (COUNT ≤ 1,000,000 per second at most).
        Quota::with_period(self.rate.interval())
            .unwrap_or_else(|| Quota::per_second(self.rate.count))
            .allow_burst(self.burst())
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} per caller, burst {}", self.rate, self.burst())?;
        match &self.store {
            None => write!(f, ", in memory (each replica its own budget)"),
            Some(url) => write!(
                f,
                ", shared in {url} (when it cannot be asked: {})",
                self.on_store_error
            ),
        }
    }
}

/// Who a budget belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Caller {
    /// An authenticated caller: the token's `sub`.
    Subject(Arc<str>),
    /// An anonymous caller: its peer address (see [`Caller::peer`]).
    Addr(IpAddr),
}

impl Caller {
    /// The authenticated subject `sub`.
    pub fn subject(sub: &str) -> Caller {
        Caller::Subject(Arc::from(sub))
    }

    /// The caller at peer address `ip`: IPv4 (IPv4-mapped IPv6 too) as is, IPv6 by its
    /// /64 prefix.
    pub fn peer(ip: IpAddr) -> Caller {
        match ip {
            IpAddr::V4(v4) => Caller::Addr(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Caller::Addr(IpAddr::V4(v4)),
                None => {
                    let s = v6.segments();
                    Caller::Addr(IpAddr::V6(Ipv6Addr::new(
                        s[0], s[1], s[2], s[3], 0, 0, 0, 0,
                    )))
                }
            },
        }
    }

    fn store_key(&self) -> String {
        match self {
            Caller::Subject(s) => format!("{KEY_PREFIX}sub:{s}"),
            Caller::Addr(ip) => format!("{KEY_PREFIX}ip:{ip}"),
        }
    }
}

/// The limiter's answer for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Allowed,
    /// Over the budget: the next request is admitted after this long.
    Limited {
        retry_after: Duration,
    },
    /// The shared store could not be asked and the limit fails closed.
    StoreUnavailable,
}

/// `Retry-After` for a wait of `d`: whole seconds, rounded up, at least 1.
pub fn retry_after_secs(d: Duration) -> u64 {
    (d.as_secs() + u64::from(d.subsec_nanos() > 0)).max(1)
}

/// One request's verdict, and a line for the log when the shared store just failed
/// (throttled: see [`STORE_ERROR_LOG_EVERY`]) or answers again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub admission: Admission,
    pub log: Option<String>,
}

/// A rate limiter of [`Config`].
pub struct Limiter {
    config: Config,
    backend: Backend,
}

impl fmt::Debug for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Limiter")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

enum Backend {
    Local(Local<DefaultClock>),
    Store(Store),
}

impl Limiter {
    /// The limiter of `config`. A store is connected to on the first check, and
    /// reconnected to as needed: a Redis down at start is a store error of the first
    /// requests, not a failure to start.
    pub fn new(config: Config) -> Limiter {
        let backend = match &config.store {
            None => Backend::Local(Local::new(&config, DefaultClock::default())),
            Some(url) => Backend::Store(Store::new(&config, url)),
        };
        Limiter { config, backend }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Counts one request of `caller` and says whether it is admitted. Call it on a
    /// Tokio runtime.
    pub async fn check(&self, caller: &Caller) -> Checked {
        match &self.backend {
            Backend::Local(l) => Checked {
                admission: l.check(caller),
                log: None,
            },
            Backend::Store(s) => s.check(caller).await,
        }
    }
}

/// The in-memory limiter over clock `C` (a fake one in tests).
struct Local<C: Clock + Clone> {
    limiter: RateLimiter<Caller, DashMapStateStore<Caller>, C, NoOpMiddleware<C::Instant>>,
    clock: C,
    checks: AtomicU64,
}

impl<C: Clock + Clone> Local<C> {
    fn new(config: &Config, clock: C) -> Local<C> {
        Local {
            limiter: RateLimiter::dashmap_with_clock(config.quota(), clock.clone()),
            clock,
            checks: AtomicU64::new(0),
        }
    }

    fn check(&self, caller: &Caller) -> Admission {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        match self.limiter.check_key(caller) {
            Ok(()) => Admission::Allowed,
            Err(not_until) => Admission::Limited {
                retry_after: not_until.wait_time_from(self.clock.now()),
            },
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.limiter.len()
    }
}

/// The Redis-held limiter.
struct Store {
    manager: OnceLock<redis::aio::ConnectionManager>,
    script: redis::Script,
    url: StoreUrl,
    interval_us: u64,
    burst: u32,
    on_error: OnStoreError,
    failures: Mutex<Failures>,
}

/// The store's failures since it last answered, for throttled logging.
#[derive(Default)]
struct Failures {
    count: u64,
    since_logged: u64,
    logged_at: Option<Instant>,
}

impl Store {
    fn new(config: &Config, url: &StoreUrl) -> Store {
        Store {
            manager: OnceLock::new(),
            script: redis::Script::new(include_str!("gcra.lua")),
            url: url.clone(),
            interval_us: u64::try_from(config.rate.interval().as_micros())
                .unwrap_or(u64::MAX)
                .max(1),
            burst: config.burst().get(),
            on_error: config.on_store_error,
            failures: Mutex::new(Failures::default()),
        }
    }

    /// The connection manager, made on first use (it needs the runtime).
    fn manager(&self) -> Result<redis::aio::ConnectionManager, String> {
        if let Some(m) = self.manager.get() {
            return Ok(m.clone());
        }
        let client = redis::Client::open(self.url.secret_url()).map_err(|e| e.to_string())?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(STORE_TIMEOUT))
            .set_response_timeout(Some(STORE_TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let m = redis::aio::ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| e.to_string())?;
        Ok(self.manager.get_or_init(|| m).clone())
    }

    async fn check(&self, caller: &Caller) -> Checked {
        let mut con = match self.manager() {
            Ok(c) => c,
            Err(why) => return self.failed(&why),
        };
        let mut call = self.script.prepare_invoke();
        call.key(caller.store_key())
            .arg(self.interval_us)
            .arg(self.burst);
        let answer =
            tokio::time::timeout(STORE_TIMEOUT, call.invoke_async::<(i64, i64)>(&mut con)).await;
        match answer {
            Ok(Ok((allowed, wait_us))) => Checked {
                admission: if allowed == 1 {
                    Admission::Allowed
                } else {
                    Admission::Limited {
                        retry_after: Duration::from_micros(wait_us.max(0).unsigned_abs()),
                    }
                },
                log: self.answered(),
            },
            Ok(Err(e)) => self.failed(&e.to_string()),
            Err(_) => self.failed(&format!(
                "no answer within {} ms",
                STORE_TIMEOUT.as_millis()
            )),
        }
    }

    fn failed(&self, why: &str) -> Checked {
        let log = self.failures.lock().ok().and_then(|mut f| {
            f.count += 1;
            f.since_logged += 1;
            let due = f
                .logged_at
                .is_none_or(|t| t.elapsed() >= STORE_ERROR_LOG_EVERY);
            due.then(|| {
                let more = match f.since_logged - 1 {
                    0 => String::new(),
                    n => format!(" ({n} more failures since the last report)"),
                };
                f.since_logged = 0;
                f.logged_at = Some(Instant::now());
                let what = match self.on_error {
                    OnStoreError::Open => "requests are admitted without a limit",
                    OnStoreError::Closed => "requests are refused with 503",
                };
                format!(
                    "rate limit: the store {} failed: {why}; {what} until it answers{more}",
                    self.url
                )
            })
        });
        Checked {
            admission: match self.on_error {
                OnStoreError::Open => Admission::Allowed,
                OnStoreError::Closed => Admission::StoreUnavailable,
            },
            log,
        }
    }

    fn answered(&self) -> Option<String> {
        let mut f = self.failures.lock().ok()?;
        (f.count > 0).then(|| {
            let n = std::mem::take(&mut *f).count;
            format!(
                "rate limit: the store {} answers again (after {n} failed requests)",
                self.url
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use governor::clock::FakeRelativeClock;

    fn rate(s: &str) -> Rate {
        s.parse().expect("a rate")
    }

    #[test]
    fn rates_parse_to_their_interval() {
        assert_eq!(rate("20/min").interval(), Duration::from_secs(3));
        assert_eq!(rate("5/s").interval(), Duration::from_millis(200));
        assert_eq!(rate("1/h").interval(), Duration::from_secs(3600));
        assert_eq!(rate("3600/hour").interval(), Duration::from_secs(1));
        assert_eq!(rate(" 7/sec ").count().get(), 7);
        assert_eq!(rate("1000000/s").interval(), Duration::from_micros(1));
        assert_eq!(rate("20/minute").to_string(), "20/min");
    }

    #[test]
    fn bad_rates_name_the_value() {
        for (bad, says) in [
            ("20", "`20` is not a rate: write COUNT/UNIT"),
            ("/min", "`/min` is not a rate"),
            ("20/", "`20/` is not a rate"),
            (
                "0/s",
                "`0/s`: the count `0` is not a whole number from 1 to 1000000",
            ),
            ("-1/s", "the count `-1`"),
            ("+1/s", "the count `+1`"),
            ("1.5/s", "the count `1.5`"),
            ("1000001/s", "the count `1000001`"),
            ("99999999999/s", "the count `99999999999`"),
            ("20/m", "`20/m`: `m` is not a unit: use s, min or h"),
            ("20/ms", "`ms` is not a unit"),
            ("20/day", "`day` is not a unit"),
            ("20/min/x", "`min/x` is not a unit"),
        ] {
            let e = bad.parse::<Rate>().expect_err(bad).to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert!(parse_burst("0").is_err());
        assert!(parse_burst("x").expect_err("x").contains("`x`"));
        assert_eq!(parse_burst("5").map(NonZeroU32::get), Ok(5));
        assert!("maybe".parse::<OnStoreError>().is_err());
    }

    #[test]
    fn store_urls_are_checked_and_never_show_a_password() {
        let u: StoreUrl = "redis://:hunter2@10.0.0.1:6379/0".parse().expect("url");
        assert_eq!(u.to_string(), "redis://***@10.0.0.1:6379/0");
        assert!(!format!("{u:?}").contains("hunter2"));
        let e = "rediss://:hunter2@h:1"
            .parse::<StoreUrl>()
            .expect_err("tls");
        assert!(
            e.contains("not a redis:// URL") && !e.contains("hunter2"),
            "{e}"
        );
        assert!("redis://".parse::<StoreUrl>().is_err());
        assert!("127.0.0.1:6379".parse::<StoreUrl>().is_err());
    }

    #[test]
    fn retry_after_rounds_up_to_a_whole_second() {
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1001)), 2);
        assert_eq!(retry_after_secs(Duration::from_millis(2999)), 3);
        assert_eq!(retry_after_secs(Duration::from_secs(3)), 3);
    }

    fn local(rate_s: &str, burst: Option<u32>) -> (Local<FakeRelativeClock>, FakeRelativeClock) {
        let mut c = Config::new(rate(rate_s));
        c.burst = burst.and_then(NonZeroU32::new);
        let clock = FakeRelativeClock::default();
        (Local::new(&c, clock.clone()), clock)
    }

    fn a() -> Caller {
        Caller::peer("192.0.2.1".parse().expect("ip"))
    }

    fn wait(adm: Admission) -> Duration {
        match adm {
            Admission::Limited { retry_after } => retry_after,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    // Hand computation: 20/min → T = 3 s; burst 5 → 5 admitted at t=0 (TAT 15 s).
    // The 6th at t=0: admitted at TAT + T - B·T = 15 + 3 - 15 = 3 s → wait 3 s.
    #[test]
    fn gcra_burst_then_refill_at_the_interval() {
        let (l, clock) = local("20/min", Some(5));
        for i in 0..5 {
            assert_eq!(l.check(&a()), Admission::Allowed, "request {i}");
        }
        assert_eq!(wait(l.check(&a())), Duration::from_secs(3));
        // Refused requests do not consume: still 3 s at t=0, 2 s at t=1.
        assert_eq!(wait(l.check(&a())), Duration::from_secs(3));
        clock.advance(Duration::from_secs(1));
        assert_eq!(wait(l.check(&a())), Duration::from_secs(2));
        // t=3: one cell refilled (TAT 18 s), the next wait is 3 s again.
        clock.advance(Duration::from_secs(2));
        assert_eq!(l.check(&a()), Admission::Allowed);
        assert_eq!(wait(l.check(&a())), Duration::from_secs(3));
        // t=10.5: TAT 18 → 18+3-15 = 6 ≤ 10.5, admitted; TAT 21 → next at 9 ≤ 10.5,
        // admitted; TAT 24 → next at 12: wait 1.5 s → Retry-After 2.
        clock.advance(Duration::from_millis(7500));
        assert_eq!(l.check(&a()), Admission::Allowed);
        assert_eq!(l.check(&a()), Admission::Allowed);
        let w = wait(l.check(&a()));
        assert_eq!(w, Duration::from_millis(1500));
        assert_eq!(retry_after_secs(w), 2);
        // Idle for a whole window (15 s past TAT): a full burst again.
        clock.advance(Duration::from_secs(60));
        for _ in 0..5 {
            assert_eq!(l.check(&a()), Admission::Allowed);
        }
        assert!(matches!(l.check(&a()), Admission::Limited { .. }));
    }

    // 5/s, default burst 5: T = 200 ms; after 5 at t=0 the 6th waits 200 ms.
    #[test]
    fn gcra_default_burst_is_the_count_and_callers_are_separate() {
        let (l, _clock) = local("5/s", None);
        for _ in 0..5 {
            assert_eq!(l.check(&a()), Admission::Allowed);
        }
        assert_eq!(wait(l.check(&a())), Duration::from_millis(200));
        let b = Caller::subject("alice");
        assert_eq!(l.check(&b), Admission::Allowed);
        // An IPv6 /64 is one caller; another /64 is another.
        let v6 = |s: &str| Caller::peer(s.parse().expect("ip"));
        assert_eq!(v6("2001:db8:1:2::1"), v6("2001:db8:1:2:ffff::9"));
        assert_ne!(v6("2001:db8:1:2::1"), v6("2001:db8:1:3::1"));
        assert_eq!(v6("::ffff:192.0.2.1"), a());
    }

    #[test]
    fn idle_callers_are_evicted() {
        let (l, clock) = local("1/s", Some(1));
        for i in 0..SWEEP_EVERY - 1 {
            let ip = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i as u32));
            assert_eq!(l.check(&Caller::peer(ip)), Admission::Allowed);
        }
        assert_eq!(l.tracked(), (SWEEP_EVERY - 1) as usize);
        // A TAT one interval in the past is indistinguishable from a fresh caller
        // (governor keeps a key until then): 2 s later the next check sweeps them all.
        clock.advance(Duration::from_secs(1));
        l.check(&a());
        assert_eq!(l.tracked(), SWEEP_EVERY as usize, "not idle yet");
        for _ in 0..SWEEP_EVERY - 1 {
            l.check(&a());
        }
        clock.advance(Duration::from_secs(1));
        l.check(&a());
        assert!(l.tracked() <= 1, "{} callers kept", l.tracked());
    }
}

#[cfg(test)]
mod tests_mutants;
