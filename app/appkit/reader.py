"""Who reads, on the pages that show an index's documents (Search; the Index page's counts;
Disambiguation's uses of a word): the `readers=` each of their reads passes (`indexer.access`),
from the keys file the service reads (`common.keys`, the same parser and the same re-read on
change).

- no `BERTSCOPE_APP_KEYS`: every document, as before (the sidebar says so);
- `BERTSCOPE_APP_KEYS=keys.toml` and `BERTSCOPE_APP_PRINCIPAL=NAME`: as that principal (its name
  and its groups), e.g. an app run for one team member;
- `BERTSCOPE_APP_KEYS` alone: as the holder of the key typed in the sidebar's "Key"; with no key,
  or a key that is not valid (said in words), as an anonymous reader: only the documents
  without `access`.
A setting that cannot be used (a keys file that cannot be read, a principal not in it, an empty
variable) stops the page with a sentence: it never falls back to showing every document.
Scopes are the service's: the app filters documents by their `access` alone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from common.keys import MAX_KEY_CHARS, KeysFileError, KeyStore, Principal, name_problem

from .config import AppConfig

KEYS_ENV, PRINCIPAL_ENV = "BERTSCOPE_APP_KEYS", "BERTSCOPE_APP_PRINCIPAL"
KEY_WIDGET, KEY_KEPT = "reader-key", "_reader-key"  # the field, and its value across pages
EVERYONE = (f"Every document is shown: the app runs without a keys file (`{KEYS_ENV}`; "
            "docs/SECURITY.md).")
ANONYMOUS = ("Reading as an anonymous reader: only the documents open to every reader (those "
             "without `access`) are shown. A key shows the documents your groups may read.")
WRONG_KEY = ("That key is not valid here (unknown, or revoked): only the documents open to every "
             "reader are shown. Ask whoever keeps the keys file for a current key.")
KEY_HELP = ("A key made by `python -m service keys add NAME --keys FILE`: the page then shows the "
            "documents whose `access` names its principal or one of its groups.")


class ReaderError(ValueError):
    """A reader setting the app cannot use; the message names the variable and the fix."""


@dataclass(frozen=True)
class Reader:
    """`readers`: what a read passes (None: no restriction); `said`: who reads, in words;
    `problem`: a key that was refused, in words ("" when none)."""

    readers: frozenset[str] | None
    said: str
    problem: str = ""


def resolve(config: AppConfig, key: str, store: Callable[[str], KeyStore]) -> Reader:
    """The reader a page reads as, from the configuration and the key typed in the sidebar
    (`store(path)`: the keys file's `KeyStore`). A `ReaderError` for a setting that cannot be
    used."""
    principal = config.principal
    if config.keys_file is None:
        if principal is not None:
            raise ReaderError(f"{PRINCIPAL_ENV} is set but {KEYS_ENV} is not: the app reads a "
                              f"principal's groups from the keys file. Set {KEYS_ENV}=FILE too, "
                              f"or unset {PRINCIPAL_ENV}.")
        return Reader(None, EVERYONE)
    path = config.keys_path()
    if path is None:
        raise ReaderError(f"{KEYS_ENV} is set but empty: name the keys file (`python -m service "
                          f"keys add NAME --keys FILE` makes one), or unset it to show every "
                          "document.")
    try:
        keys = store(str(path))
    except KeysFileError as exc:
        raise ReaderError(f"{KEYS_ENV}: {exc}") from None
    if principal is not None:
        return _as_principal(keys, principal, path)
    key = key.strip()
    if not key:
        return Reader(frozenset(), ANONYMOUS)
    if len(key) > MAX_KEY_CHARS:
        return Reader(frozenset(), ANONYMOUS, f"That key is {len(key):,} characters; a key is "
                      f"at most {MAX_KEY_CHARS}. Only the documents open to every reader are "
                      "shown.")
    found = keys.principal(key)
    if found is None:
        return Reader(frozenset(), ANONYMOUS, WRONG_KEY)
    return Reader(found.readers, _reading_as(found))


def _as_principal(keys: KeyStore, name: str, path) -> Reader:
    shown = name[:60] + ("…" if len(name) > 60 else "")
    if not name.strip():
        raise ReaderError(f"{PRINCIPAL_ENV} is set but empty: name a principal of {path}, or "
                          "unset it to read with a key typed in the sidebar.")
    if name_problem(name) is not None:
        raise ReaderError(f"{PRINCIPAL_ENV} {shown!r} is no principal name (letters, digits, "
                          "'.', '_', '@' and '-', 1 to 64 characters, a letter or digit first).")
    found = keys.current().named(name)
    if found is None:
        raise ReaderError(f"{PRINCIPAL_ENV} names {shown!r}, who is not in {path}: `python -m "
                          f"service keys list --keys {path}` lists its principals.")
    return Reader(found.readers, _reading_as(found) + f" (set by {PRINCIPAL_ENV})")


def _reading_as(principal: Principal) -> str:
    groups = f" (groups: {', '.join(principal.groups)})" if principal.groups else ""
    return (f"Reading as {principal.name}{groups}: the documents whose `access` names "
            f"{'one of them' if groups else 'it'}, and those open to every reader.")


@st.cache_resource(show_spinner=False, max_entries=4)
def _store(path: str) -> KeyStore:
    """One `KeyStore` per keys file for this server: it re-reads the file when it changes and
    caches verified keys (a scrypt per stored hash), so a page run costs no hashing."""
    return KeyStore(path)


def page_reader(config: AppConfig) -> Reader:
    """The sidebar's "Key" field (with a keys file and no fixed principal), who reads in a
    caption, a refused key in words; a setting that cannot be used stops the page."""
    key = ""
    if config.keys_file is not None and config.principal is None:
        if KEY_WIDGET not in st.session_state:  # a key typed on another page stays
            st.session_state[KEY_WIDGET] = st.session_state.get(KEY_KEPT, "")
        key = st.sidebar.text_input("Key", type="password", key=KEY_WIDGET, help=KEY_HELP)
        st.session_state[KEY_KEPT] = key
    try:
        with st.spinner("Checking the key…"):
            reader = resolve(config, key, _store)
    except ReaderError as exc:
        st.error(str(exc))
        st.stop()
    if reader.problem:
        st.sidebar.error(reader.problem)
    st.sidebar.caption(reader.said)
    return reader
