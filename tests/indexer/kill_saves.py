"""`python kill_saves.py INDEX ROUNDS SEED`: kill -9 a save() of INDEX at random lines, ROUNDS
times; after each, the index must open (checksums verified) as the old or the new version.
Prints a JSON summary. Each save runs in a forked child that counts the lines it executes in
the store's code and sends itself SIGKILL at a line drawn at random."""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from pathlib import Path

import common.atomic
import indexer.folder.changes
import indexer.folder.index
import indexer.folder.store.publishing
import indexer.folder.writes
import indexer.index
from indexer import SemanticIndex

SAVE_CODE = {str(Path(m.__file__).resolve()) for m in (
    indexer.index, indexer.folder.index, indexer.folder.writes, indexer.folder.changes,
    indexer.folder.store.publishing, common.atomic)}


def child_save(path: Path, victim: str, kill_at: int, report: int) -> None:
    """In the child: delete `victim` and save, dying at line `kill_at` (0: never)."""
    index = SemanticIndex.open(path, verify=False)
    index.delete([victim])
    lines = 0

    def local(frame, event, arg):
        nonlocal lines
        # comprehensions are not counted: next_version's runs once per entry of the folder,
        # which grows with each killed save's debris, and would push the switch past the
        # calibrated count (no kill then reached it)
        if event == "line" and not frame.f_code.co_name.startswith("<"):
            lines += 1
            if lines == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
        return local

    sys.settrace(lambda frame, event, arg: local if frame.f_code.co_filename in SAVE_CODE
                 else None)
    index.save()
    sys.settrace(None)
    os.write(report, str(lines).encode())


def run_save(path: Path, victim: str, kill_at: int) -> tuple[bool, int]:
    """(killed, lines the save ran when it finished)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            child_save(path, victim, kill_at, write)
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    out = os.read(read, 64)
    os.close(read)
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    if not killed and (not os.WIFEXITED(status) or not out):
        raise RuntimeError(f"the save child failed (status {status})")
    return killed, int(out or 0)


def main(path: Path, rounds: int, seed: int) -> dict:
    rng = random.Random(seed)
    index = SemanticIndex.open(path)
    ids = {h.doc_id for h in index.search("story", k=10_000, mode="lexical")}
    versions = {index.stats().version: set(ids)}
    killed, lines = run_save(path, min(ids), 0)  # calibration: how many lines a save runs
    ids.discard(min(ids))
    versions[max(versions) + 1] = set(ids)
    summary = {"rounds": rounds, "save_lines": lines, "killed": 0, "completed": 0,
               "opened_old": 0, "opened_new": 0, "errors": []}
    for _ in range(rounds):
        before = max(versions)
        victim = min(ids)
        # a line anywhere, or (one time in four) in the last quarter, around the switch
        first = 1 if rng.random() < 0.75 else max(1, lines - lines // 4)
        was_killed, _ = run_save(path, victim, rng.randint(first, lines))
        summary["killed" if was_killed else "completed"] += 1
        try:
            index = SemanticIndex.open(path)  # verify=True: every checksum
            version = index.stats().version
            found = {h.doc_id for h in index.search("story", k=10_000, mode="lexical")}
        except Exception as exc:  # counted, not raised: the summary says what happened
            summary["errors"].append(f"{type(exc).__name__}: {exc}")
            continue
        if version > before:  # new (numbers of versions killed before the switch are skipped)
            ids.discard(victim)
            versions[version] = set(ids)
            summary["opened_new"] += 1
        else:
            summary["opened_old"] += 1
        if version < before or found != versions[version]:
            summary["errors"].append(f"version {version} after {before}: wrong content")
    index = SemanticIndex.open(path)  # a clean save afterwards removes every leftover
    index.delete([min(ids)])
    index.save()
    summary["left_over"] = sorted(p.name for p in path.iterdir()
                                  if p.name.startswith((".staging-", ".manifest.json.")))
    summary["version_folders"] = len([p for p in path.iterdir() if p.name.startswith("v")])
    return summary


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))))
