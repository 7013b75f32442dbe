//! Which test prerequisites this machine has, decided once per build so libtest can
//! skip the tests that need a missing one *visibly*: each such test carries
//! `#[cfg_attr(mcpdesc_missing_node, ignore = "…")]` (or `_venv`, `_chromium`,
//! `mcpdesc_skip_generated_builds`), so `cargo test` lists it as `ignored, <reason>`
//! and counts it in "N ignored". A test that does run and then finds its prerequisite
//! gone fails naming `cargo xtask deps` (`mcpdesc_tests::missing`): nothing passes
//! without checking.
//!
//! Under `MCPDESC_REQUIRE_DEPS=1` (`cargo xtask test`) no cfg is set: every test runs,
//! and a missing prerequisite fails.
//!
//! Re-detection: the script watches `.deps/stamp` (written last by `cargo xtask deps`)
//! and the Chromium binary, or the `.deps` folder while the stamp is absent (created
//! empty here if need be: a watched path that does not exist would make cargo rerun
//! this script, and so rebuild every test binary, on every build).

use std::path::{Path, PathBuf};

/// Each cfg and what it stands for (shown in the build's warning).
const CFGS: [(&str, &str); 4] = [
    ("mcpdesc_missing_node", ".deps/node is missing"),
    ("mcpdesc_missing_venv", ".deps/venv is missing"),
    ("mcpdesc_missing_chromium", "no headless Chromium was found"),
    (
        "mcpdesc_skip_generated_builds",
        "MCPDESC_SKIP_GENERATED_BUILDS is set",
    ),
];

fn main() {
    for (cfg, _) in CFGS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    println!("cargo::rerun-if-changed=build.rs");
    for var in [
        "MCPDESC_REQUIRE_DEPS",
        "MCPDESC_CHROMIUM",
        "MCPDESC_SKIP_GENERATED_BUILDS",
        "MCPDESC_DEPS",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let root = manifest.as_deref().unwrap_or(Path::new(".")).join("..");
    // `MCPDESC_DEPS`: the test prerequisites of another checkout (`cargo xtask mutants`
    // points cargo-mutants' copy of the tree, which has no `.deps`, at the original's).
    let deps = std::env::var_os("MCPDESC_DEPS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".deps"));
    if !deps.exists() {
        let _ = std::fs::create_dir_all(&deps);
    }
    let stamp = deps.join("stamp");
    if stamp.is_file() {
        watch(&stamp);
    } else if deps.is_dir() {
        watch(&deps);
    }
    let chromium = std::env::var_os("MCPDESC_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| {
            std::fs::read_to_string(deps.join("chromium-path"))
                .ok()
                .map(|s| PathBuf::from(s.trim()))
        });
    if let Some(c) = chromium.as_deref().filter(|c| c.exists()) {
        watch(c);
    }

    if std::env::var("MCPDESC_REQUIRE_DEPS").is_ok_and(|v| v == "1") {
        return;
    }
    let missing = [
        !deps.join("node/node_modules").is_dir(),
        !deps.join("venv/bin/python").is_file(),
        !chromium.is_some_and(|c| c.exists()),
        std::env::var_os("MCPDESC_SKIP_GENERATED_BUILDS").is_some(),
    ];
    for ((cfg, why), set) in CFGS.into_iter().zip(missing) {
        if set {
            println!("cargo::rustc-cfg={cfg}");
            println!(
                "cargo::warning={why}: the tests that need it are ignored (`cargo xtask deps` installs the test prerequisites)"
            );
        }
    }
}

fn watch(path: &Path) {
    println!("cargo::rerun-if-changed={}", path.display());
}
