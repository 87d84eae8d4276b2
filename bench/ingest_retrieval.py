"""The same passages as JSONL and as files: does reading them from PDFs, web pages, Word and
Markdown cost retrieval quality? SciFact (BEIR, its `train` queries and judgements) laid out
twice: rows of a JSONL corpus (id, title, text), and files of 10 passages each — PDFs one
passage a page under a running header and footer, web pages with each passage an h2 section
inside navigation, a cookie banner, related links and a footer, Word and Markdown files with
one heading a passage. Both indexed with the same model and chunking, searched per chunk
(`per_chunk=True`); a file's hit is mapped back to its passage by its page or section, and
nDCG@10 is computed over passages. #39's bar: within 0.02.

    flock /tmp/bertscope-bench.lock .venv/bin/python -m bench.ingest_retrieval \\
        [--documents 1500] [--model minilm]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from bench.kit import benchkit
from bench.kit.docwriters import write_docx, write_html, write_markdown, write_pdf
from indexer import build_index
from metrics import evaluate_run, load_beir

PER_FILE = 10
FORMATS = ("pdf", "html", "docx", "md")


def subset(corpus: dict, qrels: dict, n: int, seed: int = 0) -> list[str]:
    """Every judged passage, then others drawn at random up to `n`, shuffled."""
    judged = sorted({d for rel in qrels.values() for d in rel if d in corpus})
    rest = sorted(set(corpus) - set(judged))
    rnd = random.Random(seed)
    ids = judged + rnd.sample(rest, max(0, n - len(judged)))
    rnd.shuffle(ids)
    return ids


def heading_of(title: str) -> str:
    return " ".join(title.split()) or "Untitled"


def lay_out_files(folder: Path, ids: list[str], corpus: dict) -> dict[tuple, str]:
    """Write the passages as files; {(source, page or section): passage id}."""
    where: dict[tuple, str] = {}
    for g, at in enumerate(range(0, len(ids), PER_FILE)):
        group = ids[at:at + PER_FILE]
        fmt = FORMATS[g % len(FORMATS)]
        title = f"SciFact collection {g}"
        passages = [(heading_of(corpus[i]["title"]), corpus[i]["text"]) for i in group]
        rel = f"{fmt}/c{g:04d}.{fmt}"
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "pdf":
            for page, n in enumerate(write_pdf(path, passages, title=title), start=1):
                where[(rel, page)] = group[n]
            continue
        if fmt == "html":
            write_html(path, passages, title=title)
        elif fmt == "docx":
            write_docx(path, passages, title=title)
        else:
            write_markdown(path, passages, title=title)
        for (heading, _), pid in zip(passages, group, strict=True):
            where.setdefault((rel, f"{title} > {heading}"), pid)
    return where


def run_of(index, qids: list[str], texts: list[str], mode: str, place=None) -> tuple[dict, int]:
    """{qid: {passage id: best chunk score}} from per-chunk hits (top 100 chunks); and how many
    hits could not be mapped to a passage."""
    run, unmapped = {}, 0
    for qid, hits in zip(qids, index.search(texts, k=100, mode=mode, per_chunk=True),
                         strict=True):
        scores: dict[str, float] = {}
        for h in hits:
            pid = h.doc_id if place is None else place(h)
            if pid is None:
                unmapped += 1
                continue
            scores[pid] = max(scores.get(pid, float("-inf")), h.score)
        run[qid] = scores
    return run, unmapped


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--documents", type=int, default=1500)
    p.add_argument("--model", default="minilm")
    p.add_argument("--keep", help="a folder to keep the files and indexes in (default: a "
                   "temporary one, removed)")
    args = p.parse_args()
    load = [os.getloadavg()]
    corpus, queries, qrels = load_beir(benchkit.data_dir() / "scifact", "train")
    ids = subset(corpus, qrels, args.documents)
    kept = set(ids)
    qrels = {q: {d: r for d, r in rel.items() if d in kept} for q, rel in qrels.items()}
    qrels = {q: rel for q, rel in qrels.items() if rel}
    qids = sorted(qrels)
    texts = [queries[q] for q in qids]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-layout-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        jsonl = work / "corpus.jsonl"
        with jsonl.open("w", encoding="utf-8") as fh:
            for i in ids:
                fh.write(json.dumps({"id": i, "title": corpus[i]["title"],
                                     "text": corpus[i]["text"]}) + "\n")
        files = work / "files"
        if not files.is_dir():
            where = lay_out_files(files, ids, corpus)
            (work / "where.json").write_text(json.dumps([[*k, v] for k, v in where.items()]))
        where = {(a, b): c for a, b, c in json.loads((work / "where.json").read_text())}
        built = {}
        for name, source in (("jsonl", jsonl), ("files", files)):
            out = work / f"index-{name}"
            started = time.perf_counter()
            index = build_index(str(source), out, model=args.model, preset="flat")
            built[name] = (index, round(time.perf_counter() - started, 1))
            st = index.stats()
            print(name, st.documents, "documents", st.chunks, "chunks",
                  len(st.skipped), "skipped", flush=True)

        def place(hit):
            key = hit.metadata.get("page", hit.metadata.get("section"))
            return where.get((hit.doc_id, key))

        rows = []
        for mode in ("dense", "lexical", "hybrid"):
            got = {}
            for name, (index, _) in built.items():
                run, unmapped = run_of(index, qids, texts, mode,
                                       None if name == "jsonl" else place)
                got[name] = {**evaluate_run(run, qrels), "unmapped_hits": unmapped}
            diff = got["files"]["ndcg@10"] - got["jsonl"]["ndcg@10"]
            rows.append({"mode": mode, "jsonl": got["jsonl"], "files": got["files"],
                         "ndcg10_difference": round(diff, 4)})
            print(rows[-1], flush=True)
        stats = {name: {"documents": index.stats().documents, "chunks": index.stats().chunks,
                        "skipped": len(index.stats().skipped), "build_s": seconds,
                        "backend": index.stats().backend}
                 for name, (index, seconds) in built.items()}
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    load.append(os.getloadavg())
    table = [f"# The same SciFact passages as JSONL and as files ({len(ids)} passages, "
             f"{len(qids)} judged train queries, `{args.model}`)", "",
             f"Files: {PER_FILE} passages each, a quarter each PDF (a passage a page, running "
             "header and footer), web page (an h2 section a passage, in boilerplate), Word and "
             "Markdown (a heading a passage). JSONL: "
             f"{stats['jsonl']['chunks']} chunks; files: {stats['files']['documents']} documents, "
             f"{stats['files']['chunks']} chunks, {stats['files']['skipped']} files skipped. "
             "Searched per chunk, top 100 chunks, mapped to passages (files: by page or section). "
             f"Load average before / after: {load[0][0]:.2f} / {load[1][0]:.2f}.", "",
             "| mode | nDCG@10 JSONL | nDCG@10 files | difference | Recall@100 JSONL | "
             "Recall@100 files | unmapped hits |", "|---|---:|---:|---:|---:|---:|---:|"]
    table += [f"| {r['mode']} | {r['jsonl']['ndcg@10']:.4f} | {r['files']['ndcg@10']:.4f} | "
              f"{r['ndcg10_difference']:+.4f} | {r['jsonl']['recall@100']:.4f} | "
              f"{r['files']['recall@100']:.4f} | {r['files']['unmapped_hits']} |" for r in rows]
    benchkit.write_results("ingest-retrieval", {"args": vars(args), "load": load,
                                                "passages": len(ids), "queries": len(qids),
                                                "indexes": stats, "rows": rows},
                           "\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
