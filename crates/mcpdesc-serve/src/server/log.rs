//! The server's log: one line per `tools/call` (tool, revision, upstream method + URL
//! without secrets, status, latency), plus start-up lines. Always standard error (in
//! stdio mode standard output carries only JSON-RPC), or a buffer in tests.
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
            Log::Off => {}
        }
    }
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
}
