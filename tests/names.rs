//! Workspace-level tests: names (owner fills this in).
