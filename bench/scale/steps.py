"""The scale bench's steps for one (size, setup): build through the CLI (wall time, peak RSS of
the process tree, size on disk), then the probe in a fresh process, the service beside
in-process, and the app's pages, each in its own process so that one's memory never counts in
another's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .corpus import ScaleCorpus
from .rss import run_measured


@dataclass(frozen=True)
class Setup:
    store: str  # folder | milvus
    preset: str  # hnsw | ivfpq-disk | flat

    @classmethod
    def parse(cls, text: str) -> Setup:
        store, _, preset = text.partition(":")
        if store not in ("folder", "milvus") or not preset:
            raise SystemExit(f"a setup is STORE:PRESET (folder:hnsw, milvus:hnsw), not {text!r}")
        return cls(store, preset)

    def __str__(self) -> str:
        return f"{self.store}:{self.preset}"

    def root(self, home: Path, n: int) -> Path:
        """An index root holding this index alone, named `index` (what the service and the
        app are pointed at): a folder, or a milvus-lite `store.db` and its `index.milvus`."""
        return home / "idx" / f"{self.store}-{self.preset}-{n}"

    def target(self, home: Path, n: int) -> str:
        if self.store == "milvus":
            return f"milvus://{self.files(home, n)}?collection=c{n}"
        return str(self.files(home, n))

    def files(self, home: Path, n: int) -> Path:
        return self.root(home, n) / ("store.db" if self.store == "milvus" else "index")


def env() -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def disk_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 2**20
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def build(setup: Setup, data: ScaleCorpus, home: Path, n: int) -> dict:
    """`python -m indexer build --vectors` into a fresh place; wall seconds, peak RSS, MB."""
    place = setup.files(home, n)
    if place.exists():
        shutil.rmtree(place) if place.is_dir() else place.unlink()
    place.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "indexer", "build", "--corpus", str(data.corpus),
            "--vectors", str(data.vectors), "--model", "minilm", "--index", setup.preset]
    if setup.store == "milvus":
        argv += ["--store", "milvus", "--milvus-uri", str(place), "--collection", f"c{n}"]
        (setup.root(home, n) / "index.milvus").write_text(setup.target(home, n) + "\n")
    else:
        argv += ["--out", str(place)]
    done = run_measured(argv, env=env())
    if done.code != 0:
        return {"error": done.tail, "seconds": round(done.seconds, 1),
                "peak_rss_mb": round(done.peak_rss_mb)}
    return {"seconds": round(done.seconds, 1), "peak_rss_mb": round(done.peak_rss_mb),
            "disk_mb": round(disk_mb(place), 1)}


MILVUS_QUERIES = 50  # milvus-lite answers a hybrid search in ~0.3 s: 300 x 9 would take hours


def probe(setup: Setup, data: ScaleCorpus, home: Path, n: int, skip: str = "") -> dict:
    out = home / "probe.json"
    out.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "bench.scale.probe", setup.target(home, n), str(data.folder),
            str(out)] + (["--skip", skip] if skip else [])
    if setup.store == "milvus":
        argv += ["--queries", str(MILVUS_QUERIES)]
    done = run_measured(argv, env=env())
    if done.code != 0:
        return {"error": done.tail}
    return {**json.loads(out.read_text()), "probe_peak_rss_mb": round(done.peak_rss_mb)}


def in_process(module: str, *args: str) -> dict:
    """`python -m bench.scale.MODULE ARGS OUT.json` in a fresh process; its JSON."""
    out = Path(args[-1])
    out.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-m", f"bench.scale.{module}", *args], env=env(),
                          capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stdout + done.stderr).strip().splitlines()[-5:]}
    return json.loads(out.read_text())
