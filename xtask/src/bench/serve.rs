//! The `serve` group of `cargo xtask bench` (issue 13):
//!
//! 1. Gateway overhead. A tiny hyper upstream (`upstream`, one fixed JSON body) and a
//!    one-operation OpenAPI document pointing at it, imported by `mcpdesc import
//!    openapi`. The load driver (`serve_load`, one keep-alive connection per worker)
//!    measures calls/s and latency p50/p99 at concurrency 1 and 32: the upstream
//!    directly (the floor), `mcpdesc serve --http` (a 2025-11-25 session per worker,
//!    `tools/call`), and FastMCP `from_openapi` on the same document and upstream.
//!    Targets: added p50 ≤ 0.5 ms at concurrency 1; ≥ 10× FastMCP's calls/s at 32.
//! 2. Start-up on the GitHub description (1,223 tools, imported from `@octokit/openapi`):
//!    the time from starting `mcpdesc serve` (stdio) to its first `tools/list` answer, and
//!    its peak and current RSS after it, against `mcpdesc validate` on the same file.
//!    Targets: within 1.2× validate's wall time, under 2× validate's peak RSS.
//!
//! Measurements, not tests: a missed target is printed loudly; the command exits 0.

use super::{Opts, median};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Concurrency levels of the overhead runs.
const LEVELS: [usize; 2] = [1, 32];
/// Target: added latency at concurrency 1 (p50), ms.
const ADDED_P50_TARGET_MS: f64 = 0.5;
/// Target: calls/s against FastMCP's at concurrency 32.
const FASTMCP_RATIO_TARGET: f64 = 10.0;
/// Targets of the GitHub start-up against `mcpdesc validate`.
const STARTUP_WALL_TARGET: f64 = 1.2;
const STARTUP_RSS_TARGET: f64 = 2.0;

/// The one operation of the overhead runs.
pub(super) fn spec(upstream: &str) -> String {
    serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "Serve bench", "version": "1.0.0"},
        "servers": [{"url": upstream}],
        "paths": {"/items/{id}": {"get": {
            "operationId": "getItem",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"}, "name": {"type": "string"}, "price": {"type": "number"},
                    "tags": {"type": "array", "items": {"type": "string"}}, "inStock": {"type": "boolean"}
                }
            }}}}}
        }}}
    })
    .to_string()
}

/// Kills (and reaps) a server process when dropped.
pub(super) struct Reap(Child);

impl Reap {
    /// The process id.
    pub(super) fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cmd` and returns it with the first line of `stream` that contains `needle`.
pub(super) fn start_until(
    mut cmd: Command,
    from_stderr: bool,
    needle: &str,
) -> Result<(Reap, String), String> {
    if from_stderr {
        cmd.stderr(Stdio::piped()).stdout(Stdio::null());
    } else {
        cmd.stdout(Stdio::piped()).stderr(Stdio::null());
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    let out: Box<dyn std::io::Read + Send> = if from_stderr {
        Box::new(child.stderr.take().ok_or("no stderr")?)
    } else {
        Box::new(child.stdout.take().ok_or("no stdout")?)
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let reap = Reap(child);
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(l) if l.contains(needle) => {
                // Keep draining so the server never blocks on a full pipe.
                std::thread::spawn(move || while rx.recv().is_ok() {});
                return Ok((reap, l));
            }
            Ok(_) => {}
            Err(_) => return Err(format!("{cmd:?} did not print `{needle}`")),
        }
    }
}

/// The one-operation document ([`spec`], calling `upstream`) written to
/// `WORK/NAME-openapi.json`, and `WORK/NAME.mcpdesc.json` imported from it by the release
/// `mcpdesc` at `mcpdesc`: both paths.
pub(super) fn one_operation_description(
    mcpdesc: &Path,
    work: &Path,
    name: &str,
    upstream: &str,
) -> Result<(PathBuf, PathBuf), String> {
    let spec_path = work.join(format!("{name}-openapi.json"));
    std::fs::write(&spec_path, spec(upstream)).map_err(|e| e.to_string())?;
    let desc = work.join(format!("{name}.mcpdesc.json"));
    crate::run(
        Command::new(mcpdesc)
            .args(["import", "openapi"])
            .arg(&spec_path)
            .arg("-o")
            .arg(&desc),
    )?;
    Ok((spec_path, desc))
}

pub(super) fn url_in(line: &str) -> Option<String> {
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .map(|w| w.trim_end_matches(['.', ',', ')']).to_string())
}

#[derive(Debug, Clone, Default)]
pub(super) struct Load {
    pub(super) calls_per_s: f64,
    pub(super) p50_ms: f64,
    pub(super) p99_ms: f64,
    pub(super) errors: u64,
    /// Requests sent, the warm-up's included.
    pub(super) sent: u64,
}

pub(super) fn load(driver: &Path, args: &[String]) -> Result<Load, String> {
    let out = Command::new(driver)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "serve_load {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let f = |k: &str| v.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    Ok(Load {
        calls_per_s: f("calls_per_s"),
        p50_ms: f("p50_ms"),
        p99_ms: f("p99_ms"),
        errors: v
            .get("errors")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0),
        sent: v
            .get("sent")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0),
    })
}

/// FastMCP serving `spec` against `upstream` over Streamable HTTP on `port`.
const FASTMCP_SERVER: &str = r#"import json, sys
from fastmcp import FastMCP

# No client is passed: FastMCP builds its default one from the spec's servers, which
# point at the upstream (sys.argv[2] is the same URL, kept for the log).
spec = json.load(open(sys.argv[1]))
mcp = FastMCP.from_openapi(openapi_spec=spec)
print("fastmcp ready", flush=True)
mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[3]), log_level="warning", show_banner=False)
"#;

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

fn wait_port(port: u16) -> bool {
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

pub fn run(opts: &Opts, release: &Path, root: &Path, work: &Path) -> Result<(), String> {
    let exe = |n: &str| release.join(format!("{n}{}", std::env::consts::EXE_SUFFIX));
    let secs = if opts.quick { "2" } else { "5" };
    let (_upstream, line) = start_until(
        {
            let mut c = Command::new(exe("upstream"));
            c.arg("0");
            c
        },
        false,
        "listening on",
    )?;
    let up = url_in(&line).ok_or("no upstream URL")?;
    let (spec_path, desc) = one_operation_description(&exe("mcpdesc"), work, "serve-bench", &up)?;
    let driver = exe("serve_load");
    let args_json = r#"{"id__path":42}"#;
    let direct = format!("{up}/items/42");
    let mut rows: Vec<(String, usize, Result<Load, String>)> = Vec::new();
    for c in LEVELS {
        rows.push((
            "upstream directly (floor)".into(),
            c,
            load(
                &driver,
                &["http".into(), direct.clone(), c.to_string(), secs.into()],
            ),
        ));
    }
    {
        let mut cmd = Command::new(exe("mcpdesc"));
        cmd.arg("serve")
            .arg(&desc)
            .args(["--http", "127.0.0.1:0", "--concurrency", "64"]);
        let (_serve, line) = start_until(cmd, true, "serving")?;
        let url = url_in(&line).ok_or("no serve URL")?;
        // The imported tool's name and arguments come from the description.
        let tool = tool_name(&desc)?;
        let args = tool_args(&desc, args_json)?;
        for c in LEVELS {
            rows.push((
                "mcpdesc serve".into(),
                c,
                load(
                    &driver,
                    &[
                        "mcp".into(),
                        url.clone(),
                        c.to_string(),
                        secs.into(),
                        tool.clone(),
                        args.clone(),
                    ],
                ),
            ));
        }
    }
    if opts.peers {
        match super::fastmcp_python(&root.join(".deps/bench")) {
            Ok(python) => {
                let script = work.join("fastmcp_serve.py");
                std::fs::write(&script, FASTMCP_SERVER).map_err(|e| e.to_string())?;
                let port = free_port()?;
                let mut cmd = Command::new(&python);
                cmd.arg(&script)
                    .arg(&spec_path)
                    .arg(&up)
                    .arg(port.to_string());
                match start_until(cmd, false, "fastmcp ready") {
                    Ok((_fm, _)) if wait_port(port) => {
                        let url = format!("http://127.0.0.1:{port}/mcp");
                        for c in LEVELS {
                            rows.push((
                                format!("FastMCP {} from_openapi", super::FASTMCP_VERSION),
                                c,
                                load(
                                    &driver,
                                    &[
                                        "mcp".into(),
                                        url.clone(),
                                        c.to_string(),
                                        secs.into(),
                                        "getItem".into(),
                                        r#"{"id":42}"#.into(),
                                    ],
                                ),
                            ));
                        }
                    }
                    Ok(_) => eprintln!("xtask bench: FastMCP did not listen on {port}; skipped"),
                    Err(e) => eprintln!("xtask bench: FastMCP skipped: {e}"),
                }
            }
            Err(e) => eprintln!("xtask bench: FastMCP skipped: {e}"),
        }
    }
    let mut misses = print_overhead(&rows);
    match github_startup(opts, &exe("mcpdesc"), work) {
        Ok(m) => misses += m,
        Err(e) => eprintln!("xtask bench: GitHub start-up skipped: {e}"),
    }
    if misses > 0 {
        eprintln!(
            "\n!!! xtask bench: `mcpdesc serve` MISSES {misses} issue-13 target(s) (see FAIL above). Benchmarks are not tests: exiting 0."
        );
    }
    Ok(())
}

/// The one tool of the bench description and its arguments (the path parameter's
/// input name is the importer's choice).
pub(super) fn tool_name(desc: &Path) -> Result<String, String> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(desc).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    v.pointer("/tools/0/name")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
        .ok_or("no tool".into())
}

pub(super) fn tool_args(desc: &Path, fallback: &str) -> Result<String, String> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(desc).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let prop = v
        .pointer("/tools/0/inputSchema/properties")
        .and_then(serde_json::Value::as_object)
        .and_then(|m| m.keys().next().cloned());
    Ok(match prop {
        Some(p) => serde_json::json!({ p: 42 }).to_string(),
        None => fallback.to_string(),
    })
}

fn print_overhead(rows: &[(String, usize, Result<Load, String>)]) -> usize {
    let floor = |c: usize| {
        rows.iter()
            .find(|(n, cc, _)| n.starts_with("upstream") && *cc == c)
            .and_then(|(_, _, l)| l.as_ref().ok().cloned())
    };
    let fastmcp = |c: usize| {
        rows.iter()
            .find(|(n, cc, _)| n.starts_with("FastMCP") && *cc == c)
            .and_then(|(_, _, l)| l.as_ref().ok().cloned())
    };
    let mut misses = 0;
    println!(
        "\nServe overhead (Streamable HTTP, one keep-alive connection per worker, GET /items/42 through the gateway):\n"
    );
    println!(
        "| server | concurrency | calls/s | p50 | p99 | added p50 | added p99 | errors | issue-13 target |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for (name, c, l) in rows {
        let Ok(l) = l else {
            println!(
                "| {name} | {c} | failed | | | | | | {} |",
                l.as_ref()
                    .err()
                    .map(|e| e.replace('|', "/"))
                    .unwrap_or_default()
            );
            continue;
        };
        let (ap50, ap99) = match floor(*c) {
            Some(f) if !name.starts_with("upstream") => (
                format!("{:.3} ms", l.p50_ms - f.p50_ms),
                format!("{:.3} ms", l.p99_ms - f.p99_ms),
            ),
            _ => (String::new(), String::new()),
        };
        let mut target = String::new();
        if name == "mcpdesc serve" {
            if *c == 1
                && let Some(f) = floor(1)
            {
                let ok = l.p50_ms - f.p50_ms <= ADDED_P50_TARGET_MS;
                misses += usize::from(!ok);
                target = format!(
                    "added p50 ≤ {ADDED_P50_TARGET_MS} ms: {}",
                    if ok { "PASS" } else { "FAIL" }
                );
            }
            if *c == 32 {
                match fastmcp(32) {
                    Some(fm) if fm.calls_per_s > 0.0 => {
                        let ratio = l.calls_per_s / fm.calls_per_s;
                        let ok = ratio >= FASTMCP_RATIO_TARGET;
                        misses += usize::from(!ok);
                        target = format!(
                            "{ratio:.1}× FastMCP (≥ {FASTMCP_RATIO_TARGET}×): {}",
                            if ok { "PASS" } else { "FAIL" }
                        );
                    }
                    _ => target = "FastMCP not measured".into(),
                }
            }
        }
        println!(
            "| {name} | {c} | {:.0} | {:.3} ms | {:.3} ms | {ap50} | {ap99} | {} | {target} |",
            l.calls_per_s, l.p50_ms, l.p99_ms, l.errors
        );
    }
    misses
}

/// `mcpdesc serve` on the GitHub description: time to the first tools/list answer and
/// memory, against `mcpdesc validate`.
fn github_startup(opts: &Opts, mcpdesc: &Path, work: &Path) -> Result<usize, String> {
    let spec = std::env::var_os("MCPDESC_GITHUB_SPEC")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            crate::root()
                .join(".deps/node/node_modules/@octokit/openapi/generated/api.github.com.json")
        });
    if !spec.is_file() {
        return Err(format!(
            "{} not found (run `cargo xtask deps`)",
            spec.display()
        ));
    }
    let desc = work.join("github.mcpdesc.json");
    crate::run(
        Command::new(mcpdesc)
            .args(["import", "openapi"])
            .arg(&spec)
            .arg("-o")
            .arg(&desc),
    )?;
    let time_bin = Path::new("/usr/bin/time");
    let runs = opts.runs;
    let (mut v_wall, mut v_rss, mut s_wall, mut s_hwm, mut s_rss) =
        (vec![], vec![], vec![], vec![], vec![]);
    for round in 0..=runs {
        // validate: wall time and peak RSS (GNU time %M).
        let rss_file = work.join("validate-rss.txt");
        let mut cmd = if time_bin.is_file() {
            let mut c = Command::new(time_bin);
            c.arg("-f").arg("%M").arg("-o").arg(&rss_file).arg(mcpdesc);
            c
        } else {
            Command::new(mcpdesc)
        };
        cmd.arg("validate")
            .arg(&desc)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let t0 = Instant::now();
        cmd.status().map_err(|e| e.to_string())?;
        let vw = t0.elapsed().as_secs_f64();
        let vr = std::fs::read_to_string(&rss_file)
            .ok()
            .and_then(|s| s.lines().last().and_then(|l| l.trim().parse::<f64>().ok()));
        // serve: spawn, ask tools/list at once, time the first answer, read /proc.
        let t0 = Instant::now();
        let mut child = Command::new(mcpdesc)
            .arg("serve")
            .arg(&desc)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let pid = child.id();
        let mut stdin = child.stdin.take().ok_or("stdin")?;
        let out = child.stdout.take().ok_or("stdout")?;
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"bench","version":"1"}}}}}}"#).map_err(|e| e.to_string())?;
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .map_err(|e| e.to_string())?;
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{}}}}"#
        )
        .map_err(|e| e.to_string())?;
        let mut r = BufReader::new(out);
        let mut answered = false;
        let mut line = String::new();
        while r.read_line(&mut line).map_err(|e| e.to_string())? > 0 {
            if line.starts_with(r#"{"jsonrpc":"2.0","id":2,"#) {
                answered = true;
                break;
            }
            line.clear();
        }
        let sw = t0.elapsed().as_secs_f64();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let kib = |k: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|n| n.parse::<f64>().ok())
        };
        let (hwm, rss) = (kib("VmHWM:"), kib("VmRSS:"));
        drop(stdin);
        let _ = child.wait();
        if !answered {
            return Err("serve did not answer tools/list".into());
        }
        if round > 0 {
            v_wall.push(vw);
            s_wall.push(sw);
            v_rss.extend(vr);
            s_hwm.extend(hwm);
            s_rss.extend(rss);
        }
    }
    let (vw, sw) = (median(v_wall), median(s_wall));
    let (vr, sh, sr) = (median(v_rss), median(s_hwm), median(s_rss));
    let ratio =
        |a: Option<f64>, b: Option<f64>| a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b);
    let wall_ratio = ratio(sw, vw);
    let rss_ratio = ratio(sh, vr);
    let mib = |k: Option<f64>| k.map_or("n/a".into(), |k| format!("{:.0} MiB", k / 1024.0));
    let mut misses = 0;
    let verdict = |r: Option<f64>, t: f64, misses: &mut usize| match r {
        Some(r) if r <= t => format!("{r:.2}× (≤ {t}×): PASS"),
        Some(r) => {
            *misses += 1;
            format!("{r:.2}× (≤ {t}×): FAIL")
        }
        None => "n/a".into(),
    };
    println!(
        "\nGitHub description ({} runs each after a warm-up; {}):\n",
        runs,
        desc.display()
    );
    println!("| measure | mcpdesc validate | mcpdesc serve (stdio) | ratio, issue-13 target |");
    println!("|---|---:|---:|---|");
    println!(
        "| wall: whole validate / start → first tools/list answer | {} | {} | {} |",
        vw.map_or("n/a".into(), |w| format!("{w:.3} s")),
        sw.map_or("n/a".into(), |w| format!("{w:.3} s")),
        verdict(wall_ratio, STARTUP_WALL_TARGET, &mut misses)
    );
    println!(
        "| peak RSS (serve: VmHWM after the answer) | {} | {} | {} |",
        mib(vr),
        mib(sh),
        verdict(rss_ratio, STARTUP_RSS_TARGET, &mut misses)
    );
    println!(
        "| serve RSS while serving (VmRSS after the answer) | | {} | {} |",
        mib(sr),
        ratio(sr, vr).map_or("n/a".into(), |r| format!("{r:.2}× validate's peak"))
    );
    Ok(misses)
}
