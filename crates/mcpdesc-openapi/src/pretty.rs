//! Pretty JSON of the output document, written member by member and tool by tool.
//!
//! The bytes equal `serde_json::to_writer_pretty` of the whole document plus a final
//! newline (two-space indent, `": "` after keys), but the document never exists whole:
//! each tool is serialized on its own (in parallel) with [`tool_fragment`], and
//! [`PrettyDoc`] writes the skeleton's members around the tools.

use serde_json::{Map, Value};
use std::io::{self, Write};

/// serde_json's pretty layout (two-space indent, `": "` after keys, `[]`/`{}` for
/// empty containers) for a value that starts `base` levels deep. serde_json's own
/// `PrettyFormatter` always starts at level 0 and cannot be told otherwise.
struct Nested<'a> {
    level: usize,
    has_value: bool,
    /// Whitespace written so far (newlines, indentation, the space after each `:`):
    /// the bytes the pretty text has beyond the compact one.
    padding: &'a mut usize,
}

impl Nested<'_> {
    fn newline(&mut self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        const SPACES: &[u8; 64] = &[b' '; 64];
        w.write_all(b"\n")?;
        let mut n = self.level * 2;
        *self.padding += 1 + n;
        while n > 0 {
            let k = n.min(SPACES.len());
            w.write_all(&SPACES[..k])?;
            n -= k;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for Nested<'_> {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.newline(w)?;
        }
        w.write_all(b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.newline(w)?;
        }
        w.write_all(b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        *self.padding += 1;
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `value` pretty-printed as it appears `level` levels deep; returns the whitespace
/// written (the pretty text's length beyond the compact one).
fn write_nested(out: &mut (impl Write + ?Sized), value: &Value, level: usize) -> io::Result<usize> {
    use serde::Serialize as _;
    let mut padding = 0;
    let f = Nested {
        level,
        has_value: false,
        padding: &mut padding,
    };
    let mut ser = serde_json::Serializer::with_formatter(out, f);
    value.serialize(&mut ser).map_err(io::Error::from)?;
    Ok(padding)
}

/// One member of the `tools` array, as it appears in the pretty document (its
/// continuation lines indented by two levels).
pub fn tool_fragment(tool: &Value) -> Vec<u8> {
    tool_fragment_sized(tool).0
}

/// [`tool_fragment`], and the length of the tool's compact JSON (the bytes of
/// `serde_json::to_writer`): the fragment's length less the whitespace it added.
pub fn tool_fragment_sized(tool: &Value) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(1024);
    // Writing into a Vec cannot fail; a serializer error (a non-string key) is
    // impossible for a `Value`.
    let padding = write_nested(&mut out, tool, 2).unwrap_or(0);
    let compact = out.len() - padding.min(out.len());
    (out, compact)
}

/// The document around its tools: members before `tools`, the tools, members after.
pub struct PrettyDoc<W> {
    out: W,
    members: usize,
    tools: usize,
}

impl<W: Write> PrettyDoc<W> {
    pub fn new(out: W) -> Self {
        PrettyDoc {
            out,
            members: 0,
            tools: 0,
        }
    }

    /// Writes the skeleton's members from the start up to and including `"tools": [`
    /// (all of them when it has no `tools`).
    pub fn head(&mut self, skeleton: &Map<String, Value>) -> io::Result<()> {
        self.out.write_all(b"{")?;
        for (k, v) in skeleton {
            self.key(k)?;
            if k == "tools" {
                return self.out.write_all(b"[");
            }
            write_nested(&mut self.out, v, 1)?;
        }
        Ok(())
    }

    /// One tool fragment (from [`tool_fragment`]).
    pub fn tool(&mut self, fragment: &[u8]) -> io::Result<()> {
        self.out.write_all(if self.tools == 0 {
            b"\n    "
        } else {
            b",\n    "
        })?;
        self.tools += 1;
        self.out.write_all(fragment)
    }

    /// Closes the tools (if the skeleton has them), writes the members after them and
    /// closes the document with a final newline.
    pub fn tail(&mut self, skeleton: &Map<String, Value>) -> io::Result<()> {
        if let Some(at) = skeleton.keys().position(|k| k == "tools") {
            self.out
                .write_all(if self.tools == 0 { b"]" } else { b"\n  ]" })?;
            for (k, v) in skeleton.iter().skip(at + 1) {
                self.key(k)?;
                write_nested(&mut self.out, v, 1)?;
            }
        }
        self.out
            .write_all(if self.members == 0 { b"}\n" } else { b"\n}\n" })?;
        self.out.flush()
    }

    /// The writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn key(&mut self, k: &str) -> io::Result<()> {
        self.out
            .write_all(if self.members == 0 { b"\n  " } else { b",\n  " })?;
        self.members += 1;
        serde_json::to_writer(&mut self.out, k).map_err(io::Error::from)?;
        self.out.write_all(b": ")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The oracle is serde_json's own pretty printer on the whole document.
    fn same_as_serde(doc: Value) {
        let Value::Object(skeleton) = &doc else {
            unreachable!()
        };
        let mut got = Vec::new();
        let mut w = PrettyDoc::new(&mut got);
        w.head(skeleton).unwrap();
        if let Some(Value::Array(tools)) = skeleton.get("tools") {
            for t in tools {
                let (fragment, compact) = tool_fragment_sized(t);
                assert_eq!(compact, serde_json::to_vec(t).unwrap().len());
                w.tool(&fragment).unwrap();
            }
        }
        w.tail(skeleton).unwrap();
        let mut want = serde_json::to_vec_pretty(&doc).unwrap();
        want.push(b'\n');
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }

    #[test]
    fn pieces_equal_the_whole_pretty_document() {
        same_as_serde(json!({
            "$schema": "https://x.example/s",
            "info": {"name": "a\nb \"q\" \u{2028}", "contact": {}},
            "tools": [
                {"name": "t", "inputSchema": {"type": "object", "properties": {}, "required": []},
                 "description": "line one\nline two", "x": [1, [2, {"k\n": null}], []]},
                {"name": "u", "inputSchema": {"type": "object"}}
            ],
            "tags": [{"name": "z"}],
            "x-empty": []
        }));
        same_as_serde(json!({"tools": []}));
        same_as_serde(json!({"a": 1, "tools": [{}]}));
        same_as_serde(json!({"a": {"b": {"c": [true]}}}));
        same_as_serde(json!({}));
        // Deeper than one run of the indentation buffer (64 spaces).
        let mut deep = json!({"leaf": [1, {}]});
        for i in 0..40 {
            deep = if i % 2 == 0 {
                json!([deep, "s"])
            } else {
                json!({"k": deep})
            };
        }
        same_as_serde(json!({"tools": [deep.clone()], "after": deep}));
    }
}
