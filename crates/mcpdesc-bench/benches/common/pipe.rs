//! A JSON-RPC client of an in-process `mcpdesc serve` over a stdio pipe (the `code` and
//! `facade` benches): the server runs on the bench's tokio runtime, the client blocks on
//! each answer.

use mcpdesc_serve::Server;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

/// The two-worker tokio runtime both benches serve on.
pub fn runtime() -> Arc<tokio::runtime::Runtime> {
    Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime"),
    )
}

pub struct Client {
    rt: Arc<tokio::runtime::Runtime>,
    w: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next: i64,
}

impl Client {
    pub fn open(rt: &Arc<tokio::runtime::Runtime>, server: &Arc<Server>) -> Client {
        let (client, srv) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(srv);
        rt.spawn(mcpdesc_serve::serve_stdio(Arc::clone(server), sr, sw));
        let (cr, cw) = tokio::io::split(client);
        let mut c = Client {
            rt: Arc::clone(rt),
            w: cw,
            lines: tokio::io::BufReader::new(cr).lines(),
            next: 1,
        };
        let r = c.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
        );
        assert!(r.get("result").is_some(), "{r}");
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    pub fn send(&mut self, msg: &Value) {
        let mut line = serde_json::to_vec(msg).expect("json");
        line.push(b'\n');
        let w = &mut self.w;
        self.rt.block_on(async {
            w.write_all(&line).await.expect("write");
            w.flush().await.expect("flush");
        });
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let lines = &mut self.lines;
        let line = self
            .rt
            .block_on(lines.next_line())
            .expect("read")
            .expect("an answer");
        serde_json::from_str(&line).expect("JSON")
    }

    pub fn call(&mut self, name: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        let result = r.get("result").cloned().unwrap_or(Value::Null);
        assert_ne!(result["isError"], true, "{name}: {r}");
        result
    }
}
