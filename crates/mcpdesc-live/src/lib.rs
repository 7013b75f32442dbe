//! mcpdesc-live (work in progress).
