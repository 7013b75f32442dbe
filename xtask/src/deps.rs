//! `cargo xtask deps`: installs the npm and PyPI packages the tests use into `.deps/`
//! (git-ignored): `.deps/node/node_modules` from `xtask/deps/package.json` (exact
//! versions) and `.deps/venv` from `xtask/deps/requirements.txt`. Idempotent: a stamp
//! with the manifests' contents skips reinstalling when nothing changed.
//!
//! It also makes sure a headless Chromium is installed for the `docs` browser tests
//! (driven by `puppeteer-core`, which never downloads a browser): Debian's
//! `chromium-headless-shell` through apt-get when running as root, else an error
//! naming the package.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn install(root: &Path) -> Result<(), String> {
    let deps = root.join(".deps");
    // The docs browser tests read the browser's path from here (one lookup, this one).
    let chromium = ensure_chromium()?;
    // The gateway's production tests run a real reverse proxy and a real Redis.
    for (package, binary) in SERVICE_PACKAGES {
        ensure_apt_binary(package, binary)?;
    }
    std::fs::create_dir_all(&deps).map_err(|e| format!("{}: {e}", deps.display()))?;
    std::fs::write(
        deps.join("chromium-path"),
        chromium.as_os_str().as_encoded_bytes(),
    )
    .map_err(|e| format!(".deps/chromium-path: {e}"))?;
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

/// Debian packages whose programs the gateway tests start (`serve` behind nginx, the
/// shared rate limit in Redis), with the binary each installs.
pub const SERVICE_PACKAGES: [(&str, &str); 2] = [
    ("nginx-light", "/usr/sbin/nginx"),
    ("redis-server", "/usr/bin/redis-server"),
];

/// Installs the Debian `package` with apt-get when `binary` is missing (as root only,
/// `apt-get update` just when the first attempt fails); otherwise fails naming it.
fn ensure_apt_binary(package: &str, binary: &str) -> Result<(), String> {
    if Path::new(binary).exists() {
        return Ok(());
    }
    if !is_root() {
        return Err(format!(
            "{binary} not found: install the Debian package `{package}` (apt-get install {package}) \
             or run `cargo xtask deps` as root"
        ));
    }
    apt_install(package)?;
    if Path::new(binary).exists() {
        Ok(())
    } else {
        Err(format!(
            "apt-get installed `{package}` but {binary} is missing"
        ))
    }
}

/// `apt-get install -y --no-install-recommends package`, with one `apt-get update` and a
/// retry when the first attempt fails (a stale or missing package list).
fn apt_install(package: &str) -> Result<(), String> {
    let apt = |args: &[&str]| {
        crate::run(
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )
    };
    let install = ["install", "-y", "--no-install-recommends", package];
    if apt(&install).is_err() {
        apt(&["update"])?;
        apt(&install)?;
    }
    Ok(())
}

/// Debian packages that provide a headless Chromium, preferred first.
const CHROMIUM_PACKAGES: [&str; 2] = ["chromium-headless-shell", "chromium"];

/// The installed headless Chromium: `MCPDESC_CHROMIUM`, then the Debian binaries, then
/// `chromium` on PATH.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MCPDESC_CHROMIUM") {
        return Some(PathBuf::from(p)).filter(|p| p.exists());
    }
    let fixed = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"];
    if let Some(p) = fixed.iter().map(PathBuf::from).find(|p| p.exists()) {
        return Some(p);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .flat_map(|d| CHROMIUM_PACKAGES.map(|n| d.join(n)).into_iter().rev())
            .find(|p| p.is_file())
    })
}

/// Installs `chromium-headless-shell` with apt-get when no Chromium is found: as root
/// only (`apt-get update` just when the first attempt fails, for a stale or missing
/// package list); otherwise fails naming the package to install.
fn ensure_chromium() -> Result<PathBuf, String> {
    if let Some(p) = find_chromium() {
        eprintln!("xtask: headless Chromium: {}", p.display());
        return Ok(p);
    }
    let package = CHROMIUM_PACKAGES[0];
    if !is_root() {
        return Err(format!(
            "no headless Chromium found (looked for /usr/bin/chromium-headless-shell, /usr/bin/chromium, \
             chromium on PATH, $MCPDESC_CHROMIUM); install the Debian package `{package}` \
             (apt-get install {package}) or run `cargo xtask deps` as root"
        ));
    }
    apt_install(package)?;
    find_chromium()
        .inspect(|p| eprintln!("xtask: headless Chromium: {}", p.display()))
        .ok_or_else(|| format!("apt-get installed `{package}` but no Chromium binary was found"))
}

/// Whether this process runs as uid 0 (read from /proc: no libc dependency).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().next())
            == Some("0")
    })
}
