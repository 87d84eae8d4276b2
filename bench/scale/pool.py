"""The scale bench's sentence pool: real English and Chinese sentences from `$BERTSCOPE_DATA`
(`../shared/data`), each encoded once by the bench's model and given one of CATEGORIES topics
(k-means over the sentence vectors). Passages (`bench.scale.passages`) are made from it."""

from __future__ import annotations

import json
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CATEGORIES = 20
MAX_EN, MAX_ZH = 60_000, 30_000  # sentences kept per language (a seeded sample)
_EN_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_ZH_SPLIT = re.compile(r"(?<=[。！？])")
_SNLI_SPACE = re.compile(r" (?=[.,!?;:'])|(?<=\() ")


@dataclass
class Pool:
    texts: list[str]
    lang: np.ndarray  # (n,) "en" | "zh"
    vectors: np.ndarray  # (n, dim) float32, unit rows
    category: np.ndarray  # (n,) int: its k-means topic

    def __len__(self) -> int:
        return len(self.texts)


def _jsonl(path: Path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _english_ok(s: str) -> bool:
    letters = sum(c.isalpha() for c in s)
    return 30 <= len(s) <= 400 and letters >= 0.6 * len(s) and not s.startswith((">", "|"))


def _newsgroup_sentences(data: Path):
    """Body sentences of the 20 Newsgroups posts: headers, quoted lines and signatures out."""
    with tarfile.open(data / "20newsgroups" / "20news-bydate.tar.gz") as tar:
        for member in tar:
            if not member.isfile():
                continue
            raw = tar.extractfile(member).read().decode("latin-1")
            body = raw.partition("\n\n")[2].split("\n-- \n")[0]
            lines = [x.strip() for x in body.splitlines()
                     if x.strip() and not x.lstrip().startswith((">", "|", ":"))
                     and "@" not in x and "writes:" not in x]
            yield from _EN_SPLIT.split(" ".join(lines))


def english_sentences(data: Path) -> list[str]:
    """SciFact abstracts, 20 Newsgroups posts, SNLI premises and STS-B sentences, split into
    sentences, kept when they read as prose (30-400 characters, mostly letters)."""
    out: list[str] = []
    for row in _jsonl(data / "scifact" / "corpus.jsonl"):
        out.extend(_EN_SPLIT.split(row["text"]))
    out.extend(_newsgroup_sentences(data))
    for row in _jsonl(data / "snli" / "pairs.jsonl"):
        out.append(_SNLI_SPACE.sub("", row["premise"]))
    for split in ("train", "dev"):
        for row in _jsonl(data / "stsb-en" / f"{split}.jsonl"):
            out.extend((row["sentence1"], row["sentence2"]))
    return [s for s in dict.fromkeys(x.strip() for x in out) if _english_ok(s)]


def chinese_sentences(data: Path) -> list[str]:
    """THUCNews titles, ATEC questions, OCNLI premises and Chinese STS-B sentences (LCQMC is
    kept apart for queries), 8-200 characters, each ending in Chinese punctuation."""
    out: list[str] = [r["text"] for r in _jsonl(data / "thucnews-titles" / "corpus.jsonl")]
    for row in _jsonl(data / "atec" / "train.jsonl"):
        out.extend((row["sentence1"], row["sentence2"]))
    for split in ("train", "dev"):
        for row in _jsonl(data / "ocnli" / f"{split}.jsonl"):
            out.extend(_ZH_SPLIT.split(row["premise"]))
        for row in _jsonl(data / "stsb-zh" / f"{split}.jsonl"):
            out.extend((row["sentence1"], row["sentence2"]))
    kept = []
    for s in dict.fromkeys(x.strip() for x in out):
        if 8 <= len(s) <= 200 and sum("\u4e00" <= c <= "\u9fff" for c in s) >= len(s) // 2:
            kept.append(s if s[-1] in "。！？" else s + "。")
    return kept


def sample(items: list[str], most: int, seed: int) -> list[str]:
    if len(items) <= most:
        return items
    keep = np.sort(np.random.default_rng(seed).choice(len(items), most, replace=False))
    return [items[i] for i in keep]


def build_pool(data: Path, encoder, folder: Path, seed: int = 0, batch: int = 64) -> Pool:
    """Read, encode and cluster the pool into `folder` (sentences.jsonl, vectors.npy,
    category.npy); a second call reads it back."""
    if (folder / "category.npy").exists():
        return load_pool(folder)
    from tqdm import tqdm

    en = sample(english_sentences(data), MAX_EN, seed)
    zh = sample(chinese_sentences(data), MAX_ZH, seed + 1)
    texts, lang = en + zh, np.array(["en"] * len(en) + ["zh"] * len(zh))
    order = np.argsort([len(t) for t in texts], kind="stable")  # similar lengths batch well
    vectors = np.empty((len(texts), encoder.dim), np.float32)
    for first in tqdm(range(0, len(texts), 4096), desc="encode the sentence pool",
                      unit_scale=4096):
        part = order[first:first + 4096]
        vectors[part] = encoder.encode([texts[i] for i in part], batch_size=batch,
                                       prompt="passage")
    category = kmeans_topics(vectors, CATEGORIES, seed)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "sentences.jsonl", "w", encoding="utf-8") as fh:
        for text, lg in zip(texts, lang, strict=True):
            fh.write(json.dumps({"text": text, "lang": str(lg)}, ensure_ascii=False) + "\n")
    np.save(folder / "vectors.npy", vectors)
    np.save(folder / "category.npy", category)
    return Pool(texts, lang, vectors, category)


def kmeans_topics(vectors: np.ndarray, k: int, seed: int) -> np.ndarray:
    import faiss

    km = faiss.Kmeans(vectors.shape[1], k, niter=20, seed=seed, spherical=True, verbose=False)
    km.train(vectors)
    return km.index.search(vectors, 1)[1][:, 0].astype(np.int16)


def load_pool(folder: Path) -> Pool:
    rows = list(_jsonl(folder / "sentences.jsonl"))
    return Pool([r["text"] for r in rows], np.array([r["lang"] for r in rows]),
                np.load(folder / "vectors.npy"), np.load(folder / "category.npy"))
