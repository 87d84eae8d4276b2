"""One progress bar for long work on a page: done of total, and the time left, given by the work
itself or estimated from the rate so far. Each update is a Streamlit call: when the person changes
a control or closes the page, Streamlit stops the run there, so the work stops with it."""

from __future__ import annotations

import time

import streamlit as st


def time_left(seconds: float | None) -> str:
    """" · about 40 s left" / " · about 3.5 min left"; "" when not known yet."""
    if seconds is None:
        return ""
    return f" · about {seconds:.0f} s left" if seconds < 120 else \
        f" · about {seconds / 60:.1f} min left"


class ProgressBar:
    """`bar = ProgressBar("Training the heads", unit="steps")`, then `bar(done, total)` as the
    work goes (`label=` renames the stage, `eta_s=` gives the work's own estimate).
    `estimate=False`: only the work's own estimate is shown (work in stages, each counted from
    0, where the rate since the start says nothing of the stage at hand)."""

    def __init__(self, label: str, *, unit: str = "", start: str | None = None,
                 estimate: bool = True) -> None:
        self.label, self.unit, self.estimate = label, unit, estimate
        self.bar = st.progress(0.0, text=start or label)
        self.started = time.perf_counter()

    def __call__(self, done: int, total: int | None, *, label: str | None = None,
                 eta_s: float | None = None) -> None:
        if eta_s is None and self.estimate and done and total:
            eta_s = (time.perf_counter() - self.started) / done * (total - done)
        unit = f" {self.unit}" if self.unit else ""
        if not total:  # a stage that counts nothing (loading, exporting the model): say so
            self.bar.progress(0.0, text=f"{label or self.label}: under way, no count or "
                                        "estimate to give")
            return
        self.bar.progress(min(done / total, 1.0) if total else 0.0,
                          text=f"{label or self.label}: {done:,} of {total or '?':,}{unit}"
                               f"{time_left(eta_s)}")

    def finish(self, text: str) -> None:
        self.bar.progress(1.0, text=text)
