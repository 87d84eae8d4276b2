"""Index page: statistics, and builds from a confined server path or an upload, with messages.
A build is a job in its own process (`indexer.jobs.build_job`), not work inside the page's run:
the page starts it, shows it running (in a new session too), then what it built or why it
failed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from apptest_helpers import assert_clean, texts
from corpus import DOCS
from session_home import linked_home

from common.jobs import JobRunner, JobSpec, JobState

pytestmark = pytest.mark.slow
GATED = Path(__file__).with_name("gated_job.py")

TEXTS = [("Stocks fell on Monday.", "markets"), ("The goalkeeper saved a penalty.", "sport"),
         ("苹果发布了新手机。", "tech")]
ROWS = [{"id": f"d{i}", "title": f"Doc {i}", "text": text, "topic": topic}
        for i, (text, topic) in enumerate(TEXTS)]
JSONL = ("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS) + "{not json\n").encode()


@pytest.fixture
def build_env(app_env, monkeypatch, tmp_path):
    """An empty index root of its own, a corpus (with one bad row) in the data root, and a
    $BERTSCOPE_HOME of its own (jobs, uploads; the session's exports)."""
    (app_env["BERTSCOPE_DATA"] / "small.jsonl").write_bytes(JSONL)
    (tmp_path / "secret.jsonl").write_bytes(JSONL)
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(tmp_path / "indexes"))
    home = linked_home(tmp_path / "home", "exports")
    monkeypatch.setenv("BERTSCOPE_HOME", str(home))
    yield tmp_path / "indexes"
    runner = JobRunner()
    for job in runner.jobs():
        if job.active:
            runner.cancel(job.id, grace_s=2)


def started_jobs(before: set[str]) -> list:
    return [j for j in JobRunner().jobs() if j.id not in before]


def build(at, name: str, *, path: str | None = None, upload: bytes | None = None,
          filename: str = "up.jsonl"):
    if upload is not None:
        at.radio(key="build-source").set_value("Upload a file").run()
        at.get("file_uploader")[-1].upload(filename, upload)  # [0]: "Your documents"
    else:
        at.text_input(key="build-path").set_value(path)
    at.text_input(key="build-name").set_value(name)
    at.selectbox(key="build-model").set_value("tiny-run (trained)")
    before = {j.id for j in JobRunner().jobs()}
    at.button(key="build-go").click().run()
    started = started_jobs(before)
    if not started:  # refused before any job: the page says why in this run
        return at
    for job in started:  # what a person sees once the job's bar has stopped
        JobRunner().wait(job.id, timeout=240)
    return at.run()


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


def test_the_build_is_a_job_the_page_shows_running_then_done(page, build_env, tmp_path,
                                                             monkeypatch):
    """The click returns at once with the job under way (held at a gate here), a new session
    finds it again, and once it ends the page says what it built."""
    import indexer.jobs as jobs

    gate, real = tmp_path / "gate", jobs.build_job

    def gated(*args, **kwargs) -> JobSpec:
        spec = real(*args, **kwargs)
        argv = (sys.executable, str(GATED), str(gate), *spec.argv)
        return JobSpec(spec.kind, spec.key, spec.title, argv, argv, spec.cwd, spec.outputs)

    monkeypatch.setattr(jobs, "build_job", gated)
    at = page("index")
    at.text_input(key="build-path").set_value("small.jsonl")
    at.text_input(key="build-name").set_value("small")
    at.selectbox(key="build-model").set_value("tiny-run (trained)")
    at.button(key="build-go").click().run()
    assert_clean(at)
    job = JobRunner().jobs()[0]
    assert job.spec.kind == "build" and job.spec.outputs["index"] == str(build_env / "small")
    assert job.spec.argv[-6:] == ("--model", job.spec.argv[-5], "--out",
                                  str(build_env / "small"), "--index", "auto")
    assert job.active and not (build_env / "small").exists()  # not built inside the page run
    assert "build-go" not in [b.key for b in at.button]  # the form waits for its job
    busy = [b for b in at.button if b.label == "Building small…"]
    assert busy and busy[0].disabled

    again = page("index")  # a new session: the job is found on disk
    again.text_input(key="build-name").set_value("small").run()
    assert [b.label for b in again.button if b.label == "Building small…"]

    gate.touch()
    done = JobRunner().wait(job.id, timeout=240)
    assert done.state is JobState.DONE, done.log_tail()
    again.run()
    assert any("Built small: 3 documents" in t for t in texts(again.success))
    # issue 52: a new index is not chosen by itself on the Search page; the page says where
    assert any("choose **small** under *Index* in the Search page's sidebar" in t
               for t in texts(again.caption))
    assert "Search small" in [b.label for b in again.button]


def test_on_the_server_says_where_it_reads_and_that_a_clone_lacks_it(page, build_env,
                                                                      app_env):
    """Issue 52: nothing told a newcomer that "A folder on the server" needs data a fresh clone
    of the repository lacks."""
    at = page("index")
    assert_clean(at)
    said = " ".join(texts(at.caption))
    assert f"Reads corpus files under the data folder `{app_env['BERTSCOPE_DATA']}`" in said
    assert "a fresh clone of the repository does not have" in said
    at.radio(key="docs-source").set_value("A folder on the server").run()
    assert "Reads folders of documents under the data folder" in " ".join(texts(at.caption))


def test_an_upload_is_kept_for_its_job_and_removed_once_it_ends(page, build_env):
    from appkit.uploads import upload_folder

    at = build(page("index"), "uploaded", upload=JSONL)
    assert_clean(at)
    assert any("Built uploaded: 3 documents" in t for t in texts(at.success))
    assert not upload_folder("uploaded").exists()
    at = build(page("index"), "junk", upload=b"{broken\n")  # a failed build too
    assert any("The build failed" in t for t in texts(at.error))
    assert not upload_folder("junk").exists()


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
