//! `mcpdesc generate rust|rust-server|typescript|typescript-server`.

use crate::util::{self, CmdResult, Outcome, Refusal, UsageError};
use mcpdesc_codegen::Generated;
use mcpdesc_validate::Validated;
use std::path::Path;

pub mod rust;
pub mod rust_server;
pub mod typescript;
pub mod typescript_server;

#[derive(Debug, clap::Subcommand)]
pub enum GenerateCommand {
    // Help comes from each `Args` doc comment (see `main.rs`).
    Rust(rust::Args),
    RustServer(rust_server::Args),
    Typescript(typescript::Args),
    TypescriptServer(typescript_server::Args),
}

pub fn run(cmd: GenerateCommand) -> CmdResult {
    match cmd {
        GenerateCommand::Rust(a) => rust::run(a),
        GenerateCommand::RustServer(a) => rust_server::run(a),
        GenerateCommand::Typescript(a) => typescript::run(a),
        GenerateCommand::TypescriptServer(a) => typescript_server::run(a),
    }
}

/// What `generate rust` and `generate typescript` share: read, decode, validate (once;
/// the generator takes the handle), generate, print diagnostics, write the files under
/// `output`.
fn generate_into(
    input: &str,
    output: &Path,
    generate: impl FnOnce(&Validated<'_>) -> Result<Generated, mcpdesc_codegen::Error>,
) -> CmdResult {
    let Some((decoded, name)) = util::read_description(input)? else {
        return Ok(Outcome::Rejected);
    };
    let Some(valid) = util::validated(&decoded, &name, Refusal::Errors) else {
        return Ok(Outcome::Rejected);
    };
    let generated = generate(&valid).map_err(|e| UsageError(e.to_string()))?;
    let mut diags = generated.diagnostics;
    valid.annotate(&mut diags);
    util::print_diagnostics(&name, &diags);
    if generated.files.is_empty() {
        return Ok(Outcome::Rejected);
    }
    if output.exists() && !output.is_dir() {
        return Err(UsageError::at(
            output.display(),
            "exists and is not a directory",
        ));
    }
    mcpdesc_codegen::write_files(output, &generated.files)
        .map_err(|e| UsageError(e.to_string()))?;
    Ok(util::outcome_of(&diags))
}
