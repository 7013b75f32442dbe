//! Pretty JSON of the output document, written member by member and tool by tool.
//!
//! The bytes equal `serde_json::to_writer_pretty` of the whole document plus a final
//! newline (two-space indent, `": "` after keys), but the document never exists whole:
//! each tool is serialized on its own (in parallel) with [`tool_fragment`], and
//! [`PrettyDoc`] writes the skeleton's members around the tools.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{Arc, PoisonError, RwLock};

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
        newline(w, self.level, self.padding)
    }
}

/// A line break and the indentation of `level` levels (two spaces each), counted in
/// `padding`.
fn newline(w: &mut (impl Write + ?Sized), level: usize, padding: &mut usize) -> io::Result<()> {
    /// A newline and the indentation of up to 63 levels, written in one call (the
    /// import writes a line break per member of every tool).
    const LINE: [u8; 127] = {
        let mut line = [b' '; 127];
        line[0] = b'\n';
        line
    };
    let n = level * 2;
    *padding += 1 + n;
    if let Some(line) = LINE.get(..1 + n) {
        return w.write_all(line);
    }
    w.write_all(b"\n")?;
    let mut n = n;
    while n > 0 {
        let k = n.min(LINE.len() - 1);
        w.write_all(&LINE[1..=k])?;
        n -= k;
    }
    Ok(())
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
/// continuation lines indented by two levels), and the length of the tool's compact
/// JSON (the bytes of `serde_json::to_writer`): the fragment's length less the
/// whitespace it added. The members of its schemas' `$defs` that `defs` holds are
/// copied from there (the same bytes), the others are added to it.
pub fn tool_fragment(tool: &Value, defs: &DefTexts) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(1024);
    // Writing into a Vec cannot fail; a serializer error (a non-string key) is
    // impossible for a `Value`.
    let padding = write_tool(&mut out, tool, 2, defs).unwrap_or(0);
    let compact = out.len() - padding.min(out.len());
    (out, compact)
}

/// A tool `level` deep, as [`write_nested`] writes it, with the members of its
/// `inputSchema`'s and `outputSchema`'s `$defs` from `defs`.
fn write_tool(out: &mut Vec<u8>, tool: &Value, level: usize, defs: &DefTexts) -> io::Result<usize> {
    let Value::Object(members) = tool else {
        return write_nested(out, tool, level);
    };
    write_members(
        out,
        members,
        level,
        &mut |out, key, value, at| match value {
            Value::Object(schema) if key == "inputSchema" || key == "outputSchema" => {
                write_members(out, schema, at, &mut |out, key, value, at| match value {
                    Value::Object(named) if key == "$defs" => {
                        write_members(out, named, at, &mut |out, name, def, at| {
                            defs.write(out, name, def, at)
                        })
                    }
                    _ => write_nested(out, value, at),
                })
            }
            _ => write_nested(out, value, at),
        },
    )
}

/// How an object member's value is written: `(out, key, value, level)` → the
/// whitespace written.
type WriteMember<'a> = dyn FnMut(&mut Vec<u8>, &str, &Value, usize) -> io::Result<usize> + 'a;

/// An object `level` deep in serde_json's pretty layout (`{}` when empty, else each
/// member on its own line one level deeper, `"key": value`), each value written by
/// `member`; returns the whitespace written.
fn write_members(
    out: &mut Vec<u8>,
    members: &Map<String, Value>,
    level: usize,
    member: &mut WriteMember<'_>,
) -> io::Result<usize> {
    if members.is_empty() {
        out.extend_from_slice(b"{}");
        return Ok(0);
    }
    let mut padding = 0;
    out.push(b'{');
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        newline(out, level + 1, &mut padding)?;
        serde_json::to_writer(&mut *out, key).map_err(io::Error::from)?;
        out.extend_from_slice(b": ");
        padding += 1 + member(out, key, value, level + 1)?;
    }
    newline(out, level, &mut padding)?;
    out.push(b'}');
    Ok(padding)
}

/// The pretty texts of the `$defs` members one import has written, by name: a
/// component schema that many tools carry (GitHub: 5,028 members, 461 distinct) is
/// serialized once and copied after. A text is reused only for a member that
/// serializes to the same bytes ([`same_text`]) at the same depth, so the output is
/// what serializing each member gives. At most [`DefTexts::VARIANTS`] texts per name.
#[derive(Debug, Default)]
pub struct DefTexts {
    by_name: RwLock<HashMap<Box<str>, Vec<Arc<DefText>>>>,
}

/// One member's pretty text at one depth.
#[derive(Debug)]
struct DefText {
    value: Value,
    level: usize,
    text: Box<[u8]>,
    padding: usize,
}

impl DefTexts {
    /// Texts kept per member name (the two directions of a component, and a pruned
    /// copy where a tool's budget cut a reference).
    const VARIANTS: usize = 4;

    /// Writes the member `name` = `def`, `level` deep; returns the whitespace written.
    fn write(&self, out: &mut Vec<u8>, name: &str, def: &Value, level: usize) -> io::Result<usize> {
        let known = self
            .by_name
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
            .unwrap_or_default();
        if let Some(t) = known
            .iter()
            .find(|t| t.level == level && same_text(&t.value, def))
        {
            out.extend_from_slice(&t.text);
            return Ok(t.padding);
        }
        let start = out.len();
        let padding = write_nested(out, def, level)?;
        if known.len() < Self::VARIANTS {
            let text = Arc::new(DefText {
                value: def.clone(),
                level,
                text: out[start..].into(),
                padding,
            });
            let mut map = self.by_name.write().unwrap_or_else(PoisonError::into_inner);
            let texts = map.entry(name.into()).or_default();
            if texts.len() < Self::VARIANTS {
                texts.push(text);
            }
        }
        Ok(padding)
    }
}

/// Whether `a` and `b` serialize to the same bytes: the same members in the same
/// order, the same numbers as written (`1` is not `1.0`), the same strings. Not
/// JSON equality, which ignores member order and number spelling.
fn same_text(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_text(vx, vy))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(vx, vy)| same_text(vx, vy))
        }
        _ => a == b,
    }
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
        let defs = DefTexts::default();
        w.head(skeleton).unwrap();
        if let Some(Value::Array(tools)) = skeleton.get("tools") {
            for t in tools {
                let (fragment, compact) = tool_fragment(t, &defs);
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
        // Deeper than one run of the indentation buffer (63 levels, 126 spaces), more
        // than twice over: lines at every depth up to 142 levels.
        let mut deep = json!({"leaf": [1, {}]});
        for i in 0..140 {
            deep = if i % 2 == 0 {
                json!([deep, "s"])
            } else {
                json!({"k": deep})
            };
        }
        same_as_serde(json!({"tools": [deep.clone()], "after": deep}));
    }
}
