//! Workspace-level tests: openapi (owner fills this in).
