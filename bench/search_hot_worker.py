"""The worker of bench/search_hot.py: per query and mode, `index.search`'s total seconds and seconds
per stage (query encode, FAISS, SQLite, BM25, fusion), in the library of the checkout measured.

    PYTHONPATH=TREE python bench/search_hot_worker.py --tree TREE --index INDEX \
        --queries QUERIES.json --out OUT.json

`bench/search_hot.py` runs it by its path with PYTHONPATH=TREE (this checkout, or an older
commit's files), so `indexer` and `common` are that tree's; it imports nothing from `bench`, which
an older tree may lack, and refuses to report if the library came from elsewhere.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

STAGES = ("encode", "faiss", "sqlite", "bm25", "fusion")
MODES = ("dense", "hybrid")


def timed(fn, name: str, spent: dict[str, float]):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start
    return wrapper


def worker(tree: Path, index_path: str, backend: str | None, queries: list[str], k: int) -> dict:
    """Per query and mode: total seconds and seconds per stage, measured in the library first on
    sys.path (`tree`'s)."""
    import faiss

    import indexer
    from common import lexical
    from indexer import SemanticIndex
    try:  # the folder store's own modules (in indexer/ itself before #49)
        from indexer.folder import db
        from indexer.folder import search as search_module
    except ImportError:
        from indexer import db
        from indexer import search as search_module

    index = SemanticIndex.open(index_path, verify=False, backend=backend)
    enc = index.encoder
    spent: dict[str, float] = defaultdict(float)
    enc.encode = timed(enc.encode, "encode", spent)
    index.vectors.search = timed(index.vectors.search, "faiss", spent)
    for name in dir(db):
        if not name.startswith("_") and callable(getattr(db, name)) and \
                getattr(getattr(db, name), "__module__", "") == db.__name__:
            setattr(db, name, timed(getattr(db, name), "sqlite", spent))
    lexical.LexicalIndex.search = timed(lexical.LexicalIndex.search, "bm25", spent)
    search_module.fuse = timed(search_module.fuse, "fusion", spent)
    for q in queries[:10]:  # warm: model, BM25, caches
        for mode in MODES:
            index.search(q, k=k, mode=mode)
    rows: dict[str, list[dict]] = {m: [] for m in MODES}
    for i, q in enumerate(queries):
        # the mode that follows another on the same query finds the encoder's weights in cache
        # (~1 ms less with openvino-int8): alternate which mode goes first
        for mode in (MODES if i % 2 == 0 else MODES[::-1]):
            spent.clear()
            start, cpu = time.perf_counter(), time.process_time()
            index.search(q, k=k, mode=mode)
            rows[mode].append({"total": time.perf_counter() - start,
                               "cpu": time.process_time() - cpu, **spent})
    if not Path(indexer.__file__).is_relative_to(tree):
        raise SystemExit(f"imported {indexer.__file__}, not the library in {tree}")
    return {"backend": getattr(enc, "backend", "torch"),
            "faiss_omp_threads": faiss.omp_get_max_threads(), "rows": rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", required=True, help="the checkout whose library must be measured")
    p.add_argument("--index", required=True)
    p.add_argument("--backend", default=None)
    p.add_argument("--queries", required=True, help="a JSON list of query texts")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--out", required=True, help="where the JSON result goes")
    args = p.parse_args()
    texts = json.loads(Path(args.queries).read_text(encoding="utf-8"))
    res = worker(Path(args.tree).resolve(), args.index, args.backend, texts, args.k)
    Path(args.out).write_text(json.dumps(res))


if __name__ == "__main__":
    main()
