//! The HTML elements description text is written with: what the docs page lets
//! through its sanitizer and what `lint` recognizes as HTML markup in a description.
//! Descriptions are plain text or Markdown by convention (no spec table fixes it), so
//! this is a tool fact, kept once.

/// The elements a CommonMark renderer emits for Markdown with tables and
/// strikethrough (pulldown-cmark's output): the docs page's sanitizer allowlist.
pub const MARKDOWN_ELEMENTS: [&str; 25] = [
    "a",
    "p",
    "br",
    "em",
    "strong",
    "del",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
];

/// Elements hand-written HTML descriptions use beyond [`MARKDOWN_ELEMENTS`] (OpenAPI
/// documents converted from HTML docs): recognized as markup, never let through.
pub const AUTHORED_ELEMENTS: [&str; 4] = ["div", "span", "b", "i"];

/// Whether `name` (lower-case) is an element that marks text as HTML: a bare `<id>`
/// placeholder is not.
///
/// ```
/// use mcpdesc_core::html::is_description_element;
/// assert!(is_description_element("p") && is_description_element("span"));
/// assert!(!is_description_element("id") && !is_description_element("script"));
/// ```
pub fn is_description_element(name: &str) -> bool {
    MARKDOWN_ELEMENTS.contains(&name) || AUTHORED_ELEMENTS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sets() {
        // What CommonMark + GFM tables/strikethrough produce (hand-listed from the
        // CommonMark spec's HTML output and the GFM table/strikethrough extensions).
        for e in [
            "p",
            "em",
            "strong",
            "a",
            "code",
            "pre",
            "blockquote",
            "ul",
            "ol",
            "li",
            "hr",
            "br",
            "h1",
            "h6",
            "table",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "del",
        ] {
            assert!(MARKDOWN_ELEMENTS.contains(&e), "{e}");
        }
        for e in ["div", "span", "b", "i"] {
            assert!(
                !MARKDOWN_ELEMENTS.contains(&e) && is_description_element(e),
                "{e}"
            );
        }
        // Never markup of a description: active content, and placeholders.
        for e in [
            "script", "style", "img", "iframe", "id", "name", "value", "P",
        ] {
            assert!(!is_description_element(e), "{e}");
        }
    }
}
