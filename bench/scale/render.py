"""The scale bench's rows as Markdown tables: build and memory, search, writes and the rest."""

from __future__ import annotations

import json
from pathlib import Path


def saved_rows(path: Path) -> dict[str, dict]:
    """The rows an earlier run saved, by "SIZE SETUP"."""
    if not path.exists():
        return {}
    return {f"{r['size']} {r['setup']}": r for r in json.loads(path.read_text())["rows"]}


def value_at(row: dict, *path: str):
    """`row[path[0]][path[1]]...`, or None where a part is missing (plot.py reads it too)."""
    for part in path:
        if not isinstance(row, dict) or part not in row:
            return None
        row = row[part]
    return row


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _lat(row: dict, name: str) -> str:
    s = value_at(row, "probe", "search", name)
    return "-" if s is None else f"{s['p50_ms']:.1f} / {s['p95_ms']:.1f}"


BUILD = [("build s", ("build", "seconds")),
         ("build peak memory MB (tree PSS)", ("build", "peak_mb")),
         ("disk MB", ("build", "disk_mb")), ("open s", ("probe", "open_s")),
         ("RSS after open MB", ("probe", "rss_after_open_mb")),
         ("RSS after searches MB", ("probe", "rss_after_search_mb")),
         ("recall@10", ("probe", "recall@10")),
         ("recall@10, 0.1 % filter", ("probe", "recall@10 author (0.1 %)"))]
SEARCH = ["dense, query encoded before", "dense", "lexical", "hybrid", "hybrid + category",
          "hybrid + years", "hybrid + author (0.1 %)",
          "dense + author (0.1 %), query encoded before"]
OTHER = [("add 1,000 s", ("probe", "writes", "add_1000_s")),
         ("delete 1,000 s", ("probe", "writes", "delete_1000_s")),
         ("compact s", ("probe", "writes", "compact_s")),
         ("service p50 ms", ("service", "service_p50_ms")),
         ("in-process p50 ms", ("service", "in_process_p50_ms")),
         ("service / in-process", ("service", "ratio")),
         ("Index page s", ("pages", "index_first_render_s")),
         ("Search page s", ("pages", "search_first_render_s")),
         ("Search with a query s", ("pages", "search_query_render_s"))]


def _skip(row: dict) -> str:
    """The --skip a row was measured with (writes or compact left out)."""
    writes = value_at(row, "probe", "writes")
    if value_at(row, "probe") is not None and writes is None:
        return " --skip writes"
    return " --skip compact" if writes is not None and "compact_s" not in writes else ""


def render(rows: dict[str, dict]) -> str:
    synced = [r for r in rows.values() if r["setup"] == "sync"]
    ordered = sorted((r for r in rows.values() if r["setup"] != "sync"),
                     key=lambda r: (r["setup"], r["size"]))
    head = "| size | setup |"
    out = ["# Scale: the product at 10k, 100k and 1M chunks", ""]
    out += ["## Build, size, open, memory, recall", "",
            head + "".join(f" {n} |" for n, _ in BUILD),
            "|---:|---|" + "---:|" * len(BUILD)]
    out += [f"| {r['size']:,} | {r['setup']} |" + "".join(f" {_fmt(value_at(r, *p))} |"
                                                          for _, p in BUILD) for r in ordered]
    out += ["", "## Search p50 / p95 ms (one client, k=10, 300 queries)", "",
            head + "".join(f" {n} |" for n in SEARCH), "|---:|---|" + "---:|" * len(SEARCH)]
    out += [f"| {r['size']:,} | {r['setup']} |" + "".join(f" {_lat(r, n)} |" for n in SEARCH)
            for r in ordered]
    out += ["", "## Writes (saved), the service, the app's pages", "",
            head + "".join(f" {n} |" for n, _ in OTHER), "|---:|---|" + "---:|" * len(OTHER)]
    out += [f"| {r['size']:,} | {r['setup']} |" + "".join(f" {_fmt(value_at(r, *p))} |"
                                                          for _, p in OTHER) for r in ordered]
    for r in synced:
        s = r["sync"]
        out += ["", f"## Unchanged sync of {r['size']:,} Markdown files", "",
                f"- {s.get('said', s.get('error'))}: median {_fmt(s.get('unchanged_median_s'))} s "
                f"of runs {s.get('unchanged_s')} (the first sync, which built the index: "
                f"{_fmt(s.get('first_sync_s'))} s)"]
    errors = [(r, part) for r in ordered for part in ("build", "probe", "service", "pages")
              if isinstance(r.get(part), dict) and "error" in r[part]]
    if errors:
        out += ["", "## Failed steps", ""]
        out += [f"- {r['size']:,} {r['setup']} {part}: {r[part]['error']}" for r, part in errors]
    loads = [f"{r['size']:,} {r['setup']}: {r.get('load_before', 0):.1f} -> "
             f"{r.get('load_after', 0):.1f}" for r in [*ordered, *synced]]
    out += ["", "Load average (1 min) before -> after each row: " + "; ".join(loads)]
    machines: dict[str, list[str]] = {}
    for r in [*ordered, *synced]:
        machines.setdefault(r.get("cpu", "?"), []).append(f"{r['size']:,} {r['setup']}")
    out += ["", "The machine of each row (rows from different machines compare as ratios only):"]
    out += [f"- {cpu}: {', '.join(names)}" for cpu, names in machines.items()]
    out += ["", "## Reproduce a row", "", "After the corpora are made (bench/scale/README.md), "
            "each row again with `HF_HUB_OFFLINE=1`:", ""]
    out += [f"- {r['size']:,} {r['setup']}: `python -m bench.scale --sizes {r['size']} "
            f"--setups {r['setup']}{_skip(r)}`" for r in ordered]
    out += [f"- sync of {r['size']:,} files: `python -m bench.scale --sizes {r['size']} "
            f"--steps none --sync {r['size']}`" for r in synced]
    return "\n".join(out) + "\n"
