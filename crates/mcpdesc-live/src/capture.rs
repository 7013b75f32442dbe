//! Live capture: one session per requested revision, transcripts imported as dumps.

use crate::client::{
    ClientError, HttpTransport, Lifecycle, SessionOptions, StdioTransport, Transport, run_session,
};
use crate::import::{FileDiagnostic, ImportOptions, ImportOutcome, import_dumps};
use mcpdesc_core::http::mcp as mcp_header;
use mcpdesc_core::{Diagnostic, Limits, ProtocolRevision};
use std::time::Duration;

/// What to capture from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A stdio server: program, arguments and environment variables to set for it
    /// (credentials a server reads from its environment; one process per session).
    Command {
        program: String,
        args: Vec<String>,
        env: Vec<(String, Secret)>,
    },
    /// A streamable HTTP endpoint and header fields sent with every request to it
    /// (`Authorization: Bearer …`, API keys).
    Url {
        url: String,
        headers: Vec<(String, Secret)>,
    },
}

impl Target {
    /// A stdio server without extra environment.
    pub fn command(program: impl Into<String>, args: Vec<String>) -> Self {
        Target::Command {
            program: program.into(),
            args,
            env: Vec::new(),
        }
    }
    /// A streamable HTTP endpoint without extra headers.
    pub fn url(url: impl Into<String>) -> Self {
        Target::Url {
            url: url.into(),
            headers: Vec::new(),
        }
    }
}

/// A credential (header or environment value): never printed. No error, diagnostic or
/// transcript of a capture contains it (the transcripts hold JSON-RPC messages only;
/// HTTP headers and the child's environment are not part of them).
pub use mcpdesc_core::Secret;

/// Header fields the client sets itself on every request; a target may not override
/// them (the session would break in ways hard to see).
pub const MANAGED_HEADERS: [&str; 5] = [
    "content-type",
    "accept",
    mcp_header::SESSION_ID,
    mcp_header::PROTOCOL_VERSION,
    mcp_header::METHOD,
];

/// Capture settings.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// Revisions to request, one session each (oldest first is a good order).
    pub revisions: Vec<ProtocolRevision>,
    /// Per-request timeout (also bounds each HTTP exchange).
    pub timeout: Duration,
    /// How long a stdio server may take to exit after its stdin closes before it is killed.
    pub grace: Duration,
    /// Bytes of server stderr kept for error messages.
    pub stderr_limit: usize,
    pub limits: Limits,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            revisions: ProtocolRevision::ALL.to_vec(),
            timeout: Duration::from_secs(30),
            grace: Duration::from_secs(2),
            stderr_limit: 8 * 1024,
            limits: Limits::default(),
        }
    }
}

/// One recorded session.
#[derive(Debug, Clone)]
pub struct Session {
    pub requested: ProtocolRevision,
    pub negotiated: String,
    pub lifecycle: Lifecycle,
    pub pages: usize,
    pub tools: usize,
    /// The session as a JSON Lines transcript (what `--save-transcripts` writes and
    /// `import tools-list` reads).
    pub transcript: Vec<u8>,
}

impl Session {
    /// File name for the saved transcript: `session-<requested>.jsonl`.
    pub fn transcript_file_name(&self) -> String {
        format!("session-{}.jsonl", self.requested)
    }
}

/// A successful capture.
#[derive(Debug, Clone)]
pub struct CaptureOutcome {
    pub sessions: Vec<Session>,
    pub import: ImportOutcome,
}

/// Why a capture failed (nothing is written then).
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("session requesting {revision}: {source}")]
    Session {
        revision: ProtocolRevision,
        source: ClientError,
    },
    #[error("the captured tool lists do not make a conforming description")]
    Import {
        diagnostics: Vec<FileDiagnostic>,
        sessions: Vec<Session>,
    },
    #[error("no protocol revision requested")]
    NoRevisions,
    /// A header the client manages itself was given (see [`MANAGED_HEADERS`]).
    #[error("header `{0}` is set by the MCP client itself and cannot be overridden")]
    ManagedHeader(String),
}

fn to_jsonl(messages: &[serde_json::Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        // Serializing a Value cannot fail.
        out.extend(serde_json::to_vec(m).unwrap_or_default());
        out.push(b'\n');
    }
    out
}

/// Runs one session per requested revision and imports the transcripts.
///
/// Sessions that negotiate the same revision are all imported: their tool lists must
/// agree (as any two dumps of one revision must) and collapse into one view; an
/// `revision-negotiated-twice` note says so. A revision the server answers it does not
/// serve (JSON-RPC -32022, as a server of 2026-07-28 alone answers `initialize`) is
/// skipped with a `revision-not-served` note; when it serves none of those requested,
/// the capture fails with the first such answer.
pub fn capture(target: &Target, opts: &CaptureOptions) -> Result<CaptureOutcome, CaptureError> {
    if opts.revisions.is_empty() {
        return Err(CaptureError::NoRevisions);
    }
    if let Target::Url { headers, .. } = target
        && let Some((name, _)) = headers
            .iter()
            .find(|(n, _)| MANAGED_HEADERS.contains(&n.to_ascii_lowercase().as_str()))
    {
        return Err(CaptureError::ManagedHeader(name.clone()));
    }
    let sopts = SessionOptions {
        timeout: opts.timeout,
        client_name: "mcpdesc".into(),
    };
    let mut sessions = Vec::new();
    let mut refused = Vec::new();
    for &rev in &opts.revisions {
        let record = match target {
            Target::Command { program, args, env } => {
                let mut t =
                    StdioTransport::spawn(program, args, env, opts.stderr_limit, opts.grace)
                        .map_err(|source| CaptureError::Session {
                            revision: rev,
                            source,
                        })?;
                let r = run_session(&mut t as &mut dyn Transport, rev, &sopts);
                drop(t); // closes stdin, kills after the grace period, reaps
                r
            }
            Target::Url { url, headers } => {
                let mut t = HttpTransport::new(url, headers, opts.timeout);
                let r = run_session(&mut t as &mut dyn Transport, rev, &sopts);
                t.close();
                r
            }
        };
        let record = match record {
            Ok(record) => record,
            Err(source) => match not_served(&source) {
                // The server speaks other revisions, not this one: nothing to record
                // under it (as an older server negotiating down records nothing under
                // the revision asked for). A capture where no revision is served fails.
                Some(supported) => {
                    refused.push((rev, supported, source));
                    continue;
                }
                None => {
                    return Err(CaptureError::Session {
                        revision: rev,
                        source,
                    });
                }
            },
        };
        sessions.push(Session {
            requested: record.requested,
            negotiated: record.negotiated,
            lifecycle: record.lifecycle,
            pages: record.pages,
            tools: record.tools,
            transcript: to_jsonl(&record.transcript),
        });
    }
    if sessions.is_empty() {
        if let Some((revision, _, source)) = refused.into_iter().next() {
            return Err(CaptureError::Session { revision, source });
        }
        return Err(CaptureError::NoRevisions);
    }
    let refused: Vec<(ProtocolRevision, Vec<String>)> =
        refused.into_iter().map(|(r, s, _)| (r, s)).collect();
    let inputs: Vec<(String, Vec<u8>)> = sessions
        .iter()
        .map(|s| (s.transcript_file_name(), s.transcript.clone()))
        .collect();
    let iopts = ImportOptions {
        protocol_version: None,
        server_name: None,
        limits: opts.limits,
    };
    let mut import = match import_dumps(&inputs, &iopts) {
        Ok(i) => i,
        Err(diagnostics) => {
            return Err(CaptureError::Import {
                diagnostics,
                sessions,
            });
        }
    };
    let mut notes = Vec::new();
    for (rev, supported) in &refused {
        let served = if supported.is_empty() {
            String::new()
        } else {
            format!(" (it serves {})", supported.join(", "))
        };
        notes.push(FileDiagnostic {
            file: None,
            diagnostic: Diagnostic::info(
                "revision-not-served",
                format!(
                    "requested {rev}, the server answered that it does not serve that revision{served}; nothing recorded under {rev}"
                ),
            ),
        });
    }
    for (i, s) in sessions.iter().enumerate() {
        if s.negotiated != s.requested.as_str() {
            notes.push(FileDiagnostic {
                file: Some(s.transcript_file_name()),
                diagnostic: Diagnostic::info(
                    "revision-negotiated-down",
                    format!(
                        "requested {}, the server negotiated {}; recorded under {}",
                        s.requested, s.negotiated, s.negotiated
                    ),
                ),
            });
        }
        if let Some(first) = sessions[..i].iter().find(|p| p.negotiated == s.negotiated) {
            notes.push(FileDiagnostic {
                file: Some(s.transcript_file_name()),
                diagnostic: Diagnostic::info(
                    "revision-negotiated-twice",
                    format!(
                        "the sessions requesting {} and {} both negotiated {}; their tool lists agree and count once",
                        first.requested, s.requested, s.negotiated
                    ),
                ),
            });
        }
    }
    notes.append(&mut import.diagnostics);
    import.diagnostics = notes;
    Ok(CaptureOutcome { sessions, import })
}

/// When `e` is the server's answer that it does not serve the revision asked for
/// (JSON-RPC -32022, Unsupported protocol version, to `initialize` or `server/discover`),
/// the revisions its `data.supported` names; otherwise `None`.
fn not_served(e: &ClientError) -> Option<Vec<String>> {
    match e {
        ClientError::Rpc {
            method, code, data, ..
        } if *code == UNSUPPORTED_PROTOCOL_VERSION
            && (method == "initialize" || method == "server/discover") =>
        {
            Some(
                data.as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(serde_json::Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
            )
        }
        _ => None,
    }
}

/// JSON-RPC error code of MCP 2026-07-28's `UnsupportedProtocolVersionError`.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_show_in_debug_output() {
        let t = Target::Url {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: vec![("Authorization".into(), Secret::new("Bearer hunter2"))],
        };
        let c = Target::Command {
            program: "server".into(),
            args: vec![],
            env: vec![("API_KEY".into(), Secret::new("hunter3"))],
        };
        for shown in [format!("{t:?}"), format!("{c:?}")] {
            assert!(!shown.contains("hunter"), "{shown}");
            assert!(shown.contains("<redacted>"), "{shown}");
        }
    }

    #[test]
    fn managed_headers_are_refused_before_any_session() {
        let t = Target::Url {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: vec![("mcp-protocol-version".into(), Secret::new("x"))],
        };
        let e = capture(&t, &CaptureOptions::default()).expect_err("refused");
        assert!(matches!(e, CaptureError::ManagedHeader(ref h) if h == "mcp-protocol-version"));
    }
}
