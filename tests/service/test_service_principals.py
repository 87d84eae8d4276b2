"""The pieces of `--keys` on their own (issue 50): levels imply the ones below, patterns are
fnmatch, a key is checked against every stored hash (no early exit), the key cache is dropped
when the file changes, token buckets refill at their rate, rates parse with their units."""

from __future__ import annotations

import argparse
import os

import pytest

from common.keys import principals
from common.keys.keyfile import write_keys
from common.keys.keystore import KeyStore
from common.keys.principals import Keyring, Principal, hash_key, hash_problem, parse_scope
from service.ratelimit import TokenBuckets, parse_rate

FAST = {"n": 16, "r": 1, "p": 1}


def test_admin_implies_write_implies_read_on_matching_names():
    p = Principal("p", (), scopes=(("team-a*", "write"), ("news", "read"), ("x?", "admin")))
    assert p.may("read", "team-a-1") and p.may("write", "team-a-1")
    assert not p.may("admin", "team-a-1") and not p.may("write", "news")
    assert p.may("admin", "x1") and not p.may("read", "x12") and not p.may("read", "Team-a")
    assert not p.admin_of_all() and Principal("q", (), scopes=(("*", "admin"),)).admin_of_all()
    assert parse_scope("a:b:read") == ("a:b", "read") and parse_scope("n=admin") == ("n", "admin")


def test_a_key_is_checked_against_every_hash(monkeypatch):
    keys = {name: f"key-of-{name}-0123456789" for name in "abc"}
    ring = Keyring(tuple(Principal(n, (hash_key(k, **FAST), hash_key(k + "x", **FAST)))
                         for n, k in keys.items()))
    assert hash_problem(ring.principals[0].keys[0]) is None
    calls = []
    real = principals.matches
    monkeypatch.setattr(principals, "matches", lambda key, stored: calls.append(1) or
                        real(key, stored))
    assert ring.verify(keys["a"]).name == "a" and len(calls) == 6  # not 1: no early exit
    assert ring.verify("nobody's key") is None and len(calls) == 12
    assert ring.verify("x" * 10_000) is None and len(calls) == 12  # too long: nothing hashed


def test_the_key_cache_is_dropped_when_the_file_changes(tmp_path):
    path = tmp_path / "keys.toml"
    key = "key-0123456789abcdef"
    write_keys(path, Keyring((Principal("a", (hash_key(key, **FAST),)),)))
    store = KeyStore(path, check_s=0)
    assert store.principal(key).name == "a" and store.cached(key).name == "a"
    assert store.cached("wrong") is store.MISS and store.principal("wrong") is None
    assert store.cached("wrong") is None  # a known wrong key: no hashing again
    write_keys(path, Keyring((Principal("b", (hash_key("other-key-0123456789", **FAST),)),)))
    os.utime(path, ns=(1, 1))  # even with an old mtime: size and inode changed
    assert store.cached(key) is store.MISS and store.principal(key) is None
    assert store.reloads == 1


def test_token_buckets_refill_at_their_rate():
    buckets = TokenBuckets(2.0)
    assert [buckets.take("a", now=0.0) for _ in range(3)] == [0.0, 0.0, 0.5]
    assert buckets.take("b", now=0.0) == 0.0  # a bucket each
    assert buckets.take("a", now=0.5) == 0.0 and buckets.take("a", now=0.5) == 0.5
    assert buckets.take("a", now=100.0) == 0.0 and buckets.take("a", now=100.0) == 0.0


@pytest.mark.parametrize("text, rate", [("20/s", 20.0), ("20", 20.0), ("120/m", 2.0),
                                        ("3600/h", 1.0), ("0.5/s", 0.5)])
def test_rates_parse_with_their_units(text, rate):
    assert parse_rate(text) == rate


@pytest.mark.parametrize("text", ["0", "-1", "inf", "nan", "lots", "5/day", "1/h"])
def test_bad_rates_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse_rate(text)
