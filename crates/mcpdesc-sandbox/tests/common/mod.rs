//! What the sandbox's process tests share: a host that answers each `api` call with its
//! argument, and this process's children as the kernel lists them (`/proc`), the oracle
//! for "the worker is gone". Each test binary uses what it needs of it.
#![allow(dead_code)]

use mcpdesc_sandbox::{BoxFuture, Host};
use serde_json::Value;

/// Answers every `api` call with its argument.
pub struct Echo;

impl Host for Echo {
    fn call(&self, _tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move { Ok(args) })
    }
}

/// This process's children as (pid, state: `R`, `S`, `Z`…), from `/proc/*/stat`; `None`
/// without `/proc`.
pub fn children() -> Option<Vec<(u32, char)>> {
    let me = std::process::id();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").ok()? {
        let Ok(e) = e else { continue };
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …: comm may hold spaces, so read after the last ')'.
        let rest = &stat[stat.rfind(')')? + 2..];
        let mut it = rest.split_whitespace();
        let state = it.next()?.chars().next()?;
        let ppid: u32 = it.next()?.parse().ok()?;
        if ppid == me {
            out.push((pid, state));
        }
    }
    Some(out)
}
