//! mcpdesc-validate (work in progress).
