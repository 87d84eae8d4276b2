"""Per-principal rate limits (`--rate-limit N/s`): a token bucket per principal, refilled at N
tokens a second up to a burst of N; a request takes one token, or is answered 429 with the
seconds until one is back (Retry-After). Beside `--max-concurrent-requests`, which bounds the
whole server."""

from __future__ import annotations

import argparse
import math
import threading
import time

UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}


def parse_rate(text: str) -> float:
    """'N/s', 'N/m', 'N/h' or 'N' (a second) as requests a second; an argparse error names
    what is wrong (0, negative, inf, nan, garbage)."""
    number, _, unit = str(text).strip().partition("/")
    if unit and unit not in UNITS:
        raise argparse.ArgumentTypeError(f"{text!r}: the unit is /s, /m or /h (e.g. 20/s)")
    try:
        value = float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate: give requests a second "
                                         "per principal, e.g. 20/s") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the rate must be a finite number > 0 "
                                         "(leave the flag out for no limit)")
    rate = value / UNITS[unit or "s"]
    if rate < 1e-3:
        raise argparse.ArgumentTypeError(f"{text!r}: at least one request every 1,000 s")
    return rate


class TokenBuckets:
    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = max(1.0, burst if burst is not None else rate)
        self._buckets: dict[str, tuple[float, float]] = {}  # who -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, who: str, now: float | None = None) -> float:
        """0 if `who` may go now (a token taken), else the seconds until a token is back."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, then = self._buckets.get(who, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens >= 1:
                self._buckets[who] = (tokens - 1, now)
                return 0.0
            self._buckets[who] = (tokens, now)
            return (1 - tokens) / self.rate
