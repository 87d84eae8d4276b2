"""Fourth-round bad input to adapt and the models it publishes (issue 52, class 6 and the
newcomer's dev split): an index named relative to another directory, section headings, pairs
that repeat sentences, an --out inside the index, and a model whose outputs are NaN."""

from __future__ import annotations

import json
import shutil

from .probe import Case, call, cli


# -- training: adapt, a dev split --------------------------------------------------------------
def _relative_index(ws):
    from training.adapt_source import index_documents

    scratch = ws.root / "adapt-scratch"
    scratch.mkdir(exist_ok=True)
    source = index_documents("idx", scratch)  # the probe runs in W: W/idx, not the checkout's
    assert len(source.documents) == 6, source.description
    return source.description


def _headings(ws):
    from indexer import build_index
    from training.adapt_pairs import make_pairs
    from training.adapt_source import index_documents

    from .cases_library import shared_minilm

    folder = ws.root / "adapt-docs"
    folder.mkdir(exist_ok=True)
    (folder / "guide.md").write_text("# Guide\n\n## Installing on Linux\n\nRun the installer "
                                     "with sudo and reboot.\n\n## Removing the app\n\nDelete "
                                     "the folder and clear the cache.\n")
    target = ws.root / "adapt-docs-idx"
    if not target.exists():
        build_index(str(folder), target, model=shared_minilm(), preset="flat")
    scratch = ws.root / "adapt-scratch2"
    scratch.mkdir(exist_ok=True)
    pairs = make_pairs(index_documents(target, scratch).documents, ["heading"])
    assert sorted(p.anchor for p in pairs) == ["Installing on Linux", "Removing the app"], pairs
    return [(p.anchor, p.positive[:30]) for p in pairs]


def _repeating(ws, groups: bool):
    from training.run_plan import dev_split_sizes

    if groups:  # connected groups of 50, 5, 3 and 2 pairs
        rows = [{"sentence1": f"{g}{i % n}", "sentence2": f"{g}{(i + 1) % n}", "score": 1}
                for g, size, n in (("a", 50, 10), ("b", 5, 5), ("c", 3, 3), ("d", 2, 2))
                for i in range(size)]
    else:  # 60 pairs over 20 sentences: one connected group
        rows = [{"sentence1": f"s{i % 20}", "sentence2": f"s{(i + 3) % 20}", "score": i % 5}
                for i in range(60)]
    path = ws.root / f"repeating-{groups}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return dev_split_sizes(path, 12, cache=ws.root / "split-cache")


def training_cases() -> list[Case]:
    lib = "training library"
    adapt = "python -m training adapt"
    version = "{W}/idx/v000001"  # a folder inside the index (its version folders' parent)

    def adapting(bad, *argv, names=(), note=""):
        return Case(adapt, bad, cli("training", "adapt", "--index", "{W}/idx", *argv,
                                    "--no-progress"), 2, note, names)

    return [
        Case(lib, "index_documents('idx') (relative) from another directory",
             call(_relative_index), "accepted",
             "the caller's W/idx (the export ran in the checkout and read its index)"),
        Case(lib, "adapt pairs of a Markdown folder's index (headings only in its layout)",
             call(_headings), "accepted",
             "heading pairs from the sections the readers record (none before)"),
        Case(lib, "dev_split_sizes of 60 pairs over 20 repeated sentences",
             call(lambda ws: _repeating(ws, groups=False)), names=("connected group",),
             note="refused before training (the run failed 18 s in: 'train.jsonl: no rows')"),
        Case(lib, "dev_split_sizes where one group holds 50 of 60 pairs",
             call(lambda ws: _repeating(ws, groups=True)), "accepted",
             "(50, 10): training keeps its rows"),
        adapting("--lr 1e9 (diverges)", "--out", "{W}/runs/adapt-nan", "--lr", "1e9",
                 "--batch-size", "2", "--max-length", "32", names=("diverged", "--lr"),
                 note="nothing saved (it saved a NaN model and exited 0)"),
        adapting("--out inside the index folder", "--out", f"{version}/adapted",
                 names=("inside the index",), note="an index write would delete the model"),
        adapting("--out the index folder itself", "--out", "{W}/idx",
                 names=("inside the index",)),
    ]


def nan_model_cases() -> list[Case]:
    def build_with_nan(ws):
        import torch
        from sentence_transformers import SentenceTransformer

        from encoder import load_encoder
        from indexer import build_index

        folder = ws.root / "nan-model"
        if not folder.exists():
            shutil.copytree(load_encoder("minilm").info.path, folder)
            model = SentenceTransformer(str(folder), device="cpu")
            with torch.no_grad():
                next(model.parameters()).fill_(float("nan"))
            model.save(str(folder))
        return build_index(ws.root / "corpus.jsonl", ws.root / "nan-idx",
                           model=load_encoder(folder, backend="torch"), preset="flat")

    return [Case("indexer library", "build_index() with a model whose outputs are NaN",
                 call(build_with_nan), names=("not finite numbers", "nothing was indexed"),
                 note="a diverged fine-tune's vectors were published")]
