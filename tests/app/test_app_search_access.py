"""Issue 50 in the app: with a keys file, the Search page (search, filter values, counts,
documents, "Why this match", "Compare with") and the Index page's counts show only what the
reader may see; the reader is BERTSCOPE_APP_PRINCIPAL, a key typed in the sidebar, or nobody."""

from __future__ import annotations

import shutil

import pytest
from apptest_helpers import assert_clean, texts

from common.keys import Keyring, Principal, hash_key, write_keys

pytestmark = pytest.mark.slow

FAST = {"n": 16, "r": 1, "p": 1}  # cheap hashes for tests; the file carries its parameters
KEYS = {"hana": "bsk_hana-key-0123456789", "sam": "bsk_sam-key-0123456789"}
SECRET = "The quarterly salary review lists every bonus of the payroll team."
PUBLIC = [("oil", "Oil prices climb", "Crude oil prices rose as production fell.", "business"),
          ("cup", "Cup final", "The striker scored twice in the cup final.", "sport"),
          ("web", "Broadband", "Broadband internet reached homes across the country.", "tech")]
HIDDEN_WORDS = ("Salary review", "salary", "bonus", "payroll", "hr-1")


@pytest.fixture(scope="module")
def acl_root(tmp_path_factory, tiny_encoder):
    """`team` (three open documents and one for hr, its category 'payroll' its alone) and a
    copy `team-copy`, with the tiny encoder; a keys file: hana in hr, sam in no group."""
    from indexer import build_index

    root = tmp_path_factory.mktemp("acl")
    docs = [{"id": i, "title": t, "text": x, "metadata": {"category": c}} for i, t, x, c in PUBLIC]
    docs.append({"id": "hr-1", "title": "Salary review", "text": SECRET,
                 "metadata": {"category": "payroll", "access": ["hr"]}})
    build_index(docs, root / "indexes" / "team", model=tiny_encoder, preset="flat")
    shutil.copytree(root / "indexes" / "team", root / "indexes" / "team-copy")
    write_keys(root / "keys.toml", Keyring((
        Principal("hana", (hash_key(KEYS["hana"], **FAST),), ("hr",), (("*", "read"),)),
        Principal("sam", (hash_key(KEYS["sam"], **FAST),), (), (("*", "read"),)))))
    return root


@pytest.fixture
def acl(app_env, acl_root, monkeypatch):
    """The app on `acl_root`'s indexes with its keys file (no principal yet)."""
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(acl_root / "indexes"))
    monkeypatch.setenv("BERTSCOPE_APP_KEYS", str(acl_root / "keys.toml"))
    monkeypatch.delenv("BERTSCOPE_APP_PRINCIPAL", raising=False)
    return monkeypatch


def shown(at) -> str:
    """Everything the page says: its HTML, text, captions, messages and widget choices."""
    parts = [h.proto.body for h in at.get("html")]
    for kind in ("markdown", "caption", "info", "warning", "error", "success"):
        parts += texts(getattr(at, kind))
    for box in at.multiselect:
        parts += [str(o) for o in box.options]
    return "\n".join(parts)


def search(at, query: str = SECRET):
    at.text_input(key="search-query").set_value(query).run()
    return at


def hidden_from(at) -> None:
    page = shown(at)
    assert not [w for w in HIDDEN_WORDS if w in page], page[:2000]


def test_a_principal_in_hr_finds_the_hr_document_by_its_words(page, acl):
    acl.setenv("BERTSCOPE_APP_PRINCIPAL", "hana")
    at = page("search")
    assert_clean(at)
    assert any("4 documents" in t for t in texts(at.info))
    assert "payroll" in at.multiselect(key="search-filter-category").options
    assert any("Reading as hana (groups: hr)" in t for t in texts(at.caption))
    at = search(at)
    assert_clean(at)
    heads = [h.proto.body for h in at.get("html") if h.proto.body.startswith("<div><b>")]
    assert "1. Salary review" in heads[0]
    explain = [c for c in at.checkbox if str(c.key).startswith("why-")][0]
    explain.check().run()  # "Why this match" reads the hit as hana may
    assert_clean(at)
    assert any("Occlusion" in t and "drops" in t for t in texts(at.caption))


@pytest.mark.parametrize("principal", ["sam", None])  # None: no key, an anonymous reader
def test_outside_hr_nothing_of_the_hr_document_shows(page, acl, principal):
    if principal:
        acl.setenv("BERTSCOPE_APP_PRINCIPAL", principal)
    at = page("search")
    assert_clean(at)
    assert any("3 documents" in t for t in texts(at.info))
    assert "payroll" not in at.multiselect(key="search-filter-category").options
    if principal is None:
        assert any("anonymous reader" in t for t in texts(at.caption))
    for mode in ("hybrid", "lexical", "dense"):
        at.sidebar.radio[0].set_value(mode).run()
        at = search(at)
        assert not at.exception
        hidden_from(at)


def test_a_key_typed_in_the_sidebar_reads_as_its_principal(page, acl):
    at = page("search")
    assert "payroll" not in at.multiselect(key="search-filter-category").options
    at.text_input(key="reader-key").set_value(KEYS["hana"]).run()
    assert_clean(at)
    assert "payroll" in at.multiselect(key="search-filter-category").options
    at = search(at)
    heads = [h.proto.body for h in at.get("html") if h.proto.body.startswith("<div><b>")]
    assert "1. Salary review" in heads[0]


@pytest.mark.parametrize("key", ["bsk_not-a-key", " spaces in a key ", "k" * 10_000])
def test_a_wrong_key_is_said_in_words_and_shows_nothing_hidden(page, acl, key):
    at = page("search")
    at.text_input(key="reader-key").set_value(key).run()
    assert not at.exception
    said = texts(at.error)
    assert said and ("not valid" in said[0] or "at most 512" in said[0])
    assert key.strip() not in shown(at)  # the key is never echoed
    hidden_from(search(at))


def test_an_unknown_principal_is_an_error_not_an_open_read(page, acl):
    acl.setenv("BERTSCOPE_APP_PRINCIPAL", "nobody")
    at = page("search")
    assert not at.exception
    assert any("'nobody', who is not in" in t for t in texts(at.error))
    assert "search-query" not in [w.key for w in at.text_input]  # the page stopped
    hidden_from(at)


def test_an_unreadable_keys_file_is_an_error(page, acl, tmp_path):
    acl.setenv("BERTSCOPE_APP_KEYS", str(tmp_path / "gone.toml"))
    at = page("search")
    assert not at.exception
    assert any("BERTSCOPE_APP_KEYS" in t and "gone.toml" in t for t in texts(at.error))
    assert "search-query" not in [w.key for w in at.text_input]


def test_without_a_keys_file_every_document_as_before(page, acl):
    acl.delenv("BERTSCOPE_APP_KEYS")
    at = page("search")
    assert_clean(at)
    assert "reader-key" not in [w.key for w in at.text_input]
    assert any("Every document is shown" in t for t in texts(at.caption))
    assert any("4 documents" in t for t in texts(at.info))


def test_compare_with_shows_the_hidden_document_on_neither_side(page, acl):
    acl.setenv("BERTSCOPE_APP_PRINCIPAL", "sam")
    at = page("search")
    at.selectbox(key="search-compare").set_value("team-copy").run()
    at = search(at)
    assert not at.exception
    heads = [h.proto.body for h in at.get("html") if "</b> <span style='opacity:0.7'>· score"
             in h.proto.body]
    assert len(heads) == 6  # three a side (the second's marked = against the first): all visible
    hidden_from(at)


@pytest.mark.parametrize(("principal", "documents"), [("hana", "4"), ("sam", "3")])
def test_the_index_page_counts_what_the_reader_may_see(page, acl, principal, documents):
    acl.setenv("BERTSCOPE_APP_PRINCIPAL", principal)
    at = page("index")
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents"] == documents and "Skipped rows" not in metrics
    assert any("this reader may see" in t for t in texts(at.caption))


@pytest.mark.parametrize("principal", ["hana", "sam"])
def test_disambiguation_lists_uses_of_a_word_only_in_visible_documents(page, acl, principal):
    acl.setenv("BERTSCOPE_APP_PRINCIPAL", principal)
    at = page("disambiguation")
    at.text_area[0].set_value("The bonus was paid in March.\nHer bonus was small.").run()
    at.text_input[0].set_value("bonus").run()
    assert_clean(at)
    if principal == "hana":
        assert any("Salary review" in h.proto.body for h in at.get("html"))
    else:
        assert any("No chunk of team contains “bonus”" in t for t in texts(at.info))
        page_text = shown(at)  # the contexts typed hold "bonus": the hidden chunk's other words
        assert not [w for w in ("Salary", "salary", "payroll", "quarterly") if w in page_text]
