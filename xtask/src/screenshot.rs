//! `cargo xtask screenshot`: refreshes `docs/screenshot.png`, the README's picture of
//! the page `mcpdesc docs` generates for the bundled example (the petstore description
//! imported from `tests/fixtures/openapi/petstore-3.0.yaml`, committed in
//! `tests/generated/`). It drives headless Chromium with the docs tests' own driver
//! (`tests/docs/driver.mjs`). Pixels differ between machines, so this is not part of
//! `regen --check`.

use std::process::Command;

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!(
            "screenshot: unexpected argument `{a}` (usage: cargo xtask screenshot)"
        ));
    }
    let root = crate::root();
    crate::deps::install(&root)?;
    let bin = crate::build_cli()?;
    let work = crate::target_dir().join("docs-screenshot");
    let site = work.join("site");
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    crate::run(
        Command::new(&bin)
            .arg("docs")
            .arg(root.join("tests/generated/petstore-3.0.mcpdesc.yaml"))
            .arg("-o")
            .arg(&site),
    )?;
    let chromium = std::fs::read_to_string(root.join(".deps/chromium-path"))
        .map_err(|e| format!(".deps/chromium-path: {e}"))?;
    let shot = root.join("docs/screenshot.png");
    std::fs::create_dir_all(root.join("docs")).map_err(|e| e.to_string())?;
    let job = serde_json::json!({
        "chromium": chromium.trim(),
        "nodeModules": root.join(".deps/node/node_modules"),
        "pages": [{
            "name": "readme",
            "file": site.join("index.html"),
            "screenshot": shot,
            "screenshotOpen": "list_pets",
        }],
    });
    let job_path = work.join("job.json");
    std::fs::write(&job_path, job.to_string()).map_err(|e| e.to_string())?;
    let out = Command::new("node")
        .arg(root.join("tests/docs/driver.mjs"))
        .arg(&job_path)
        .current_dir(&root)
        .output()
        .map_err(|e| format!("node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "driver failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("driver output: {e}"))?;
    let stats = &report[0]["screenshot"];
    if stats["nonBackground"].as_u64().unwrap_or(0) == 0 {
        return Err(format!("the screenshot is blank: {stats}"));
    }
    eprintln!("xtask: wrote {} ({stats})", shot.display());
    Ok(())
}
