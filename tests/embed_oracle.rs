//! The static embedding model against an independent re-implementation of its
//! pipeline in Python (numpy from `.deps/venv`, `cargo xtask deps`), reading the committed
//! `crates/mcpdesc-embed/model/vectors.bin` and `vocab.txt` itself.
//!
//! The pipeline, from `model/PROVENANCE.md` and BERT's own tokenizer definition (not from
//! this crate's code): BERT uncased basic tokenization (drop NUL, U+FFFD and C*
//! characters except tab/newline/return, whitespace to a space, spaces around CJK
//! ideographs, NFD with nonspacing marks dropped, lower case, split on whitespace, every
//! punctuation character — ASCII 33–47, 58–64, 91–96, 123–126 or a Unicode P* — a word
//! of its own), the special-token literals (`[PAD]` `[UNK]` `[CLS]` `[SEP]` `[MASK]`)
//! matched before that, greedy longest-match WordPiece with `##` continuations and a word
//! of more than 100 characters or with an unmatched piece as `[UNK]`; then each token's
//! int8 row times its row scale, the mean of those rows without `[UNK]`, divided by its
//! L2 norm (float64 in the oracle). Our vectors are `f32`: agreement to 1e-5 per
//! component.

use mcpdesc_embed::StaticModel;
use mcpdesc_tests::{deps_dir, missing, workspace_root};
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

const ORACLE: &str = r###"
import json, sys, unicodedata
import numpy as np

model = sys.argv[1]
vocab = open(model + "/vocab.txt", encoding="utf-8").read().split("\n")
if vocab and vocab[-1] == "":
    vocab.pop()
ids = {t: i for i, t in enumerate(vocab)}
raw = open(model + "/vectors.bin", "rb").read()
assert raw[:8] == b"MCPDVEC1"
rows, dim = np.frombuffer(raw[8:16], dtype="<u4")
rows, dim = int(rows), int(dim)
scales = np.frombuffer(raw[16:16 + 4 * rows], dtype="<f4").astype(np.float64)
q = np.frombuffer(raw[16 + 4 * rows:], dtype=np.int8).reshape(rows, dim).astype(np.float64)
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
UNK = ids["[UNK]"]

def is_control(c):
    return c not in "\t\n\r" and unicodedata.category(c).startswith("C")

def is_whitespace(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"

def is_punct(c):
    o = ord(c)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 \
        or unicodedata.category(c).startswith("P")

def is_cjk(c):
    o = ord(c)
    return any(a <= o <= b for a, b in [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
        (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF),
        (0x2F800, 0x2FA1F)])

def basic(text):
    out = []
    for c in text:
        if c == "\0" or c == "\ufffd" or is_control(c):
            continue
        out.append(" " + c + " " if is_cjk(c) else " " if is_whitespace(c) else c)
    text = unicodedata.normalize("NFD", "".join(out))
    text = "".join(c for c in text if unicodedata.category(c) != "Mn").lower()
    words = []
    for w in text.split():
        cur = ""
        for c in w:
            if is_punct(c):
                if cur:
                    words.append(cur)
                words.append(c)
                cur = ""
            else:
                cur += c
        if cur:
            words.append(cur)
    return words

def wordpiece(word):
    if len(word) > 100:
        return [UNK]
    out, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = ("##" if start else "") + word[start:end]
            if piece in ids:
                out.append(ids[piece])
                break
            end -= 1
        else:
            return [UNK]
        start = end
    return out

def encode(text):
    out = []
    while text:
        hits = [(text.find(s), s) for s in SPECIALS if s in text]
        at, s = min(hits) if hits else (len(text), None)
        for w in basic(text[:at]):
            out.extend(wordpiece(w))
        if s is None:
            break
        out.append(ids[s])
        text = text[at + len(s):]
    return out

def embed(tokens):
    kept = [t for t in tokens if t != UNK]
    if not kept:
        return [0.0] * dim
    v = np.mean(q[kept] * scales[kept][:, None], axis=0)
    return (v / np.linalg.norm(v)).tolist()

job = json.load(sys.stdin)
out = {"dim": dim, "rows": rows, "cases": [], "token_rows": {}}
for text in job["texts"]:
    t = encode(text)
    out["cases"].append({"ids": t, "embedding": embed(t)})
for i in job["token_rows"]:
    out["token_rows"][str(i)] = (q[i] * scales[i]).tolist()
json.dump(out, sys.stdout)
"###;

/// Fixed inputs: tool-like sentences, identifiers, accents, CJK, punctuation, a special
/// token literal, a word past WordPiece's 100 characters, and texts with no known token.
const TEXTS: [&str; 12] = [
    "List the issues of a repository",
    "who directed the movie",
    "getUserById returns the user's profile",
    "HTTPServer answered 404 (not found)!",
    "Créer un événement — naïve café résumé",
    "東京の天気 weather forecast",
    "snake_case_identifier and kebab-case, v2.1.0",
    "[CLS] delete a webhook [SEP]",
    "tab\tseparated\nlines\r\nand  spaces",
    "",
    "[UNK]",
    "unbelievable xylophonists supercalifragilisticexpialidocious",
];

fn oracle(texts: &[&str], token_rows: &[u32]) -> Value {
    let python = deps_dir().join("venv/bin/python");
    if !python.is_file() {
        missing("the Python venv with numpy (.deps/venv)");
    }
    let model = workspace_root().join("crates/mcpdesc-embed/model");
    let mut child = Command::new(&python)
        .arg("-c")
        .arg(ORACLE)
        .arg(&model)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    let job = json!({"texts": texts, "token_rows": token_rows});
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(job.to_string().as_bytes())
        .expect("job written");
    let out = child.wait_with_output().expect("python ends");
    assert!(
        out.status.success(),
        "embedding oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the oracle's output")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn worst(got: &[f32], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "dimensions");
    got.iter()
        .zip(want)
        .map(|(g, w)| (f64::from(*g) - w).abs())
        .fold(0.0, f64::max)
}

#[cfg_attr(
    mcpdesc_missing_venv,
    ignore = "needs .deps/venv with numpy (cargo xtask deps)"
)]
#[test]
fn embeddings_match_an_independent_python_pipeline_within_1e_5() {
    let m = StaticModel::embedded();
    let long = "a".repeat(101);
    let mut texts: Vec<&str> = TEXTS.to_vec();
    texts.push(&long);
    let token_rows = [0, 100, 1996, 2015, 7592, 30521];
    let want = oracle(&texts, &token_rows);
    assert_eq!(want["dim"], json!(m.dim()));
    assert_eq!(want["rows"], json!(m.tokenizer().vocab_size()));
    let cases = want["cases"].as_array().cloned().unwrap_or_default();
    assert_eq!(cases.len(), texts.len());
    let mut nonzero = 0;
    for (text, case) in texts.iter().zip(&cases) {
        let ids: Vec<u32> = case["ids"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .map(|i| i as u32)
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(m.tokenizer().encode(text), ids, "{text:?}: token ids");
        let want = floats(&case["embedding"]);
        let got = m.embed(text);
        let w = worst(&got, &want);
        assert!(w <= 1e-5, "{text:?}: max |diff| {w}");
        // The same through the ids (what the catalog calls).
        assert!(worst(&m.embed_ids(&ids), &want) <= 1e-5, "{text:?} by ids");
        nonzero += usize::from(want.iter().any(|&x| x != 0.0));
    }
    // Most inputs have known tokens; the empty, [UNK]-only and 101-letter ones do not.
    assert_eq!(nonzero, texts.len() - 3);
    for id in token_rows {
        let want = floats(&want["token_rows"][id.to_string()]);
        let got = m.token_vector(id).expect("a row");
        assert!(worst(&got, &want) <= 1e-6, "row {id}");
    }
    assert_eq!(m.token_vector(30522), None);
}
