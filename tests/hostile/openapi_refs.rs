//! `$ref` graphs through `mcpdesc import openapi` (issue 8): cycles, self-references,
//! refs into refs, missing targets, relative-file refs leaving the spec's folder
//! (refused unless allowed), and remote refs (never fetched: a local TCP listener
//! proves that nothing connects).

use crate::{run, truncate, write};
use mcpdesc_tests::fixture;
use serde_json::Value;
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn tool_names(doc: &Value) -> Vec<&str> {
    doc["tools"]
        .as_array()
        .map(|ts| ts.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default()
}

/// Imports `spec` to `out` with the CLI; expects exit 0 and a conforming output.
fn import_ok(spec: &Path, out: &Path) -> (Value, String) {
    let r = run(&[
        "import",
        "openapi",
        &spec.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(r.code, Some(0), "import failed: {}", truncate(&r.stderr));
    let v = run(&["validate", &out.display().to_string()]);
    assert_eq!(
        v.code,
        Some(0),
        "imported output does not validate: {}",
        truncate(&v.stderr)
    );
    let text = std::fs::read_to_string(out).expect("output written");
    (serde_json::from_str(&text).expect("JSON output"), r.stderr)
}

#[test]
fn ref_cycles_self_references_chains_and_missing_targets_terminate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let (doc, stderr) = import_ok(&fixture("hostile/openapi/ref-graphs.yaml"), &out);
    let names = tool_names(&doc);
    // Every operation whose path item resolves is kept (the self-referencing path
    // item `/self-item` has none); cycles do not cost an operation.
    for op in [
        "get_tree",
        "post_chain",
        "put_pure_cycle",
        "delete_missing",
        "get_mutual",
    ] {
        assert!(names.contains(&op), "{op} missing from {names:?}");
    }
    // Missing and cyclic targets are warnings that point at the ref.
    for expected in [
        "warning[openapi-unresolved-ref]: reference `#/components/schemas/DoesNotExist`",
        "warning[openapi-parameter-skipped]",
        "(at /paths/~1tree/get/parameters/1)",
        "(at /paths/~1missing/delete/parameters/0)",
        "(at /paths/~1self-item)",
    ] {
        assert!(stderr.contains(expected), "no `{expected}` in:\n{stderr}");
    }
    // Refs into refs resolve to their final target: `depth` (Depth → Depth2) is an
    // integer parameter, `Value` (→ Value2 → Value3) a string.
    let tree = doc["tools"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == "get_tree"))
        .expect("get_tree");
    assert_eq!(
        tree["inputSchema"]["properties"]["depth"]["type"], "integer",
        "{tree}"
    );
    // The recursive Tree stays recursive through a local `$defs` ref, not an
    // expansion (the output would be infinite).
    let text = serde_json::to_string(tree).expect("json");
    assert!(text.contains("\"$ref\":\"#/$defs/Tree\""), "{text}");
    assert!(text.len() < 20_000, "Tree expanded: {} bytes", text.len());
}

/// Writes `root/secret.yaml` (outside the spec's folder), `root/api/inside.yaml`, a
/// symlink `root/api/link.yaml` → `../secret.yaml`, and `root/api/spec.yaml` whose
/// operations reference each of them (and the secret by absolute path).
fn outside_layout(root: &Path) -> std::path::PathBuf {
    let api = root.join("api");
    std::fs::create_dir_all(&api).expect("mkdir");
    write(
        root,
        "secret.yaml",
        b"S:\n  type: object\n  properties:\n    topsecret_outside: {type: string}\n",
    );
    write(
        &api,
        "inside.yaml",
        b"S:\n  type: object\n  properties:\n    fine_inside: {type: string}\n",
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("secret.yaml"), api.join("link.yaml")).expect("symlink");
    let abs = root.join("secret.yaml");
    let spec = format!(
        r#"openapi: 3.0.3
info: {{title: files, version: "1"}}
paths:
  /inside:
    post:
      operationId: inside
      requestBody: {{content: {{application/json: {{schema: {{$ref: "./inside.yaml#/S"}}}}}}}}
      responses: {{"204": {{description: ok}}}}
  /dotdot:
    post:
      operationId: dotdot
      requestBody: {{content: {{application/json: {{schema: {{$ref: "../secret.yaml#/S"}}}}}}}}
      responses: {{"204": {{description: ok}}}}
  /sneaky:
    post:
      operationId: sneaky
      requestBody: {{content: {{application/json: {{schema: {{$ref: "./sub/../../secret.yaml#/S"}}}}}}}}
      responses: {{"204": {{description: ok}}}}
  /absolute:
    post:
      operationId: absolute
      requestBody: {{content: {{application/json: {{schema: {{$ref: "{abs}#/S"}}}}}}}}
      responses: {{"204": {{description: ok}}}}
  /file-url:
    post:
      operationId: file_url
      requestBody: {{content: {{application/json: {{schema: {{$ref: "file://{abs}#/S"}}}}}}}}
      responses: {{"204": {{description: ok}}}}
  /symlink:
    post:
      operationId: symlink
      requestBody: {{content: {{application/json: {{schema: {{$ref: "./link.yaml#/S"}}}}}}}}
      responses: {{"204": {{description: ok}}}}
"#,
        abs = abs.display()
    );
    write(&api, "spec.yaml", spec.as_bytes())
}

#[test]
fn file_refs_outside_the_specs_folder_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = outside_layout(dir.path());
    let out = dir.path().join("out.json");
    let (doc, stderr) = import_ok(&spec, &out);
    let text = serde_json::to_string(&doc).expect("json");
    assert!(
        text.contains("fine_inside"),
        "the in-folder ref must resolve: {text}"
    );
    assert!(
        !text.contains("topsecret_outside"),
        "content from outside the spec's folder leaked into the output:\n{stderr}"
    );
    // Each refused op is kept (a schema placeholder) and the refusal is a warning.
    let names = tool_names(&doc);
    for op in [
        "inside", "dotdot", "sneaky", "absolute", "file_url", "symlink",
    ] {
        assert!(names.contains(&op), "{op} missing from {names:?}");
    }
    assert!(
        stderr.contains("must stay inside the spec's folder"),
        "no refusal diagnostic:\n{stderr}"
    );

    // Allowed explicitly (library option; the CLI has no flag): the same refs resolve.
    let opts = mcpdesc_openapi::ImportOptions {
        allow_refs_outside_folder: true,
        ..Default::default()
    };
    let allowed = mcpdesc_tests::import_file(&spec, &opts).expect("imports");
    let text = serde_json::to_string(&allowed.document().to_value()).expect("json");
    assert!(
        text.contains("topsecret_outside"),
        "allow_refs_outside_folder must allow it"
    );
}

/// A TCP listener on 127.0.0.1 that counts connection attempts.
struct Listener {
    port: u16,
    hits: Arc<AtomicUsize>,
}

fn listener() -> Listener {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            h.fetch_add(1, Ordering::SeqCst);
            drop(s);
        }
    });
    Listener { port, hits }
}

#[test]
fn remote_refs_are_never_fetched_and_the_operation_is_kept() {
    let l = listener();
    let base = format!("http://127.0.0.1:{}", l.port);
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = format!(
        r#"{{"openapi": "3.1.0", "info": {{"title": "remote", "version": "1"}},
  "paths": {{
    "/schema": {{"post": {{"operationId": "remoteSchema",
      "requestBody": {{"content": {{"application/json": {{"schema": {{"$ref": "{base}/schema.json#/Thing"}}}}}}}},
      "responses": {{"200": {{"description": "ok", "content": {{"application/json": {{"schema":
        {{"type": "object", "properties": {{"x": {{"$ref": "https://127.0.0.1:{port}/s.json"}}}}}}}}}}}}}}}}}},
    "/param": {{"get": {{"operationId": "remoteParam",
      "parameters": [{{"$ref": "{base}/params.json#/P"}}, {{"name": "q", "in": "query", "schema": {{"type": "string"}}}}],
      "responses": {{"204": {{"description": "ok"}}}}}}}},
    "/item": {{"$ref": "{base}/item.json"}}
  }}}}"#,
        port = l.port
    );
    let spec = write(dir.path(), "remote.json", spec.as_bytes());
    let out = dir.path().join("out.json");
    let (doc, stderr) = import_ok(&spec, &out);
    let names = tool_names(&doc);
    assert!(
        names.contains(&"remote_schema") && names.contains(&"remote_param"),
        "{names:?}"
    );
    assert!(
        stderr.contains("warning[openapi-remote-ref]"),
        "no warning:\n{stderr}"
    );
    // The remote ref is preserved as is (not silently dropped).
    let text = serde_json::to_string(&doc).expect("json");
    assert!(
        text.contains(&format!("{base}/schema.json#/Thing")),
        "{text}"
    );

    // Downstream consumers of the preserved remote ref do not fetch it either.
    let o = out.display().to_string();
    for args in [
        vec!["validate", o.as_str()],
        vec!["convert", o.as_str(), "-o", "-"],
    ] {
        let r = run(&args);
        assert_eq!(r.code, Some(0), "{args:?}: {}", truncate(&r.stderr));
    }
    let rs = dir.path().join("rs");
    let ts = dir.path().join("ts");
    let (rs, ts) = (rs.display().to_string(), ts.display().to_string());
    for args in [
        vec!["generate", "rust", o.as_str(), "-o", rs.as_str()],
        vec!["generate", "typescript", o.as_str(), "-o", ts.as_str()],
    ] {
        let r = run(&args);
        assert_eq!(r.code, Some(0), "{args:?}: {}", truncate(&r.stderr));
        assert!(
            r.stderr.contains("codegen-ref-external"),
            "{args:?}: {}",
            r.stderr
        );
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        l.hits.load(Ordering::SeqCst),
        0,
        "something connected to the remote-ref host"
    );
}

/// A one-document HTTP server on 127.0.0.1: answers every GET with `body` (JSON).
fn http_server(body: &'static str) -> (u16, Arc<AtomicUsize>) {
    use std::io::{Read as _, Write as _};
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            h.fetch_add(1, Ordering::SeqCst);
            let mut req = [0u8; 4096];
            let _ = s.read(&mut req);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, hits)
}

#[test]
fn remote_refs_are_fetched_only_with_allow_remote_refs() {
    let (port, hits) = http_server(
        r#"{"Thing": {"type": "object", "properties": {"fetched_field": {"type": "string"}}}}"#,
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = format!(
        r#"{{"openapi": "3.1.0", "info": {{"title": "remote", "version": "1"}},
  "paths": {{"/schema": {{"post": {{"operationId": "remoteSchema",
    "requestBody": {{"content": {{"application/json": {{"schema": {{"$ref": "http://127.0.0.1:{port}/schema.json#/Thing"}}}}}}}},
    "responses": {{"204": {{"description": "ok"}}}}}}}}}}}}"#
    );
    let spec = write(dir.path(), "remote.json", spec.as_bytes());
    let out = dir.path().join("out.json");
    let o = out.display().to_string();
    let r = run(&[
        "import",
        "openapi",
        &spec.display().to_string(),
        "--allow-remote-refs",
        "-o",
        &o,
    ]);
    assert_eq!(r.code, Some(0), "{}", truncate(&r.stderr));
    assert_eq!(hits.load(Ordering::SeqCst), 1, "fetched exactly once");
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
    let props = &doc["tools"][0]["inputSchema"]["properties"];
    assert_eq!(props["fetched_field"]["type"], "string", "{doc}");
    assert!(!r.stderr.contains("openapi-remote-ref"), "{}", r.stderr);
}
