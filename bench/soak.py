"""Soak test of the store: several writer processes x many rounds of add/delete/save with random
overlaps, reader processes searching all the while, then `kill -9` at random moments of save().

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.soak [--writers 4] [--rounds 25] [--readers 2]
                                                    [--kills 50] [--model minilm]

Writers sleep a random while between open, change and save, so their work overlaps; each adds
its own documents, deletes one of its own earlier ones, and now and then adds an id another
writer may add too (a real conflict, which must be a named `ConcurrentWriteError`). At the end
the index must hold exactly what the saves that returned wrote (0 lost updates). Readers open
and search (dense and lexical) in a loop and count errors and versions seen. The kill phase
starts a save in a child process and sends it SIGKILL after a random delay drawn over the
measured length of a save (so kills land inside FAISS writes, fsyncs and renames alike); after
each the index must open, checksums verified, as the old or the new version. Writes
bench/results/soak.json and soak.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.kit.benchkit import REPO, median, write_results
from indexer import ConcurrentWriteError, SemanticIndex, build_index

KILL_CHILD = r"""
import sys
from indexer import SemanticIndex
index = SemanticIndex.open(sys.argv[1], verify=False)
index.delete([sys.argv[2]])
print("saving", flush=True)
index.save()
print("saved", flush=True)
"""


def seed_docs(n: int) -> list[dict]:
    return [{"id": f"seed-{i:04d}", "text": f"seed story {i} about rivers, banks and markets."}
            for i in range(n)]


def _load(model: str, threads: int):
    import torch

    from encoder import load_encoder

    torch.set_num_threads(threads)
    return load_encoder(model)


def writer(path: str, model: str, threads: int, w: int, rounds: int, seed: int,
           log: str) -> None:
    """One writer process; appends one JSON line per save attempt to `log`."""
    rng = random.Random(seed)
    enc = _load(model, threads)
    mine: list[str] = []
    with open(log, "a", encoding="utf-8") as out:
        for r in range(rounds):
            time.sleep(rng.uniform(0, 0.3))
            index = SemanticIndex.open(path, encoder=enc, verify=False)
            add = [f"w{w}-r{r}"]
            if rng.random() < 0.25 and not index.documents([f"shared-r{r}"]):
                add.append(f"shared-r{r}")  # other writers may add this id too
            index.add([{"id": d, "text": f"story {d} from writer {w}"} for d in add])
            delete = [mine.pop(rng.randrange(len(mine)))] if mine and rng.random() < 0.5 else []
            index.delete(delete)
            time.sleep(rng.uniform(0, 0.3))
            try:
                index.save()
                outcome, message = "saved", ""
                mine += [d for d in add if d.startswith("w")]
            except ConcurrentWriteError as exc:
                outcome, message = "refused", str(exc)
                mine += [d for d in delete]  # not deleted after all
            except Exception as exc:  # reported, not raised: the soak counts it
                outcome, message = "error", f"{type(exc).__name__}: {exc}"
            out.write(json.dumps({"writer": w, "round": r, "add": add, "delete": delete,
                                  "outcome": outcome, "message": message}) + "\n")
            out.flush()


def reader(path: str, model: str, threads: int, stop, min_searches: int, log: str) -> None:
    enc = _load(model, threads)
    searches, errors, versions = 0, [], set()
    while not stop.is_set() or searches < min_searches:
        try:
            index = SemanticIndex.open(path, encoder=enc)
            versions.add(index.stats().version)
            for query, mode in (("story from writer", "dense"), ("rivers banks", "lexical")):
                hits = index.search(query, k=20, mode=mode)
                assert all(h.text for h in hits)
                searches += 1
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
    with open(log, "w", encoding="utf-8") as out:
        json.dump({"searches": searches, "errors": errors, "versions": sorted(versions)}, out)


def writers_phase(path: Path, args, work: Path) -> dict:
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    wlog = work / "writers.jsonl"
    readers = [ctx.Process(target=reader, args=(str(path), args.model, args.threads, stop,
                                                args.min_searches // args.readers,
                                                str(work / f"reader-{i}.json")))
               for i in range(args.readers)]
    writers = [ctx.Process(target=writer, args=(str(path), args.model, args.threads, w,
                                                args.rounds, args.seed + w, str(wlog)))
               for w in range(args.writers)]
    started = time.perf_counter()
    for p in readers + writers:
        p.start()
    for p in writers:
        p.join()
    stop.set()
    for p in readers:
        p.join()
    attempts = [json.loads(line) for line in wlog.read_text().splitlines()]
    expected = {d["id"] for d in seed_docs(args.seed_docs)}
    for a in attempts:
        if a["outcome"] == "saved":
            expected = (expected | set(a["add"])) - set(a["delete"])
    final = SemanticIndex.open(path)
    found = set(final.documents([f"seed-{i:04d}" for i in range(args.seed_docs)]))
    found |= set(final.documents([d for a in attempts for d in a["add"]]))
    reads = [json.loads((work / f"reader-{i}.json").read_text()) for i in range(args.readers)]
    return {
        "writers": args.writers, "rounds": args.rounds, "attempts": len(attempts),
        "saved": sum(a["outcome"] == "saved" for a in attempts),
        "refused_named": sum(a["outcome"] == "refused" for a in attempts),
        "other_errors": [a["message"] for a in attempts if a["outcome"] == "error"],
        "refusal_example": next((a["message"] for a in attempts if a["outcome"] == "refused"),
                                ""),
        "lost_updates": sorted(expected - found), "unexpected": sorted(found - expected),
        "documents": len(final), "versions": final.stats().version,
        "reader_searches": sum(r["searches"] for r in reads),
        "reader_errors": [e for r in reads for e in r["errors"]],
        "versions_seen_by_readers": len({v for r in reads for v in r["versions"]}),
        "wall_s": round(time.perf_counter() - started, 1),
    }


def kill_phase(path: Path, kills: int, seed: int, seeds: int) -> dict:
    rng = random.Random(seed)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}

    def start(victim: str):
        proc = subprocess.Popen([sys.executable, "-c", KILL_CHILD, str(path), victim],
                                stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
        assert proc.stdout.readline().strip() == "saving"
        return proc, time.perf_counter()

    def live_ids() -> list[str]:
        index = SemanticIndex.open(path)
        return sorted(index.documents([f"seed-{i:04d}" for i in range(seeds)]))

    durations = []
    for _ in range(3):  # the length of a save, to draw kill moments over
        proc, t0 = start(live_ids()[0])
        assert proc.stdout.readline().strip() == "saved"
        durations.append(time.perf_counter() - t0)
        proc.wait()
    span = median(durations)
    result = {"kills": kills, "save_s_median": round(span, 3), "killed": 0, "finished": 0,
              "opened_old": 0, "opened_new": 0, "errors": []}
    for _ in range(kills):
        before = SemanticIndex.open(path).stats().version
        ids = live_ids()
        victim = ids[0]
        proc, t0 = start(victim)
        time.sleep(rng.uniform(0, 1.1 * span))
        proc.send_signal(signal.SIGKILL)
        result["killed" if proc.wait() == -signal.SIGKILL else "finished"] += 1
        try:
            index = SemanticIndex.open(path)  # every checksum verified
            version, now = index.stats().version, live_ids()
        except Exception as exc:
            result["errors"].append(f"{type(exc).__name__}: {exc}")
            continue
        if version == before and now == ids:
            result["opened_old"] += 1
        elif version > before and now == ids[1:]:
            result["opened_new"] += 1
        else:
            result["errors"].append(f"version {before} -> {version}: wrong content")
    index = SemanticIndex.open(path)
    index.delete([live_ids()[0]])
    index.save()
    result["left_over_after_next_save"] = sorted(
        p.name for p in path.iterdir() if p.name.startswith((".staging-", ".manifest.json.")))
    return result


def report(meta: dict, soak: dict, kills: dict) -> str:
    rows = [("writer processes x rounds", f"{soak['writers']} x {soak['rounds']}"),
            ("save attempts / saved / refused (ConcurrentWriteError)",
             f"{soak['attempts']} / {soak['saved']} / {soak['refused_named']}"),
            ("other writer errors", len(soak["other_errors"])),
            ("lost updates", len(soak["lost_updates"])),
            ("documents present that no returned save wrote", len(soak["unexpected"])),
            ("versions published", soak["versions"]),
            ("reader searches / reader errors",
             f"{soak['reader_searches']} / {len(soak['reader_errors'])}"),
            ("distinct versions readers saw", soak["versions_seen_by_readers"]),
            ("kill -9 during save(): killed / finished first", f"{kills['killed']} / "
             f"{kills['finished']}"),
            ("... then opened as old / new / failed to open or wrong",
             f"{kills['opened_old']} / {kills['opened_new']} / {len(kills['errors'])}"),
            ("debris left after the next save", len(kills["left_over_after_next_save"]))]
    lines = ["# Store soak", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "| measure | result |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]
    if soak["refusal_example"]:
        lines += ["", f"A refusal reads: \"{soak['refusal_example']}\""]
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--writers", type=int, default=4)
    p.add_argument("--rounds", type=int, default=25)
    p.add_argument("--readers", type=int, default=2)
    p.add_argument("--min-searches", type=int, default=1000)
    p.add_argument("--kills", type=int, default=50)
    p.add_argument("--seed-docs", type=int, default=200)
    p.add_argument("--model", default="minilm")
    p.add_argument("--threads", type=int, default=1, help="torch threads per process")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default="soak")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bertscope-soak-") as tmp:
        work = Path(tmp)
        path = work / "index"
        build_index(seed_docs(args.seed_docs), path, model=args.model, preset="hnsw")
        soak = writers_phase(path, args, work)
        print(json.dumps(soak, indent=1), flush=True)
        kills = kill_phase(path, args.kills, args.seed, args.seed_docs)
        print(json.dumps(kills, indent=1), flush=True)
    meta = {"model": args.model, "preset": "hnsw (deletes are tombstones)"}
    table = report(meta, soak, kills)
    write_results(args.name, {"meta": meta, "writers": soak, "kills": kills}, table)
    print(table)
    failed = (soak["lost_updates"] or soak["unexpected"] or soak["other_errors"]
              or soak["reader_errors"] or kills["errors"] or kills["left_over_after_next_save"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
