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

    /// [`Sink::prepare`], and the sizes `measure` gives of the tools it finds over
    /// `budget` bytes, in order; `measure` must not exceed a tool's compact JSON length
    /// (the bytes of `serde_json::to_writer`). By default every tool is measured; a sink
    /// whose prepared form bounds that length for free measures only the tools whose
    /// bound exceeds `budget` (the others cannot be over it). Runs where `prepare` runs.
    fn prepare_measured(
        tools: Vec<Value>,
        budget: usize,
        measure: &dyn Fn(&Value) -> usize,
    ) -> (Self::Prepared, Vec<usize>) {
        let over = tools.iter().map(measure).filter(|&n| n > budget).collect();
        (Self::prepare(tools), over)
    }

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

    /// A tool's fragment is its compact JSON with whitespace added (newlines,
    /// indentation, a space after each `:`; strings and numbers written alike), and
    /// writing it counts that whitespace, so the compact length comes for free: only
    /// tools whose compact JSON is over `budget` are measured.
    fn prepare_measured(
        tools: Vec<Value>,
        budget: usize,
        measure: &dyn Fn(&Value) -> usize,
    ) -> (Self::Prepared, Vec<usize>) {
        let mut fragments = Vec::with_capacity(tools.len());
        let mut over = Vec::new();
        for tool in &tools {
            let (fragment, compact) = pretty::tool_fragment_sized(tool);
            fragments.push(fragment);
            if compact > budget {
                over.push(measure(tool));
            }
        }
        over.retain(|&n| n > budget);
        (fragments, over)
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

    /// Tools around a budget of 100 bytes; the compact texts are written by hand.
    fn sized_tools() -> Vec<(Value, &'static str)> {
        vec![
            (
                json!({"name": "t", "inputSchema": {"type": "object"}}),
                r#"{"name":"t","inputSchema":{"type":"object"}}"#,
            ),
            (
                // 100 bytes compact: at the budget, not over it.
                json!({"name": "at_budget_1", "description": "é\n\"q\" …", "inputSchema": {"type": "object", "properties": {}}}),
                r#"{"name":"at_budget_1","description":"é\n\"q\" …","inputSchema":{"type":"object","properties":{}}}"#,
            ),
            (
                json!({"name": "big", "description": "description long enough to be over a hundred bytes", "inputSchema": {"type": "object", "required": [], "xy": [1, 2.5, null, true]}}),
                r#"{"name":"big","description":"description long enough to be over a hundred bytes","inputSchema":{"type":"object","required":[],"xy":[1,2.5,null,true]}}"#,
            ),
        ]
    }

    /// A tool's pretty fragment is its compact text plus the whitespace it counts, and
    /// the compact text bounds the wire size, which drops members (here `tags`, `x-mcpdesc-openapi`, the icons'
    /// extensions) and never adds any.
    #[test]
    fn a_fragment_bounds_the_compact_text_and_the_wire_size() {
        let mut tools = sized_tools();
        tools.push((
            json!({"name": "n", "tags": ["a"], "icons": [{"src": "https://x.example/i.png", "x-k": 1}], "inputSchema": {"type": "object"}, "x-mcpdesc-openapi": {"method": "get"}}),
            r#"{"name":"n","tags":["a"],"icons":[{"src":"https://x.example/i.png","x-k":1}],"inputSchema":{"type":"object"},"x-mcpdesc-openapi":{"method":"get"}}"#,
        ));
        for (tool, compact) in &tools {
            assert_eq!(serde_json::to_string(tool).unwrap(), *compact);
            let (fragment, counted) = crate::pretty::tool_fragment_sized(tool);
            assert_eq!(counted, compact.len(), "{compact}");
            let wire = crate::wire_size(tool);
            assert!(
                fragment.len() >= compact.len() && compact.len() >= wire,
                "{compact}: fragment {}, wire {wire}",
                fragment.len()
            );
        }
        // Everything but `tags` and `x-mcpdesc-openapi` is on the wire, and the icon
        // loses its `x-k`.
        let n = r#"{"name":"n","icons":[{"src":"https://x.example/i.png"}],"inputSchema":{"type":"object"}}"#;
        assert_eq!(crate::wire_size(&tools[3].0), n.len());
    }

    /// The JSON sink measures only tools whose compact text is over the budget, and finds
    /// what measuring every tool finds: the tools strictly over it, in order.
    #[test]
    fn the_json_sink_measures_the_tools_over_the_budget() {
        let (tools, compact): (Vec<Value>, Vec<&str>) = sized_tools().into_iter().unzip();
        assert_eq!(
            compact.iter().map(|c| c.len()).collect::<Vec<_>>()[1..],
            [100, 150]
        );
        let measure = |t: &Value| serde_json::to_vec(t).unwrap().len();
        for budget in [0, 44, 99, 100, 149, 150, 1000] {
            let want: Vec<usize> = compact
                .iter()
                .map(|c| c.len())
                .filter(|&n| n > budget)
                .collect();
            let (fragments, over) =
                JsonSink::<Vec<u8>>::prepare_measured(tools.clone(), budget, &measure);
            assert_eq!(over, want, "budget {budget}");
            assert_eq!(fragments, JsonSink::<Vec<u8>>::prepare(tools.clone()));
            let (values, over) = ValueSink::prepare_measured(tools.clone(), budget, &measure);
            assert_eq!(over, want, "budget {budget}");
            assert_eq!(values, tools);
        }
    }

    /// A tool whose compact JSON is over the budget but whose measured (wire) size is
    /// exactly the budget is not over it: only sizes strictly above the budget count.
    #[test]
    fn a_measured_size_at_the_budget_is_not_over_it() {
        let tools: Vec<Value> = sized_tools().into_iter().map(|(t, _)| t).collect();
        let at_budget = |_: &Value| 100;
        let (_, over) = JsonSink::<Vec<u8>>::prepare_measured(tools.clone(), 100, &at_budget);
        assert_eq!(over, Vec::<usize>::new());
        let (_, over) = JsonSink::<Vec<u8>>::prepare_measured(tools, 99, &at_budget);
        assert_eq!(
            over,
            vec![100, 100],
            "the 100- and 150-byte tools; 100 > 99"
        );
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
