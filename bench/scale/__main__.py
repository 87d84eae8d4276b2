"""`python -m bench.scale --sizes 10000,100000,1000000 --setups folder:hnsw,folder:ivfpq-disk,
folder:flat,milvus:hnsw`: make (or reuse) each size's corpus, then for every setup build it from
its vectors, probe it, serve it and render the app's pages on it; rows accumulate in
bench/results/scale.json (a later run replaces the rows it measures, keeps the others), rendered
to scale.md and scale.png. `flat` stops at --flat-max (100k). Run it alone: it times things."""

from __future__ import annotations

import argparse
import os
import time

from bench.kit.benchkit import RESULTS, data_dir, machine, write_results
from common.home import bertscope_home

from . import steps
from .corpus import scale_corpus
from .render import render, saved_rows
from .steps import Setup

STEPS = ("build", "probe", "service", "pages")


def cpu_line() -> str:
    """This machine as a row records it: `AMD EPYC, 2 CPUs (flags: avx2)`."""
    m = machine()
    return f"{m['cpu']}, {m['cpus']} CPUs (flags: {', '.join(m['cpu_flags']) or 'none'})"


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--setups", default="folder:hnsw,folder:ivfpq-disk,folder:flat,milvus:hnsw")
    p.add_argument("--steps", default=",".join(STEPS))
    p.add_argument("--flat-max", type=int, default=100_000)
    p.add_argument("--skip", default="", help="passed to the probe: writes, compact")
    p.add_argument("--name", default="scale")
    p.add_argument("--sync", type=int, help="also time an unchanged sync of a folder of this "
                   "many Markdown files made from the last size's corpus (100000 in the issue)")
    args = p.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    home = bertscope_home("bench", "scale")
    wanted = set(args.steps.split(","))
    rows = saved_rows(RESULTS / f"{args.name}.json")
    encoder = None
    for n in (int(x) for x in args.sizes.split(",")):
        if not (home / f"c{n}" / "info.json").exists() and encoder is None:
            from encoder import load_encoder

            encoder = load_encoder("minilm")
        data = scale_corpus(n, home, data_dir(), encoder)
        for setup in map(Setup.parse, args.setups.split(",")):
            if setup.preset == "flat" and n > args.flat_max:
                continue
            key = f"{n} {setup}"
            row = dict(rows.get(key, {"size": n, "setup": str(setup)}))  # kept unless a step ran
            row["load_before"], row["cpu"] = os.getloadavg()[0], cpu_line()
            print(f"[{time.strftime('%H:%M:%S')}] {key}", flush=True)
            if "build" in wanted:
                row["build"] = steps.build(setup, data, home, n)
                print("  build", row["build"], flush=True)
            root = setup.root(home, n)
            if "probe" in wanted:
                row["probe"] = steps.probe(setup, data, home, n, args.skip)
                print("  probe", row["probe"], flush=True)
            if "service" in wanted:
                row["service"] = steps.in_process("service_turns", str(root), str(data.folder),
                                                  str(home / "service.json"))
                print("  service", row["service"], flush=True)
            if "pages" in wanted:
                row["pages"] = steps.in_process("pages", str(root), str(data.folder),
                                                str(home / "pages.json"))
                print("  pages", row["pages"], flush=True)
            row["load_after"] = os.getloadavg()[0]
            if wanted & set(STEPS):  # a run that made corpora only rewrites no result
                rows[key] = row
                write_results(args.name, {"rows": list(rows.values())}, render(rows))
    if args.sync:  # from the last size's corpus (its first N passages)
        key = f"sync {args.sync}"
        rows[key] = {"size": args.sync, "setup": "sync", "load_before": os.getloadavg()[0],
                     "cpu": cpu_line(),
                     "sync": steps.in_process("sync_files", str(data.folder),
                                              str(args.sync), str(home / "sync.json"))}
        rows[key]["load_after"] = os.getloadavg()[0]
        print("  sync", rows[key]["sync"], flush=True)
        write_results(args.name, {"rows": list(rows.values())}, render(rows))
    if not (wanted & set(STEPS) or args.sync):
        return
    from .plot import plot

    plot(list(rows.values()), RESULTS / f"{args.name}.png")
    print(render(rows))


if __name__ == "__main__":
    main()
