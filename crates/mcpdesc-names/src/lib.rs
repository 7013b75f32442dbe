//! mcpdesc-names (work in progress).
