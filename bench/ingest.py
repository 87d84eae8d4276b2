"""Reading a folder of documents: files/s and pages/s of each reader on generated sets of
several hundred files a format, the share of a build's wall time spent reading them, and the
time of `python -m indexer sync` on an unchanged 1,000-file folder (goals of #39: reading
<= 25 % of a build, the unchanged sync <= 5 s, on 2 cores).

    flock /tmp/bertscope-bench.lock .venv/bin/python -m bench.ingest \\
        [--files 300] [--build-files 60] [--sync-files 1000] [--model minilm]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.kit import benchkit
from bench.kit.docwriters import passages, write_docx, write_html, write_markdown, write_pdf

PER_FILE = 4  # passages a generated file holds (a PDF: one a page)
WRITERS = {
    "pdf": lambda path, ps, i: write_pdf(path, ps, columns=2 if i % 3 == 0 else 1,
                                         hyphenate=True),
    "html": lambda path, ps, i: write_html(path, ps, title=f"Page {i}"),
    "docx": lambda path, ps, i: write_docx(path, ps, title=f"Report {i}"),
    "md": lambda path, ps, i: write_markdown(path, ps, title=f"Notes {i}",
                                             front_matter={"author": "bench", "n": i}),
}


def make_set(folder: Path, fmt: str, n: int, pool: list, offset: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        k = (offset + i) * PER_FILE % max(1, len(pool) - PER_FILE)
        WRITERS[fmt](folder / f"f{i:04d}.{fmt}", pool[k:k + PER_FILE], i)


def reading(root: Path, n: int, pool: list) -> list[dict]:
    """Each reader over its own folder of `n` files (second of two passes: warm)."""
    from common.documents import read_folder

    rows = []
    for fmt in WRITERS:
        folder = root / "read" / fmt
        make_set(folder, fmt, n, pool)
        read_folder(folder)  # imports, first-call set-up, the page cache
        started = time.perf_counter()
        docs, failures = read_folder(folder)
        seconds = time.perf_counter() - started
        pages = sum(d.metadata.get("pages", 1) for d in docs)
        size = sum(p.stat().st_size for p in folder.iterdir())
        rows.append({"format": fmt, "files": len(docs), "failed": len(failures),
                     "pages": pages, "seconds": round(seconds, 2),
                     "files_per_s": round(len(docs) / seconds, 1),
                     "pages_per_s": round(pages / seconds, 1),
                     "mb_per_s": round(size / 2**20 / seconds, 2)})
        print(rows[-1], flush=True)
    return rows


def build_share(root: Path, n: int, pool: list, model: str) -> dict:
    """A build of a mixed folder (n files a format): its stages, and reading's share."""
    from indexer import build_index

    folder = root / "build"
    for fmt in WRITERS:
        make_set(folder / fmt, fmt, n, pool, offset=1000)
    out = root / "build-index"
    started = time.perf_counter()
    index = build_index(str(folder), out, model=model, preset="flat")
    wall = time.perf_counter() - started
    manifest = json.loads((out / "manifest.json").read_text())
    stages = manifest["build"]["stages"]
    stats = index.stats()
    return {"files": 4 * n, "documents": stats.documents, "chunks": stats.chunks,
            "model": stats.model, "backend": stats.backend, "wall_s": round(wall, 2),
            "stages": stages, "read_share": round(stages["read_s"] / wall, 4)}


def unchanged_sync(root: Path, n: int, model: str) -> dict:
    """A 1,000-file folder (short Markdown and text notes, a few web pages and PDFs) synced
    once, then again unchanged: the library call and the whole command (a fresh process)."""
    from indexer.sync import sync_folder

    folder = root / "sync"
    small = passages(200, seed=7)
    for i in range(n):
        heading, text = small[i % len(small)]
        ps = [(heading, text[:300] + f" ({i})")]
        kind = "md" if i % 10 < 6 else "txt" if i % 10 < 8 else "html" if i % 10 < 9 else "pdf"
        tmp = folder / f"d{i // 100:02d}" / f"n{i:04d}.{kind}"  # a generated input file
        tmp.parent.mkdir(parents=True, exist_ok=True)
        if kind == "txt":
            tmp.write_text(f"{heading}\n\n{ps[0][1]}\n", encoding="utf-8")
        elif kind == "md":
            write_markdown(tmp, ps, title=heading)
        elif kind == "html":
            write_html(tmp, ps, title=heading)
        else:
            write_pdf(tmp, ps)
    out = root / "sync-index"
    started = time.perf_counter()
    first = sync_folder(folder, out, model=model)
    created_s = time.perf_counter() - started
    times = []
    for _ in range(3):
        started = time.perf_counter()
        again = sync_folder(folder, out)
        times.append(time.perf_counter() - started)
    assert again.summary() == f"added 0, updated 0, removed 0, unchanged {n}", again.summary()
    env = {**os.environ, "PYTHONPATH": str(benchkit.REPO), "HF_HUB_OFFLINE": "1"}
    cli = []
    for _ in range(3):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "indexer", "sync", str(folder), str(out)],
                              env=env, capture_output=True, text=True, check=True)
        cli.append(time.perf_counter() - started)
    # the same index copied into milvus-lite (no re-encoding), synced by the command: every
    # call in a process of its own (milvus-lite serves one process per .db file)
    target = f"milvus://{root}/sync.db?collection=sync"
    subprocess.run([sys.executable, "-m", "indexer", "migrate", str(out), target], env=env,
                   capture_output=True, text=True, check=True)
    milvus = []
    for _ in range(3):
        started = time.perf_counter()
        on_milvus = subprocess.run([sys.executable, "-m", "indexer", "sync", str(folder), target],
                                   env=env, capture_output=True, text=True, check=True)
        milvus.append(time.perf_counter() - started)
    opening = {}  # what any command on each store costs: `info` opens the index, reads nothing
    for name, where in (("folder", str(out)), ("milvus", target)):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "indexer", "info", where], env=env,
                       capture_output=True, text=True, check=True)
        opening[name] = round(time.perf_counter() - started, 2)
    return {"files": n, "created": len(first.added), "first_sync_s": round(created_s, 1),
            "info_command_s": opening,
            "milvus_command_s": [round(t, 2) for t in milvus],
            "milvus_command_median_s": round(benchkit.median(milvus), 2),
            "milvus_summary": on_milvus.stdout.strip(),
            "library_s": [round(t, 3) for t in times], "library_median_s":
            round(benchkit.median(times), 3), "command_s": [round(t, 2) for t in cli],
            "command_median_s": round(benchkit.median(cli), 2),
            "summary": done.stdout.strip()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=300, help="files a format, for reading")
    p.add_argument("--build-files", type=int, default=60, help="files a format in the build")
    p.add_argument("--sync-files", type=int, default=1000)
    p.add_argument("--model", default="minilm")
    args = p.parse_args()
    load = [os.getloadavg()]
    pool = passages(2000)
    root = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    try:
        read = reading(root, args.files, pool)
        build = build_share(root, args.build_files, pool, args.model)
        print(build, flush=True)
        sync = unchanged_sync(root, args.sync_files, args.model)
        print(sync, flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    load.append(os.getloadavg())
    table = ["# Reading documents: readers, a build's share, an unchanged sync", "",
             f"Generated files, {PER_FILE} SciFact abstracts each (PDF: one a page, every third "
             "in two columns, hyphenated; web pages in boilerplate; Word and Markdown: a "
             "heading a passage). Load average before / after: "
             f"{load[0][0]:.2f} / {load[1][0]:.2f}.", "",
             "| reader | files | pages | files/s | pages/s | MB/s |",
             "|---|---:|---:|---:|---:|---:|"]
    table += [f"| {r['format']} | {r['files']} | {r['pages']} | {r['files_per_s']} | "
              f"{r['pages_per_s']} | {r['mb_per_s']} |" for r in read]
    st = build["stages"]
    table += ["", f"Build of {build['files']} files ({build['documents']} documents, "
              f"{build['chunks']} chunks, `{build['model']}` on `{build['backend']}`): "
              f"{build['wall_s']} s wall; reading {st['read_s']} s = "
              f"**{100 * build['read_share']:.1f} %** (goal <= 25 %), chunking "
              f"{st.get('chunk_s', 0)} s, encoding {st.get('encode_s', 0)} s.", "",
              f"Unchanged sync of {sync['files']} files: library call median "
              f"**{sync['library_median_s']} s** ({sync['library_s']}), the whole command "
              f"(a fresh Python process) median **{sync['command_median_s']} s** "
              f"({sync['command_s']}); goal <= 5 s. It printed: `{sync['summary']}`. The same "
              f"index copied into milvus-lite (`migrate`), synced by the command: median "
              f"**{sync['milvus_command_median_s']} s** ({sync['milvus_command_s']}), printing "
              f"`{sync['milvus_summary']}`. For scale, `python -m indexer info` (open the "
              f"index, read nothing) took {sync['info_command_s']['folder']} s on the folder and "
              f"{sync['info_command_s']['milvus']} s on milvus-lite in the same run."]
    benchkit.write_results("ingest", {"args": vars(args), "load": load, "reading": read,
                                      "build": build, "unchanged_sync": sync},
                           "\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
