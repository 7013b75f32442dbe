//! `mcpdesc generate rust|rust-server|typescript|typescript-server`.

use crate::util::{self, CmdResult, Outcome, Refusal, UsageError};
use mcpdesc_codegen::ServerGenerated;
use mcpdesc_validate::Validated;
use std::path::PathBuf;

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

/// The description and the output directory, as every `generate` command takes them.
#[derive(Debug, clap::Args)]
pub struct Io {
    /// MCP Description (JSON or YAML), or `-` for standard input.
    pub input: String,
    /// Output directory (created if missing; generated files are replaced atomically).
    #[arg(short, long, value_hint = clap::ValueHint::DirPath)]
    pub output: PathBuf,
}

/// What every `generate` command does: read, decode, validate (once; the generator takes
/// the handle), generate, print diagnostics, write the generated files under the output
/// directory atomically and create each of the user's files that is missing (a server's
/// handlers; a client has none), saying which were kept.
fn generate_into(
    io: &Io,
    generate: impl FnOnce(&Validated<'_>) -> Result<ServerGenerated, mcpdesc_codegen::Error>,
) -> CmdResult {
    let Some((decoded, name)) = util::read_description(&io.input)? else {
        return Ok(Outcome::Rejected);
    };
    let Some(valid) = util::validated(&decoded, &name, Refusal::Errors) else {
        return Ok(Outcome::Rejected);
    };
    let generated = generate(&valid).map_err(|e| UsageError(e.to_string()))?;
    let mut diags = generated.generated.diagnostics.clone();
    valid.annotate(&mut diags);
    util::print_diagnostics(&name, &diags);
    if generated.generated.files.is_empty() {
        return Ok(Outcome::Rejected);
    }
    let output = &io.output;
    if output.exists() && !output.is_dir() {
        return Err(UsageError::at(
            output.display(),
            "exists and is not a directory",
        ));
    }
    let kept =
        mcpdesc_codegen::write_server(output, &generated).map_err(|e| UsageError(e.to_string()))?;
    for path in kept {
        eprintln!("kept {path} (yours: never overwritten)");
    }
    Ok(util::outcome_of(&diags))
}
