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

    /// 64 MiB is the largest message: one of 64 MiB less one byte (its line, with the
    /// newline, is 64 MiB) is read whole; one a byte past 64 MiB is refused.
    #[test]
    fn messages_up_to_64_mib_are_read_and_longer_ones_refused() {
        let len = 64 * 1024 * 1024 - 1;
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
}
