//! `mcpdesc docs`: Markdown snapshots of the spec examples, the CLI's wiring and
//! atomic output, the page's invariants (deterministic bytes, strict CSP, nothing
//! remote), hostile descriptions, and the generated pages driven in headless Chromium
//! (tests/docs/driver.mjs through puppeteer-core).
//!
//! Oracles: tool lists per revision come from the source documents by the §4.10 rule
//! (explicit `protocolVersions`, else the root's), computed here; required markers
//! from the schemas' `required` arrays; the browser itself for CSP hashes (a wrong hash
//! blocks the script and every DOM assertion fails) and for whether payloads run.
//! Browser tests are ignored, with the reason, without Chromium or `.deps` (tests/build.rs).
//! Screenshots are kept under `target/docs-browser/<test>/`.

use mcpdesc_core::{Format, Limits};
use mcpdesc_tests::{
    chromium, fixture, load_description as load, mcpdesc_bin, missing, node_modules, snapshot_dir,
    workspace_root,
};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::Command;

fn spec_examples() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(fixture("spec/examples"))
        .expect("examples dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            (
                p.file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                p,
            )
        })
        .collect();
    v.sort();
    v
}

fn markdown(doc: &Value) -> String {
    let valid = mcpdesc_tests::valid(doc);
    let out = mcpdesc_docs::generate(&valid, mcpdesc_docs::Format::Markdown, &Default::default());
    out.output
        .unwrap_or_else(|| panic!("generates: {:?}", out.diagnostics))
}

fn html(doc: &Value) -> String {
    let valid = mcpdesc_tests::valid(doc);
    let out = mcpdesc_docs::generate(&valid, mcpdesc_docs::Format::Html, &Default::default());
    out.output
        .unwrap_or_else(|| panic!("generates: {:?}", out.diagnostics))
}

/// Where the browser tests keep pages and screenshots.
fn artifacts() -> PathBuf {
    let t = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let dir = t.join("docs-browser");
    std::fs::create_dir_all(&dir).expect("artifact dir");
    dir
}

/// The hostile fixture with its loopback port filled in.
fn hostile(port: u16) -> Value {
    let text = std::fs::read_to_string(fixture("docs/hostile.yaml"))
        .expect("fixture")
        .replace("PORT", &port.to_string());
    let mut doc = mcpdesc_core::decode(&text, Format::Yaml, &Limits::default())
        .expect("decodes")
        .value;
    // A huge string: 300 000 characters of markup.
    doc["tools"][0]["inputSchema"]["properties"]["node"]["description"] =
        json!("<b>".repeat(100_000));
    doc
}

/// A name as the page shows it: bidi controls as visible `⟨U+XXXX⟩` marks.
fn shown(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{061C}' => {
                format!("⟨U+{:04X}⟩", c as u32)
            }
            c => c.to_string(),
        })
        .collect()
}

/// Tool names by revision per §4.10, from the source document (the test's oracle).
fn expected_tools(doc: &Value) -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let root: Vec<String> = doc["protocolVersions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect();
    let tools = doc["tools"].as_array().cloned().unwrap_or_default();
    let all = tools
        .iter()
        .map(|t| shown(t["name"].as_str().unwrap_or("")))
        .collect();
    let by = root
        .iter()
        .map(|r| {
            let names = tools
                .iter()
                .filter(|t| match t.get("protocolVersions") {
                    Some(v) => v.as_array().into_iter().flatten().any(|x| x == r.as_str()),
                    None => true,
                })
                .map(|t| shown(t["name"].as_str().unwrap_or("")))
                .collect();
            (r.clone(), names)
        })
        .collect();
    (all, by)
}

#[test]
fn markdown_of_the_spec_examples() {
    for (name, path) in spec_examples() {
        let md = markdown(&load(&path));
        insta::with_settings!({snapshot_path => snapshot_dir("docs"), prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("{name}.md"), md);
        });
    }
}

#[test]
fn page_is_deterministic_self_contained_and_strict() {
    for (_, path) in spec_examples() {
        let doc = load(&path);
        let a = html(&doc);
        assert_eq!(a, html(&doc), "{}: same input, same bytes", path.display());
        // One executable script and one stylesheet, both inline; no external resource.
        assert_eq!(a.matches("<script>").count(), 1);
        assert_eq!(a.matches("<style>").count(), 1);
        for bad in [
            "<script src",
            "<link",
            "<iframe",
            "<object",
            "@import",
            "url(",
        ] {
            assert!(!a.contains(bad), "{}: {bad}", path.display());
        }
        let csp = a
            .split("http-equiv=\"Content-Security-Policy\" content=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .expect("a CSP meta element")
            .replace("&#39;", "'");
        for directive in [
            "default-src 'none'",
            "img-src data:",
            "connect-src 'none'",
            "form-action 'none'",
            "base-uri 'none'",
        ] {
            assert!(csp.contains(directive), "{csp}");
        }
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval") && !csp.contains('&'),
            "{csp}"
        );
        assert!(
            csp.contains("script-src 'sha256-") && csp.contains("style-src 'sha256-"),
            "{csp}"
        );
    }
}

#[test]
fn hostile_strings_are_inert_in_html_and_markdown() {
    let doc = hostile(9);
    let page = html(&doc);
    // Outside the one script of our own, no payload became markup: every tag is one
    // the template or the sanitizer writes, with no event handler, style or script URL.
    let (head, rest) = page.split_once("<script>").expect("the page script");
    let (_, tail) = rest.split_once("</script>").expect("the script ends");
    let markup = format!("{head}{tail}");
    let allowed = [
        "!DOCTYPE",
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "div",
        "h1",
        "h2",
        "p",
        "code",
        "span",
        "dl",
        "dt",
        "dd",
        "a",
        "details",
        "summary",
        "ul",
        "ol",
        "li",
        "nav",
        "label",
        "select",
        "option",
        "input",
        "main",
        "section",
        "noscript",
        "script",
        "strong",
        "em",
        "br",
        "pre",
        "del",
        "blockquote",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "img",
    ];
    for tag in markup.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        let name = tag
            .trim_start_matches('/')
            .split([' ', '\n'])
            .next()
            .unwrap_or("");
        assert!(allowed.contains(&name), "unexpected tag <{tag}>");
        if name == "img" {
            assert!(
                tag.contains(" src=\"data:image/png;base64,"),
                "only inline raster icons: <{tag}>"
            );
        }
        let lower = tag.to_ascii_lowercase();
        assert!(
            !lower.contains(" on") && !lower.contains("style=") && !lower.contains("javascript:"),
            "tag <{tag}>"
        );
    }
    // The data blocks hold the payloads escaped.
    assert!(markup.contains("\\u003c/script\\u003e"));
    // Bidi controls are shown as visible marks.
    assert!(!page.contains('\u{202E}') && page.contains("⟨U+202E⟩"));

    // The huge string is cut, with a note saying so.
    assert!(page.contains("more characters)"));

    let md = markdown(&doc);
    // Outside fenced code blocks (where nothing is markup), every `<` is escaped.
    let mut fenced = false;
    for line in md.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let unescaped = line
            .char_indices()
            .any(|(i, c)| c == '<' && !line[..i].ends_with('\\'));
        assert!(!unescaped, "unescaped `<` in {line}");
    }
    for (i, _) in md.match_indices("](javascript") {
        assert!(md[..i].ends_with('\\'), "a javascript: link at {i}");
    }
    assert!(!md.contains('\u{202E}'), "bidi control in markdown");
    // Table cells cannot break out: every unescaped `|` is a cell border.
    for line in md.lines().filter(|l| l.starts_with('|')) {
        let borders = line
            .char_indices()
            .filter(|(i, c)| *c == '|' && !line[..*i].ends_with('\\'))
            .count();
        let header = md
            .lines()
            .find(|l| l.starts_with("| property"))
            .map_or(8, |h| h.matches('|').count());
        if line.starts_with("| property")
            || line.starts_with("|---")
            || line.starts_with("| revision")
        {
            continue;
        }
        assert!(borders == header || borders == 8, "{line}");
    }
}

#[test]
fn cli_writes_a_site_or_markdown_and_rejects_invalid_input() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = fixture("spec/examples/full-featured.yaml");
    let site = tmp.path().join("site");
    let st = Command::new(mcpdesc_bin())
        .args(["docs"])
        .arg(&input)
        .arg("-o")
        .arg(&site)
        .args(["--title", "Chess <docs>"])
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    let page = std::fs::read_to_string(site.join("index.html")).expect("index.html");
    assert!(
        page.contains("<title>Chess &#60;docs&#62;</title>"),
        "title escaped"
    );
    // Existing directory: index.html replaced, other files left alone.
    std::fs::write(site.join("keep.txt"), "mine").expect("write");
    let st = Command::new(mcpdesc_bin())
        .arg("docs")
        .arg(&input)
        .arg("-o")
        .arg(&site)
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(site.join("keep.txt")).expect("kept"),
        "mine"
    );
    let names: BTreeSet<String> = std::fs::read_dir(tmp.path())
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from(["site".to_string()]),
        "no temp dirs left"
    );

    let md = tmp.path().join("DOCS.md");
    let st = Command::new(mcpdesc_bin())
        .arg("docs")
        .arg(&input)
        .arg("-o")
        .arg(&md)
        .args(["--format", "markdown"])
        .status()
        .expect("runs");
    assert_eq!(st.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&md).expect("md"),
        markdown(&load(&input)),
        "the CLI writes what the library renders"
    );

    // Invalid: exit 1 with a located diagnostic, nothing written, old output untouched.
    let bad = tmp.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "mcpdesc: 0.8.0\ninfo: {name: x, version: '1'}\nprotocolVersions: ['2099-01-01']\n",
    )
    .expect("write");
    let out = Command::new(mcpdesc_bin())
        .arg("docs")
        .arg(&bad)
        .arg("-o")
        .arg(&md)
        .args(["--format", "markdown"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.yaml:3:"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&md).expect("md"),
        markdown(&load(&input))
    );
    let out = Command::new(mcpdesc_bin())
        .arg("docs")
        .arg(&bad)
        .arg("-o")
        .arg(tmp.path().join("new"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(!tmp.path().join("new").exists());
    // A file where the site directory should go is a usage error.
    let out = Command::new(mcpdesc_bin())
        .arg("docs")
        .arg(&input)
        .arg("-o")
        .arg(&md)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// One page for the driver: where it is and what to do on it.
struct Job {
    name: String,
    doc: Value,
    spec: Value,
    /// The page's bytes when they are not `html(&doc)` (the control pages).
    page: Option<String>,
}

/// Runs the driver on `jobs` in a folder of their own under the artifacts: the browser
/// tests run in parallel, and one shared `job.json` let one test's driver read
/// another's pages (CI: "every tool listed" compared two different pages).
fn run_driver(label: &str, jobs: &[Job]) -> Option<Vec<Value>> {
    let (Some(chromium), Some(modules)) = (chromium(), node_modules()) else {
        missing("headless Chromium or .deps/node (run `cargo xtask deps`)");
        return None;
    };
    if !modules.join("puppeteer-core").is_dir() {
        missing("puppeteer-core in .deps/node");
        return None;
    }
    let dir = artifacts().join(label);
    std::fs::create_dir_all(&dir).expect("job dir");
    let mut pages = Vec::new();
    for j in jobs {
        let site = dir.join(&j.name);
        std::fs::create_dir_all(&site).expect("site dir");
        let file = site.join("index.html");
        let bytes = j.page.clone().unwrap_or_else(|| html(&j.doc));
        std::fs::write(&file, bytes).expect("write page");
        let mut spec = j.spec.clone();
        spec["name"] = json!(j.name);
        spec["file"] = json!(file);
        spec["screenshot"] = json!(dir.join(format!("{}.png", j.name)));
        pages.push(spec);
    }
    let job = dir.join("job.json");
    let body = json!({"chromium": chromium, "nodeModules": modules, "pages": pages});
    std::fs::write(&job, body.to_string()).expect("job");
    let out = Command::new("node")
        .arg(workspace_root().join("tests/docs/driver.mjs"))
        .arg(&job)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "driver failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    Some(serde_json::from_slice(&out.stdout).expect("driver JSON"))
}

/// What every page must satisfy: no errors, no CSP violation, no request, a non-blank
/// screenshot, the canary unset.
fn assert_clean(r: &Value) {
    let name = &r["name"];
    assert_eq!(r["consoleErrors"], json!([]), "{name}: console errors");
    assert_eq!(r["csp"], json!([]), "{name}: CSP violations");
    assert_eq!(r["requests"], json!([]), "{name}: network requests");
    assert_eq!(r["pwned"], json!(false), "{name}: canary set");
    let shot = &r["screenshot"];
    let (w, h) = (
        shot["width"].as_u64().unwrap_or(0),
        shot["height"].as_u64().unwrap_or(0),
    );
    let ink = shot["nonBackground"].as_u64().unwrap_or(0);
    assert!(w == 1280 && h == 900, "{name}: screenshot {shot}");
    assert!(
        ink * 100 > w * h && shot["colors"].as_u64().unwrap_or(0) > 8,
        "{name}: blank screenshot {shot}"
    );
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

/// The first tool with required input properties, and those properties (resolving a
/// `$componentRef` by hand).
fn tool_with_required(doc: &Value) -> Option<(String, Vec<String>, Vec<String>)> {
    for t in doc["tools"].as_array().into_iter().flatten() {
        let mut s = &t["inputSchema"];
        if let Some(r) = s.get("$componentRef").and_then(Value::as_str) {
            s = &doc["components"]["schemas"][r.rsplit('/').next().unwrap_or("")];
        }
        let req = strings(&s["required"]);
        let props: Vec<String> = s["properties"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        if !req.is_empty() {
            return Some((t["name"].as_str().unwrap_or("").into(), req, props));
        }
    }
    None
}

fn input_rows(detail: &Value) -> Vec<Value> {
    detail["sections"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["heading"] == "Input")
        .and_then(|s| s["tables"].get(0))
        .map(|t| t["rows"].as_array().cloned().unwrap_or_default())
        .unwrap_or_default()
}

fn output_table(detail: &Value) -> Value {
    detail["sections"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["heading"] == "Output")
        .and_then(|s| s["tables"].get(0).cloned())
        .unwrap_or(Value::Null)
}

#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_chromium),
    ignore = "needs .deps/node and headless Chromium: cargo xtask deps"
)]
#[test]
fn pages_in_headless_chromium() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("loopback listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();

    let mut jobs = Vec::new();
    for (name, path) in spec_examples() {
        let doc = load(&path);
        let mut spec = json!({});
        if let Some(t) = doc["tools"][0]["name"].as_str() {
            spec["query"] = json!(t);
        }
        if let Some((tool, _, _)) = tool_with_required(&doc) {
            spec["open"] = json!([{"tool": tool}]);
        }
        jobs.push(Job {
            name: format!("spec-{name}"),
            doc,
            spec,
            page: None,
        });
    }
    let petstore = load(&workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"));
    jobs.push(Job {
        name: "petstore".into(),
        doc: petstore.clone(),
        spec: json!({
            "query": "pet",
            "open": [
                {"rev": "2025-06-18", "tool": "list_pets"},
                {"rev": "2026-07-28", "tool": "list_pets"},
                {"tool": "list_pets", "nth": 1},
            ],
            "screenshotOpen": "list_pets",
        }),
        page: None,
    });
    jobs.push(Job {
        name: "hostile".into(),
        doc: hostile(port),
        spec: json!({"openAll": true, "query": "evil"}),
        page: None,
    });
    let Some(results) = run_driver("pages", &jobs) else {
        return;
    };

    for (job, r) in jobs.iter().zip(&results) {
        assert_clean(r);
        let (all, by) = expected_tools(&job.doc);
        let listed = strings(&r["all"]);
        assert!(
            listed == all,
            "{}: every tool listed: page {listed:?}, expected {all:?}",
            job.name
        );
        for (rev, names) in &by {
            assert_eq!(
                strings(&r["byRevision"][rev]),
                *names,
                "{} at {rev}",
                job.name
            );
        }
        if let Some(q) = job.spec["query"].as_str() {
            let found = strings(&r["search"]);
            let hits: Vec<&String> = all
                .iter()
                .filter(|n| n.to_lowercase().contains(&q.to_lowercase()))
                .collect();
            assert!(
                hits.iter().all(|h| found.contains(h)),
                "{}: search `{q}` finds {found:?}",
                job.name
            );
            if all.len() > 1 && job.name != "hostile" {
                assert!(
                    found.len() < all.len(),
                    "{}: search `{q}` narrows ({} of {})",
                    job.name,
                    found.len(),
                    all.len()
                );
            }
        }
        if let Some((tool, req, props)) = tool_with_required(&job.doc)
            && job.name.starts_with("spec-")
        {
            let rows = input_rows(&r["opened"][0]["detail"]);
            let top: Vec<&Value> = rows.iter().filter(|x| x["depth"] == 0).collect();
            assert_eq!(
                top.iter()
                    .map(|x| x["name"].as_str().unwrap_or(""))
                    .collect::<Vec<_>>(),
                props,
                "{tool}"
            );
            for row in top {
                let n = row["name"].as_str().unwrap_or("");
                assert_eq!(
                    row["required"],
                    json!(req.iter().any(|x| x == n)),
                    "{tool}.{n} required marker"
                );
            }
        }
    }

    // Petstore: the 2026-07-28-only variant of list_pets (array output) is hidden at
    // 2025-06-18, where the wrapped variant (`result` property) shows; "all" has both.
    let p = &results[jobs
        .iter()
        .position(|j| j.name == "petstore")
        .expect("petstore")];
    let count = |names: &Value| strings(names).iter().filter(|n| *n == "list_pets").count();
    assert_eq!(count(&p["all"]), 2);
    assert_eq!(count(&p["byRevision"]["2025-06-18"]), 1);
    assert_eq!(count(&p["byRevision"]["2026-07-28"]), 1);
    let at_old = output_table(&p["opened"][0]["detail"]);
    assert!(
        at_old["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["name"] == "result"),
        "{at_old}"
    );
    assert!(
        at_old["summary"]
            .as_str()
            .unwrap_or("")
            .starts_with("object"),
        "{at_old}"
    );
    let at_new = output_table(&p["opened"][1]["detail"]);
    assert!(
        at_new["summary"]
            .as_str()
            .unwrap_or("")
            .starts_with("array"),
        "{at_new}"
    );
    assert!(
        !at_new["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["name"] == "result")
    );
    // The inputs' required markers, against the schema's `required`.
    let rows = input_rows(&p["opened"][0]["detail"]);
    let req = |n: &str| {
        rows.iter()
            .find(|r| r["name"] == n)
            .map(|r| r["required"].clone())
    };
    assert_eq!(req("X-Request-Id"), Some(json!(true)));
    assert_eq!(req("limit"), Some(json!(false)));
    let scopes = strings(&p["scopes"]);
    assert!(
        scopes.contains(&"2025-06-18, 2025-11-25".to_string())
            && scopes.contains(&"2026-07-28".to_string()),
        "{scopes:?}"
    );

    // Hostile: the title is the payload as text, nothing ran, nothing was fetched.
    let h = &results[jobs
        .iter()
        .position(|j| j.name == "hostile")
        .expect("hostile")];
    assert_eq!(
        h["title"],
        json!("<script>document.title='pwned';window.__pwned=1</script>")
    );
    assert_eq!(h["finalTitle"], h["title"]);
    assert!(
        h["bodyText"].as_u64().unwrap_or(0) > 2_000,
        "every detail rendered"
    );
    let mut hits = Vec::new();
    while let Ok((mut s, _)) = listener.accept() {
        let mut buf = [0u8; 256];
        let n = s.read(&mut buf).unwrap_or(0);
        hits.push(String::from_utf8_lossy(&buf[..n]).into_owned());
    }
    assert!(
        hits.is_empty(),
        "the loopback listener was contacted: {hits:?}"
    );
}

/// The canary can fire: the observations `assert_clean` relies on (the title, the
/// `window.__pwned` global, requests, CSP violation reports) do report a payload that
/// runs. A hand-written page without CSP runs the payload's script and request; the
/// generated hostile page with that script spliced in raw (as a renderer that forgot to
/// escape would) keeps the canary unset only because its CSP refuses the script, and
/// the refusal is reported.
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_chromium),
    ignore = "needs .deps/node and headless Chromium: cargo xtask deps"
)]
#[test]
fn canary_fires_on_control_pages() {
    let payload = "<script>document.title='pwned';window.__pwned=1;\
                   fetch('http://127.0.0.1:9/canary',{mode:'no-cors'}).catch(()=>{})</script>";
    let raw = format!(
        "<!doctype html><html><head><title>control</title></head>\
         <body data-ready=\"1\" data-ready-ms=\"0\"><select id=\"rev\"><option value=\"\">all</option></select>\
         <p>{}</p>{payload}</body></html>",
        "control page ".repeat(200)
    );
    let generated = html(&hostile(9));
    let at = generated.rfind("</body>").expect("a body");
    let spliced = format!("{}{payload}{}", &generated[..at], &generated[at..]);
    let jobs = [
        Job {
            name: "control-raw".into(),
            doc: json!({}),
            spec: json!({}),
            page: Some(raw),
        },
        Job {
            name: "control-csp".into(),
            doc: json!({}),
            spec: json!({}),
            page: Some(spliced),
        },
    ];
    let Some(results) = run_driver("control", &jobs) else {
        return;
    };
    let (raw, csp) = (&results[0], &results[1]);
    assert_eq!(raw["pwned"], json!(true), "{raw}");
    assert_eq!(raw["finalTitle"], json!("pwned"), "{raw}");
    assert!(
        strings(&raw["requests"])
            .iter()
            .any(|u| u.contains("/canary")),
        "{raw}"
    );
    assert_eq!(csp["pwned"], json!(false), "{csp}");
    assert!(
        strings(&csp["csp"])
            .iter()
            .any(|v| v.starts_with("script-src")),
        "{csp}"
    );
    assert_eq!(csp["requests"], json!([]), "{csp}");
}

/// The GitHub description (1,223 tools) in Chromium: every tool is listed; the time
/// to interactive is printed (the generation target lives in the criterion bench).
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_chromium),
    ignore = "needs .deps/node and headless Chromium: cargo xtask deps"
)]
#[test]
fn github_page_in_headless_chromium() {
    let Some(modules) = node_modules() else {
        return missing(".deps/node (run `cargo xtask deps`)");
    };
    let spec = modules.join("@octokit/openapi/generated/api.github.com.json");
    if !spec.exists() {
        return missing("@octokit/openapi in .deps/node");
    }
    let doc = mcpdesc_tests::import_file(&spec, &Default::default())
        .expect("imports")
        .value;
    let n = doc["tools"].as_array().map_or(0, Vec::len);
    let jobs = [Job {
        name: "github".into(),
        doc,
        spec: json!({"query": "repos"}),
        page: None,
    }];
    let Some(results) = run_driver("github", &jobs) else {
        return;
    };
    let r = &results[0];
    assert_clean(r);
    assert_eq!(r["all"].as_array().map_or(0, Vec::len), n);
    eprintln!(
        "github page: {n} tools, interactive after {} ms",
        r["readyMs"]
    );
}

/// The tool header in Chromium, as a user meets it: a double-click on the name selects
/// the name and nothing else (a button's text is not selectable at all by default, and
/// a word-wise double-click would stop at `-` or `.`); a single click opens the tool
/// and leaves no selection; the button's accessible name is the name, then the title,
/// the rest (scope, badges, summary) is its description; the text content keeps the
/// parts apart. Expectations are written by hand from the fixture's strings.
#[test]
fn tool_header_name_selects_alone_and_names_the_button() {
    let mut doc = load(&fixture("spec/examples/full-featured.yaml"));
    let tools = doc["tools"].as_array_mut().expect("tools");
    tools.push(json!({
        "name": "get-user.v2",
        "title": "Get User",
        "description": "Reads one user.",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": true},
    }));
    tools.push(json!({
        "name": "ping",
        "description": "Answers.",
        "inputSchema": {"type": "object"},
    }));
    let jobs = [Job {
        name: "headers".into(),
        doc,
        spec: json!({"headers": ["analyze_game", "get-user.v2", "ping"]}),
        page: None,
    }];
    let Some(results) = run_driver("headers", &jobs) else {
        return;
    };
    let r = &results[0];
    assert_clean(r);
    let headers = r["headers"].as_array().expect("headers");
    assert_eq!(headers.len(), 3, "{r}");
    for (h, (name, title)) in headers.iter().zip([
        ("analyze_game", Some("Analyze Chess Game")),
        ("get-user.v2", Some("Get User")),
        ("ping", None),
    ]) {
        assert_eq!(h["role"], "button", "{h}");
        assert_eq!(h["afterClick"], "", "a single click selects nothing: {h}");
        assert_eq!(
            h["afterDoubleClick"], name,
            "a double-click selects the name: {h}"
        );
        assert_eq!(
            h["expanded"], "true",
            "the double-click opened it once: {h}"
        );
        let label = match title {
            Some(t) => format!("{name} {t}"),
            None => name.to_string(),
        };
        assert_eq!(h["name"], label.as_str(), "accessible name: {h}");
        let text = h["text"].as_str().unwrap_or("");
        let rest = text
            .strip_prefix(&format!("{label} "))
            .unwrap_or_else(|| panic!("text starts with the name, a space, the title: {h}"));
        assert!(!rest.starts_with(' ') && !rest.is_empty(), "{h}");
        assert!(
            h["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{h}"
        );
    }
    // The badges and summary are there, apart from each other and from the title.
    let user = headers[1]["text"].as_str().unwrap_or("");
    assert!(user.contains(" read-only "), "{user}");
    assert!(user.ends_with(" Reads one user."), "{user}");
    assert!(
        headers[1]["description"]
            .as_str()
            .unwrap_or("")
            .contains("read-only"),
        "{}",
        headers[1]
    );
}

/// Without a browser: each view lists what the §4.10 rule keeps, and a declaration
/// whose nested elicitations have their own scopes shows, per revision, only those
/// that apply there (its own detail), while the "all revisions" detail shows both.
#[test]
fn views_follow_protocol_scopes() {
    let petstore = load(&workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml"));
    let page = mcpdesc_docs::model::build(&petstore, None, &[]);
    let (_, by) = expected_tools(&petstore);
    for (rev, names) in by {
        let view = page
            .views
            .iter()
            .find(|v| v.revision == rev)
            .expect("a view per revision");
        let shown: Vec<String> = view
            .items
            .iter()
            .map(|[d, _]| &page.decls[*d])
            .filter(|d| d.kind == "tools")
            .map(|d| d.name.clone())
            .collect();
        assert_eq!(shown, names, "{rev}");
    }

    let doc = json!({
        "mcpdesc": "0.8.0", "info": {"name": "e", "version": "1"},
        "protocolVersions": ["2025-06-18", "2025-11-25"],
        "tools": [{"name": "ask", "inputSchema": {"type": "object"}, "elicitations": [
            {"name": "confirm", "mode": "form", "message": "Sure?",
             "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}},
            {"name": "login", "mode": "url", "message": "Sign in", "protocolVersions": ["2025-11-25"]}
        ]}]
    });
    let diags = mcpdesc_validate::validate_value(&doc);
    assert!(mcpdesc_validate::conforms(&diags), "{diags:?}");
    let page = mcpdesc_docs::model::build(&doc, None, &diags);
    let names_in = |detail: usize| -> Vec<String> {
        let text = serde_json::to_string(&page.details[detail]).expect("json");
        ["confirm", "login"]
            .into_iter()
            .filter(|n| text.contains(&format!("\"{n}\"")))
            .map(String::from)
            .collect()
    };
    let all = page.decls[0].detail;
    assert_eq!(names_in(all), ["confirm", "login"]);
    let at = |rev: &str| {
        page.views
            .iter()
            .find(|v| v.revision == rev)
            .expect("view")
            .items[0][1]
    };
    assert_eq!(names_in(at("2025-06-18")), ["confirm"]);
    assert_eq!(names_in(at("2025-11-25")), ["confirm", "login"]);
    assert_ne!(
        at("2025-11-25"),
        all,
        "the projected detail has no nested scopes"
    );
}

/// `docs` shows toolsets (issue 21 §5): a page-level list with tool counts and the way to
/// serve one, and a tool's explicit `x-mcpdesc-toolsets`; tags stay tags. Expectations
/// are written by hand from the document below: `issues` holds two tools by their tags,
/// `repos_get` declares `repos` and `admin` explicitly (which replace its tag `misc`).
#[test]
fn toolsets_are_listed_with_counts_and_explicit_toolsets_shown() {
    let doc = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "tracker", "version": "1.0.0"},
        "protocolVersions": ["2025-06-18"],
        "tags": [{"name": "issues", "description": "Issue tracking"}, {"name": "repos"}, {"name": "misc"}],
        "tools": [
            {"name": "issues_list", "tags": ["issues"], "inputSchema": {"type": "object"}},
            {"name": "issues_create", "tags": ["issues"], "inputSchema": {"type": "object"}},
            {"name": "repos_get", "tags": ["misc"], "x-mcpdesc-toolsets": ["repos", "admin"],
             "inputSchema": {"type": "object"}}
        ]
    });
    let md = markdown(&doc);
    let expected = "## Toolsets\n\n\
        Serve one toolset with `mcpdesc serve --toolsets NAME`, or over Streamable HTTP at `/mcp/x/NAME`.\n\n\
        - admin (1 tool)\n\
        - issues (2 tools): Issue tracking\n\
        - repos (1 tool)\n";
    assert!(md.contains(expected), "toolsets section:\n{md}");
    assert!(
        md.contains("Tags: misc\\\nToolsets: repos, admin"),
        "repos_get meta:\n{md}"
    );
    assert_eq!(
        md.matches("Toolsets: ").count(),
        1,
        "only the explicit declaration:\n{md}"
    );

    let page = html(&doc);
    assert!(page.contains("<section id=\"sec-toolsets\"><h2>Toolsets</h2>"));
    assert!(page.contains("<dt>issues</dt><dd>2 tools<div class=\"md\">"));
    assert!(page.contains("<dt>admin</dt><dd>1 tool</dd>"));
    // Without any tags or toolsets the page has no such section.
    let bare = json!({"mcpdesc": "0.8.0", "info": {"name": "x", "version": "1"},
        "protocolVersions": ["2025-06-18"],
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
    assert!(!markdown(&bare).contains("## Toolsets"));
    assert!(!html(&bare).contains("sec-toolsets"));
}
