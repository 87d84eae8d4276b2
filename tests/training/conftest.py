"""Fixtures for training tests: small data files written per test, real STS-B rows when present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def write_jsonl(path: Path, rows: list[dict | str]) -> Path:
    """Rows as JSON lines; a str row is written verbatim (to make broken lines)."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


STS_ROWS = [
    {"sentence1": "A man is playing a guitar.", "sentence2": "A man plays guitar.", "score": 4.8},
    {"sentence1": "A woman is slicing an onion.", "sentence2": "A woman cuts onion.", "score": 4.2},
    {"sentence1": "A dog runs in the park.", "sentence2": "A cat sleeps on a sofa.", "score": 0.4},
    {"sentence1": "Kids are playing football.", "sentence2": "Children play soccer.", "score": 3.9},
    {"sentence1": "The stock market fell.", "sentence2": "A girl is riding a horse.", "score": 0.0},
    {"sentence1": "A man is cooking pasta.", "sentence2": "Someone is making food.", "score": 2.6},
]

NLI_ROWS = [
    {"premise": "A man plays guitar.", "hypothesis": "Someone makes music.", "label": "entailment"},
    {"premise": "A man plays guitar.", "hypothesis": "A man is asleep.", "label": "contradiction"},
    {"premise": "A man plays guitar.", "hypothesis": "He is famous.", "label": "neutral"},
    {"premise": "Two dogs run.", "hypothesis": "Animals are moving.", "label": "entailment"},
    {"premise": "Two dogs run.", "hypothesis": "The dogs sit still.", "label": "contradiction"},
    {"premise": "A child reads.", "hypothesis": "A kid looks at a book.", "label": "entailment"},
]


@pytest.fixture
def jsonl():
    """`jsonl(path, rows)` writes rows as JSON lines and returns the path."""
    return write_jsonl


@pytest.fixture
def sts_root(tmp_path) -> Path:
    """A data root with sts/train.jsonl and sts/dev.jsonl (other bytes: a real dev set)."""
    data = tmp_path / "data"
    (data / "sts").mkdir(parents=True)
    write_jsonl(data / "sts" / "train.jsonl", STS_ROWS)
    write_jsonl(data / "sts" / "dev.jsonl", STS_ROWS[::-1])
    return data


def load_sts_recipe(tmp_path: Path, root: Path, **changes):
    """A one-stage recipe on `sts_root` (train, dev), with `changes`, written and loaded."""
    from training.recipe import load_recipe

    recipe = {"recipe": "t", "model": "minilm", "stages": [{"train": ["sts/train.jsonl"]}],
              "dev": ["sts/dev.jsonl"], **changes}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(recipe))
    return load_recipe(path, out=str(tmp_path / "out"), data=root, cache=tmp_path / "cache")


@pytest.fixture
def sts_file(tmp_path) -> Path:
    return write_jsonl(tmp_path / "sts.jsonl", STS_ROWS)


@pytest.fixture
def nli_file(tmp_path) -> Path:
    return write_jsonl(tmp_path / "nli.jsonl", NLI_ROWS)


@pytest.fixture(scope="session")
def stsb64(shared_data, tmp_path_factory) -> Path:
    """The first 64 pairs of STS-B train (real data; skips when ../shared/data is absent)."""
    lines = (shared_data / "stsb-en" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path_factory.mktemp("stsb") / "stsb64.jsonl"
    path.write_text("\n".join(lines[:64]) + "\n", encoding="utf-8")
    return path
