//! RFC 8259 JSON decoder with positions and limits.
//!
//! Hand-written (rather than serde_json) because we need, for untrusted input:
//! a line/column for every value (diagnostics), duplicate-key rejection, and
//! iterative parsing with configurable depth/size limits instead of a recursion cap.

use crate::builder::{Position, SourceMap, ValueBuilder, number_from_text};
use crate::diagnostic::Diagnostic;
use crate::limits::Limits;
use serde_json::Value;

struct Lexer<'a> {
    src: &'a [u8],
    text: &'a str,
    i: usize,
    line: u32,
    line_start: usize,
    /// Last computed column: (byte offset, 0-based char column). Columns are counted
    /// incrementally from here, so a document on one long line (minified JSON) stays
    /// linear instead of recounting the line for every value.
    col_cache: std::cell::Cell<(usize, usize)>,
}

impl<'a> Lexer<'a> {
    fn pos(&self) -> Position {
        self.pos_at(self.i)
    }
    fn pos_at(&self, i: usize) -> Position {
        // column in characters, 1-based
        let (from, base) = match self.col_cache.get() {
            (at, col) if at >= self.line_start && at <= i => (at, col),
            _ => (self.line_start, 0),
        };
        let col = base
            + self
                .text
                .get(from..i)
                .map_or(i - from, |s| s.chars().count());
        self.col_cache.set((i, col));
        Position {
            line: self.line,
            column: col as u32 + 1,
        }
    }
    fn err(&self, code: &str, msg: impl Into<String>) -> Diagnostic {
        let p = self.pos();
        Diagnostic::error(code, msg).with_position(p.line, p.column)
    }
    fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.i) {
            match b {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                _ => break,
            }
        }
    }
    fn peek(&self) -> Option<u8> {
        self.src.get(self.i).copied()
    }
    fn expect_lit(&mut self, lit: &str) -> Result<(), Diagnostic> {
        if self.src[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            Ok(())
        } else {
            Err(self.err(
                "json-syntax",
                "invalid literal: expected `true`, `false` or `null`",
            ))
        }
    }
    fn number(&mut self) -> Result<Value, Diagnostic> {
        let start = self.i;
        let s = self.src;
        let mut j = self.i;
        if s.get(j) == Some(&b'-') {
            j += 1;
        }
        match s.get(j) {
            Some(b'0') => j += 1,
            Some(b'1'..=b'9') => {
                while matches!(s.get(j), Some(b'0'..=b'9')) {
                    j += 1;
                }
            }
            _ => return Err(self.err("json-syntax", "invalid number")),
        }
        if s.get(j) == Some(&b'.') {
            j += 1;
            if !matches!(s.get(j), Some(b'0'..=b'9')) {
                self.i = j;
                return Err(self.err("json-syntax", "invalid number: digit expected after `.`"));
            }
            while matches!(s.get(j), Some(b'0'..=b'9')) {
                j += 1;
            }
        }
        if matches!(s.get(j), Some(b'e' | b'E')) {
            j += 1;
            if matches!(s.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if !matches!(s.get(j), Some(b'0'..=b'9')) {
                self.i = j;
                return Err(self.err("json-syntax", "invalid number: digit expected in exponent"));
            }
            while matches!(s.get(j), Some(b'0'..=b'9')) {
                j += 1;
            }
        }
        self.i = j;
        let text = &self.text[start..j];
        match number_from_text(text) {
            Some(n) => Ok(Value::Number(n)),
            None => {
                self.i = start;
                Err(self.err(
                    "non-finite-number",
                    format!("number `{text}` is not a finite double"),
                ))
            }
        }
    }
    fn string(&mut self, max: usize) -> Result<String, Diagnostic> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            // fast path: run of plain characters
            while let Some(&b) = self.src.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[start..self.i]);
            if out.len() > max {
                return Err(self.err(
                    "limit-scalar-size",
                    format!("string longer than {max} bytes"),
                ));
            }
            match self.peek() {
                None => return Err(self.err("unexpected-end", "unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.err("unexpected-end", "unterminated string"));
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                if self.src[self.i..].starts_with(b"\\u") {
                                    self.i += 2;
                                    let lo = self.hex4()?;
                                    if !(0xDC00..0xE000).contains(&lo) {
                                        return Err(self.err(
                                            "json-syntax",
                                            "invalid low surrogate in \\u escape",
                                        ));
                                    }
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                } else {
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            match c {
                                Some(c) => out.push(c),
                                None => {
                                    return Err(
                                        self.err("json-syntax", "lone surrogate in \\u escape")
                                    );
                                }
                            }
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.err("json-syntax", "invalid escape sequence"));
                        }
                    }
                }
                Some(_) => {
                    return Err(
                        self.err("json-syntax", "control character in string must be escaped")
                    );
                }
            }
        }
    }
    fn hex4(&mut self) -> Result<u32, Diagnostic> {
        let Some(h) = self.text.get(self.i..self.i + 4) else {
            return Err(self.err("json-syntax", "truncated \\u escape"));
        };
        let v = u32::from_str_radix(h, 16)
            .map_err(|_| self.err("json-syntax", "invalid \\u escape"))?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.err("json-syntax", "invalid \\u escape"));
        }
        self.i += 4;
        Ok(v)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Expect {
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After `{` : a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
    Key,
    /// After a value inside a collection: `,` or the closing bracket.
    CommaOrEnd,
}

/// Parses one JSON text.
pub fn parse(text: &str, limits: &Limits) -> Result<(Value, SourceMap), Diagnostic> {
    let mut lx = Lexer {
        src: text.as_bytes(),
        text,
        i: 0,
        line: 1,
        line_start: 0,
        col_cache: std::cell::Cell::new((0, 0)),
    };
    let mut b = ValueBuilder::new(limits);
    // which closing bracket each open collection expects
    let mut closers: Vec<u8> = Vec::new();
    let mut expect = Expect::Value;
    let with_ptr = |d: Diagnostic, b: &ValueBuilder| {
        if d.pointer.is_empty() {
            d.at(b.current_pointer())
        } else {
            d
        }
    };
    loop {
        lx.skip_ws();
        let pos = lx.pos();
        let Some(c) = lx.peek() else {
            if closers.is_empty() && expect == Expect::CommaOrEnd {
                break;
            }
            return Err(with_ptr(
                lx.err(
                    "unexpected-end",
                    "input ended before the JSON text was complete",
                ),
                &b,
            ));
        };
        match expect {
            Expect::Value | Expect::ValueOrEnd => {
                if expect == Expect::ValueOrEnd && c == b']' {
                    lx.i += 1;
                    closers.pop();
                    b.end()?;
                    expect = Expect::CommaOrEnd;
                    continue;
                }
                match c {
                    b'{' => {
                        lx.i += 1;
                        b.start_object(pos)?;
                        closers.push(b'}');
                        expect = Expect::KeyOrEnd;
                        continue;
                    }
                    b'[' => {
                        lx.i += 1;
                        b.start_array(pos)?;
                        closers.push(b']');
                        expect = Expect::ValueOrEnd;
                        continue;
                    }
                    b'"' => {
                        let s = lx
                            .string(limits.max_scalar_bytes)
                            .map_err(|d| with_ptr(d, &b))?;
                        b.scalar(Value::String(s), pos)?;
                    }
                    b't' => {
                        lx.expect_lit("true").map_err(|d| with_ptr(d, &b))?;
                        b.scalar(Value::Bool(true), pos)?;
                    }
                    b'f' => {
                        lx.expect_lit("false").map_err(|d| with_ptr(d, &b))?;
                        b.scalar(Value::Bool(false), pos)?;
                    }
                    b'n' => {
                        lx.expect_lit("null").map_err(|d| with_ptr(d, &b))?;
                        b.scalar(Value::Null, pos)?;
                    }
                    b'-' | b'0'..=b'9' => {
                        let n = lx.number().map_err(|d| with_ptr(d, &b))?;
                        b.scalar(n, pos)?;
                    }
                    _ => {
                        return Err(with_ptr(
                            lx.err(
                                "json-syntax",
                                format!("unexpected character `{}`", printable(text, lx.i)),
                            ),
                            &b,
                        ));
                    }
                }
                expect = Expect::CommaOrEnd;
            }
            Expect::KeyOrEnd | Expect::Key => {
                if expect == Expect::KeyOrEnd && c == b'}' {
                    lx.i += 1;
                    closers.pop();
                    b.end()?;
                    expect = Expect::CommaOrEnd;
                    continue;
                }
                if c != b'"' {
                    return Err(with_ptr(lx.err("json-syntax", "expected a string key"), &b));
                }
                let k = lx
                    .string(limits.max_scalar_bytes)
                    .map_err(|d| with_ptr(d, &b))?;
                b.key(k, pos)?;
                lx.skip_ws();
                if lx.peek() != Some(b':') {
                    return Err(with_ptr(
                        lx.err("json-syntax", "expected `:` after object key"),
                        &b,
                    ));
                }
                lx.i += 1;
                expect = Expect::Value;
            }
            Expect::CommaOrEnd => {
                let Some(&closer) = closers.last() else {
                    return Err(
                        lx.err("trailing-content", "content after the end of the JSON text")
                    );
                };
                if c == b',' {
                    lx.i += 1;
                    expect = if closer == b'}' {
                        Expect::Key
                    } else {
                        Expect::Value
                    };
                } else if c == closer {
                    lx.i += 1;
                    closers.pop();
                    b.end()?;
                    expect = Expect::CommaOrEnd;
                } else {
                    return Err(with_ptr(
                        lx.err(
                            "json-syntax",
                            format!("expected `,` or `{}`", closer as char),
                        ),
                        &b,
                    ));
                }
            }
        }
    }
    let end = lx.pos();
    b.finish(end)
}

fn printable(text: &str, i: usize) -> String {
    text[i..]
        .chars()
        .next()
        .map_or_else(String::new, |c| c.escape_debug().to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<(Value, SourceMap), Diagnostic> {
        parse(s, &Limits::default())
    }

    /// Errors found while building name the JSON pointer of where they are, however
    /// deep: the member or element being built, or the collection between members.
    #[test]
    fn builder_errors_name_their_pointer() {
        let at = |text: &str, limits: Limits| {
            let d = parse(text, &limits).expect_err("an error");
            (d.code, d.pointer, d.line, d.column)
        };
        let dflt = Limits::default();
        assert_eq!(
            at(r#"{"a": [{"b": 1}, {"c": {"d": 1, "d": 2}}]}"#, dflt),
            ("duplicate-key".into(), "/a/1/c".into(), Some(1), Some(33))
        );
        assert_eq!(
            at(r#"{"a~b": {"c/d": [1, {"e": 1, "e": 1}]}}"#, dflt),
            (
                "duplicate-key".into(),
                "/a~0b/c~1d/1".into(),
                Some(1),
                Some(30)
            )
        );
        let two = Limits {
            max_collection_len: 2,
            ..dflt
        };
        assert_eq!(
            at(r#"{"x": {"a": 1, "b": 2, "c": 3}}"#, two),
            (
                "limit-collection-size".into(),
                "/x/c".into(),
                Some(1),
                Some(29)
            )
        );
        assert_eq!(
            at(r#"{"x": [[1], [1, 2, 3]]}"#, two),
            (
                "limit-collection-size".into(),
                "/x/1/2".into(),
                Some(1),
                Some(20)
            )
        );
        let few = Limits {
            max_total_values: 4,
            ..dflt
        };
        assert_eq!(
            at(r#"{"a": {"b": 1, "c": 2}}"#, few).0,
            "limit-total-values"
        );
        // A complete document decodes whole, members in order, after all the above.
        let (v, _) = parse(r#"{"a": {"b": [1, {"c": 2}], "d": 3}}"#, &dflt).expect("valid");
        assert_eq!(v.to_string(), r#"{"a":{"b":[1,{"c":2}],"d":3}}"#);
    }

    #[test]
    fn parses_and_locates() {
        let text = "{\n  \"a\": [1, 2.5, {\"b\": null}],\n  \"c\": \"x\\u00e9\\ud83d\\ude00\"\n}";
        let (v, map) = p(text).expect("valid");
        assert_eq!(v["c"], "xé😀");
        assert_eq!(v["a"][1], 2.5);
        let pos = map.locate(&v, "/a/2/b").expect("pos");
        assert_eq!((pos.line, pos.column), (2, 18));
        let pos = map.locate(&v, "/c").expect("pos");
        assert_eq!((pos.line, pos.column), (3, 3));
        // missing member → nearest ancestor
        let pos = map.locate(&v, "/a/2/zzz").expect("pos");
        assert_eq!((pos.line, pos.column), (2, 17));
    }

    #[test]
    fn errors_have_positions_and_codes() {
        let e = p("{\"a\": 1,\n \"a\": 2}").unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.line, e.column),
            ("duplicate-key", Some(2), Some(2))
        );
        let e = p("[1, 2").unwrap_err();
        assert_eq!(e.code, "unexpected-end");
        let e = p("{\"a\": tru}").unwrap_err();
        assert_eq!((e.code.as_str(), e.pointer.as_str()), ("json-syntax", "/a"));
        let e = p("1e999").unwrap_err();
        assert_eq!(e.code, "non-finite-number");
        let e = p("{} {}").unwrap_err();
        assert_eq!(e.code, "trailing-content");
        let e = p("[01]").unwrap_err();
        assert_eq!(e.code, "json-syntax");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "[".repeat(100_000);
        let e = p(&s).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.line, e.column),
            ("limit-depth", Some(1), Some(257))
        );
    }

    #[test]
    fn one_long_line_is_linear() {
        // 1M values on one line: column tracking must not recount the line per value
        let mut s = String::from("[");
        for i in 0..1_000_000 {
            if i > 0 {
                s.push(',');
            }
            s.push('0');
        }
        s.push(']');
        let t = std::time::Instant::now();
        let (v, map) = p(&s).unwrap();
        assert_eq!(map.locate(&v, "/999999").map(|p| p.column), Some(2_000_000));
        // generous even for an unoptimized build on a loaded machine; quadratic would take hours
        assert!(t.elapsed() < std::time::Duration::from_secs(60));
    }

    #[test]
    fn limits() {
        let l = Limits {
            max_collection_len: 2,
            ..Limits::default()
        };
        assert_eq!(
            parse("[1,2,3]", &l).unwrap_err().code,
            "limit-collection-size"
        );
        let l = Limits {
            max_scalar_bytes: 3,
            ..Limits::default()
        };
        assert_eq!(parse("\"abcd\"", &l).unwrap_err().code, "limit-scalar-size");
    }
}
