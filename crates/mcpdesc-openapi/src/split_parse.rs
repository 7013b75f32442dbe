//! A large JSON document decoded on the rayon pool: exactly
//! `serde_json::from_slice::<Value>`, or nothing.
//!
//! The spec's decode was the longest serial step of an import (the GitHub spec: 376 M
//! instructions on the main thread). Here one serial pass checks the grammar of the top
//! few levels of objects (the root, then members such as `paths` and `components` whose
//! text is at least [`SPLIT_OBJECT_BYTES`]) and finds the byte range of every other
//! value; those values ("leaves") are parsed by serde_json on the pool, in batches handed
//! out while the scan goes on, and the split objects are assembled around them in
//! document order.
//!
//! The result is the serial parse's, or [`None`] and the caller parses serially:
//! - between split members the grammar is checked exactly as serde_json reads it
//!   (whitespace is space, tab, CR, LF; a `:` after each key; `,` or `}` after each
//!   value; nothing but whitespace after the root);
//! - each key is decoded by serde_json as a string and each leaf by serde_json as a
//!   value, from exactly the bytes the serial parse reads for them (a JSON value is
//!   self-delimiting, so a leaf that parses alone is the value the serial parse finds
//!   there); any failure gives [`None`];
//! - keys are inserted with `Map::insert` in document order, as serde_json's own
//!   `Value` visitor does, so a duplicate key keeps its first position and its last value;
//! - the serial parse refuses a document nested 128 containers deep (its recursion
//!   budget, which a leaf parsed alone would get afresh): a leaf is parsed inside as many
//!   arrays as split objects enclose it, so the budget counts them;
//! - a split object whose first key is one of serde_json's private marker keys (read
//!   specially when its `arbitrary_precision` or `raw_value` feature is on) gives [`None`].

use serde_json::{Map, Value};
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A member object whose text is at least this long is split into its members (down to
/// [`SPLIT_LEVELS`]); smaller ones are parsed whole as one leaf. GitHub's `paths` (2.3 MB
/// compact), `components` and `components/schemas` are split, each path item and schema
/// is a leaf.
pub(crate) const SPLIT_OBJECT_BYTES: usize = 256 * 1024;

/// How many levels of objects are split: the root, its members, theirs.
pub(crate) const SPLIT_LEVELS: usize = 3;

/// The scan hands leaves to the pool in batches of about this many bytes.
const BATCH_BYTES: usize = 64 * 1024;

/// At most this many levels are split whatever is asked, well under serde_json's
/// recursion budget (128), so every container past them is inside a leaf.
const MAX_SPLIT_LEVELS: usize = 100;

/// The first key serde_json's `Value` visitor reads specially under some features.
const SERDE_JSON_PRIVATE_KEY: &[u8] = b"\"$serde_json::private::";

/// A decoded document and which pool thread allocated each of its leaves.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub value: Value,
    pub frees: Frees,
}

/// Where each leaf of a split-decoded document is, and which rayon thread allocated it:
/// mimalloc frees memory about four times more slowly from another thread than from the
/// one that allocated it, so [`Frees::free`] hands each leaf back to its allocator.
#[derive(Debug, Default)]
pub(crate) struct Frees {
    /// Per leaf: the keys from the root to it, and the pool thread's index.
    leaves: Vec<(Vec<String>, usize)>,
}

impl Frees {
    /// Drops `root`, each recorded leaf on the pool thread that allocated it (the rest
    /// here). A leaf no longer at its keys (an overlay moved it) is freed wherever it is.
    pub(crate) fn free(&self, mut root: Value) {
        if self.leaves.is_empty() {
            return;
        }
        let bins: Vec<Mutex<Vec<Value>>> = (0..rayon::current_num_threads())
            .map(|_| Mutex::new(Vec::new()))
            .collect();
        for (keys, owner) in &self.leaves {
            let slot = keys
                .iter()
                .try_fold(&mut root, |v, k| v.as_object_mut()?.get_mut(k));
            if let (Some(slot), Some(bin)) = (slot, bins.get(*owner)) {
                let leaf = std::mem::take(slot);
                bin.lock().unwrap_or_else(|e| e.into_inner()).push(leaf);
            }
        }
        rayon::broadcast(|ctx| {
            if let Some(bin) = bins.get(ctx.index()) {
                drop(std::mem::take(
                    &mut *bin.lock().unwrap_or_else(|e| e.into_inner()),
                ));
            }
        });
    }
}

/// `serde_json::from_slice::<Value>(bytes)` when that is `Ok`, parsed with the leaves on
/// the rayon pool; [`None`] when the serial parse fails, and possibly also when it
/// succeeds (the caller then parses serially).
pub(crate) fn parse(bytes: &[u8]) -> Option<Decoded> {
    parse_with(bytes, SPLIT_OBJECT_BYTES, SPLIT_LEVELS, BATCH_BYTES)
}

/// [`parse`] with the split size and depth given (tests split small documents).
///
/// The leaves are parsed while the scan goes on: each batch of leaves the scan has
/// settled (see [`Scanner::settled`]) is handed to the pool at once.
fn parse_with(bytes: &[u8], split_bytes: usize, levels: usize, batch: usize) -> Option<Decoded> {
    let batches: Mutex<Vec<(usize, Parsed)>> = Mutex::new(Vec::new());
    let failed = AtomicBool::new(false);
    let plan = rayon::in_place_scope(|scope| {
        let mut dispatch = |first: usize, leaves: &[Leaf]| {
            let leaves = leaves.to_vec();
            let (batches, failed) = (&batches, &failed);
            scope.spawn(move |_| match parse_batch(bytes, &leaves, failed) {
                Some(values) => lock(batches).push((first, values)),
                None => failed.store(true, Ordering::Relaxed),
            });
        };
        let plan = scan(bytes, split_bytes, levels, batch, &mut dispatch);
        if plan.is_none() {
            // The serial parse runs next: the batches still queued need not.
            failed.store(true, Ordering::Relaxed);
        }
        plan
    })?;
    if failed.into_inner() {
        return None;
    }
    let mut batches = batches.into_inner().unwrap_or_else(|e| e.into_inner());
    batches.sort_unstable_by_key(|(first, _)| *first);
    let mut parsed = Vec::with_capacity(plan.leaves.len());
    for (first, values) in batches {
        if first != parsed.len() {
            return None;
        }
        parsed.extend(values);
    }
    if parsed.len() != plan.leaves.len() {
        return None;
    }
    let mut a = Assembler {
        bytes,
        parsed: parsed.into_iter(),
        keys: Vec::new(),
        frees: Frees::default(),
    };
    let value = a.object(&plan.root)?;
    Some(Decoded {
        value,
        frees: a.frees,
    })
}

/// Leaves' values, each with the index of the pool thread that parsed it.
type Parsed = Vec<(Value, usize)>;

/// The values of a batch of leaves, each with the pool thread that parsed it; [`None`]
/// if one fails (then the other batches stop early).
fn parse_batch(bytes: &[u8], leaves: &[Leaf], failed: &AtomicBool) -> Option<Parsed> {
    let owner = rayon::current_thread_index().unwrap_or(usize::MAX);
    let mut values = Vec::with_capacity(leaves.len());
    for leaf in leaves {
        if failed.load(Ordering::Relaxed) {
            return None;
        }
        values.push((parse_leaf(&bytes[leaf.bytes.clone()], leaf.depth)?, owner));
    }
    Some(values)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A leaf's value, parsed inside `depth` arrays so that serde_json's recursion budget
/// counts the split objects around it, as in the serial parse.
fn parse_leaf(bytes: &[u8], depth: usize) -> Option<Value> {
    let mut text = Vec::with_capacity(bytes.len() + 2 * depth);
    text.resize(depth, b'[');
    text.extend_from_slice(bytes);
    text.resize(text.len() + depth, b']');
    let mut value = serde_json::from_slice::<Value>(&text).ok()?;
    for _ in 0..depth {
        value = match value {
            Value::Array(mut one) if one.len() == 1 => one.pop()?,
            _ => return None,
        };
    }
    Some(value)
}

/// The split objects and the leaves in document order.
#[derive(Debug)]
struct Plan {
    root: Vec<Member>,
    leaves: Vec<Leaf>,
}

/// A value parsed on its own: its bytes and how many containers enclose it.
#[derive(Debug, Clone)]
struct Leaf {
    bytes: Range<usize>,
    depth: usize,
}

/// One member of a split object: its key's bytes (with the quotes) and its value.
#[derive(Debug)]
struct Member {
    key: Range<usize>,
    value: Piece,
}

/// A value of a split object: the next leaf, or an object split further.
#[derive(Debug)]
enum Piece {
    Leaf,
    Split(Vec<Member>),
}

/// Scans the document: [`None`] on any grammar surprise.
#[cfg(test)]
fn plan(bytes: &[u8], split_bytes: usize, levels: usize) -> Option<Plan> {
    scan(bytes, split_bytes, levels, BATCH_BYTES, &mut |_, _| {})
}

/// Scans the document, handing each batch of settled leaves to `dispatch` with the
/// index of its first: [`None`] on any grammar surprise.
fn scan(
    bytes: &[u8],
    split_bytes: usize,
    levels: usize,
    batch: usize,
    dispatch: &mut dyn FnMut(usize, &[Leaf]),
) -> Option<Plan> {
    let mut s = Scanner {
        b: bytes,
        pos: 0,
        split_bytes,
        levels: levels.min(MAX_SPLIT_LEVELS),
        leaves: Vec::new(),
        batch,
        dispatched: 0,
        dispatch,
    };
    s.ws();
    if s.peek()? != b'{' {
        return None;
    }
    let root = s.object(0)?;
    s.ws();
    if s.pos != bytes.len() {
        return None;
    }
    s.settled(true);
    Some(Plan {
        root,
        leaves: s.leaves,
    })
}

/// Builds the split objects around the parsed leaves (taken in document order),
/// noting where each leaf went.
struct Assembler<'a, I> {
    bytes: &'a [u8],
    parsed: I,
    keys: Vec<String>,
    frees: Frees,
}

impl<I: Iterator<Item = (Value, usize)>> Assembler<'_, I> {
    fn object(&mut self, members: &[Member]) -> Option<Value> {
        let mut map = Map::with_capacity(members.len());
        for m in members {
            let key = serde_json::from_slice::<String>(&self.bytes[m.key.clone()]).ok()?;
            self.keys.push(key.clone());
            let value = match &m.value {
                Piece::Leaf => {
                    let (value, owner) = self.parsed.next()?;
                    self.frees.leaves.push((self.keys.clone(), owner));
                    value
                }
                Piece::Split(inner) => self.object(inner)?,
            };
            self.keys.pop();
            map.insert(key, value);
        }
        Some(Value::Object(map))
    }
}

/// The serial pass: a cursor over the bytes and the leaves found so far.
struct Scanner<'a, 'd> {
    b: &'a [u8],
    pos: usize,
    split_bytes: usize,
    levels: usize,
    leaves: Vec<Leaf>,
    /// The size of a batch of leaves handed to `dispatch`, in bytes.
    batch: usize,
    /// How many leaves were handed to `dispatch`.
    dispatched: usize,
    dispatch: &'d mut dyn FnMut(usize, &[Leaf]),
}

impl Scanner<'_, '_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skips JSON whitespace, exactly serde_json's set.
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.pos += 1)
    }

    /// The members of the object at the cursor (`{`), which is at `level` (the root
    /// is at 0).
    fn object(&mut self, level: usize) -> Option<Vec<Member>> {
        let start = self.pos;
        self.expect(b'{')?;
        self.ws();
        let mut members = Vec::new();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(members);
        }
        loop {
            let key_start = self.pos;
            self.string()?;
            let key = key_start..self.pos;
            if members.is_empty() && self.b[key.clone()].starts_with(SERDE_JSON_PRIVATE_KEY) {
                return None;
            }
            self.ws();
            self.expect(b':')?;
            self.ws();
            let value = self.value(level + 1)?;
            members.push(Member { key, value });
            // The root is split whatever its size, any other object once it is long
            // enough; the objects around this one started earlier, so they are too.
            // Then no leaf found so far can be merged into a larger one.
            if level == 0 || self.pos - start >= self.split_bytes {
                self.settled(false);
            }
            self.ws();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.ws();
                }
                b'}' => {
                    self.pos += 1;
                    return Some(members);
                }
                _ => return None,
            }
        }
    }

    /// Hands the leaves found since the last call to `dispatch`, in batches of about
    /// `self.batch` bytes, once they add up to that much (or all of them, at the
    /// `end`). Only settled leaves may be handed out: ones that no smaller object
    /// around them will be parsed whole with.
    fn settled(&mut self, end: bool) {
        let pending = &self.leaves[self.dispatched..];
        let due = if end {
            !pending.is_empty()
        } else {
            pending.iter().map(|l| l.bytes.len()).sum::<usize>() >= self.batch
        };
        if !due {
            return;
        }
        let (mut first, mut size) = (0, 0);
        for (i, leaf) in pending.iter().enumerate() {
            size += leaf.bytes.len();
            if size >= self.batch || i + 1 == pending.len() {
                (self.dispatch)(self.dispatched + first, &pending[first..=i]);
                (first, size) = (i + 1, 0);
            }
        }
        self.dispatched = self.leaves.len();
    }

    /// The member value at the cursor, enclosed by `depth` split objects: an object
    /// split further, or a leaf.
    fn value(&mut self, depth: usize) -> Option<Piece> {
        let start = self.pos;
        if self.peek()? == b'{' && depth < self.levels {
            let leaves_before = self.leaves.len();
            let members = self.object(depth)?;
            if self.pos - start >= self.split_bytes {
                return Some(Piece::Split(members));
            }
            // Too small to be worth splitting: one leaf. (None of its leaves was
            // handed out: it was never long enough to be settled.)
            if leaves_before < self.dispatched {
                return None;
            }
            self.leaves.truncate(leaves_before);
        } else {
            match self.peek()? {
                b'{' | b'[' => self.container()?,
                b'"' => self.string()?,
                _ => self.scalar(),
            }
        }
        self.leaves.push(Leaf {
            bytes: start..self.pos,
            depth,
        });
        Some(Piece::Leaf)
    }

    /// Skips the string at the cursor (`"`), honouring `\` escapes; its content is
    /// checked later by serde_json.
    fn string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            let i = memchr::memchr2(b'"', b'\\', self.b.get(self.pos..)?)?;
            self.pos += i + 1;
            if self.b[self.pos - 1] == b'"' {
                return Some(());
            }
            // The escaped byte, whatever it is (`\"` does not end the string).
            self.pos += 1;
        }
    }

    /// Skips a number or literal: up to the next whitespace, `,`, `}` or `]`.
    fn scalar(&mut self) {
        while let Some(c) = self.peek() {
            if matches!(c, b' ' | b'\n' | b'\t' | b'\r' | b',' | b'}' | b']') {
                return;
            }
            self.pos += 1;
        }
    }

    /// Skips the array or object at the cursor to its closing bracket, counting only
    /// its own kind of bracket outside strings. Whatever it skips is parsed by
    /// serde_json, which accepts the range only if it is exactly one JSON value; a JSON
    /// value ends where the serial parse ends it, so a range found wrongly is refused.
    fn container(&mut self) -> Option<()> {
        let open = self.peek()?;
        let close = if open == b'{' { b'}' } else { b']' };
        let mut depth = 0usize;
        loop {
            self.pos += memchr::memchr3(b'"', open, close, self.b.get(self.pos..)?)?;
            let c = self.b[self.pos];
            if c == b'"' {
                self.string()?;
                continue;
            }
            self.pos += 1;
            if c == open {
                depth += 1;
            } else {
                depth -= 1;
                if depth == 0 {
                    return Some(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
