//! Workspace-level tests: live (owner fills this in).
