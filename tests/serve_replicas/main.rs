//! `mcpdesc serve --http` operated as a service (issue 29): probes, drain on SIGTERM,
//! reload on SIGHUP, and replicas behind a real nginx sharing sealed sessions, driven by
//! the real binary (signals are the process's) and the official TypeScript v2 client.

mod replica;

use mcpdesc_tests::{fixture, missing, workspace_root};
use replica::{Replica, http_get, post_json, reserve_port};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The key every replica shares (32 bytes as hex; a test value, not a secret).
const KEY: &str = "8f3c2a1b0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a";
const KEY_VAR: &str = "MCPDESC_TEST_SESSION_KEY";

fn replicas_fixture(name: &str) -> PathBuf {
    fixture(&format!("serve/replicas/{name}"))
}

/// A scratch folder holding copies of the fixtures (a test rewrites its configuration).
fn scratch() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    for f in ["alpha.mcpdesc.json", "beta.mcpdesc.json", "one.yaml"] {
        std::fs::copy(replicas_fixture(f), d.path().join(f)).expect("copy fixture");
    }
    d
}

/// The served tool names at 2026-07-28 (a stateless `tools/list`), and the list's `ttlMs`.
fn modern_tools(addr: SocketAddr) -> (Vec<String>, Option<i64>) {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
        }}
    });
    let (status, _, v) = post_json(
        addr,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
        ],
        &body,
    );
    assert_eq!(status, 200, "tools/list: {v}");
    let mut names: Vec<String> = v["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list: {v}"))
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    (names, v["result"]["ttlMs"].as_i64())
}

#[test]
fn probes_answer_without_auth_and_before_mcp() {
    let dir = scratch();
    let mut r = Replica::start(&[
        "--config".into(),
        dir.path().join("one.yaml").display().to_string(),
        "--http".into(),
        "127.0.0.1:0".into(),
    ]);
    let addr = r.addr;
    assert_eq!(http_get(addr, "/healthz", "127.0.0.1").0, 200);
    let (status, body) = http_get(addr, "/readyz", "127.0.0.1");
    assert_eq!((status, body.trim()), (200, "ready"));
    // A probe's Host is the orchestrator's (a pod IP): no DNS-rebinding refusal there,
    // while the MCP endpoint still refuses it.
    assert_eq!(http_get(addr, "/readyz", "10.1.2.3:8080").0, 200);
    assert_eq!(http_get(addr, "/mcp", "10.1.2.3:8080").0, 403);
    // `GET /mcp` is not a health endpoint.
    assert_eq!(http_get(addr, "/mcp", "127.0.0.1").0, 405);
    let code = r.terminate();
    assert_eq!(code, Some(0), "exit status after SIGTERM:\n{}", r.log());
    assert!(r.log().contains("drained"), "{}", r.log());
}

#[test]
fn behind_a_proxy_the_public_host_passes_the_rebinding_check() {
    let dir = scratch();
    let mut r = Replica::start(&[
        "--config".into(),
        dir.path().join("one.yaml").display().to_string(),
        "--http".into(),
        "127.0.0.1:0".into(),
        "--public-url".into(),
        "https://mcp.example.com".into(),
    ]);
    // The proxy forwards the client's Host: the public host is this server's name.
    assert_eq!(http_get(r.addr, "/mcp", "mcp.example.com").0, 405);
    assert_eq!(http_get(r.addr, "/mcp", "MCP.example.com:443").0, 405);
    // Any other name is still refused on a loopback bind.
    assert_eq!(http_get(r.addr, "/mcp", "evil.example").0, 403);
    assert_eq!(
        http_get(r.addr, "/mcp", "mcp.example.com.evil.example").0,
        403
    );
    assert_eq!(r.terminate(), Some(0), "{}", r.log());
}

#[test]
fn reload_adds_an_api_and_a_broken_file_keeps_the_old_one() {
    let dir = scratch();
    let config = dir.path().join("one.yaml");
    let mut r = Replica::start(&[
        "--config".into(),
        config.display().to_string(),
        "--http".into(),
        "127.0.0.1:0".into(),
    ]);
    let (before, ttl) = modern_tools(r.addr);
    assert_eq!(before, ["alpha_ping"]);
    // Lists are not cached (so a reload is seen at the next list).
    assert_eq!(ttl, Some(0));

    // A second API: its tools are served after SIGHUP.
    std::fs::write(
        &config,
        "mock: true\napis:\n  - description: alpha.mcpdesc.json\n  - description: beta.mcpdesc.json\n",
    )
    .expect("write config");
    r.signal("HUP");
    r.wait_for_line(|l| l.contains("reloaded: 2 tools"));
    assert_eq!(modern_tools(r.addr).0, ["alpha_ping", "beta_pong"]);
    assert!(r.log().contains("added: beta_pong"), "{}", r.log());
    // The notes follow the swap's line.
    r.wait_for_line(|l| l.contains("API added:"));

    // A broken description: the old list stays, the process stays up.
    std::fs::write(
        dir.path().join("beta.mcpdesc.json"),
        "{ \"mcpdesc\": \"0.8.0\", ",
    )
    .expect("write");
    r.signal("HUP");
    r.wait_for_line(|l| l.contains("reload failed"));
    assert_eq!(modern_tools(r.addr).0, ["alpha_ping", "beta_pong"]);
    // A broken configuration file likewise.
    std::fs::write(&config, "mock: true\napis: 7\n").expect("write config");
    r.signal("HUP");
    r.wait_for_nth_line(2, |l| l.contains("reload failed"));
    assert_eq!(modern_tools(r.addr).0, ["alpha_ping", "beta_pong"]);
    // A process setting is reported as needing a restart, the rest is taken.
    std::fs::write(
        &config,
        "mock: true\ndrain-timeout: 5\napis:\n  - description: alpha.mcpdesc.json\n",
    )
    .expect("write config");
    r.signal("HUP");
    r.wait_for_line(|l| l.contains("reloaded: 1 tools"));
    r.wait_for_line(|l| l.contains("drain-timeout needs a restart"));
    assert!(r.log().contains("removed: beta_pong"), "{}", r.log());
    assert_eq!(modern_tools(r.addr).0, ["alpha_ping"]);
    assert_eq!(r.terminate(), Some(0), "{}", r.log());
}

/// An upstream that holds each request until the test lets it answer.
struct SlowUpstream {
    addr: SocketAddr,
    arrived: std::sync::mpsc::Receiver<()>,
    release: std::sync::mpsc::Sender<()>,
}

impl SlowUpstream {
    fn start() -> SlowUpstream {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = l.local_addr().expect("addr");
        let (arrived_tx, arrived) = std::sync::mpsc::channel();
        let (release, release_rx) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            for stream in l.incoming() {
                let Ok(mut s) = stream else { return };
                let mut buf = [0u8; 8192];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = arrived_tx.send(());
                if release_rx.recv().is_err() {
                    return;
                }
                let body = r#"[{"id":1,"name":"Rex"}]"#;
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        SlowUpstream {
            addr,
            arrived,
            release,
        }
    }
}

#[test]
fn sigterm_lets_a_slow_call_finish_then_exits_zero() {
    let up = SlowUpstream::start();
    let petstore = workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml");
    let mut r = Replica::start_with_env(
        &[
            petstore.display().to_string(),
            "--base-url".into(),
            format!("http://{}", up.addr),
            "--http".into(),
            "127.0.0.1:0".into(),
            "--drain-timeout".into(),
            "20".into(),
        ],
        &[("MCPDESC_CREDENTIAL_API_KEY", "test-key")],
    );
    let tool = "list_pets";
    assert!(modern_tools(r.addr).0.iter().any(|n| n == tool));
    let addr = r.addr;
    let call = std::thread::spawn(move || {
        let body = json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": tool, "arguments": {"X-Request-Id": "r1"}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
            }}
        });
        let name = body["params"]["name"].as_str().unwrap_or("").to_string();
        post_json(
            addr,
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", &name),
            ],
            &body,
        )
    });
    up.arrived
        .recv_timeout(replica::TIMEOUT)
        .expect("the call reached the upstream");
    r.signal("TERM");
    r.wait_for_line(|l| l.contains("draining:"));
    // The listener is closed: a new connection is refused, so a proxy tries elsewhere.
    assert!(
        std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_err(),
        "still accepting while draining"
    );
    assert!(
        !r.has_exited(),
        "exited with a call in flight:\n{}",
        r.log()
    );
    up.release.send(()).expect("release");
    let (status, _, v) = call.join().expect("call thread");
    assert_eq!(status, 200, "{v}");
    assert!(v["result"]["content"].is_array(), "{v}");
    assert!(
        v.to_string().contains("Rex"),
        "the upstream's answer came back: {v}"
    );
    assert_eq!(r.wait_exit(), Some(0), "{}", r.log());
    assert!(
        r.log().contains("drained: every connection closed"),
        "{}",
        r.log()
    );
}

/// nginx in front of `ports`: round robin, no affinity, the next upstream on error.
struct Nginx {
    child: std::process::Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Nginx {
    fn start(ports: &[u16]) -> Nginx {
        let dir = tempfile::tempdir().expect("tempdir");
        let port = reserve_port();
        let servers: String = ports
            .iter()
            .map(|p| format!("    server 127.0.0.1:{p} max_fails=0;\n"))
            .collect();
        let p = dir.path().display();
        // `non_idempotent`: a POST whose connection a closing replica refused or reset
        // before answering goes to the next replica (MCP requests carry ids; the mock's
        // tools are idempotent). `keepalive`: connections to replicas are reused, so
        // draining must close them cleanly.
        let conf = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {p}/nginx.pid;\nerror_log {p}/error.log warn;\n\
             events {{ worker_connections 512; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {p}/body;\n  proxy_temp_path {p}/proxy;\n\
             fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path {p}/scgi;\n\
             upstream replicas {{\n{servers}    keepalive 8;\n  }}\n\
             server {{\n    listen 127.0.0.1:{port};\n    location / {{\n      proxy_pass http://replicas;\n\
             proxy_http_version 1.1;\n      proxy_set_header Connection \"\";\n      proxy_set_header Host $http_host;\n\
             proxy_buffering off;\n      proxy_next_upstream error timeout non_idempotent;\n      proxy_next_upstream_tries 0;\n\
             proxy_connect_timeout 2s;\n    }}\n  }}\n}}\n"
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).expect("nginx.conf");
        let child = Command::new("/usr/sbin/nginx")
            .args(["-p", &p.to_string(), "-c", "nginx.conf", "-e", "stderr"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start nginx");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
        // nginx says nothing when it listens: connect until it does (bounded).
        let until = std::time::Instant::now() + replica::TIMEOUT;
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(std::time::Instant::now() < until, "nginx did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        Nginx {
            child,
            addr,
            _dir: dir,
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn replica_args(config: &Path, port: u16) -> Vec<String> {
    vec![
        "--config".into(),
        config.display().to_string(),
        "--http".into(),
        format!("127.0.0.1:{port}"),
        "--session-key-env".into(),
        KEY_VAR.into(),
    ]
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn rolling_restart_behind_nginx_loses_no_call() {
    let client = mcpdesc_tests::node_modules()
        .map(|m| m.join("@modelcontextprotocol/client/package.json"))
        .filter(|p| p.is_file());
    if client.is_none() || !Path::new("/usr/sbin/nginx").is_file() {
        return missing("@modelcontextprotocol/client (.deps/node) or /usr/sbin/nginx");
    }
    let dir = scratch();
    let config = dir.path().join("one.yaml");
    let ports: Vec<u16> = (0..3).map(|_| reserve_port()).collect();
    let mut replicas: Vec<Replica> = ports
        .iter()
        .map(|p| Replica::start_with_env(&replica_args(&config, *p), &[(KEY_VAR, KEY)]))
        .collect();
    let nginx = Nginx::start(&ports);

    // The load: a 2026-07-28 client and a 2025-11-25 session client at once.
    let work = workspace_root().join("target/serve-replicas");
    std::fs::create_dir_all(&work).expect("work dir");
    let link = work.join("node_modules");
    if !link.exists() {
        #[cfg(unix)]
        if let Err(e) =
            std::os::unix::fs::symlink(mcpdesc_tests::node_modules().expect("node_modules"), &link)
            && e.kind() != std::io::ErrorKind::AlreadyExists
        {
            panic!("symlink: {e}");
        }
    }
    std::fs::copy(replicas_fixture("load.mjs"), work.join("load.mjs")).expect("copy load.mjs");
    let mut load = Command::new("node")
        .arg(work.join("load.mjs"))
        .arg(format!("http://{}/mcp", nginx.addr))
        .arg("alpha_ping")
        .current_dir(&work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node load.mjs");
    let out = load.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                let _ = tx.send(v);
            }
        }
    });
    let next = |what: &str| -> Value {
        rx.recv_timeout(replica::TIMEOUT * 3)
            .unwrap_or_else(|_| panic!("load.mjs: no {what} line"))
    };
    let ready = next("ready");
    assert_eq!(
        ready["ready"],
        json!({"auto": "2026-07-28", "legacy": "2025-11-25"}),
        "{ready}"
    );
    // Calls made so far (ticks of 10).
    let mut seen = 0;
    let mut advance = |by: u64| {
        let target = seen + by;
        while seen < target {
            let v = next("tick");
            if let Some(t) = v["tick"].as_u64() {
                seen = t;
            }
        }
    };
    advance(20);
    // Restart each replica in turn: SIGTERM, wait for exit 0, start again on its port,
    // wait for /readyz, and let the load run on before the next one.
    for (i, port) in ports.iter().enumerate() {
        let code = replicas[i].terminate();
        assert_eq!(code, Some(0), "replica {i} exit:\n{}", replicas[i].log());
        advance(20);
        replicas[i] = Replica::start_with_env(&replica_args(&config, *port), &[(KEY_VAR, KEY)]);
        let (status, _) = http_get(replicas[i].addr, "/readyz", "127.0.0.1");
        assert_eq!(status, 200);
        // Wait for the new incarnation's first call: the ticks queued while it restarted
        // say nothing about it (counting 20 of them raced with the restart).
        let mut ticks = 0;
        while !replicas[i].log().contains("tools/call") {
            advance(1);
            ticks += 1;
            assert!(
                ticks < 5_000,
                "replica {i} (restarted) served no call in {ticks} ticks:\n{}",
                replicas[i].log()
            );
        }
        advance(20);
    }
    // Every process that opened the session is gone: the session lives on in its id.
    drop(load.stdin.take());
    let summary = loop {
        let v = next("summary");
        if v.get("summary").is_some() {
            break v["summary"].clone();
        }
    };
    let status = load.wait().expect("node exit");
    assert!(status.success(), "load.mjs: {status}");
    for mode in ["auto", "legacy"] {
        let s = &summary[mode];
        assert_eq!(s["errors"], json!([]), "{mode}: {s}");
        assert!(s["ok"].as_u64().unwrap_or(0) >= 20, "{mode}: {s}");
    }
    assert_eq!(summary["auto"]["negotiated"], "2026-07-28");
    assert_eq!(summary["legacy"]["negotiated"], "2025-11-25");
    assert!(
        summary["legacy"]["sessionId"]
            .as_str()
            .is_some_and(|s| s.starts_with("s1.")),
        "a sealed session id: {summary}"
    );
    // Calls reached every replica incarnation (no affinity).
    for (i, r) in replicas.iter().enumerate() {
        assert!(
            r.log().contains("tools/call"),
            "replica {i} (restarted) served no call:\n{}",
            r.log()
        );
    }
    for (i, r) in replicas.iter_mut().enumerate() {
        assert_eq!(r.terminate(), Some(0), "replica {i}:\n{}", r.log());
    }
    drop(nginx);
}
