//! Restricted YAML profile (§15.3): decoder and block-style emitter.
//!
//! Why not serde_yaml (0.9, archived): it has no event API, so anchors, aliases,
//! tags and document boundaries are gone (aliases already expanded) by the time a
//! value comes out; it resolves plain scalars by the YAML 1.2 *Core* schema (`~`,
//! `Null`, `0x1F`, `0o17`, `.inf` are not strings there) where the profile demands
//! the JSON schema; and values carry no positions. We therefore pull the event
//! stream of `yaml-rust2` (pure Rust, maintained; its `Parser::next_token` is a
//! state machine with an explicit stack, so nesting cannot overflow ours) and apply
//! the profile event by event (`decode.rs`). Scalar resolution lives in
//! `resolve.rs`, the emitter in `emit.rs`.
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
//! | `non-finite-number` | a plain number that overflows f64 (`1e999`), or a Core-schema infinity/NaN (`.inf`, `-.Inf`, `.NaN`) (§15.3.3) |
//! | `limit-*` | the [`crate::Limits`] (depth, collection size, scalar size, total values) |

mod decode;
mod emit;
mod resolve;

pub use decode::parse;
pub use emit::{pieces, to_yaml_string};
