"""Each cost of the scale bench against the index size, log-log, one line per setup (PNG)."""

from __future__ import annotations

from pathlib import Path

from .render import value_at

COSTS = [("build s", ("build", "seconds")), ("build peak RSS MB", ("build", "peak_rss_mb")),
         ("disk MB", ("build", "disk_mb")), ("open s", ("probe", "open_s")),
         ("RSS after open MB", ("probe", "rss_after_open_mb")),
         ("dense p50 ms", ("probe", "search", "dense", "p50_ms")),
         ("lexical p50 ms", ("probe", "search", "lexical", "p50_ms")),
         ("hybrid p50 ms", ("probe", "search", "hybrid", "p50_ms")),
         ("hybrid + 0.1 % filter p50 ms",
          ("probe", "search", "hybrid + author (0.1 %)", "p50_ms")),
         ("add 1,000 s", ("probe", "writes", "add_1000_s")),
         ("delete 1,000 s", ("probe", "writes", "delete_1000_s")),
         ("Search page s", ("pages", "search_first_render_s"))]


def plot(rows: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 4, figsize=(16, 10))
    setups = sorted({r["setup"] for r in rows})
    for ax, (title, path) in zip(axes.flat, COSTS, strict=True):
        for setup in setups:
            pts = sorted((r["size"], value_at(r, *path)) for r in rows if r["setup"] == setup)
            pts = [(x, y) for x, y in pts if isinstance(y, int | float) and y > 0]
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", label=setup)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.supxlabel("chunks in the index")
    fig.tight_layout()
    fig.savefig(out, dpi=90)
