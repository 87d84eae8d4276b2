"""`StageBar`: build progress on stderr for the CLI."""

from __future__ import annotations

import sys


class StageBar:
    """Progress on stderr: a line as each stage starts, and a tqdm bar over the chunks while
    encoding (chunks, not documents: one huge document still moves the bar)."""

    STARTS = {"chunk": "chunking {total:,} documents…",
              "index": "indexing {total:,} chunks…", "save": "saving…"}

    def __init__(self) -> None:
        self.bar = None
        self.stage = None

    def __call__(self, p) -> None:
        from tqdm import tqdm

        if p.stage != self.stage:
            if self.bar is not None:
                self.bar.close()
                self.bar = None
            self.stage = p.stage
            if p.stage in self.STARTS:
                print(self.STARTS[p.stage].format(total=p.total), file=sys.stderr, flush=True)
            if p.stage == "encode":
                self.bar = tqdm(total=p.chunks_total, desc="encode", unit="chunk",
                                file=sys.stderr, dynamic_ncols=True)
        if self.bar is not None:
            self.bar.n = p.chunks
            self.bar.set_postfix_str(f"{p.done:,}/{p.total:,} docs"
                                     + (f", {p.resumed:,} resumed" if p.resumed else ""),
                                     refresh=False)
            self.bar.refresh()


class ChunkBar:
    """`index.add/upsert(progress=ChunkBar())`: a tqdm bar over the chunks being embedded."""

    def __init__(self) -> None:
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, desc="encode", unit="chunk", file=sys.stderr,
                            dynamic_ncols=True)
        self.bar.n = done
        self.bar.refresh()
        if done >= total:
            self.bar.close()
