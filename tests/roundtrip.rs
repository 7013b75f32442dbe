//! Workspace-level tests: roundtrip (owner fills this in).
