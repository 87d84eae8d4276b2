"""Index: statistics of an index; sync one with uploaded documents or a server folder (a job);
build a new one from a server-side path or an uploaded corpus file (a job too).
The counts are the reader's (`appkit.reader`), as on the Search page; with a keys file, the
build's skipped rows and notes (they name rows and files whatever their `access`) are left out.
Building and syncing are the operator's: the app gates no writes (docs/SECURITY.md)."""

import pandas as pd
import streamlit as st
from appkit.backends import fidelity_text
from appkit.config import AppConfig
from appkit.confine import confine_path, data_folder_problem, server_data_note
from appkit.default_zh import offer_chinese_index
from appkit.discovery import default_position, find_indexes, label
from appkit.documents import offer_documents
from appkit.guard import call_or_stop
from appkit.index_build import JOB_NOTE, latest_build, show_build
from appkit.model_picker import model_options
from appkit.reader import page_reader
from appkit.resources import open_index
from appkit.startup import load_libraries
from appkit.uploads import UPLOAD_TYPES, index_name, save_upload, upload_folder

st.set_page_config(page_title="Index · BERTScope", layout="wide")
st.title("Indexes")
load_libraries()
from common.jobs import JobRunner  # noqa: E402  (after the title: see appkit/startup.py)
from indexer import PRESETS, jobs  # noqa: E402

config = AppConfig.from_env()
reader = page_reader(config)  # the counts below are what this reader may see

indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)}
index = None
if indexes:
    name = st.selectbox("Index", list(indexes), key="index-choice",
                        index=default_position(list(indexes), config.default_index))
    index = open_index(indexes[name])  # a damaged one gets a message; building still works
else:
    st.info(f"No index under {config.index_root} yet; build one below.")
if index is not None:
    stats = call_or_stop(index.stats, readers=reader.readers, what="Cannot read the index")
    cols = st.columns(4)
    cols[0].metric("Documents", f"{stats.documents:,}")
    cols[1].metric("Chunks", f"{stats.chunks:,}")
    cols[2].metric(*index.storage(), help=stats.path)
    if reader.readers is None:  # skipped rows name corpus rows, whoever may read them
        cols[3].metric("Skipped rows", f"{len(stats.skipped):,}")
    st.markdown(f"**Model** `{stats.model}` on `{stats.backend}` (fidelity "
                f"{fidelity_text(stats.backend, stats.fidelity)}) · **preset** `{stats.preset}` "
                f"(`{stats.faiss_spec}`) · **dimension** {stats.dim} · "
                f"**built** {stats.built_at}" + (f" · updated {stats.updated_at}"
                                                 if stats.updated_at else ""))
    if reader.readers is not None:
        st.caption("Documents and chunks are those this reader may see. The build's skipped "
                   "rows and notes name rows and files whatever their access: they are shown "
                   "only where the app runs without a keys file.")
    elif stats.skipped:
        with st.expander(f"{len(stats.skipped)} skipped rows"):
            st.dataframe(pd.DataFrame([vars(s) for s in stats.skipped]), hide_index=True)
    with st.expander("All statistics"):
        st.json(stats.to_dict() if reader.readers is None else
                {k: v for k, v in stats.to_dict().items() if k not in ("skipped", "notes")})

offer_chinese_index(config)  # one button where the Chinese default index is absent

st.divider()
offer_documents(config, model_options(config))  # upload files or sync a folder, as a job

st.divider()
st.subheader("Build a new index")
st.caption(JOB_NOTE)
source = st.radio("Corpus", ["A file on the server", "Upload a file"], horizontal=True,
                  key="build-source")
if source == "A file on the server":
    if problem := data_folder_problem(config.data_root):
        st.warning(problem)
    else:
        st.caption(server_data_note(config.data_root, "corpus files"))
    typed = st.text_input(f"Path inside {config.data_root}", key="build-path",
                          help="A .jsonl/.csv/.tsv/.parquet/.json file, a BEIR folder, or a "
                               "folder of .txt/.md files.")
    upload = None
else:
    typed = ""
    upload = st.file_uploader(f"Corpus file (up to {config.upload_limit_mb} MB)",
                              type=list(UPLOAD_TYPES), max_upload_size=config.upload_limit_mb,
                              key="build-upload")
new_name = st.text_input(f"Name of the new index (a folder under {config.index_root})",
                         key="build-name")
options = model_options(config)
model_label = st.selectbox("Model", list(options), key="build-model")
preset = st.selectbox("FAISS preset", ["auto", *(p for p in PRESETS if p != "auto")],
                      key="build-preset", help="See indexer/README.md; auto picks by size.")

runner = JobRunner()
try:  # the named index's last build, if any (a bad name is said when Build is pressed)
    named = config.index_root / index_name(new_name) if new_name.strip() else None
except ValueError:
    named = None
job = latest_build(runner, named) if named is not None else None
if job is not None and job.active:
    show_build(runner, job, named)  # its bar, a disabled button and Cancel, until it ends
    st.stop()
if not st.button("Build", type="primary", key="build-go"):
    if job is not None:
        show_build(runner, job, named)
    st.stop()
out_name = call_or_stop(index_name, new_name)
out = config.index_root / out_name
if out.exists():
    st.error(f"{out} already exists; choose another name.")
    st.stop()
if upload is not None:
    corpus = call_or_stop(save_upload, upload.name, upload.getvalue(), config.upload_limit_mb,
                          upload_folder(out_name))
elif typed.strip():
    corpus = call_or_stop(confine_path, config.data_root, typed)
else:
    st.info("Choose a corpus first: a path on the server or an uploaded file.")
    st.stop()
call_or_stop(runner.submit, jobs.build_job(corpus, out, options[model_label], ("--index", preset)),
             what="Cannot start the build")
st.rerun()
