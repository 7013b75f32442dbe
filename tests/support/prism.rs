//! Prism (`@stoplight/prism-cli` 5.16.0 from `.deps/node`) for tests that put a mock of
//! an OpenAPI document behind `mcpdesc serve`: `prism mock --errors` on a free loopback
//! port validates every request against the document (a violation is a 4xx problem
//! document), and the process group is torn down when the handle drops.
//!
//! Prism fetches remote `$ref`s itself and dies offline, so [`offline_copy`] writes a
//! copy whose remote references are empty schemas (importing the same copy keeps the
//! gateway and Prism on one document).

use crate::deps_dir;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `prism` launcher in `.deps/node`.
pub fn bin() -> PathBuf {
    deps_dir().join("node/node_modules/.bin/prism")
}

/// A running `prism mock --errors`.
#[derive(Debug)]
pub struct Prism {
    child: Child,
    pub port: u16,
}

impl Prism {
    /// Starts Prism on `spec` and waits until it listens (it takes a few seconds).
    pub fn start(spec: &Path) -> Result<Prism, String> {
        use std::os::unix::process::CommandExt as _;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| e.to_string())?;
        let mut child = Command::new(bin())
            .args([
                "mock",
                "--errors",
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .arg(spec)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("{}: {e}", bin().display()))?;
        let out = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    // Nobody listens any more; keep draining so Prism never blocks.
                    continue;
                }
            }
        });
        let prism = Prism { child, port };
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut seen = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(line) if line.contains("is listening on") => return Ok(prism),
                Ok(line) => seen.push(line),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
                Err(_) => {
                    return Err(format!(
                        "prism did not start for {}: {}",
                        spec.display(),
                        seen.join("\n")
                    ));
                }
            }
        }
    }

    /// `http://127.0.0.1:PORT` (Prism serves paths without the servers' base path).
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Prism {
    fn drop(&mut self) {
        let pgid = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &pgid]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &pgid]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A copy of the OpenAPI document `spec` (JSON, or YAML read leniently: anchors are
/// allowed in specs) under `dir`, as JSON text with the original file name, in which
/// every remote `$ref` is an empty schema; relative files it references are copied
/// beside it the same way (one level).
pub fn offline_copy(spec: &Path, dir: &Path) -> Result<PathBuf, String> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                let remote = m
                    .get("$ref")
                    .and_then(Value::as_str)
                    .is_some_and(|r| r.starts_with("http://") || r.starts_with("https://"));
                if remote {
                    m.clear();
                    return;
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    fn local_files(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    let file = r.split('#').next().unwrap_or("");
                    if !file.is_empty() && !file.contains("://") && !out.iter().any(|f| f == file) {
                        out.push(file.to_string());
                    }
                }
                m.values().for_each(|x| local_files(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| local_files(x, out)),
            _ => {}
        }
    }
    let read = |p: &Path| -> Result<Value, String> {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if p.extension().is_some_and(|x| x == "json") {
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
        } else {
            serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
        }
    };
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let name = spec
        .file_name()
        .ok_or("no file name")?
        .to_string_lossy()
        .to_string();
    let mut v = read(spec)?;
    let mut files = Vec::new();
    local_files(&v, &mut files);
    strip(&mut v);
    // The original file name and extension stay: the importer picks the format by it
    // (JSON is YAML, so a JSON text under a .yaml name reads the same).
    let out = dir.join(&name);
    let text = if name.ends_with(".json") {
        serde_json::to_string(&v)
    } else {
        serde_json::to_string_pretty(&v)
    };
    std::fs::write(&out, text.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let base = spec.parent().ok_or("no folder")?;
    for f in files {
        let mut fv = read(&base.join(&f))?;
        strip(&mut fv);
        let dst = dir.join(&f);
        if let Some(p) = dst.parent() {
            std::fs::create_dir_all(p).map_err(|e| e.to_string())?;
        }
        std::fs::write(
            &dst,
            serde_json::to_string_pretty(&fv).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Whether a tool result's text is Prism refusing the *request*: a Prism problem
/// document (`https://stoplight.io/prism/errors#…`) that is neither only about Prism's
/// own generated response (its mock of a recursive schema can miss required members)
/// nor Prism unable to write its mocked body ("Cannot find serializer for …"): those
/// are Prism gaps, not request faults. `Some(problem)` when it is.
pub fn rejection(result_text: &str) -> Option<String> {
    let start = result_text.find('{')?;
    let v: Value = serde_json::from_str(&result_text[start..]).ok()?;
    let ty = v.get("type")?.as_str()?;
    if !ty.starts_with("https://stoplight.io/prism/errors#") {
        return None;
    }
    let response_only = ty.ends_with("#VIOLATIONS")
        && v.get("validation")
            .and_then(Value::as_array)
            .is_some_and(|vs| {
                !vs.is_empty()
                    && vs
                        .iter()
                        .all(|x| x.pointer("/location/0") == Some(&json!("response")))
            });
    let unserializable = ty.ends_with("#UNKNOWN")
        && v.get("title")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("Cannot find serializer"));
    (!response_only && !unserializable).then(|| v.to_string())
}
