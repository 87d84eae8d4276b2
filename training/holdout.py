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
    """part -> sorted row indices; every row lands in exactly one part, and every part asked for
    and `train` hold at least one. Groups are dealt in shuffled order until each part has its
    size; where that is far from what was asked (a large group dealt early took every row, or
    most: a file that repeats its sentences), the parts are filled instead from the groups that
    fit, the smallest last, so that training keeps rows; where no split leaves rows on both
    sides, a `TrainingError` says why, before anything is trained."""
    wanted = sum(spec.sizes.values())
    if wanted >= len(rows):
        raise TrainingError(
            f"held-out parts ask for {wanted} pairs but the file has {len(rows)}; leave some "
            "for training"
        )
    groups = group_pairs(rows)
    random.Random(spec.seed).shuffle(groups)
    asked = [p for p in PARTS if spec.sizes.get(p, 0) > 0]
    parts = _dealt(groups, spec, asked)
    if not _fair(parts, spec, asked, len(rows)):
        parts = _fitted(groups, spec, asked)
    if not parts["train"] or not all(parts[p] for p in asked):
        raise TrainingError(_no_split(rows, groups, spec))
    return {p: sorted(ix) for p, ix in parts.items()}


def _fair(parts: dict[str, list], spec: HoldoutSpec, asked: list[str], rows: int) -> bool:
    """Whether a dealt split is what was asked for, near enough: every part and training hold
    rows, no part has over twice its size, training has at least half of what it should."""
    return bool(parts["train"]) and all(parts[p] for p in asked) \
        and all(len(parts[p]) <= 2 * spec.sizes[p] for p in asked) \
        and len(parts["train"]) >= (rows - sum(spec.sizes[p] for p in asked)) / 2


def _dealt(groups: list[list[int]], spec: HoldoutSpec, asked: list[str]) -> dict[str, list]:
    """Groups dealt in order into each part until it has its size; the rest to train."""
    parts: dict[str, list[int]] = {p: [] for p in ALL_PARTS}
    queue = list(asked)
    for group in groups:
        while queue and len(parts[queue[0]]) >= spec.sizes[queue[0]]:
            queue.pop(0)
        parts[queue[0] if queue else "train"].extend(group)
    return parts


def _fitted(groups: list[list[int]], spec: HoldoutSpec, asked: list[str]) -> dict[str, list]:
    """Each part filled with the groups that fit in what it still needs (in shuffled order),
    then, while it is empty, the smallest group left that leaves training a row."""
    parts: dict[str, list[int]] = {p: [] for p in ALL_PARTS}
    pool = list(groups)
    for part in asked:
        size = spec.sizes[part]
        for group in list(pool):
            if len(parts[part]) + len(group) <= size:
                parts[part].extend(group)
                pool.remove(group)
        left = sum(map(len, pool))
        for group in sorted(pool, key=len):
            if parts[part] or left - len(group) < 1:
                break
            parts[part].extend(group)
            pool.remove(group)
            left -= len(group)
    parts["train"] = [i for group in pool for i in group]
    return parts


def _no_split(rows: list, groups: list[list[int]], spec: HoldoutSpec) -> str:
    """Why no split of `rows` leaves pairs on both sides with no sentence shared across."""
    largest = max(map(len, groups))
    return (f"no held-out part can be cut from these {len(rows)} pairs: pairs that share a "
            f"sentence must stay on one side (else the held-out scores would be on sentences "
            f"trained on), and they form {len(groups)} connected group"
            f"{'s' if len(groups) > 1 else ''}, the largest of {largest} pairs, so one side "
            f"would be empty (asked: {', '.join(f'{p} {n}' for p, n in spec.sizes.items())}). "
            "Hold out 0 pairs (no dev set: the loss curve alone), or score on a file of other "
            "sentences")


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
