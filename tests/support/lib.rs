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
pub fn mcpdesc_bin() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let exe = target.join("debug").join(format!("mcpdesc{}", std::env::consts::EXE_SUFFIX));
    exe
}
