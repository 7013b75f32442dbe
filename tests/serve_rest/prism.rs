//! Proof 2 (Prism): see below.
