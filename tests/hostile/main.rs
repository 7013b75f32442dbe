//! Hostile-input suite (issue 8).
