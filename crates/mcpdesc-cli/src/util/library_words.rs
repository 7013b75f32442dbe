//! Library crates speak of situations, not of this CLI: no string literal in a library
//! crate's code names one of the CLI's flags, or tells its reader to run one of its
//! commands (`` `mcpdesc names` ``). The flags are read from clap's command
//! definition (every subcommand's long options), so a flag added to the CLI is checked
//! from then on. Test code (`#[cfg(test)]` modules, `tests.rs`, `src/tests/`) is not
//! scanned, and a literal that is exactly one option (`"--quiet"`, an argument handed to
//! another program) is not prose.

use clap::CommandFactory as _;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every long option of the CLI and its subcommands, with its `--`.
fn cli_flags() -> BTreeSet<String> {
    fn walk(cmd: &clap::Command, out: &mut BTreeSet<String>) {
        for a in cmd.get_arguments() {
            if let Some(l) = a.get_long() {
                out.insert(format!("--{l}"));
            }
            for l in a.get_all_aliases().into_iter().flatten() {
                out.insert(format!("--{l}"));
            }
        }
        for s in cmd.get_subcommands() {
            walk(s, out);
        }
    }
    let mut out = BTreeSet::new();
    walk(&crate::Cli::command(), &mut out);
    // clap's own.
    out.remove("--help");
    out.remove("--version");
    out
}

/// Every top-level command of the CLI as a reader would be told to run it, in backticks:
/// `` `mcpdesc names` ``. (The bare words also name the program in a log prefix or an
/// auth realm, which is identity, not advice.)
fn cli_commands() -> BTreeSet<String> {
    crate::Cli::command()
        .get_subcommands()
        .map(|s| format!("`mcpdesc {}", s.get_name()))
        .collect()
}

/// The commands a literal tells its reader to run: `` `mcpdesc CMD`` followed by a
/// backtick, a space or the end (not a longer word).
fn named_commands<'c>(text: &str, commands: &'c BTreeSet<String>) -> Vec<&'c str> {
    commands
        .iter()
        .filter(|c| {
            text.match_indices(c.as_str()).any(|(at, _)| {
                text[at + c.len()..]
                    .chars()
                    .next()
                    .is_none_or(|n| n == '`' || n == ' ')
            })
        })
        .map(String::as_str)
        .collect()
}

/// The string literals of Rust source `src` outside comments, each with its line.
fn string_literals(src: &str) -> Vec<(usize, String)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
                i += 2;
            }
            b'r' if matches!(b.get(i + 1), Some(b'#' | b'"'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = j + 1;
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let end = b[start..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(b.len(), |p| start + p);
                let text = String::from_utf8_lossy(&b[start..end]).into_owned();
                out.push((line, text.clone()));
                line += text.matches('\n').count();
                i = end + close.len();
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let text = String::from_utf8_lossy(&b[start..j.min(b.len())]).into_owned();
                out.push((line, text.clone()));
                line += text.matches('\n').count();
                i = j + 1;
            }
            // A char literal (`'"'`, `'\''`); a lifetime (`'a`) is left as code.
            b'\'' => {
                if b.get(i + 1) == Some(&b'\\') {
                    let close = b[i + 2..].iter().position(|&c| c == b'\'');
                    i = close.map_or(b.len(), |p| i + 3 + p);
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// `src` without its `#[cfg(test)]` items (from the attribute to the end of the file:
/// test modules come last in this workspace's files).
fn without_tests(src: &str) -> &str {
    src.find("#[cfg(test)]").map_or(src, |at| &src[..at])
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if p.is_dir() {
            if name != "tests" {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") && name != "tests.rs" {
            out.push(p);
        }
    }
}

/// The workspace's library crates: every `crates/*` with a `src/lib.rs`.
fn library_crates(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src/lib.rs").is_file())
        .collect();
    v.sort();
    v
}

/// The flags a literal names in prose: `--flag` at a word start, not followed by
/// more flag characters.
fn named_flags<'f>(text: &str, flags: &'f BTreeSet<String>) -> Vec<&'f str> {
    if flags.contains(text.trim()) {
        return Vec::new();
    }
    let mut hits = Vec::new();
    for (at, _) in text.match_indices("--") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '-') {
            continue;
        }
        let rest = &text[at..];
        let end = rest[2..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .map_or(rest.len(), |e| e + 2);
        if let Some(f) = flags.get(&rest[..end]) {
            hits.push(f.as_str());
        }
    }
    hits
}

#[test]
fn no_library_string_names_a_cli_flag() {
    let flags = cli_flags();
    assert!(
        flags.contains("--host") && flags.contains("--protocol-version"),
        "the flag list comes from clap: {flags:?}"
    );
    let commands = cli_commands();
    assert!(
        commands.contains("`mcpdesc names") && commands.contains("`mcpdesc serve"),
        "the command list comes from clap: {commands:?}"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for krate in library_crates(&root) {
        let mut files = Vec::new();
        rust_files(&krate.join("src"), &mut files);
        files.sort();
        for f in files {
            let src = std::fs::read_to_string(&f).expect("reads");
            for (line, text) in string_literals(without_tests(&src)) {
                let shown = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
                for flag in named_flags(&text, &flags) {
                    found.push(format!("{shown}:{line}: {flag} in {text:?}"));
                }
                for command in named_commands(&text, &commands) {
                    found.push(format!("{shown}:{line}: {command}` in {text:?}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "library strings name CLI flags (say what the situation is; let the CLI name its flags):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_command_counts_when_a_reader_is_told_to_run_it() {
    let commands: BTreeSet<String> = ["`mcpdesc names".to_string()].into();
    assert_eq!(
        named_commands("not host-safe; `mcpdesc names` can propose one", &commands),
        ["`mcpdesc names"]
    );
    assert_eq!(
        named_commands("run `mcpdesc names FILE --fix`", &commands),
        ["`mcpdesc names"]
    );
    assert!(named_commands("`mcpdesc namespace`", &commands).is_empty());
    assert!(named_commands("mcpdesc names match ^[a-z]+$", &commands).is_empty());
}

#[test]
fn the_scanner_reads_literals_not_comments() {
    let src = "// \"--host\" in a comment\nlet a = \"use --host H\"; /* \"--budget\" */\nlet b = r#\"x --budget 1\"#; let c = '\"'; fn f<'a>() {}\nlet d = \"--host\";";
    let lits: Vec<(usize, String)> = string_literals(src);
    assert_eq!(
        lits,
        [
            (2, "use --host H".to_string()),
            (3, "x --budget 1".to_string()),
            (4, "--host".to_string())
        ]
    );
    let flags: BTreeSet<String> = ["--host", "--budget"].map(String::from).into();
    assert_eq!(named_flags("use --host H", &flags), ["--host"]);
    assert_eq!(named_flags("--host", &flags), Vec::<&str>::new());
    assert_eq!(named_flags("x --hostname y", &flags), Vec::<&str>::new());
    assert_eq!(named_flags("a---host", &flags), Vec::<&str>::new());
}
