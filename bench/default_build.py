"""How long the default index (BBC News, 2,225 articles, minilm) takes to build, per backend:
`python -m indexer default --out DIR` timed as a whole (start-up, model load, any export,
encode, index, save), each in a fresh `$BERTSCOPE_HOME`; `auto` also once more with its export
already cached, so the export's share shows.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.default_build \
        [--backends torch,auto]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.kit.benchkit import REPO, RESULTS, write_results


def command(backend: str, out: Path) -> list[str]:
    """The CLI when it takes --backend (or for auto, its default); else the library call."""
    cli = [sys.executable, "-m", "indexer", "default", "--out", str(out)]
    if backend == "auto":
        return cli
    helptext = subprocess.run([*cli[:4], "--help"], capture_output=True, text=True, cwd=REPO)
    if "--backend" in helptext.stdout:
        return [*cli, "--backend", backend]
    return [sys.executable, "-c", "import sys; from indexer.default import default_index; "
            f"default_index(sys.argv[1], backend={backend!r})", str(out)]


def timed_build(backend: str, home: Path) -> dict:
    out = Path(tempfile.mkdtemp(prefix=f"bertscope-default-{backend}-")) / "index"
    cmd = command(backend, out)
    env = dict(os.environ, BERTSCOPE_HOME=str(home), HF_HUB_OFFLINE="1")
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    manifest = json.loads((out / "manifest.json").read_text()) if done.returncode == 0 else {}
    shutil.rmtree(out.parent, ignore_errors=True)
    return {"backend": backend, "seconds": seconds,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "returncode": done.returncode,
            "command": shlex.join(["python", *("TMP/index" if a == str(out) else a
                                               for a in cmd[1:])]),  # TMP: a fresh temp folder
            "ran_on": manifest.get("encoder", {}).get("backend"),
            "stages": manifest.get("build", {}).get("stages"),
            "tail": (done.stdout + done.stderr).strip().splitlines()[-3:]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backends", default="torch,auto")
    p.add_argument("--once", action="store_true",
                   help="no second build with the export cached (saves a build)")
    p.add_argument("--keep", action="store_true",
                   help="keep the previous results' rows of backends not run now")
    args = p.parse_args()
    rows = []
    previous = RESULTS / "default_build.json"
    if args.keep and previous.exists():
        rows = [r for r in json.loads(previous.read_text())["rows"]
                if r["backend"] not in args.backends.split(",")]
    for backend in args.backends.split(","):
        home = Path(tempfile.mkdtemp(prefix="bertscope-home-"))
        rows.append({**timed_build(backend, home), "home": "fresh"})
        print(json.dumps(rows[-1]), flush=True)
        if backend != "torch" and not args.once:
            rows.append({**timed_build(backend, home), "home": "export cached"})
            print(json.dumps(rows[-1]), flush=True)
        shutil.rmtree(home, ignore_errors=True)
    lines = ["# Default index build time (BBC News, 2,225 articles, minilm)", "",
             "| backend | $BERTSCOPE_HOME | ran on | wall s | encode s | target ≤ 90 s | when | "
             "timed command |", "|---|---|---|---:|---:|---|---|---|"]
    for r in rows:
        encode_s = (r["stages"] or {}).get("encode_s")
        lines.append(f"| {r['backend']} | {r['home']} | {r['ran_on']} | {r['seconds']:.1f} | "
                     f"{encode_s if encode_s is not None else '-'} | "
                     f"{'met' if r['seconds'] <= 90 and not r['returncode'] else 'not met'} | "
                     f"{r.get('date', '-')} | `{r['command']}` |")
    lines += ["", "Wall s: the whole process (interpreter start, imports, model load, export "
              "when not cached, chunk, encode, FAISS, SQLite, save). A fresh home has no "
              "converted model and no export; the second auto row reuses the first's export."]
    text = "\n".join(lines) + "\n"
    write_results("default_build", {"rows": rows}, text)
    print(text)


if __name__ == "__main__":
    main()
