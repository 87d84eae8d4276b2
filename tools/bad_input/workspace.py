"""The files the bad inputs point at: corpora good and broken, a built index, BEIR folders,
STS files. Built once per probe run in a temporary folder `W` (the table writes paths as W/...)."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

from .cases_access import FILES as ACCESS_FILES
from .cases_indexer_documents import FILES as DOCUMENT_FILES
from .cases_indexer_documents import LINKS
from .cases_indexer_odd import FILES as ODD_FILES
from .cases_messages import FILES as MESSAGE_FILES
from .cases_pages import FILES as PAGE_FILES
from .cases_readers import FILES as READER_FILES
from .cases_trust import FILES as TRUST_FILES
from .cases_vectors import FILES as VECTOR_FILES
from .cases_writes import FILES as WRITE_FILES

DOCS = [
    {"id": "oil-1", "title": "Oil prices", "text": "Crude oil prices rose as OPEC cut output.",
     "category": "business", "year": 2004},
    {"id": "cup-1", "title": "Cup final", "text": "The striker scored twice in the cup final.",
     "category": "sport", "year": 2004},
    {"id": "phone-1", "title": "New phone", "text": "Apple released a phone with a new chip.",
     "category": "tech", "year": 2005},
    {"id": "pie-1", "title": "Apple pie", "text": "She baked an apple pie with cinnamon.",
     "category": "food", "year": 2005},
    {"id": "rate-1", "title": "Rates", "text": "The central bank raised interest rates again.",
     "category": "business", "year": 2006},
    {"id": "zh-1", "title": "发布会", "text": "苹果发布了新手机。", "category": "tech",
     "year": 2006},
]
STS = [("A man plays a guitar.", "A man plays guitar.", 4.8),
       ("A woman slices an onion.", "A woman cuts an onion.", 4.2),
       ("A dog runs in the park.", "A cat sleeps on a sofa.", 0.4),
       ("Kids play football.", "Children play soccer.", 3.9),
       ("The market fell.", "A girl rides a horse.", 0.0),
       ("A man cooks pasta.", "Someone makes food.", 2.6)]


def _lines(rows) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                   for r in rows)


def _pairs(scores=None, same=False) -> str:
    rows = [{"sentence1": a, "sentence2": a if same else b, "score": s if scores is None
             else scores[i]} for i, (a, b, s) in enumerate(STS)]
    return _lines(rows)


FILES: dict[str, str | bytes] = {
    # corpora
    "corpus.jsonl": _lines(DOCS),
    "noid/d1/new.jsonl": _lines([{"text": "alpha one"}, {"text": "beta two"}]),
    "noid/d2/new.jsonl": _lines([{"text": "gamma three"}, {"text": "delta four"}]),
    "bad.jsonl": '{"id": "x", "text": ""}\n{"id": "y"\n[1, 2]\n',
    "empty.jsonl": "",
    "dupes.jsonl": _lines([{"id": "d", "text": "first"}, {"id": "d", "text": "second"}]),
    "numbers.jsonl": _lines([{"id": "n1", "text": 42}, {"id": "n2", "text": ["a", "b"]}]),
    "nested.jsonl": _lines([{"id": "t1", "text": "tagged", "tags": ["a", "b"]}]),
    "mixed.jsonl": _lines([{"id": "m1", "text": "typed year", "year": "two thousand"}]),
    "notes.xml": "<doc>hello</doc>\n",
    "fake.parquet": "this is text, not parquet\n",
    "latin1.csv": b"id,text\n1,caf\xe9 au lait\n2,plain text\n",
    "allbad.csv": b"id,text\n1,caf\xe9 au lait\n2,one,field too many\n3,\n",
    "noheader.csv": "",
    "wrongcols.csv": "doc,body\n1,some text\n",
    "huge-line.jsonl": _lines([{"id": "big", "text": "word " * 60_000}]),
    "file.txt": "a plain file, not a folder\n",
    "corpus-notitle.jsonl": _lines([{"id": f"u{i}", "text": f"Plain text number {i}."}
                                    for i in range(30)]),
    "txtless/data.bin": b"\x00\x01",
    # queries / BEIR
    "q/good.jsonl": _lines([{"_id": "q1", "text": "oil prices"}]),
    "q/id.jsonl": _lines([{"id": "q1", "text": "oil prices"}]),
    "q/query.jsonl": _lines([{"_id": "q1", "query": "oil prices"}]),
    "q/malformed.jsonl": '{"_id": "q1", "text": "oil"}\n{"_id": "q2", \n',
    "q/empty.jsonl": "\n",
    "q/list.jsonl": '["q1", "oil"]\n',
    "q/blank-text.jsonl": _lines([{"_id": "q1", "text": "   "}]),
    # STS / NLI
    "sts.jsonl": _pairs(),
    "sts01.jsonl": _pairs([0.9, 0.8, 0.1, 0.7, 0.0, 0.5]),
    "one.jsonl": _lines([{"sentence1": "a b", "sentence2": "c d", "score": 3.0}]),
    "const.jsonl": _pairs([3.0] * 6),
    "same.jsonl": _lines([{"sentence1": "one text", "sentence2": "the other", "score": float(i)}
                          for i in range(4)]),
    "nli.jsonl": _lines([{"premise": "A man plays.", "hypothesis": "Someone plays.",
                          "label": "entailment"},
                         {"premise": "A man plays.", "hypothesis": "Nobody plays.",
                          "label": "contradiction"}]),
    "qa.jsonl": _lines([{"question": "a", "answer": "b"}]),
    "allbad.jsonl": _lines([{"sentence1": "a", "sentence2": "b", "score": "high"},
                            {"sentence1": "", "sentence2": "b", "score": 1.5}]),
    "range.jsonl": _lines([{"sentence1": "a", "sentence2": "b", "score": s} for s in (20, 75)]),
    "latin1.jsonl": _pairs().encode() + b'{"sentence1": "caf\xe9", "sentence2": "x", "score": 1}\n',
    "sts.xml": "<pairs/>\n",
    "sts.tsv": "sentence1\tsentence2\tscore\n\"unclosed\tquote\t1\n",
    "sts-copy.jsonl": _pairs(),  # the same bytes as sts.jsonl under another name
    "one-doc.txt": "One document without a blank line, so nothing to hold out. " * 12 + "\n",
    "masks.txt": "[MASK] [MASK] [MASK]\n\n[MASK] [MASK]\n\n[MASK]\n",
    # recipes (run with --data W)
    "recipes/folds.json": json.dumps({
        "recipe": "folds", "model": "minilm", "max_length": 32,
        "cross_validation": {"beir": "beir", "split": "test", "folds": 1000},
        "stages": [{"train": ["cv:train"], "loss": "mnrl"}]}),
    "recipes/dev-is-train.json": json.dumps({
        "recipe": "dev-is-train", "model": "minilm", "max_length": 32,
        "stages": [{"train": ["sts.jsonl"], "loss": "cosine"}], "dev": ["sts-copy.jsonl"]}),
    # a run folder that finished, one that holds something else
    "runs/finished/run.json": json.dumps({"format": 1, "identity": {}, "finished": True,
                                          "stages_done": [{}]}),
    "busy/thesis.tex": "keep me\n",
}


def beir_files(prefix: str, *, queries: str | None = None, qrels: str | None = None,
               corpus: str | None = None) -> dict[str, str]:
    ids = [d["id"] for d in DOCS]
    return {
        f"{prefix}/corpus.jsonl": corpus if corpus is not None else _lines(
            [{"_id": d["id"], "title": d["title"], "text": d["text"]} for d in DOCS]),
        f"{prefix}/queries.jsonl": queries if queries is not None else _lines(
            [{"_id": "q1", "text": "oil prices"}, {"_id": "q2", "text": "cup final goal"}]),
        f"{prefix}/qrels/test.tsv": qrels if qrels is not None else
        f"query-id\tcorpus-id\tscore\nq1\t{ids[0]}\t1\nq2\t{ids[1]}\t1\n",
    }


BEIR = {
    **beir_files("beir"),
    **beir_files("beir-qfield", queries=_lines([{"id": "q1", "query": "oil"}])),
    **beir_files("beir-qjson", queries='{"_id": "q1", "text": "oil"}\n{"_id": \n'),
    **beir_files("beir-cid", corpus=_lines([{"doc_id": "oil-1", "text": "x"}])),
    **beir_files("beir-2col", qrels="query-id\tcorpus-id\tscore\nq1 oil-1 1\n"),
    **beir_files("beir-abc", qrels="query-id\tcorpus-id\tscore\nq1\toil-1\tabc\n"),
    **beir_files("beir-half", qrels="query-id\tcorpus-id\tscore\nq1\toil-1\t1.5\n"),
    **beir_files("beir-noq", qrels="query-id\tcorpus-id\tscore\nQ9\toil-1\t1\n"),
    **beir_files("beir-header", qrels="query-id\tcorpus-id\tscore\n"),
    **beir_files("beir-other", qrels="query-id\tcorpus-id\tscore\nq1\tnot-here\t1\n"),
}


class Workspace:
    """`W`: the files above, a flat minilm index of DOCS at W/idx, fresh copies on demand."""

    def __init__(self, root: Path) -> None:
        self.root = root
        for rel, content in {**FILES, **BEIR, **ODD_FILES, **WRITE_FILES, **MESSAGE_FILES,
                             **DOCUMENT_FILES, **VECTOR_FILES, **TRUST_FILES,
                             **PAGE_FILES, **READER_FILES, **ACCESS_FILES}.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        for rel, target in LINKS.items():
            (root / rel).symlink_to(target)
        (root / "empty").mkdir(exist_ok=True)
        (root / "beir-noqueries").mkdir(exist_ok=True)

    def build_index(self) -> Path:
        from indexer import build_index

        build_index(self.root / "corpus.jsonl", self.root / "idx", model="minilm", preset="flat")
        return self.root / "idx"

    def fresh(self) -> Path:
        """A private copy of W/idx (for a case that changes it)."""
        out = self.root / "copies" / uuid.uuid4().hex[:8]
        shutil.copytree(self.root / "idx", out)
        return out
