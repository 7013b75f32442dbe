//! Workspace-level tests: codegen (owner fills this in).
