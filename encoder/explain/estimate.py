"""How long an explanation will take, said before it starts and honest under load.

Occlusion encodes the chunk once per word (and the query once per word): its work is
`occlusion_units` token passes. Before it runs, its time is that work at the measured quiet pace
(`QUIET_PASS_S`, scaled by the model's size) times this machine's load per core now: a figure
measured on quiet cores (0.5 s) was promised on a machine at load 12, where it took 49.6 s.
Integrated Jacobians' work is `work_units` token passes, each costing about `JVP_PER_PASS`
occlusion passes: its estimate is the pace the occlusion just ran at, on this machine now, with
this chunk (a fixed "25 s for a ~55-token chunk" became 38.6 min on a 110-token one).

    occlusion_estimate_s(units, info) -> seconds
    exact_estimate_s(occlusion_seconds, occlusion_units, work) -> seconds
"""

from __future__ import annotations

import os

# seconds per token pass of occlusion for minilm (6 layers x 384) on 2 quiet AMD EPYC cores: a
# query and a ~55-token chunk, about 2,700 passes (the time: bench/results/explain-timing.md)
QUIET_PASS_S = 0.5 / 2700
REFERENCE_SIZE = 6 * 384 * 384  # minilm's layers x hidden²: the model the pace was measured on
# an integrated-Jacobians token pass against an occlusion one: 1.8-3.3 measured (minilm, 35-
# and 68-token chunks, a busy 2-core machine); the middle, so the estimate errs neither way much
JVP_PER_PASS = 2.5


def occlusion_units(tokens_a: int, words_a: int, tokens_b: int, words_b: int) -> int:
    """Token passes of an occlusion: each text encoded whole and once without each word."""
    return (words_a + 1) * tokens_a + (words_b + 1) * tokens_b


def load_per_core() -> float:
    """This machine's 1-minute load average per CPU core, at least 1 (a quiet machine)."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not on every platform
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def occlusion_estimate_s(units: int, layers: int, hidden: int,
                         load: float | None = None) -> float:
    """Seconds an occlusion of `units` token passes takes a model of `layers` x `hidden`, at
    `load` per core (default: this machine's now)."""
    size = layers * hidden * hidden / REFERENCE_SIZE
    return units * QUIET_PASS_S * size * (load_per_core() if load is None else load)


def exact_estimate_s(occlusion_seconds: float, occlusion_units_done: int, work: int) -> float:
    """Seconds an integrated-Jacobians explanation of `work` token passes takes, at the pace an
    occlusion of `occlusion_units_done` passes just ran (same machine, model and load)."""
    return occlusion_seconds / max(occlusion_units_done, 1) * JVP_PER_PASS * work


def said(seconds: float) -> str:
    """'about 40 s', 'about 6 min', 'about 1.5 h'."""
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    if seconds < 5400:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds / 3600:.1f} h"
