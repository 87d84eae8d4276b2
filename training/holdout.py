"""Deterministic held-out parts of a pairs file, so a set with only one split here (LCQMC's dev
file, ATEC's train file) can be trained on and still scored on pairs the model never saw.

Pairs that share a sentence are kept together (connected groups of the sentence graph), so no
sentence of a held-out pair appears in training: LCQMC and ATEC repeat questions across pairs,
and a pair-level split would leak them. Groups are shuffled with a seed and dealt into the parts
in order until each part has at least its size; `train` takes the rest. Parts are written as
JSONL files beside a `split.json` that lists each part's line numbers in the source file, when a
run starts (`HoldoutSplit.write`): planning them, as loading a recipe does, writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common.atomic import write_atomic, write_json_atomic

from .errors import TrainingError

PARTS = ("select", "heldout")  # sized parts, dealt in this order; "train" is the rest
ALL_PARTS = ("train", *PARTS)
SPLIT_FORMAT = 1


@dataclass(frozen=True)
class HoldoutSpec:
    seed: int
    sizes: dict[str, int]  # part -> at least this many pairs ("select", "heldout")


def group_pairs(rows: list[dict[str, Any]]) -> list[list[int]]:
    """Indices of `rows` grouped so that pairs sharing a sentence (either side) are together."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r in rows:
        a, b = find(_key(r, "sentence1")), find(_key(r, "sentence2"))
        if a != b:
            parent[a] = b
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(find(_key(r, "sentence1")), []).append(i)
    return list(groups.values())


def split_rows(rows: list[dict[str, Any]], spec: HoldoutSpec) -> dict[str, list[int]]:
    """part -> sorted row indices; every row lands in exactly one part."""
    wanted = sum(spec.sizes.values())
    if wanted >= len(rows):
        raise TrainingError(
            f"held-out parts ask for {wanted} pairs but the file has {len(rows)}; leave some "
            "for training"
        )
    groups = group_pairs(rows)
    random.Random(spec.seed).shuffle(groups)
    parts: dict[str, list[int]] = {p: [] for p in ALL_PARTS}
    queue = [p for p in PARTS if spec.sizes.get(p, 0) > 0]
    for group in groups:
        while queue and len(parts[queue[0]]) >= spec.sizes[queue[0]]:
            queue.pop(0)
        parts[queue[0] if queue else "train"].extend(group)
    return {p: sorted(ix) for p, ix in parts.items()}


@dataclass(frozen=True)
class HoldoutSplit:
    """The parts of one source file, worked out but not yet written: `files` (part -> file
    under the cache folder) exist once `write()` ran, here or in an earlier run."""

    folder: Path
    files: dict[str, Path]
    record: dict[str, Any] | None  # None: the parts were already complete when planned
    texts: dict[str, str] = field(default_factory=dict)  # part -> its lines

    @property
    def complete(self) -> bool:
        return (self.folder / "split.json").is_file() and all(f.is_file()
                                                              for f in self.files.values())

    def write(self) -> dict[str, Path]:
        """Write the parts (unless complete), `split.json` last: it marks them complete."""
        if self.record is None or self.complete:
            return self.files
        self.folder.mkdir(parents=True, exist_ok=True)
        for part, text in self.texts.items():
            with write_atomic(self.files[part], "w", encoding="utf-8") as fh:
                fh.write(text)
        write_json_atomic(self.folder / "split.json", self.record)
        return self.files


def plan_split(source: Path, spec: HoldoutSpec, cache: Path) -> HoldoutSplit:
    """Split `source` into parts kept under `cache` (keyed by content, seed and sizes), checking
    the sizes fit; writes nothing. Line numbers in `split.json` are 1-based lines of `source`."""
    raw = source.read_bytes()
    key = hashlib.sha256(
        raw + json.dumps([spec.seed, sorted(spec.sizes.items())]).encode()
    ).hexdigest()[:12]
    folder = cache / f"{source.parent.name}-{source.stem}-{key}"
    files = {p: folder / f"{source.parent.name}-{source.stem}.{p}.jsonl" for p in ALL_PARTS}
    done = HoldoutSplit(folder, files, None)
    if done.complete:
        return done
    lines = [(n, line) for n, line in enumerate(raw.decode("utf-8-sig").splitlines(), 1)
             if line.strip()]
    rows = []
    for n, line in lines:
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise TrainingError(f"{source}:{n}: not valid JSON ({exc.msg})") from exc
    parts = split_rows(rows, spec)
    record = {
        "format": SPLIT_FORMAT,
        "source": str(source),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "seed": spec.seed,
        "sizes_asked": spec.sizes,
        "grouping": "pairs sharing a sentence stay in one part",
        "parts": {p: {"pairs": len(ix), "lines": [lines[i][0] for i in ix]}
                  for p, ix in parts.items()},
    }
    texts = {p: "".join(lines[i][1] + "\n" for i in ix) for p, ix in parts.items()}
    return HoldoutSplit(folder, files, record, texts)


def materialise(source: Path, spec: HoldoutSpec, cache: Path) -> dict[str, Path]:
    """Write the parts of `source` under `cache` (once) and return part -> file."""
    return plan_split(source, spec, cache).write()


def _key(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    return f"{column}:{value}" if not isinstance(value, str) else value.strip()
