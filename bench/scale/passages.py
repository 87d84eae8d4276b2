"""Passages for the scale bench, made from the sentence pool (`bench.scale.pool`): each passage is
3-8 English or 4-10 Chinese sentences of one topic, its vector the unit mean of its sentences'
vectors, with metadata of four kinds (a ~20-value category, a year, a language, an author id of
high cardinality). The stream is seeded and sequential, so the 10k corpus is the first 10k
passages of the 100k one, and so on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .pool import Pool

EN_SHARE = 0.8
AUTHORS = 125_000  # one skewed draw over this many ids at every size
YEARS = (1995, 2024)


@dataclass
class Passage:
    id: str
    title: str
    text: str
    metadata: dict
    sentences: np.ndarray  # pool rows

    def row(self) -> dict:
        return {"id": self.id, "title": self.title, "text": self.text, **self.metadata}


def category_name(c: int) -> str:
    return f"topic-{int(c):02d}"


def _buckets(pool: Pool, lang: str):
    """The topics of `lang` with at least 50 sentences: (rows per topic, topics, shares)."""
    rows = np.flatnonzero(pool.lang == lang)
    cats, counts = np.unique(pool.category[rows], return_counts=True)
    keep = counts >= 50
    return ([rows[pool.category[rows] == c] for c in cats[keep]], cats[keep],
            counts[keep] / counts[keep].sum())


def used_categories(pool: Pool) -> list[int]:
    """Every topic some passage can have, most common first."""
    shares: dict[int, float] = {}
    for lang, weight in (("en", EN_SHARE), ("zh", 1 - EN_SHARE)):
        _, cats, p = _buckets(pool, lang)
        for c, share in zip(cats.tolist(), p.tolist(), strict=True):
            shares[c] = shares.get(c, 0.0) + weight * share
    return sorted(shares, key=lambda c: -shares[c])


def passages(pool: Pool, n: int, seed: int = 7) -> Iterator[Passage]:
    """The first `n` passages of the stream seeded by `seed`."""
    rng = np.random.default_rng(seed)
    buckets = {lang: _buckets(pool, lang) for lang in ("en", "zh")}
    years = np.arange(YEARS[0], YEARS[1] + 1)
    year_p = np.linspace(1, 3, len(years))
    year_p /= year_p.sum()  # more recent years are more common
    for i in range(n):
        lang = "en" if rng.random() < EN_SHARE else "zh"
        rows, cats, p = buckets[lang]
        b = rng.choice(len(cats), p=p)
        many = rng.integers(3, 9) if lang == "en" else rng.integers(4, 11)
        chosen = rng.choice(rows[b], size=min(many, len(rows[b])), replace=False)
        sentences = [pool.texts[j] for j in chosen]
        text = (" " if lang == "en" else "").join(sentences)
        first = sentences[0]
        title = " ".join(first.split()[:6]) if lang == "en" else first[:12]
        author = int(AUTHORS * rng.random() ** 2.5)  # skewed: a few prolific, most rare
        meta = {"category": category_name(cats[b]), "year": int(rng.choice(years, p=year_p)),
                "lang": lang, "author": f"au{author:06d}"}
        yield Passage(f"p{i:07d}", title, text, meta, chosen)


def mean_vectors(pool: Pool, groups: list[np.ndarray]) -> np.ndarray:
    """(len(groups), dim) unit means of the pool vectors of each group of rows."""
    flat = np.concatenate(groups)
    starts = np.cumsum([0, *[len(g) for g in groups[:-1]]])
    sums = np.add.reduceat(pool.vectors[flat], starts, axis=0)
    return (sums / np.linalg.norm(sums, axis=1, keepdims=True)).astype(np.float32)


def write_passages(pool: Pool, stream: Iterator[Passage], count: int, jsonl: Path, npy: Path,
                   batch: int = 20_000) -> dict:
    """The next `count` passages of `stream` as a JSONL corpus and a float32 `.npy` of their
    vectors, row i for line i; returns metadata counts (authors per id, for picking filters)."""
    vectors = np.lib.format.open_memmap(npy, mode="w+", dtype=np.float32,
                                        shape=(count, pool.vectors.shape[1]))
    authors: dict[str, int] = {}
    done = 0
    with open(jsonl, "w", encoding="utf-8") as fh:
        while done < count:
            part = [next(stream) for _ in range(min(batch, count - done))]
            for p in part:
                fh.write(json.dumps(p.row(), ensure_ascii=False) + "\n")
                authors[p.metadata["author"]] = authors.get(p.metadata["author"], 0) + 1
            vectors[done:done + len(part)] = mean_vectors(pool, [p.sentences for p in part])
            done += len(part)
    vectors.flush()
    return {"authors": authors}
