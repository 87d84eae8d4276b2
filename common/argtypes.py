"""argparse `type=` callables for numbers and network addresses: a value out of range or not a
number is refused by argparse itself, naming the flag ("argument --k: must be >= 1, got 0"),
exit status 2."""

from __future__ import annotations

import argparse
import ipaddress
import math
import re

_LABEL = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)"  # one part of a host name (RFC 1123)
_HOSTNAME = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(\.{_LABEL})*\Z")


def integer(minimum: int | None = None, maximum: int | None = None):
    """Whole numbers in [minimum, maximum]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be <= {maximum}, got {value}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def number(minimum: float | None = None, *, above: float | None = None,
           below: float | None = None, maximum: float | None = None):
    """Finite numbers (no nan / inf), >= `minimum`, > `above`, < `below`, <= `maximum` where
    given."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum:g}, got {value:g}")
        if above is not None and value <= above:
            raise argparse.ArgumentTypeError(f"must be > {above:g}, got {value:g}")
        if below is not None and value >= below:
            raise argparse.ArgumentTypeError(f"must be < {below:g}, got {value:g}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be <= {maximum:g}, got {value:g}")
        return value

    parse.__name__ = "number"
    return parse


POSITIVE = integer(1)
NON_NEGATIVE = integer(0)


def host(text: str) -> str:
    """An address to listen on: an IPv4 or IPv6 address, or a host name (`localhost`)."""
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        pass
    if _HOSTNAME.match(text) and not re.fullmatch(r"[0-9.]+", text):  # 999.1.1.1: no address
        return text
    raise argparse.ArgumentTypeError(
        f"{text[:80]!r} is neither an IP address nor a host name: give 127.0.0.1 (this machine "
        "only, the default), 0.0.0.0 (every network interface) or one interface's address")
