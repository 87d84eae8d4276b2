"""The Index page's "Your documents": upload files (many at once: PDF, web pages, Word,
Markdown, text) or name a folder on the server, and a sync job (`indexer.jobs.sync_job`, in its
own process) builds the index on its first run and brings it up to date on later ones, with
its progress and, once done, each file it could not read and why. Uploads are kept in
`$BERTSCOPE_HOME/documents/<index name>/`, so files uploaded later join the same index."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from common import bertscope_home

from .config import AppConfig
from .confine import confine_path, data_folder_problem, server_data_note
from .guard import call_or_stop
from .links import offer_search_on
from .uploads import index_name, safe_name

DOCUMENT_TYPES = ("pdf", "html", "htm", "docx", "pptx", "epub", "md", "markdown", "txt", "png",
                  "jpg", "jpeg", "tif", "tiff")
JOB_NOTE = ("The sync runs as a job in its own process: leaving this page does not stop it. "
            "Its first run builds the index; later runs add new files, re-encode changed ones, "
            "remove deleted ones and leave the rest as they are. In a terminal, "
            "`python -m indexer sync FOLDER INDEX` does the same.")


def uploads_folder(name: str) -> Path:
    """Where the files uploaded for index `name` are kept."""
    return bertscope_home("documents") / name


def save_documents(files: list[tuple[str, bytes]], folder: Path, limit_mb: int) -> list[str]:
    """Write uploaded (name, bytes) into `folder` under safe names; refuse a file over
    `limit_mb` or of a type no reader takes (nothing written then). Returns the names."""
    names = []
    for name, data in files:
        if len(data) > limit_mb * 2**20:
            raise ValueError(f"{name} is {len(data) / 2**20:.1f} MB; the upload limit is "
                             f"{limit_mb} MB.")
        ext = Path(name).suffix.lower().lstrip(".")
        if ext not in DOCUMENT_TYPES:
            raise ValueError(f"{name}: not a document this app reads; use "
                             f"{', '.join(DOCUMENT_TYPES)}.")
        names.append(safe_name(name))
    folder.mkdir(parents=True, exist_ok=True)
    for safe, (_, data) in zip(names, files, strict=True):
        (folder / safe).write_bytes(data)
    return names


def sync_outcome(log: str) -> None:
    """What the last sync did, as its command said it: the summary line (files added, updated,
    removed, unchanged), each file it could not read and why, each file read with a note."""
    from indexer import jobs

    summary = jobs.sync_summary(log)
    if summary:
        st.markdown(f"**Sync:** {summary}")
    failed = jobs.failed_files(log)
    if failed:
        st.warning(f"{len(failed)} files could not be read (the rest is indexed):")
        st.dataframe([{"file": f, "reason": r} for f, r in failed], hide_index=True)
    noted = jobs.noted_files(log)
    if noted:
        st.info(f"{len(noted)} files were read with something left out:")
        st.dataframe([{"file": f, "note": n} for f, n in noted], hide_index=True)


def offer_documents(config: AppConfig, models: dict[str, str]) -> None:
    """Upload documents or choose a server folder, and sync an index with them as a job."""
    from common.jobs import JobRunner, JobState
    from indexer import jobs

    from .jobs import show_job, watch_job

    st.subheader("Your documents")
    st.caption("PDF, web pages, Word, PowerPoint, EPUB, Markdown and text files, and scans (PNG, "
               "JPEG, TIFF; PDF pages with no text layer) read by OCR: one document a file, "
               "chunks within one page or section, every hit cited by file, page and section. "
               + JOB_NOTE)
    source = st.radio("Documents", ["Upload files", "A folder on the server"], horizontal=True,
                      key="docs-source")
    uploads = typed = None
    if source == "Upload files":
        uploads = st.file_uploader(f"Files (up to {config.upload_limit_mb} MB each)",
                                   type=list(DOCUMENT_TYPES), accept_multiple_files=True,
                                   max_upload_size=config.upload_limit_mb, key="docs-upload")
    else:
        if problem := data_folder_problem(config.data_root):
            st.warning(problem)
        else:
            st.caption(server_data_note(config.data_root, "folders of documents"))
        typed = st.text_input(f"Folder inside {config.data_root}", key="docs-path")
    name = st.text_input(f"Index to sync (a new or existing folder under {config.index_root})",
                         key="docs-name")
    model_label = st.selectbox("Model (a new index's)", list(models), key="docs-model")
    runner = JobRunner()
    out = None
    if name.strip():
        out = config.index_root / call_or_stop(index_name, name)
        job = runner.latest(jobs.sync_job(".", out).key)
        if job is not None and job.active:
            watch_job(job.id, "Syncing…")
            return
        if job is not None:
            show_job(runner, job)
            if job.state is JobState.DONE and (out / "manifest.json").is_file():
                offer_search_on(out.name, key=f"search-synced-{job.id}")
            sync_outcome(job.log_tail(10_000, max_bytes=2_000_000))
    if not st.button("Sync", type="primary", key="docs-go"):
        return
    if out is None:
        st.info("Name the index first.")
        return
    if uploads:
        folder = uploads_folder(out.name)
        call_or_stop(save_documents, [(f.name, f.getvalue()) for f in uploads], folder,
                     config.upload_limit_mb)
    elif typed and typed.strip():
        folder = call_or_stop(confine_path, config.data_root, typed)
        if not folder.is_dir():
            st.error(f"{typed} is not a folder inside {config.data_root}.")
            return
    elif uploads_folder(out.name).is_dir():  # sync what was uploaded before
        folder = uploads_folder(out.name)
    else:
        st.info("Choose files to upload, or a folder on the server, first.")
        return
    runner.submit(jobs.sync_job(folder, out, models[model_label]))
    st.rerun()
