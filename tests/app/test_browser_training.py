"""The Training page in a real browser, on a Streamlit server of its own (its own fresh home,
runs, data and index roots: `training_flow`):

- a recipe whose data this server lacks says what to get and where to put it, and offers the
  upload form instead, which lists the fields each kind of file needs with example files;
- a refused setting is said next to its field and Start stays disabled;
- a tiny random BERT fine-tuned as a job, its steps and curves redrawn while it runs (the
  fragment's timer, which AppTest does not run), then cancelled; "Adapt to news-tiny" as a
  second job; both runs listed, one cancelled; the adapted model re-indexed ("anyway": the
  index is too small for its check to say it helped) into the same chunks, and the Search page
  opened on both indexes with a query compared.

Screenshots beside the other browser tests' ($BERTSCOPE_HOME/test-artifacts/app/):
training-01-missing-data, training-02-upload-form, training-03-refused-setting,
training-04-mid-run, training-05-two-runs, training-06-reindexed, training-07-comparison."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_fixtures import LOAD_MS, ask, choose, shot, wait_idle
from browser_setup import streamlit_server
from training_flow import BASE, INDEX, PAIRS, cancel_active, training_folders

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[2]
EPOCHS = 50  # 64 pairs / batch 2 = 32 steps an epoch: long enough to watch, then cancel
ADAPTED = f"{INDEX}-adapted"


@pytest.fixture(scope="module")
def folders(tmp_path_factory, tiny_model_dir) -> dict[str, Path]:
    return training_folders(tmp_path_factory.mktemp("training-browser"), tiny_model_dir)


@pytest.fixture(scope="module")
def training_app(browser, folders, tmp_path_factory):
    env = {k: str(v) for k, v in folders.items()}
    log = tmp_path_factory.mktemp("streamlit-training") / "streamlit.log"
    try:
        with streamlit_server(REPO, env, log) as url:
            yield url
    finally:
        cancel_active(folders["BERTSCOPE_HOME"] / "jobs")


@pytest.fixture
def page(browser, training_app):
    context = browser.new_context(viewport={"width": 1400, "height": 1700})
    tab = context.new_page()
    tab.set_default_timeout(LOAD_MS)
    tab.goto(f"{training_app}/Training")
    wait_idle(tab)
    yield tab
    context.close()


def fill(page, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    wait_idle(page)


def on_pairs_file(page, folders) -> None:
    page.get_by_text("A data file on the server").click()
    wait_idle(page)
    fill(page, f"Path inside {folders['BERTSCOPE_DATA']}", PAIRS)
    page.get_by_text("Loss: cosent (the default for scored data).").wait_for()


def test_a_recipe_without_its_data_says_what_to_get_and_offers_an_upload(page, folders):
    """A fresh home and a data root without the recipe's files (en-sts, the first recipe)."""
    said = page.get_by_text(re.compile(r"The recipe en-sts trains on data that this server "
                                       r"does not have yet"))
    said.wait_for()
    assert page.get_by_text("stanfordnlp/snli").count() == 1
    assert page.get_by_text(str(folders["BERTSCOPE_DATA"] / "snli" / "pairs.jsonl")).count() == 1
    assert page.get_by_role("button", name="Start training").count() == 0
    shot(page, "training-01-missing-data")
    page.get_by_role("button", name="Upload a data file instead").click()
    wait_idle(page)
    page.get_by_role("button", name="Example triplet file").wait_for()
    for kind in ("scored", "binary", "nli"):
        assert page.get_by_role("button", name=f"Example {kind} file").count() == 1
    page.get_by_text("Each row is one training example").wait_for()
    shot(page, "training-02-upload-form")


def test_a_refused_setting_is_said_next_to_its_field(page, folders):
    from playwright.sync_api import expect

    on_pairs_file(page, folders)
    fill(page, "epochs", "-1")
    # Streamlit's markdown typesets "<=" as "≤"
    page.get_by_text(re.compile(r"epochs: must be > 0 and (<=|≤) 1000, got -1\.0")).first.wait_for()
    # the message may show while the run that draws the disabled button is still going
    expect(page.get_by_role("button", name="Start training")).to_be_disabled(timeout=LOAD_MS)
    shot(page, "training-03-refused-setting")


def test_two_runs_one_cancelled_then_adapt_reindex_and_compare(page, folders):
    on_pairs_file(page, folders)
    choose(page, "Model", f"{BASE} (trained)")
    wait_idle(page)
    for label, value in (("batch-size", "2"), ("logging-steps", "1"), ("eval-steps", "10"),
                         ("epochs", str(EPOCHS))):
        fill(page, label, value)
    page.get_by_role("button", name="Start training").click()

    total = EPOCHS * 32
    page.get_by_text(re.compile(rf"Running: training: [1-9]\d* of {total:,} steps")).wait_for()
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for()
    assert page.get_by_role("button", name="Training…").is_disabled()
    shot(page, "training-04-mid-run")
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text(re.compile(r"^Cancelled after")).first.wait_for()
    wait_idle(page)

    page.get_by_role("button", name=f"Adapt to {INDEX}").click()
    verdict = page.get_by_text(re.compile(r"^Too few held-out queries"))
    verdict.wait_for(timeout=600_000)
    wait_idle(page)
    runs = page.locator('[data-testid="stTable"]').first
    runs.wait_for()
    assert page.get_by_text(re.compile(r" · cancelled$")).count() == 1  # the first run's section
    assert page.get_by_text(re.compile(r"^Adapt to news-tiny into .* · done$")).count() == 1
    shot(page, "training-05-two-runs")

    page.get_by_role("button", name="Re-index anyway").click()
    compare = page.get_by_role("button", name=f"Compare {INDEX} with {ADAPTED} on the Search "
                                              "page")
    compare.wait_for(timeout=600_000)
    wait_idle(page)
    shot(page, "training-06-reindexed")
    from indexer import SemanticIndex

    root = folders["BERTSCOPE_INDEX_ROOT"]
    before = SemanticIndex.open(root / INDEX)
    after = SemanticIndex.open(root / ADAPTED)
    assert after.stats().chunks == before.stats().chunks  # the same chunks side by side

    compare.click()
    page.wait_for_url(re.compile(r"/Search"))
    wait_idle(page)
    ask(page, "oil prices", until=page.get_by_text(f"{ADAPTED} · {ADAPTED}"))
    page.get_by_text(f"{INDEX} · {BASE}").wait_for()
    wait_idle(page)
    shot(page, "training-07-comparison")
