//! Workspace-level tests: scope (owner fills this in).
