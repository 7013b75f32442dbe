//! request
