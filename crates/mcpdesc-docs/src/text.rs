//! The one escaping layer between untrusted description text and the page.
//!
//! Every string that comes from a description passes through [`inert`] when the model
//! is built: bidi and other control characters become visible `⟨U+202E⟩` marks, so a
//! name cannot reorder what the reader sees (Trojan Source), and overlong strings are
//! cut. Descriptions written in Markdown become HTML through [`rich`]: pulldown-cmark
//! with raw HTML turned into text and images into their alt text, then ammonia with a
//! strict allowlist (no attributes but `href`, links only `http`/`https`/`mailto`,
//! `rel="noopener noreferrer nofollow"`). Links outside Markdown go through
//! [`safe_href`]. The Markdown renderer escapes with [`md_inline`] and [`md_cell`].

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use std::collections::HashSet;
use std::sync::OnceLock;

/// Longest string shown in full (characters); longer ones are cut with a note.
pub const MAX_TEXT: usize = 20_000;
/// Longest inline value (defaults, enum members, constants) shown in a table cell.
pub const MAX_CELL: usize = 300;

/// Whether `c` would change how surrounding text is displayed or read: the Unicode
/// bidi controls (embeddings, overrides, isolates, marks), other invisible format
/// characters, and C0/C1 controls other than newline and tab.
fn is_hazard(c: char) -> bool {
    matches!(c,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        | '\u{200B}'..='\u{200D}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{00AD}')
        || (c.is_control() && c != '\n' && c != '\t')
}

/// `s` made safe to show as text: hazardous characters as visible `⟨U+XXXX⟩` marks, and
/// at most `max` characters (then `… (N more characters)`).
pub fn inert_max(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    for (count, c) in s.chars().enumerate() {
        if count == max {
            let rest = s.chars().count() - count;
            out.push_str(&format!("… ({rest} more characters)"));
            break;
        }
        if is_hazard(c) {
            out.push_str(&format!("⟨U+{:04X}⟩", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// [`inert_max`] with [`MAX_TEXT`].
pub fn inert(s: &str) -> String {
    inert_max(s, MAX_TEXT)
}

/// A JSON value as compact text for a table cell (inert, cut at [`MAX_CELL`]).
pub fn json_cell(v: &serde_json::Value) -> String {
    inert_max(&v.to_string(), MAX_CELL)
}

/// A JSON value as pretty text for a code block (inert, cut at [`MAX_TEXT`] × 5).
pub fn json_block(v: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    inert_max(&text, MAX_TEXT * 5)
}

/// A description in two safe forms: sanitized HTML for the page and escaped Markdown
/// source for the Markdown output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rich {
    /// HTML from pulldown-cmark, cleaned by ammonia (strict allowlist).
    pub html: String,
    /// The text (inert), for search and the Markdown renderer.
    #[serde(skip)]
    pub text: String,
}

/// Renders untrusted Markdown to sanitized HTML (see the module docs).
///
/// ```
/// let r = mcpdesc_docs::text::rich("**hi** <script>x()</script> [a](javascript:alert(1))");
/// assert!(r.html.contains("<strong>hi</strong>"));
/// assert!(!r.html.contains("<script") && !r.html.contains("javascript:"));
/// ```
pub fn rich(markdown: &str) -> Rich {
    let text = inert(markdown);
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    let mut in_image = 0usize;
    let events = Parser::new_ext(&text, opts).filter_map(|ev| match ev {
        // Raw HTML is shown as the text it is, never passed through.
        Event::Html(h) | Event::InlineHtml(h) => Some(Event::Text(h)),
        // Images would load from anywhere: keep only their alt text.
        Event::Start(Tag::Image { .. }) => {
            in_image += 1;
            None
        }
        Event::End(TagEnd::Image) => {
            in_image = in_image.saturating_sub(1);
            None
        }
        other => Some(other),
    });
    let mut html = String::with_capacity(text.len() + 16);
    pulldown_cmark::html::push_html(&mut html, events);
    Rich {
        html: sanitizer().clean(&html).to_string(),
        text,
    }
}

fn sanitizer() -> &'static ammonia::Builder<'static> {
    static B: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    B.get_or_init(|| {
        let tags: HashSet<&str> = mcpdesc_core::html::MARKDOWN_ELEMENTS.into_iter().collect();
        let mut b = ammonia::Builder::empty();
        b.tags(tags)
            .add_tag_attributes("a", ["href"])
            .add_tag_attributes("ol", ["start"])
            .url_schemes(["http", "https", "mailto"].into_iter().collect())
            .url_relative(ammonia::UrlRelative::Deny)
            .link_rel(Some("noopener noreferrer nofollow"))
            .strip_comments(true);
        b
    })
}

/// `url` when it is an absolute `http`, `https` or `mailto` URL without whitespace or
/// control characters (the only links the page makes from description values).
pub fn safe_href(url: &str) -> Option<String> {
    let lower = url.to_ascii_lowercase();
    let ok_scheme = lower.starts_with("https://")
        || lower.starts_with("http://")
        || (lower.starts_with("mailto:") && url.len() > 7);
    let clean = !url
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || is_hazard(c) || c == '"' || c == '\\');
    (ok_scheme && clean && url.len() <= 2048).then(|| url.to_string())
}

/// An icon source the page may show inline: only `data:` URIs of raster image types
/// (`png`, `gif`, `jpeg`, `webp`) in base64. Remote icons are never loaded (a docs page
/// that fetches a third party's image on open leaks who reads it); SVG is excluded
/// because it is a document, not a picture.
pub fn inline_image(src: &str) -> Option<String> {
    let rest = src.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    let ok_mime = matches!(
        mime.to_ascii_lowercase().as_str(),
        "image/png" | "image/gif" | "image/jpeg" | "image/webp"
    );
    let ok_data = !data.is_empty()
        && data.len() <= 256 * 1024
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    (ok_mime && ok_data).then(|| src.to_string())
}

/// Escapes text for inline Markdown (not at the start of a line): a backslash before
/// every character CommonMark or GFM could read as inline syntax (emphasis, code,
/// links, HTML, tables, strikethrough, entities); line breaks become spaces. The
/// result renders as exactly the (inert) text.
pub fn md_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// [`md_inline`] for text that starts a line: also escapes what would open a block
/// there (`#`, `>`, `+`, `-`, `=`, `1.`, `1)`) and drops leading indentation (code
/// blocks).
pub fn md_line(s: &str) -> String {
    let trimmed = s.trim_start_matches([' ', '\t']);
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let escaped = md_inline(trimmed);
    if matches!(trimmed.as_bytes().first(), Some(b'#' | b'+' | b'-' | b'=')) {
        return format!("\\{escaped}");
    }
    if digits > 0 && matches!(trimmed.as_bytes().get(digits), Some(b'.' | b')')) {
        return format!("{}\\{}", &escaped[..digits], &escaped[digits..]);
    }
    escaped
}

/// [`md_inline`] for a table cell (same escaping; an empty cell becomes a space).
pub fn md_cell(s: &str) -> String {
    if s.is_empty() {
        " ".to_string()
    } else {
        md_inline(s)
    }
}

/// Escapes a multi-line text as Markdown paragraphs: each line escaped like
/// [`md_inline`], blank lines kept (paragraph breaks), single line breaks kept as hard
/// breaks. Nothing of the text is read as Markdown or HTML.
pub fn md_block(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let lines: Vec<&str> = s.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim_end();
        out.push_str(&md_line(line));
        let next_blank = lines.get(i + 1).is_none_or(|l| l.trim().is_empty());
        if i + 1 < lines.len() {
            if !line.is_empty() && !next_blank {
                out.push('\\');
            }
            out.push('\n');
        }
    }
    out
}

/// A fenced code block whose fence is longer than any backtick run in `body`.
pub fn md_fence(lang: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{body}\n{fence}")
}

/// The first sentence-ish line of a description, as plain inert text (list summaries).
pub fn summary(s: &str) -> String {
    let line = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    inert_max(line, 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_become_visible() {
        assert_eq!(inert("a\u{202E}b"), "a⟨U+202E⟩b");
        assert_eq!(inert("x\u{0007}\ny"), "x⟨U+0007⟩\ny");
        assert_eq!(inert_max("abcdef", 3), "abc… (3 more characters)");
    }

    #[test]
    fn markdown_is_sanitized() {
        for (input, banned) in [
            ("<script>alert(1)</script>", "<script"),
            ("<img src=x onerror=alert(1)>", "<img"),
            ("[x](javascript:alert(1))", "javascript:"),
            ("[x](JaVaScRiPt:alert(1))", "avascript:"),
            ("![alt](https://tracker.example/p.png)", "<img"),
            ("<style>body{}</style>", "<style"),
            ("<a href=\"https://x\" onclick=\"y()\">z</a>", "<a href"),
            ("[x](data:text/html,<script>)", "href=\"data"),
            ("[x](data:text/html;base64,PHNjcmlwdD4=)", "href"),
        ] {
            let r = rich(input);
            assert!(
                !r.html.to_ascii_lowercase().contains(banned),
                "{input} -> {}",
                r.html
            );
        }
        let r = rich("see [docs](https://example.com/a?b=1)");
        assert!(
            r.html.contains(
                r#"<a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow">docs</a>"#
            ),
            "{}",
            r.html
        );
        // Raw HTML survives as visible text.
        assert!(rich("<b>x</b>").html.contains("&lt;b&gt;"));
    }

    #[test]
    fn links_and_images() {
        assert!(safe_href("https://a.example/x").is_some());
        assert!(safe_href("mailto:a@b.example").is_some());
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "https://a b",
            "//evil",
            "mailto:",
            "https://a\u{202E}",
        ] {
            assert!(safe_href(bad).is_none(), "{bad}");
        }
        assert!(inline_image("data:image/png;base64,iVBORw0KGgo=").is_some());
        assert!(inline_image("data:image/svg+xml;base64,PHN2Zz4=").is_none());
        assert!(inline_image("https://x.example/i.png").is_none());
        assert!(inline_image("data:image/png;base64,\"><script>").is_none());
    }

    #[test]
    fn markdown_escaping_is_inert() {
        assert_eq!(md_inline("a|b<c>[d](e)`f`"), r"a\|b\<c\>\[d\](e)\`f\`");
        assert_eq!(md_line("# h"), r"\# h");
        assert_eq!(md_line("  12. x-y"), r"12\. x-y");
        assert_eq!(md_inline("12. a: b.c/d"), "12. a: b.c/d");
        assert_eq!(md_block("one\ntwo\n\nthree"), "one\\\ntwo\n\nthree");
        assert_eq!(md_fence("json", "a ``` b"), "````json\na ``` b\n````");
    }
}
