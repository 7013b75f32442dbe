//! # mcpdesc-names
//!
//! Host-safe MCP tool names. A name is *host-safe* when it matches
//! `^[a-z][a-z0-9_]*$`, has at most `max` characters (default 64, prefix included)
//! and is unique in its document. Importers use [`NameAllocator`] to turn
//! operationIds or method + path into such names; `mcpdesc names` uses
//! [`check_tool_names`] and [`fix_tool_names`] on existing descriptions.
//!
//! Everything here is a pure function of its input *set*: no randomness, no
//! `std` hasher, no dependence on input order, platform or Rust version.
//!
//! ## The scheme
//!
//! **1. Normalize** ([`normalize_base`]), raw string → `base`:
//! 1. Letters of Latin-1 Supplement and Latin Extended-A (plus `ș ț`) are folded
//!    to ASCII (`ä`→`a`, `é`→`e`, `ß`→`ss`, `ø`→`o`, `Æ`→`Ae`/`AE`, `œ`→`oe`);
//!    combining marks are removed; every other non-ASCII character and every ASCII
//!    character except `[A-Za-z0-9]` is a word separator.
//! 2. An acronym plural (`IDs`, `URLs`: 2+ capitals, then `s` ending the word) is
//!    made one word (`Ids`).
//! 3. Words are split and joined as snake_case by `heck`: boundaries at separators,
//!    lower→upper (`getPet` → `get|Pet`), before the last capital of a capital run
//!    followed by a lowercase letter (`HTTPServer` → `HTTP|Server`) and digit→upper
//!    (`v2Users` → `v2|Users`); never between a letter and a following digit
//!    (`sha256`, `v2`, `oauth2` stay whole). Everything is lowercased; empty words
//!    are dropped, so `_` never repeats and never leads or trails.
//! 4. A leading digit gets the prefix `n_` (`123abc` → `n_123abc`).
//! 5. If nothing is left (`""`, `😀`, `___`), the name is `tool_<h6(raw)>`.
//!
//! Here `h6(s)` is the first 6 lowercase hex digits of SHA-256 of the UTF-8 bytes of
//! `s` (`printf %s "$s" | sha256sum | cut -c1-6`).
//!
//! **2. Prefix and limit** ([`normalize`]): the result is `prefix + shorten(base, B)`
//! with budget `B = max − len(prefix)`. A raw name that already starts with the
//! prefix is normalized without it, so `normalize` is idempotent. The prefix is used
//! verbatim and must itself match `^[a-z][a-z0-9_]*$` (include a trailing `_` if you
//! want one); `B` must be at least 20 ([`NameOptions::new`] checks both).
//!
//! **3. Shorten** ([`shorten`]): a base longer than `B` becomes
//! `head + "_" + h6(base) + "_" + tail`, exactly `≤ B` characters. With
//! `R = B − 8`: `head` is the longest run of whole leading words that fits in
//! `R − max(⌊R/3⌋, 1)` characters (the first word's start if even it does not
//! fit); `tail` is the longest run of whole trailing words, not already in the
//! head, that fits in `R − len(head)` (the last word's end if even it does not
//! fit). So names are cut at word boundaries, the start (namespace, verb) and the
//! end (object) survive, and two names differing only in the middle differ in the
//! content hash. Example (B = 64):
//! `actions_list_self_hosted_runner_groups_for_repository_in_an_enterprise_org`
//! → `actions_list_self_hosted_runner_groups_55aa5f_an_enterprise_org`.
//!
//! **4. Allocate** ([`NameAllocator`]) for a set of requests `(raw, key)`, where
//! `key` identifies the source (OpenAPI: `"GET /pets/{petId}"`) and equal requests
//! are one entity:
//! 1. Each entity's candidate is `normalize(raw)`.
//! 2. A candidate that is reserved, or shared by several entities, is *contested*
//!    — except that when exactly one sharer's raw name already equals the candidate,
//!    that one keeps it (`list_pets` stays `list_pets` even if `listPets` also
//!    exists). Uncontested candidates are kept as they are.
//! 3. Each contested entity gets `prefix + shorten(base, B − 7) + "_" + h6(key)`.
//! 4. If such a name equals a kept or reserved name, or another contested entity's
//!    name, every entity involved is re-hashed with the next salt `n`:
//!    `h6(key + "\0" + raw + "\0" + n)`; repeat until unique (bounded by
//!    [`MAX_ROUNDS`], an error that needs ~2^24 colliding names to happen).
//!
//! Counters are never used: the result depends on the set of requests, not on
//! their order (property-tested by shuffling).
//!
//! **Diagnostics** ([`name_diagnostics`], [`check_tool_names`]): `name-not-host-safe`
//! (empty, uppercase, first character not a letter, characters outside
//! `[A-Za-z0-9_]`), `name-too-long`, `name-missing-prefix` (when a prefix is
//! configured), `name-duplicate` (same name, overlapping protocol scopes; same-name
//! tools with disjoint scopes are protocol variants of one tool, §9.5),
//! `name-missing`; pointer `/tools/<i>/name`.

mod alloc;
mod check;
mod normalize;
mod translit;

pub use alloc::{
    AssignedName, Assignment, Derivation, MAX_ROUNDS, NameAllocator, NameRequest, assign_names,
    suffix_hash_input,
};
pub use check::{
    NameProblem, ORIGINAL_NAME_EXTENSION, Rename, check_tool_names, fix_tool_names,
    name_diagnostics, name_problems,
};
pub use normalize::{
    DEFAULT_MAX_LEN, DIGIT_PREFIX, FALLBACK_STEM, HASH_LEN, MIN_BASE_LEN, MIN_SHORTEN_BUDGET,
    NameError, NameOptions, hash_hex, is_host_safe, normalize, normalize_base, shorten,
};

#[cfg(test)]
mod tests;
