//! Output safety (issue 8): every writing subcommand writes atomically. On failure
//! (rejected input, or an I/O error at the destination) the previous output is
//! byte-identical and no temporary file is left behind; code generation never writes
//! outside `-o`, whatever the names in the description.

use crate::{run, truncate, write};
use mcpdesc_tests::fixture;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const OLD: &[u8] = b"previous output: must survive a failed run\n";

/// Every file under `dir` with its bytes (symlinks not followed).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                out.insert(p, bytes);
            }
        }
    }
    out
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    tree(dir)
        .into_keys()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') || n.ends_with(".tmp"))
        })
        .collect()
}

/// A writing subcommand: its arguments given (input, output path).
type Cmd = fn(&str, &str) -> Vec<String>;

fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// (name, command, input that makes it fail with exit 1, file extension of the input)
fn writing_commands() -> Vec<(&'static str, Cmd, Vec<u8>, &'static str)> {
    let cycle = std::fs::read(fixture("hostile/component-ref-cycles.json")).expect("fixture");
    let broken = b"{\"mcpdesc\": \"0.8.0\", \"info\": {".to_vec();
    vec![
        (
            "convert",
            |i, o| v(&["convert", i, "-o", o]),
            broken.clone(),
            "json",
        ),
        (
            "names --fix",
            |i, o| v(&["names", i, "--fix", "-o", o]),
            broken.clone(),
            "json",
        ),
        (
            "project",
            |i, o| v(&["project", i, "--protocol-version", "2026-07-28", "-o", o]),
            cycle.clone(),
            "json",
        ),
        (
            "merge",
            |i, o| v(&["merge", i, "-o", o]),
            cycle.clone(),
            "json",
        ),
        (
            "split",
            |i, o| v(&["split", i, "-o", o]),
            cycle.clone(),
            "json",
        ),
        (
            "export tools-list",
            |i, o| {
                v(&[
                    "export",
                    "tools-list",
                    i,
                    "--protocol-version",
                    "2026-07-28",
                    "-o",
                    o,
                ])
            },
            cycle.clone(),
            "json",
        ),
        (
            "import openapi",
            |i, o| v(&["import", "openapi", i, "-o", o]),
            b"openapi: 3.1.0\ninfo: [not, an, object\n".to_vec(),
            "yaml",
        ),
        (
            "import tools-list",
            |i, o| v(&["import", "tools-list", i, "-o", o]),
            b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"error\": {\"code\": -1, \"message\": \"no\"}}"
                .to_vec(),
            "json",
        ),
    ]
}

#[test]
fn failed_runs_leave_the_previous_output_untouched() {
    for (name, cmd, input, ext) in writing_commands() {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = write(dir.path(), &format!("input.{ext}"), &input);
        let out = write(dir.path(), "out.json", OLD);
        let args = cmd(&input.display().to_string(), &out.display().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(&args);
        assert_eq!(r.code, Some(1), "{name}: {}", truncate(&r.stderr));
        assert_eq!(
            std::fs::read(&out).expect("output still there"),
            OLD,
            "{name} touched the previous output"
        );
        assert!(
            temp_files(dir.path()).is_empty(),
            "{name} left {:?}",
            temp_files(dir.path())
        );
    }
}

#[test]
fn failed_generate_leaves_the_previous_output_folder_untouched() {
    let input = fixture("hostile/component-ref-cycles.json")
        .display()
        .to_string();
    for lang in ["rust", "typescript"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("client");
        std::fs::create_dir_all(out.join("src")).expect("mkdir");
        for f in ["Cargo.toml", "package.json", "src/lib.rs", "src/index.ts"] {
            std::fs::write(out.join(f), OLD).expect("write");
        }
        let before = tree(dir.path());
        let r = run(&["generate", lang, &input, "-o", &out.display().to_string()]);
        assert_eq!(r.code, Some(1), "{lang}: {}", truncate(&r.stderr));
        assert_eq!(
            tree(dir.path()),
            before,
            "generate {lang} changed files on failure"
        );
    }
}

#[test]
fn io_failures_at_the_destination_leave_no_temp_files() {
    let good = fixture("spec/fixtures/expected-valid/minimal-zero-primitives.json")
        .display()
        .to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    // The output path is an existing, non-empty directory: the final rename fails.
    let out = dir.path().join("out.json");
    std::fs::create_dir_all(&out).expect("mkdir");
    write(&out, "keep", OLD);
    let r = run(&["convert", &good, "-o", &out.display().to_string()]);
    assert_eq!(r.code, Some(2), "{}", truncate(&r.stderr));
    assert_eq!(std::fs::read(out.join("keep")).expect("kept"), OLD);
    assert!(
        temp_files(dir.path()).is_empty(),
        "{:?}",
        temp_files(dir.path())
    );

    // generate: one generated file's path is occupied by a non-empty directory.
    let client = dir.path().join("client");
    std::fs::create_dir_all(client.join("src/lib.rs")).expect("mkdir");
    write(&client.join("src/lib.rs"), "keep", OLD);
    let hostile = fixture("hostile/injection.json").display().to_string();
    let r = run(&[
        "generate",
        "rust",
        &hostile,
        "-o",
        &client.display().to_string(),
    ]);
    assert_eq!(r.code, Some(2), "{}", truncate(&r.stderr));
    assert!(
        temp_files(dir.path()).is_empty(),
        "{:?}",
        temp_files(dir.path())
    );

    // A successful run replaces the previous file and leaves no temp file either.
    let file = write(dir.path(), "ok.json", OLD);
    let r = run(&["convert", &good, "-o", &file.display().to_string()]);
    assert_eq!(r.code, Some(0), "{}", truncate(&r.stderr));
    assert_ne!(std::fs::read(&file).expect("read"), OLD);
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn codegen_never_writes_outside_the_output_folder() {
    // Server and tool names with `..`, `/`, `\`, absolute paths and NUL; crate and
    // package names derive from them.
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "../../../../escape/../x", "version": "1.0.0"},
        "protocolVersions": ["2026-07-28"],
        "tools": [
            {"name": "../../etc/passwd", "inputSchema": {"type": "object",
                "properties": {"../../p": {"type": "string"}, "/abs": {"type": "string"}}}},
            {"name": "/tmp/absolute", "inputSchema": {"type": "object"}},
            {"name": "..\\..\\win", "inputSchema": {"type": "object"}},
            {"name": "nul\u{0}byte", "inputSchema": {"type": "object"}}
        ]
    });
    for (i, extra) in [
        vec![],
        vec!["--crate-name", "../../crate"],
        vec!["--crate-name", "/tmp/abs-crate"],
    ]
    .into_iter()
    .enumerate()
    {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = write(
            dir.path(),
            "in.json",
            serde_json::to_string(&doc).expect("json").as_bytes(),
        );
        let deep = dir.path().join("a/b/c");
        std::fs::create_dir_all(&deep).expect("mkdir");
        for (j, fx) in [
            input.display().to_string(),
            fixture("codegen/hostile.json").display().to_string(),
        ]
        .into_iter()
        .enumerate()
        {
            for lang in ["rust", "typescript"] {
                let out = deep.join(format!("out-{lang}-{i}-{j}"));
                let mut args = vec!["generate", lang, fx.as_str(), "-o"];
                let o = out.display().to_string();
                args.push(&o);
                if lang == "rust" {
                    args.extend(extra.iter().copied());
                }
                let before = tree(dir.path());
                let r = run(&args);
                assert!(
                    matches!(r.code, Some(0..=2)),
                    "{args:?}: {:?} {}",
                    r.code,
                    truncate(&r.stderr)
                );
                let after = tree(dir.path());
                for p in after.keys().filter(|p| !before.contains_key(*p)) {
                    assert!(
                        p.starts_with(&out),
                        "{args:?} wrote {} outside {}",
                        p.display(),
                        out.display()
                    );
                }
                for (p, bytes) in &before {
                    assert_eq!(
                        after.get(p),
                        Some(bytes),
                        "{args:?} changed {}",
                        p.display()
                    );
                }
            }
        }
    }
    // nothing appeared at the absolute paths the names spell
    assert!(!Path::new("/tmp/absolute").exists() && !Path::new("/tmp/abs-crate").exists());
}

#[cfg(unix)]
#[test]
fn atomic_writes_keep_ordinary_file_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o7777;
    let good = fixture("spec/fixtures/expected-valid/minimal-zero-primitives.json")
        .display()
        .to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    // Oracle: what a plain create gives under this process's umask.
    let plain = write(dir.path(), "plain", b"x");
    let expected_new = mode(&plain);
    // A new output file.
    let new = dir.path().join("new.json");
    let r = run(&["convert", &good, "-o", &new.display().to_string()]);
    assert_eq!(r.code, Some(0), "{}", truncate(&r.stderr));
    assert_eq!(mode(&new), expected_new, "new output file mode");
    // A replaced output file keeps its mode.
    let old = write(dir.path(), "old.json", OLD);
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let r = run(&["convert", &good, "-o", &old.display().to_string()]);
    assert_eq!(r.code, Some(0), "{}", truncate(&r.stderr));
    assert_eq!(mode(&old), 0o640, "replaced output file mode");
    // Generated sources.
    let out = dir.path().join("client");
    let r = run(&["generate", "rust", &good, "-o", &out.display().to_string()]);
    assert_eq!(r.code, Some(0), "{}", truncate(&r.stderr));
    for f in ["Cargo.toml", "src/lib.rs"] {
        assert_eq!(mode(&out.join(f)), expected_new, "generated {f} mode");
    }
}
