"""`BuildProgress`: what a build (local, Ray or a rebuild) reports to its `progress` callback."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuildProgress:
    """One progress report. `stage`: read, load (the model: its first use on a machine exports
    it for the fast backend, minutes with no count to report: `total` 0), chunk, encode, tokenize
    (BM25's tokens of each chunk), index, save, done."""

    stage: str
    done: int  # documents finished (encode); otherwise units of the stage
    total: int
    rate: float = 0.0  # documents per second encoded by this run
    eta_s: float | None = None  # from the chunk rate: known even while one huge document encodes
    resumed: int = 0  # documents whose vectors came from a previous, interrupted run
    chunks: int = 0  # encode: chunks embedded so far (a huge document moves this, not `done`)
    chunks_total: int = 0
