"""`Inline.answer`: a route's synchronous work run on the event loop itself when it is the only
request under way and work of its kind has stayed short, else on the thread pool as FastAPI runs
a `def` route.

Why: a `def` route's hop to a pool thread and back is time a lone client waits; keeping more of
its searches on the loop brought one client's search p50 closer to in-process
(bench/results/serve_one_client-budget50.md). Why it is safe: the loop is blocked only while no
other request is under way (those arriving meanwhile wait at most one short request), only for
work that is light (few, short texts; nothing to open or load first, which the route checks) and
only while the last run of its kind (route and index or model) took under `budget_s`
(`BUDGET_S`); a run over it sends its kind back to threads. Health, readiness and metrics are not
counted as requests under way, so they may wait one such request."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from starlette.concurrency import run_in_threadpool

T = TypeVar("T")

# the longest a light request may hold the loop: above a lone search's time in-process on a VNNI
# Xeon (int8, bench/results/serve-one-client-quiet.md) and on an AVX2-only EPYC (fp32 ONNX,
# bench/results/serve_one_client*.md), with room for the host's drift, which pushed searches
# over the earlier, shorter budget back to threads (the two side by side:
# bench/results/serve_one_client-budget50.md)
BUDGET_S = 0.05
MAX_TEXTS = 8  # texts a light request encodes (one sub-batch of the encoder)
MAX_CHARS = 2000  # and their characters together (~500 tokens)


class InFlight:
    """Requests under way (health, readiness, metrics and docs aside): `Guard` counts them on
    the event loop, the only thread that reads or writes `n`."""

    def __init__(self) -> None:
        self.n = 0


class Inline:
    def __init__(self, in_flight: InFlight, budget_s: float = BUDGET_S,
                 on_loop: Callable[[str], None] | None = None) -> None:
        self.in_flight = in_flight
        self.budget_s = budget_s
        self.on_loop = on_loop  # (route) -> None: counts requests answered on the loop
        self._last: dict[tuple, float] = {}  # kind -> seconds its last run took

    @staticmethod
    def light(texts: list[str]) -> bool:
        return len(texts) <= MAX_TEXTS and sum(len(t) for t in texts) <= MAX_CHARS

    def may_run_here(self, kind: tuple, light: bool) -> bool:
        """Whether work of `kind` may run on the loop now: light, alone, and its kind's last
        run (None before the first: unknown, so threads) under the budget."""
        last = self._last.get(kind)
        return light and self.in_flight.n <= 1 and last is not None and last < self.budget_s

    async def answer(self, kind: tuple, work: Callable[[], T], *, light: bool) -> T:
        """`work()` on the loop when `may_run_here`, else on the thread pool; either way its
        time is kept as its kind's last."""
        here = self.may_run_here(kind, light)
        started = time.perf_counter()
        try:
            if here:
                if self.on_loop is not None:
                    self.on_loop(kind[0])
                return work()
            return await run_in_threadpool(work)
        finally:
            if light:
                self._last[kind] = time.perf_counter() - started
