//! `cargo xtask deps`: installs the npm and PyPI packages the tests use into `.deps/`
//! (git-ignored): `.deps/node/node_modules` from `xtask/deps/package.json` (exact
//! versions) and `.deps/venv` from `xtask/deps/requirements.txt`. Idempotent: a stamp
//! with the manifests' contents skips reinstalling when nothing changed.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn install(root: &Path) -> Result<(), String> {
    let deps = root.join(".deps");
    let spec_dir = root.join("xtask/deps");
    let pkg = std::fs::read_to_string(spec_dir.join("package.json"))
        .map_err(|e| format!("package.json: {e}"))?;
    let reqs = std::fs::read_to_string(spec_dir.join("requirements.txt"))
        .map_err(|e| format!("requirements.txt: {e}"))?;
    let stamp_path = deps.join("stamp");
    let stamp = format!("{pkg}\n--\n{reqs}");
    let node = deps.join("node");
    let venv = deps.join("venv");
    let python = venv.join("bin/python");
    if std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp)
        && node.join("node_modules").is_dir()
        && python.exists()
    {
        eprintln!("xtask: .deps is up to date");
        return Ok(());
    }
    std::fs::create_dir_all(&node).map_err(|e| format!("{}: {e}", node.display()))?;
    std::fs::write(node.join("package.json"), &pkg).map_err(|e| e.to_string())?;
    if let Ok(lock) = std::fs::read(spec_dir.join("package-lock.json")) {
        std::fs::write(node.join("package-lock.json"), lock).map_err(|e| e.to_string())?;
    }
    crate::run(
        Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(&node),
    )?;
    let reqs = spec_dir.join("requirements.txt");
    venv_install(&venv, &["-r".as_ref(), reqs.as_os_str()])?;
    std::fs::write(&stamp_path, stamp).map_err(|e| e.to_string())?;
    Ok(())
}

/// Creates the virtualenv `venv` if it is missing and `pip install`s `what` into it
/// (requirement arguments, e.g. `-r FILE` or `pkg==1.2`). Returns its python.
pub fn venv_install(venv: &Path, what: &[&std::ffi::OsStr]) -> Result<PathBuf, String> {
    let python = venv.join("bin/python");
    if !python.exists() {
        crate::run(Command::new("python3").args(["-m", "venv"]).arg(venv))?;
    }
    crate::run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(what),
    )?;
    Ok(python)
}
