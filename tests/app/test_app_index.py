"""Index page: statistics, and builds from a confined server path or an upload, with messages."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import assert_clean, texts
from corpus import DOCS

pytestmark = pytest.mark.slow

TEXTS = [("Stocks fell on Monday.", "markets"), ("The goalkeeper saved a penalty.", "sport"),
         ("苹果发布了新手机。", "tech")]
ROWS = [{"id": f"d{i}", "title": f"Doc {i}", "text": text, "topic": topic}
        for i, (text, topic) in enumerate(TEXTS)]
JSONL = ("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS) + "{not json\n").encode()


@pytest.fixture
def build_env(app_env, monkeypatch, tmp_path):
    """An empty index root of its own, and a corpus (with one bad row) in the data root."""
    (app_env["BERTSCOPE_DATA"] / "small.jsonl").write_bytes(JSONL)
    (tmp_path / "secret.jsonl").write_bytes(JSONL)
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(tmp_path / "indexes"))
    return tmp_path / "indexes"


def build(at, name: str, *, path: str | None = None, upload: bytes | None = None,
          filename: str = "up.jsonl"):
    if upload is not None:
        at.radio(key="build-source").set_value("Upload a file").run()
        at.get("file_uploader")[-1].upload(filename, upload)  # [0]: "Your documents"
    else:
        at.text_input(key="build-path").set_value(path)
    at.text_input(key="build-name").set_value(name)
    at.selectbox(key="build-model").set_value("tiny-run (trained)")
    at.button(key="build-go").click().run()
    return at


def test_stats_of_an_index(page, with_indexes):
    at = page("index")
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents"] == str(len(DOCS)) == metrics["Chunks"]
    assert metrics["Skipped rows"] == "0"
    assert any("minilm" in t and "flat" in t for t in texts(at.markdown))
    assert any("`minilm` on `" in t and "(fidelity " in t for t in texts(at.markdown))


def test_corrupt_index_is_a_message(page, with_indexes):
    at = page("index")
    at.selectbox(key="index-choice").set_value("z-broken").run()
    assert not at.exception
    assert any("Cannot open the index z-broken" in t for t in texts(at.error))
    assert at.button(key="build-go")  # building a new index still works


def test_build_from_a_server_path_reports_skipped_rows(page, build_env):
    at = page("index")
    assert any("No index under" in t for t in texts(at.info))
    at = build(at, "small", path="small.jsonl")
    assert_clean(at)
    assert any("Built small: 3 documents" in t and "1 rows skipped" in t for t in texts(at.success))
    assert (build_env / "small" / "manifest.json").is_file()
    at.run()  # the new index now shows, with its statistics
    assert {m.label: m.value for m in at.metric}["Skipped rows"] == "1"


def test_paths_outside_the_data_root_are_refused(page, build_env):
    for bad in ("../secret.jsonl", str(build_env.parent / "secret.jsonl")):
        at = build(page("index"), "escape", path=bad)
        assert not at.exception
        assert any("outside the data folder" in t for t in texts(at.error))
    assert not (build_env / "escape").exists()


def test_upload_builds_an_index_and_its_temporary_folder_goes(page, build_env, temp_dir):
    at = build(page("index"), "uploaded", upload=JSONL)
    assert_clean(at)
    assert any("Built uploaded: 3 documents" in t for t in texts(at.success))
    assert list(temp_dir.iterdir()) == []
    at = build(page("index"), "junk", upload=b"{broken\n")  # a failed build too
    assert any("The build failed" in t for t in texts(at.error))
    assert list(temp_dir.iterdir()) == []


def test_upload_above_the_limit_is_refused(page, build_env, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_UPLOAD_LIMIT_MB", "1")
    at = build(page("index"), "big", upload=b'{"id": "x", "text": "y"}\n' * 60_000)  # 1.4 MB
    assert not at.exception
    assert any("upload limit is 1 MB" in t for t in texts(at.error))


def test_bad_name_and_existing_name_are_messages(page, build_env):
    at = build(page("index"), "../up", path="small.jsonl")
    assert any("Name the index" in t for t in texts(at.error))
    (build_env / "taken").mkdir(parents=True)
    at = build(page("index"), "taken", path="small.jsonl")
    assert any("already exists" in t for t in texts(at.error))


def test_unreadable_corpus_is_a_message(page, build_env, app_env):
    (app_env["BERTSCOPE_DATA"] / "junk.jsonl").write_text("{broken\n")
    at = build(page("index"), "junk", path="junk.jsonl")
    assert not at.exception
    assert any("The build failed" in t for t in texts(at.error))


def test_a_missing_data_folder_is_named(page, build_env, tmp_path, monkeypatch):
    """Issue 25: with no data folder, "A file on the server" only said the typed file did not
    exist inside it."""
    missing = tmp_path / "no-data"
    for name in ("BERTSCOPE_DATA", "BERTSCOPE_DATA_ROOT"):  # the data root, by either name
        monkeypatch.setenv(name, str(missing))
    at = page("index")
    assert any(f"The data folder {missing} does not exist" in t for t in texts(at.warning))
    at = build(at, "nothing", path="small.jsonl")
    assert not at.exception
    assert any(f"The data folder {missing} does not exist" in t for t in texts(at.error))
    assert not (build_env / "nothing").exists()
    at.radio(key="build-source").set_value("Upload a file").run()
    assert not at.warning  # an upload needs no data folder
