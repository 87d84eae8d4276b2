"""The Training page in a real browser, on a Streamlit server of its own (its own home, runs,
data and index roots: `training_flow`): a tiny random BERT fine-tuned on a small pairs file as a
job, its steps and curves redrawn while it runs (the fragment's timer, which AppTest does not
run), "Re-index with this model" as a second job, then the Search page opened on both indexes
and a query compared on them. Screenshots beside the other browser tests' ($BERTSCOPE_HOME/
test-artifacts/app/): training-01-mid-run, training-02-reindexed, training-03-comparison."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_fixtures import LOAD_MS, ask, choose, shot, wait_idle
from browser_setup import streamlit_server
from training_flow import BASE, INDEX, PAIRS, cancel_active, training_folders

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[2]
EPOCHS = 5  # 64 training pairs / batch 2 = 32 steps an epoch (as the AppTest flow): seconds
RUN = f"{BASE}-pairs"


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


def fill(page, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    wait_idle(page)


def test_train_watch_reindex_and_compare_in_the_browser(browser, training_app, folders):
    context = browser.new_context(viewport={"width": 1400, "height": 1700})
    page = context.new_page()
    page.set_default_timeout(LOAD_MS)
    page.goto(f"{training_app}/Training")
    wait_idle(page)
    page.get_by_text("A data file on the server").click()
    wait_idle(page)
    fill(page, f"Path inside {folders['BERTSCOPE_DATA']}", PAIRS)
    page.get_by_text("Loss: cosent (the default for scored data).").wait_for()
    choose(page, "Model", f"{BASE} (trained)")
    wait_idle(page)
    for label, value in (("batch-size", "2"), ("logging-steps", "1"), ("eval-steps", "10"),
                         ("epochs", str(EPOCHS))):
        fill(page, label, value)
    page.get_by_role("button", name="Start training").click()

    total = EPOCHS * 32
    page.get_by_text(re.compile(rf"Running: training: [1-9]\d* of {total} steps")).wait_for()
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for()
    assert page.get_by_role("button", name="Training…").is_disabled()
    assert page.get_by_role("button", name="Cancel").is_enabled()
    shot(page, "training-01-mid-run")

    # the fragment reruns the page when the job ends: nobody touches it
    page.get_by_role("button", name="Re-index with this model").wait_for(timeout=600_000)
    assert page.get_by_text(re.compile(r"Done after \d+")).count() == 1
    assert page.get_by_text(re.compile(r"Dev Spearman × 100: .* before")).count() == 1
    page.get_by_role("button", name="Re-index with this model").click()
    compare = page.get_by_role("button", name=f"Compare {INDEX} with {INDEX}-{RUN} on the "
                                              "Search page")
    compare.wait_for(timeout=600_000)
    wait_idle(page)
    shot(page, "training-02-reindexed")

    compare.click()
    page.wait_for_url(re.compile(r"/Search"))
    wait_idle(page)
    ask(page, "oil prices", until=page.get_by_text(f"{INDEX}-{RUN} · {RUN}"))
    page.get_by_text(f"{INDEX} · {BASE}").wait_for()
    wait_idle(page)
    shot(page, "training-03-comparison")
    context.close()
