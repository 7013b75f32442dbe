//! The scans (the token estimate, HTML detection and rendering, the schema walk) end
//! on every input. A scan that stops advancing would hang every test that meets it,
//! so this check runs each scan on a thread of its own and, past a generous deadline,
//! fails the whole test process at once instead of letting the run hang. The module
//! is declared at the crate root under a name that sorts first, so the test harness
//! (which starts tests in name order) starts it before any test that could hang.

use crate::schema::walk;
use crate::{estimate_tokens, has_html, html_to_text};
use serde_json::json;
use std::sync::mpsc;
use std::time::Duration;

fn ends<T: Send + 'static>(what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(v) => v,
        Err(_) => {
            eprintln!("{what} did not finish within 10 s: the scan stopped advancing");
            std::process::exit(101);
        }
    }
}

#[test]
fn every_scan_ends() {
    let schema = json!({"type": "object", "properties": {"a": {"items": {}}}, "$defs": {"b": {}}});
    let n = ends("walking a schema".into(), move || walk(&schema, "").len());
    assert_eq!(n, 4);
    for text in [
        "abc", "ABCdef", "abcXYZab", "123", "é日", " _\t", "{,}", "a1é_B{",
    ] {
        ends(format!("estimating {text:?}"), move || {
            estimate_tokens(text)
        });
    }
    for text in [
        "<p>a <b>b</b></p>",
        "x < y <a",
        "&amp; &#65; &bogus; &",
        "<ul><li>a</li></ul><br/>",
    ] {
        let has = ends(format!("has_html({text:?})"), move || has_html(text));
        let shown = ends(format!("html_to_text({text:?})"), move || {
            html_to_text(text)
        });
        assert!(
            !shown.contains("<p>") && !shown.contains("<li>"),
            "{has} {shown}"
        );
    }
}
