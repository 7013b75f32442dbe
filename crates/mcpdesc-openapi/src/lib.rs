//! mcpdesc-openapi (work in progress).
