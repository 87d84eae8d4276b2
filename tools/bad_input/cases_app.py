"""Bad inputs typed into the app's pages, run with Streamlit's AppTest (the page's script, its
widgets and messages, no browser). The app reads W/app/indexes (one index, `news`) and W as its
data folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

from .probe import REPO, Case, Outcome

PAGES = {"search": "pages/1_Search.py", "attention": "pages/2_Attention.py",
         "disambiguation": "pages/3_Disambiguation.py", "index": "pages/4_Index.py"}


def app_env(ws) -> None:
    """Point the app at the workspace (an index root with a copy of W/idx, W as data root)."""
    root = ws.root / "app" / "indexes"
    if not (root / "news").exists():
        root.mkdir(parents=True, exist_ok=True)
        shutil.copytree(ws.root / "idx", root / "news")
    (ws.root / "app" / "runs").mkdir(parents=True, exist_ok=True)
    os.environ.update(BERTSCOPE_INDEX_ROOT=str(root), BERTSCOPE_DATA=str(ws.root),
                      BERTSCOPE_RUNS_ROOT=str(ws.root / "app" / "runs"))


def page(name: str, steps: Callable) -> Callable[..., Outcome]:
    """A case runner: open page `name`, apply `steps(at, ws)`, read what the page shows."""

    def run(ws) -> Outcome:
        import sys

        from streamlit.testing.v1 import AppTest

        app_env(ws)
        if str(REPO / "app") not in sys.path:
            sys.path.insert(0, str(REPO / "app"))
        at = AppTest.from_file(str(REPO / "app" / PAGES[name]), default_timeout=300).run()
        try:
            early = steps(at, ws)
        except KeyError as exc:  # the page stopped before drawing the widget the case types in
            said = [str(e.value) for kind in ("exception", "error", "warning", "info")
                    for e in getattr(at, kind)]
            return Outcome(f"page: no widget {exc}", said[0].splitlines()[0] if said else
                           "(the page drew nothing to type in)", traceback=True, refused=True)
        if isinstance(early, Outcome):  # a widget refused the input before the page ran
            return early
        if at.exception and str(at.exception[0].value).startswith("Invalid file extension"):
            # AppTest lets the file through to the server, which raises; in a browser the
            # uploader itself refuses such a file before the page runs
            return Outcome("uploader refuses the file", str(at.exception[0].value).splitlines()[0],
                           refused=True)
        if at.exception:
            return Outcome("page: exception", str(at.exception[0].value).splitlines()[0],
                           traceback=True, refused=True)
        shown = {kind: [str(e.value) for e in getattr(at, kind)]
                 for kind in ("error", "warning", "info", "success")}
        drawn = bool(at.get("plotly_chart")) or any(
            h.proto.body.startswith("<div><b>") for h in at.get("html"))  # figures or hits
        refused = bool(shown["error"]) or (bool(shown["info"]) and not drawn
                                           and not shown["warning"])
        for kind in ("error", "warning", "info", "success"):
            if shown[kind]:
                return Outcome(f"page: {kind}", shown[kind][0], refused=refused,
                               warned=bool(shown["warning"]))
        captions = [str(c.value) for c in at.caption]
        return Outcome("page: result", captions[-1] if captions else "(no message)")

    return run


def _query(text: str, *, mode: str | None = None, k: int | None = None,
           year: str | None = None):
    def steps(at, ws):
        if mode:
            at.sidebar.radio[0].set_value(mode)
        if k:
            at.sidebar.slider[0].set_value(k)
        if year is not None:
            at.text_input(key="search-filter-year").set_value(year)
        at.text_input(key="search-query").set_value(text).run()

    return steps


def _attention(a: str, b: str = ""):
    def steps(at, ws):
        at.text_area[0].set_value(a)
        at.text_area[1].set_value(b).run()

    return steps


def _words(word: str, contexts: str):
    def steps(at, ws):
        at.text_input[0].set_value(word)
        at.text_area[0].set_value(contexts).run()

    return steps


def _build(name: str, *, path: str | None = None, upload: bytes | None = None,
           filename: str = "up.jsonl"):
    def steps(at, ws):
        if upload is not None:
            at.radio(key="build-source").set_value("Upload a file").run()
            try:
                at.get("file_uploader")[0].upload(filename, upload)
            except Exception as exc:  # noqa: BLE001 - the widget's own refusal
                return Outcome("uploader refuses the file", str(exc), refused=True)
        elif path is not None:
            at.text_input(key="build-path").set_value(path.replace("{W}", str(ws.root)))
        at.text_input(key="build-name").set_value(name)
        from common.jobs import JobRunner

        runner = JobRunner()
        before = {j.id for j in runner.jobs(kind="build")}
        at.button(key="build-go").click().run()
        started = [j for j in runner.jobs(kind="build") if j.id not in before]
        for job in started:  # the build is a job: what the page says once it has ended
            runner.wait(job.id, timeout=300)
        if started:
            at.run()

    return steps


def _case(name: str, bad: str, steps, expect: str = "refused", note: str = "") -> Case:
    return Case("app (Streamlit pages)", f"{name.capitalize()}: {bad}", page(name, steps),
                expect, note)


SEARCH = [
    _case("search", "a query of spaces", _query("   ")),
    _case("search", "a query of 2,000 characters", _query("oil prices " * 182), "warned",
          "searches with the first 256 tokens; says so"),
    _case("search", "a year filter 'abc' (an int field)", _query("oil", year="abc")),
    _case("search", "a year filter '1e3'", _query("oil", year="1e3")),
    _case("search", "a year filter of commas only", _query("oil", year=",,"), "accepted",
          "no value: no filter"),
    _case("search", "a lexical query of stop words", _query("the of and", mode="lexical"),
          "warned", "no document matches: said so"),
    _case("search", "punctuation only", _query("?!?", mode="lexical"), "warned"),
    _case("search", "an emoji", _query("🍎"), "accepted"),
    _case("search", "literal [CLS] [SEP] tokens", _query("[CLS] [SEP]"), "accepted"),
    _case("search", "k = 50 on 6 documents", _query("oil", k=50), "accepted"),
]
ATTENTION = [
    _case("attention", "an empty sentence", _attention("")),
    _case("attention", "only sentence B", _attention("", "Apple sells phones.")),
    _case("attention", "4,000 characters", _attention("word " * 800), "warned",
          "figures for the first 256 tokens; says so"),
    _case("attention", "Chinese with minilm (English only)", _attention("苹果好吃，我喜欢。"),
          "warned", "most tokens are [UNK]: says to pick e5-multilingual"),
    _case("attention", "control characters only", _attention("\x00\x01\x02")),
    _case("attention", "literal [CLS] [SEP] [MASK]", _attention("[CLS] [SEP] [MASK]"),
          "accepted"),
]
DISAMBIGUATION = [
    _case("disambiguation", "an empty word", _words("", "an apple\napple pie")),
    _case("disambiguation", "one context", _words("apple", "an apple a day")),
    _case("disambiguation", "contexts of blank lines", _words("apple", "  \n \n")),
    _case("disambiguation", "a word in no context", _words("pear", "an apple\napple pie")),
    _case("disambiguation", "a word in only one context", _words("pie", "an apple\napple pie")),
    _case("disambiguation", "a word of two words", _words("apple pie", "apple pie\nan apple pie"),
          "accepted"),
    _case("disambiguation", "a word inside another (app in apple)",
          _words("app", "an apple\napple pie"), "accepted",
          "followed through the token that holds it (apple)"),
]
INDEX = [
    _case("index", "Build with no corpus", _build("new")),
    _case("index", "a name with a slash", _build("../x", path="corpus.jsonl")),
    _case("index", "an empty name", _build("", path="corpus.jsonl")),
    _case("index", "the name of an index that exists", _build("news", path="corpus.jsonl")),
    _case("index", "a path outside the data folder", _build("a1", path="/etc/hostname")),
    _case("index", "a path that does not exist", _build("a2", path="nope.jsonl")),
    _case("index", "a corpus whose every row is bad", _build("a3", path="bad.jsonl")),
    _case("index", "a folder with no .txt/.md", _build("a4", path="txtless")),
    _case("index", "a CSV without a text column", _build("a5", path="wrongcols.csv")),
    _case("index", "an empty upload", _build("a6", upload=b"")),
    _case("index", "an upload with the wrong extension", _build("a7", upload=b"x",
                                                                 filename="corpus.exe")),
    _case("index", "binary junk uploaded as .jsonl", _build("a8", upload=b"\x00\xff" * 64)),
    _case("index", "a .parquet upload that is not Parquet", _build(
        "a9", upload=b"not parquet", filename="c.parquet")),
]

APP = [*SEARCH, *ATTENTION, *DISAMBIGUATION, *INDEX]
