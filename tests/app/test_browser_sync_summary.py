"""The Index page after a sync, in a real browser (issue 51): the job ends with the command's own
summary line ("added 4, updated 0, removed 0, unchanged 0 (built …)") on the page, not hidden in
a collapsed log, and each file it could not read listed with why. A real `python -m indexer
sync` job (minilm) over a folder of Markdown, slides, an e-book and a truncated PDF, on a
Streamlit server of its own with an empty $BERTSCOPE_HOME. Screenshot:
test-artifacts/app/sync-01-summary.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_fixtures import LOAD_MS, shot, wait_idle
from browser_setup import streamlit_server
from playwright.sync_api import expect
from session_home import linked_home

from bench.kit.richwriters import write_epub, write_pptx
from common.jobs import JobRunner, JobState
from indexer import jobs

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def synced(tmp_path_factory):
    """A folder synced by a real job into an index, in a home of its own."""
    home = linked_home(tmp_path_factory.mktemp("sync-home"), "exports", "models")
    folder = tmp_path_factory.mktemp("data") / "reports"
    folder.mkdir()
    for n, topic in enumerate(("oil prices", "penguins")):
        (folder / f"note-{n}.md").write_text(f"# Note {n}\n\nA short note on {topic}.\n",
                                             encoding="utf-8")
    write_pptx(folder / "talk.pptx", [("Oil prices", ["Rising in Europe"], "Say why.")])
    write_epub(folder / "book.epub", [("Chapter 1", [("Scope", "Penguins breed in winter.")])])
    (folder / "truncated.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n")
    indexes = tmp_path_factory.mktemp("indexes")
    spec = jobs.sync_job(folder, indexes / "reports", "minilm")
    argv = ("env", f"BERTSCOPE_HOME={home}", *spec.argv)
    runner = JobRunner(home / "jobs")
    job = runner.submit(type(spec)(spec.kind, spec.key, spec.title, argv, argv, spec.cwd,
                                   outputs=spec.outputs))
    runner.wait(job.id, timeout=600)
    assert runner.get(job.id).state is JobState.DONE, runner.get(job.id).log_tail(40)
    return home, indexes, folder.parent


@pytest.fixture(scope="module")
def sync_app(browser, synced, tmp_path_factory):
    home, indexes, data = synced
    env = {"BERTSCOPE_HOME": str(home), "BERTSCOPE_INDEX_ROOT": str(indexes),
           "BERTSCOPE_DATA": str(data)}
    log = tmp_path_factory.mktemp("streamlit-sync") / "streamlit.log"
    with streamlit_server(REPO, env, log) as url:
        yield url


def test_the_sync_ends_with_its_summary_and_its_failures_listed(browser, sync_app):
    # tall: Streamlit scrolls inside its own container, and the failures sit below the fold
    context = browser.new_context(viewport={"width": 1400, "height": 2300})
    tab = context.new_page()
    tab.set_default_timeout(LOAD_MS)
    tab.goto(f"{sync_app}/Index")
    wait_idle(tab)
    box = tab.get_by_label("Index to sync (a new or existing folder under", exact=False)
    box.fill("reports")
    box.press("Enter")
    # the line on the page, not its copy in the job's collapsed log (hidden: no text to read)
    summary = tab.get_by_text("added 4, updated 0, removed 0, unchanged 0",
                              exact=False).locator("visible=true")
    summary.first.wait_for()
    wait_idle(tab)
    expect(summary.first).to_contain_text("Sync:")  # read again while a rerun redraws it
    tab.get_by_text("1 files could not be read (the rest is indexed):").wait_for()
    # the failures' table (the index's own skipped files are in a closed expander above)
    tab.locator('[data-testid="stDataFrame"] >> visible=true').last.wait_for()
    shot(tab, "sync-01-summary")
    assert "Done" in tab.locator('[data-testid="stAlert"]').first.inner_text()
    context.close()
