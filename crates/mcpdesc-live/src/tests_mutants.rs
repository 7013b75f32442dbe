//! Tests a reviewer asked for when shown the mutants that survived a random sample of
//! this crate (issue 33).

use crate::view::{DropReason, first_difference};
use serde_json::{Value, json};

/// The codes the variants' documentation names.
#[test]
fn drop_reasons_have_their_documented_codes() {
    assert_eq!(DropReason::NotInRevision.code(), "field-not-in-revision");
    assert_eq!(DropReason::Unknown.code(), "unknown-tool-field");
}

/// `{"a": {"a": … v}}`, `depth` objects deep.
fn nested(depth: usize, v: Value) -> Value {
    (0..depth).fold(v, |inner, _| json!({ "a": inner }))
}

/// Past the recursion limit two values are compared whole: equal ones have no
/// difference, unequal ones differ at the pointer where the walk stopped.
#[test]
fn deeply_nested_values_compare_whole_past_the_limit() {
    let (a, b) = (nested(600, json!(1)), nested(600, json!(1)));
    assert_eq!(first_difference(&a, &b, "", 0), None);
    let c = nested(600, json!(2));
    let at = first_difference(&a, &c, "", 0).expect("a difference");
    assert!(
        at.starts_with("/a/a/") && at.len() >= 2 * 513,
        "{}",
        at.len()
    );
    // Key order does not matter, array order does.
    assert_eq!(
        first_difference(&json!({"x": 1, "y": 2}), &json!({"y": 2, "x": 1}), "", 0),
        None
    );
    assert_eq!(
        first_difference(&json!({"l": [1, 2]}), &json!({"l": [2, 1]}), "", 0).as_deref(),
        Some("/l/0")
    );
}

mod stdio {
    use crate::client::{StdioTransport, Transport};
    use std::time::{Duration, Instant};

    /// A child `sh -c script`, read with a 60 s deadline.
    fn first_message(script: &str) -> Result<serde_json::Value, String> {
        let mut t = StdioTransport::spawn(
            "sh",
            &["-c".to_string(), script.to_string()],
            &[],
            4096,
            Duration::from_secs(5),
        )
        .expect("sh starts");
        let timeout = Duration::from_secs(60);
        t.recv(Instant::now() + timeout, "tools/list", timeout)
            .map_err(|e| e.to_string())
    }

    /// A script that prints one JSON-RPC response of exactly `len` bytes (then a
    /// newline): its result is a string of `a`s padding it to that length.
    fn response_of(len: usize) -> String {
        let (head, tail) = (r#"{"jsonrpc":"2.0","id":1,"result":{"s":""#, r#""}}"#);
        let pad = len - head.len() - tail.len();
        format!(
            "printf '%s' '{head}'; head -c {pad} /dev/zero | tr '\\0' a; printf '%s\\n' '{tail}'"
        )
    }

    /// 64 MiB is the largest message: one of exactly 64 MiB (its line, with the
    /// newline, a byte longer) is read whole; one a byte past 64 MiB is refused.
    #[test]
    fn messages_up_to_64_mib_are_read_and_longer_ones_refused() {
        let len = 64 * 1024 * 1024;
        let v = first_message(&response_of(len)).expect("read whole");
        assert_eq!(v["result"]["s"].as_str().map(str::len), Some(len - 42));
        let err = first_message(&response_of(64 * 1024 * 1024 + 1)).expect_err("refused");
        assert!(
            err.contains("a message longer than 67108864 bytes"),
            "{err}"
        );
    }

    /// A server that exits before answering: the error says how it exited and carries
    /// what it wrote on stderr.
    #[test]
    fn an_exit_before_the_answer_names_the_status_and_the_stderr() {
        let err = first_message("echo 'cannot open the database' >&2; exit 3").expect_err("exits");
        assert!(
            err.contains("exited (exit status 3)") && err.contains("cannot open the database"),
            "{err}"
        );
    }

    /// The stderr reader is given a bounded moment to drain after the exit: what a
    /// process the server started writes on the inherited stderr 0.2 s after the
    /// server exited is still in the error (the wait is up to 0.5 s).
    #[test]
    fn stderr_written_just_after_the_exit_is_in_the_error() {
        let err = first_message("(sleep 0.2; echo 'written late' >&2) >/dev/null & exit 3")
            .expect_err("exits");
        assert!(
            err.contains("exited (exit status 3)") && err.contains("written late"),
            "{err}"
        );
    }
}

/// The walk stops past 512 levels: two values that differ only deeper are reported at
/// the 513th level (`/a` 513 times), not at the leaf.
#[test]
fn the_difference_walk_stops_at_its_depth_limit() {
    let (a, c) = (nested(600, json!(1)), nested(600, json!(2)));
    assert_eq!(first_difference(&a, &c, "", 0), Some("/a".repeat(513)));
}

mod import {
    use crate::{FileDiagnostic, ImportOptions, ImportOutcome, import_dumps};
    use mcpdesc_core::ProtocolRevision;

    /// Imports one dump `text` (a bare result needs a revision and a server name).
    fn import(text: &str) -> Result<ImportOutcome, Vec<FileDiagnostic>> {
        let opts = ImportOptions {
            protocol_version: Some(ProtocolRevision::V2024_11_05),
            server_name: Some("s".into()),
            ..ImportOptions::default()
        };
        import_dumps(&[("d.json".to_string(), text.as_bytes().to_vec())], &opts)
    }

    /// `(code, message)` of each diagnostic.
    fn said(d: &[FileDiagnostic]) -> Vec<(String, String)> {
        d.iter()
            .map(|d| (d.diagnostic.code.clone(), d.diagnostic.message.clone()))
            .collect()
    }

    fn codes(d: &[FileDiagnostic]) -> Vec<String> {
        said(d).into_iter().map(|(c, _)| c).collect()
    }

    /// Only the name hosts may reject is warned about: `get_pet` is host-safe
    /// (`[a-z][a-z0-9_]*`), `Get-Pet` is not.
    #[test]
    fn only_names_that_are_not_host_safe_are_warned_about() {
        let out = import(
            r#"{"tools":[{"name":"get_pet","inputSchema":{"type":"object"}},
                         {"name":"Get-Pet","inputSchema":{"type":"object"}}]}"#,
        )
        .expect("imports");
        let warned: Vec<&str> = out
            .diagnostics
            .iter()
            .filter(|d| d.diagnostic.code == "tool-name-not-host-safe")
            .map(|d| d.diagnostic.pointer.as_str())
            .collect();
        assert_eq!(warned, ["/tools/1"]);
    }

    /// At 2024-11-05 a tool has no `title` (MCP added it in 2025-06-18) and its schema
    /// no `$schema` (2025-11-25): both are dropped, each with a warning naming the
    /// tool, the field and the revision.
    #[test]
    fn fields_a_revision_lacks_are_dropped_with_a_warning_that_names_them() {
        let out = import(
            r#"{"tools":[{"name":"t","title":"T","inputSchema":{"type":"object",
                "$schema":"https://json-schema.org/draft/2020-12/schema"}}]}"#,
        )
        .expect("imports");
        let said = said(&out.diagnostics);
        for (code, field) in [
            ("field-not-in-revision", "`title`"),
            ("schema-dialect-not-in-revision", "`inputSchema/$schema`"),
        ] {
            assert!(
                said.iter().any(|(c, m)| c == code
                    && m.contains("tool `t`")
                    && m.contains(field)
                    && m.contains("2024-11-05")),
                "{code} {field}: {said:?}"
            );
        }
        let tool = &out.description.value()["tools"][0];
        assert!(
            tool.get("title").is_none() && tool["inputSchema"].get("$schema").is_none(),
            "{tool}"
        );
    }

    /// A tool twice in one listing: the error names both pages by their lines.
    #[test]
    fn a_tool_listed_twice_is_an_error_naming_both_pages_lines() {
        let err = import(
            "[\n{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}],\"nextCursor\":\"c\"},\n\
             {\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}\n]",
        )
        .expect_err("refused");
        let said = said(&err);
        assert!(
            said.iter().any(|(c, m)| c == "dump-duplicate-tool"
                && m.contains("(line 2, at")
                && m.contains("(line 3, at")),
            "{said:?}"
        );
    }

    /// A JSON-RPC error response, alone or to `initialize` in a transcript, is the
    /// server's error, with its code and message.
    #[test]
    fn a_jsonrpc_error_is_reported_as_the_servers_error() {
        let alone = import(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        )
        .expect_err("refused");
        assert!(
            said(&alone).contains(&(
                "dump-jsonrpc-error".to_string(),
                "the server answered with a JSON-RPC error -32601: Method not found".to_string()
            )),
            "{:?}",
            said(&alone)
        );
        let transcript = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unsupported protocol version"}}"#,
            "\n",
        );
        let refused = import(transcript).expect_err("refused");
        assert!(
            said(&refused).contains(&(
                "dump-jsonrpc-error".to_string(),
                "the server answered with a JSON-RPC error -32602: Unsupported protocol version"
                    .to_string()
            )),
            "{:?}",
            said(&refused)
        );
    }

    /// An array of objects that are neither pages nor tools is no dump.
    #[test]
    fn an_array_of_other_objects_is_not_a_dump() {
        let err = import(r#"[{"foo":1}]"#).expect_err("refused");
        assert_eq!(codes(&err), ["dump-unrecognized"]);
    }
}

/// A session's transcript is its messages as JSON Lines, in the order they went: the
/// 2025-06-18 handshake (`initialize`, its result, `notifications/initialized`), then
/// `tools/list` and its result. The server is a shell loop answering by method.
#[test]
fn a_captured_session_is_kept_as_json_lines() {
    let server = r#"while IFS= read -r l; do
  id=$(printf '%s' "$l" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$l" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}\n' "$id";;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}\n' "$id";;
  esac
done"#;
    let out = crate::capture(
        &crate::Target::command("sh", vec!["-c".into(), server.into()]),
        &crate::CaptureOptions {
            revisions: vec![mcpdesc_core::ProtocolRevision::V2025_06_18],
            ..crate::CaptureOptions::default()
        },
    )
    .expect("captures");
    let text = String::from_utf8(out.sessions[0].transcript.clone()).expect("UTF-8");
    assert!(text.ends_with('\n'), "{text:?}");
    let methods: Vec<Option<String>> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            v["method"].as_str().map(String::from)
        })
        .collect();
    let m = |s: &str| Some(s.to_string());
    assert_eq!(
        methods,
        [
            m("initialize"),
            None,
            m("notifications/initialized"),
            m("tools/list"),
            None
        ]
    );
}

/// A member only the second value has is where the two differ.
#[test]
fn a_member_only_the_second_value_has_is_the_difference() {
    assert_eq!(
        first_difference(&json!({"x": 1}), &json!({"x": 1, "y": 2}), "", 0).as_deref(),
        Some("/y")
    );
}
