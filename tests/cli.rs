//! Workspace-level tests: cli (owner fills this in).
