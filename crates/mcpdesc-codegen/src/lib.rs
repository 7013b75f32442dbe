//! mcpdesc-codegen (work in progress).
