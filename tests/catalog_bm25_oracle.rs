//! The catalog's BM25F against Python's `rank-bm25` 0.2.2 (`.deps/venv`, `cargo xtask
//! deps`), an implementation this code did not produce, on the same tokens.
//!
//! The mapping (see `mcpdesc_catalog::search`'s module documentation for our formula):
//! - **idf.** rank-bm25's `BM25Okapi` uses ATIRE's `ln((N − n + 0.5) / (n + 0.5))` with an
//!   ε floor; ours is Lucene's non-negative `ln(1 + (N − n + 0.5) / (n + 0.5))`. The oracle
//!   subclasses `BM25Okapi` and replaces only `_calc_idf` with that formula over the
//!   document frequencies rank-bm25 itself counted; tokenising counts, lengths, the
//!   average length and the scoring loop stay rank-bm25's.
//! - **One field.** With only field f populated, our `tf̃ = w_f·tf / norm_f` and
//!   `tf̃ / (k1 + tf̃) = tf / (tf + (k1 / w_f)·norm_f)`: BM25 with `k1' = k1 / w_f` and
//!   `b = b_f`, except that BM25Okapi multiplies by `(k1' + 1)`. So per field, our score
//!   × `(k1 / w_f + 1)` must equal `BM25Okapi(k1 = k1 / w_f, b = b_f)`'s. The weights, b's
//!   and k1 = 1.2 are written here by hand from the module's documentation.
//! - **Several fields.** BM25F has no rank-bm25 class: the oracle builds one
//!   `BM25Okapi` per field for its counts (`doc_freqs`, `doc_len`, `avgdl`), one over the
//!   fields' concatenation for the document frequencies, and sums
//!   `w_f·tf_f / (1 − b_f + b_f·len_f / avglen_f)` itself (Robertson and Zaragoza's
//!   "simple BM25F").
//!
//! Tolerance: our index computes in `f32` (`Hit::score` is an `f32`), so agreement is
//! checked to 2e-6 relative, a few `f32` ulps (ε = 1.19e-7); 1e-9 would need `f64`
//! arithmetic in the index. The query's terms are deduplicated before they are handed
//! to rank-bm25 (our BM25F counts a repeated query word once; rank-bm25 would add it
//! twice).

use mcpdesc_catalog::search::{Entry, Field};
use mcpdesc_catalog::text::analyze;
use mcpdesc_catalog::{Filter, Index, ToolText};
use mcpdesc_tests::{deps_dir, missing};
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

/// k1 of the module's documentation.
const K1: f64 = 1.2;

/// Field, w_f, b_f: the module documentation's table, by hand.
const FIELDS: [(Field, f64, f64); 7] = [
    (Field::Name, 3.0, 0.3),
    (Field::Title, 2.0, 0.5),
    (Field::Description, 1.0, 0.75),
    (Field::Toolsets, 1.5, 0.3),
    (Field::Path, 1.5, 0.3),
    (Field::Parameters, 0.6, 0.75),
    (Field::Response, 0.4, 0.75),
];

/// Texts of different lengths with repeated words (tf 1 to 3), so that length
/// normalisation and saturation both matter.
const DOCS: [&str; 8] = [
    "Lists the repositories of a user; repositories are sorted by the time of their last update",
    "Creates an issue in a repository",
    "Creates a comment on an issue. The comment body is Markdown; an issue comment notifies the issue's subscribers",
    "Deletes a repository webhook",
    "Gets a pull request review and its comments",
    "Lists the user's followers",
    "Merges a pull request into the base branch, if the pull request is mergeable and its checks passed",
    "Uploads a release asset",
];

const QUERIES: [&str; 7] = [
    "list repositories",
    "create an issue comment",
    "user",
    "delete the repository webhook",
    "pull request review comments",
    "merge pull request pull request",
    "release asset upload for a user repository",
];

/// rank-bm25 with Lucene's idf, and BM25F over rank-bm25's per-field counts.
const ORACLE: &str = r#"
import json, math, sys
from rank_bm25 import BM25Okapi

class LuceneIdf(BM25Okapi):
    def _calc_idf(self, nd):
        self.nd = nd
        for word, n in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - n + 0.5) / (n + 0.5))

out = []
for job in json.load(sys.stdin):
    if job["kind"] == "bm25":
        bm = LuceneIdf(job["corpus"], k1=job["k1"], b=job["b"])
        out.append([float(s) for s in bm.get_scores(job["query"])])
    else:
        k1 = job["k1"]
        fields = [(f["w"], f["b"], LuceneIdf(f["corpus"], k1=k1, b=f["b"])) for f in job["fields"]]
        n_docs = len(job["fields"][0]["corpus"])
        whole = LuceneIdf([sum((f["corpus"][d] for f in job["fields"]), []) for d in range(n_docs)])
        scores = [0.0] * n_docs
        for t in job["query"]:
            if t not in whole.idf:
                continue
            for d in range(n_docs):
                tf = 0.0
                for w, b, bm in fields:
                    c = bm.doc_freqs[d].get(t, 0)
                    if c:
                        tf += w * c / (1 - b + b * bm.doc_len[d] / bm.avgdl)
                if tf > 0:
                    scores[d] += whole.idf[t] * tf / (k1 + tf)
        out.append(scores)
json.dump(out, sys.stdout)
"#;

/// Runs the oracle on `jobs`, or `None` (after [`missing`]) without the venv.
fn oracle(jobs: &Value) -> Vec<Vec<f64>> {
    let python = deps_dir().join("venv/bin/python");
    if !python.is_file() {
        missing("the Python venv with rank-bm25 (.deps/venv)");
    }
    let mut child = Command::new(&python)
        .args(["-c", ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(jobs.to_string().as_bytes())
        .expect("jobs written");
    let out = child.wait_with_output().expect("python ends");
    assert!(
        out.status.success(),
        "rank-bm25 oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the oracle's scores")
}

/// A query's distinct terms in order (what our BM25F scores).
fn query_terms(q: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in analyze(q) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

fn entry(name: &str, fields: &[(Field, &str)]) -> Entry {
    let mut text = ToolText {
        name: name.into(),
        ..Default::default()
    };
    for &(f, t) in fields {
        text = text.with(f, t);
    }
    Entry {
        text,
        toolsets: Vec::new(),
        read_only: true,
    }
}

/// Every tool's score for `q` (0 for a tool not returned).
fn scores(ix: &Index, q: &str) -> Vec<f64> {
    let mut s = vec![0.0; ix.len()];
    for h in ix.search(q, usize::MAX, &Filter::default()) {
        s[h.tool] = f64::from(h.score);
    }
    s
}

fn assert_close(got: f64, want: f64, what: &str) {
    let tol = 2e-6 * want.abs().max(1e-3);
    assert!(
        (got - want).abs() <= tol,
        "{what}: ours {got}, rank-bm25 {want} (|diff| {} > {tol})",
        (got - want).abs()
    );
}

#[cfg_attr(
    mcpdesc_missing_venv,
    ignore = "needs .deps/venv with rank-bm25 (cargo xtask deps)"
)]
#[test]
fn each_field_alone_scores_as_rank_bm25_with_k1_over_its_weight_and_its_b() {
    let corpus: Vec<Vec<String>> = DOCS.iter().map(|d| analyze(d)).collect();
    let mut jobs = Vec::new();
    let mut ours = Vec::new();
    for (field, w, b) in FIELDS {
        // Names no query spells, so the exact-name rule stays out of it.
        let ix = Index::build(
            DOCS.iter()
                .enumerate()
                .map(|(i, d)| entry(&format!("t{i}"), &[(field, d)]))
                .collect(),
            None,
        );
        for q in QUERIES {
            jobs.push(json!({"kind": "bm25", "k1": K1 / w, "b": b,
                             "corpus": corpus, "query": query_terms(q)}));
            ours.push((field, q, K1 / w + 1.0, scores(&ix, q)));
        }
    }
    let want = oracle(&Value::Array(jobs));
    assert_eq!(want.len(), ours.len());
    let mut positive = 0;
    for ((field, q, scale, got), want) in ours.iter().zip(&want) {
        for (d, (g, w)) in got.iter().zip(want).enumerate() {
            assert_close(g * scale, *w, &format!("{field:?} alone, {q:?}, doc {d}"));
            positive += usize::from(*w > 0.0);
        }
    }
    // Not a vacuous comparison of zeros.
    assert!(positive >= 7 * 15, "{positive} positive scores");
}

/// Tools spread over every field; `a_dup` and `b_dup` are the same text (an exact tie,
/// broken by name), indexed in the order b, a.
fn fielded_corpus() -> Vec<(String, [&'static str; 7])> {
    let t = |n: &str, f: [&'static str; 7]| (n.to_string(), f);
    vec![
        t(
            "list_repos",
            [
                "list_repos",
                "List repositories",
                DOCS[0],
                "repos",
                "GET /users/{user}/repos",
                "user sort direction per_page",
                "name full_name owner updated_at",
            ],
        ),
        t(
            "create_issue",
            [
                "create_issue",
                "Create an issue",
                DOCS[1],
                "issues",
                "POST /repos/{owner}/{repo}/issues",
                "owner repo title body labels assignees",
                "number title state user",
            ],
        ),
        t(
            "create_issue_comment",
            [
                "create_issue_comment",
                "Create an issue comment",
                DOCS[2],
                "issues",
                "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
                "owner repo issue_number body",
                "id body user created_at",
            ],
        ),
        t(
            "delete_webhook",
            [
                "delete_webhook",
                "Delete a repository webhook",
                DOCS[3],
                "repos",
                "DELETE /repos/{owner}/{repo}/hooks/{hook_id}",
                "owner repo hook_id",
                "",
            ],
        ),
        t(
            "get_review",
            [
                "get_review",
                "Get a review for a pull request",
                DOCS[4],
                "pulls",
                "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}",
                "owner repo pull_number review_id",
                "id user body state comments",
            ],
        ),
        t(
            "b_dup",
            [
                "list followers",
                "List followers of a user",
                DOCS[5],
                "users",
                "GET /users/{user}/followers",
                "user per_page page",
                "login id",
            ],
        ),
        t(
            "a_dup",
            [
                "list followers",
                "List followers of a user",
                DOCS[5],
                "users",
                "GET /users/{user}/followers",
                "user per_page page",
                "login id",
            ],
        ),
        t(
            "merge_pull",
            [
                "merge_pull",
                "Merge a pull request",
                DOCS[6],
                "pulls",
                "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge",
                "owner repo pull_number commit_title merge_method",
                "sha merged message",
            ],
        ),
        t(
            "upload_asset",
            [
                "upload_asset",
                "Upload a release asset",
                DOCS[7],
                "repos",
                "POST /repos/{owner}/{repo}/releases/{release_id}/assets",
                "owner repo release_id name label",
                "id name size state",
            ],
        ),
    ]
}

#[cfg_attr(
    mcpdesc_missing_venv,
    ignore = "needs .deps/venv with rank-bm25 (cargo xtask deps)"
)]
#[test]
fn bm25f_over_all_fields_and_its_ranking_match_an_oracle_on_rank_bm25_counts() {
    let docs = fielded_corpus();
    let ix = Index::build(
        docs.iter()
            .map(|(name, f)| {
                let fields: Vec<(Field, &str)> = FIELDS
                    .iter()
                    .zip(f)
                    .map(|(&(fl, _, _), t)| (fl, *t))
                    .collect();
                entry(name, &fields)
            })
            .collect(),
        None,
    );
    let per_field =
        |i: usize| -> Vec<Vec<String>> { docs.iter().map(|(_, f)| analyze(f[i])).collect() };
    let fields: Vec<Value> = FIELDS
        .iter()
        .enumerate()
        .map(|(i, &(_, w, b))| json!({"w": w, "b": b, "corpus": per_field(i)}))
        .collect();
    let queries = [
        "list repositories",
        "create an issue comment",
        "user followers",
        "delete the repository webhook",
        "pull request review comments",
        "merge a pull request",
        "upload release asset name",
        "owner repo",
    ];
    let jobs: Vec<Value> = queries
        .iter()
        .map(|q| json!({"kind": "bm25f", "k1": K1, "fields": fields, "query": query_terms(q)}))
        .collect();
    let want = oracle(&Value::Array(jobs));
    for (q, want) in queries.iter().zip(&want) {
        let got = scores(&ix, q);
        for (d, (g, w)) in got.iter().zip(want).enumerate() {
            assert_close(*g, *w, &format!("{q:?}, {}", docs[d].0));
        }
        // The ranking: the oracle's scores, best first, ties by name; no two different
        // scores so close that f32 rounding could swap them.
        let mut order: Vec<usize> = (0..docs.len()).filter(|&d| want[d] > 0.0).collect();
        order.sort_by(|&a, &b| want[b].total_cmp(&want[a]).then(docs[a].0.cmp(&docs[b].0)));
        for p in order.windows(2) {
            let (a, b) = (want[p[0]], want[p[1]]);
            assert!(
                a == b || a - b > 1e-4 * a,
                "{q:?}: a near-tie in the fixture"
            );
        }
        let expected: Vec<&str> = order.iter().map(|&d| docs[d].0.as_str()).collect();
        let hits = ix.search(q, usize::MAX, &Filter::default());
        let ranked: Vec<&str> = hits.iter().map(|h| ix.name(h.tool)).collect();
        assert_eq!(ranked, expected, "{q:?}");
    }
    // The tie is exact and broken by name, whatever the index order.
    let hits = ix.search("followers", usize::MAX, &Filter::default());
    let ranked: Vec<&str> = hits.iter().map(|h| ix.name(h.tool)).collect();
    assert_eq!(ranked[..2], ["a_dup", "b_dup"]);
    assert_eq!(hits[0].score, hits[1].score);
}
