"""What verifying checksums costs when a large index opens: blake2b (what manifests used before)
vs xxh3-128 (now), beside opening without them, on a 1M-vector flat index.

    .venv/bin/python -m bench.store_open [--n 1000000] [--rounds 3]

The index is made once under $BERTSCOPE_HOME/bench/open-<n>/ through the store's own staging
and publish functions, from seeded vectors grown the way bench/search.py grows real ones (base
vectors + N(0, 0.02) noise, renormalised); here the base is 10,000 seeded random unit vectors,
because no real minilm vectors were cached on this machine. Each chunk has a short synthetic
text, so SQLite and BM25 hold 1M rows too. Timings are warm (the files sit in the page cache
after the first round); methods are interleaved round by round and medians reported.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import faiss
import numpy as np

from bench.kit.benchkit import median, write_results
from common import bertscope_home, file_checksum
from common.lexical import LexicalIndex, tokenize
from indexer import Document, SemanticIndex
from indexer.folder import db, store
from indexer.presets import create, spec_for, train_and_add

DIM = 384
WORDS = "river bank market price oil film match vote phone fruit rain court".split()


def grown_vectors(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(10_000, DIM)).astype(np.float32)
    faiss.normalize_L2(base)
    picks = rng.integers(0, len(base), n)
    out = base[picks] + rng.normal(0, 0.02, (n, DIM)).astype(np.float32)
    faiss.normalize_L2(out)
    return out


def make_index(folder: Path, n: int) -> None:
    """A flat index of `n` chunks (one per document), published through the store."""
    print(f"making a {n:,}-vector index in {folder} (once)", flush=True)
    rng = np.random.default_rng(1)
    texts = [" ".join(rng.choice(WORDS, 8)) + f" item {i}" for i in range(n)]
    spec = spec_for("flat", n, DIM)
    index = create(spec, DIM)
    ids = np.arange(n, dtype=np.int64)
    train_and_add(index, grown_vectors(n), ids)
    staging = store.Staging(folder)
    conn = db.open_writable(staging.file("sqlite"))
    lex = [tokenize(t) for t in texts]
    with db.transaction(conn):
        db.insert_documents(conn, (Document(f"d{i}", t) for i, t in enumerate(texts)))
        db.insert_chunks(conn, ((i, f"d{i}", 0, 0, len(t), " ".join(tok))
                                for i, (t, tok) in enumerate(zip(texts, lex, strict=True))))
        db.set_next_chunk_id(conn, n)
    fields = {"format": store.FORMAT, "format_version": store.FOLDER_FORMAT_VERSION, "version": 0,
              "built_at": store.now(), "updated_at": store.now(),
              "encoder": {"name": "grown-random", "load_as": "none", "fingerprint": "none"},
              "dim": DIM, "metric": "cosine", "normalized": True, "preset": spec.preset,
              "faiss_spec": spec.factory, "knobs": spec.knobs, "chunking": {}, "source": "bench",
              "rows": n, "duplicates": 0, "skipped": [], "counts": db.counts(conn),
              "metadata_fields": {}}
    conn.close()
    faiss.write_index(index, str(staging.file("faiss")))
    LexicalIndex.build(ids.tolist(), lex).save(staging.file("bm25"))
    store.publish(folder, staging, fields, None)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    folder = bertscope_home("bench") / f"open-{args.n}"
    if not (folder / store.MANIFEST).exists():
        make_index(folder, args.n)
    manifest, _ = store.read_manifest(folder)
    files = {role: folder / e["path"] for role, e in manifest["files"].items()}
    sizes = {role: e["bytes"] for role, e in manifest["files"].items()}

    def hash_all(algorithm: str) -> None:
        for path in files.values():
            file_checksum(path, algorithm)

    methods = {
        "open, sizes only (verify=False)": lambda: SemanticIndex.open(folder, verify=False),
        "open, xxh3-128 checksums (verify=True, now)": lambda: SemanticIndex.open(folder),
        "checksums alone, xxh3-128": lambda: hash_all("xxh3-128"),
        "checksums alone, blake2b-160 (before)": lambda: hash_all("blake2b-160"),
    }
    times: dict[str, list[float]] = {m: [] for m in methods}
    timed(methods["open, sizes only (verify=False)"])  # warm the page cache
    for r in range(args.rounds):
        for name, fn in methods.items():
            times[name].append(timed(fn))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()),
              flush=True)
    med = {k: median(v) for k, v in times.items()}
    base = med["open, sizes only (verify=False)"]
    before = base + med["checksums alone, blake2b-160 (before)"]
    rows = [("open, sizes only (verify=False)", base),
            ("open with blake2b-160 checksums (before: sizes-only open + blake2b)", before),
            ("open with xxh3-128 checksums (verify=True, now)",
             med["open, xxh3-128 checksums (verify=True, now)"]),
            ("checksums alone, blake2b-160", med["checksums alone, blake2b-160 (before)"]),
            ("checksums alone, xxh3-128", med["checksums alone, xxh3-128"])]
    meta = {"index": f"{args.n:,} vectors x {DIM} (flat), one chunk per document",
            "bytes": ", ".join(f"{k} {v / 1e6:,.0f} MB" for k, v in sizes.items()),
            "vectors": "10,000 seeded random unit vectors grown with N(0, 0.02) noise (no real "
                       "minilm vectors were cached here)",
            "cache": "warm (page cache)", "rounds": f"{args.rounds}, medians"}
    lines = ["# Opening a 1M-vector index: what checksum verification costs", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "| step | median s | x sizes-only open |", "|---|---:|---:|"]
    lines += [f"| {k} | {v:.2f} | {v / base:.2f} |" for k, v in rows]
    table = "\n".join(lines) + "\n"
    write_results("store_open", {"meta": meta, "seconds": times, "medians": med}, table)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
