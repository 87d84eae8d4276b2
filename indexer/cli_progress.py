"""`StageBar`: build progress on stderr for the CLI (and, in a job, in its progress file)."""

from __future__ import annotations

import sys

from common.jobs import job_progress_file


class StageBar:
    """Progress on stderr: a line as each stage starts, and a tqdm bar over the chunks while
    encoding (chunks, not documents: one huge document still moves the bar).

    The bar's rate counts only chunks encoded while it is shown: the first report already
    carries a batch (and, on a resumed build, shards read back from disk), so the bar starts at
    that count (tqdm's `initial`) instead of crediting it all to the first millisecond.
    """

    STARTS = {"load": "loading the model (its first use here exports it for the fast backend: "
                      "minutes, with no count to show; later loads take seconds)…",
              "chunk": "chunking {total:,} documents…",
              "save": "saving…"}
    UNITS = {"read": "files", "chunk": "documents", "encode": "documents", "tokenize": "chunks",
             "index": "chunks"}
    COUNTED = {"tokenize": "tokenize (BM25)", "index": "index (FAISS)"}  # bars of done/total
    PHASES = {"load": "loading the model (a first use exports it)"}

    def __init__(self) -> None:
        self.bar = None
        self.stage = None
        self.resumed = 0
        self.job = job_progress_file()  # None outside a job

    def __call__(self, p) -> None:
        from tqdm import tqdm

        if self.job is not None:  # a stage of unknown length says so: no count, no estimate
            self.job(p.done, p.total or None, unit=self.UNITS.get(p.stage, ""),
                     phase=self.PHASES.get(p.stage, p.stage), eta_s=p.eta_s)
        if p.stage != self.stage:
            if self.bar is not None:
                self.bar.close()
                self.bar = None
            self.stage = p.stage
            if p.stage in self.STARTS:
                print(self.STARTS[p.stage].format(total=p.total), file=sys.stderr, flush=True)
            if p.stage == "encode":
                self.bar = tqdm(total=p.chunks_total, initial=p.chunks, desc="encode",
                                unit="chunk", file=sys.stderr, dynamic_ncols=True)
                self.resumed = p.resumed
            elif p.stage in self.COUNTED and p.total:
                self.bar = tqdm(total=p.total, desc=self.COUNTED[p.stage], unit="chunk",
                                file=sys.stderr, dynamic_ncols=True)
        if self.bar is not None and p.stage in self.COUNTED:
            self.bar.n = p.done
            self.bar.refresh()
        elif self.bar is not None:
            if p.chunks_total and p.chunks_total != self.bar.total:  # a sync's grows a batch
                self.bar.total = p.chunks_total                        # at a time
            if p.resumed != self.resumed:  # a shard read back from disk: not this run's speed
                self.bar.initial += p.chunks - self.bar.n
                self.resumed = p.resumed
            self.bar.n = p.chunks
            self.bar.set_postfix_str(f"{p.done:,}/{p.total:,} docs"
                                     + (f", {p.resumed:,} resumed" if p.resumed else ""),
                                     refresh=False)
            self.bar.refresh()


class ChunkBar:
    """`index.add/upsert(progress=ChunkBar())`: a tqdm bar over the chunks being embedded
    (starting at the first report's count, as `StageBar` does, so its rate is not absurd)."""

    def __init__(self) -> None:
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, initial=done, desc="encode", unit="chunk",
                            file=sys.stderr, dynamic_ncols=True)
        self.bar.n = done
        self.bar.refresh()
        if done >= total:
            self.bar.close()
