//! Workspace-level tests: conformance (owner fills this in).
