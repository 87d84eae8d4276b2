"""One scale corpus on disk, made once and cached under `$BERTSCOPE_HOME/bench/scale/`:
`c<N>/corpus.jsonl` + `vectors.npy` (N passages), `add.jsonl` + `add.npy` (the next ADD passages
of the same stream, for the `add` measurement) and `queries.jsonl` (300 real queries, each with
the three filters the bench tries). See bench/scale/README.md for how each part is made."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .passages import category_name, passages, used_categories, write_passages
from .pool import Pool, build_pool

ADD = 1000
QUERIES_EN, QUERIES_ZH = 240, 60
FILTER_SHARE = 0.001  # the author filter keeps about this share of the passages


@dataclass(frozen=True)
class ScaleCorpus:
    folder: Path

    @property
    def corpus(self) -> Path:
        return self.folder / "corpus.jsonl"

    @property
    def vectors(self) -> Path:
        return self.folder / "vectors.npy"

    @property
    def add_corpus(self) -> Path:
        return self.folder / "add.jsonl"

    @property
    def add_vectors(self) -> Path:
        return self.folder / "add.npy"

    def queries(self) -> list[dict]:
        with open(self.folder / "queries.jsonl", encoding="utf-8") as fh:
            return [json.loads(line) for line in fh]

    def info(self) -> dict:
        return json.loads((self.folder / "info.json").read_text())


def query_texts(data: Path) -> list[tuple[str, str]]:
    """(text, language): SciFact's first QUERIES_EN claims and LCQMC's first QUERIES_ZH
    distinct questions (LCQMC is not in the pool, so no query is a corpus sentence)."""
    with open(data / "scifact" / "queries.jsonl", encoding="utf-8") as fh:
        en = [json.loads(line)["text"] for line in fh][:QUERIES_EN]
    zh: list[str] = []
    with open(data / "lcqmc" / "dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            s = json.loads(line)["sentence1"].strip()
            if len(s) >= 6 and s not in zh:
                zh.append(s)
            if len(zh) == QUERIES_ZH:
                break
    return [(t, "en") for t in en] + [(t, "zh") for t in zh]


def rare_authors(counts: dict[str, int], n: int, most: int = 20) -> list[str]:
    """Authors whose passages are nearest FILTER_SHARE of `n` (a filter keeping ~0.1 %)."""
    target = max(1.0, FILTER_SHARE * n)
    return sorted(counts, key=lambda a: (abs(counts[a] - target), a))[:most]


def make_queries(data: Path, counts: dict[str, int], n: int, categories: list[int]) -> list[dict]:
    authors = rare_authors(counts, n)
    out = []
    for i, (text, lang) in enumerate(query_texts(data)):
        first = 1995 + (7 * i) % 28
        out.append({"text": text, "lang": lang,
                    "category": category_name(categories[i % len(categories)]),
                    "years": [first, first + 2], "author": authors[i % len(authors)],
                    "author_passages": counts[authors[i % len(authors)]]})
    return out


def scale_corpus(n: int, home: Path, data: Path, encoder, seed: int = 7) -> ScaleCorpus:
    """The corpus of `n` passages (made now if absent; the pool too)."""
    out = ScaleCorpus(home / f"c{n}")
    if (out.folder / "info.json").exists():
        return out
    pool: Pool = build_pool(data, encoder, home / "pool")
    out.folder.mkdir(parents=True, exist_ok=True)
    stream = passages(pool, n + ADD, seed)
    made = write_passages(pool, stream, n, out.corpus, out.vectors)
    write_passages(pool, stream, ADD, out.add_corpus, out.add_vectors)
    queries = make_queries(data, made["authors"], n, used_categories(pool))
    with open(out.folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in queries)
    info = {"passages": n, "add": ADD, "seed": seed, "pool_sentences": len(pool),
            "model": encoder.name, "fingerprint": encoder.fingerprint,
            "authors": len(made["authors"]), "queries": len(queries)}
    (out.folder / "info.json").write_text(json.dumps(info, indent=1))
    return out
