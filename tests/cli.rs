//! CLI wiring tests: `convert` (exit codes, atomic output, stdin, refusal to overwrite
//! the input), the `-o` rule of every subcommand that writes a description, typed
//! revision flags, `validate DIR`, completions and man pages. Logic is tested in the
//! libraries; this checks the wiring.

use mcpdesc_core::{Format, Limits};
use mcpdesc_tests::{fixture, mcpdesc_bin, missing, workspace_root};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn mcpdesc() -> Command {
    let bin = mcpdesc_bin();
    assert!(
        bin.exists(),
        "{} missing: run `cargo xtask test` (it builds the CLI first)",
        bin.display()
    );
    Command::new(bin)
}

#[test]
fn convert_yaml_to_json_and_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("out.json");
    let src = fixture("spec/examples/full-featured.yaml");
    let st = mcpdesc()
        .arg("convert")
        .arg(&src)
        .arg("-o")
        .arg(&json)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let yaml = dir.path().join("back.yaml");
    let st = mcpdesc()
        .arg("convert")
        .arg(&json)
        .arg("-o")
        .arg(&yaml)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let a = mcpdesc_core::decode(
        &std::fs::read_to_string(&src).expect("r"),
        mcpdesc_core::Format::Yaml,
        &Default::default(),
    )
    .expect("decodes")
    .value;
    let b = mcpdesc_core::decode(
        &std::fs::read_to_string(&yaml).expect("r"),
        mcpdesc_core::Format::Yaml,
        &Default::default(),
    )
    .expect("decodes")
    .value;
    assert_eq!(a, b);
    // no temp files left behind
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("ls")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".mcpdesc-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn convert_stdin_to_stdout_with_sniffing() {
    let mut child = mcpdesc()
        .args(["convert", "-", "--to", "yaml"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(br#"{"mcpdesc":"0.8.0","info":{"name":"n","version":"1"},"protocolVersions":["2026-07-28"]}"#)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.starts_with("mcpdesc: \"0.8.0\"\n") || text.starts_with("mcpdesc: '0.8.0'\n"),
        "{text}"
    );
}

#[test]
fn bad_input_exit_1_with_position_and_existing_output_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "mcpdesc: 0.8.0\ninfo: &a {name: x}\n").expect("write");
    let out_path = dir.path().join("out.json");
    std::fs::write(&out_path, "previous").expect("write");
    let out = mcpdesc()
        .arg("convert")
        .arg(&bad)
        .arg("-o")
        .arg(&out_path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.yaml:2:7: error[yaml-anchor]"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&out_path).expect("read"),
        "previous"
    );
}

#[test]
fn refuses_to_overwrite_input_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("d.json");
    std::fs::write(&f, r#"{"mcpdesc":"0.8.0","info":{"name":"n","version":"1"},"protocolVersions":["2026-07-28"]}"#)
        .expect("write");
    let st = mcpdesc()
        .arg("convert")
        .arg(&f)
        .arg("-o")
        .arg(&f)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(2));
    let st = mcpdesc()
        .arg("convert")
        .arg(&f)
        .arg("-o")
        .arg(&f)
        .arg("--in-place")
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let st = mcpdesc()
        .arg("convert")
        .arg(dir.path().join("missing.json"))
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(2));
    let st = mcpdesc()
        .args(["convert", "--to", "toml", "x"])
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(2));
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for sub in [
        &["convert"][..],
        &["validate"],
        &["import", "openapi"],
        &["import", "tools-list"],
        &["capture"],
        &["names"],
        &["project"],
        &["merge"],
        &["split"],
        &["export", "tools-list"],
        &["generate", "rust"],
        &["generate", "typescript"],
        &["completions"],
        &["man"],
    ] {
        let out = mcpdesc().args(sub).arg("--help").output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{sub:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("mcpdesc "),
            "{sub:?} --help has no example:\n{text}"
        );
    }
}

fn run(args: &[&std::ffi::OsStr], dir: &Path) -> Output {
    mcpdesc()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file in `dir`, sorted (to prove nothing else was written).
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The subcommands that write a description (or a tools/list result) with `-o`, each
/// with arguments that succeed, and the format their standard output gets.
fn writers() -> Vec<(&'static str, Vec<std::ffi::OsString>, Format)> {
    let desc = fixture("spec/examples/multi-version.yaml");
    let os = |s: &str| std::ffi::OsString::from(s);
    vec![
        (
            "convert",
            vec![os("convert"), desc.clone().into()],
            Format::Yaml,
        ),
        (
            "import openapi",
            vec![
                os("import"),
                os("openapi"),
                fixture("openapi/petstore-3.0.yaml").into(),
            ],
            Format::Json,
        ),
        (
            "import tools-list",
            vec![
                os("import"),
                os("tools-list"),
                fixture("live/dumps/bare-result.json").into(),
                os("--protocol-version"),
                os("2025-11-25"),
                os("--server-name"),
                os("weather"),
            ],
            Format::Json,
        ),
        (
            "names --fix",
            vec![os("names"), desc.clone().into(), os("--fix")],
            Format::Yaml,
        ),
        (
            "project",
            vec![
                os("project"),
                desc.clone().into(),
                os("--protocol-version"),
                os("2026-07-28"),
            ],
            Format::Yaml,
        ),
        (
            "merge",
            vec![os("merge"), desc.clone().into()],
            Format::Yaml,
        ),
        (
            "split",
            vec![os("split"), desc.clone().into()],
            Format::Yaml,
        ),
        (
            "export tools-list",
            vec![
                os("export"),
                os("tools-list"),
                desc.into(),
                os("--protocol-version"),
                os("2026-07-28"),
            ],
            Format::Json,
        ),
    ]
}

/// What format `text` is in: JSON parses with serde_json (not our decoder); YAML is
/// what our block emitter writes and our restricted-YAML decoder reads.
fn format_of(text: &str) -> Format {
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return Format::Json;
    }
    mcpdesc_core::decode(text, Format::Yaml, &Limits::default()).expect("neither JSON nor YAML");
    assert!(
        !text.trim_start().starts_with(['{', '[']),
        "flow YAML: {text}"
    );
    Format::Yaml
}

#[test]
fn output_rule_is_the_same_for_every_writer() {
    for (name, args, stdout_format) in writers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let with = |extra: &[&str]| {
            let mut a: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
            a.extend(extra.iter().map(std::ffi::OsStr::new));
            run(&a, dir.path())
        };
        // The extension decides, in any case.
        for (file, format) in [
            ("out.json", Format::Json),
            ("out.YAML", Format::Yaml),
            ("out.yml", Format::Yaml),
            ("out.mcpdesc.Json", Format::Json),
        ] {
            let o = with(&["-o", file]);
            assert_eq!(o.status.code(), Some(0), "{name} -o {file}: {}", stderr(&o));
            assert!(o.stdout.is_empty(), "{name} -o {file} also wrote stdout");
            let text = std::fs::read_to_string(dir.path().join(file)).expect("written");
            assert_eq!(format_of(&text), format, "{name} -o {file}");
        }
        // Standard output, by default (`names --fix` needs an explicit OUT) and as `-`.
        let defaults: &[&[&str]] = if name == "names --fix" {
            &[&["-o", "-"]]
        } else {
            &[&[], &["-o", "-"]]
        };
        for &extra in defaults {
            let o = with(extra);
            assert_eq!(o.status.code(), Some(0), "{name} {extra:?}: {}", stderr(&o));
            let text = String::from_utf8(o.stdout).expect("utf8");
            assert_eq!(format_of(&text), stdout_format, "{name} {extra:?}");
        }
        // Any other name is a usage error before anything is read or written.
        let before = listing(dir.path());
        for file in ["out.txt", "out", "out.json.bak"] {
            let o = with(&["-o", file]);
            assert_eq!(o.status.code(), Some(2), "{name} -o {file}");
            assert!(
                stderr(&o).contains(".json, .yaml or .yml"),
                "{name} -o {file}: {}",
                stderr(&o)
            );
            assert!(o.stdout.is_empty(), "{name} -o {file}");
        }
        assert_eq!(
            listing(dir.path()),
            before,
            "{name}: a rejected -o wrote a file"
        );
    }
}

#[test]
fn capture_applies_the_output_rule_before_starting_anything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("started");
    let o = mcpdesc()
        .args(["capture", "-o", "out.txt", "--", "touch"])
        .arg(&marker)
        .current_dir(dir.path())
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(".json, .yaml or .yml"),
        "{}",
        stderr(&o)
    );
    assert!(!marker.exists(), "the server was started");
}

#[test]
fn convert_to_sets_stdout_and_may_not_contradict_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let yaml = fixture("spec/examples/minimal.yaml");
    let o = run(
        &[
            "convert".as_ref(),
            yaml.as_os_str(),
            "--to".as_ref(),
            "json".as_ref(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(format_of(&String::from_utf8_lossy(&o.stdout)), Format::Json);
    let agree = run(
        &[
            "convert".as_ref(),
            yaml.as_os_str(),
            "--to".as_ref(),
            "yaml".as_ref(),
            "-o".as_ref(),
            "a.yml".as_ref(),
        ],
        dir.path(),
    );
    assert_eq!(agree.status.code(), Some(0), "{}", stderr(&agree));
    let clash = run(
        &[
            "convert".as_ref(),
            yaml.as_os_str(),
            "--to".as_ref(),
            "yaml".as_ref(),
            "-o".as_ref(),
            "b.json".as_ref(),
        ],
        dir.path(),
    );
    assert_eq!(clash.status.code(), Some(2));
    assert!(stderr(&clash).contains("--to yaml"), "{}", stderr(&clash));
    assert_eq!(listing(dir.path()), ["a.yml"]);
}

#[test]
fn revision_flags_are_typed_and_the_import_default_comes_from_the_table() {
    // The help shows the default, and it is the revisions with complete validation.
    let want: Vec<&str> = mcpdesc_core::ProtocolRevision::ALL
        .into_iter()
        .filter(|r| !r.is_legacy())
        .map(|r| r.as_str())
        .collect();
    let help = mcpdesc()
        .args(["import", "openapi", "--help"])
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains(&format!("[default: {}]", want.join(","))),
        "{help}"
    );
    let help = mcpdesc()
        .args(["capture", "--help"])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&help.stdout).contains("[default: all]"));

    // Without the flag, an import declares exactly those revisions.
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = fixture("openapi/petstore-3.0.yaml");
    let o = run(
        &["import".as_ref(), "openapi".as_ref(), spec.as_os_str()],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(doc["protocolVersions"], serde_json::json!(want));
    // `all` and a list with spaces and repeats.
    let o = run(
        &[
            "import".as_ref(),
            "openapi".as_ref(),
            spec.as_os_str(),
            "--protocol-versions".as_ref(),
            "2026-07-28, 2025-11-25,2026-07-28".as_ref(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        doc["protocolVersions"],
        serde_json::json!(["2025-11-25", "2026-07-28"])
    );

    // A bad revision is a usage error of every flag that takes one, before any work.
    let desc = fixture("spec/examples/minimal.yaml");
    let dump = fixture("live/dumps/bare-result.json");
    let out = dir.path().join("never");
    let cases: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![
            "import".as_ref(),
            "openapi".as_ref(),
            spec.as_os_str(),
            "--protocol-versions".as_ref(),
            "2025-06-18,1999-01-01".as_ref(),
        ],
        vec![
            "import".as_ref(),
            "openapi".as_ref(),
            spec.as_os_str(),
            "--protocol-versions".as_ref(),
            ",".as_ref(),
        ],
        vec![
            "import".as_ref(),
            "tools-list".as_ref(),
            dump.as_os_str(),
            "--protocol-version".as_ref(),
            "2025-13-01".as_ref(),
        ],
        vec![
            "capture".as_ref(),
            "--protocol-versions".as_ref(),
            "latest".as_ref(),
            "--".as_ref(),
            "true".as_ref(),
        ],
        vec![
            "project".as_ref(),
            desc.as_os_str(),
            "--protocol-version".as_ref(),
            "all".as_ref(),
        ],
        vec![
            "export".as_ref(),
            "tools-list".as_ref(),
            desc.as_os_str(),
            "--protocol-version".as_ref(),
            "x".as_ref(),
        ],
        vec![
            "generate".as_ref(),
            "rust".as_ref(),
            desc.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "--protocol-version".as_ref(),
            "2025-06-18,2025-11-25".as_ref(),
        ],
        vec![
            "generate".as_ref(),
            "typescript".as_ref(),
            desc.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "--protocol-version".as_ref(),
            "1".as_ref(),
        ],
    ];
    for args in cases {
        let o = run(&args, dir.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("protocol"), "{args:?}: {}", stderr(&o));
    }
    assert!(!out.exists());
}

/// A tree of descriptions with known verdicts, plus what the walk must skip.
fn description_tree(root: &Path) {
    let valid = std::fs::read(fixture("spec/examples/minimal.yaml")).expect("read");
    let invalid = br#"{"mcpdesc":"0.8.0","info":{"name":"n","version":"1"},"protocolVersions":["2026-07-28"],"x":1}"#;
    let put = |rel: &str, bytes: &[u8]| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, bytes).expect("write");
    };
    put("b.yaml", &valid);
    put("a/z.JSON", invalid);
    put("a/deeper/m.yml", &valid);
    put("notes.txt", b"not a description");
    put("c.json.orig", invalid);
    for skipped in [
        ".git/config.json",
        ".hidden.json",
        "target/x.json",
        "node_modules/p/package.json",
        "a/target/y.yaml",
    ] {
        put(skipped, invalid);
    }
}

#[test]
fn validate_dir_reports_every_description_file_in_path_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    description_tree(&tree);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&tree, tree.join("a/loop")).expect("symlink");
    let t = |rel: &str| tree.join(rel).to_string_lossy().into_owned();

    let o = run(&["validate".as_ref(), tree.as_os_str()], dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{}: valid (0 warnings)", t("a/deeper/m.yml")),
            format!("{}: invalid (1 error, 0 warnings)", t("a/z.JSON")),
            format!("{}: valid (0 warnings)", t("b.yaml")),
        ],
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains(&format!("{}:1:", t("a/z.JSON"))),
        "{}",
        stderr(&o)
    );

    // JSON lines: the same files, the same order, one verdict each.
    let o = run(
        &[
            "validate".as_ref(),
            "--format".as_ref(),
            "json".as_ref(),
            tree.as_os_str(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let reports: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let verdicts: Vec<(String, bool)> = reports
        .iter()
        .map(|r| {
            (
                r["file"].as_str().expect("file").to_string(),
                r["valid"].as_bool().expect("valid"),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            (t("a/deeper/m.yml"), true),
            (t("a/z.JSON"), false),
            (t("b.yaml"), true)
        ]
    );
    assert_eq!(reports[1]["diagnostics"][0]["code"], "unknown-property");
    assert_eq!(reports[1]["diagnostics"][0]["pointer"], "/x");

    // A directory of valid files, a file and a directory together: exit 0.
    let o = run(
        &[
            "validate".as_ref(),
            tree.join("a/deeper").as_os_str(),
            tree.join("b.yaml").as_os_str(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);
}

#[test]
fn validate_dir_without_descriptions_is_a_usage_error_and_the_rest_still_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(empty.join(".git")).expect("mkdir");
    std::fs::write(empty.join(".git/HEAD.json"), "{}").expect("write");
    std::fs::write(empty.join("README.md"), "# none").expect("write");
    let good = fixture("spec/examples/minimal.yaml");
    let o = run(
        &["validate".as_ref(), empty.as_os_str(), good.as_os_str()],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("empty: a directory without description files"),
        "{}",
        stderr(&o)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("minimal.yaml: valid"));
}

#[test]
fn completions_generate_for_every_shell_and_bash_parses_them() {
    let mut scripts = Vec::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = mcpdesc()
            .args(["completions", shell])
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let text = String::from_utf8(o.stdout).expect("utf8");
        // The script knows subcommands and flags from every level of the tree.
        for word in [
            "validate",
            "tools-list",
            "protocol-versions",
            "crate-name",
            "powershell",
        ] {
            assert!(text.contains(word), "{shell} completion lacks {word}");
        }
        scripts.push((shell, text));
    }
    let o = mcpdesc()
        .args(["completions", "tcsh"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));

    let dir = tempfile::tempdir().expect("tempdir");
    let bash = dir.path().join("mcpdesc.bash");
    std::fs::write(&bash, &scripts[0].1).expect("write");
    match Command::new("bash").arg("-n").arg(&bash).output() {
        Ok(o) => assert!(o.status.success(), "bash -n: {}", stderr(&o)),
        Err(_) => return missing("bash"),
    }
    // Sourced, it registers a completion function that completes subcommands.
    let probe = format!(
        "source {}\nCOMP_WORDS=(mcpdesc valid)\nCOMP_CWORD=1\nCOMP_LINE='mcpdesc valid'\nCOMP_POINT=13\n\
         _mcpdesc mcpdesc valid mcpdesc\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        bash.display()
    );
    let o = Command::new("bash")
        .arg("-c")
        .arg(&probe)
        .output()
        .expect("bash");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "validate");
}

/// Subcommand pages a page refers to in its SUBCOMMANDS section (`mcpdesc\-x(1)`).
fn referenced_pages(roff: &str) -> Vec<String> {
    roff.lines()
        .filter(|l| l.ends_with("(1)") && l.starts_with("mcpdesc"))
        .map(|l| l.trim_end_matches("(1)").replace("\\-", "-"))
        .collect()
}

#[test]
fn man_pages_exist_for_every_subcommand_the_pages_name() {
    let page = |cmd: &[&str]| {
        let o = mcpdesc().arg("man").args(cmd).output().expect("runs");
        assert_eq!(o.status.code(), Some(0), "man {cmd:?}: {}", stderr(&o));
        String::from_utf8(o.stdout).expect("utf8")
    };
    let top = page(&[]);
    let title = top
        .lines()
        .find(|l| l.starts_with(".TH "))
        .expect("a title");
    assert!(title.starts_with(".TH mcpdesc 1 "), "{title}");
    // Walk the tree the pages describe: every page named must render with its own title.
    let mut todo = vec![(Vec::<String>::new(), top)];
    let mut seen = Vec::new();
    while let Some((path, roff)) = todo.pop() {
        // A child's page is `<parent page>-<subcommand>` (`tools-list` is one word).
        let parent = std::iter::once("mcpdesc")
            .chain(path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("-");
        for name in referenced_pages(&roff) {
            let sub = name
                .strip_prefix(&format!("{parent}-"))
                .unwrap_or_else(|| panic!("{parent} names {name}, not a child page"));
            let mut child = path.clone();
            child.push(sub.to_string());
            let refs: Vec<&str> = child.iter().map(String::as_str).collect();
            let text = page(&refs);
            let title = text
                .lines()
                .find(|l| l.starts_with(".TH "))
                .expect("a title");
            assert!(title.starts_with(&format!(".TH {name} 1 ")), "{title}");
            assert!(title.contains("\"mcpdesc "), "{title}");
            seen.push(name);
            todo.push((child, text));
        }
    }
    for want in [
        "mcpdesc-validate",
        "mcpdesc-import-openapi",
        "mcpdesc-export-tools-list",
        "mcpdesc-generate-typescript",
        "mcpdesc-completions",
        "mcpdesc-man",
    ] {
        assert!(
            seen.iter().any(|s| s == want),
            "{want} not reachable: {seen:?}"
        );
    }
    assert!(!seen.iter().any(|s| s.ends_with("-help")), "{seen:?}");
    // A long description reaches the page, not just the one-line summary.
    assert!(page(&["validate"]).contains("node_modules"));
    let o = mcpdesc().args(["man", "no-such"]).output().expect("runs");
    assert_eq!(o.status.code(), Some(2));

    // groff, where installed, reads the page without a warning.
    let dir = tempfile::tempdir().expect("tempdir");
    let file: PathBuf = dir.path().join("mcpdesc.1");
    std::fs::write(&file, page(&["import", "openapi"])).expect("write");
    if let Ok(o) = Command::new("groff")
        .args(["-k", "-man", "-ww", "-z"])
        .arg(&file)
        .output()
    {
        assert!(
            o.status.success() && o.stderr.is_empty(),
            "groff: {}",
            stderr(&o)
        );
    }
}

/// `serve --list-toolsets` prints the toolsets and exits; selection flags are typed
/// before anything is served (usage errors, exit 2, naming the flag).
#[test]
fn serve_lists_toolsets_and_refuses_bad_selections() {
    let fx = workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml");
    let out = mcpdesc()
        .args(["serve", "--list-toolsets"])
        .arg(&fx)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    // By hand from tests/fixtures/openapi/petstore-3.0.yaml: `pets` tags listPets
    // (two protocol-scoped variants), createPet and getPet; `adoption` getPet; `auth`
    // postLogin (the admin-tagged operation is excluded by its x-mcp).
    assert_eq!(rows[0][..4], ["toolset", "tools", "bytes", "~tokens"]);
    let names_counts: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(
        names_counts,
        [("adoption", "1"), ("auth", "1"), ("pets", "4")]
    );
    assert_eq!(rows[3][4..], ["Everything", "about", "pets"]);
    for (args, expect) in [
        (
            vec!["--toolsets", "nope"],
            "no tool is in toolset `nope`; the toolsets are: adoption, auth, pets",
        ),
        (vec!["--tools", "a[b"], "`a[b` is not a glob"),
        (vec!["--pin", "get_pet"], "--pin"),
        (
            vec!["--discovery", "everything"],
            "invalid value 'everything'",
        ),
        // Code mode's limits are typed flags: a bad value is a usage error naming it.
        (
            vec!["--discovery", "code", "--code-memory", "0"],
            "greater than zero",
        ),
        (
            vec!["--discovery", "code", "--code-memory", "64MB"],
            "--code-memory",
        ),
        (
            vec!["--discovery", "code", "--code-max-concurrent-calls", "0"],
            "--code-max-concurrent-calls",
        ),
        (
            vec!["--discovery", "code", "--code-timeout", "0"],
            "--code-timeout",
        ),
        (
            vec!["--discovery", "code", "--code-max-calls", "many"],
            "--code-max-calls",
        ),
    ] {
        let out = mcpdesc()
            .arg("serve")
            .arg(&fx)
            .args(&args)
            .arg("--mock")
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expect), "{args:?}: {}", stderr(&out));
    }
}

/// `serve A B`: several descriptions as one server, each tool under its description's
/// prefix (info.name in snake_case); per-description flags need a single description.
#[test]
fn serve_several_descriptions_as_one_server() {
    use std::io::Write as _;
    let fx = workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml");
    let dir = tempfile::tempdir().expect("tempdir");
    let notes = dir.path().join("notes.mcpdesc.json");
    std::fs::write(
        &notes,
        r#"{"mcpdesc": "0.8.0", "info": {"name": "Notes", "version": "1"},
            "protocolVersions": ["2025-06-18"],
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}"#,
    )
    .expect("write");
    let mut child = mcpdesc()
        .arg("serve")
        .arg(&fx)
        .arg(&notes)
        .arg("--mock")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
    .expect("send");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{}}}}"#
    )
    .expect("send");
    drop(stdin);
    let out = child.wait_with_output().expect("exits");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let list: serde_json::Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["id"] == 2)
        .unwrap_or_else(|| panic!("no tools/list answer: {stdout}"));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(names.contains(&"notes_echo"), "{names:?}");
    assert!(names.contains(&"pet_store_3_0_get_pet"), "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("notes_") || n.starts_with("pet_store_3_0_")),
        "{names:?}"
    );
    let out = mcpdesc()
        .arg("serve")
        .arg(&fx)
        .arg(&notes)
        .args(["--credential", "api_key=KEY"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--credential needs a single description"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn import_openapi_overlay_flag_is_repeatable_ordered_and_reports_in_the_overlay_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("pets.mcpdesc.json");
    let spec = fixture("openapi/petstore-3.0.yaml");
    let curate = fixture("overlay/petstore/curate.overlay.yaml");
    let unmatched = fixture("overlay/petstore/unmatched.overlay.yaml");
    let o = mcpdesc()
        .args(["import", "openapi"])
        .arg(&spec)
        .arg("--overlay")
        .arg(&curate)
        .arg("--overlay")
        .arg(&unmatched)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // The unmatched target is a warning at its place in the overlay, not in the spec.
    let want = format!(
        "{}:9:5: warning[overlay-target-unmatched]",
        unmatched.display()
    );
    assert!(err.contains(&want), "{err}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("json");
    let names: Vec<&str> = doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"browse_pets") && !names.contains(&"list_pets"),
        "{names:?}"
    );
    let files: Vec<&str> = doc["x-mcpdesc-openapi"]["overlays"]
        .as_array()
        .expect("overlays recorded")
        .iter()
        .filter_map(|r| r["file"].as_str())
        .collect();
    assert_eq!(
        files,
        [
            curate.display().to_string(),
            unmatched.display().to_string()
        ]
    );

    // A malformed overlay: exit 1, errors located in the overlay, nothing written.
    let out2 = dir.path().join("never.json");
    let bad = fixture("overlay/petstore/malformed.overlay.yaml");
    let o = mcpdesc()
        .args(["import", "openapi"])
        .arg(&spec)
        .arg("--overlay")
        .arg(&bad)
        .arg("-o")
        .arg(&out2)
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let want = format!("{}:5:5: error[overlay-jsonpath-invalid]", bad.display());
    assert!(err.contains(&want), "{err}");
    assert!(!out2.exists());
    // A missing overlay file is an I/O error (exit 2).
    let o = mcpdesc()
        .args(["import", "openapi"])
        .arg(&spec)
        .args(["--overlay", "no-such.overlay.yaml"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
