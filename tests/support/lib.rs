//! Helpers shared by the workspace-level integration tests.

use std::path::PathBuf;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    workspace_root().join("tests/fixtures").join(rel)
}

/// `snapshots/<area>` (insta `snapshot_path`).
pub fn snapshot_dir(area: &str) -> PathBuf {
    workspace_root().join("snapshots").join(area)
}

/// Path of the built `mcpdesc` binary (for CLI tests).
///
/// `cargo xtask test` builds it first and passes `MCPDESC_BIN`.
pub fn mcpdesc_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("MCPDESC_BIN") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    target
        .join("debug")
        .join(format!("mcpdesc{}", std::env::consts::EXE_SUFFIX))
}
