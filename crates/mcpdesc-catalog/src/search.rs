//! An offline tool search: BM25F over a tool's fields, optionally followed by a semantic
//! ranking where BM25F has no evidence (lexical-first fusion, the default).
//!
//! # Fields and weights
//! Each tool is a document of [`Field`]s, each analyzed by [`crate::text`] (identifier
//! splitting, stop words, Snowball English stemming) and weighted on its own
//! ([`Field::weight`]): the name counts most, then the title, the toolsets/tags and the
//! OpenAPI path (segments without `{}` variables, plus the HTTP method), then the
//! description, parameter names and descriptions, and response property names.
//!
//! # Scoring (BM25F, Robertson and Zaragoza 2009, "simple BM25F")
//! For a query term t and tool d: `tf̃ = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avglen_f)`
//! and `score += idf(t) · tf̃ / (k1 + tf̃)` with `idf = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))`.
//! A query that names a tool exactly (its served name, case-insensitively) ranks that
//! tool first. Ties are broken by name, so the ranking is deterministic.
//!
//! # Hybrid: lexical-first fusion (the default, [`Fusion::LexicalFirst`])
//! With a [`Semantic`] ranker the ranking is BM25F's, its scores unchanged, followed by
//! the semantic ranking of the tools BM25F has no evidence for:
//! 1. every admitted tool with a positive BM25F score, in BM25F's order with BM25F's
//!    score (the lexical ranking, [`Index::search`] without a semantic ranker), except
//!    that tools with equal scores are ordered by their API's prior (below), best
//!    first, and only then by name;
//! 2. then the admitted tools with BM25F score 0 (the "no evidence" line: a score of 0
//!    means the tool shares no analyzed term with the request; it is a property of the
//!    score, not a tuned threshold), the semantic ranking's best [`SEM_DEPTH`] of them,
//!    each scored `λ · e` where `λ` is half the lowest positive BM25F score of the
//!    request (1 when none) and `e` its similarity scaled between the depth's floor (0)
//!    and the best (1); with an API prior, `λ · (e + p) / 2` where `p` is its API's
//!    prior (both in 0..=1, on an equal footing: a rule, not a tuned weight). Best
//!    first, ties by similarity, then index; every score is below step 1's.
//!
//! **API-level ranking here** ([`Index::set_apis`]: several descriptions served
//! together): the prior `p` of an API is the request's BM25 against each API taken as
//! one document, divided by the best API's (the score fusion's prior below, with its
//! constants). It only orders tools BM25F cannot tell apart: equal scores in step 1,
//! and the tools without evidence in step 2. With one API there is none. A caller can
//! read the prior ([`Index::api_ranking`]: the search facade shows it as the result's
//! `servers`) and search one API's tools only ([`Filter::apis`]).
//!
//! **Never worse than lexical, by construction.** Let `L` be the lexical ranking (the
//! positive-score tools, best first) and `D` the default's. Step 1 makes `D`'s first
//! `|L|` hits `L`'s tools with, place by place, `L`'s scores (only tools of equal score
//! trade places), and step 2 adds only tools outside `L` after them. So for every
//! request and every k, `D`'s top k holds every tool of `L`'s top k scored above the
//! k-th, and as many of those scored equal to it; all of `L`'s top k unless the cutoff
//! splits a tie (where lexical's choice is by name, itself arbitrary), so recall@k can
//! differ from lexical's only inside a tie at the cutoff. Without several APIs there is
//! no reordering and `L` is a prefix of `D`. A gold tool with BM25F score 0 is outside
//! `L` and cannot count for lexical at any k. The exact name rule applies to both alike.
//! No re-weighting of BM25F's scores is applied, so the baseline is BM25F as an index
//! without a semantic ranker ranks. Tested by `lexical_first_contains_the_lexical_top_k`
//! (with the prior) and `lexical_first_orders_ties_and_fill_by_the_api_prior`.
//!
//! # The earlier score fusion ([`Fusion::Scored`], evaluation only)
//! Kept as a library option for `search_eval`'s comparison; nothing serves it. The two
//! scores are fused by a calibrated convex combination (score-aware fusion, not rank
//! fusion): the BM25F score is divided by the
//! query's best, `l = s / max s`; the semantic similarity is scaled between a floor (the
//! [`SEM_DEPTH`]th best similarity of the admitted tools) and the best one,
//! `e = max(0, (c − c_floor) / (c_max − c_floor))`; a tool scores
//! `α · l + (1 − α) · e` with α = [`LEXICAL_WEIGHT`]. The candidates are the tools
//! BM25F scores and the semantic ranking's best [`SEM_DEPTH`]. A query BM25F finds
//! nothing for ranks by the semantic score alone. α was chosen on the tuning set of
//! `tests/fixtures/search` and checked on the held-out one (PERFORMANCE.md); it fell
//! below lexical on the never-tuned public set, hence the lexical-first default.
//!
//! ## Per-query gate (score fusion only)
//! A request whose rankings say lexical is right (a logistic model, [`Gate`], of
//! signals such as the lexical top hit's coverage of the request's terms, the lexical
//! margin and the agreement of the two top lists: [`Index::gate_features`]) is fused
//! with the gate's α instead ([`GATE`], fitted on the tuning set).
//!
//! ## API prior
//! When the index knows each tool's API ([`Index::set_apis`]: several descriptions
//! served together), the fused score gains `γ · prior(API)`, the request's BM25 against
//! each API taken as one document, scaled by the best API's (γ = [`API_WEIGHT`], chosen
//! on the tuning set).

use crate::text;
use serde_json::Value;
use std::collections::HashMap;

/// How a hybrid index combines BM25F with the semantic ranking (see the module's
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fusion {
    /// The default: BM25F's ranking (equal scores ordered by the API prior), then the
    /// semantic ranking of the tools with BM25F score 0 (with the API prior). Never
    /// worse than lexical at any k, by construction, up to the order within a tie.
    #[default]
    LexicalFirst,
    /// The earlier score fusion (calibrated convex combination, per-query gate, API
    /// prior, rank reserve), kept for the evaluation's comparison only.
    Scored,
}

/// The fields of a tool document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Name = 0,
    Title = 1,
    Description = 2,
    Toolsets = 3,
    Path = 4,
    Parameters = 5,
    Response = 6,
}

const FIELDS: usize = 7;

impl Field {
    /// The field's weight w_f.
    pub const fn weight(self) -> f32 {
        match self {
            Field::Name => 3.0,
            Field::Title => 2.0,
            Field::Description => 1.0,
            Field::Toolsets => 1.5,
            Field::Path => 1.5,
            Field::Parameters => 0.6,
            Field::Response => 0.4,
        }
    }

    /// The field's length normalisation b_f (short identifier fields barely).
    pub const fn b(self) -> f32 {
        match self {
            Field::Name | Field::Toolsets | Field::Path => 0.3,
            Field::Title => 0.5,
            Field::Description | Field::Parameters | Field::Response => 0.75,
        }
    }

    const ALL: [Field; FIELDS] = [
        Field::Name,
        Field::Title,
        Field::Description,
        Field::Toolsets,
        Field::Path,
        Field::Parameters,
        Field::Response,
    ];
}

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// The lexical score's weight α in the fused score (the semantic one's is 1 − α).
pub const LEXICAL_WEIGHT: f32 = 0.5;
/// How many of the semantic ranking's best tools are candidates, and the rank of the
/// similarity that scales to 0.
pub const SEM_DEPTH: usize = 100;
/// The API prior's weight γ: a hybrid score gains `γ · a` where `a` is how much the
/// request is about the tool's API (see [`Index::set_apis`]).
pub const API_WEIGHT: f32 = 0.3;

/// How many signals the per-query gate reads ([`Index::gate_features`]).
pub const GATE_FEATURES: usize = 5;

/// A per-query gate: a logistic model of "the lexical ranking is right here", read from
/// signals of the request's two rankings ([`Index::gate_features`]): when its
/// probability `σ(w · x + b)` reaches `threshold`, the request is fused with α =
/// `lexical_weight` (towards BM25F) instead of the index's α.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    /// The weights w of the signals, in [`Index::gate_features`]' order.
    pub weights: [f32; GATE_FEATURES],
    /// The intercept b.
    pub bias: f32,
    /// The probability from which the request counts as lexical.
    pub threshold: f32,
    /// α for a request the gate calls lexical.
    pub lexical_weight: f32,
}

impl Gate {
    /// The model's probability that lexical is right, for signals `x`.
    pub fn probability(&self, x: &[f32; GATE_FEATURES]) -> f32 {
        let z = self.bias + self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f32>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// The share ν of the API prior taken from the APIs' own texts ([`Index::set_api_texts`]:
/// each description's `info` title and description and its tags' names and
/// descriptions, BM25 over the APIs); the rest is the BM25 over the APIs' tools.
pub const API_TEXT_WEIGHT: f32 = 0.0;
/// The API prior applies only when the request is clearly about one API: when the
/// second-best API's prior is at most this share of the best's (1: always).
pub const API_MARGIN: f32 = 1.0;

/// Rank-level safety: when the gate's probability that lexical is right reaches
/// `probability`, the lexical ranking's best `top` tools are kept within the first
/// `within` hits (moved up to the last of those places when the fusion ranked them
/// lower).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reserve {
    /// How many of the lexical ranking's best tools are kept.
    pub top: usize,
    /// Within how many first hits.
    pub within: usize,
    /// The gate probability from which they are kept.
    pub probability: f32,
}

/// The default rank-level safety (none: see PERFORMANCE.md, issue 31).
pub const RESERVE: Option<Reserve> = None;

/// An API gate in the lexical-first ranking (issue 31's pre-registered try): when the
/// request's API prior names one API clearly (its prior leads the second API's by at
/// least `margin`) and the lexical ranking's best [`LEXICAL_TOP`] hold hits of two or
/// more APIs, that API's hits among the first `within` move ahead of the other APIs'
/// hits there, each group in its lexical order (a stable partition; scores unchanged).
/// Nothing outside the first `within` moves, and no tool enters or leaves them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApiGate {
    /// The lead of the best API's prior over the second's (priors lie in 0..=1).
    pub margin: f32,
    /// How many first hits the partition covers.
    pub within: usize,
}

/// The default API gate (none: see PERFORMANCE.md, issue 31).
pub const API_GATE: Option<ApiGate> = None;

/// The share μ of the API prior taken from the APIs of the lexical ranking's best
/// [`LEXICAL_TOP`] tools (each API's share of their scores, divided by the best API's);
/// the rest, `1 − μ`, is the API-level BM25.
pub const API_LEXICAL_SHARE: f32 = 0.0;
/// How many of the lexical ranking's best tools the gate's agreement signal and the
/// lexical share of the API prior read.
pub const LEXICAL_TOP: usize = 10;
/// The default per-query gate, fitted on the tuning set `tests/fixtures/search/
/// requests.yaml` only (`search_eval --fit-gate`, PERFORMANCE.md, issue 31): a logistic
/// regression (L2, λ = 1 over the samples, on standardised signals; the constants here
/// are on the raw signals) of "lexical ranks this request better than the ungated
/// hybrid" (recall@5 + recall@10) over the set's 172 requests in the pooled catalog
/// and in their own API's, the 87 cases where the two differ (18 where lexical was
/// better). The threshold τ = 0.4 and the gated α = 0.95 were chosen on the same set
/// from τ ∈ {0.3 … 0.7} × α ∈ {0.7 … 1}: the best pooled and per-API recall that keeps
/// the frozen tuning slice of `recall.rs` at its floor (α = 1, the lexical order, left
/// no slice of the set below lexical but lowered that slice).
pub const GATE: Option<Gate> = Some(Gate {
    // coverage, margin, overlap, API prior, semantic score of the lexical top hit
    weights: [-2.900256, 1.632413, 1.305539, -0.475376, 0.447662],
    bias: -0.530987,
    threshold: 0.4,
    lexical_weight: 0.95,
});

/// The text of one tool, by field.
#[derive(Debug, Clone, Default)]
pub struct ToolText {
    /// The name the tool is served and called by.
    pub name: String,
    pub fields: [String; FIELDS],
}

impl ToolText {
    /// Sets a field's text.
    pub fn with(mut self, field: Field, text: impl Into<String>) -> Self {
        self.fields[field as usize] = text.into();
        self
    }

    /// Appends text to a field.
    pub fn push(&mut self, field: Field, text: &str) {
        let f = &mut self.fields[field as usize];
        if !f.is_empty() {
            f.push(' ');
        }
        f.push_str(text);
    }

    /// The searchable text of a tool declaration as served under `name`: `doc` is the
    /// description the declaration is in (its `$componentRef`s resolve there).
    pub fn of_tool(name: &str, doc: &Value, decl: &Value) -> ToolText {
        let mut t = ToolText {
            name: name.to_string(),
            ..ToolText::default()
        };
        t.push(Field::Name, name);
        if let Some(original) = decl.get("name").and_then(Value::as_str)
            && original != name
        {
            t.push(Field::Name, original);
        }
        let title = decl
            .get("title")
            .or_else(|| decl.get("annotations").and_then(|a| a.get("title")))
            .and_then(Value::as_str);
        if let Some(title) = title {
            t.push(Field::Title, title);
        }
        if let Some(d) = decl.get("description").and_then(Value::as_str) {
            t.push(Field::Description, d);
        }
        for ts in crate::select::toolsets_of(decl) {
            t.push(Field::Toolsets, ts);
        }
        if let Some(p) = decl.get("x-mcpdesc-openapi") {
            if let Some(m) = p.get("method").and_then(Value::as_str) {
                t.push(Field::Path, &m.to_ascii_lowercase());
            }
            if let Some(path) = p.get("path").and_then(Value::as_str) {
                for seg in path.split('/') {
                    let variable = seg.starts_with('{') && seg.ends_with('}');
                    if !seg.is_empty() && !variable {
                        t.push(Field::Path, seg);
                    }
                }
            }
        }
        let schema = |key: &str| {
            decl.get(key)
                .and_then(|s| mcpdesc_core::refs::resolve(doc, s, "schemas").ok())
                .map(|(s, _)| s)
        };
        if let Some(input) = schema("inputSchema") {
            let mut walk = PropertyWalk::new(input, 2);
            while let Some((name, description)) = walk.next() {
                t.push(Field::Parameters, name);
                if let Some(d) = description {
                    t.push(Field::Parameters, d);
                }
            }
        }
        if let Some(output) = schema("outputSchema") {
            let mut walk = PropertyWalk::new(output, 3);
            while let Some((name, _)) = walk.next() {
                t.push(Field::Response, name);
            }
        }
        t
    }
}

/// An API's own text, for the API prior ([`Index::set_api_texts`]): the description's
/// `info` title and description, then each root tag's name and description.
pub fn api_text(doc: &Value) -> String {
    let info = doc.get("info");
    let tags = doc
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    let parts = [
        info.and_then(|i| i.get("title")),
        info.and_then(|i| i.get("description")),
    ]
    .into_iter()
    .chain(tags.flat_map(|t| [t.get("name"), t.get("description")]))
    .filter_map(|v| v.and_then(Value::as_str))
    .filter(|s| !s.is_empty());
    parts.collect::<Vec<_>>().join("\n")
}

/// Property names (and descriptions) of a schema, breadth-first to a depth, through
/// `items`, `allOf`/`anyOf`/`oneOf` and local `#/$defs/...` references of the schema
/// itself; bounded in the number of schemas visited.
struct PropertyWalk<'a> {
    root: &'a Value,
    /// The referencing module's index of `root`, built at the first `$ref`.
    refs: std::cell::OnceCell<mcpdesc_core::local_ref::Resolver<'a>>,
    queue: std::collections::VecDeque<(&'a Value, usize)>,
    pending: Vec<(&'a str, Option<&'a str>)>,
    visited: usize,
    max_depth: usize,
}

/// Schemas one walk visits at most (a tool's text needs the first levels only).
const WALK_BUDGET: usize = 256;

impl<'a> PropertyWalk<'a> {
    fn new(root: &'a Value, max_depth: usize) -> Self {
        PropertyWalk {
            root,
            refs: std::cell::OnceCell::new(),
            queue: std::collections::VecDeque::from([(root, 0)]),
            pending: Vec::new(),
            visited: 0,
            max_depth,
        }
    }

    fn next(&mut self) -> Option<(&'a str, Option<&'a str>)> {
        loop {
            if let Some(p) = self.pending.pop() {
                return Some(p);
            }
            let (s, depth) = self.queue.pop_front()?;
            self.visited += 1;
            if self.visited > WALK_BUDGET {
                self.queue.clear();
                return None;
            }
            let s = match member(s, "$ref").and_then(Value::as_str) {
                Some(r) => {
                    let root = self.root;
                    let refs = self
                        .refs
                        .get_or_init(|| mcpdesc_core::local_ref::Resolver::new(root));
                    match refs.target_from(s, r) {
                        Ok((target, _)) => target,
                        Err(_) => continue,
                    }
                }
                None => s,
            };
            // The keywords read, found in one pass over the schema's members (a schema
            // has a handful: a scan is cheaper than one hashed lookup per keyword).
            let mut keywords: [Option<&'a Value>; 5] = [None; 5];
            for (k, v) in s.as_object().into_iter().flatten() {
                let slot = match k.as_str() {
                    "properties" => 0,
                    "items" => 1,
                    "allOf" => 2,
                    "anyOf" => 3,
                    "oneOf" => 4,
                    _ => continue,
                };
                keywords[slot] = Some(v);
            }
            let [properties, items, all_of, any_of, one_of] = keywords;
            if let Some(props) = properties.and_then(Value::as_object) {
                let mut found: Vec<_> = props
                    .iter()
                    .map(|(k, v)| (k.as_str(), member(v, "description").and_then(Value::as_str)))
                    .collect();
                found.reverse();
                self.pending.extend(found);
                if depth + 1 < self.max_depth {
                    self.queue.extend(props.values().map(|v| (v, depth + 1)));
                }
            }
            if depth < self.max_depth {
                if let Some(items) = items {
                    self.queue.push_back((items, depth));
                }
                for b in [all_of, any_of, one_of] {
                    for b in b.and_then(Value::as_array).into_iter().flatten() {
                        self.queue.push_back((b, depth));
                    }
                }
            }
        }
    }
}

/// `value[key]` of an object, found by scanning its members: for the few members of a
/// schema object, cheaper than hashing the key (what `Value::get` does with
/// `preserve_order`).
fn member<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value
        .as_object()?
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// A semantic similarity of the indexed tools to a query (an embedding model), fused
/// with the lexical score.
pub trait Semantic: Send + Sync + std::fmt::Debug {
    /// Prepares the tools (embeds their texts), in index order.
    fn index(&mut self, tools: &[&ToolText]);
    /// The query's similarity to every tool, in index order (cosine: higher is closer);
    /// empty when the query has no embedding.
    fn similarities(&self, query: &str) -> Vec<f32>;
}

/// Filters applied before ranking.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    /// Keep tools in any of these toolsets.
    pub toolsets: Option<&'a [String]>,
    /// Keep tools whose effective `readOnlyHint` equals this.
    pub read_only: Option<bool>,
    /// Keep tools of any of these APIs (labels as [`Index::set_apis`] gave them; a tool
    /// without a label matches none). Empty or `None`: every API.
    pub apis: Option<&'a [String]>,
}

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index of the tool in the order it was indexed.
    pub tool: usize,
    pub score: f32,
}

/// The index of a served tool catalog.
#[derive(Debug)]
pub struct Index {
    names: Vec<String>,
    /// Lower-cased name → tool (for exact-name queries).
    by_name: HashMap<String, usize>,
    toolsets: Vec<Vec<String>>,
    read_only: Vec<bool>,
    /// Term → term id (the index into `postings`).
    vocabulary: HashMap<String, u32>,
    /// Per term id, its postings: (tool, term frequency per field), by tool.
    postings: Vec<Vec<(u32, [u16; FIELDS])>>,
    /// Per tool, terms per field.
    lengths: Vec<[u16; FIELDS]>,
    avg: [f32; FIELDS],
    semantic: Option<Box<dyn Semantic>>,
    /// α of the fusion ([`LEXICAL_WEIGHT`] unless [`Index::set_fusion`] changed it).
    lexical_weight: f32,
    /// The semantic candidates' depth ([`SEM_DEPTH`] unless changed).
    sem_depth: usize,
    /// Per tool, the API (description) it belongs to; empty: one API.
    apis: Vec<u32>,
    /// γ of the API prior ([`API_WEIGHT`] unless changed).
    api_weight: f32,
    /// The share μ of the API prior that comes from the lexical top hits' APIs
    /// ([`API_LEXICAL_SHARE`] unless changed; the rest is the API-level BM25).
    api_lexical_share: f32,
    /// The per-query gate ([`GATE`] unless changed).
    gate: Option<Gate>,
    /// Per API id, its label ([`Index::set_apis`]).
    api_labels: Vec<String>,
    /// Per API id, the analyzed terms of its own text and their counts, and the
    /// text's length in terms ([`Index::set_api_texts`]; empty: none).
    api_texts: Vec<(HashMap<String, u16>, f32)>,
    /// ν of the API prior ([`API_TEXT_WEIGHT`] unless changed).
    api_text_weight: f32,
    /// ρ of the API prior ([`API_MARGIN`] unless changed).
    api_margin: f32,
    /// Rank-level safety ([`RESERVE`] unless changed).
    reserve: Option<Reserve>,
    /// The lexical-first ranking's API gate ([`API_GATE`] unless changed).
    api_gate: Option<ApiGate>,
    /// How BM25F and the semantic ranking combine ([`Fusion::LexicalFirst`] unless
    /// changed).
    fusion: Fusion,
}

/// What [`Index::build`] indexes of one tool.
#[derive(Debug, Clone)]
pub struct Entry {
    pub text: ToolText,
    pub toolsets: Vec<String>,
    pub read_only: bool,
}

impl Index {
    /// Indexes `tools` (their order is the index order [`Hit::tool`] refers to).
    ///
    /// With a semantic ranker, it prepares the tools (embeds them) on a thread of its own
    /// while the lexical index is built on this one.
    pub fn build(tools: Vec<Entry>, semantic: Option<Box<dyn Semantic>>) -> Index {
        let Some(mut semantic) = semantic else {
            return Self::build_lexical(&tools);
        };
        // The embedding thread borrows the tools' texts while the lexical index reads
        // them too (no copy of every text).
        std::thread::scope(|scope| {
            let texts: Vec<&ToolText> = tools.iter().map(|e| &e.text).collect();
            let prepared = scope.spawn(move || {
                semantic.index(&texts);
                semantic
            });
            let mut index = Self::build_lexical(&tools);
            index.semantic = Some(
                prepared
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
            index
        })
    }

    /// [`Index::build`], and `side` run on the second thread (after the embedding, which
    /// is the shorter half of a hybrid build): start-up work that needs no index, such
    /// as the dependency links ([`crate::deps`]), costs no extra wall time while it fits
    /// beside the lexical index.
    pub fn build_with<R: Send>(
        tools: Vec<Entry>,
        semantic: Option<Box<dyn Semantic>>,
        side: impl FnOnce() -> R + Send,
    ) -> (Index, R) {
        std::thread::scope(|scope| {
            let texts: Vec<&ToolText> = tools.iter().map(|e| &e.text).collect();
            let second = scope.spawn(move || {
                let semantic = semantic.map(|mut s| {
                    s.index(&texts);
                    s
                });
                (semantic, side())
            });
            let mut index = Self::build_lexical(&tools);
            let (semantic, r) = second
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            index.semantic = semantic;
            (index, r)
        })
    }

    fn build_lexical(tools: &[Entry]) -> Index {
        let n = tools.len();
        let mut vocabulary: HashMap<String, u32> = HashMap::new();
        let mut postings: Vec<Vec<(u32, [u16; FIELDS])>> = Vec::new();
        let mut lengths = Vec::with_capacity(n);
        let mut totals = [0f64; FIELDS];
        let mut names = Vec::with_capacity(n);
        let mut by_name = HashMap::with_capacity(n);
        let mut toolsets = Vec::with_capacity(n);
        let mut read_only = Vec::with_capacity(n);
        for (i, e) in tools.iter().enumerate() {
            let tool = i as u32;
            let mut len = [0u16; FIELDS];
            for f in Field::ALL {
                text::terms(&e.text.fields[f as usize], |term| {
                    let id = match vocabulary.get(term) {
                        Some(&id) => id,
                        None => {
                            let id = postings.len() as u32;
                            vocabulary.insert(term.to_string(), id);
                            postings.push(Vec::new());
                            id
                        }
                    };
                    // This tool's posting is the list's last when the term was seen in it.
                    let list = &mut postings[id as usize];
                    if list.last().is_none_or(|&(t, _)| t != tool) {
                        list.push((tool, [0; FIELDS]));
                    }
                    if let Some((_, counts)) = list.last_mut() {
                        let c = &mut counts[f as usize];
                        *c = c.saturating_add(1);
                    }
                    len[f as usize] = len[f as usize].saturating_add(1);
                });
                totals[f as usize] += f64::from(len[f as usize]);
            }
            lengths.push(len);
            by_name.entry(e.text.name.to_lowercase()).or_insert(i);
            names.push(e.text.name.clone());
            toolsets.push(e.toolsets.clone());
            read_only.push(e.read_only);
        }
        let avg = std::array::from_fn(|f| {
            if n == 0 {
                1.0
            } else {
                ((totals[f] / n as f64) as f32).max(1.0)
            }
        });
        Index {
            names,
            by_name,
            toolsets,
            read_only,
            vocabulary,
            postings,
            lengths,
            avg,
            semantic: None,
            lexical_weight: LEXICAL_WEIGHT,
            sem_depth: SEM_DEPTH,
            apis: Vec::new(),
            api_weight: API_WEIGHT,
            api_lexical_share: API_LEXICAL_SHARE,
            gate: GATE,
            api_labels: Vec::new(),
            api_texts: Vec::new(),
            api_text_weight: API_TEXT_WEIGHT,
            api_margin: API_MARGIN,
            reserve: RESERVE,
            api_gate: API_GATE,
            fusion: Fusion::default(),
        }
    }

    /// Number of tools indexed.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The served name of tool `i`.
    pub fn name(&self, i: usize) -> &str {
        &self.names[i]
    }

    /// Chooses how a hybrid index combines the two rankings: what the evaluation
    /// compares; the server keeps the default, [`Fusion::LexicalFirst`].
    pub fn set_fusion_mode(&mut self, fusion: Fusion) {
        self.fusion = fusion;
    }

    /// Sets the score fusion's ([`Fusion::Scored`]) lexical weight α (clamped to 0..=1) and semantic depth (at
    /// least 1): what the evaluation sweeps; the server keeps the defaults.
    pub fn set_fusion(&mut self, lexical_weight: f32, sem_depth: usize) {
        self.lexical_weight = lexical_weight.clamp(0.0, 1.0);
        self.sem_depth = sem_depth.max(1);
    }

    /// Says which API (served description) each tool belongs to, in index order (any
    /// labels; equal labels are one API). With more than one API, a hybrid index ranks
    /// with an API prior: each API is one document (a term's frequency is how many of
    /// its tools have the term, normalised by the API's size; its idf is over the
    /// APIs, so words every neighbour shares count little), scored by BM25 against the
    /// request and divided by the best API's. The default orders equal BM25F scores and
    /// the tools without lexical evidence by it (the module's documentation); the score
    /// fusion ([`Fusion::Scored`]) adds `γ · prior(its API)` to a tool's score
    /// (γ = [`API_WEIGHT`]), so that a request's own API can win over a same-domain
    /// neighbour the semantic layer pulls up. A label list of the wrong length is
    /// ignored; an index without a semantic ranker keeps BM25F's order.
    pub fn set_apis<S: AsRef<str>>(&mut self, labels: &[S]) {
        self.api_labels.clear();
        self.api_texts.clear();
        if labels.len() != self.names.len() {
            self.apis.clear();
            return;
        }
        let mut ids: HashMap<&str, u32> = HashMap::new();
        self.apis = labels
            .iter()
            .map(|l| {
                let next = ids.len() as u32;
                *ids.entry(l.as_ref()).or_insert_with(|| {
                    self.api_labels.push(l.as_ref().to_string());
                    next
                })
            })
            .collect();
    }

    /// Whether the index's tools belong to two or more APIs: only then is there an
    /// API prior (one API's labels still serve [`Filter::apis`]).
    fn several_apis(&self) -> bool {
        self.api_labels.len() >= 2
    }

    /// Gives the APIs of [`Index::set_apis`] their own texts, by label (`info` title
    /// and description, tag names and descriptions: [`api_text`]); a share ν
    /// ([`API_TEXT_WEIGHT`]) of the API prior is then the request's BM25 against these
    /// texts. Labels [`Index::set_apis`] did not give are ignored.
    pub fn set_api_texts<S: AsRef<str>, T: AsRef<str>>(&mut self, texts: &[(S, T)]) {
        self.api_texts = self
            .api_labels
            .iter()
            .map(|label| {
                let mut terms: HashMap<String, u16> = HashMap::new();
                let mut len = 0f32;
                for (_, t) in texts.iter().filter(|(l, _)| l.as_ref() == label) {
                    text::terms(t.as_ref(), |term| {
                        let c = terms.entry(term.to_string()).or_insert(0);
                        *c = c.saturating_add(1);
                        len += 1.0;
                    });
                }
                (terms, len)
            })
            .collect();
    }

    /// Sets the API prior's share ν from the APIs' own texts and its margin ρ (both
    /// clamped to 0..=1): what the evaluation sweeps.
    pub fn set_api_text_weight(&mut self, weight: f32, margin: f32) {
        self.api_text_weight = weight.clamp(0.0, 1.0);
        self.api_margin = margin.clamp(0.0, 1.0);
    }

    /// Sets (or removes) the lexical-first ranking's API gate: what the evaluation fits.
    pub fn set_api_gate(&mut self, gate: Option<ApiGate>) {
        self.api_gate = gate;
    }

    /// Sets (or removes) the rank-level safety: what the evaluation sweeps.
    pub fn set_reserve(&mut self, reserve: Option<Reserve>) {
        self.reserve = reserve;
    }

    /// Sets the API prior's weight γ (clamped to 0..=1): what the evaluation sweeps.
    pub fn set_api_weight(&mut self, weight: f32) {
        self.api_weight = weight.clamp(0.0, 1.0);
    }

    /// Sets the share μ of the API prior taken from the lexical top hits' APIs (clamped
    /// to 0..=1): what the evaluation sweeps.
    pub fn set_api_lexical_share(&mut self, share: f32) {
        self.api_lexical_share = share.clamp(0.0, 1.0);
    }

    /// Sets (or removes) the per-query gate: what the evaluation fits and sweeps.
    pub fn set_gate(&mut self, gate: Option<Gate>) {
        self.gate = gate;
    }

    /// How many APIs the index's tools belong to (0 without [`Index::set_apis`]).
    fn api_count(&self) -> usize {
        self.apis
            .iter()
            .copied()
            .max()
            .map_or(0, |m| m as usize + 1)
    }

    /// Per API label, BM25 of the request against each API taken as one document
    /// (a term's frequency: how many of the API's tools have it; its idf: over the
    /// APIs), divided by the best API's; empty with one API or no match.
    fn api_bm25(&self, query: &str) -> Vec<f32> {
        if !self.several_apis() {
            return Vec::new();
        }
        let groups = self.api_count();
        let mut size = vec![0f32; groups];
        for &a in &self.apis {
            size[a as usize] += 1.0;
        }
        let avg = size.iter().sum::<f32>() / groups as f32;
        let g = groups as f32;
        let mut scores = vec![0f32; groups];
        let mut count = vec![0f32; groups];
        let mut seen = std::collections::HashSet::new();
        text::terms(query, |term| {
            let Some(&id) = self.vocabulary.get(term) else {
                return;
            };
            if !seen.insert(id) {
                return;
            }
            count.iter_mut().for_each(|c| *c = 0.0);
            for (doc, _) in &self.postings[id as usize] {
                count[self.apis[*doc as usize] as usize] += 1.0;
            }
            let n = count.iter().filter(|&&c| c > 0.0).count() as f32;
            let idf = (1.0 + (g - n + 0.5) / (n + 0.5)).ln();
            for a in 0..groups {
                if count[a] > 0.0 {
                    let tf = count[a] / (1.0 - 0.75 + 0.75 * size[a] / avg);
                    scores[a] += idf * tf / (K1 + tf);
                }
            }
        });
        normalised(scores)
    }

    /// Per API label, BM25 of the request against each API's own text
    /// ([`Index::set_api_texts`]; idf over the APIs), divided by the best API's; empty
    /// without texts or without a match.
    fn api_text_bm25(&self, query: &str) -> Vec<f32> {
        if self.api_texts.len() < 2 {
            return Vec::new();
        }
        let g = self.api_texts.len() as f32;
        let avg = (self.api_texts.iter().map(|t| t.1).sum::<f32>() / g).max(1.0);
        let mut scores = vec![0f32; self.api_texts.len()];
        let mut seen = std::collections::HashSet::new();
        text::terms(query, |term| {
            if !seen.insert(term.to_string()) {
                return;
            }
            let n = self
                .api_texts
                .iter()
                .filter(|t| t.0.contains_key(term))
                .count() as f32;
            if n == 0.0 {
                return;
            }
            let idf = (1.0 + (g - n + 0.5) / (n + 0.5)).ln();
            for (a, (terms, len)) in self.api_texts.iter().enumerate() {
                if let Some(&c) = terms.get(term) {
                    let tf = f32::from(c) / (1.0 - 0.75 + 0.75 * len / avg);
                    scores[a] += idf * tf / (K1 + tf);
                }
            }
        });
        normalised(scores)
    }

    /// Whether a semantic ranker takes part.
    pub fn is_hybrid(&self) -> bool {
        self.semantic.is_some()
    }

    fn admits(&self, i: usize, filter: &Filter<'_>) -> bool {
        if let Some(ro) = filter.read_only
            && self.read_only[i] != ro
        {
            return false;
        }
        if let Some(want) = filter.apis
            && !want.is_empty()
            && !self
                .apis
                .get(i)
                .is_some_and(|&a| want.contains(&self.api_labels[a as usize]))
        {
            return false;
        }
        match filter.toolsets {
            Some(want) if !want.is_empty() => self.toolsets[i].iter().any(|t| want.contains(t)),
            _ => true,
        }
    }

    /// BM25F scores of every tool for `query` (0 where no term matches).
    fn bm25f(&self, query: &str) -> Vec<f32> {
        let mut scores = vec![0f32; self.names.len()];
        let mut seen = std::collections::HashSet::new();
        let n = self.names.len() as f32;
        text::terms(query, |term| {
            let Some(&id) = self.vocabulary.get(term) else {
                return;
            };
            if !seen.insert(id) {
                return;
            }
            let list = &self.postings[id as usize];
            let df = list.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (doc, tf) in list {
                let d = *doc as usize;
                let mut t = 0f32;
                for f in Field::ALL {
                    let c = f32::from(tf[f as usize]);
                    if c == 0.0 {
                        continue;
                    }
                    let len = f32::from(self.lengths[d][f as usize]);
                    let norm = 1.0 - f.b() + f.b() * len / self.avg[f as usize];
                    t += f.weight() * c / norm;
                }
                scores[d] += idf * t / (K1 + t);
            }
        });
        scores
    }

    /// The lexical ranking: tools with a positive score, best first, ties by name.
    fn lexical(&self, query: &str, filter: &Filter<'_>) -> Vec<Hit> {
        self.with_evidence(&self.bm25f(query), filter)
    }

    /// The admitted tools whose BM25F score (`scores`, per tool) is positive, best
    /// first, ties by name.
    fn with_evidence(&self, scores: &[f32], filter: &Filter<'_>) -> Vec<Hit> {
        let mut hits: Vec<Hit> = scores
            .iter()
            .enumerate()
            .filter(|&(i, &s)| s > 0.0 && self.admits(i, filter))
            .map(|(tool, &score)| Hit { tool, score })
            .collect();
        self.sort(&mut hits);
        hits
    }

    /// The lexical-first ranking (the module's documentation): the lexical ranking, its
    /// ties ordered by the API prior, then the semantic ranking's best
    /// [`Index::set_fusion`] depth of the admitted tools with BM25F score 0, ordered by
    /// their scaled similarity plus their API's prior and scored below the lowest
    /// lexical hit.
    fn lexical_first(&self, query: &str, similarities: &[f32], filter: &Filter<'_>) -> Vec<Hit> {
        let scores = self.bm25f(query);
        let mut hits = self.with_evidence(&scores, filter);
        let prior = self.api_prior(query, &hits[..hits.len().min(LEXICAL_TOP)]);
        let about = |tool: usize| self.prior_of(&prior, tool);
        // Stable: equal scores and equal priors keep the order by name (without a prior,
        // the order is BM25F's as it is).
        if !prior.is_empty() {
            hits.sort_by(|a, b| {
                b.score
                    .total_cmp(&a.score)
                    .then_with(|| about(b.tool).total_cmp(&about(a.tool)))
            });
            if let Some(gate) = self.api_gate {
                self.gate_by_api(&mut hits, &prior, gate);
            }
        }
        if similarities.len() != self.names.len() {
            return hits;
        }
        let without: Vec<(f32, usize)> = (0..self.names.len())
            .filter(|&i| scores[i] <= 0.0 && self.admits(i, filter))
            .map(|i| (similarities[i], i))
            .collect();
        let fill = best_by_similarity(without, self.sem_depth);
        let (Some(top), Some(floor)) = (fill.first(), fill.last()) else {
            return hits;
        };
        let span = (top.0 - floor.0).max(f32::MIN_POSITIVE);
        // Similarity and prior both lie in 0..=1; with a prior their mean keeps the
        // fill's scores in 0..=λ.
        let ceiling = hits.last().map_or(1.0, |h| h.score) / 2.0;
        let share = if prior.is_empty() { 1.0 } else { 0.5 };
        let floor = floor.0;
        let mut filled: Vec<Hit> = fill
            .iter()
            .map(|&(c, tool)| Hit {
                tool,
                score: ceiling * share * (((c - floor) / span).clamp(0.0, 1.0) + about(tool)),
            })
            .collect();
        // Stable: equal scores keep the similarity order (ties by index).
        filled.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.extend(filled);
        hits
    }

    /// The API gate ([`ApiGate`]) on the lexical hits `hits` (best first), with the
    /// request's API prior `prior` (per API id).
    fn gate_by_api(&self, hits: &mut [Hit], prior: &[f32], gate: ApiGate) {
        let mut order: Vec<usize> = (0..prior.len()).collect();
        order.sort_by(|&a, &b| prior[b].total_cmp(&prior[a]).then(a.cmp(&b)));
        let (Some(&best), Some(&second)) = (order.first(), order.get(1)) else {
            return;
        };
        if prior[best] - prior[second] < gate.margin {
            return;
        }
        let api = |h: &Hit| self.apis.get(h.tool).copied();
        let top = &hits[..hits.len().min(LEXICAL_TOP)];
        if top.iter().all(|h| api(h) == top.first().and_then(api)) {
            return;
        }
        let n = hits.len().min(gate.within);
        // Stable: each group keeps its lexical order.
        hits[..n].sort_by_key(|h| api(h) != Some(best as u32));
    }

    /// The API prior (per API id, [`Index::api_prior`]) of tool `tool`'s API; 0 without
    /// a prior.
    fn prior_of(&self, prior: &[f32], tool: usize) -> f32 {
        self.apis
            .get(tool)
            .and_then(|&a| prior.get(a as usize))
            .copied()
            .unwrap_or(0.0)
    }

    fn sort(&self, hits: &mut [Hit]) {
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| self.names[a.tool].cmp(&self.names[b.tool]))
        });
    }

    /// The best `limit` tools for `query` that pass `filter`, best first.
    pub fn search(&self, query: &str, limit: usize, filter: &Filter<'_>) -> Vec<Hit> {
        let mut hits = match &self.semantic {
            None => self.lexical(query, filter),
            Some(sem) => match self.fusion {
                Fusion::LexicalFirst => self.lexical_first(query, &sem.similarities(query), filter),
                Fusion::Scored => self.fused(query, &sem.similarities(query), filter),
            },
        };
        // A query that is a tool's name ranks that tool first.
        if let Some(&exact) = self.by_name.get(query.trim().to_lowercase().as_str())
            && self.admits(exact, filter)
        {
            hits.retain(|h| h.tool != exact);
            let top = hits.first().map_or(1.0, |h| h.score);
            hits.insert(
                0,
                Hit {
                    tool: exact,
                    score: top.max(1.0),
                },
            );
        }
        hits.truncate(limit);
        hits
    }

    /// The two rankings of a request that the fusion and the gate read.
    fn rankings<'s>(
        &self,
        query: &str,
        similarities: &'s [f32],
        filter: &Filter<'_>,
    ) -> Rankings<'s> {
        let lexical = self.bm25f(query);
        let admitted: Vec<usize> = (0..self.names.len())
            .filter(|&i| self.admits(i, filter))
            .collect();
        let best_lexical = admitted.iter().map(|&i| lexical[i]).fold(0f32, f32::max);
        // The admitted tools by similarity, best first (ties by index), to the depth.
        let by_similarity = if similarities.len() == self.names.len() {
            let all = admitted.iter().map(|&i| (similarities[i], i)).collect();
            best_by_similarity(all, self.sem_depth)
        } else {
            Vec::new()
        };
        // The lexical ranking's best few, best first (ties by name).
        let mut lexical_top: Vec<Hit> = admitted
            .iter()
            .filter(|&&i| lexical[i] > 0.0)
            .map(|&tool| Hit {
                tool,
                score: lexical[tool],
            })
            .collect();
        let cmp = |a: &Hit, b: &Hit| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| self.names[a.tool].cmp(&self.names[b.tool]))
        };
        if lexical_top.len() > LEXICAL_TOP {
            lexical_top.select_nth_unstable_by(LEXICAL_TOP - 1, cmp);
            lexical_top.truncate(LEXICAL_TOP);
        }
        lexical_top.sort_unstable_by(cmp);
        let prior = self.api_prior(query, &lexical_top);
        Rankings {
            similarities,
            lexical,
            admitted,
            best_lexical,
            by_similarity,
            lexical_top,
            prior,
        }
    }

    /// The API prior of a request, per API label (empty: none): `1 − μ` of the
    /// API-level BM25 and μ of the lexical top hits' APIs (each API's share of their
    /// scores, divided by the best API's).
    fn api_prior(&self, query: &str, lexical_top: &[Hit]) -> Vec<f32> {
        let mut prior = self.api_bm25(query);
        let nu = self.api_text_weight;
        if nu > 0.0 {
            let own = self.api_text_bm25(query);
            if !own.is_empty() {
                let tools = std::mem::take(&mut prior);
                prior = normalised(
                    (0..own.len())
                        .map(|a| (1.0 - nu) * tools.get(a).copied().unwrap_or(0.0) + nu * own[a])
                        .collect(),
                );
            }
        }
        let mu = self.api_lexical_share;
        if mu > 0.0 && self.several_apis() && !lexical_top.is_empty() {
            let groups = self.api_count();
            let mut hits = vec![0f32; groups];
            for h in lexical_top {
                hits[self.apis[h.tool] as usize] += h.score;
            }
            let max = hits.iter().copied().fold(0f32, f32::max);
            prior = (0..groups)
                .map(|a| (1.0 - mu) * prior.get(a).copied().unwrap_or(0.0) + mu * hits[a] / max)
                .collect();
        }
        if self.api_margin < 1.0 && second_largest(&prior) > self.api_margin {
            return Vec::new();
        }
        prior
    }

    /// Which APIs the request is about: the API prior the default ranks with (over the
    /// tools `filter` admits), as (label, prior) for each API with a prior above 0,
    /// best first, ties by label; empty with fewer than two APIs ([`Index::set_apis`]).
    /// It needs no semantic ranker.
    pub fn api_ranking(&self, query: &str, filter: &Filter<'_>) -> Vec<(&str, f32)> {
        if !self.several_apis() {
            return Vec::new();
        }
        // The lexical hits count only with a lexical share μ (saves a BM25F pass).
        let hits = if self.api_lexical_share > 0.0 {
            self.lexical(query, filter)
        } else {
            Vec::new()
        };
        let prior = self.api_prior(query, &hits[..hits.len().min(LEXICAL_TOP)]);
        let mut ranked: Vec<(&str, f32)> = self
            .api_labels
            .iter()
            .zip(prior)
            .filter(|&(_, p)| p > 0.0)
            .map(|(label, p)| (label.as_str(), p))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        ranked
    }

    /// The gate's signals for `query` over the whole catalog (what the evaluation fits
    /// the gate on); `None` without a semantic ranker or when BM25F matches nothing.
    /// In order: the lexical top hit's idf-weighted coverage of the request's terms
    /// (terms no tool has count, with the largest idf); the lexical margin `1 − s₂ / s₁`;
    /// the overlap of the lexical and the semantic top [`LEXICAL_TOP`] (a share); the
    /// API prior of the lexical top hit's API (1 with one API); the calibrated semantic
    /// score of the lexical top hit.
    pub fn gate_features(&self, query: &str) -> Option<[f32; GATE_FEATURES]> {
        let sem = self.semantic.as_ref()?;
        let similarities = sem.similarities(query);
        let r = self.rankings(query, &similarities, &Filter::default());
        self.signals(query, &r)
    }

    fn signals(&self, query: &str, r: &Rankings<'_>) -> Option<[f32; GATE_FEATURES]> {
        let first = r.lexical_top.first()?;
        let n = self.names.len() as f32;
        let idf = |df: f32| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let (mut covered, mut all) = (0f32, 0f32);
        let mut seen = std::collections::HashSet::new();
        text::terms(query, |term| {
            if !seen.insert(term.to_string()) {
                return;
            }
            let (weight, has) = match self.vocabulary.get(term) {
                Some(&id) => {
                    let list = &self.postings[id as usize];
                    let has = list
                        .binary_search_by_key(&(first.tool as u32), |p| p.0)
                        .is_ok();
                    (idf(list.len() as f32), has)
                }
                None => (idf(0.0), false),
            };
            all += weight;
            if has {
                covered += weight;
            }
        });
        let coverage = if all > 0.0 { covered / all } else { 0.0 };
        let second = r.lexical_top.get(1).map_or(0.0, |h| h.score);
        let margin = 1.0 - second / first.score;
        let overlap = r
            .lexical_top
            .iter()
            .filter(|h| {
                r.by_similarity
                    .iter()
                    .take(LEXICAL_TOP)
                    .any(|p| p.1 == h.tool)
            })
            .count() as f32
            / LEXICAL_TOP as f32;
        let api = match self.apis.get(first.tool) {
            Some(&a) if !r.prior.is_empty() => r.prior[a as usize],
            _ => 1.0,
        };
        Some([coverage, margin, overlap, api, r.semantic(first.tool)])
    }

    /// The hybrid ranking: the convex combination of the calibrated lexical and
    /// semantic scores (see the module's documentation), best first, ties by name.
    fn fused(&self, query: &str, similarities: &[f32], filter: &Filter<'_>) -> Vec<Hit> {
        let r = self.rankings(query, similarities, filter);
        // The gate's probability that lexical is right (None: no gate or no signals).
        let lexical_odds = self
            .gate
            .and_then(|gate| Some(gate.probability(&self.signals(query, &r)?)));
        let lexical_weight = match (self.gate, lexical_odds) {
            (Some(gate), Some(p)) if p >= gate.threshold => gate.lexical_weight,
            _ => self.lexical_weight,
        };
        let (alpha, beta) = if r.best_lexical > 0.0 {
            (lexical_weight / r.best_lexical, 1.0 - lexical_weight)
        } else {
            (0.0, 1.0)
        };
        let lexical = &r.lexical;
        let mut candidates: Vec<usize> = r
            .admitted
            .iter()
            .copied()
            .filter(|&i| lexical[i] > 0.0)
            .collect();
        candidates.extend(r.by_similarity.iter().map(|p| p.1));
        candidates.sort_unstable();
        candidates.dedup();
        let gamma = self.api_weight;
        let about = |i: usize| gamma * self.prior_of(&r.prior, i);
        // The prior reorders tools that match; it admits none on its own.
        let mut hits: Vec<Hit> = candidates
            .into_iter()
            .map(|tool| Hit {
                tool,
                score: alpha * lexical[tool] + beta * r.semantic(tool),
            })
            .filter(|h| h.score > 0.0)
            .map(|h| Hit {
                score: h.score + about(h.tool),
                ..h
            })
            .collect();
        self.sort(&mut hits);
        if let (Some(reserve), Some(p)) = (self.reserve, lexical_odds)
            && p >= reserve.probability
        {
            keep_within(&mut hits, &r.lexical_top, reserve);
        }
        hits
    }

    /// Every admitted tool in index order, from `offset` (paging through the catalog
    /// with an empty query).
    pub fn all(&self, offset: usize, limit: usize, filter: &Filter<'_>) -> Vec<usize> {
        (0..self.names.len())
            .filter(|&i| self.admits(i, filter))
            .skip(offset)
            .take(limit)
            .collect()
    }

    /// Served names closest to `name` (for an unknown-name error): edit distance of the
    /// lower-cased names, then the search, at most `n`.
    pub fn closest(&self, name: &str, n: usize) -> Vec<&str> {
        let want = name.to_lowercase();
        let want: Vec<char> = want.chars().take(128).collect();
        let mut by_distance: Vec<(usize, &str)> = self
            .names
            .iter()
            .map(|c| {
                let lc: Vec<char> = c.to_lowercase().chars().take(128).collect();
                (levenshtein(&want, &lc), c.as_str())
            })
            .collect();
        by_distance.sort();
        let mut out: Vec<&str> = by_distance
            .iter()
            .filter(|(d, _)| *d <= want.len().max(4) / 2)
            .take(n)
            .map(|(_, c)| *c)
            .collect();
        if out.len() < n {
            let q: String = want.iter().collect();
            for h in self.search(&q, n, &Filter::default()) {
                let c = self.names[h.tool].as_str();
                if !out.contains(&c) && out.len() < n {
                    out.push(c);
                }
            }
        }
        out
    }
}

/// One request's rankings, as the fusion and the gate read them.
struct Rankings<'s> {
    /// The semantic similarity per tool (empty: none).
    similarities: &'s [f32],
    /// BM25F per tool.
    lexical: Vec<f32>,
    /// The tools the filter admits, in index order.
    admitted: Vec<usize>,
    best_lexical: f32,
    /// The semantic ranking's best (similarity, tool), best first, to the depth.
    by_similarity: Vec<(f32, usize)>,
    /// The lexical ranking's best [`LEXICAL_TOP`], best first.
    lexical_top: Vec<Hit>,
    /// The API prior per API label (empty: none).
    prior: Vec<f32>,
}

impl Rankings<'_> {
    /// Tool `i`'s similarity scaled between the depth's floor (0) and the best (1); 0
    /// without similarities. All similarities equal (span 0) scale to 0, not NaN.
    fn semantic(&self, i: usize) -> f32 {
        let (Some(top), Some(floor)) = (self.by_similarity.first(), self.by_similarity.last())
        else {
            return 0.0;
        };
        let span = (top.0 - floor.0).max(f32::MIN_POSITIVE);
        self.similarity(i)
            .map_or(0.0, |c| ((c - floor.0) / span).max(0.0))
    }

    fn similarity(&self, i: usize) -> Option<f32> {
        self.similarities.get(i).copied()
    }
}

/// The best `depth` of (similarity, tool), best first, ties by tool index.
fn best_by_similarity(mut items: Vec<(f32, usize)>, depth: usize) -> Vec<(f32, usize)> {
    let by_rank = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    let depth = depth.min(items.len());
    if depth > 0 {
        items.select_nth_unstable_by(depth - 1, by_rank);
        items.truncate(depth);
        items.sort_unstable_by(by_rank);
    } else {
        items.clear();
    }
    items
}

/// Scores divided by the best; empty when none is positive.
fn normalised(scores: Vec<f32>) -> Vec<f32> {
    let max = scores.iter().copied().fold(0f32, f32::max);
    if max <= 0.0 {
        return Vec::new();
    }
    scores.into_iter().map(|s| s / max).collect()
}

/// The second-largest value (0 with fewer than two).
fn second_largest(values: &[f32]) -> f32 {
    let (mut first, mut second) = (f32::MIN, 0f32);
    for &v in values {
        if v > first {
            second = first.max(0.0);
            first = v;
        } else if v > second {
            second = v;
        }
    }
    second
}

/// Moves the lexical ranking's best `reserve.top` tools that the fused `hits` rank
/// below the first `reserve.within` up to the last of those places, in lexical order
/// (each takes the score of the hit it displaces, so the list stays ordered).
fn keep_within(hits: &mut Vec<Hit>, lexical_top: &[Hit], reserve: Reserve) {
    let within = reserve.within.min(hits.len());
    let missing: Vec<usize> = lexical_top
        .iter()
        .take(reserve.top)
        .map(|h| h.tool)
        .filter(|&t| !hits[..within].iter().any(|h| h.tool == t))
        .collect();
    if missing.is_empty() {
        return;
    }
    hits.retain(|h| !missing.contains(&h.tool));
    let start = within.saturating_sub(missing.len()).min(hits.len());
    for (j, tool) in missing.into_iter().enumerate() {
        let at = (start + j).min(hits.len());
        let score = hits.get(at).map_or(0.0, |h| h.score);
        hits.insert(at, Hit { tool, score });
    }
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(name: &str, title: &str, desc: &str, tags: &[&str], ro: bool) -> Entry {
        Entry {
            text: ToolText {
                name: name.into(),
                ..Default::default()
            }
            .with(Field::Name, name)
            .with(Field::Title, title)
            .with(Field::Description, desc)
            .with(Field::Toolsets, tags.join(" ")),
            toolsets: tags.iter().map(|t| t.to_string()).collect(),
            read_only: ro,
        }
    }

    fn index() -> Index {
        Index::build(
            vec![
                entry(
                    "issues_list_for_repo",
                    "List repository issues",
                    "Lists issues in a repository.",
                    &["issues"],
                    true,
                ),
                entry(
                    "issues_create",
                    "Create an issue",
                    "Creates a new issue.",
                    &["issues"],
                    false,
                ),
                entry(
                    "pulls_list",
                    "List pull requests",
                    "Lists pull requests of a repository.",
                    &["pulls"],
                    true,
                ),
                entry(
                    "repos_delete",
                    "Delete a repository",
                    "Deletes a repository.",
                    &["repos"],
                    false,
                ),
                entry(
                    "users_get_authenticated",
                    "Get the authenticated user",
                    "The signed-in user.",
                    &["users"],
                    true,
                ),
            ],
            None,
        )
    }

    fn names(ix: &Index, hits: &[Hit]) -> Vec<String> {
        hits.iter().map(|h| ix.name(h.tool).to_string()).collect()
    }

    #[test]
    fn ranks_by_field_weighted_terms() {
        let ix = index();
        let hits = ix.search("open a new issue", 3, &Filter::default());
        assert_eq!(names(&ix, &hits)[0], "issues_create");
        let hits = ix.search("which pull requests are open", 3, &Filter::default());
        assert_eq!(names(&ix, &hits)[0], "pulls_list");
        let hits = ix.search("remove my repository", 5, &Filter::default());
        assert!(names(&ix, &hits).contains(&"repos_delete".to_string()));
        assert!(ix.search("the of and", 5, &Filter::default()).is_empty());
        assert!(ix.search("", 5, &Filter::default()).is_empty());
    }

    #[test]
    fn filters_and_exact_names() {
        let ix = index();
        let ro = ix.search(
            "repository",
            10,
            &Filter {
                read_only: Some(true),
                ..Filter::default()
            },
        );
        assert!(!names(&ix, &ro).contains(&"repos_delete".to_string()));
        let ts = ["pulls".to_string()];
        let only = ix.search(
            "list",
            10,
            &Filter {
                toolsets: Some(&ts),
                ..Filter::default()
            },
        );
        assert_eq!(names(&ix, &only), ["pulls_list"]);
        let exact = ix.search("REPOS_DELETE", 2, &Filter::default());
        assert_eq!(names(&ix, &exact)[0], "repos_delete");
    }

    #[test]
    fn ties_are_broken_by_name() {
        let ix = Index::build(
            vec![
                entry("b_tool", "same", "", &[], true),
                entry("a_tool", "same", "", &[], true),
            ],
            None,
        );
        let hits = ix.search("same", 2, &Filter::default());
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!(names(&ix, &hits), ["a_tool", "b_tool"]);
    }

    #[test]
    fn closest_names_for_typos() {
        let ix = index();
        assert_eq!(ix.closest("issue_create", 1), ["issues_create"]);
        assert!(ix.closest("zzzzzzzzzzzzzzzzzzzzzzzzz", 3).len() <= 3);
    }

    /// A tool whose seven fields are given in [`Field::ALL`]'s order.
    fn fielded(name: &str, fields: [&str; FIELDS]) -> Entry {
        let mut text = ToolText {
            name: name.into(),
            ..Default::default()
        };
        for (f, t) in Field::ALL.into_iter().zip(fields) {
            text = text.with(f, t);
        }
        Entry {
            text,
            toolsets: Vec::new(),
            read_only: true,
        }
    }

    /// Tools whose only text is a description: `(name, description)` each.
    fn described(tools: &[(&str, &str)]) -> Vec<Entry> {
        tools
            .iter()
            .map(|(name, d)| fielded(name, ["", "", d, "", "", "", ""]))
            .collect()
    }

    /// The oracle corpus: words the analyzer keeps as they are (checked below), spread
    /// over every field with lengths that differ from the fields' averages.
    fn oracle_corpus() -> Vec<Entry> {
        vec![
            fielded(
                "t_zero",
                [
                    "alpha",
                    "beta",
                    "alpha gamma gamma delta",
                    "omega",
                    "alpha kappa",
                    "sigma",
                    "alpha",
                ],
            ),
            fielded(
                "t_one",
                [
                    "beta gamma",
                    "alpha alpha beta",
                    "delta",
                    "",
                    "kappa",
                    "alpha sigma theta zeta",
                    "",
                ],
            ),
            fielded(
                "t_two",
                [
                    "delta",
                    "",
                    "alpha beta beta gamma delta kappa sigma theta",
                    "omega omega",
                    "",
                    "",
                    "alpha alpha zeta",
                ],
            ),
            fielded("t_three", ["zeta", "theta", "", "", "", "", ""]),
        ]
    }

    fn assert_scores(got: &[f32], want: &[f32]) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 1e-5, "tool {i}: {g} != {w} (all: {got:?})");
        }
    }

    /// BM25F against values computed outside this code: "simple BM25F" (Robertson and
    /// Zaragoza 2009, §3.4) with the weights w = (3, 2, 1, 1.5, 1.5, 0.6, 0.4),
    /// b = (0.3, 0.5, 0.75, 0.3, 0.3, 0.75, 0.75) and k1 = 1.2 stated in the module's
    /// documentation, evaluated by a 30-line Python script over the whitespace tokens
    /// (N = 4; average field lengths 1.25, 1.25, 3.25, 1 (0.75 raised to 1), 1 (0.75
    /// raised to 1), 1.25, 1).
    ///
    /// By hand, "omega" (toolsets only; df = 2, idf = ln(1 + 2.5 / 2.5) = ln 2):
    /// t_zero has 1 of 1 term, norm = 1, tf̃ = 1.5, score = ln 2 · 1.5 / 2.7 = 0.385082;
    /// t_two has 2 of 2, norm = 0.7 + 0.3 · 2 = 1.3, tf̃ = 3 / 1.3 = 2.307692,
    /// score = ln 2 · 2.307692 / 3.507692 = 0.456018.
    #[test]
    fn bm25f_matches_an_independent_computation() {
        // The corpus's words are single terms the analyzer leaves unchanged.
        let words = "alpha beta gamma delta omega kappa sigma theta zeta";
        assert_eq!(
            text::analyze(words).join(" "),
            words,
            "the oracle assumes unstemmed words"
        );
        let ix = Index::build(oracle_corpus(), None);
        assert_scores(&ix.bm25f("omega"), &[0.385082, 0.0, 0.456018, 0.0]);
        // Name, title, parameters, path and response fields, each normalised by length.
        assert_scores(&ix.bm25f("alpha"), &[0.293712, 0.243426, 0.142355, 0.0]);
        assert_scores(&ix.bm25f("zeta"), &[0.0, 0.056615, 0.041962, 0.259211]);
        // Terms add up; a repeated query term counts once.
        assert_scores(
            &ix.bm25f("alpha zeta alpha"),
            &[0.293712, 0.300041, 0.184317, 0.259211],
        );
        assert_scores(
            &ix.bm25f("kappa sigma"),
            &[0.306942, 0.254768, 0.202922, 0.0],
        );
        assert_scores(&ix.bm25f("unknown"), &[0.0; 4]);
    }

    #[test]
    fn lexical_ranking_is_by_score_then_name() {
        let ix = Index::build(oracle_corpus(), None);
        let hits = ix.search("alpha zeta", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_one", "t_zero", "t_three", "t_two"]);
        assert_eq!(
            names(&ix, &ix.search("alpha zeta", 2, &Filter::default())),
            ["t_one", "t_zero"]
        );
        // An exact name (any case, trimmed) is first, scored at least 1.
        let hits = ix.search("  T_TWO ", 2, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_two"]);
        assert_eq!(hits[0].score, 1.0);
    }

    /// A semantic stub with fixed similarities (the fusion's oracle is arithmetic on
    /// them, not an embedding model).
    #[derive(Debug)]
    struct Fixed(Vec<f32>);

    impl Semantic for Fixed {
        fn index(&mut self, _tools: &[&ToolText]) {}
        fn similarities(&self, _query: &str) -> Vec<f32> {
            self.0.clone()
        }
    }

    /// An index of `corpus` with fixed similarities, ranked by the earlier score fusion
    /// ([`Fusion::Scored`]: what the fusion tests below check).
    fn scored(corpus: Vec<Entry>, similarities: Vec<f32>) -> Index {
        let mut ix = Index::build(corpus, Some(Box::new(Fixed(similarities))));
        ix.set_fusion_mode(Fusion::Scored);
        ix
    }

    /// The default lexical-first ranking on fixed inputs, by hand from the module's
    /// documentation: BM25F's hits as `--search lexical`-style BM25F ranks them, then the
    /// tools with BM25F score 0 by similarity, scored below the lowest lexical hit.
    #[test]
    fn lexical_first_by_hand() {
        let ix = Index::build(
            oracle_corpus(),
            Some(Box::new(Fixed(vec![0.9, 0.5, 0.3, 0.1]))),
        );
        // "omega": BM25F 0.385082, 0, 0.456018, 0 → t_two, t_zero with those scores.
        // Without evidence: t_one (0.5), t_three (0.1): floor 0.1, span 0.4 → e = 1, 0;
        // λ = 0.385082 / 2 = 0.192541. t_zero's similarity (0.9) does not move it.
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_two", "t_zero", "t_one", "t_three"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.456018, 0.385082, 0.192541, 0.0],
        );
        // No lexical evidence at all: the semantic ranking, λ = 0.5 (floor 0.1, span 0.8).
        let hits = ix.search("nothing matches", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_zero", "t_one", "t_two", "t_three"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.5, 0.25, 0.125, 0.0],
        );
        // The depth bounds the filler: depth 1 adds t_one only.
        let mut ix = ix;
        ix.set_fusion(LEXICAL_WEIGHT, 1);
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_two", "t_zero", "t_one"]);
        // No similarities for this query: the lexical ranking alone.
        let ix = Index::build(oracle_corpus(), Some(Box::new(Fixed(Vec::new()))));
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_two", "t_zero"]);
    }

    /// The six description-only tools (each a one-term document) and the similarities
    /// of the API prior's hand-worked examples below.
    fn api_prior_corpus() -> (Vec<Entry>, Vec<f32>) {
        let corpus = described(&[
            ("a_alpha", "omega"),
            ("b_beta", "omega"),
            ("c_gamma", "delta"),
            ("d_delta", "zeta"),
            ("e_eps", "theta"),
            ("f_phi", "kappa"),
        ]);
        (corpus, vec![0.2, 0.3, 0.4, 0.9, 0.8, 0.1])
    }

    /// The API prior in the lexical-first default, by hand (description-only tools, each
    /// a one-term document; x = b_beta, c_gamma, e_eps and y = a_alpha, d_delta, f_phi).
    /// BM25F of "omega delta" (N = 6, all lengths 1): delta in c_gamma, idf ln(11/3)
    /// → 0.700202; omega in a_alpha and b_beta, idf ln 2.8 → 0.468009 each (a tie).
    /// API BM25 (equal sizes): omega in one tool of each, idf ln 1.2 → 0.082874; delta in
    /// x only, idf ln 2 → 0.315067; x 0.397941, y 0.082874 → prior 1, 0.208256. The tie
    /// goes to x's b_beta. Fill (BM25F 0): similarities 0.9, 0.8, 0.1 scale to 1, 0.875, 0;
    /// λ = 0.468009 / 2; each scores λ · (e + prior) / 2: d_delta 0.141369, e_eps 0.219379,
    /// f_phi 0.024366, so x's e_eps passes y's more similar d_delta.
    #[test]
    fn lexical_first_orders_ties_and_fill_by_the_api_prior() {
        let (corpus, similarities) = api_prior_corpus();
        let mut ix = Index::build(corpus, Some(Box::new(Fixed(similarities))));
        let scores = |hits: &[Hit]| hits.iter().map(|h| h.score).collect::<Vec<_>>();
        // One API: ties by name, the fill by similarity (λ · e).
        let hits = ix.search("omega delta", 10, &Filter::default());
        assert_eq!(
            names(&ix, &hits),
            ["c_gamma", "a_alpha", "b_beta", "d_delta", "e_eps", "f_phi"]
        );
        assert_scores(
            &scores(&hits),
            &[0.700202, 0.468009, 0.468009, 0.234004, 0.204754, 0.0],
        );
        ix.set_apis(&["y", "x", "x", "y", "x", "y"]);
        assert_scores(&ix.api_prior("omega delta", &[]), &[0.208256, 1.0]);
        let hits = ix.search("omega delta", 10, &Filter::default());
        assert_eq!(
            names(&ix, &hits),
            ["c_gamma", "b_beta", "a_alpha", "e_eps", "d_delta", "f_phi"]
        );
        assert_scores(
            &scores(&hits),
            &[0.700202, 0.468009, 0.468009, 0.219379, 0.141369, 0.024366],
        );
        // A request no API's tools match has no prior: the order without APIs.
        let hits = ix.search("nothing here", 3, &Filter::default());
        assert_eq!(names(&ix, &hits), ["d_delta", "e_eps", "c_gamma"]);
    }

    /// The API gate by hand (description-only one-term tools; x = x_a, x_b, x_c "delta",
    /// y = y_a "omega", y_b "kappa", y_c "theta"). BM25F of "omega delta" (N = 6): omega
    /// idf ln(14/3) → 0.700202 for y_a; delta idf ln 2 → 0.315067 for each x tool. API
    /// BM25 (equal sizes): delta in x's three tools (tf 3 → 3/4.2), omega in one of y's
    /// (tf 1 → 1/2.2), same idf → prior x 1, y 0.636364: a lead of 0.363636.
    #[test]
    fn the_api_gate_moves_the_leading_api_s_hits_first() {
        let corpus = described(&[
            ("x_a", "delta"),
            ("x_b", "delta"),
            ("x_c", "delta"),
            ("y_a", "omega"),
            ("y_b", "kappa"),
            ("y_c", "theta"),
        ]);
        let mut ix = Index::build(corpus, Some(Box::new(Fixed(vec![0.5; 6]))));
        ix.set_apis(&["x", "x", "x", "y", "y", "y"]);
        assert_scores(&ix.api_prior("omega delta", &[]), &[1.0, 0.636364]);
        let first4 = |ix: &Index| {
            let hits = ix.search("omega delta", 4, &Filter::default());
            names(ix, &hits)
        };
        assert_eq!(API_GATE, None);
        assert_eq!(first4(&ix), ["y_a", "x_a", "x_b", "x_c"]);
        ix.set_api_gate(Some(ApiGate {
            margin: 0.3,
            within: 10,
        }));
        assert_eq!(first4(&ix), ["x_a", "x_b", "x_c", "y_a"]);
        let hits = ix.search("omega delta", 4, &Filter::default());
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.315067, 0.315067, 0.315067, 0.700202],
        );
        ix.set_api_gate(Some(ApiGate {
            margin: 0.3,
            within: 2,
        }));
        assert_eq!(first4(&ix), ["x_a", "y_a", "x_b", "x_c"]);
        // A lead below the margin: lexical's order.
        ix.set_api_gate(Some(ApiGate {
            margin: 0.4,
            within: 10,
        }));
        assert_eq!(first4(&ix), ["y_a", "x_a", "x_b", "x_c"]);
    }

    /// The API ranking a caller is shown, and the API filter, on the corpus above with
    /// the labels swapped (by hand: prior y 1, x 0.208256, so best first is not label
    /// order; no API matches "nothing here"). Filtered to y, the ranking is y's lexical
    /// hits (c_gamma, then b_beta) and y's fill (e_eps); to an
    /// unknown label, nothing. One API: no ranking, and the filter by its label keeps
    /// every tool.
    #[test]
    fn api_ranking_and_the_api_filter() {
        let (corpus, similarities) = api_prior_corpus();
        let mut ix = Index::build(corpus.clone(), Some(Box::new(Fixed(similarities))));
        ix.set_apis(&["x", "y", "y", "x", "y", "x"]);
        let ranking = ix.api_ranking("omega delta", &Filter::default());
        assert_eq!(ranking.iter().map(|r| r.0).collect::<Vec<_>>(), ["y", "x"]);
        assert_scores(
            &ranking.iter().map(|r| r.1).collect::<Vec<_>>(),
            &[1.0, 0.208256],
        );
        assert!(
            ix.api_ranking("nothing here", &Filter::default())
                .is_empty()
        );
        let only = |labels: &[&str]| labels.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        let y = only(&["y"]);
        let filter = Filter {
            apis: Some(&y),
            ..Filter::default()
        };
        let hits = ix.search("omega delta", 10, &filter);
        assert_eq!(names(&ix, &hits), ["c_gamma", "b_beta", "e_eps"]);
        let unknown = only(&["z"]);
        let filter = Filter {
            apis: Some(&unknown),
            ..Filter::default()
        };
        assert!(ix.search("omega delta", 10, &filter).is_empty());
        // Without a semantic ranker: the same filter, BM25F's hits of y only.
        let mut lexical = Index::build(corpus, None);
        lexical.set_apis(&["x", "y", "y", "x", "y", "x"]);
        let filter = Filter {
            apis: Some(&y),
            ..Filter::default()
        };
        let hits = lexical.search("omega delta", 10, &filter);
        assert_eq!(names(&lexical, &hits), ["c_gamma", "b_beta"]);
        let x = only(&["x"]);
        ix.set_apis(&["x"; 6]);
        assert!(ix.api_ranking("omega delta", &Filter::default()).is_empty());
        let filter = Filter {
            apis: Some(&x),
            ..Filter::default()
        };
        assert_eq!(ix.search("omega delta", 10, &filter).len(), 6);
    }

    /// A small deterministic generator (xorshift64*) for the property below.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn words(&mut self, vocabulary: &[&str], most: usize) -> String {
            let n = self.below(most + 1);
            (0..n)
                .map(|_| vocabulary[self.below(vocabulary.len())])
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    /// Never worse than lexical, as a property: over many generated catalogs (random
    /// field texts, toolsets, read-only flags, similarities — ties included — and, in
    /// two of three, two or three APIs for the API prior), requests (known and unknown
    /// words, exact tool names) and filters, for every k the default's top k holds
    /// lexical's top k (an index without a semantic ranker) up to the order of equal
    /// BM25F scores: its first hits are lexical hits with lexical's scores, place by
    /// place; every lexical hit scored above the k-th is in it, and all of lexical's
    /// top k when the cutoff splits no tie. After the lexical hits come only tools
    /// lexical does not list, and no tool twice.
    #[test]
    fn lexical_first_contains_the_lexical_top_k() {
        const VOCABULARY: [&str; 12] = [
            "repo", "issue", "pull", "review", "user", "list", "create", "delete", "movie",
            "weather", "city", "label",
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut checked, mut reordered) = (0, 0);
        for _ in 0..200 {
            let n = 1 + rng.below(24);
            let corpus: Vec<Entry> = (0..n)
                .map(|i| {
                    let mut fields: [String; FIELDS] =
                        std::array::from_fn(|_| rng.words(&VOCABULARY, 3));
                    fields[Field::Name as usize] = format!("tool_{i} {}", fields[0]);
                    let mut e =
                        fielded(&format!("tool_{i}"), fields.each_ref().map(|f| f.as_str()));
                    e.toolsets = vec![["a", "b"][rng.below(2)].to_string()];
                    e.read_only = rng.below(2) == 0;
                    e
                })
                .collect();
            // Similarities from a few levels, so ties happen.
            let similarities: Vec<f32> = (0..n).map(|_| rng.below(5) as f32 / 4.0).collect();
            let mut lexical = Index::build(corpus.clone(), None);
            let mut default = Index::build(corpus, Some(Box::new(Fixed(similarities))));
            default.set_fusion(LEXICAL_WEIGHT, 1 + rng.below(n + 2));
            let apis = 1 + rng.below(3);
            let labels: Vec<String> = (0..n).map(|_| rng.below(apis).to_string()).collect();
            default.set_apis(&labels);
            // Labels without a semantic ranker: no prior, only the API filter.
            lexical.set_apis(&labels);
            for _ in 0..10 {
                let query = match rng.below(6) {
                    0 => format!("tool_{}", rng.below(n)),
                    1 => format!("{} zzz unknown", rng.words(&VOCABULARY, 2)),
                    _ => rng.words(&VOCABULARY, 4),
                };
                let toolsets = [String::from("a")];
                let api = [rng.below(apis).to_string()];
                let filter = Filter {
                    toolsets: (rng.below(3) == 0).then_some(&toolsets[..]),
                    read_only: [None, Some(true), Some(false)][rng.below(3)],
                    apis: (rng.below(3) == 0).then_some(&api[..]),
                };
                let all = lexical.search(&query, n + 1, &filter);
                let lexical_score = |tool: usize| all.iter().find(|h| h.tool == tool);
                for k in 0..=n + 1 {
                    let want = lexical.search(&query, k, &filter);
                    let got = default.search(&query, k, &filter);
                    let why = || {
                        format!(
                            "{query:?} k={k}: lexical {:?}, default {:?}",
                            names(&lexical, &want),
                            names(&default, &got)
                        )
                    };
                    for (i, h) in want.iter().enumerate() {
                        let g = got.get(i).and_then(|g| lexical_score(g.tool));
                        assert_eq!(g.map(|g| g.score), Some(h.score), "place {i}: {}", why());
                        assert_eq!(got[i].score, h.score, "place {i}: {}", why());
                        reordered += usize::from(got[i].tool != h.tool);
                    }
                    let cutoff = want.last().map_or(f32::MAX, |h| h.score);
                    for h in &want {
                        if h.score > cutoff || want.len() < k {
                            assert!(
                                got.iter().any(|g| g.tool == h.tool),
                                "lexical's {} is missing: {}",
                                lexical.name(h.tool),
                                why()
                            );
                        }
                    }
                    for g in got.iter().skip(want.len()) {
                        assert!(lexical_score(g.tool).is_none(), "{}", why());
                    }
                    let mut tools: Vec<usize> = got.iter().map(|h| h.tool).collect();
                    tools.sort_unstable();
                    tools.dedup();
                    assert_eq!(tools.len(), got.len(), "{query:?}: a tool listed twice");
                    checked += want.len();
                }
            }
        }
        // The property was exercised on lexical hits, not only on empty rankings, and on
        // ties the API prior reordered.
        assert!(checked > 1000, "only {checked} lexical hits checked");
        assert!(reordered > 50, "only {reordered} ties reordered");
    }

    /// The oracle corpus with fixed similarities, fused at α = 0.7 and depth 50.
    fn hybrid(similarities: Vec<f32>) -> Index {
        let mut ix = scored(oracle_corpus(), similarities);
        ix.set_fusion(0.7, 50);
        ix
    }

    /// Fusion on fixed inputs, computed by hand from the module's formula
    /// (α = 0.7, depth 50 ≥ the 4 tools, so the floor is the lowest similarity).
    #[test]
    fn fusion_is_a_calibrated_convex_combination() {
        // "omega": lexical 0.385082, 0, 0.456018, 0 → l = 0.844447, 0, 1, 0.
        // Similarities 0.9, 0.5, 0.3, 0.1: floor 0.1, span 0.8 → e = 1, 0.5, 0.25, 0.
        // Fused: 0.7·0.844447 + 0.3 = 0.891113; 0.15; 0.7 + 0.075 = 0.775; 0 (dropped).
        let ix = hybrid(vec![0.9, 0.5, 0.3, 0.1]);
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_zero", "t_two", "t_one"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.891113, 0.775, 0.15],
        );
        // No lexical match: the semantic score alone (t_three scales to 0 and is out).
        let hits = ix.search("nothing matches", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_zero", "t_one", "t_two"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[1.0, 0.5, 0.25],
        );
        // A query without an embedding (empty similarities) ranks lexically, α-scaled.
        let ix = hybrid(Vec::new());
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_two", "t_zero"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.7, 0.591113],
        );
    }

    /// With depth 2 the floor is the 2nd best similarity and only the best two are
    /// semantic candidates.
    #[test]
    fn fusion_depth_sets_the_floor_and_the_candidates() {
        let mut ix = scored(oracle_corpus(), vec![0.2, 0.6, 0.4, 0.8]);
        ix.set_fusion(0.5, 2);
        // "zeta": lexical 0, 0.056615, 0.041962, 0.259211 → l = 0, 0.218414, 0.161883, 1.
        // Best two similarities 0.8 (t_three), 0.6 (t_one): floor 0.6, span 0.2 →
        // e = 0, 0, 0, 1. Fused: t_three 1.0; t_one 0.109207; t_two 0.080942; t_zero
        // is neither a lexical hit nor a semantic candidate.
        let hits = ix.search("zeta", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_three", "t_one", "t_two"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[1.0, 0.109207, 0.080942],
        );
        // Only semantic candidates when BM25F finds nothing: t_three (1) and t_one (0,
        // dropped).
        let hits = ix.search("nothing", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_three"]);
        // Filters apply to the semantic candidates and the floor: of t_zero and t_two
        // (read-write), floor 0.2, e = 0, 1.
        let mut corpus = oracle_corpus();
        corpus[0].read_only = false;
        corpus[2].read_only = false;
        let ix = scored(corpus, vec![0.2, 0.6, 0.4, 0.8]);
        let rw = Filter {
            read_only: Some(false),
            ..Filter::default()
        };
        let hits = ix.search("nothing", 10, &rw);
        assert_eq!(names(&ix, &hits), ["t_two"]);
        assert_scores(&[hits[0].score], &[1.0]);
    }

    /// The API prior by hand: tools 0, 1 are API x, 2, 3 API y (description only).
    /// API BM25 of "omega beta" (G = 2, equal sizes): omega is in 2 tools of x only,
    /// idf ln 2, tf 2 → 0.433217; beta in one tool of each, idf ln 1.2, tf 1 → 0.082874.
    /// x = 0.516091, y = 0.082874 → prior 1, 0.160580.
    /// Tool BM25F (N 4, avg length 1.25, idf ln 2 each): 0.505946, 0.343143, 0.343143, 0
    /// → l = 1, 0.678222, 0.678222, 0; similarities 0.2, 0.1, 1, 0 → e = same; at
    /// α = 0.5: 0.6, 0.389111, 0.839111, 0 (out). The prior (γ = 0.3) adds 0.3, 0.3,
    /// 0.048174: 0.9, 0.689111, 0.887285 — x's tool now beats y's look-alike.
    #[test]
    fn api_prior_lifts_the_request_s_own_api() {
        let corpus = described(&[
            ("x_zero", "omega beta"),
            ("x_one", "omega"),
            ("y_two", "beta"),
            ("y_three", "gamma"),
        ]);
        let mut ix = scored(corpus, vec![0.2, 0.1, 1.0, 0.0]);
        ix.set_fusion(0.5, 100);
        let hits = ix.search("omega beta", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["y_two", "x_zero", "x_one"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.839111, 0.6, 0.389111],
        );
        ix.set_apis(&["x", "x", "y", "y"]);
        assert_scores(&ix.api_bm25("omega beta"), &[1.0, 0.160580]);
        ix.set_api_weight(0.3);
        let hits = ix.search("omega beta", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["x_zero", "y_two", "x_one"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.9, 0.887285, 0.689111],
        );
        // One API, or labels of the wrong length: no prior.
        ix.set_apis(&["x", "x", "x", "x"]);
        assert!(ix.api_bm25("omega beta").is_empty());
        ix.set_apis(&["x", "y"]);
        assert!(ix.api_bm25("omega beta").is_empty());
        assert_eq!(API_WEIGHT, 0.3);
    }

    /// The APIs' own texts in the prior, by hand: both APIs' tools have "omega" (tool
    /// prior 1, 1: the APIs tie); only x's text has "newsletter" (text BM25: idf ln 2 in
    /// x only → 1, 0). At ν = 0.5: 1, 0.5. With the margin ρ = 0.75 the second API's
    /// 0.5 is within it and the prior applies; at ρ = 0.4 it does not (no prior).
    #[test]
    fn api_texts_and_the_margin_in_the_prior() {
        let mut ix = scored(
            described(&[("x_zero", "omega"), ("y_one", "omega")]),
            vec![0.5, 0.5],
        );
        ix.set_apis(&["x", "y"]);
        ix.set_api_texts(&[("y", "Transactional mail"), ("x", "The newsletter API")]);
        assert_scores(&ix.api_prior("omega newsletter", &[]), &[1.0, 1.0]);
        assert_scores(&ix.api_text_bm25("omega newsletter"), &[1.0, 0.0]);
        ix.set_api_text_weight(0.5, 0.75);
        assert_scores(&ix.api_prior("omega newsletter", &[]), &[1.0, 0.5]);
        ix.set_api_text_weight(0.5, 0.4);
        assert!(ix.api_prior("omega newsletter", &[]).is_empty());
        // Re-labelling the APIs forgets their texts.
        ix.set_apis(&["x", "y"]);
        assert!(ix.api_text_bm25("omega newsletter").is_empty());
        assert_eq!((API_TEXT_WEIGHT, API_MARGIN), (0.0, 1.0));
    }

    /// The lexical top hits' share μ of the prior, by hand. Each API has one tool with
    /// "omega" and one without, so the API BM25 ties at 1, 1. Lexical top hits x 3 + x 1 and y 2 give the
    /// APIs 4 and 2, divided by the best: 1, 0.5. At μ = 0.5: 0.5·1 + 0.5·1 = 1 and
    /// 0.5·1 + 0.5·0.5 = 0.75. Without top hits, or at μ = 0, the API BM25 alone.
    #[test]
    fn the_lexical_top_hits_share_of_the_prior() {
        let mut ix = scored(
            described(&[
                ("x_zero", "omega"),
                ("x_one", "delta"),
                ("y_two", "omega"),
                ("y_three", "delta"),
            ]),
            vec![0.5, 0.5, 0.5, 0.5],
        );
        ix.set_apis(&["x", "x", "y", "y"]);
        let hit = |tool: usize, score: f32| Hit { tool, score };
        let top = [hit(0, 3.0), hit(2, 2.0), hit(1, 1.0)];
        assert_scores(&ix.api_prior("omega", &top), &[1.0, 1.0]);
        ix.set_api_lexical_share(0.5);
        assert_scores(&ix.api_prior("omega", &top), &[1.0, 0.75]);
        assert_scores(&ix.api_prior("omega", &[]), &[1.0, 1.0]);
        ix.set_api_lexical_share(1.0);
        assert_scores(&ix.api_prior("omega", &top), &[1.0, 0.5]);
    }

    /// `api_text` reads the title, the description and the tags' names and descriptions.
    #[test]
    fn an_api_s_own_text() {
        let doc = json!({"info": {"name": "m", "title": "Mail API", "description": ""},
            "tags": [{"name": "lists", "description": "Your audiences"}, {"name": "reports"}]});
        assert_eq!(api_text(&doc), "Mail API\nlists\nYour audiences\nreports");
        assert_eq!(api_text(&json!({})), "");
    }

    /// Rank-level safety by hand: the lexical top 2 (e, b) within the first 3 hits of
    /// a, b, c, d, e: b is; e moves to the third place, with c's score.
    #[test]
    fn reserve_keeps_the_lexical_top_within_the_first_hits() {
        let hit = |tool: usize, score: f32| Hit { tool, score };
        let mut hits = vec![
            hit(0, 0.9),
            hit(1, 0.8),
            hit(2, 0.7),
            hit(3, 0.6),
            hit(4, 0.5),
        ];
        let lexical = [hit(4, 3.0), hit(1, 2.0), hit(3, 1.0)];
        let reserve = Reserve {
            top: 2,
            within: 3,
            probability: 0.0,
        };
        keep_within(&mut hits, &lexical, reserve);
        assert_eq!(
            hits,
            [
                hit(0, 0.9),
                hit(1, 0.8),
                hit(4, 0.7),
                hit(2, 0.7),
                hit(3, 0.6)
            ]
        );
        // Both missing: they take the last two of the three places, in lexical order.
        let mut hits = vec![
            hit(0, 0.9),
            hit(2, 0.8),
            hit(3, 0.7),
            hit(1, 0.6),
            hit(4, 0.5),
        ];
        keep_within(&mut hits, &lexical, reserve);
        let order: Vec<usize> = hits.iter().map(|h| h.tool).collect();
        assert_eq!(order, [0, 4, 1, 2, 3]);
        assert_eq!(RESERVE, None);
        assert_eq!(second_largest(&[0.2, 1.0, 0.5]), 0.5);
        assert_eq!(second_largest(&[1.0]), 0.0);
    }

    /// The gate's signals by hand on "omega" (similarities 0.9, 0.5, 0.3, 0.1): BM25F
    /// 0.385082, 0, 0.456018, 0, so t_two is the lexical top hit and t_zero second;
    /// coverage 1 (its one term is t_two's), margin 1 − 0.844447, overlap 2 of 10
    /// (both lexical hits are among the four semantic ones), API 1 (one API), semantic
    /// (0.3 − 0.1) / 0.8. With a term no tool has (idf ln 10 against omega's ln 2,
    /// N = 4, df 2) the coverage is ln 2 / (ln 2 + ln 10).
    #[test]
    fn gate_signals_by_hand() {
        let ix = hybrid(vec![0.9, 0.5, 0.3, 0.1]);
        assert_scores(
            &ix.gate_features("omega").expect("omega matches"),
            &[1.0, 0.155553, 0.2, 1.0, 0.25],
        );
        assert_scores(
            &ix.gate_features("omega xylophone").expect("omega matches"),
            &[0.231378, 0.155553, 0.2, 1.0, 0.25],
        );
        assert!(ix.gate_features("xylophone").is_none());
        assert!(
            Index::build(oracle_corpus(), None)
                .gate_features("omega")
                .is_none()
        );
    }

    /// A gate that calls "omega" lexical fuses it at its own α (1: BM25F's order,
    /// scores l = 1, 0.844447; t_one, a semantic candidate only, scores 0 and is out);
    /// one that does not leaves the default fusion (0.922224, 0.625, 0.25).
    #[test]
    fn the_gate_moves_a_confident_request_to_lexical() {
        let mut ix = scored(oracle_corpus(), vec![0.9, 0.5, 0.3, 0.1]);
        let gate = |bias: f32| Gate {
            weights: [1.0, 0.0, 0.0, 0.0, 0.0],
            bias,
            threshold: 0.5,
            lexical_weight: 1.0,
        };
        // σ(1 − 0.9) ≥ 0.5: lexical.
        ix.set_gate(Some(gate(-0.9)));
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_two", "t_zero"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[1.0, 0.844447],
        );
        // σ(1 − 1.1) < 0.5: the default fusion.
        ix.set_gate(Some(gate(-1.1)));
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_zero", "t_two", "t_one"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.922224, 0.625, 0.25],
        );
    }

    /// The defaults chosen on the tuning set (PERFORMANCE.md), at work: α = 0.5 and
    /// depth 100 (≥ 4 tools: the floor is the lowest similarity).
    #[test]
    fn default_fusion_weights() {
        assert_eq!((LEXICAL_WEIGHT, SEM_DEPTH), (0.5, 100));
        // The gate (τ = 0.4, α = 0.95) leaves "omega" to the fusion: its signals
        // 1, 0.155553, 0.2, 1, 0.25 give z ≈ −3.28, a probability ≈ 0.036.
        let gate = GATE.expect("a default gate");
        assert_eq!((gate.threshold, gate.lexical_weight), (0.4, 0.95));
        assert!(gate.probability(&[1.0, 0.155553, 0.2, 1.0, 0.25]) < 0.04);
        let ix = scored(oracle_corpus(), vec![0.9, 0.5, 0.3, 0.1]);
        // "omega": l = 0.844447, 0, 1, 0; e = 1, 0.5, 0.25, 0.
        // Fused: 0.422224 + 0.5 = 0.922224; 0.25; 0.5 + 0.125 = 0.625.
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_zero", "t_two", "t_one"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.922224, 0.625, 0.25],
        );
    }

    /// Equal similarities carry no preference: the lexical score alone orders, and
    /// nothing becomes NaN.
    #[test]
    fn equal_similarities_scale_to_zero() {
        let ix = hybrid(vec![0.4; 4]);
        assert!(ix.is_hybrid());
        let hits = ix.search("omega", 10, &Filter::default());
        assert_eq!(names(&ix, &hits), ["t_two", "t_zero"]);
        assert_scores(
            &hits.iter().map(|h| h.score).collect::<Vec<_>>(),
            &[0.7, 0.591113],
        );
        assert!(ix.search("nothing", 10, &Filter::default()).is_empty());
        assert!(!Index::build(oracle_corpus(), None).is_hybrid());
    }

    /// An empty toolset list filters nothing (as if absent).
    #[test]
    fn an_empty_toolset_filter_keeps_every_tool() {
        let ix = index();
        let none: [String; 0] = [];
        let all = ix.search(
            "list",
            10,
            &Filter {
                toolsets: Some(&none),
                ..Filter::default()
            },
        );
        assert_eq!(
            names(&ix, &all),
            names(&ix, &ix.search("list", 10, &Filter::default()))
        );
        assert_eq!(all.len(), 2);
    }

    /// Equal fused scores are ordered by name.
    #[test]
    fn fused_ties_are_broken_by_name() {
        let ix = scored(
            vec![
                entry("b_tool", "same", "", &[], true),
                entry("a_tool", "same", "", &[], true),
                entry("c_tool", "other", "", &[], true),
            ],
            vec![0.5, 0.5, 0.0],
        );
        let hits = ix.search("same", 3, &Filter::default());
        assert_eq!(names(&ix, &hits), ["a_tool", "b_tool"]);
        assert_eq!(hits[0].score, hits[1].score);
        assert_scores(&[hits[0].score], &[1.0]);
    }

    #[test]
    fn closest_takes_near_names_then_search_hits_without_duplicates() {
        let ix = Index::build(oracle_corpus(), None);
        // Edit distances to "t_tow": t_two 2 (≤ 5 / 2), t_one 3, t_zero 4, t_three 4;
        // its search ("t tow") matches nothing.
        assert_eq!(ix.closest("t_tow", 1), ["t_two"]);
        assert_eq!(ix.closest("t_tow", 3), ["t_two"]);
        // "zeta": no name within 2 edits (4 to 6 away); the search for "zeta" ranks
        // t_three, t_one, t_two.
        assert_eq!(ix.closest("zeta", 2), ["t_three", "t_one"]);
        // "issue_create": issues_create is 1 edit away; the search then ranks
        // issues_create (again, not repeated) and issues_list_for_repo.
        let ix = index();
        assert_eq!(
            ix.closest("issue_create", 2),
            ["issues_create", "issues_list_for_repo"]
        );
        assert_eq!(ix.closest("issue_create", 1), ["issues_create"]);
    }

    /// Edit distances from the textbook examples (Wagner–Fischer).
    #[test]
    fn levenshtein_distances() {
        let d = |a: &str, b: &str| {
            let a: Vec<char> = a.chars().collect();
            let b: Vec<char> = b.chars().collect();
            levenshtein(&a, &b)
        };
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("flaw", "lawn"), 2);
        assert_eq!(d("abc", ""), 3);
        assert_eq!(d("", "ab"), 2);
        assert_eq!(d("abcd", "abd"), 1);
        assert_eq!(d("abd", "abcd"), 1);
        assert_eq!(d("same", "same"), 0);
    }

    /// `build_with` builds the same index as `build` and returns the side work's value.
    #[test]
    fn build_with_runs_the_side_work() {
        let sims = vec![0.9, 0.5, 0.3, 0.1];
        let (ix, side) =
            Index::build_with(oracle_corpus(), Some(Box::new(Fixed(sims.clone()))), || 42);
        assert_eq!(side, 42);
        let plain = Index::build(oracle_corpus(), Some(Box::new(Fixed(sims))));
        assert_eq!(
            ix.search("omega", 10, &Filter::default()),
            plain.search("omega", 10, &Filter::default())
        );
        let (lexical, side) = Index::build_with(oracle_corpus(), None, || "links");
        assert_eq!((side, lexical.is_hybrid()), ("links", false));
    }

    #[test]
    fn index_size() {
        let ix = Index::build(oracle_corpus(), None);
        assert_eq!((ix.len(), ix.is_empty()), (4, false));
        let empty = Index::build(Vec::new(), None);
        assert_eq!((empty.len(), empty.is_empty()), (0, true));
        assert!(empty.search("alpha", 5, &Filter::default()).is_empty());
    }

    #[test]
    fn property_walk_stops_at_its_depth() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {
                "b": {"type": "object", "properties": {"c": {}}}}}}});
        let walked = |depth: usize| {
            let mut w = PropertyWalk::new(&schema, depth);
            let mut out = Vec::new();
            while let Some((n, _)) = w.next() {
                out.push(n);
            }
            out
        };
        assert_eq!(walked(1), ["a"]);
        assert_eq!(walked(2), ["a", "b"]);
        assert_eq!(walked(3), ["a", "b", "c"]);
        // items and combinators stay at their schema's depth; depth 0 lists the root's
        // own properties only, without entering its items.
        let array = json!({"type": "array", "items": {"properties": {"x": {}}},
            "properties": {"len": {}}, "allOf": [{"properties": {"y": {}}}]});
        let mut w = PropertyWalk::new(&array, 0);
        assert_eq!(w.next().map(|p| p.0), Some("len"));
        assert_eq!(w.next(), None);
        let mut w = PropertyWalk::new(&array, 1);
        let mut got = Vec::new();
        while let Some((n, _)) = w.next() {
            got.push(n);
        }
        assert_eq!(got, ["len", "x", "y"]);
    }

    #[test]
    fn property_walk_visits_at_most_its_budget() {
        let branches: Vec<Value> = (0..WALK_BUDGET + 10)
            .map(|i| json!({"properties": {format!("p{i}"): {}}}))
            .collect();
        let schema = json!({ "allOf": branches });
        let mut w = PropertyWalk::new(&schema, 2);
        let mut n = 0;
        while w.next().is_some() {
            n += 1;
        }
        // The root is the first of WALK_BUDGET visits; every other one is a branch.
        assert_eq!(n, WALK_BUDGET - 1);
    }

    #[test]
    fn tool_text_reads_declarations() {
        let doc = json!({"components": {"schemas": {"In": {"type": "object",
            "properties": {"movie_id": {"type": "integer", "description": "The TMDB id"}}}}}});
        let decl = json!({"name": "movie_credits", "title": "Movie credits",
            "inputSchema": {"$componentRef": "#/components/schemas/In"},
            "outputSchema": {"type": "object", "properties": {"cast": {"type": "array",
                "items": {"$ref": "#/$defs/Person"}}},
                "$defs": {"Person": {"type": "object", "properties": {"character": {}}}}},
            "tags": ["movies"],
            "x-mcpdesc-openapi": {"method": "GET", "path": "/movie/{movie_id}/credits"}});
        let t = ToolText::of_tool("tmdb_movie_credits", &doc, &decl);
        assert_eq!(t.name, "tmdb_movie_credits");
        assert_eq!(
            t.fields[Field::Name as usize],
            "tmdb_movie_credits movie_credits"
        );
        assert_eq!(t.fields[Field::Path as usize], "get movie credits");
        assert_eq!(t.fields[Field::Parameters as usize], "movie_id The TMDB id");
        assert_eq!(t.fields[Field::Response as usize], "cast character");
        assert_eq!(t.fields[Field::Toolsets as usize], "movies");
        // Only a whole `{…}` segment is a variable; a segment that merely starts or ends
        // with a brace is text.
        let decl = json!({"name": "f",
            "x-mcpdesc-openapi": {"method": "GET", "path": "/files/{id}.json/{x}y/z{w}/{v}"}});
        let t = ToolText::of_tool("f", &doc, &decl);
        assert_eq!(
            t.fields[Field::Path as usize],
            "get files {id}.json {x}y z{w}"
        );
    }
}
