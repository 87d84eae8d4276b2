"""`python -m bench.scale.sync_files CORPUS_DIR N OUT.json`: an unchanged `sync` of a folder of N
Markdown files (the corpus's first N passages, one file each, front matter holding the
passage's metadata, 100 files a folder), through the CLI as a user runs it. The first sync builds
the index, made once and kept, with a 2-layer random BERT (`bench.kit.tiny_model`): minilm
would encode 100k passages for over an hour, and an unchanged sync encodes nothing (it loads
the index's model, which for the tiny one takes less than minilm's second or two). The
unchanged syncs after it are what is timed, three times."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .corpus import ScaleCorpus
from .steps import redact

PER_FOLDER = 100
RUNS = 3


def write_files(corpus: Path, folder: Path, n: int) -> None:
    """N Markdown files, written once (a marker file says they are complete)."""
    done = folder / ".complete"
    if done.exists():
        return
    with open(corpus, encoding="utf-8") as fh:
        for i, line in zip(range(n), fh, strict=False):
            row = json.loads(line)
            path = folder / f"d{i // PER_FOLDER:05d}" / f"{row['id']}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            front = "\n".join(f"{k}: {json.dumps(row[k], ensure_ascii=False)}"
                              for k in ("category", "year", "lang", "author"))
            path.write_text(f"---\n{front}\n---\n# {row['title']}\n\n{row['text']}\n",
                            encoding="utf-8")
    done.write_text("")


def sync(folder: Path, index: Path, *model: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "indexer", "sync", str(folder), str(index),
                           *model],
                          capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode != 0:
        raise SystemExit(f"sync failed: {done.stderr[-500:]}")
    return time.perf_counter() - started, redact(done.stdout.strip().splitlines()[0])


def main() -> None:
    data, n, out = ScaleCorpus(Path(sys.argv[1])), int(sys.argv[2]), Path(sys.argv[3])
    home = data.folder.parent
    folder, index = home / f"md-{n}", home / "idx" / f"sync-{n}"
    write_files(data.corpus, folder, n)
    result: dict = {"files": n}
    if not (index / "manifest.json").exists():
        from bench.kit.tiny_model import build_tiny_model

        tiny = home / "tiny-bert"
        model = tiny / "tiny-bert" if (tiny / "tiny-bert").is_dir() else build_tiny_model(tiny)
        result["first_sync_s"], result["first_sync"] = sync(folder, index, "--model", str(model))
    runs = [sync(folder, index) for _ in range(RUNS)]
    result["unchanged_s"] = [round(s, 2) for s, _ in runs]
    result["unchanged_median_s"] = sorted(s for s, _ in runs)[RUNS // 2]
    result["said"] = runs[-1][1]
    out.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
