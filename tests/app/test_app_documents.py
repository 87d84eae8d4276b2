"""Index page, "Your documents": several files uploaded at once (a web page, Markdown, an outlined
PDF, a broken PDF) are synced into an index by a real job (`python -m indexer sync`, the tiny
trained run); once it is done the page says the sync's summary line and lists the file it could
not read, and the index cites its files; on the Search page a PDF hit opens its page with the
passage marked, and a Markdown hit shows its section with the passage marked in place."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, texts

from bench.kit.docwriters import html_page
from bench.kit.richwriters import write_outlined_pdf
from common.jobs import JobRunner, JobState

pytestmark = pytest.mark.slow


@pytest.fixture
def docs_env(app_env, tmp_path, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(tmp_path / "indexes"))
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    yield tmp_path / "indexes"
    runner = JobRunner()
    for job in runner.jobs():
        if job.active:
            runner.cancel(job.id, grace_s=2)


def test_uploaded_documents_are_synced_by_a_job_listing_failures(page, docs_env, tmp_path):
    at = page("index")
    assert "Your documents" in [s.value for s in at.subheader]
    text = " ".join(f"Penguins of colony {n} huddle on the ice in winter {n}." for n in range(30))
    write_outlined_pdf(tmp_path / "guide.pdf", [("1 Birds", [("1.1 Penguins", text)])])
    files = [("news.html", html_page([("Markets", "Stocks fell on Monday as oil rose.")],
                                     title="News").encode()),
             ("guide.pdf", (tmp_path / "guide.pdf").read_bytes()),
             ("notes.md", b"# Notes\n\n## Cats\n\nCats purr on the sofa.\n"),
             ("broken.pdf", b"%PDF-1.4 nothing more")]
    for name, data in files:
        at.get("file_uploader")[0].upload(name, data)  # several at once
    at.text_input(key="docs-name").set_value("mine")
    at.selectbox(key="docs-model").set_value("tiny-run (trained)")
    at.button(key="docs-go").click().run()
    assert_clean(at)
    runner = JobRunner()
    job = runner.jobs()[0]
    assert job.spec.kind == "sync" and job.spec.outputs["index"] == str(docs_env / "mine")
    done = runner.wait(job.id, timeout=240)
    assert done.state is JobState.DONE, done.log_tail()
    at = page("index")
    at.text_input(key="docs-name").set_value("mine").run()
    assert_clean(at)
    assert any("1 files could not be read" in t for t in texts(at.warning))
    assert any("**Sync:** added 3, updated 0, removed 0, unchanged 0" in m.value
               for m in at.markdown), [m.value for m in at.markdown]
    table = at.dataframe[-1].value
    assert list(table["file"]) == ["broken.pdf"] and "%%EOF" in table["reason"][0]
    from indexer import SemanticIndex

    index = SemanticIndex.open(docs_env / "mine")
    hits = index.search("cats purr", k=5, mode="lexical", per_chunk=True)
    assert hits[0].metadata["source"] == "notes.md"
    assert hits[0].metadata["section"] == "Notes > Cats"

    search = page("search")
    search.sidebar.selectbox[0].set_value("mine").run()
    search.text_input(key="search-query").set_value("cats purr on the sofa").run()
    assert_clean(search)
    cited = [h.proto.body for h in search.get("html") if "class='citation'" in h.proto.body]
    assert any("notes.md, § Notes &gt; Cats" in b for b in cited), cited
    assert any("news.html, § News &gt; Markets" in b for b in cited), cited
    sections = [e.label for e in search.expander if e.label.startswith("§ ")]
    assert "§ Notes > Cats (the passage marked in its section)" in sections

    search.text_input(key="search-query").set_value("penguins of colony 12 huddle").run()
    assert_clean(search)
    toggles = [t for t in search.toggle if t.key.startswith("page-")]
    assert toggles and toggles[0].label.startswith("Show p. 1")
    toggles[0].set_value(True).run()
    assert_clean(search)
    assert not search.warning, texts(search.warning)  # "Cannot draw p. 1: ..."
    assert search.get("image"), "the page is drawn"
