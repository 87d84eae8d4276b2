"""Principals and their scopes (`--keys FILE`): who may call the service, and what on which index.

A principal has a name, one or more keys (kept only as salted scrypt hashes,
`scrypt$N$r$p$SALT_B64$HASH_B64`), its groups, and scopes: index name patterns (fnmatch,
`team-a*`, `*`) each with a level, `read` < `write` < `admin` (each allows the ones before
it). `Keyring.verify(key)` checks a key against every stored hash, in constant time per hash
and without stopping at the first match, so the time taken says nothing of which principal
(if any) holds it. The file format is in common/keys/keyfile.py."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

LEVELS = {"read": 1, "write": 2, "admin": 3}
SCRYPT = {"n": 2**14, "r": 8, "p": 1}  # 49 to 110 ms a hash here (2 busy cores); 16 MiB
NAME_RULE = "letters, digits, '.', '_', '@' and '-', 1 to 64 characters, a letter or digit first"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_PATTERN = re.compile(r"[^\x00-\x1f\x7f]{1,200}")
_HASH = re.compile(r"scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]{16,64})"
                   r"\$([A-Za-z0-9+/=]{16,128})")
MAX_KEY_CHARS = 512  # a Bearer value longer than this is no key of ours (nothing hashed)


def new_key() -> str:
    """A fresh key: 256 random bits, URL-safe (what `keys add` prints once)."""
    return "bsk_" + secrets.token_urlsafe(32)


def hash_key(key: str, *, n: int = SCRYPT["n"], r: int = SCRYPT["r"], p: int = SCRYPT["p"],
             salt: bytes | None = None) -> str:
    """`key` as the keys file stores it: scrypt with a fresh 16-byte salt."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    derived = _scrypt(key, salt, n, r, p)
    b64 = base64.b64encode
    return f"scrypt${n}${r}${p}${b64(salt).decode()}${b64(derived).decode()}"


def _scrypt(key: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(key.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32,
                          maxmem=256 * 1024 * 1024)


def hash_problem(stored: object) -> str | None:
    """Why `stored` is not a key hash this module reads, or None."""
    if not isinstance(stored, str):
        return f"a key must be a hash string, got {type(stored).__name__}"
    m = _HASH.fullmatch(stored)
    if not m:
        return ("a key must be stored as 'scrypt$N$r$p$SALT$HASH' (base64), as `python -m "
                "service keys add` writes it; never the key itself")
    n, r, p = (int(x) for x in m.groups()[:3])
    if n < 2 or n & (n - 1) or n > 2**20 or not 1 <= r <= 32 or not 1 <= p <= 16:
        return f"scrypt parameters N={n} r={r} p={p} out of range (N a power of 2 up to 2^20)"
    return None


def matches(key: str, stored: str) -> bool:
    """Whether `key` hashes to `stored` (compared in constant time)."""
    m = _HASH.fullmatch(stored)
    n, r, p = (int(x) for x in m.groups()[:3])
    salt, want = base64.b64decode(m.group(4)), base64.b64decode(m.group(5))
    return hmac.compare_digest(_scrypt(key, salt, n, r, p), want)


@dataclass(frozen=True)
class Principal:
    name: str
    keys: tuple[str, ...]  # scrypt hashes
    groups: tuple[str, ...] = ()
    scopes: tuple[tuple[str, str], ...] = ()  # (index pattern, level)

    def may(self, level: str, index: str) -> bool:
        """Whether a scope of this principal allows `level` on index `index`."""
        need = LEVELS[level]
        return any(LEVELS[have] >= need and fnmatchcase(index, pattern)
                   for pattern, have in self.scopes)

    def admin_of_all(self) -> bool:
        """Whether it holds `admin` on the pattern `*` (what `/metrics` asks: it names every
        index)."""
        return ("*", "admin") in self.scopes

    @property
    def readers(self) -> frozenset[str]:
        """The names a document's `access` list may give to let this principal see it."""
        return frozenset((self.name, *self.groups))


@dataclass(frozen=True)
class Keyring:
    principals: tuple[Principal, ...] = ()
    _by_name: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({p.name: p for p in self.principals})

    def named(self, name: str) -> Principal | None:
        return self._by_name.get(name)

    def verify(self, key: str) -> Principal | None:
        """The principal holding `key`, or None. Every stored hash is computed and compared
        (no early exit), so timing does not tell which principal matched (callers cache the
        answer: common/keys/keystore.py)."""
        if not key or len(key) > MAX_KEY_CHARS:
            return None
        found = None
        for principal in self.principals:
            for stored in principal.keys:
                if matches(key, stored) and found is None:
                    found = principal
        return found


def scope_problem(pattern: object, level: object) -> str | None:
    """Why (pattern, level) is not a scope, or None."""
    if not isinstance(pattern, str) or not _PATTERN.fullmatch(pattern):
        return (f"index pattern {pattern!r} must be 1 to 200 printable characters (fnmatch: "
                "'*', 'team-a*', 'news')")
    if not isinstance(level, str) or level not in LEVELS:
        return (f"scope {pattern!r} = {level!r}: the level must be one of read, write, admin "
                "(admin allows write, write allows read)")
    return None


def name_problem(name: object, what: str = "name") -> str | None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return f"{what} {name!r}: {NAME_RULE}"
    return None


def parse_scope(text: str) -> tuple[str, str]:
    """'PATTERN:LEVEL' or 'PATTERN=LEVEL' (the last ':' or '=') as (pattern, level); a
    ValueError says what is wrong."""
    cut = max(text.rfind(":"), text.rfind("="))
    if cut <= 0:
        raise ValueError(f"scope {text!r} must be PATTERN:LEVEL, e.g. 'team-a*:read' or "
                         "'*:admin'")
    pattern, level = text[:cut], text[cut + 1:]
    problem = scope_problem(pattern, level)
    if problem:
        raise ValueError(problem)
    return pattern, level
