//! `cargo xtask bench --only-telemetry` (issue 29): what metrics and traces together
//! cost a `tools/call`.
//!
//! The serve group's set-up (the tiny `upstream`, the one-operation document imported by
//! `mcpdesc import openapi`), and a telemetry sink (`upstream PORT sink`: it reads each
//! OTLP/HTTP export and answers 200). Two servers run side by side: `mcpdesc serve`
//! plain, and with `--metrics` and `--otlp-endpoint` (the sink; every request is a new
//! sampled root trace, so each call exports a SERVER and a CLIENT span). `serve_load`
//! measures tools/call p50 at concurrency 1 on each in interleaved rounds (plain, both,
//! plain, both…, after an untimed warm-up of each), so a change of machine load hits
//! both alike. Each round's p50s, their ratio both/plain and the load average are
//! printed; the verdict is the median of the per-round ratios against the target.
//!
//! Beside the wall clock, each round reads each server's CPU time (user + system, from
//! `/proc`) over its run and divides it by the calls `serve_load` sent (warm-up
//! included): CPU per call depends far less on other load than p50 does. The OTLP
//! exporter's thread (`OpenTelemetry.*`) is counted apart, as part of the server's.
//!
//! A measurement, not a test: a missed target is printed loudly; the command exits 0.

use super::Opts;
use super::serve::{
    Reap, load, one_operation_description, start_until, tool_args, tool_name, url_in,
};
use std::path::Path;
use std::process::Command;

/// Target: metrics + traces cost at most 5 % of tools/call p50 (issue 29).
const RATIO_TARGET: f64 = 1.05;
/// Seconds measured per server and round (after `serve_load`'s own warm-up).
const ROUND_SECS: &str = "2";
/// The environment that would turn traces on, or change what is sampled, in either
/// server: removed so both run as their flags say.
const OTEL_ENV: [&str; 6] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_TRACES_SAMPLER",
    "OTEL_TRACES_SAMPLER_ARG",
    "OTEL_SDK_DISABLED",
    "OTEL_TRACES_EXPORTER",
];

/// The load averages (1, 5, 15 min) from `/proc/loadavg`.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}

/// CPU seconds (user + system) of process `pid` and, apart, of its threads whose name
/// starts with `thread` (from `/proc`, in clock ticks of 10 ms); zeros where `/proc`
/// cannot be read.
fn cpu_seconds(pid: u32, thread: &str) -> (f64, f64) {
    const TICK: f64 = 0.01;
    let ticks = |stat: &str| -> f64 {
        let f: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(Vec::new(), |(_, r)| r.split_whitespace().collect());
        let n = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        // After the `(comm)` field: state is 0, utime 11, stime 12.
        n(11) + n(12)
    };
    let all = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(0.0, |s| ticks(&s));
    let mut named = 0.0;
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            if comm.starts_with(thread) {
                named += std::fs::read_to_string(t.path().join("stat")).map_or(0.0, |s| ticks(&s));
            }
        }
    }
    (all * TICK, named * TICK)
}

/// The OTLP batch span processor's thread name (`OpenTelemetry.Traces.BatchProcessor`,
/// cut to 15 bytes by the kernel).
const EXPORTER_THREAD: &str = "OpenTelemetry";

/// One server's share of a round: its p50, and its CPU per call in µs (all, exporter).
struct Round {
    p50_ms: f64,
    cpu_us: f64,
    exporter_us: f64,
}

/// A plain `GET` of `http://authority/path`; the body.
fn get(authority: &str, path: &str) -> Result<String, String> {
    use std::io::{Read as _, Write as _};
    let mut s = std::net::TcpStream::connect(authority).map_err(|e| format!("{authority}: {e}"))?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut text = String::new();
    s.read_to_string(&mut text).map_err(|e| e.to_string())?;
    Ok(text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default())
}

/// `mcpdesc serve DESC --http 127.0.0.1:0` with `extra`; the process and its MCP URL.
fn serve(mcpdesc: &Path, desc: &Path, extra: &[&str]) -> Result<(Reap, String), String> {
    let mut cmd = Command::new(mcpdesc);
    cmd.arg("serve")
        .arg(desc)
        .args(["--http", "127.0.0.1:0", "--concurrency", "64"])
        .args(extra);
    for v in OTEL_ENV {
        cmd.env_remove(v);
    }
    let (p, line) = start_until(cmd, true, "serving")?;
    Ok((p, url_in(&line).ok_or("no serve URL")?))
}

pub fn run(opts: &Opts, release: &Path, work: &Path) -> Result<(), String> {
    let exe = |n: &str| release.join(format!("{n}{}", std::env::consts::EXE_SUFFIX));
    let started = |args: &[&str]| {
        let mut c = Command::new(exe("upstream"));
        c.args(args);
        start_until(c, false, "listening on")
    };
    let (_upstream, line) = started(&["0"])?;
    let up = url_in(&line).ok_or("no upstream URL")?;
    let (_sink, line) = started(&["0", "sink"])?;
    let sink = url_in(&line).ok_or("no sink URL")?;
    let (_, desc) = one_operation_description(&exe("mcpdesc"), work, "telemetry-bench", &up)?;
    let (tool, args) = (tool_name(&desc)?, tool_args(&desc, r#"{"id__path":42}"#)?);
    let metrics = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .to_string();
    let (plain_proc, plain_url) = serve(&exe("mcpdesc"), &desc, &[])?;
    let (both_proc, both_url) = serve(
        &exe("mcpdesc"),
        &desc,
        &["--metrics", &metrics, "--otlp-endpoint", &sink],
    )?;
    let driver = exe("serve_load");
    let round = |url: &str, pid: u32| -> Result<Round, String> {
        let before = cpu_seconds(pid, EXPORTER_THREAD);
        let l = load(
            &driver,
            &[
                "mcp".into(),
                url.to_string(),
                "1".into(),
                ROUND_SECS.into(),
                tool.clone(),
                args.clone(),
            ],
        )?;
        let after = cpu_seconds(pid, EXPORTER_THREAD);
        if l.errors > 0 {
            return Err(format!("{} of the calls to {url} failed", l.errors));
        }
        let per_call = |s: f64| s * 1e6 / (l.sent.max(1) as f64);
        Ok(Round {
            p50_ms: l.p50_ms,
            cpu_us: per_call(after.0 - before.0),
            exporter_us: per_call(after.1 - before.1),
        })
    };
    let (plain_pid, both_pid) = (plain_proc.id(), both_proc.id());
    let load_before = loadavg();
    println!(
        "\nTelemetry overhead: tools/call p50 at concurrency 1, `mcpdesc serve` plain vs --metrics + --otlp-endpoint (a loopback sink); {} interleaved rounds of {ROUND_SECS} s after a warm-up; load average {load_before}\n",
        opts.runs
    );
    round(&plain_url, plain_pid)?;
    round(&both_url, both_pid)?;
    println!(
        "| round | plain p50 | metrics+traces p50 | ratio | plain CPU/call | metrics+traces CPU/call | of which exporter | load average |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---|");
    let mut ratios = Vec::new();
    let (mut plains, mut boths) = (Vec::new(), Vec::new());
    let (mut plain_cpu, mut both_cpu, mut exporter_cpu) = (Vec::new(), Vec::new(), Vec::new());
    for n in 1..=opts.runs {
        let plain = round(&plain_url, plain_pid)?;
        let both = round(&both_url, both_pid)?;
        let ratio = both.p50_ms / plain.p50_ms.max(1e-9);
        println!(
            "| {n} | {:.3} ms | {:.3} ms | {ratio:.3} | {:.1} µs | {:.1} µs | {:.1} µs | {} |",
            plain.p50_ms,
            both.p50_ms,
            plain.cpu_us,
            both.cpu_us,
            both.exporter_us,
            loadavg()
        );
        ratios.push(ratio);
        plains.push(plain.p50_ms);
        boths.push(both.p50_ms);
        plain_cpu.push(plain.cpu_us);
        both_cpu.push(both.cpu_us);
        exporter_cpu.push(both.exporter_us);
    }
    let (scrape, batches) = (
        get(&metrics, "/metrics")?,
        get(sink.trim_start_matches("http://"), "/")?,
    );
    if !scrape.contains("mcp_server_operation_duration_seconds") {
        return Err("the metrics of the telemetry server are empty".into());
    }
    let batches: u64 = batches.trim().parse().unwrap_or(0);
    if batches == 0 {
        return Err("the telemetry sink received no trace export".into());
    }
    let median = super::median(ratios).unwrap_or(f64::NAN);
    let verdict = if median <= RATIO_TARGET {
        "PASS"
    } else {
        "FAIL"
    };
    println!(
        "\nmedian p50: plain {:.3} ms, metrics+traces {:.3} ms; median of the per-round ratios {median:.3} (target ≤ {RATIO_TARGET}): {verdict}; {batches} trace exports received; load average before {load_before}, after {}",
        super::median(plains).unwrap_or(f64::NAN),
        super::median(boths).unwrap_or(f64::NAN),
        loadavg()
    );
    let med = |v: Vec<f64>| super::median(v).unwrap_or(f64::NAN);
    println!(
        "median CPU per call (serve's user + system time / calls sent): plain {:.1} µs, metrics+traces {:.1} µs, of which the OTLP exporter's thread {:.1} µs",
        med(plain_cpu),
        med(both_cpu),
        med(exporter_cpu)
    );
    if verdict == "FAIL" {
        eprintln!(
            "\n!!! xtask bench: metrics + traces cost more than {:.0} % of tools/call p50 (issue 29). Benchmarks are not tests: exiting 0.",
            (RATIO_TARGET - 1.0) * 100.0
        );
    }
    Ok(())
}
