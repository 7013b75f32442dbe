//! mcpdesc-scope (work in progress).
