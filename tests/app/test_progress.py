"""The one progress bar of the pages: done of total and the time left, from the work's own
estimate or from the rate so far."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def test_time_left_reads_in_seconds_then_minutes():
    from appkit.progress import time_left

    assert time_left(None) == ""
    assert time_left(40.2) == " · about 40 s left"
    assert time_left(210) == " · about 3.5 min left"


def bar_texts(script: str) -> list[str]:
    at = AppTest.from_string(script).run()
    assert not at.exception, at.exception
    return [p.proto.text for p in at.get("progress")]


def test_a_bar_counts_and_estimates_from_its_rate():
    (text,) = bar_texts("""
import time
from appkit.progress import ProgressBar
bar = ProgressBar("Training", unit="steps")
time.sleep(0.2)
bar(1, 3)
""")
    assert text.startswith("Training: 1 of 3 steps · about ") and text.endswith(" s left")


def test_a_staged_bar_shows_only_the_work_s_own_estimate():
    texts = bar_texts("""
from appkit.progress import ProgressBar
bar = ProgressBar("Building", start="Starting…", estimate=False)
bar(5, 10, label="encode")
""")
    assert texts == ["encode: 5 of 10"]
    texts = bar_texts("""
from appkit.progress import ProgressBar
bar = ProgressBar("Building", estimate=False)
bar(5, 10, label="encode", eta_s=300)
bar.finish("Done")
""")
    assert texts == ["Done"]


def test_a_stage_that_counts_nothing_says_so_and_promises_no_time():
    texts = bar_texts("""
from appkit.progress import ProgressBar
bar = ProgressBar("Building", estimate=False)
bar(1, 1, label="read")
bar(0, 0, label="loading the model (a first use exports it)")
""")
    assert texts == ["loading the model (a first use exports it): under way, no count or "
                     "estimate to give"]
