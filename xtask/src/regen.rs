//! `cargo xtask regen [--check]`: regenerates every committed generated artifact with
//! the real `mcpdesc` binary, the way a user's pipeline would:
//!
//! - the example descriptions imported from the bundled OpenAPI specs
//!   (`tests/fixtures/openapi/petstore-*` → `tests/generated/petstore-*.mcpdesc.yaml`);
//! - the example clients generated from one of them
//!   (`tests/generated/petstore-client-rust/`, `tests/generated/petstore-client-ts/`).
//!
//! Everything is produced into a scratch folder first. Without `--check` the committed
//! artifacts are then replaced; with `--check` nothing is written and the command fails,
//! listing each added, removed or changed file, when the committed artifacts are stale.
//! Compile proofs of the committed clients: `cargo xtask check-generated`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The committed artifacts, relative to the workspace root.
const OUT: &str = "tests/generated";

/// One regeneration step: `mcpdesc ARGS… -o <OUT>/<output>`.
struct Step {
    args: &'static [&'static str],
    output: &'static str,
}

const STEPS: &[Step] = &[
    Step {
        args: &[
            "import",
            "openapi",
            "tests/fixtures/openapi/petstore-2.0.json",
        ],
        output: "petstore-2.0.mcpdesc.yaml",
    },
    Step {
        args: &[
            "import",
            "openapi",
            "tests/fixtures/openapi/petstore-3.0.yaml",
        ],
        output: "petstore-3.0.mcpdesc.yaml",
    },
    Step {
        args: &[
            "import",
            "openapi",
            "tests/fixtures/openapi/petstore-3.1.yaml",
        ],
        output: "petstore-3.1.mcpdesc.yaml",
    },
    // Clients are generated from the freshly imported description (a path in the
    // scratch folder; `{scratch}` is substituted), so a change in the importer shows up
    // in the clients too.
    Step {
        args: &[
            "generate",
            "rust",
            "{scratch}/petstore-3.0.mcpdesc.yaml",
            "--crate-name",
            "petstore-client",
        ],
        output: "petstore-client-rust",
    },
    Step {
        args: &[
            "generate",
            "typescript",
            "{scratch}/petstore-3.0.mcpdesc.yaml",
            "--package-name",
            "petstore-client",
        ],
        output: "petstore-client-ts",
    },
];

pub fn run(args: &[String]) -> Result<(), String> {
    let check = match args {
        [] => false,
        [a] if a == "--check" => true,
        _ => return Err("usage: cargo xtask regen [--check]".into()),
    };
    let root = crate::root();
    let bin = crate::build_cli()?;
    let scratch = crate::target_dir().join("xtask-regen");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    }
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let scratch_str = scratch.to_str().ok_or("non-UTF-8 target directory")?;

    for step in STEPS {
        let mut cmd = Command::new(&bin);
        for a in step.args {
            cmd.arg(a.replace("{scratch}", scratch_str));
        }
        cmd.arg("-o").arg(scratch.join(step.output));
        crate::run(&mut cmd)?;
    }

    let committed = root.join(OUT);
    let drift = compare(&scratch, &committed)?;
    if check {
        if drift.is_empty() {
            eprintln!("xtask: regen --check: {OUT} is up to date");
            return Ok(());
        }
        for d in &drift {
            eprintln!("  {d}");
        }
        return Err(format!(
            "{} generated file(s) in {OUT} are stale; run `cargo xtask regen` and commit the result",
            drift.len()
        ));
    }
    if drift.is_empty() {
        eprintln!("xtask: regen: {OUT} was already up to date");
        return Ok(());
    }
    // Replace the committed tree: remove what is gone, write what is new or changed.
    for d in &drift {
        let target = committed.join(d.path());
        match d {
            Drift::Removed(_) => {
                std::fs::remove_file(&target).map_err(|e| format!("{}: {e}", target.display()))?
            }
            Drift::Added(p) | Drift::Changed(p) => {
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| format!("{}: {e}", parent.display()))?;
                }
                std::fs::copy(scratch.join(p), &target)
                    .map_err(|e| format!("{}: {e}", target.display()))?;
            }
        }
        eprintln!("  {d}");
    }
    eprintln!("xtask: regen: updated {} file(s) in {OUT}", drift.len());
    Ok(())
}

/// A difference between the fresh and the committed tree (paths relative to both).
enum Drift {
    Added(PathBuf),
    Removed(PathBuf),
    Changed(PathBuf),
}

impl Drift {
    fn path(&self) -> &Path {
        match self {
            Drift::Added(p) | Drift::Removed(p) | Drift::Changed(p) => p,
        }
    }
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Drift::Added(p) => write!(f, "new:     {}", p.display()),
            Drift::Removed(p) => write!(f, "removed: {}", p.display()),
            Drift::Changed(p) => write!(f, "changed: {}", p.display()),
        }
    }
}

fn compare(fresh: &Path, committed: &Path) -> Result<Vec<Drift>, String> {
    let a = files(fresh)?;
    let b = if committed.exists() {
        files(committed)?
    } else {
        BTreeMap::new()
    };
    let mut drift = Vec::new();
    for (p, bytes) in &a {
        match b.get(p) {
            None => drift.push(Drift::Added(p.clone())),
            Some(old) if old != bytes => drift.push(Drift::Changed(p.clone())),
            Some(_) => {}
        }
    }
    for p in b.keys() {
        if !a.contains_key(p) {
            drift.push(Drift::Removed(p.clone()));
        }
    }
    Ok(drift)
}

/// Every file under `dir` (recursively) with its bytes, keyed by relative path.
fn files(dir: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let entry = entry.map_err(|e| format!("{}: {e}", d.display()))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if kind.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .map_err(|e| e.to_string())?
                    .to_path_buf();
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                out.insert(rel, bytes);
            }
        }
    }
    Ok(out)
}
