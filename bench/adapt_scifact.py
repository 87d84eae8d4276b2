"""Label-free adaptation (`python -m training adapt`) measured on SciFact: which pair sources help.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.adapt_scifact prepare --out DIR
    python DIR/adapt_sweep.py --data DIR --out RUNS        # on a GPU if one is lent: see below
    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.adapt_scifact table RUNS [--name adapt_scifact]

`prepare` writes what `bench/adapt_sweep.py` reads, so that it can run on a machine with nothing
of BERTScope installed: minilm's weights in float16 (the sweep trains in float32 from them, the
bundled row too), the corpus, the judged train queries, the corpus cut into the default index's
chunks (the product's chunker: minilm's 256-token window, 32 tokens of overlap, the title in
every chunk), and `training/adapt_pairs.py` + `adapt_check.py` as `adaptlib/`.

`table` scores each run's top 100 with `metrics.ir`: dense nDCG@10 (a document by its best
chunk), and hybrid (z-score fusion, even weights, with BM25 over the same chunks: the product's
default search), on the 809 judged train queries split 80/20 with seed 42 as in
`training.mlm.experiments.split_queries`: the 647 "select" queries choose the default, the 162
held-out ones report it. None of the queries trains anything (adaptation reads only the corpus).
Beside each, the product's own self-check on its held-out documents (pseudo-queries), to see
whether the verdict the user is shown agrees with real queries.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
from pathlib import Path

from bench.kit.benchkit import REPO, RESULTS, data_dir, write_results

SWEEP = REPO / "bench" / "adapt_sweep.py"
LIB = ("adapt_pairs.py", "adapt_check.py")


def prepare(work: Path) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    from encoder import load_encoder
    from indexer.chunking import ChunkingConfig, chunk_documents
    from indexer.documents import Document
    from metrics import load_beir

    work.mkdir(parents=True, exist_ok=True)
    corpus, queries, qrels = load_beir(data_dir() / "scifact", "train")
    enc = load_encoder("minilm", backend="torch")
    model = work / "model"
    model.mkdir(exist_ok=True)
    source = Path(enc.path)
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
                 "special_tokens_map.json"):
        shutil.copy2(source / name, model / name)
    weights = load_file(str(source / "model.safetensors"))
    save_file({k: v.to(torch.float16) for k, v in weights.items()},
              str(model / "model.safetensors"), metadata={"format": "pt"})
    docs = [Document(i, d["text"] or d["title"], d["title"]) for i, d in corpus.items()]
    chunks = chunk_documents(enc, docs, ChunkingConfig())
    with gzip.open(work / "corpus.jsonl.gz", "wt", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"id": d.id, "title": d.title, "text": d.text}) + "\n")
    with gzip.open(work / "chunks.jsonl.gz", "wt", encoding="utf-8") as f:
        for c in chunks:
            f.write(json.dumps({"doc": c.doc_id, "text": c.encoded}) + "\n")
    (work / "queries.json").write_text(json.dumps({q: queries[q] for q in qrels}))
    lib = work / "adaptlib"
    lib.mkdir(exist_ok=True)
    (work / lib.name / "__init__.py").write_text("")
    for name in LIB:
        shutil.copy2(REPO / "training" / name, lib / name)
    shutil.copy2(SWEEP, work / SWEEP.name)
    size = sum(p.stat().st_size for p in work.rglob("*") if p.is_file())
    print(f"{len(docs)} documents, {len(chunks)} chunks, {len(qrels)} judged queries; "
          f"{size / 2**20:.1f} MiB in {work}")


def load_runs(folder: Path) -> tuple[dict, list[dict]]:
    meta, runs = {}, []
    for path in sorted(folder.glob("adapt_sweep-*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            part = json.load(f)
        runs.extend(part.pop("runs"))
        meta = part
    return meta, runs


def bm25_run(carry: Path, doc_ids: list[str], qids: list[str], queries: dict) -> dict:
    """BM25 (the product's tokenizer and defaults) over the same chunks, a document by its best
    chunk: the lexical half of the hybrid."""
    from common.lexical import LexicalIndex, tokenize

    with gzip.open(carry / "chunks.jsonl.gz", "rt", encoding="utf-8") as f:
        chunks = [json.loads(line) for line in f]
    lexical = LexicalIndex.build(range(len(chunks)), [tokenize(c["text"]) for c in chunks])
    out = {}
    for qid, hits in zip(qids, lexical.search([queries[q] for q in qids], 400), strict=True):
        best: dict[str, float] = {}
        for chunk, score in hits:
            best.setdefault(chunks[chunk]["doc"], score)
        out[qid] = dict(list(best.items())[:100])
    return out


def hybrid(dense: dict, lexical: dict) -> dict:
    """The product's default hybrid: z-score fusion of the two document lists, even weights."""
    from indexer.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS, fuse

    out = {}
    for qid, d in dense.items():
        runs = [sorted(d.items(), key=lambda x: -x[1]),
                sorted(lexical.get(qid, {}).items(), key=lambda x: -x[1])]
        out[qid] = dict(fuse(runs, DEFAULT_FUSION, DEFAULT_WEIGHTS[DEFAULT_FUSION])[:100])
    return out


def scores_of(run: dict, qrels: dict, qids: list[str]) -> float:
    from metrics import ndcg_at_k

    return ndcg_at_k({q: run[q] for q in qids}, {q: qrels[q] for q in qids}, 10)


def table(folder: Path, carry: Path, name: str, out: Path) -> None:
    from bench.kit.fusion_cv import paired_bootstrap
    from metrics import load_beir
    from training.mlm.experiments import split_queries

    meta, runs = load_runs(folder)
    _, queries, qrels = load_beir(data_dir() / "scifact", "train")
    qids, doc_ids = meta["qids"], meta["doc_ids"]
    select, held = split_queries({q: qrels[q] for q in qids})
    lexical = bm25_run(carry, doc_ids, qids, queries)
    dense = {(r["variant"], r["seed"]): {q: {doc_ids[d]: s for d, s in top}
                                         for q, top in zip(qids, r["top"], strict=True)}
             for r in runs}
    base = dense[next(k for k in dense if k[0] == "base")]
    base_h = hybrid(base, lexical)
    rows = []
    for variant in dict.fromkeys(r["variant"] for r in runs):
        mine = [r for r in runs if r["variant"] == variant]
        if variant == "base":  # no training: every run of it is the same encoding
            mine = mine[:1]
        per_seed = []
        for r in mine:
            d = dense[(variant, r["seed"])]
            h = hybrid(d, lexical)
            per_seed.append({
                "seed": r["seed"],
                "dense_select": scores_of(d, qrels, select),
                "dense_heldout": scores_of(d, qrels, held),
                "hybrid_select": scores_of(h, qrels, select),
                "hybrid_heldout": scores_of(h, qrels, held),
                "dense_heldout_vs_base": paired_bootstrap(
                    {q: d[q] for q in held}, {q: base[q] for q in held}, qrels),
                "hybrid_heldout_vs_base": paired_bootstrap(
                    {q: h[q] for q in held}, {q: base_h[q] for q in held}, qrels),
                "check": r["check"], "check_verdict": r["check_verdict"],
                "stages": r["stages"], "train_s": r["train_s"]})
        mean = {k: statistics.mean(p[k] for p in per_seed)
                for k in ("dense_select", "dense_heldout", "hybrid_select", "hybrid_heldout")}
        mean["check"] = statistics.mean(p["check"]["ndcg@10"] for p in per_seed)
        rows.append({"variant": variant, "seeds": [p["seed"] for p in per_seed],
                     "mean": mean, "per_seed": per_seed})
    results = {"meta": {k: v for k, v in meta.items() if k not in ("doc_ids", "qids")}
               | {"select_queries": len(select), "heldout_queries": len(held)},
               "rows": rows}
    write_results(name, results, report(results), folder=out)


def report(results: dict) -> str:
    meta, rows = results["meta"], results["rows"]
    base = next(r for r in rows if r["variant"] == "base")["mean"]
    lines = [f"# Label-free adaptation of minilm on SciFact: pair sources "
             f"({meta['documents']} documents, {meta['chunks']} chunks)", "",
             f"Trained and encoded on {meta['device']} ({meta.get('gpu') or 'CPU'}, torch "
             f"{meta['torch']}) by bench/adapt_sweep.py; scored here. nDCG figures do not "
             "depend on the hardware beyond its nondeterminism. What the default costs on 2 CPU "
             "cores, and its figures from the product's own `python -m training adapt`: "
             "adapt_scifact-cpu.md.", "",
             "| pair source | seeds | self-check nDCG@10 (held-out documents, pseudo-queries) | "
             "its verdict | dense, select (647 q) | dense, held-out (162 q) | hybrid, select | "
             "hybrid, held-out | pairs | steps |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        m, first = r["mean"], r["per_seed"][0]
        verdicts = ", ".join(("better" if p["check_verdict"]["better"] else
                              f"no ({p['check_verdict']['delta']:+.4f})")
                             if p["check_verdict"] and r["variant"] != "base" else "-"
                             for p in r["per_seed"])

        def cell(key: str, m=m, variant=r["variant"]) -> str:
            if variant == "base":
                return f"{m[key]:.4f}"
            return f"{m[key]:.4f} ({m[key] - base[key]:+.4f})"

        lines.append(
            f"| {r['variant']} | {len(r['seeds'])} | {cell('check')} | {verdicts} | "
            f"{cell('dense_select')} | {cell('dense_heldout')} | {cell('hybrid_select')} | "
            f"{cell('hybrid_heldout')} | "
            f"{' + '.join(str(s['rows']) for s in first['stages']) or '-'} | "
            f"{' + '.join(str(s['steps']) for s in first['stages']) or '-'} |")
    lines += ["", "Per seed, held-out queries, against the bundled model (paired bootstrap, 95 %):",
              ""]
    for r in rows:
        if r["variant"] == "base":
            continue
        for p in r["per_seed"]:
            d, h = p["dense_heldout_vs_base"], p["hybrid_heldout_vs_base"]
            lines.append(f"- {r['variant']}, seed {p['seed']}: dense {d['delta']:+.4f} "
                         f"[{d['low']:+.4f}, {d['high']:+.4f}], hybrid {h['delta']:+.4f} "
                         f"[{h['low']:+.4f}, {h['high']:+.4f}]")
    lines += ["", *(f"- {k}: {v}" for k, v in meta.items())]
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="write what the sweep reads")
    prep.add_argument("--out", required=True)
    tab = sub.add_parser("table", help="score a sweep's runs")
    tab.add_argument("runs", help="folder of adapt_sweep-SEED.json.gz")
    tab.add_argument("--carry", required=True, help="the folder `prepare` wrote (its chunks)")
    tab.add_argument("--name", default="adapt_scifact")
    tab.add_argument("--out", default=RESULTS)
    args = p.parse_args()
    if args.command == "prepare":
        prepare(Path(args.out))
    else:
        table(Path(args.runs), Path(args.carry), args.name, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
