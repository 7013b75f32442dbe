//! The server's log: one line per `tools/call` (tool, revision, upstream method + URL
//! without secrets, status, latency), plus start-up lines. Always standard error (in
//! stdio mode standard output carries only JSON-RPC), or a buffer in tests.
//!
//! `--log-format json` ([`Log::Json`]): every line is one JSON object with `timestamp`
//! (RFC 3339, UTC, milliseconds), `level` and `message`; request lines
//! ([`Log::request`]) add `method`, `tool`, `status`, `duration_ms`, `trace_id` (with
//! traces), `upstream_status` and `caller` (when the
//! request was authenticated) where they apply. The text format is unchanged.
//!
//! Nothing logged comes from a request except the tool name and the example name the
//! mock chose; URLs come from [`CallLog`](mcpdesc_rest::call::CallLog), which redacts secrets.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where log lines go.
#[derive(Debug, Clone, Default)]
pub enum Log {
    /// Standard error, one line per event.
    #[default]
    Stderr,
    /// A shared buffer (tests read it).
    Buffer(Arc<Mutex<Vec<String>>>),
    /// Standard error, one JSON object per line (`--log-format json`).
    Json,
    /// Nowhere.
    Off,
}

impl Log {
    /// A buffer log and a handle to read it.
    pub fn buffer() -> (Log, Arc<Mutex<Vec<String>>>) {
        let b = Arc::new(Mutex::new(Vec::new()));
        (Log::Buffer(Arc::clone(&b)), b)
    }

    /// Writes one line (`mcpdesc serve: ` + `line`); control characters are escaped so
    /// a line is always one line.
    pub fn line(&self, line: &str) {
        self.write(Level::Info, line, None);
    }

    /// [`Log::line`] at level `warn` (the text format does not show levels).
    pub fn warn(&self, line: &str) {
        self.write(Level::Warn, line, None);
    }

    /// [`Log::line`] at level `error` (a usage error or a start-up failure: with
    /// [`Log::Json`] a message of several lines is still one JSON object on one line).
    pub fn error(&self, line: &str) {
        self.write(Level::Error, line, None);
    }

    /// One request's line: `r.message` in the text format, with `r`'s fields in JSON.
    pub fn request(&self, r: &RequestLine<'_>) {
        self.write(r.level, r.message, Some(r));
    }

    /// Whether lines go anywhere JSON would be built for ([`Log::Json`]).
    pub fn is_json(&self) -> bool {
        matches!(self, Log::Json)
    }

    fn write(&self, level: Level, line: &str, fields: Option<&RequestLine<'_>>) {
        if let Log::Json = self {
            let obj = json_line(std::time::SystemTime::now(), level, line, fields);
            let mut e = std::io::stderr().lock();
            let _ = writeln!(e, "{obj}");
            return;
        }
        let clean: String = line
            .chars()
            .flat_map(|c| {
                if c.is_control() {
                    c.escape_default().collect::<Vec<_>>()
                } else {
                    vec![c]
                }
            })
            .collect();
        match self {
            Log::Stderr => {
                let mut e = std::io::stderr().lock();
                let _ = writeln!(e, "mcpdesc serve: {clean}");
            }
            Log::Buffer(b) => {
                if let Ok(mut v) = b.lock() {
                    v.push(clean);
                }
            }
            Log::Off | Log::Json => {}
        }
    }
}

/// A line's severity (shown in JSON only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// The fields of one request's line (JSON); `message` is the text line.
#[derive(Debug, Clone)]
pub struct RequestLine<'a> {
    pub level: Level,
    pub message: &'a str,
    /// The MCP method, e.g. `tools/call`.
    pub method: &'a str,
    /// The tool called (tools/call).
    pub tool: Option<&'a str>,
    /// `ok`, `tool_error` (a result with `isError: true`) or a JSON-RPC error code.
    pub status: &'a str,
    /// The upstream's HTTP status, when the gateway got a response.
    pub upstream_status: Option<u16>,
    pub duration_ms: Option<f64>,
    pub trace_id: Option<String>,
    /// The authenticated caller (the token's subject), never the token.
    pub caller: Option<&'a str>,
}

/// One JSON log line (without the newline).
fn json_line(
    now: std::time::SystemTime,
    level: Level,
    message: &str,
    r: Option<&RequestLine<'_>>,
) -> String {
    let mut m = serde_json::Map::new();
    m.insert("timestamp".into(), rfc3339_millis(now).into());
    m.insert("level".into(), level.as_str().into());
    m.insert("message".into(), message.into());
    if let Some(r) = r {
        m.insert("method".into(), r.method.into());
        if let Some(t) = r.tool {
            m.insert("tool".into(), t.into());
        }
        m.insert("status".into(), r.status.into());
        if let Some(s) = r.upstream_status {
            m.insert("upstream_status".into(), s.into());
        }
        if let Some(d) = r.duration_ms {
            m.insert("duration_ms".into(), ((d * 1000.0).round() / 1000.0).into());
        }
        if let Some(t) = &r.trace_id {
            m.insert("trace_id".into(), t.as_str().into());
        }
        if let Some(c) = r.caller {
            m.insert("caller".into(), c.into());
        }
    }
    serde_json::Value::Object(m).to_string()
}

/// `2026-12-04T18:40:01.123Z`.
fn rfc3339_millis(t: std::time::SystemTime) -> String {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (H. Hinnant's algorithm, proleptic Gregorian calendar).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_stays_one_line() {
        let (log, buf) = Log::buffer();
        log.line("tools/call a\nb\r\u{1b}[31m");
        let lines = buf.lock().map(|v| v.clone()).unwrap_or_default();
        assert_eq!(lines, ["tools/call a\\nb\\r\\u{1b}[31m"]);
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        use std::time::{Duration, UNIX_EPOCH};
        // `date -u -d @1780598401 +%FT%T` = 2026-06-04T18:40:01 (hand-checked), and the
        // leap day 2024-02-29 (1709164800), and the epoch.
        let at = |s: u64, ms: u64| UNIX_EPOCH + Duration::from_secs(s) + Duration::from_millis(ms);
        assert_eq!(
            rfc3339_millis(at(1_780_598_401, 123)),
            "2026-06-04T18:40:01.123Z"
        );
        assert_eq!(
            rfc3339_millis(at(1_709_164_800, 0)),
            "2024-02-29T00:00:00.000Z"
        );
        assert_eq!(rfc3339_millis(at(0, 5)), "1970-01-01T00:00:00.005Z");
    }

    #[test]
    fn a_json_line_is_one_object_with_the_request_fields() {
        let r = RequestLine {
            level: Level::Info,
            message: "tools/call get_pet [2025-11-25] -> GET http://h/pets/1 -> 200\n",
            method: "tools/call",
            tool: Some("get_pet"),
            status: "ok",
            upstream_status: Some(200),
            duration_ms: Some(1.23456),
            trace_id: None,
            caller: Some("alice"),
        };
        let line = json_line(std::time::UNIX_EPOCH, Level::Info, r.message, Some(&r));
        assert!(!line.contains('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        assert_eq!(v["timestamp"], "1970-01-01T00:00:00.000Z");
        assert_eq!(v["level"], "info");
        assert_eq!(v["tool"], "get_pet");
        assert_eq!(v["upstream_status"], 200);
        assert_eq!(v["duration_ms"], 1.235);
        assert_eq!(v["caller"], "alice");
        assert!(v.get("trace_id").is_none());
    }
}
