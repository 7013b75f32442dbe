//! Where the description an import produces goes: [`crate::import`] hands it to a
//! [`Sink`] piece by piece, as ripgrep's `Searcher` hands matches to its `Sink`.
//!
//! An import knows the document without its tools (the *skeleton*) before it converts
//! any operation. It gives the sink the skeleton ([`Sink::begin`]), then each
//! operation's tool objects in operation order ([`Sink::tools`]), then the skeleton
//! again ([`Sink::end`]), so a sink can write the members before `tools`, the tools as
//! they come, and the members after them, and the document never exists whole. The
//! expensive part of a sink's work (serializing a tool) runs in parallel on the
//! import's worker threads ([`Sink::prepare`]); the calls on the sink itself come in
//! order, one at a time.
//!
//! The sinks here: [`JsonSink`] (pretty JSON, the bytes of `serde_json`'s pretty
//! printer on the whole document plus a final newline), [`YamlSink`] (block YAML, the
//! bytes of [`mcpdesc_core::emit::to_yaml`] on the whole document), [`ValueSink`] (the
//! whole document as a value, for library users and tests) and [`DiscardSink`]
//! (nothing kept: the verdict and the counts are what is wanted, corpus runs).
//!
//! The verdict comes after the bytes: a writing sink has written the whole document
//! when [`crate::import`] returns, and when its `stats.conforming` is false the caller
//! discards it (the CLI writes to a temporary file and renames it only then).

use crate::pretty::{self, PrettyDoc};
use mcpdesc_core::yaml::pieces;
use serde_json::{Map, Value};
use std::io::{self, Write};

/// Receives the description of an import, skeleton first, then the tools in order,
/// then the skeleton again (see the [module docs](self)).
///
/// `begin` and `end` get the same skeleton: the document's root members in order, with
/// an empty `tools` array where the tools go (no `tools` member when the import has no
/// tools). Every operation gives at least one tool object. An error returned by a
/// method stops the import, which returns it as [`crate::ImportError::Write`].
pub trait Sink: Send {
    /// One operation's tool objects as this sink wants them (made by [`Sink::prepare`]).
    type Prepared: Send;

    /// Prepares one operation's tool objects; runs on the import's worker threads, in
    /// parallel with the other operations and with the calls on the sink.
    fn prepare(tools: Vec<Value>) -> Self::Prepared;

    /// Before the first tool.
    fn begin(&mut self, skeleton: &Map<String, Value>) -> io::Result<()>;

    /// One operation's tools, in operation order.
    fn tools(&mut self, tools: Self::Prepared) -> io::Result<()>;

    /// After the last tool (and after the output validation).
    fn end(&mut self, skeleton: Map<String, Value>) -> io::Result<()>;
}

/// Writes the description as pretty JSON (two-space indent, `": "` after keys, final
/// newline): the bytes of `serde_json::to_writer_pretty` of the whole document plus
/// `\n`. Tools are serialized on the worker threads; `W` should be buffered.
pub struct JsonSink<W> {
    doc: PrettyDoc<W>,
}

impl<W> std::fmt::Debug for JsonSink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonSink").finish_non_exhaustive()
    }
}

impl<W: Write + Send> JsonSink<W> {
    pub fn new(out: W) -> Self {
        JsonSink {
            doc: PrettyDoc::new(out),
        }
    }

    /// The writer (flushed by [`Sink::end`]).
    pub fn into_inner(self) -> W {
        self.doc.into_inner()
    }
}

impl<W: Write + Send> Sink for JsonSink<W> {
    type Prepared = Vec<Vec<u8>>;

    fn prepare(tools: Vec<Value>) -> Self::Prepared {
        tools.iter().map(pretty::tool_fragment).collect()
    }

    fn begin(&mut self, skeleton: &Map<String, Value>) -> io::Result<()> {
        self.doc.head(skeleton)
    }

    fn tools(&mut self, fragments: Self::Prepared) -> io::Result<()> {
        fragments.iter().try_for_each(|f| self.doc.tool(f))
    }

    fn end(&mut self, skeleton: Map<String, Value>) -> io::Result<()> {
        self.doc.tail(&skeleton)
    }
}

/// Writes the description as block YAML in the restricted profile: the bytes of
/// [`mcpdesc_core::emit::to_yaml`] of the whole document. Tools are emitted on the
/// worker threads; `W` should be buffered.
pub struct YamlSink<W> {
    out: W,
    /// Root members written, and tools written under `tools`.
    members: usize,
    tools: usize,
}

impl<W> std::fmt::Debug for YamlSink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("YamlSink")
            .field("members", &self.members)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl<W: Write + Send> YamlSink<W> {
    pub fn new(out: W) -> Self {
        YamlSink {
            out,
            members: 0,
            tools: 0,
        }
    }

    /// The writer (flushed by [`Sink::end`]).
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write + Send> Sink for YamlSink<W> {
    type Prepared = Vec<String>;

    fn prepare(tools: Vec<Value>) -> Self::Prepared {
        tools.iter().map(pieces::root_seq_item).collect()
    }

    fn begin(&mut self, skeleton: &Map<String, Value>) -> io::Result<()> {
        for (k, v) in skeleton {
            self.members += 1;
            if k == "tools" {
                return self.out.write_all(pieces::root_key(k).as_bytes());
            }
            self.out.write_all(pieces::root_member(k, v).as_bytes())?;
        }
        Ok(())
    }

    fn tools(&mut self, items: Self::Prepared) -> io::Result<()> {
        for item in &items {
            if self.tools == 0 {
                self.out.write_all(b"\n")?;
            }
            self.tools += 1;
            self.out.write_all(item.as_bytes())?;
        }
        Ok(())
    }

    fn end(&mut self, skeleton: Map<String, Value>) -> io::Result<()> {
        if let Some(at) = skeleton.keys().position(|k| k == "tools") {
            if self.tools == 0 {
                self.out.write_all(pieces::EMPTY_SEQ.as_bytes())?;
            }
            for (k, v) in skeleton.iter().skip(at + 1) {
                self.members += 1;
                self.out.write_all(pieces::root_member(k, v).as_bytes())?;
            }
        }
        if self.members == 0 {
            self.out.write_all(b"{}\n")?;
        }
        self.out.flush()
    }
}

/// Keeps the whole description as a value (keys in spec-table order): for library
/// users and tests. The document is there after a successful [`crate::import`].
#[derive(Debug, Default)]
pub struct ValueSink {
    tools: Vec<Value>,
    document: Option<Value>,
}

impl ValueSink {
    pub fn new() -> Self {
        ValueSink::default()
    }

    /// The imported document; `None` unless [`crate::import`] succeeded with this sink.
    pub fn into_value(self) -> Option<Value> {
        self.document
    }
}

impl Sink for ValueSink {
    type Prepared = Vec<Value>;

    fn prepare(tools: Vec<Value>) -> Self::Prepared {
        tools
    }

    fn begin(&mut self, _skeleton: &Map<String, Value>) -> io::Result<()> {
        Ok(())
    }

    fn tools(&mut self, tools: Self::Prepared) -> io::Result<()> {
        self.tools.extend(tools);
        Ok(())
    }

    fn end(&mut self, mut skeleton: Map<String, Value>) -> io::Result<()> {
        if let Some(slot) = skeleton.get_mut("tools") {
            *slot = Value::Array(std::mem::take(&mut self.tools));
        }
        self.document = Some(Value::Object(skeleton));
        Ok(())
    }
}

/// Keeps and writes nothing: the diagnostics and counts of the import are what is
/// wanted (corpus runs).
#[derive(Debug, Default, Clone, Copy)]
pub struct DiscardSink;

impl Sink for DiscardSink {
    type Prepared = ();

    fn prepare(_tools: Vec<Value>) -> Self::Prepared {}

    fn begin(&mut self, _skeleton: &Map<String, Value>) -> io::Result<()> {
        Ok(())
    }

    fn tools(&mut self, _tools: Self::Prepared) -> io::Result<()> {
        Ok(())
    }

    fn end(&mut self, _skeleton: Map<String, Value>) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Feeds `doc` to a sink the way an import does, `per_op` tools per call.
    fn feed<S: Sink>(sink: &mut S, doc: &Value, per_op: usize) {
        let Value::Object(whole) = doc else {
            unreachable!()
        };
        let mut skeleton = whole.clone();
        let tools = match skeleton.get_mut("tools") {
            Some(Value::Array(t)) => std::mem::take(t),
            _ => Vec::new(),
        };
        sink.begin(&skeleton).unwrap();
        for chunk in tools.chunks(per_op.max(1)) {
            sink.tools(S::prepare(chunk.to_vec())).unwrap();
        }
        sink.end(skeleton).unwrap();
    }

    fn docs() -> Vec<Value> {
        vec![
            json!({
                "$schema": "https://x.example/s", "info": {"name": "a\nb: \"q\"", "x": []},
                "tools": [
                    {"name": "t", "description": "line one\nline two\n", "inputSchema": {"type": "object"}},
                    {"name": "u", "inputSchema": {"type": "object", "properties": {}}},
                    {"name": "v", "x": [[1, []], {}]}
                ],
                "tags": [{"name": "yes"}], "x-after": {"k": "v"}
            }),
            json!({"a": 1, "tools": [{"name": "only"}]}),
            json!({"tools": [{"name": "first"}], "z": []}),
            json!({"a": {"b": [true]}}),
            json!({}),
        ]
    }

    /// The oracles are the whole-document emitters.
    #[test]
    fn writing_sinks_equal_the_whole_document_emitters() {
        for doc in docs() {
            for per_op in [1, 2] {
                let mut json = JsonSink::new(Vec::new());
                feed(&mut json, &doc, per_op);
                let mut want = serde_json::to_vec_pretty(&doc).unwrap();
                want.push(b'\n');
                assert_eq!(
                    String::from_utf8(json.into_inner()).unwrap(),
                    String::from_utf8(want).unwrap()
                );
                let mut yaml = YamlSink::new(Vec::new());
                feed(&mut yaml, &doc, per_op);
                assert_eq!(
                    String::from_utf8(yaml.into_inner()).unwrap(),
                    mcpdesc_core::emit::to_yaml(&doc)
                );
            }
        }
    }

    #[test]
    fn an_empty_tools_member_is_written_as_an_empty_sequence() {
        let doc = json!({"a": 1, "tools": [], "b": 2});
        let mut yaml = YamlSink::new(Vec::new());
        feed(&mut yaml, &doc, 1);
        assert_eq!(
            String::from_utf8(yaml.into_inner()).unwrap(),
            "a: 1\ntools: []\nb: 2\n"
        );
        let mut json = JsonSink::new(Vec::new());
        feed(&mut json, &doc, 1);
        assert_eq!(
            String::from_utf8(json.into_inner()).unwrap(),
            "{\n  \"a\": 1,\n  \"tools\": [],\n  \"b\": 2\n}\n"
        );
    }

    #[test]
    fn the_value_sink_rebuilds_the_document_and_discard_keeps_nothing() {
        for doc in docs() {
            let mut v = ValueSink::new();
            feed(&mut v, &doc, 2);
            assert_eq!(v.into_value(), Some(doc.clone()));
            feed(&mut DiscardSink, &doc, 1);
        }
        assert_eq!(ValueSink::new().into_value(), None);
    }
}
