//! `mcpdesc serve --config FILE`: a gateway configuration (issue 21 §2).
//!
//! The file (JSON or the restricted YAML profile, read like a description) names the
//! descriptions to serve under `apis`, each with its own settings, and sets every other
//! `serve` flag by its long name:
//!
//! ```yaml
//! http: 127.0.0.1:8080            # --http
//! discovery: search               # --discovery
//! timeout: 30                     # a per-API setting here is every API's default
//! apis:
//!   - description: github.mcpdesc.json   # relative to this file
//!     prefix: gh                         # served names gh_<tool>
//!     credential: {bearer: GITHUB_TOKEN} # --credential bearer=GITHUB_TOKEN
//!   - description: jira.mcpdesc.yaml
//!     base-url: https://jira.example.com
//!     header: ["X-Team: core"]
//!   - description: ours.mcpdesc.json
//!     mock: true
//! ```
//!
//! Keys are the flags' long names, and their values are typed by the very parsers of
//! those flags (clap's, through [`Args`]): one definition of each setting, so the file
//! and the command line cannot drift. A flag that takes no value is a boolean; a
//! repeatable one takes a list (or one value); `KEY=VALUE` flags (`credential`,
//! `mock-example`) take a mapping; comma-separated lists (`toolsets`, `tools`, …) take
//! a list. A bad key or value is reported at its line:column, exit 2.

use super::{Args, ServeApi, prepare_apis, serve_apis};
use crate::util::{self, CmdResult, Outcome};
use clap::{ArgAction, CommandFactory as _, FromArgMatches as _};
use mcpdesc_core::Diagnostic;
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::Arc;

/// The settings an API entry may carry (each also a default for every API when given
/// at the top level). `description` and `prefix` are an entry's own.
const PER_API: &[&str] = &[
    "base-url",
    "credential",
    "header",
    "allow-host",
    "timeout",
    "max-response-bytes",
    "concurrency",
    "validate-output",
    "mock",
    "mock-example",
];

/// Flags that are commands or positions, not settings.
const NOT_SETTINGS: &[&str] = &["config", "list-toolsets", "help"];

/// `serve`'s arguments, parsed alone (for the settings of the file).
#[derive(Debug, clap::Parser)]
#[command(name = "serve", args_override_self = true)]
struct Settings {
    #[command(flatten)]
    args: Args,
}

/// Reads, checks and serves the configuration at `path`.
pub(super) fn run(path: &str) -> CmdResult {
    let (bytes, name) = util::read_input(path)?;
    let decoded = match util::decode_input(path, &bytes) {
        Ok(d) => d,
        Err(d) => {
            super::print_diagnostics(&name, &[d]);
            return Ok(Outcome::Usage);
        }
    };
    // The file's `log-format: json` makes its own errors JSON lines too (a
    // `--log-format` beside `--config` wins, as it does for the server's log).
    if asks_json_log(&decoded.value)
        && !command_line_flags()
            .iter()
            .any(|w| w == "--log-format" || w.starts_with("--log-format="))
    {
        super::JSON_LOG.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    let base = Path::new(path).parent().unwrap_or(Path::new(""));
    match read(&decoded.value, base, command_line_flags()) {
        Ok((global, apis)) => {
            let reload = reloader(path, &global, &apis);
            serve_apis(&global, apis, Some(reload))
        }
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            diags.sort_by_key(|d| (d.line, d.column));
            super::print_diagnostics(&name, &diags);
            Ok(Outcome::Usage)
        }
    }
}

/// Whether a configuration sets `log-format: json`.
fn asks_json_log(config: &Value) -> bool {
    config.get("log-format").and_then(Value::as_str) == Some("json")
}

/// Whether the configuration file at `path` sets `log-format: json`, read before the
/// command line is parsed (so that clap's usage errors follow it). False when it cannot
/// be read or decoded (that is reported later) and for standard input (not consumed
/// here).
pub(super) fn file_asks_json_log(path: &str) -> bool {
    path != "-"
        && util::read_input(path)
            .ok()
            .and_then(|(bytes, _)| util::decode_input(path, &bytes).ok())
            .is_some_and(|d| asks_json_log(&d.value))
}

/// SIGHUP's reload of the configuration at `path`: the file and every description it
/// names are read and validated again, and the server they make is handed over (the
/// running one keeps serving when anything is wrong; the diagnostics are printed).
/// Settings of the listener and of the process (`http`, `inbound-token-env`,
/// `forward-header`, `session-key-env`, `drain-timeout`) are compared with the running
/// ones and reported when they differ: they need a restart.
fn reloader(path: &str, running: &Args, apis: &[ServeApi]) -> Arc<mcpdesc_serve::ReloadFn> {
    let path = path.to_string();
    let running = running.clone();
    let served: std::sync::Mutex<Vec<String>> =
        std::sync::Mutex::new(apis.iter().map(|a| a.description.clone()).collect());
    Arc::new(move || {
        let (bytes, name) = util::read_input(&path).map_err(|e| e.0)?;
        let decoded = match util::decode_input(&path, &bytes) {
            Ok(d) => d,
            Err(d) => {
                util::print_diagnostics(&name, std::slice::from_ref(&d));
                return Err(format!("{name}: {}", d.message));
            }
        };
        let base = Path::new(&path).parent().unwrap_or(Path::new(""));
        let (global, apis) = match read(&decoded.value, base, command_line_flags()) {
            Ok(x) => x,
            Err(mut diags) => {
                decoded.annotate(&mut diags);
                diags.sort_by_key(|d| (d.line, d.column));
                util::print_diagnostics(&name, &diags);
                return Err(format!("{name}: {} problems (printed above)", diags.len()));
            }
        };
        let now: Vec<String> = apis.iter().map(|a| a.description.clone()).collect();
        let before = served.lock().map(|v| v.clone()).unwrap_or_default();
        let mut notes = Vec::new();
        for d in now.iter().filter(|d| !before.contains(d)) {
            notes.push(format!("API added: {d}"));
        }
        for d in before.iter().filter(|d| !now.contains(d)) {
            notes.push(format!("API removed: {d}"));
        }
        let mut restart_needed = Vec::new();
        if global.inbound_token_env != running.inbound_token_env {
            restart_needed.push("inbound-token-env".to_string());
        }
        if global.forward_headers != running.forward_headers {
            restart_needed.push("forward-header".to_string());
        }
        if global.session_key_env != running.session_key_env {
            restart_needed.push("session-key-env".to_string());
        }
        if global.drain_timeout != running.drain_timeout {
            restart_needed.push("drain-timeout".to_string());
        }
        let prepared = match prepare_apis(&global, apis).map_err(|e| e.0)? {
            Ok(p) => p,
            Err(_) => {
                return Err("a description was refused (its diagnostics are printed above)".into());
            }
        };
        let (server, _) = prepared.into_parts();
        if let Ok(mut v) = served.lock() {
            *v = now;
        }
        Ok(mcpdesc_serve::Reloaded {
            server,
            addr: global.http,
            restart_needed,
            notes,
        })
    })
}

/// The configuration's server-wide [`Args`] and its APIs, or what is wrong with it
/// (diagnostics with JSON pointers into the file).
fn read(
    root: &Value,
    base: &Path,
    command_line: Vec<String>,
) -> Result<(Args, Vec<ServeApi>), Vec<Diagnostic>> {
    let Some(root) = root.as_object() else {
        return Err(vec![err("", "a gateway configuration is a mapping")]);
    };
    let mut diags = Vec::new();
    let mut global: Vec<String> = Vec::new();
    let mut defaults: Vec<String> = Vec::new();
    for (key, value) in root {
        if key == "apis" {
            continue;
        }
        let ptr = format!("/{}", pointer_token(key));
        if PER_API.contains(&key.as_str()) {
            match flag_args(key, value, &ptr) {
                Ok(a) => defaults.extend(a),
                Err(d) => diags.push(d),
            }
        } else {
            match flag_args(key, value, &ptr) {
                Ok(a) => global.extend(a),
                Err(d) => diags.push(d),
            }
        }
    }
    let apis_value = root.get("apis");
    let Some(entries) = apis_value
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
    else {
        diags.push(err(
            if apis_value.is_some() { "/apis" } else { "" },
            "`apis` lists the descriptions to serve: a non-empty list of {description, …}",
        ));
        return Err(diags);
    };
    let mut apis = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("/apis/{i}");
        let Some(entry) = entry.as_object() else {
            diags.push(err(&at, "an API entry is a mapping with `description`"));
            continue;
        };
        match api(entry, &at, base, &defaults) {
            Ok(a) => apis.push(a),
            Err(d) => diags.extend(d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let mut argv = vec!["serve".to_string()];
    argv.extend(apis.iter().map(|a| a.description.clone()));
    argv.extend(global);
    argv.extend(command_line);
    let global = parse(&argv).map_err(|e| vec![err("", e)])?;
    Ok((global, apis))
}

/// The server-wide flags given beside `--config` on the command line (clap has already
/// checked them), without `--config FILE` itself: they come after the file's settings,
/// so they win.
fn command_line_flags() -> Vec<String> {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let Some(at) = words.iter().position(|w| w == "serve") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut rest = words[at + 1..].iter();
    while let Some(w) = rest.next() {
        if w == "--config" {
            rest.next();
        } else if !w.starts_with("--config=") {
            out.push(w.clone());
        }
    }
    out
}

/// One `apis` entry: its description (relative to the file), prefix and settings (the
/// top-level defaults, then its own, which win).
fn api(
    entry: &Map<String, Value>,
    at: &str,
    base: &Path,
    defaults: &[String],
) -> Result<ServeApi, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let description = match entry.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => base.join(d).to_string_lossy().into_owned(),
        _ => {
            diags.push(err(
                &format!("{at}/description"),
                "each API names its description file: `description: FILE`",
            ));
            String::new()
        }
    };
    let prefix = match entry.get("prefix") {
        None => None,
        Some(Value::String(p)) if !p.is_empty() => Some(p.clone()),
        Some(_) => {
            diags.push(err(
                &format!("{at}/prefix"),
                "`prefix` is a non-empty string",
            ));
            None
        }
    };
    let mut argv = vec!["serve".to_string(), description.clone()];
    argv.extend(defaults.iter().cloned());
    for (key, value) in entry {
        if key == "description" || key == "prefix" {
            continue;
        }
        let ptr = format!("{at}/{}", pointer_token(key));
        if !PER_API.contains(&key.as_str()) {
            diags.push(err(
                &ptr,
                format!(
                    "`{key}` is not a per-API setting (an API takes description, prefix, {}); server-wide settings go at the top level",
                    PER_API.join(", ")
                ),
            ));
            continue;
        }
        match flag_args(key, value, &ptr) {
            Ok(a) => argv.extend(a),
            Err(d) => diags.push(d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let args = parse(&argv).map_err(|e| vec![err(at, e)])?;
    Ok(ServeApi {
        description,
        prefix,
        args,
    })
}

/// The command-line words of setting `key` = `value`, each checked by its flag's own
/// parser (an error names the setting's place in the file).
fn flag_args(key: &str, value: &Value, ptr: &str) -> Result<Vec<String>, Diagnostic> {
    let cmd = Settings::command();
    let arg = cmd
        .get_arguments()
        .find(|a| a.get_long() == Some(key) && !NOT_SETTINGS.contains(&key));
    let Some(arg) = arg else {
        return Err(err(
            ptr,
            format!(
                "`{key}` is not a setting of `mcpdesc serve` (keys are its flags' long names, and `apis`)"
            ),
        ));
    };
    let flag = format!("--{key}");
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    let words: Vec<String> = match arg.get_action() {
        ArgAction::SetTrue => match value {
            Value::Bool(true) => vec![flag.clone()],
            Value::Bool(false) => Vec::new(),
            _ => return Err(err(ptr, format!("`{key}` is true or false"))),
        },
        ArgAction::Append => {
            let items: Vec<String> = match value {
                Value::Object(m) => m
                    .iter()
                    .map(|(k, v)| {
                        // `tool-scopes: {GLOB: [scope, ...]}`: the list as one value.
                        let list = || {
                            v.as_array()?
                                .iter()
                                .map(|s| s.as_str().filter(|s| !s.is_empty() && !s.contains(' ')))
                                .collect::<Option<Vec<_>>>()
                                .map(|l| l.join(" "))
                        };
                        let v = if key == "tool-scopes" {
                            list()
                        } else {
                            scalar(v)
                        };
                        v.map(|v| format!("{k}={v}"))
                    })
                    .collect::<Option<_>>()
                    .ok_or_else(|| err(ptr, format!("`{key}` maps names to single values")))?,
                Value::Array(a) => a
                    .iter()
                    .map(scalar)
                    .collect::<Option<_>>()
                    .ok_or_else(|| err(ptr, format!("`{key}` is a list of single values")))?,
                v => vec![scalar(v).ok_or_else(|| err(ptr, format!("`{key}` takes a value")))?],
            };
            // `--flag=value`: a value that starts with `-` stays a value.
            if arg.get_value_delimiter().is_some() {
                vec![format!("{flag}={}", items.join(","))]
            } else {
                items.into_iter().map(|i| format!("{flag}={i}")).collect()
            }
        }
        _ => {
            let v = scalar(value).ok_or_else(|| {
                err(
                    ptr,
                    format!("`{key}` takes one value (a string or a number)"),
                )
            })?;
            vec![format!("{flag}={v}")]
        }
    };
    // The setting alone, through its flag's parser.
    let mut probe = vec!["serve".to_string(), "DESCRIPTION".to_string()];
    probe.extend(words.iter().cloned());
    if matches!(
        key,
        "inbound-token-env" | "server-prefix" | "mock-example" | "session-key-env" | "public-url"
    ) {
        // Their `requires` are checked with the whole configuration.
        return Ok(words);
    }
    if key.starts_with("rate-limit") {
        // Their values through their parsers; their `requires` (http, rate-limit,
        // rate-limit-store) with the whole configuration.
        let own = format!("--{key}=");
        for w in [
            "--http=127.0.0.1:0",
            "--rate-limit=1/s",
            "--rate-limit-store=redis://127.0.0.1:6379",
        ] {
            if !w.starts_with(&own) {
                probe.push(w.to_string());
            }
        }
    }
    parse(&probe).map_err(|e| err(ptr, e))?;
    Ok(words)
}

/// `serve`'s arguments from words, or clap's first line of why not.
fn parse(argv: &[String]) -> Result<Args, String> {
    let matches = Settings::command()
        .try_get_matches_from(argv)
        .map_err(|e| first_line(&e.to_string()))?;
    Settings::from_arg_matches(&matches)
        .map(|s| s.args)
        .map_err(|e| first_line(&e.to_string()))
}

fn first_line(s: &str) -> String {
    s.lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("error: ")
        .to_string()
}

fn err(pointer: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error("config-invalid", message).at(pointer)
}

/// `key` as a JSON pointer token (RFC 6901: `~` → `~0`, `/` → `~1`).
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
