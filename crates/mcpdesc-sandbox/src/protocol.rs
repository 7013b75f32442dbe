//! The messages between the gateway and a worker: JSON frames, each a 4-byte big-endian length
//! and that many bytes, over the worker's stdin (gateway → worker) and stdout (worker → gateway).
//!
//! Gateway → worker: `{"t":"run","code","tools","limits","budget_ms","hook"?}` once, then one
//! `{"t":"result","id","ok"|"err"}` per `api` call. Worker → gateway: `{"t":"ready","pid","fds"}`
//! once started, `{"t":"call","id","tool","args"}`, `{"t":"log","line"}`, and last
//! `{"t":"done","result","error"?}`.

use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::{ErrorKind, Limits, ScriptError};

/// Encodes one message as a frame.
pub(crate) fn frame(msg: &Json) -> Vec<u8> {
    let body = msg.to_string().into_bytes();
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// The length a frame header announces.
pub(crate) fn frame_len(header: [u8; 4]) -> usize {
    u32::from_be_bytes(header) as usize
}

/// Takes the first whole frame out of `buf`, if it holds one; `Err` for a frame over `max`
/// bytes or one that is not JSON.
pub(crate) fn take_frame(buf: &mut Vec<u8>, max: usize) -> Result<Option<Json>, String> {
    let Some(header) = buf.first_chunk::<4>() else {
        return Ok(None);
    };
    let n = frame_len(*header);
    if n > max {
        return Err(format!("a {n}-byte message, over the {max}-byte bound"));
    }
    if buf.len() < 4 + n {
        return Ok(None);
    }
    let msg = serde_json::from_slice(&buf[4..4 + n])
        .map_err(|e| format!("a message that is not JSON: {e}"));
    buf.drain(..4 + n);
    msg.map(Some)
}

pub(crate) fn limits_to_json(l: &Limits) -> Json {
    json!({
        "wall_ms": u64::try_from(l.wall.as_millis()).unwrap_or(u64::MAX),
        "memory_bytes": l.memory_bytes,
        "stack_bytes": l.stack_bytes,
        "max_calls": l.max_calls,
        "max_concurrent_calls": l.max_concurrent_calls,
        "max_output_bytes": l.max_output_bytes,
    })
}

pub(crate) fn limits_from_json(v: &Json) -> Option<Limits> {
    let n = |k: &str| v.get(k).and_then(Json::as_u64);
    let u = |k: &str| n(k).and_then(|x| usize::try_from(x).ok());
    Some(Limits {
        wall: Duration::from_millis(n("wall_ms")?),
        memory_bytes: u("memory_bytes")?,
        stack_bytes: u("stack_bytes")?,
        max_calls: u("max_calls")?,
        max_concurrent_calls: u("max_concurrent_calls")?,
        max_output_bytes: u("max_output_bytes")?,
    })
}

pub(crate) fn error_to_json(e: &ScriptError) -> Json {
    json!({"kind": e.kind.to_string(), "message": e.message, "line": e.line, "column": e.column})
}

/// A worker's error as the gateway reads it (an unknown kind is `internal`).
pub(crate) fn error_from_json(v: &Json) -> ScriptError {
    let pos = |k: &str| {
        v.get(k)
            .and_then(Json::as_u64)
            .and_then(|x| u32::try_from(x).ok())
    };
    ScriptError {
        kind: v
            .get("kind")
            .and_then(Json::as_str)
            .and_then(ErrorKind::from_id)
            .unwrap_or(ErrorKind::Internal),
        message: v
            .get("message")
            .and_then(Json::as_str)
            .unwrap_or("the sandbox worker reported an error without a message")
            .chars()
            .take(crate::MAX_MESSAGE_BYTES + 64)
            .collect(),
        line: pos("line"),
        column: pos("column"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of `body`: its length big-endian, then the bytes (by hand, not [`frame`]).
    fn raw(body: &[u8]) -> Vec<u8> {
        let mut b = (body.len() as u32).to_be_bytes().to_vec();
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn a_frame_of_exactly_the_bound_is_taken_and_one_byte_more_is_refused() {
        let body = br#"{"t":"ready"}"#;
        let mut buf = raw(body);
        assert_eq!(
            take_frame(&mut buf, body.len()),
            Ok(Some(json!({"t": "ready"})))
        );
        assert!(buf.is_empty());
        let mut buf = raw(body);
        assert_eq!(
            take_frame(&mut buf, body.len() - 1),
            Err(format!(
                "a {}-byte message, over the {}-byte bound",
                body.len(),
                body.len() - 1
            ))
        );
    }

    #[test]
    fn a_partial_frame_waits_and_the_next_frame_stays() {
        let mut buf = raw(b"[1]");
        buf.extend(raw(b"[2]"));
        let half = buf.split_off(5);
        let mut part = buf.clone();
        assert_eq!(
            take_frame(&mut part, 64),
            Ok(None),
            "header and 1 of 3 bytes"
        );
        buf.extend(half);
        assert_eq!(take_frame(&mut buf, 64), Ok(Some(json!([1]))));
        assert_eq!(take_frame(&mut buf, 64), Ok(Some(json!([2]))));
        assert_eq!(take_frame(&mut buf, 64), Ok(None));
    }
}
