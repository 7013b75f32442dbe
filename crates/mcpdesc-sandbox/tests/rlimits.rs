//! A running worker's OS limits, read back from the kernel (`/proc/PID/limits` and
//! `status`) while it waits for an `api` answer. In its own test binary so that the only
//! confined worker among this process's children is the probe's.
#![allow(clippy::unwrap_used)]

mod common;
use common::{Echo, children};

use std::sync::Arc;
use std::time::Duration;

use mcpdesc_sandbox::{BoxFuture, Host, Limits, Pool, WorkerCommand};
use serde_json::{Value, json};

/// Reads the OS limits of the confined worker that is running a script (the child whose
/// open-files limit is 0) from `/proc/PID/limits` and `/proc/PID/status`, while it waits
/// for this call's answer.
struct LimitsProbe;

impl Host for LimitsProbe {
    fn call(&self, _tool: &str, _args: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move {
            for (pid, _) in children().ok_or("no /proc")? {
                let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/limits")) else {
                    continue;
                };
                let row = |name: &str| -> Option<(String, String)> {
                    let rest = text.lines().find_map(|l| l.strip_prefix(name))?;
                    let mut w = rest.split_whitespace();
                    Some((w.next()?.to_string(), w.next()?.to_string()))
                };
                if row("Max open files") != Some(("0".into(), "0".into())) {
                    continue; // an idle worker, not confined yet
                }
                let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
                    .map_err(|e| e.to_string())?;
                let kib = |key: &str| -> Option<u64> {
                    status
                        .lines()
                        .find_map(|l| l.strip_prefix(key))?
                        .split_whitespace()
                        .next()?
                        .parse()
                        .ok()
                };
                return Ok(json!({
                    "cpu": row("Max cpu time"),
                    "as": row("Max address space"),
                    "core": row("Max core file size"),
                    "vm_peak": kib("VmPeak:").map(|k| k * 1024),
                }));
            }
            Err("no confined worker among the children".into())
        })
    }
}

/// The rlimits a worker runs its script under, read back from the kernel: `RLIMIT_CPU` is
/// the wall time left rounded up to whole seconds plus one (soft; SIGKILL a second later),
/// `RLIMIT_AS` is what the worker had mapped when it was confined plus the room the limits
/// give (twice the heap, four times the output limit, the stack with its headroom and
/// 256 MiB), no open files, no core file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_worker_holds_the_os_limits_of_its_script() {
    if children().is_none() {
        eprintln!("no /proc: skipped");
        return;
    }
    let pool = Pool::new(
        WorkerCommand::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker")),
        1,
    );
    // The run message carries what is left of the wall time: warm the pool first, so the
    // probe's worker is waiting and almost all of 10.5 s are left (rounded up: 11).
    let limits = Limits {
        wall: Duration::from_millis(10_500),
        ..Limits::default()
    };
    let warm = pool
        .execute("return 1;", &[], Arc::new(Echo), &limits)
        .await;
    assert_eq!(warm.result, Some(json!(1)), "{warm:?}");
    let out = pool
        .execute(
            "return await api.probe({});",
            &["probe".to_string()],
            Arc::new(LimitsProbe),
            &limits,
        )
        .await;
    let Some(seen) = out.result.clone() else {
        panic!("{out:?}")
    };
    let pair = |k: &str| -> (String, String) {
        serde_json::from_value(seen[k].clone()).unwrap_or_else(|e| panic!("{k}: {e} in {seen}"))
    };
    assert_eq!(
        pair("cpu"),
        ("12".into(), "13".into()),
        "10.5 s (less the moment before the run) rounds up to 11, plus 1"
    );
    assert_eq!(pair("core"), ("0".into(), "0".into()));
    let (soft, hard) = pair("as");
    assert_eq!(soft, hard, "the script cannot raise it");
    let as_limit: u64 = soft.parse().expect("a byte count");
    let room: u64 = 2 * 64 * 1024 * 1024 + 4 * 1024 * 1024 + (1 + 2) * 1024 * 1024 + (256 << 20);
    let mapped = as_limit
        .checked_sub(room)
        .expect("the limit holds the room");
    let peak = seen["vm_peak"].as_u64().expect("VmPeak");
    assert!(
        mapped >= 1 << 20 && mapped <= peak,
        "mapped at confinement {mapped}, peak {peak}"
    );
}
