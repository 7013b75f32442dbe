//! Compile proofs and semantic round trips for generated code.
//!
//! Used by the workspace tests and by `cargo xtask check-generated`:
//! - [`check_rust`]: `cargo check` and `cargo clippy -- -D warnings` of a generated crate,
//!   standalone (its own `[workspace]`), with `RUSTFLAGS="-D warnings"` and a shared
//!   target directory so rmcp and its dependencies build once;
//! - [`check_typescript`]: `tsc --noEmit` of a generated package under its strict
//!   tsconfig, both as an ES module package and as a CommonJS one;
//! - [`round_trip`]: example values of a description (Tool Examples: `input` and
//!   `structuredContent`) deserialize into the generated Rust types, serialize back, and
//!   the result still validates against the schema (checked with `jsonschema`).
//!
//! These run external tools, so they return reports instead of panicking.

use crate::{
    Error, GeneratedFile, RustOptions, TsOptions, generate_rust, generate_typescript, write_files,
};
use mcpdesc_core::refs;
use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Where the checks find their tools and put their output.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// Shared `CARGO_TARGET_DIR` for every generated crate.
    pub cargo_target_dir: PathBuf,
    /// A directory whose `node_modules` holds `typescript`, `@types/node` and
    /// `@modelcontextprotocol/sdk` (e.g. `.deps/node`).
    pub node_dir: PathBuf,
    /// Where generated projects are written (kept for inspection).
    pub work_dir: PathBuf,
    /// Also run `cargo clippy -- -D warnings`.
    pub clippy: bool,
}

impl CheckConfig {
    /// Defaults for a workspace at `root`: target `<root>/target/generated-clients`,
    /// node packages from `<root>/.deps/node`, output under `<root>/target/generated`.
    pub fn for_workspace(root: &Path) -> CheckConfig {
        CheckConfig {
            cargo_target_dir: root.join("target/generated-clients"),
            node_dir: root.join(".deps/node"),
            work_dir: root.join("target/generated"),
            clippy: true,
        }
    }

    /// The TypeScript compiler entry point, if installed.
    pub fn tsc(&self) -> Option<PathBuf> {
        let p = self.node_dir.join("node_modules/typescript/bin/tsc");
        p.is_file().then_some(p)
    }

    /// Whether the SDK is installed.
    pub fn has_sdk(&self) -> bool {
        self.node_dir
            .join("node_modules/@modelcontextprotocol/sdk/package.json")
            .is_file()
    }
}

/// One step of a check.
#[derive(Debug, Clone)]
pub struct StepReport {
    /// What ran, e.g. `constructs: cargo clippy`.
    pub step: String,
    pub ok: bool,
    pub seconds: f64,
    /// Combined output (trimmed), for failure messages.
    pub output: String,
}

fn run(step: String, cmd: &mut Command) -> StepReport {
    let start = Instant::now();
    let out = cmd.stdin(Stdio::null()).output();
    let seconds = start.elapsed().as_secs_f64();
    match out {
        Ok(o) => {
            let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stderr));
            if text.len() > 20_000 {
                let cut = text.len() - 20_000;
                let cut = (cut..text.len())
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap_or(text.len());
                text = text[cut..].to_string();
            }
            StepReport {
                step,
                ok: o.status.success(),
                seconds,
                output: text,
            }
        }
        Err(e) => StepReport {
            step,
            ok: false,
            seconds,
            output: format!("cannot run: {e}"),
        },
    }
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Replaces a directory with freshly generated files.
fn fresh(dir: &Path, files: &[GeneratedFile]) -> Result<(), Error> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io_err(dir))?;
    }
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    write_files(dir, files)
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// `cargo check` (and clippy) of the generated crate in `dir`.
pub fn check_rust(name: &str, dir: &Path, cfg: &CheckConfig) -> Vec<StepReport> {
    let manifest = dir.join("Cargo.toml");
    let mut steps = Vec::new();
    let mut subcommands = vec![vec!["check", "--quiet"]];
    if cfg.clippy {
        subcommands.push(vec!["clippy", "--quiet", "--", "-D", "warnings"]);
    }
    for args in subcommands {
        let mut cmd = cargo();
        cmd.arg(args[0])
            .arg("--manifest-path")
            .arg(&manifest)
            .args(&args[1..])
            .env("CARGO_TARGET_DIR", &cfg.cargo_target_dir)
            .env("RUSTFLAGS", "-D warnings")
            .env_remove("RUSTC_WRAPPER")
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
        steps.push(run(format!("{name}: cargo {}", args[0]), &mut cmd));
    }
    steps
}

fn link_node_modules(dir: &Path, cfg: &CheckConfig) -> Result<(), Error> {
    let link = dir.join("node_modules");
    if link.exists() {
        return Ok(());
    }
    let target =
        std::fs::canonicalize(cfg.node_dir.join("node_modules")).map_err(io_err(&cfg.node_dir))?;
    #[cfg(unix)]
    std::os::unix::fs::symlink(&target, &link).map_err(io_err(&link))?;
    #[cfg(not(unix))]
    return Err(Error::Internal("TypeScript checks need symlinks (unix)"));
    #[allow(unreachable_code)]
    Ok(())
}

/// `tsc --noEmit` of the generated package in `dir`, as ESM and as CommonJS.
pub fn check_typescript(name: &str, dir: &Path, cfg: &CheckConfig) -> Vec<StepReport> {
    let Some(tsc) = cfg.tsc() else {
        return vec![StepReport {
            step: format!("{name}: tsc"),
            ok: false,
            seconds: 0.0,
            output: "typescript is not installed".into(),
        }];
    };
    let mut steps = Vec::new();
    // The CommonJS variant: same sources, package.json without `"type": "module"`.
    let cjs = dir.with_file_name(format!(
        "{}-cjs",
        dir.file_name().and_then(|s| s.to_str()).unwrap_or("ts")
    ));
    let prepared = (|| -> Result<(), Error> {
        link_node_modules(dir, cfg)?;
        if cjs.exists() {
            std::fs::remove_dir_all(&cjs).map_err(io_err(&cjs))?;
        }
        std::fs::create_dir_all(cjs.join("src")).map_err(io_err(&cjs))?;
        for f in ["tsconfig.json", "src/index.ts"] {
            std::fs::copy(dir.join(f), cjs.join(f)).map_err(io_err(&cjs))?;
        }
        let pkg = std::fs::read_to_string(dir.join("package.json")).map_err(io_err(dir))?;
        let pkg = pkg.replace("  \"type\": \"module\",\n", "");
        std::fs::write(cjs.join("package.json"), pkg).map_err(io_err(&cjs))?;
        link_node_modules(&cjs, cfg)
    })();
    if let Err(e) = prepared {
        return vec![StepReport {
            step: format!("{name}: tsc"),
            ok: false,
            seconds: 0.0,
            output: e.to_string(),
        }];
    }
    for (variant, d) in [("esm", dir), ("cjs", cjs.as_path())] {
        let mut cmd = Command::new("node");
        cmd.arg(&tsc)
            .arg("--noEmit")
            .arg("-p")
            .arg(d.join("tsconfig.json"))
            .current_dir(d);
        steps.push(run(format!("{name}: tsc ({variant})"), &mut cmd));
    }
    steps
}

/// A value to round-trip: which generated type, the value, and the schema it must
/// validate against.
#[derive(Debug, Clone)]
pub struct Sample {
    pub rust_type: String,
    pub value: Value,
    pub schema: Value,
    /// Where the value came from (JSON pointer).
    pub origin: String,
}

/// Tool Example inputs and structured results of `doc`, paired with generated types.
pub fn samples(doc: &Value, ir: &crate::ir::Ir) -> Vec<Sample> {
    let mut out = Vec::new();
    let tools = doc
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for t in &ir.tools {
        let Some(idx) = t
            .origin
            .rsplit('/')
            .next()
            .and_then(|s| s.parse::<usize>().ok())
        else {
            continue;
        };
        let Some(examples) = tools
            .get(idx)
            .and_then(|x| x.get("examples"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (name, ex) in examples {
            let Ok((ex, _)) = refs::resolve(doc, ex, "toolExamples") else {
                continue;
            };
            let at = format!(
                "{}/examples/{}",
                t.origin,
                mcpdesc_core::pointer::escape(name)
            );
            let ty = |id: usize| {
                ir.types
                    .get(id)
                    .map(|x| x.names.rust.clone())
                    .unwrap_or_default()
            };
            if let Some(input) = ex.get("input") {
                out.push(Sample {
                    rust_type: ty(t.input),
                    value: input.clone(),
                    schema: t.input_schema.resolve(doc),
                    origin: format!("{at}/input"),
                });
            }
            if let (true, Some(schema), Some(sc)) = (
                t.structured_output,
                &t.output_schema,
                ex.get("result").and_then(|r| r.get("structuredContent")),
            ) {
                out.push(Sample {
                    rust_type: ty(t.output),
                    value: sc.clone(),
                    schema: schema.resolve(doc),
                    origin: format!("{at}/result/structuredContent"),
                });
            }
        }
    }
    out
}

/// Result of one round trip.
#[derive(Debug, Clone)]
pub struct RoundTrip {
    pub origin: String,
    pub rust_type: String,
    /// `Err` when deserialization failed, the value was rejected, or the re-serialized
    /// value no longer validates.
    pub result: Result<Value, String>,
}

/// Builds a small harness that includes the generated `src/types.rs` (serde only, no
/// rmcp) and round-trips every sample through its Rust type; then validates the
/// re-serialized values against their schemas.
pub fn round_trip(
    name: &str,
    crate_dir: &Path,
    samples: &[Sample],
    cfg: &CheckConfig,
) -> Result<(StepReport, Vec<RoundTrip>), Error> {
    let harness = cfg.work_dir.join(format!("{name}-roundtrip"));
    let types_rs =
        std::fs::canonicalize(crate_dir.join("src/types.rs")).map_err(io_err(crate_dir))?;
    let mut names: Vec<&str> = samples
        .iter()
        .map(|s| s.rust_type.as_str())
        .filter(|n| crate::escape::rust::is_ident(n))
        .collect();
    names.sort_unstable();
    names.dedup();
    let arms: String = names
        .iter()
        .map(|n| format!("            \"{n}\" => rt::<types::{n}>(value),\n"))
        .collect();
    let main = format!(
        r#"#[allow(dead_code, unused_imports, clippy::all)]
#[path = {path}]
mod types;

use std::io::BufRead as _;

fn rt<T: serde::de::DeserializeOwned + serde::Serialize>(value: serde_json::Value) -> Result<serde_json::Value, String> {{
    let typed: T = serde_json::from_value(value).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}}

fn main() {{
    for line in std::io::stdin().lock().lines() {{
        let Ok(line) = line else {{ break }};
        let Some((name, json)) = line.split_once('\t') else {{ continue }};
        let value: serde_json::Value = match serde_json::from_str(json) {{
            Ok(v) => v,
            Err(e) => {{ println!("{{}}", serde_json::json!({{"err": e.to_string()}})); continue; }}
        }};
        let out = match name {{
{arms}            _ => Err(format!("unknown type {{name}}")),
        }};
        let line = match out {{
            Ok(v) => serde_json::json!({{"ok": v}}),
            Err(e) => serde_json::json!({{"err": e}}),
        }};
        println!("{{line}}");
    }}
}}
"#,
        path = crate::escape::rust::str_lit(&types_rs.display().to_string()),
    );
    let cargo_toml = "[package]\nname = \"roundtrip-harness\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\nserde_json = \"1\"\n\n[workspace]\n";
    fresh(
        &harness,
        &[
            GeneratedFile {
                path: "Cargo.toml".into(),
                contents: cargo_toml.into(),
            },
            GeneratedFile {
                path: "src/main.rs".into(),
                contents: main,
            },
        ],
    )?;
    let mut build = cargo();
    build
        .arg("build")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(harness.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &cfg.cargo_target_dir);
    let step = run(format!("{name}: round-trip harness build"), &mut build);
    if !step.ok {
        return Ok((step, Vec::new()));
    }
    let exe = cfg
        .cargo_target_dir
        .join("debug")
        .join(format!("roundtrip-harness{}", std::env::consts::EXE_SUFFIX));
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(io_err(&exe))?;
    let mut input = String::new();
    for s in samples {
        input.push_str(&format!("{}\t{}\n", s.rust_type, s.value));
    }
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).map_err(io_err(&exe))?;
    }
    let output = child.wait_with_output().map_err(io_err(&exe))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut results = Vec::new();
    for (s, line) in samples.iter().zip(text.lines()) {
        let parsed: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let result = match (parsed.get("ok"), parsed.get("err")) {
            (Some(v), _) => validate(&s.schema, v).map(|()| v.clone()),
            (_, Some(e)) => Err(format!(
                "deserialization failed: {}",
                e.as_str().unwrap_or_default()
            )),
            _ => Err("harness gave no answer".into()),
        };
        results.push(RoundTrip {
            origin: s.origin.clone(),
            rust_type: s.rust_type.clone(),
            result,
        });
    }
    if results.len() < samples.len() {
        for s in &samples[results.len()..] {
            results.push(RoundTrip {
                origin: s.origin.clone(),
                rust_type: s.rust_type.clone(),
                result: Err("harness stopped early".into()),
            });
        }
    }
    Ok((step, results))
}

/// Validates `instance` against `schema` (dialect from `$schema`, default 2020-12).
pub fn validate(schema: &Value, instance: &Value) -> Result<(), String> {
    let v = jsonschema::validator_for(schema)
        .map_err(|e| format!("schema not usable for validation: {e}"))?;
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Everything [`check_generated`] found for one fixture.
#[derive(Debug, Clone)]
pub struct FixtureReport {
    pub name: String,
    pub steps: Vec<StepReport>,
    pub round_trips: Vec<RoundTrip>,
}

impl FixtureReport {
    /// Whether every step and round trip succeeded.
    pub fn ok(&self) -> bool {
        self.steps.iter().all(|s| s.ok) && self.round_trips.iter().all(|r| r.result.is_ok())
    }
}

/// Generates the Rust crate and TypeScript package of each description file and runs
/// every check on them. `rust`/`ts` select the targets.
pub fn check_generated(
    fixtures: &[PathBuf],
    cfg: &CheckConfig,
    rust: bool,
    ts: bool,
) -> Result<Vec<FixtureReport>, Error> {
    let mut reports = Vec::new();
    for path in fixtures {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("fixture")
            .to_string();
        let text = std::fs::read_to_string(path).map_err(io_err(path))?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: e.into(),
        })?;
        let mut report = FixtureReport {
            name: name.clone(),
            steps: Vec::new(),
            round_trips: Vec::new(),
        };
        if rust {
            let g = generate_rust(&doc, &RustOptions::default())?;
            let dir = cfg.work_dir.join(format!("{name}-rust"));
            fresh(&dir, &g.files)?;
            report.steps.extend(check_rust(&name, &dir, cfg));
            if let Some(ir) = &g.ir {
                let s = samples(&doc, ir);
                if !s.is_empty() {
                    let (step, rts) = round_trip(&name, &dir, &s, cfg)?;
                    report.steps.push(step);
                    report.round_trips = rts;
                }
            }
        }
        if ts {
            let g = generate_typescript(&doc, &TsOptions::default())?;
            let dir = cfg.work_dir.join(format!("{name}-ts"));
            fresh(&dir, &g.files)?;
            report.steps.extend(check_typescript(&name, &dir, cfg));
        }
        reports.push(report);
    }
    Ok(reports)
}
