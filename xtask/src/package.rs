//! `cargo xtask package [--verify]`: every publishable crate packages.
//!
//! Without `--verify` (what `cargo xtask test` runs; seconds):
//! - `cargo package --workspace --no-verify` over the publishable crates, which rejects
//!   what crates.io would (a path dependency without a version, a manifest error);
//! - every file a crate's build reads from its sources — `include_str!`/`include_bytes!`
//!   literals and askama templates (`askama.toml` dirs × `#[template(path = …)]`) —
//!   lies inside the crate and is in its `cargo package --list`. A file outside the
//!   crate is the usual way a package builds in the workspace and not from crates.io.
//!   Inside means by path: a folder of the crate may be a symlink (mcpdesc-codegen's
//!   `templates` links to the workspace's top-level `templates/`), which `cargo package`
//!   follows and packages as files; the link must resolve inside the workspace, so a
//!   fresh clone has what it points at.
//!
//! With `--verify`: `cargo package --workspace`, which also builds every tarball
//! (minutes: packaged crates build without the workspace's profiles).
//!
//! Crates with `publish = false` (tests, xtask, bench) are left out: `cargo package
//! --workspace` would package them too.

use std::path::{Component, Path, PathBuf};

pub fn run(args: &[String]) -> Result<(), String> {
    let verify = match args {
        [] => false,
        [a] if a == "--verify" => true,
        _ => return Err("usage: cargo xtask package [--verify]".into()),
    };
    let Members {
        publishable,
        unpublished,
    } = members()?;
    let mut cmd = crate::cargo();
    cmd.args(["package", "--workspace", "--allow-dirty"]);
    if !verify {
        cmd.arg("--no-verify");
    }
    for name in &unpublished {
        cmd.args(["--exclude", name]);
    }
    crate::run(&mut cmd)?;

    let root = crate::root();
    let mut problems = Vec::new();
    for (name, dir) in &publishable {
        let listed = package_list(name)?;
        for read in build_inputs(dir)? {
            if let Some(p) = link_out_of(&root, &read) {
                problems.push(format!("{name}: {p}"));
            }
            match read.strip_prefix(dir) {
                Ok(rel) if listed.iter().any(|l| Path::new(l) == rel) => {}
                Ok(rel) => problems.push(format!(
                    "{name}: reads {} but does not package it",
                    rel.display()
                )),
                Err(_) => problems.push(format!(
                    "{name}: reads {}, outside the crate (not in its package)",
                    read.display()
                )),
            }
        }
    }
    if problems.is_empty() {
        eprintln!(
            "xtask: package: {} crates package with every file their sources read",
            publishable.len()
        );
        return Ok(());
    }
    for p in &problems {
        eprintln!("  {p}");
    }
    Err(format!("{} packaging problem(s)", problems.len()))
}

/// A build input reached through a symlink that leaves the workspace `root` (the
/// package would carry whatever that machine has there); `None` when the file resolves
/// inside it, or does not exist (the package listing reports that).
fn link_out_of(root: &Path, read: &Path) -> Option<String> {
    let real = read.canonicalize().ok()?;
    (!real.starts_with(root)).then(|| {
        format!(
            "reads {} through a symlink to {}, outside the workspace",
            read.display(),
            real.display()
        )
    })
}

/// Workspace members by whether they may be published.
struct Members {
    /// Name and manifest folder.
    publishable: Vec<(String, PathBuf)>,
    /// `publish = false`.
    unpublished: Vec<String>,
}

fn members() -> Result<Members, String> {
    let out = crate::cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(crate::root())
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let mut publishable = Vec::new();
    let mut unpublished = Vec::new();
    for p in meta["packages"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default().to_string();
        // `publish = false` is `"publish": []`; `null` means any registry.
        if p["publish"].as_array().is_some_and(|a| a.is_empty()) {
            unpublished.push(name);
            continue;
        }
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap_or_default());
        let dir = manifest
            .parent()
            .ok_or_else(|| format!("{name}: manifest without a folder"))?;
        publishable.push((name, dir.to_path_buf()));
    }
    Ok(Members {
        publishable,
        unpublished,
    })
}

/// The files `cargo package -p NAME` would put in the tarball (paths inside the crate).
fn package_list(name: &str) -> Result<Vec<String>, String> {
    let out = crate::cargo()
        .args(["package", "--list", "--allow-dirty", "-p", name])
        .current_dir(crate::root())
        .output()
        .map_err(|e| format!("cargo package --list -p {name}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo package --list -p {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// Files the crate in `dir` reads at build time, as normalized absolute paths.
fn build_inputs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut sources = Vec::new();
    rust_files(&dir.join("src"), &mut sources)?;
    let template_dirs = askama_dirs(dir)?;
    let mut inputs = Vec::new();
    for file in sources {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let here = file.parent().unwrap_or(dir);
        for lit in literals_after(&text, &["include_str!(", "include_bytes!("]) {
            inputs.push(normalize(&here.join(lit)));
        }
        for lit in literals_after(&text, &["#[template(path = "]) {
            // askama looks in each configured dir; the template must be in one of them.
            let found = template_dirs
                .iter()
                .map(|d| d.join(&lit))
                .find(|p| p.is_file());
            inputs.push(normalize(&found.unwrap_or_else(|| dir.join(&lit))));
        }
    }
    Ok(inputs)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries {
        let p = e.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if p.is_dir() {
            rust_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

/// askama's template folders: `dirs = [...]` of the crate's askama.toml, else `templates`.
fn askama_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let config = dir.join("askama.toml");
    let Ok(text) = std::fs::read_to_string(&config) else {
        return Ok(vec![dir.join("templates")]);
    };
    let Some(list) = text
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("dirs"))
        .and_then(|l| l.trim_start().strip_prefix('='))
    else {
        return Ok(vec![dir.join("templates")]);
    };
    let list = list.trim().trim_start_matches('[').trim_end_matches(']');
    Ok(list
        .split(',')
        .map(|d| d.trim().trim_matches('"'))
        .filter(|d| !d.is_empty())
        .map(|d| dir.join(d))
        .collect())
}

/// The string literal right after each occurrence of one of `prefixes`.
fn literals_after(text: &str, prefixes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in prefixes {
        for (at, _) in text.match_indices(prefix) {
            let rest = text[at + prefix.len()..].trim_start();
            let literal = rest
                .strip_prefix('"')
                .and_then(|body| body.find('"').map(|end| &body[..end]));
            out.extend(literal.map(str::to_string));
        }
    }
    out
}

/// `a/b/../c` → `a/c`, without touching the file system (the file may not exist).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn symlinks_must_stay_in_the_workspace() {
        let base = std::env::temp_dir().join(format!("xtask-package-{}", std::process::id()));
        let ws = base.join("ws");
        let outside = base.join("outside");
        for d in [ws.join("templates"), ws.join("crate"), outside.clone()] {
            std::fs::create_dir_all(&d).expect("dirs");
        }
        std::fs::write(ws.join("templates/a.askama"), "a").expect("file");
        std::fs::write(outside.join("b.askama"), "b").expect("file");
        std::os::unix::fs::symlink("../templates", ws.join("crate/templates")).expect("link in");
        std::os::unix::fs::symlink(&outside, ws.join("crate/far")).expect("link out");
        let root = ws.canonicalize().expect("root");
        assert_eq!(
            link_out_of(&root, &root.join("crate/templates/a.askama")),
            None
        );
        assert_eq!(link_out_of(&root, &root.join("crate/missing.askama")), None);
        let far = link_out_of(&root, &root.join("crate/far/b.askama")).expect("outside");
        assert!(far.contains("outside the workspace"), "{far}");
        std::fs::remove_dir_all(&base).expect("clean up");
    }

    #[test]
    fn finds_what_sources_read() {
        let src = "const A: &str = include_str!(\n  \"../schema/a.json\");\n\
                   #[template(path = \"rust/lib.rs.askama\", escape = \"none\")]\n\
                   let b = include_bytes!(\"b.bin\");";
        assert_eq!(
            literals_after(src, &["include_str!(", "include_bytes!("]),
            ["../schema/a.json", "b.bin"]
        );
        assert_eq!(
            literals_after(src, &["#[template(path = "]),
            ["rust/lib.rs.askama"]
        );
        assert_eq!(
            normalize(Path::new("/w/crates/x/src/../../../tests/f.json")),
            Path::new("/w/tests/f.json")
        );
    }
}
