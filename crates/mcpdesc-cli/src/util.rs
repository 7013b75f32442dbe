//! Shared plumbing for subcommands: reading inputs, atomic output, printing
//! diagnostics, exit codes. Every subcommand goes through these, so the rules
//! (exit codes, `FILE:LINE:COL: error[code]: message (at POINTER)`, temp-file-then-rename,
//! the `-o` rule of [`Output`]) hold everywhere.

use crate::args::Output;
use mcpdesc_core::{Decoded, Diagnostic, Document, Format, Limits, Severity};
use mcpdesc_live::FileDiagnostic;
use mcpdesc_validate::{Validated, Validator};
use std::fmt::Display;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How a subcommand ended; ordered by severity, so a run over several inputs ends
/// with the `max` of theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// 0: success (warnings allowed).
    Success,
    /// 1: the input is not acceptable.
    Rejected,
    /// 2: usage or I/O error.
    Usage,
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        ExitCode::from(match o {
            Outcome::Success => 0,
            Outcome::Rejected => 1,
            Outcome::Usage => 2,
        })
    }
}

/// A usage or I/O failure, reported as `mcpdesc: error: …` with exit code 2. Built
/// explicitly (no blanket `From`), so every message says what it is about.
#[derive(Debug)]
pub struct UsageError(pub String);

impl UsageError {
    /// `WHAT: ERROR`, e.g. a path and the I/O error it gave.
    pub fn at(what: impl Display, error: impl Display) -> Self {
        UsageError(format!("{what}: {error}"))
    }
}

/// Result type of subcommands.
pub type CmdResult = Result<Outcome, UsageError>;

/// Largest input we read at all (the decoders have their own, configurable, limits).
pub const MAX_INPUT_BYTES: u64 = 512 * 1024 * 1024;

/// Reads a file, or stdin for `-`. Returns the bytes and the display name.
pub fn read_input(path: &str) -> Result<(Vec<u8>, String), UsageError> {
    let mut buf = Vec::new();
    if path == "-" {
        std::io::stdin()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut buf)
            .map_err(|e| UsageError::at("<stdin>", e))?;
        if buf.len() as u64 > MAX_INPUT_BYTES {
            return Err(UsageError(format!(
                "<stdin>: input larger than {MAX_INPUT_BYTES} bytes"
            )));
        }
        return Ok((buf, "<stdin>".to_string()));
    }
    let f = std::fs::File::open(path).map_err(|e| UsageError::at(path, e))?;
    let meta = f.metadata().ok();
    if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        return Err(UsageError(format!("{path}: is a directory")));
    }
    // The whole file in one allocation (`Take` hides the size from `read_to_end`, whose
    // doubling copied and touched about twice a 24 MB description: a fifth of `diff`).
    let len = meta.map_or(0, |m| m.len()).min(MAX_INPUT_BYTES);
    buf.reserve_exact(usize::try_from(len).unwrap_or(0).saturating_add(1));
    f.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| UsageError::at(path, e))?;
    if buf.len() as u64 > MAX_INPUT_BYTES {
        return Err(UsageError(format!(
            "{path}: input larger than {MAX_INPUT_BYTES} bytes"
        )));
    }
    Ok((buf, path.to_string()))
}

/// The format of an input description: from its extension, else sniffed from the first
/// byte that is not a BOM or whitespace (`{`/`[` → JSON). Looks at a few bytes only.
pub fn input_format(path: &str, bytes: &[u8]) -> Format {
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = text
        .iter()
        .position(|b| !b" \t\r\n".contains(b))
        .unwrap_or(text.len());
    let head = String::from_utf8_lossy(&text[start..text.len().min(start + 4)]);
    Format::detect((path != "-").then_some(path), &head)
}

/// Decodes a description read by [`read_input`] (JSON or YAML by [`input_format`]; UTF-8
/// with an optional BOM); the error is the decode diagnostic, with its line and column.
pub fn decode_input(path: &str, bytes: &[u8]) -> Result<Decoded, Diagnostic> {
    mcpdesc_core::decode_bytes(bytes, input_format(path, bytes), &Limits::default())
}

/// Reads and decodes a description. When it cannot be decoded, prints the diagnostic
/// and returns `None`: the caller exits with "rejected".
pub fn read_description(path: &str) -> Result<Option<(Decoded, String)>, UsageError> {
    let (bytes, name) = read_input(path)?;
    match decode_input(path, &bytes) {
        Ok(d) => Ok(Some((d, name))),
        Err(d) => {
            print_diagnostics(&name, &[d]);
            Ok(None)
        }
    }
}

/// Which of a refused input's diagnostics a subcommand prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its errors only.
    Errors,
    /// Every diagnostic, warnings included.
    All,
}

/// Validates a decoded description, the one validation of a subcommand's input: the
/// validator's handle (with positions) that the libraries take. When the input does
/// not conform, prints its diagnostics (positioned; which ones: `shown`) and returns
/// `None`: the caller exits with "rejected".
pub fn validated<'a>(decoded: &'a Decoded, name: &str, shown: Refusal) -> Option<Validated<'a>> {
    match Validator::new().check_decoded(decoded) {
        Ok(valid) => Some(valid),
        Err(mut diags) => {
            if shown == Refusal::Errors {
                diags.retain(Diagnostic::is_error);
            }
            print_diagnostics(name, &diags);
            None
        }
    }
}

/// A pair of inputs read by [`read_descriptions`].
pub type DescriptionPair = (Option<(Decoded, String)>, Option<(Decoded, String)>);

/// [`read_description`] of two inputs, each read and decoded on its own thread (a large
/// description's decode is most of `diff`'s time). The output is what reading them one
/// after the other gives: diagnostics in argument order, the first input's error first.
pub fn read_descriptions(a: &str, b: &str) -> Result<DescriptionPair, UsageError> {
    let read =
        |path: &str| read_input(path).map(|(bytes, name)| (decode_input(path, &bytes), name));
    let (ra, rb) = std::thread::scope(|s| {
        let other = s.spawn(|| read(b));
        let ra = read(a);
        (ra, other.join())
    });
    let rb = rb.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let finish = |r: Result<(Result<Decoded, Diagnostic>, String), UsageError>| {
        let (decoded, name) = r?;
        Ok(match decoded {
            Ok(d) => Some((d, name)),
            Err(d) => {
                print_diagnostics(&name, &[d]);
                None
            }
        })
    };
    let a = finish(ra)?;
    Ok((a, finish(rb)?))
}

/// [`read_description`], then the typed model: a document that does not have the shape
/// of an MCP Description is reported (positions included) and gives `None`.
pub fn read_document(path: &str) -> Result<Option<(Document, Decoded, String)>, UsageError> {
    let Some((decoded, name)) = read_description(path)? else {
        return Ok(None);
    };
    match Document::from_value_ref(&decoded.value) {
        Ok(doc) => Ok(Some((doc, decoded, name))),
        Err(mut diags) => {
            decoded.annotate(&mut diags);
            print_diagnostics(&name, &diags);
            Ok(None)
        }
    }
}

/// Hands a large decoded input to the end of the process instead of dropping it: the
/// command is about to exit, and freeing a 24 MB tree allocation by allocation costs
/// more (7 % of `diff`'s samples on the GitHub description) than the kernel unmapping
/// the whole heap at once. Only for values whose drop has no effect but freeing memory.
pub fn free_at_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Frees a large value on a thread of its own while the command goes on: for an input
/// the command no longer needs but whose memory it wants back before it allocates its
/// output (`export tools-list --host` frees the description while it fits the list).
pub fn free_in_background<T: Send + 'static>(value: T) {
    std::thread::spawn(move || drop(value));
}

/// Writes `contents` to `path` atomically: a temp file in the same directory, then
/// rename. On any failure the previous file is untouched and no temp file remains.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), UsageError> {
    let mut out = AtomicOutput::create(path)?;
    out.file()
        .write_all(contents)
        .map_err(|e| UsageError::at(path.display(), e))?;
    out.commit()
}

/// An output file being written: a temporary file in the target's folder that
/// replaces the target on [`AtomicOutput::commit`]. Dropped without a commit, it is
/// removed and the target stays as it was.
#[derive(Debug)]
pub struct AtomicOutput {
    path: PathBuf,
    tmp: tempfile::NamedTempFile,
    keep: Option<std::fs::Permissions>,
}

impl AtomicOutput {
    pub fn create(path: &Path) -> Result<Self, UsageError> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".mcpdesc-").suffix(".tmp");
        // tempfile creates 0600 files; the output is an ordinary file, so ask for what a
        // plain create would give (0666 minus the umask) or keep the replaced file's mode.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let keep = std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.permissions());
        let tmp = builder.tempfile_in(&dir).map_err(|e| {
            UsageError::at(
                dir.display(),
                format_args!("cannot create a temporary file: {e}"),
            )
        })?;
        Ok(AtomicOutput {
            path: path.to_path_buf(),
            tmp,
            keep,
        })
    }

    /// The temporary file, to write the contents to.
    pub fn file(&mut self) -> &mut std::fs::File {
        self.tmp.as_file_mut()
    }

    /// Flushes the contents to disk and puts the file in place.
    pub fn commit(self) -> Result<(), UsageError> {
        let at = |e: std::io::Error| UsageError::at(self.path.display(), e);
        if let Some(perms) = self.keep.clone() {
            self.tmp.as_file().set_permissions(perms).map_err(at)?;
        }
        self.tmp.as_file().sync_all().map_err(at)?;
        self.tmp
            .persist(&self.path)
            .map_err(|e| UsageError::at(self.path.display(), e.error))?;
        Ok(())
    }
}

/// Writes to OUTPUT atomically, or to standard output when there is none (or it is `-`).
pub fn write_output(output: Option<&Output>, contents: &[u8]) -> Result<(), UsageError> {
    match output.and_then(Output::path) {
        Some(p) => write_atomic(p, contents),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(contents)
                .and_then(|()| out.flush())
                .map_err(|e| UsageError::at("<stdout>", e))
        }
    }
}

/// Emits `value` by the `-o` rule ([`Output`]): in the file's format, or in `stdout`
/// (the subcommand's choice) on standard output.
pub fn write_value(
    value: &serde_json::Value,
    output: Option<&Output>,
    stdout: Format,
) -> Result<(), UsageError> {
    let format = output.map_or(stdout, |o| o.format(stdout));
    let text = mcpdesc_core::emit::to_format(value, format);
    write_output(output, text.as_bytes())
}

/// Refuses OUTPUT == INPUT unless `in_place`.
pub fn check_not_same_file(
    input: &str,
    output: Option<&Output>,
    in_place: bool,
) -> Result<(), UsageError> {
    let Some(out) = output.and_then(Output::path) else {
        return Ok(());
    };
    if in_place || input == "-" {
        return Ok(());
    }
    let same = match (std::fs::canonicalize(input), std::fs::canonicalize(out)) {
        (Ok(a), Ok(b)) => a == b,
        _ => Path::new(input) == out,
    };
    if same {
        return Err(UsageError(format!(
            "output `{}` is the input file; pass --in-place to overwrite it",
            out.display()
        )));
    }
    Ok(())
}

/// What this CLI adds to a library diagnostic of a given code: the command that deals
/// with the situation the library names (libraries never name commands or flags).
const CLI_HINTS: &[(&str, &str)] = &[(
    "tool-name-not-host-safe",
    "`mcpdesc names` can propose a safe one",
)];

/// `d` with this CLI's hint for its code appended to its message, if there is one.
fn hinted(d: &Diagnostic) -> std::borrow::Cow<'_, Diagnostic> {
    match CLI_HINTS.iter().find(|(code, _)| *code == d.code) {
        Some((_, hint)) => {
            let mut d = d.clone();
            d.message = format!("{}; {hint}", d.message);
            std::borrow::Cow::Owned(d)
        }
        None => std::borrow::Cow::Borrowed(d),
    }
}

/// Prints diagnostics to stderr as `FILE:LINE:COL: severity[code]: message (at POINTER)`.
pub fn print_diagnostics(file: &str, diags: &[Diagnostic]) {
    let mut err = std::io::stderr().lock();
    for d in diags {
        let _ = writeln!(err, "{}", hinted(d).render(file));
    }
}

/// Prints diagnostics that name their own input (`mcpdesc_live` imports several files).
pub fn print_file_diagnostics(diags: &[FileDiagnostic]) {
    let mut err = std::io::stderr().lock();
    for d in diags {
        let d = FileDiagnostic {
            file: d.file.clone(),
            diagnostic: hinted(&d.diagnostic).into_owned(),
        };
        let _ = writeln!(err, "{}", d.render());
    }
}

/// One file's verdict as `--format json` prints it (`validate`, `lint`; README documents
/// it): `{"file", "valid", "diagnostics": [{"severity", "code", "message", "pointer",
/// "line", "column"}]}`. Unlike [`Diagnostic`]'s own serialization, unknown `line` and
/// `column` are `null` rather than left out, so every object has every key.
#[derive(serde::Serialize)]
struct FileReport<'a> {
    file: &'a str,
    valid: bool,
    diagnostics: Vec<ReportedDiagnostic<'a>>,
}

#[derive(serde::Serialize)]
struct ReportedDiagnostic<'a> {
    severity: Severity,
    code: &'a str,
    message: &'a str,
    pointer: &'a str,
    line: Option<u32>,
    column: Option<u32>,
}

/// The `--format json` line of one file (see [`FileReport`]); `valid` is "no error".
pub fn json_line(file: &str, diags: &[Diagnostic]) -> String {
    let report = FileReport {
        file,
        valid: !mcpdesc_core::has_errors(diags),
        diagnostics: diags
            .iter()
            .map(|d| ReportedDiagnostic {
                severity: d.severity,
                code: &d.code,
                message: &d.message,
                pointer: &d.pointer,
                line: d.line,
                column: d.column,
            })
            .collect(),
    };
    // A struct of strings, bools and integers always serializes.
    serde_json::to_string(&report).unwrap_or_default()
}

/// Exit outcome for a list of diagnostics.
pub fn outcome_of(diags: &[Diagnostic]) -> Outcome {
    if diags.iter().any(|d| d.severity == Severity::Error) {
        Outcome::Rejected
    } else {
        Outcome::Success
    }
}

#[cfg(test)]
mod library_words;

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI names the command a library's situation calls for; other codes pass as
    /// they are.
    #[test]
    fn a_not_host_safe_name_gets_the_names_command_as_its_hint() {
        let d = Diagnostic::warning(
            "tool-name-not-host-safe",
            "tool name `a.b` is not host-safe",
        )
        .at("/tools/2");
        assert_eq!(
            hinted(&d).render("mcpdesc"),
            "mcpdesc: warning[tool-name-not-host-safe]: tool name `a.b` is not host-safe; \
             `mcpdesc names` can propose a safe one (at /tools/2)"
        );
        let other = Diagnostic::warning("meh", "m");
        assert_eq!(hinted(&other).message, "m");
    }

    /// The line README documents, byte for byte (what the hand-built JSON printed).
    #[test]
    fn json_line_is_the_documented_shape() {
        let diags = [
            Diagnostic::error("bad-thing", "say \"no\" to <é>\n")
                .at("/tools/0/name")
                .with_position(3, 14),
            Diagnostic::warning("meh", "m").at(""),
        ];
        assert_eq!(
            json_line("dir/a b.json", &diags),
            concat!(
                r#"{"file":"dir/a b.json","valid":false,"diagnostics":["#,
                r#"{"severity":"error","code":"bad-thing","message":"say \"no\" to <é>\n","pointer":"/tools/0/name","line":3,"column":14},"#,
                r#"{"severity":"warning","code":"meh","message":"m","pointer":"","line":null,"column":null}]}"#
            )
        );
        assert_eq!(
            json_line("-", &diags[1..]),
            r#"{"file":"-","valid":true,"diagnostics":[{"severity":"warning","code":"meh","message":"m","pointer":"","line":null,"column":null}]}"#
        );
        assert_eq!(
            json_line("x", &[]),
            r#"{"file":"x","valid":true,"diagnostics":[]}"#
        );
    }
}
