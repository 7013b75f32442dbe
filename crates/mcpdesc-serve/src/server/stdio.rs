//! The stdio transport: newline-delimited JSON-RPC on standard input and output (MCP
//! "Transports": messages are delimited by newlines and contain none; standard output
//! carries nothing but messages; logs go to standard error).
//!
//! Lifecycle messages and lists are answered in order as they are read; each
//! `tools/call` runs as its own task, so a slow upstream never holds up the rest of the
//! connection and `notifications/cancelled` can abort it (the call's future is dropped,
//! which aborts its upstream request, and no response is sent). At most
//! [`MAX_PENDING_CALLS`] calls are pending per connection; beyond that the server stops
//! reading until one finishes (backpressure, bounded memory). A line longer than
//! [`MAX_MESSAGE_BYTES`] is skipped with a parse error.
//! End of input aborts every pending call and ends the server.

use super::jsonrpc::{self, RequestId, RpcError};
use super::{CallJob, Era, Handled, Inbound, MAX_MESSAGE_BYTES, Server, Session, TransportKind};
use mcpdesc_core::Feature;
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc, oneshot};

/// Calls pending at once on one connection before the server stops reading.
pub const MAX_PENDING_CALLS: usize = 1024;

/// Serves one connection on `input` / `output` until `input` ends (or `output` fails).
pub async fn serve<R, W>(server: Arc<Server>, input: R, output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Value>(256);
    let writer = tokio::spawn(write_all(rx, output));
    let session = Arc::new(Session::new(TransportKind::Stdio));
    let pending = Arc::new(Semaphore::new(MAX_PENDING_CALLS));
    let conn = Conn {
        server,
        session: Arc::clone(&session),
        tx,
        pending,
    };
    let mut reader = BufReader::new(input);
    let mut buf = Vec::new();
    let result = loop {
        match read_line(&mut reader, &mut buf, MAX_MESSAGE_BYTES).await {
            Ok(Line::Eof) => break Ok(()),
            Ok(Line::TooLong) => {
                let e = jsonrpc::parse_error(format!(
                    "a message longer than {MAX_MESSAGE_BYTES} bytes was skipped"
                ));
                if conn.tx.send(e).await.is_err() {
                    break Ok(());
                }
            }
            Ok(Line::Message) => {
                if !conn.line(&buf).await {
                    break Ok(());
                }
            }
            Err(e) => break Err(e),
        }
    };
    // The client is gone (or closed its side): nothing can receive answers any more.
    session.cancel_all();
    drop(conn);
    // Queued responses still go out; the writer ends when every sender is gone.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
    result
}

/// One connection's shared parts.
struct Conn {
    server: Arc<Server>,
    session: Arc<Session>,
    tx: mpsc::Sender<Value>,
    pending: Arc<Semaphore>,
}

impl Conn {
    /// Handles one line; `false` when the output is gone.
    async fn line(&self, bytes: &[u8]) -> bool {
        let text = bytes.trim_ascii();
        if text.is_empty() {
            return true;
        }
        match serde_json::from_slice::<Value>(text) {
            Err(e) => self.tx.send(jsonrpc::parse_error(e)).await.is_ok(),
            Ok(Value::Array(items)) => self.batch(items).await,
            Ok(v) => self.one(v).await,
        }
    }

    async fn one(&self, v: Value) -> bool {
        let handled = match jsonrpc::classify(v) {
            Err(b) => Handled::Reply(jsonrpc::error_response(b.0.as_ref(), &b.1)),
            Ok(msg) => self.server.handle(&self.session, msg, &Inbound::default()),
        };
        match handled {
            Handled::Reply(v) => self.tx.send(v).await.is_ok(),
            Handled::Nothing => true,
            Handled::Call(job) => {
                let tx = self.tx.clone();
                match self
                    .start(job, move |resp| async move {
                        let _ = tx.send(resp).await;
                    })
                    .await
                {
                    Ok(()) => true,
                    Err(resp) => self.tx.send(resp).await.is_ok(),
                }
            }
        }
    }

    /// Starts a call as its own task, registered for cancellation before it runs;
    /// `deliver` gets its response (not called when it is cancelled). An id already in
    /// flight is refused with the response to send.
    async fn start<F, Fut>(&self, job: CallJob, deliver: F) -> Result<(), Value>
    where
        F: FnOnce(Value) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        start_call(&self.server, &self.session, &self.pending, job, deliver).await
    }

    /// A JSON-RPC batch: only where the negotiated revision has them.
    async fn batch(&self, items: Vec<Value>) -> bool {
        let rev = match self.session.era() {
            Era::Legacy(r) if r.has(Feature::JsonRpcBatch) => r,
            era => {
                let why = match era {
                    Era::Legacy(r) => format!("JSON-RPC batches are not part of MCP {r}"),
                    _ => format!(
                        "JSON-RPC batches are only part of MCP {} (after `initialize`, which cannot be batched)",
                        Feature::JsonRpcBatch.since()
                    ),
                };
                let e = RpcError::new(jsonrpc::INVALID_REQUEST, format!("Invalid Request: {why}"));
                return self
                    .tx
                    .send(jsonrpc::error_response(None, &e))
                    .await
                    .is_ok();
            }
        };
        let _ = rev;
        if items.is_empty() {
            let e = RpcError::new(jsonrpc::INVALID_REQUEST, "Invalid Request: an empty batch");
            return self
                .tx
                .send(jsonrpc::error_response(None, &e))
                .await
                .is_ok();
        }
        let mut replies: Vec<Value> = Vec::new();
        let mut waits: Vec<oneshot::Receiver<Value>> = Vec::new();
        for item in items {
            let handled = match jsonrpc::classify(item) {
                Err(b) => Handled::Reply(jsonrpc::error_response(b.0.as_ref(), &b.1)),
                Ok(msg) => self.server.handle(&self.session, msg, &Inbound::default()),
            };
            match handled {
                Handled::Reply(v) => replies.push(v),
                Handled::Nothing => {}
                Handled::Call(job) => {
                    let (otx, orx) = oneshot::channel();
                    match self
                        .start(job, move |resp| async move {
                            let _ = otx.send(resp);
                        })
                        .await
                    {
                        Ok(()) => waits.push(orx),
                        Err(resp) => replies.push(resp),
                    }
                }
            }
        }
        // The batch's answer waits for its calls; cancelled ones contribute nothing.
        let tx = self.tx.clone();
        tokio::spawn(async move {
            for w in waits {
                if let Ok(v) = w.await {
                    replies.push(v);
                }
            }
            if !replies.is_empty() {
                let _ = tx.send(Value::Array(replies)).await;
            }
        });
        true
    }
}

/// Starts `job` on its own task once a pending-call permit is free, registered under
/// its request id in `session` before it can run (so a `notifications/cancelled` that
/// arrives right away finds it). An id already in flight is refused: `Err(response)`.
pub(crate) async fn start_call<F, Fut>(
    server: &Arc<Server>,
    session: &Arc<Session>,
    pending: &Arc<Semaphore>,
    job: CallJob,
    deliver: F,
) -> Result<(), Value>
where
    F: FnOnce(Value) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let id: RequestId = job.id.clone();
    if session.in_flight(&id) {
        let e = RpcError::new(
            jsonrpc::INVALID_REQUEST,
            "Invalid Request: a request with this id is already in flight",
        );
        return Err(jsonrpc::error_response(Some(&id), &e));
    }
    let Ok(permit) = Arc::clone(pending).acquire_owned().await else {
        let e = RpcError::new(jsonrpc::INTERNAL_ERROR, "the server is shutting down");
        return Err(jsonrpc::error_response(Some(&id), &e));
    };
    let (go_tx, go_rx) = oneshot::channel::<()>();
    let (server, sess) = (Arc::clone(server), Arc::clone(session));
    let task_id = id.clone();
    let task = tokio::spawn(async move {
        if go_rx.await.is_err() {
            return;
        }
        let resp = server.run_call(job).await;
        sess.finished(&task_id);
        drop(permit);
        deliver(resp).await;
    });
    if !session.register(&id, task.abort_handle()) {
        task.abort();
        let e = RpcError::new(
            jsonrpc::INVALID_REQUEST,
            "Invalid Request: a request with this id is already in flight",
        );
        return Err(jsonrpc::error_response(Some(&id), &e));
    }
    let _ = go_tx.send(());
    Ok(())
}

async fn write_all<W: AsyncWrite + Unpin>(
    mut rx: mpsc::Receiver<Value>,
    mut out: W,
) -> std::io::Result<()> {
    while let Some(v) = rx.recv().await {
        let mut line = serde_json::to_vec(&v).map_err(std::io::Error::other)?;
        line.push(b'\n');
        out.write_all(&line).await?;
        out.flush().await?;
    }
    Ok(())
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line is in the buffer (without its newline).
    Message,
    /// A line longer than the limit was read and dropped.
    TooLong,
    /// End of input.
    Eof,
}

/// Reads one `\n`-terminated line into `buf` (cleared first), never holding more than
/// `limit` bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let avail = r.fill_buf().await?;
        if avail.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if any {
                Line::Message
            } else {
                Line::Eof
            });
        }
        any = true;
        let (chunk, done) = match avail.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        if !too_long {
            if buf.len() + chunk > limit {
                too_long = true;
                buf.clear();
                buf.shrink_to(64 * 1024);
            } else {
                buf.extend_from_slice(&avail[..chunk]);
            }
        }
        r.consume(if done { chunk + 1 } else { chunk });
        if done {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Message
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_bounded() {
        let input = b"{\"a\":1}\nxxxxxxxxxxxxxxxxxxxx\n\n{\"b\":2}".to_vec();
        let mut r = BufReader::with_capacity(4, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut r, &mut buf, 10).await.ok(),
            Some(Line::Message)
        );
        assert_eq!(buf, b"{\"a\":1}");
        assert_eq!(
            read_line(&mut r, &mut buf, 10).await.ok(),
            Some(Line::TooLong)
        );
        assert_eq!(
            read_line(&mut r, &mut buf, 10).await.ok(),
            Some(Line::Message)
        );
        assert!(buf.is_empty());
        assert_eq!(
            read_line(&mut r, &mut buf, 10).await.ok(),
            Some(Line::Message)
        );
        assert_eq!(buf, b"{\"b\":2}");
        assert_eq!(read_line(&mut r, &mut buf, 10).await.ok(), Some(Line::Eof));
    }
}
