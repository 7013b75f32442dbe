//! One module per subcommand; each owns its `Args` and a `run` function.

pub mod capture;
pub mod completions;
pub mod convert;
pub mod diff;
pub mod docs;
pub mod export;
pub mod generate;
pub mod import;
pub mod lint;
pub mod man;
pub mod merge;
pub mod names;
pub mod project;
pub mod serve;
pub mod split;
pub mod validate;
