"""`python -m bench.scale.pages ROOT CORPUS_DIR OUT.json`: the Index and Search pages' first
render in Streamlit's AppTest with ROOT's one index chosen (nothing of it cached), then the
Search page's run of one query. The process first renders the Index page over an empty index
root, apart: what a running app has already imported (streamlit, the app's modules; seconds in
a fresh process) is not counted against the index's size."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from .corpus import ScaleCorpus

REPO = Path(__file__).resolve().parents[2]
PAGES = {"index": REPO / "app" / "pages" / "4_Index.py",
         "search": REPO / "app" / "pages" / "1_Search.py"}


def render(page: str) -> tuple[float, object]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(PAGES[page]), default_timeout=1800)
    t = time.perf_counter()
    at.run()
    return time.perf_counter() - t, at


def problems(at) -> list[str]:
    return [str(e.value)[:200] for e in [*at.exception, *at.error]]


def main() -> None:
    import tempfile

    root, data, out = Path(sys.argv[1]), ScaleCorpus(Path(sys.argv[2])), Path(sys.argv[3])
    result: dict = {}
    with tempfile.TemporaryDirectory() as empty:
        os.environ["BERTSCOPE_INDEX_ROOT"] = empty
        result["warm_up_s"] = round(render("index")[0], 2)  # imports, with no index to read
    os.environ["BERTSCOPE_INDEX_ROOT"] = str(root)
    for page in ("index", "search"):
        seconds, at = render(page)
        result[f"{page}_first_render_s"] = round(seconds, 2)
        result[f"{page}_problems"] = problems(at)
    query = data.queries()[0]["text"]
    at.text_input(key="search-query").set_value(query)
    t = time.perf_counter()
    at.run()
    result["search_query_render_s"] = round(time.perf_counter() - t, 2)
    result["search_query_problems"] = problems(at)
    out.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
