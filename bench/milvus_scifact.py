"""SciFact through the Milvus store beside the folder store: the same vectors, the same queries,
nDCG@10 per mode (dense, lexical, hybrid) on both.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.milvus_scifact [--model minilm]

The folder index is bench/retrieval.py's (built once under $BERTSCOPE_HOME/bench/), then copied
into milvus-lite by `indexer.migrate` (vectors bit for bit, no re-encoding), so a difference is
the store's (ANN, BM25, grouping), not the encoder's. Writes NAME.md and .json (--name, default
milvus-scifact) to --out (default bench/results).
"""

from __future__ import annotations

import argparse
import sys
import time

from bench.kit.benchkit import RESULTS, data_dir, write_results
from bench.kit.scifact import get_index, run_of
from common import bertscope_home
from indexer import SemanticIndex
from indexer.migrate import migrate
from metrics import evaluate_run, load_beir

MODES = ("dense", "lexical", "hybrid")
TOLERANCE = 0.002  # issue 28: nDCG@10 equal within this, mode by mode


def milvus_copy(index: SemanticIndex, model: str) -> tuple[SemanticIndex, float]:
    """The folder index migrated into milvus-lite beside it (reused when already there)."""
    db = bertscope_home() / "bench" / f"scifact-{model}-milvus.db"
    address = f"milvus://{db}?collection=scifact"
    start = time.perf_counter()
    if not db.exists():
        migrate(index.folder, address)
    return SemanticIndex.open(address), time.perf_counter() - start


def table(rows: list[dict], meta: dict) -> str:
    lines = [f"# SciFact through the Milvus store beside the folder store ({meta['queries']} "
             f"queries, {meta['documents']} documents, {meta['model']})", "",
             "| mode | folder nDCG@10 | Milvus nDCG@10 | difference | within 0.002 | folder "
             "search s | Milvus search s |", "|---|---:|---:|---:|---|---:|---:|"]
    lines += [f"| {r['mode']} | {r['folder']:.4f} | {r['milvus']:.4f} | {r['diff']:+.4f} | "
              f"{'yes' if r['within'] else '**no**'} | {r['folder_s']:.1f} | {r['milvus_s']:.1f} |"
              for r in rows]
    lines += ["", *[f"- {k}: {v}" for k, v in meta.items()]]
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--split", default="train")
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--name", default="milvus-scifact")
    args = p.parse_args()

    corpus, queries, qrels = load_beir(data_dir() / "scifact", args.split)
    qids = [q for q in queries if q in qrels]
    texts = [queries[q] for q in qids]
    folder, build_s = get_index(args.model, corpus, bertscope_home() / "bench")
    milvus, migrate_s = milvus_copy(folder, args.model)
    rows = []
    for mode in MODES:
        got = {}
        for store, index in (("folder", folder), ("milvus", milvus)):
            run, seconds = run_of(index, qids, texts, mode)
            got[store] = (evaluate_run(run, qrels)["ndcg@10"], seconds)
        diff = got["milvus"][0] - got["folder"][0]
        rows.append({"mode": mode, "folder": got["folder"][0], "milvus": got["milvus"][0],
                     "diff": diff, "within": abs(diff) <= TOLERANCE,
                     "folder_s": got["folder"][1], "milvus_s": got["milvus"][1]})
        print(f"{mode}: folder {got['folder'][0]:.4f}, milvus {got['milvus'][0]:.4f}", flush=True)
    meta = {"model": args.model, "split": args.split, "queries": len(qids),
            "documents": len(corpus), "folder preset": folder.manifest["faiss_spec"],
            "Milvus store": f"milvus-lite, preset {milvus.stats().preset}",
            "build s (folder, encode)": round(build_s, 1), "migrate s": round(migrate_s, 1)}
    write_results(args.name, {"rows": rows, "meta": meta}, table(rows, meta), folder=args.out)
    print(table(rows, meta))
    return 0 if all(r["within"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
