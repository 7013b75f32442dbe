//! An offline tool search: BM25F over a tool's fields, optionally fused with a semantic
//! ranking by reciprocal rank fusion.
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
//! # Hybrid
//! With a [`Semantic`] ranker the lexical and the semantic rankings are fused by
//! reciprocal rank fusion (Cormack et al. 2009, k = 60): each tool scores
//! `Σ 1 / (k + rank)` over the rankings it appears in.

use crate::text;
use serde_json::Value;
use std::collections::HashMap;

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
/// Reciprocal rank fusion's constant.
const RRF_K: f32 = 60.0;
/// How many lexical hits take part in the fusion.
const FUSE_DEPTH: usize = 100;

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

    /// The whole text in one string (what a semantic ranker embeds): name, title,
    /// description, toolsets and path.
    pub fn summary_text(&self) -> String {
        let mut s = self.name.replace('_', " ");
        for f in [
            Field::Title,
            Field::Description,
            Field::Toolsets,
            Field::Path,
        ] {
            let t = &self.fields[f as usize];
            if !t.is_empty() {
                s.push_str(". ");
                s.push_str(t);
            }
        }
        s
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

/// Property names (and descriptions) of a schema, breadth-first to a depth, through
/// `items`, `allOf`/`anyOf`/`oneOf` and local `#/$defs/...` references of the schema
/// itself; bounded in the number of schemas visited.
struct PropertyWalk<'a> {
    root: &'a Value,
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
                Some(r) => match r.strip_prefix('#').and_then(|p| self.root.pointer(p)) {
                    Some(target) => target,
                    None => continue,
                },
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

/// A semantic ranking of the indexed tools for a query (an embedding model), fused with
/// the lexical one.
pub trait Semantic: Send + Sync + std::fmt::Debug {
    /// Prepares the tools (embeds their texts), in index order.
    fn index(&mut self, tools: &[&ToolText]);
    /// Tool indexes, best first (at most `depth`).
    fn rank(&self, query: &str, depth: usize) -> Vec<usize>;
}

/// Filters applied before ranking.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    /// Keep tools in any of these toolsets.
    pub toolsets: Option<&'a [String]>,
    /// Keep tools whose effective `readOnlyHint` equals this.
    pub read_only: Option<bool>,
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
        let scores = self.bm25f(query);
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .enumerate()
            .filter(|&(i, s)| s > 0.0 && self.admits(i, filter))
            .map(|(tool, score)| Hit { tool, score })
            .collect();
        self.sort(&mut hits);
        hits
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
        let lexical = self.lexical(query, filter);
        let mut hits = match &self.semantic {
            None => lexical,
            Some(sem) => {
                let mut fused: HashMap<usize, f32> = HashMap::new();
                for (r, h) in lexical.iter().take(FUSE_DEPTH).enumerate() {
                    *fused.entry(h.tool).or_default() += 1.0 / (RRF_K + r as f32 + 1.0);
                }
                let ranked = sem.rank(query, FUSE_DEPTH.max(limit) * 2);
                let mut r = 0usize;
                for tool in ranked {
                    if !self.admits(tool, filter) {
                        continue;
                    }
                    *fused.entry(tool).or_default() += 1.0 / (RRF_K + r as f32 + 1.0);
                    r += 1;
                    if r >= FUSE_DEPTH {
                        break;
                    }
                }
                let mut hits: Vec<Hit> = fused
                    .into_iter()
                    .map(|(tool, score)| Hit { tool, score })
                    .collect();
                self.sort(&mut hits);
                hits
            }
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
                toolsets: None,
            },
        );
        assert!(!names(&ix, &ro).contains(&"repos_delete".to_string()));
        let ts = ["pulls".to_string()];
        let only = ix.search(
            "list",
            10,
            &Filter {
                toolsets: Some(&ts),
                read_only: None,
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
        assert_eq!(
            t.fields[Field::Name as usize],
            "tmdb_movie_credits movie_credits"
        );
        assert_eq!(t.fields[Field::Path as usize], "get movie credits");
        assert_eq!(t.fields[Field::Parameters as usize], "movie_id The TMDB id");
        assert_eq!(t.fields[Field::Response as usize], "cast character");
        assert_eq!(t.fields[Field::Toolsets as usize], "movies");
    }
}
