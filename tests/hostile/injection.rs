//! Generated-code injection (issue 8): descriptions whose names, titles, descriptions,
//! enum values, defaults, examples and property names try to close doc comments (`*/`),
//! strings (`"`, `'`, backticks, `${}`), lines (newline, CR, U+2028/2029), or smuggle
//! attributes (`#[test]`), escapes (`\u{..}`), Markdown code fences (doctests) and
//! manifest sections, through `mcpdesc generate rust` and `generate typescript`.
//!
//! Three independent proofs per target language:
//! 1. lexical: with comments and string literals stripped, no canary text is left in
//!    the code;
//! 2. the output compiles (`cargo check` + clippy -D warnings, `tsc --noEmit` ESM and
//!    CommonJS) via `mcpdesc_codegen_check`;
//! 3. a canary that *runs* if injection worked: every payload writes a file named
//!    `INJECTED`. The generated crate's unit tests and doctests are run (`cargo test`,
//!    which also runs any build script), and the compiled TypeScript module is
//!    imported by node (module top level runs); no `INJECTED` file may appear.
//!
//! Fixtures: `tests/fixtures/hostile/injection.json` (payloads in every string
//! position) and the codegen suite's `tests/fixtures/codegen/hostile.json` (identifier
//! edge cases: keywords, collisions, `__proto__`, `../` in the server name).

use crate::{run, truncate};
use mcpdesc_codegen_check::{self as check, StepReport};
use mcpdesc_tests::{check_config, code_only, fixture, missing};
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &[&str] = &["hostile/injection.json", "codegen/hostile.json"];

/// Canary code that must never appear outside comments and string literals. Each is a
/// token sequence an identifier cannot contain (`!`, `(`, `::`, `.`, `#[`), because
/// sanitized identifiers legitimately spell the payload's words (`p15_doc_include_str_…`).
const CANARIES: &[&str] = &[
    "include_str!",
    "writeFileSync(",
    "fs::write(",
    "exit(42)",
    "process.exit",
    "fn injected(",
    "fn main(",
    "#[test]",
    "#[cfg(test)]",
    "</script>",
    "import(",
];

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            // node_modules is a symlink to the shared .deps install
            if p.file_name()
                .is_some_and(|n| n == "node_modules" || n == "target")
            {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Generates with the CLI; expects success and returns the output directory.
fn generate(lang: &str, fixture_rel: &str, out: &Path) {
    let input = fixture(fixture_rel).display().to_string();
    let r = run(&["generate", lang, &input, "-o", &out.display().to_string()]);
    assert_eq!(
        r.code,
        Some(0),
        "generate {lang} {fixture_rel}: {}",
        truncate(&r.stderr)
    );
}

fn assert_no_canary_in_code(dir: &Path, ts: bool) {
    let files = files_under(dir);
    assert!(!files.is_empty(), "nothing generated in {}", dir.display());
    for f in files {
        let text = std::fs::read_to_string(&f).expect("generated file is UTF-8");
        let code = if f.extension().is_some_and(|e| e == "toml" || e == "json") {
            // manifests: every value is a string; a smuggled section or key shows as
            // a line starting with `[` or a new key outside the known ones.
            assert!(
                !text.contains("[build-dependencies]") && !text.contains("\nevil"),
                "{}: manifest injection\n{text}",
                f.display()
            );
            continue;
        } else {
            code_only(&text, ts)
        };
        for bad in CANARIES {
            // the generated TS legitimately imports the SDK with `import … from`, never
            // a dynamic `import(`
            assert!(
                !code.contains(bad),
                "{}: `{bad}` escaped into code",
                f.display()
            );
        }
        for c in ['\u{2028}', '\u{2029}', '\u{202E}', '\r', '\0'] {
            assert!(
                !text.contains(c),
                "{}: raw {:?} in generated source",
                f.display(),
                c
            );
        }
    }
}

fn assert_steps_ok(steps: &[StepReport]) {
    for s in steps {
        assert!(s.ok, "{} failed:\n{}", s.step, s.output);
    }
}

fn assert_no_injected_file(root: &Path) {
    let hits: Vec<_> = files_under(root)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "INJECTED"))
        .collect();
    assert!(hits.is_empty(), "injected code ran: {hits:?}");
}

#[cfg_attr(
    mcpdesc_skip_generated_builds,
    ignore = "MCPDESC_SKIP_GENERATED_BUILDS is set"
)]
#[test]
fn hostile_strings_stay_inert_in_generated_rust() {
    let cfg = check_config();
    for (i, fx) in FIXTURES.iter().enumerate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("client");
        generate("rust", fx, &out);
        assert_no_canary_in_code(&out, false);
        if std::env::var_os("MCPDESC_SKIP_GENERATED_BUILDS").is_some() {
            missing("generated builds (MCPDESC_SKIP_GENERATED_BUILDS is set)");
            continue;
        }
        assert_steps_ok(&check::check_rust(&format!("injection-{i}"), &out, &cfg));
        // Run the crate's tests and doctests (and any build script): the canary
        // would write `INJECTED` into the crate folder (cargo runs tests there).
        let r = cfg
            .cargo()
            .args(["test", "--quiet", "--manifest-path"])
            .arg(out.join("Cargo.toml"))
            .current_dir(dir.path())
            .output()
            .expect("cargo test");
        assert!(
            r.status.success(),
            "cargo test of the generated crate failed:\n{}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_no_injected_file(dir.path());
    }
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn hostile_strings_stay_inert_in_generated_typescript() {
    let cfg = check_config();
    for (i, fx) in FIXTURES.iter().enumerate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("client");
        generate("typescript", fx, &out);
        assert_no_canary_in_code(&out, true);
        let Some(tsc) = cfg.tsc().filter(|_| cfg.has_sdk()) else {
            missing("typescript / @modelcontextprotocol/sdk in .deps/node");
            continue;
        };
        assert_steps_ok(&check::check_typescript(
            &format!("injection-{i}"),
            &out,
            &cfg,
        ));
        // Emit JavaScript and import it: top-level statements run on import.
        let r = Command::new("node")
            .arg(&tsc)
            .arg("-p")
            .arg(out.join("tsconfig.json"))
            .current_dir(&out)
            .output()
            .expect("tsc");
        assert!(
            r.status.success(),
            "tsc emit failed:\n{}",
            String::from_utf8_lossy(&r.stdout)
        );
        let index = out.join("dist/index.js");
        assert!(index.is_file(), "no {}", index.display());
        let r = Command::new("node")
            .args(["--input-type=module", "-e"])
            .arg(format!(
                "const m = await import({:?}); if (typeof m.Client !== 'function' && Object.keys(m).length === 0) {{ throw new Error('empty module'); }}",
                format!("file://{}", index.display())
            ))
            .current_dir(&out)
            .output()
            .expect("node");
        assert!(
            r.status.success(),
            "importing the generated module failed:\n{}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_no_injected_file(dir.path());
    }
}

#[test]
fn canary_detector_detects_a_real_injection() {
    // The lexical check must be able to fail: code outside strings/comments is seen.
    let injected = "/// doc */\nfn ok() {}\nstd::fs::write(\"INJECTED\", \"\");";
    assert!(code_only(injected, false).contains("fs::write"));
    let inert = "/// std::fs::write(\"INJECTED\")\nconst S: &str = \"fs::write INJECTED\";";
    let code = code_only(inert, false);
    assert!(!CANARIES.iter().any(|c| code.contains(c)), "{code}");
    let ts = "const a = `${x}`; const b = 'process.exit'; /* writeFileSync */";
    assert!(!CANARIES.iter().any(|c| code_only(ts, true).contains(c)));
}
