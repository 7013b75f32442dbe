//! Restricted YAML profile (§15.3): decoder and block-style emitter.
//!
//! Why not serde_yaml: it has no event API to see anchors, aliases, tags or
//! document boundaries before values are built, it expands aliases, applies `<<`
//! merges and resolves YAML 1.1 scalars (`yes`, `on`, `0x1F`, …) where the profile
//! demands the YAML 1.2.2 JSON schema. We therefore read the event stream of
//! `yaml-rust2` (pure Rust, maintained, its parser a non-recursive state machine)
//! and apply the profile event by event: see [`decode`]. Scalar resolution lives in
//! [`resolve`], the emitter in [`emit`].
//!
//! | code | rule |
//! |---|---|
//! | `yaml-syntax` | scanner/parser error (bad indentation, unclosed flow, tabs, …) |
//! | `yaml-no-document` | the stream holds no document |
//! | `yaml-version` | a `%YAML` directive other than `1.2` |
//! | `yaml-multiple-documents` | the stream holds a second document (reported at its start) |
//! | `yaml-anchor` | an anchor `&name` (§15.3.5) |
//! | `yaml-alias` | an alias `*name` (§15.3.5) |
//! | `yaml-tag` | any explicit tag, `!!str`, `!x`, `!` (§15.3.4) |
//! | `yaml-non-string-key` | a plain key resolving to null/bool/number, incl. the empty key (§15.3.1) |
//! | `yaml-complex-key` | a sequence or mapping used as a key (§15.3.1) |
//! | `duplicate-key` | a key repeated in one mapping after resolution (§15.3.2) |
//! | `non-finite-number` | a plain number that overflows f64, e.g. `1e999` (§15.3.3) |
//! | `limit-*` | the [`crate::Limits`] (depth, collection size, scalar size, total values) |

mod decode;
mod emit;
mod resolve;

pub use decode::parse;
pub use emit::to_yaml_string;
