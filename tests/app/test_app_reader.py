"""`appkit.reader.resolve`: who a page reads as, from BERTSCOPE_APP_KEYS, BERTSCOPE_APP_PRINCIPAL
and the sidebar's key; a setting it cannot use is a sentence, never a read of everything."""

from __future__ import annotations

from pathlib import Path

import pytest
from appkit.config import AppConfig
from appkit.reader import ANONYMOUS, EVERYONE, ReaderError, resolve

from common.keys import Keyring, KeyStore, Principal, hash_key, write_keys

FAST = {"n": 16, "r": 1, "p": 1}  # cheap hashes for tests; the file carries its parameters
KEYS = {"hana": "bsk_hana-key-0123456789", "sam": "bsk_sam-key-0123456789"}


def config(keys: str | None = None, principal: str | None = None) -> AppConfig:
    root = Path("/nonexistent")
    return AppConfig(index_root=root, data_root=root, runs_root=root, upload_limit_mb=1,
                     keys_file=keys, principal=principal)


@pytest.fixture
def keys_file(tmp_path) -> Path:
    path = tmp_path / "keys.toml"
    write_keys(path, Keyring((
        Principal("hana", (hash_key(KEYS["hana"], **FAST),), ("hr",), (("*", "read"),)),
        Principal("sam", (hash_key(KEYS["sam"], **FAST),), (), (("*", "read"),)))))
    return path


def test_without_a_keys_file_every_document(keys_file):
    got = resolve(config(), "any key at all", KeyStore)
    assert got.readers is None and got.said == EVERYONE


def test_a_principal_reads_as_its_name_and_groups(keys_file):
    got = resolve(config(str(keys_file), "hana"), "", KeyStore)
    assert got.readers == frozenset({"hana", "hr"})
    assert "hana (groups: hr)" in got.said and "BERTSCOPE_APP_PRINCIPAL" in got.said
    assert not got.problem
    assert resolve(config(str(keys_file), "hana"), KEYS["sam"], KeyStore).readers == \
        frozenset({"hana", "hr"})  # the principal set by the operator wins over a typed key


def test_a_key_reads_as_its_principal_and_no_key_as_anonymous(keys_file):
    assert resolve(config(str(keys_file)), f"  {KEYS['hana']}\n", KeyStore).readers == \
        frozenset({"hana", "hr"})  # pasted with spaces around it
    sam = resolve(config(str(keys_file)), KEYS["sam"], KeyStore)
    assert sam.readers == frozenset({"sam"}) and "Reading as sam:" in sam.said
    nobody = resolve(config(str(keys_file)), "", KeyStore)
    assert nobody.readers == frozenset() and nobody.said == ANONYMOUS and not nobody.problem


@pytest.mark.parametrize("key", ["bsk_wrong", "bsk hana key", "x" * 10_000, KEYS["hana"][:-1]])
def test_a_wrong_key_is_said_and_reads_as_anonymous(keys_file, key):
    got = resolve(config(str(keys_file)), key, KeyStore)
    assert got.readers == frozenset() and got.problem
    assert "not valid" in got.problem or "at most 512" in got.problem
    assert key not in got.problem  # a key is never echoed


@pytest.mark.parametrize(("keys", "principal", "said"), [
    (None, "hana", "BERTSCOPE_APP_KEYS is not"),
    ("", None, "BERTSCOPE_APP_KEYS is set but empty"),
    ("  ", "hana", "BERTSCOPE_APP_KEYS is set but empty"),
    ("{keys}", "", "BERTSCOPE_APP_PRINCIPAL is set but empty"),
    ("{keys}", "nobody", "'nobody', who is not in"),
    ("{keys}", "../hana", "is no principal name"),
    ("{keys}", "hana\nroot", "is no principal name"),
    ("{keys}", "h" * 10_000, "is no principal name"),
    ("{missing}", None, "No such file"),
    ("{folder}", None, "is not a regular file"),
    ("{bad}", "hana", "is not valid TOML"),
    ("{empty}", None, "is empty"),
    ("{json}", None, "ends in .toml, .yaml or .yml"),
])
def test_a_setting_the_app_cannot_use_is_a_sentence(keys_file, tmp_path, keys, principal, said):
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "bad.toml").write_text("version = 1\n[[principals]\nname = 'x'\n")
    (tmp_path / "empty.toml").write_text("\n")
    (tmp_path / "keys.json").write_text("{}")
    names = {"keys": keys_file, "missing": tmp_path / "gone.toml", "folder":
             tmp_path / "folder.toml", "bad": tmp_path / "bad.toml", "empty":
             tmp_path / "empty.toml", "json": tmp_path / "keys.json"}
    keys = keys.format(**names) if keys is not None else None
    with pytest.raises(ReaderError, match="BERTSCOPE_APP") as caught:
        resolve(config(keys, principal), KEYS["hana"], KeyStore)
    assert said in str(caught.value) and len(str(caught.value)) < 600


def test_a_relative_keys_file_is_taken_from_the_repository():
    from appkit import REPO_ROOT

    assert config("keys.toml").keys_path() == REPO_ROOT / "keys.toml"
    assert config("").keys_path() is None and config().keys_path() is None
