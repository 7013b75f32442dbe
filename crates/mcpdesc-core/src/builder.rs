//! Building the JSON data model and its positions from parse events.
//!
//! The JSON and YAML decoders both feed one [`ValueBuilder`], which enforces the
//! [`Limits`] iteratively (no recursion over input depth anywhere, so hostile nesting
//! cannot overflow the stack), and records a compact [`SourceMap`].

use crate::diagnostic::Diagnostic;
use crate::limits::Limits;
use crate::pointer;
use serde_json::{Map, Number, Value};

/// A 1-based source position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, Copy)]
struct NodeSpan {
    pos: Position,
    /// Number of nodes in this subtree, itself included (pre-order layout).
    size: u32,
}

/// Positions of every value of a decoded document, in pre-order.
///
/// Compact (12 bytes per value) and independent of pointer strings: a lookup walks
/// the decoded value along the pointer, skipping sibling subtrees by their sizes.
/// For an object member the recorded position is the one of its key.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    nodes: Vec<NodeSpan>,
}

impl SourceMap {
    /// Position of the value at `ptr` in `root` (the value this map was built with),
    /// or of its nearest existing ancestor.
    pub fn locate(&self, root: &Value, ptr: &str) -> Option<Position> {
        if self.nodes.is_empty() {
            return None;
        }
        let mut idx = 0usize;
        let mut cur = root;
        for tok in pointer::tokens(ptr) {
            let mut child = idx + 1;
            let next = match cur {
                Value::Object(m) => {
                    let Some(k) = m.keys().position(|key| *key == tok) else {
                        break;
                    };
                    for _ in 0..k {
                        child += self.nodes.get(child)?.size as usize;
                    }
                    &m[&tok]
                }
                Value::Array(a) => {
                    let Ok(k) = tok.parse::<usize>() else { break };
                    let Some(v) = a.get(k) else { break };
                    for _ in 0..k {
                        child += self.nodes.get(child)?.size as usize;
                    }
                    v
                }
                _ => break,
            };
            idx = child;
            cur = next;
        }
        self.nodes.get(idx).map(|n| n.pos)
    }

    /// Fills `line`/`column` of every diagnostic that has none, from its pointer.
    pub fn annotate(&self, root: &Value, diags: &mut [Diagnostic]) {
        for d in diags.iter_mut().filter(|d| d.line.is_none()) {
            if let Some(p) = self.locate(root, &d.pointer) {
                d.line = Some(p.line);
                d.column = Some(p.column);
            }
        }
    }
}

/// An open collection. Its pointer is not stored: [`ValueBuilder::current_pointer`]
/// rebuilds it from the stack (each open array's length, each open object's pending
/// key) only when an error needs it, so decoding allocates no pointer strings.
enum Frame {
    Array {
        items: Vec<Value>,
        node: usize,
    },
    Object {
        /// Members so far. While `pending`, the last one is the member being built: its
        /// key is in place (inserted once, with the duplicate check) and its value a
        /// placeholder until the value ends.
        map: Map<String, Value>,
        pending: bool,
        node: usize,
    },
}

/// Builds a [`Value`] and its [`SourceMap`] from a stream of parse events, enforcing
/// limits. Used by the JSON and YAML decoders so both obey exactly the same rules.
#[derive(Default)]
pub struct ValueBuilder {
    limits: Limits,
    stack: Vec<Frame>,
    nodes: Vec<NodeSpan>,
    done: Option<Value>,
}

impl std::fmt::Debug for ValueBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValueBuilder")
            .field("depth", &self.stack.len())
            .finish()
    }
}

impl ValueBuilder {
    pub fn new(limits: &Limits) -> Self {
        ValueBuilder {
            limits: *limits,
            ..Default::default()
        }
    }

    /// Pointer of the container currently being built (for error messages).
    pub fn current_pointer(&self) -> String {
        let mut ptr = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Array { items, .. } => ptr = pointer::push(&ptr, items.len().to_string()),
                Frame::Object {
                    map, pending: true, ..
                } => {
                    if let Some(k) = map.keys().next_back() {
                        ptr = pointer::push(&ptr, k);
                    }
                }
                // An object between members: its own pointer (only the innermost frame
                // can be in this state; every enclosing one holds the member being built).
                Frame::Object { pending: false, .. } => {}
            }
        }
        ptr
    }

    fn err(&self, code: &str, msg: String, pos: Position) -> Diagnostic {
        Diagnostic::error(code, msg)
            .at(self.current_pointer())
            .with_position(pos.line, pos.column)
    }

    fn new_node(&mut self, pos: Position) -> Result<usize, Diagnostic> {
        if self.nodes.len() >= self.limits.max_total_values {
            return Err(self.err(
                "limit-total-values",
                format!(
                    "document has more than {} values",
                    self.limits.max_total_values
                ),
                pos,
            ));
        }
        if self.done.is_some() {
            return Err(self.err(
                "trailing-content",
                "content after the end of the document".into(),
                pos,
            ));
        }
        // an array element or member value: check collection size
        if let Some(f) = self.stack.last() {
            let len = match f {
                Frame::Array { items, .. } => items.len(),
                // The member being built is not counted yet.
                Frame::Object { map, pending, .. } => map.len() - usize::from(*pending),
            };
            if len >= self.limits.max_collection_len {
                return Err(self.err(
                    "limit-collection-size",
                    format!(
                        "collection has more than {} entries",
                        self.limits.max_collection_len
                    ),
                    pos,
                ));
            }
        }
        // object members are positioned at their key: the key event already created the node
        if let Some(Frame::Object { pending: true, .. }) = self.stack.last() {
            return Ok(self.nodes.len() - 1);
        }
        self.nodes.push(NodeSpan { pos, size: 1 });
        Ok(self.nodes.len() - 1)
    }

    fn check_scalar_len(&self, len: usize, pos: Position) -> Result<(), Diagnostic> {
        if len > self.limits.max_scalar_bytes {
            return Err(self.err(
                "limit-scalar-size",
                format!(
                    "string of {len} bytes is over the limit of {} bytes",
                    self.limits.max_scalar_bytes
                ),
                pos,
            ));
        }
        Ok(())
    }

    /// An object key at `pos`. Duplicate keys are an error (§15.3.2; JSON too).
    pub fn key(&mut self, key: String, pos: Position) -> Result<(), Diagnostic> {
        self.check_scalar_len(key.len(), pos)?;
        let over = self.nodes.len() >= self.limits.max_total_values;
        // One hash lookup: the duplicate check and the insertion are the same entry.
        let inserted = match self.stack.last_mut() {
            Some(Frame::Object {
                map,
                pending: pending @ false,
                ..
            }) => match map.entry(key) {
                serde_json::map::Entry::Occupied(o) => Err(o.key().clone()),
                serde_json::map::Entry::Vacant(v) => {
                    if !over {
                        v.insert(Value::Null);
                        *pending = true;
                    }
                    Ok(())
                }
            },
            _ => {
                return Err(self.err("internal-parser-state", "key outside an object".into(), pos));
            }
        };
        if let Err(key) = inserted {
            return Err(self.err(
                "duplicate-key",
                format!("duplicate mapping key `{key}`"),
                pos,
            ));
        }
        if over {
            return Err(self.err("limit-total-values", "too many values".into(), pos));
        }
        self.nodes.push(NodeSpan { pos, size: 1 });
        Ok(())
    }

    /// A scalar value.
    pub fn scalar(&mut self, v: Value, pos: Position) -> Result<(), Diagnostic> {
        if let Value::String(s) = &v {
            self.check_scalar_len(s.len(), pos)?;
        }
        self.new_node(pos)?;
        self.attach(v);
        Ok(())
    }

    pub fn start_array(&mut self, pos: Position) -> Result<(), Diagnostic> {
        self.check_depth(pos)?;
        let node = self.new_node(pos)?;
        self.stack.push(Frame::Array {
            items: Vec::new(),
            node,
        });
        Ok(())
    }

    pub fn start_object(&mut self, pos: Position) -> Result<(), Diagnostic> {
        self.check_depth(pos)?;
        let node = self.new_node(pos)?;
        self.stack.push(Frame::Object {
            map: Map::new(),
            pending: false,
            node,
        });
        Ok(())
    }

    fn check_depth(&self, pos: Position) -> Result<(), Diagnostic> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.err(
                "limit-depth",
                format!("nesting deeper than {} levels", self.limits.max_depth),
                pos,
            ));
        }
        Ok(())
    }

    /// Ends the innermost array or object.
    pub fn end(&mut self) -> Result<(), Diagnostic> {
        let total = self.nodes.len();
        let (v, node) = match self.stack.pop() {
            Some(Frame::Array { items, node, .. }) => (Value::Array(items), node),
            Some(Frame::Object { map, node, .. }) => (Value::Object(map), node),
            None => {
                return Err(Diagnostic::error(
                    "internal-parser-state",
                    "unbalanced end of collection",
                ));
            }
        };
        self.nodes[node].size = (total - node) as u32;
        self.attach(v);
        Ok(())
    }

    fn attach(&mut self, v: Value) {
        match self.stack.last_mut() {
            None => self.done = Some(v),
            Some(Frame::Array { items, .. }) => items.push(v),
            Some(Frame::Object { map, pending, .. }) => {
                if std::mem::take(pending) {
                    if let Some(slot) = map.values_mut().next_back() {
                        *slot = v;
                    }
                }
            }
        }
    }

    /// Depth of open collections.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The finished value, or an error if the input ended early.
    pub fn finish(self, end: Position) -> Result<(Value, SourceMap), Diagnostic> {
        match self.done {
            Some(v) if self.stack.is_empty() => Ok((v, SourceMap { nodes: self.nodes })),
            _ => Err(Diagnostic::error(
                "unexpected-end",
                "input ended before the document was complete",
            )
            .with_position(end.line, end.column)),
        }
    }
}

/// Makes a JSON number from its text (`-?int(.frac)?(e exp)?`). Integers that fit
/// i64/u64 stay integers; everything else becomes the nearest f64. `None` if not finite.
pub fn number_from_text(text: &str) -> Option<Number> {
    let is_int = !text.contains(['.', 'e', 'E']);
    if is_int {
        if let Ok(i) = text.parse::<i64>() {
            return Some(Number::from(i));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Some(Number::from(u));
        }
    }
    text.parse::<f64>().ok().and_then(Number::from_f64)
}
