"""Bad inputs to the libraries: `indexer`, `training`, `encoder` calls with wrong types, None or
numbers as paths, typos in option names, values out of range."""

from __future__ import annotations

import math
from datetime import date

from .cases_indexer_odd import library_cases
from .probe import Case, call

ENC: dict = {}  # one minilm for every encoder case


def shared_minilm():
    if "minilm" not in ENC:
        from encoder import load_encoder

        ENC["minilm"] = load_encoder("minilm")
    return ENC["minilm"]


def _ix(ws):
    from indexer import SemanticIndex

    return SemanticIndex.open(ws.fresh(), encoder=shared_minilm())


def _lib(entry: str):
    def make(bad: str, fn, expect: str = "refused", note: str = "") -> Case:
        return Case(entry, bad, call(fn), expect, note)

    return make


def _build(**kw):
    from indexer import build_index

    def run(ws):
        args = {"corpus": [{"id": "a", "text": "x"}], "out": ws.root / "lib-out",
                "model": shared_minilm(), **kw}
        return build_index(args.pop("corpus"), args.pop("out"), **args)

    return run


def _options(**kw):
    from indexer import CorpusOptions, read_corpus

    return lambda ws: read_corpus(ws.root / "corpus.jsonl", CorpusOptions(**kw))


i = _lib("indexer library")
INDEXER = [
    i("SemanticIndex.open(None)", lambda ws: __import__("indexer").SemanticIndex.open(None)),
    i("SemanticIndex.open(42)", lambda ws: __import__("indexer").SemanticIndex.open(42)),
    i("read_corpus(None)", lambda ws: __import__("indexer").read_corpus(None)),
    i("read_corpus(path, {'text_field': 'body'}) (a dict, not CorpusOptions)",
      lambda ws: __import__("indexer").read_corpus(ws.root / "corpus.jsonl",
                                                   {"text_field": "body"})),
    i("CorpusOptions(metadata_fields='category') (a string)", _options(metadata_fields="category")),
    i("CorpusOptions(on_error='ignore')", _options(on_error="ignore")),
    i("CorpusOptions(format='xml')", _options(format="xml")),
    i("CorpusOptions(id_field='uid') on rows with 'id'", _options(id_field="uid")),
    i("CorpusOptions(metadata_fields=('categry',))", _options(metadata_fields=("categry",))),
    i("CorpusOptions(text_field=None)", _options(text_field=None)),
    i("build_index(docs, None)", _build(out=None)),
    i("build_index(None, out)", _build(corpus=None)),
    i("build_index(a dict, out) (one document, not a list)",
      _build(corpus={"id": "a", "text": "x"})),
    i("build_index(..., model=None)", _build(model=None)),
    i("build_index(..., preset='fast')", _build(preset="fast")),
    i("build_index(..., batch_size=0)", _build(batch_size=0)),
    i("build_index(..., shard_size=0)", _build(shard_size=0)),
    i("build_index(..., progress='bar')", _build(progress="bar")),
    i("build_index(..., chunking={'overlap': 8}) (a dict)", _build(chunking={"overlap": 8})),
    i("ChunkingConfig(overlap=-1)", lambda ws: __import__("indexer").ChunkingConfig(overlap=-1)),
    i("build_index(..., bm25={'k1': 1.2}) (a dict)", _build(bm25={"k1": 1.2})),
    i("Bm25Params(b=1.5)", lambda ws: __import__("indexer").Bm25Params(b=1.5)),
    i("build_index with a document whose text is None",
      _build(corpus=[{"id": "a", "text": None}])),
    i("build_index with a document dict keyed 'body'", _build(corpus=[{"id": "a", "body": "x"}])),
    i("index.delete('oil-1') (a string, not a list)", lambda ws: _ix(ws).delete("oil-1")),
    i("index.delete(None)", lambda ws: _ix(ws).delete(None)),
    i("index.add([{'id': None, 'text': 'x'}])",
      lambda ws: _ix(ws).add([{"id": None, "text": "x"}])),
    i("index.add([{'id': 'n', 'text': ''}])", lambda ws: _ix(ws).add([{"id": "n", "text": ""}])),
    i("index.add({'id': 'n', 'text': 'x'}) (a dict, not a list)",
      lambda ws: _ix(ws).add({"id": "n", "text": "x"})),
    i("index.add of an id that exists", lambda ws: _ix(ws).add([{"id": "oil-1", "text": "x"}])),
    i("index.upsert with metadata {'when': date(2024, 1, 2)}",
      lambda ws: _ix(ws).upsert([{"id": "n", "text": "x",
                                  "metadata": {"when": date(2024, 1, 2)}}])),
    i("index.upsert with metadata {'score': nan}",
      lambda ws: _ix(ws).upsert([{"id": "n", "text": "x", "metadata": {"score": math.nan}}])),
    i("index.search('oil', mode='hybrid', weights=(nan, 1))",
      lambda ws: _ix(ws).search("oil", mode="hybrid", weights=(math.nan, 1))),
    i("index.search('oil', mode='hybrid', weights=(0, 0))",
      lambda ws: _ix(ws).search("oil", mode="hybrid", weights=(0, 0))),
    i("index.search('oil', rrf_k='60')", lambda ws: _ix(ws).search("oil", rrf_k="60")),
    i("index.search('oil', k=2.5)", lambda ws: _ix(ws).search("oil", k=2.5)),
    i("index.search('oil', per_chunk='no')", lambda ws: _ix(ws).search("oil", per_chunk="no")),
    i("index.search(None)", lambda ws: _ix(ws).search(None)),
    i("index.search(['oil', 3])", lambda ws: _ix(ws).search(["oil", 3])),
    i("index.search('oil', filter='category=tech')",
      lambda ws: _ix(ws).search("oil", filter="category=tech")),
    i("index.search('oil', nprobe=8) on a flat index", lambda ws: _ix(ws).search("oil", nprobe=8)),
    i("index.field_values('category', limit=0)",
      lambda ws: _ix(ws).field_values("category", limit=0)),
    i("index.field_values(None)", lambda ws: _ix(ws).field_values(None)),
    i("index.document(None)", lambda ws: _ix(ws).document(None)),
    i("index.document('nope')", lambda ws: _ix(ws).document("nope")),
    i("rrf([['a']], k=-1)", lambda ws: __import__("indexer").rrf([["a"]], k=-1)),
    i("SemanticIndex.open(idx, encoder='minilm') (a name, not an Encoder)",
      lambda ws: __import__("indexer").SemanticIndex.open(ws.fresh(), encoder="minilm")),
    i("SemanticIndex.open of a 300-character name",
      lambda ws: __import__("indexer").SemanticIndex.open(ws.root / ("x" * 300))),
    i("build_index([], out) (no documents)", _build(corpus=[])),
    i("index.search('oil', filter={'year': nan})",
      lambda ws: _ix(ws).search("oil", filter={"year": math.nan})),
    i("read_corpus(a .jsonl, CorpusOptions(format='csv'))", _options(format="csv")),
    i("build_index(..., backend='fast')", _build(model="minilm", backend="fast")),
    i("build_index(..., backend=None)", _build(model="minilm", backend=None)),
    i("build_index(an Encoder, backend= another than it runs)",
      lambda ws: _build(backend=next(b for b in ("onnx", "torch")
                                     if b != shared_minilm().backend))(ws)),
    i("SemanticIndex.open(idx, backend='onnx8')",
      lambda ws: __import__("indexer").SemanticIndex.open(ws.fresh(), backend="onnx8")),
    i("SemanticIndex.open(idx, backend=3)",
      lambda ws: __import__("indexer").SemanticIndex.open(ws.fresh(), backend=3)),
    i("SemanticIndex.open(idx, encoder=minilm, backend='torch') (both)",
      lambda ws: __import__("indexer").SemanticIndex.open(ws.fresh(), encoder=shared_minilm(),
                                                          backend="torch")),
    i("rebuild_index(idx, out, model='minilm', backend='ONNX')",
      lambda ws: __import__("indexer").rebuild_index(ws.fresh(), ws.root / "lib-rebuilt",
                                                     model="minilm", backend="ONNX")),
    i("default_index(out, backend='gpu')",
      lambda ws: __import__("indexer").default_index(ws.root / "lib-bbc", backend="gpu")),
]

t = _lib("training library")


def _cfg(**kw):
    from training import FitConfig, Stage

    base = {"model": "minilm", "stages": (Stage(("W/sts.jsonl",), "cosine"),), "out": "W/o"}
    return FitConfig(**{**base, **kw})


def _fit(**kw):
    from training import fit

    return lambda ws: fit(_cfg(**kw))


def _stage(*args):
    from training import Stage

    return Stage(*args)


TRAINING = [
    t("load_pairs(None)", lambda ws: __import__("training").load_pairs(None)),
    t("load_pairs(3)", lambda ws: __import__("training").load_pairs(3)),
    t("load_pairs(path, kind='pairs')",
      lambda ws: __import__("training").load_pairs(ws.root / "sts.jsonl", kind="pairs")),
    t("load_pairs(path, score_range=(5, 0))",
      lambda ws: __import__("training").load_pairs(ws.root / "sts.jsonl", score_range=(5, 0))),
    t("load_pairs of a 0-1 file", lambda ws: __import__("training").load_pairs(
        ws.root / "sts01.jsonl").score_max, expect="accepted",
      note="score_max 1.0: the cosine loss keeps the scores"),
    t("load_sts of a file with one gold score",
      lambda ws: __import__("training").load_sts(ws.root / "const.jsonl")),
    t("get_loss('huber')", lambda ws: __import__("training").get_loss("huber")),
    t("build_siamese('minilm', pooling='sum')",
      lambda ws: __import__("training").build_siamese("minilm", pooling="sum")),
    t("build_siamese(None)", lambda ws: __import__("training").build_siamese(None)),
    t("fit({'model': 'minilm'}) (a dict)", lambda ws: __import__("training").fit({"m": 1})),
    t("FitConfig(stages=Stage(...)) (not a tuple)", _fit(stages=_stage(("a",), "cosine"))),
    t("Stage(train='a.jsonl') (a string)", _fit(stages=(_stage("a.jsonl", "cosine"),))),
    t("Stage(epochs=nan)", _fit(stages=(_stage(("a",), "cosine", math.nan),))),
    t("Stage(epochs=-1)", _fit(stages=(_stage(("a",), "cosine", -1),))),
    t("Stage(loss=None)", _fit(stages=(_stage(("a",), None),))),
    t("FitConfig(batch_size='16')", _fit(batch_size="16")),
    t("FitConfig(learning_rate=inf)", _fit(learning_rate=math.inf)),
    t("FitConfig(seed=2**40)", _fit(seed=2**40)),
    t("FitConfig(warmup_ratio=1.5)", _fit(warmup_ratio=1.5)),
    t("FitConfig(max_seq_length=0)", _fit(max_seq_length=0)),
    t("FitConfig(stages=())", _fit(stages=())),
    t("FitConfig(pooling='sum')", _fit(pooling="sum")),
    t("evaluate_model('minilm', sts='a.jsonl') (a string)",
      lambda ws: __import__("training.evaluate").evaluate.evaluate_model("minilm", sts="a.jsonl")),
    t("evaluate_model(None)",
      lambda ws: __import__("training.evaluate").evaluate.evaluate_model(None)),
    t("evaluate_model('minilm', batch_size=0)", lambda ws: __import__(
        "training.evaluate").evaluate.evaluate_model("minilm", batch_size=0)),
    t("evaluate_model('minilm', sts=[...], backend='gpu')", lambda ws: __import__(
        "training.evaluate").evaluate.evaluate_model("minilm", sts=[str(ws.root / "sts.jsonl")],
                                                     backend="gpu")),
    t("evaluate_model('minilm', sts=[...], backend=None)", lambda ws: __import__(
        "training.evaluate").evaluate.evaluate_model("minilm", sts=[str(ws.root / "sts.jsonl")],
                                                     backend=None)),
]

e = _lib("encoder library")
ENCODER = [
    e("load_encoder(None)", lambda ws: __import__("encoder").load_encoder(None)),
    e("load_encoder(7)", lambda ws: __import__("encoder").load_encoder(7)),
    e("load_encoder('')", lambda ws: __import__("encoder").load_encoder("")),
    e("load_encoder('MiniLM') (wrong case, offline)",
      lambda ws: __import__("encoder").load_encoder("MiniLM")),
    e("load_encoder(a folder that is not a model)",
      lambda ws: __import__("encoder").load_encoder(ws.root / "empty")),
    e("load_encoder('./no-model') (a path that does not exist)",
      lambda ws: __import__("encoder").load_encoder(str(ws.root / "no-model"))),
    e("load_encoder(a file)", lambda ws: __import__("encoder").load_encoder(ws.root / "file.txt")),
    e("load_encoder('minilm', backend='ONNX') (wrong case)",
      lambda ws: __import__("encoder").load_encoder("minilm", backend="ONNX")),
    e("load_encoder('minilm', backend='int8')",
      lambda ws: __import__("encoder").load_encoder("minilm", backend="int8")),
    e("load_encoder('minilm', backend=None)",
      lambda ws: __import__("encoder").load_encoder("minilm", backend=None)),
    e("load_encoder('minilm', backend='')",
      lambda ws: __import__("encoder").load_encoder("minilm", backend="")),
    e("load_encoder('minilm', backend=1)",
      lambda ws: __import__("encoder").load_encoder("minilm", backend=1)),
    e("check_backend('auto', allow_auto=False) (an index records a real backend)",
      lambda ws: __import__("encoder").check_backend("auto", allow_auto=False)),
    e("query_backend_error('gpu', 1.0, encoder) (an unknown index backend)",
      lambda ws: __import__("encoder").query_backend_error("gpu", 1.0, shared_minilm()),
      expect="accepted", note="returns the message that refuses the query"),
    e("encode(None)", lambda ws: shared_minilm().encode(None)),
    e("encode([])", lambda ws: shared_minilm().encode([]).shape, expect="accepted",
      note="an empty (0, 384) array"),
    e("encode(['ok', ''])", lambda ws: shared_minilm().encode(["ok", ""])),
    e("encode(['ok', 3])", lambda ws: shared_minilm().encode(["ok", 3])),
    e("encode('x', batch_size=0)", lambda ws: shared_minilm().encode("x", batch_size=0)),
    e("encode('x', prompt='qurey')", lambda ws: shared_minilm().encode("x", prompt="qurey")),
    e("encode(b'bytes')", lambda ws: shared_minilm().encode(b"bytes")),
    e("inspect('')", lambda ws: shared_minilm().inspect("")),
    e("inspect(None)", lambda ws: shared_minilm().inspect(None)),
    e("inspect('a', text_pair=5)", lambda ws: shared_minilm().inspect("a", 5)),
    e("word_trajectory([], 'apple')", lambda ws: shared_minilm().word_trajectory([], "apple")),
    e("word_trajectory(['an apple'], 'pear')",
      lambda ws: shared_minilm().word_trajectory(["an apple", "a pie"], "pear")),
    e("word_trajectory('an apple', 'apple') (a string)",
      lambda ws: shared_minilm().word_trajectory("an apple", "apple")),
    e("word_trajectory(['an apple', 'apples'], '')",
      lambda ws: shared_minilm().word_trajectory(["an apple", "apples"], "")),
    e("explain(a, b, steps=5000)", lambda ws: shared_minilm().explain("a cat", "a dog", steps=5000),
      note="refused at once, naming the bound (it ran for minutes)"),
    e("explain(a, b, steps=10**6)", lambda ws: shared_minilm().explain("a cat", "a dog",
                                                                  steps=10**6),
      note="refused at once (Gauss-Legendre asked for 7 TiB)"),
    e("explain(two long texts, steps=200) (steps x tokens over the bound)",
      lambda ws: shared_minilm().explain("word " * 100, "text " * 100, steps=200)),
    e("load_beir(None, 'test')", lambda ws: __import__("metrics").load_beir(None, "test")),
    e("ndcg_at_k(run, qrels, k=0)", lambda ws: __import__("metrics")
      .ndcg_at_k({"q": {"d": 1.0}}, {"q": {"d": 1}}, 0)),
]

ODD_INDEXER, ODD_ENCODER = library_cases(i, e, shared_minilm)
ENTRIES = {"indexer library": INDEXER + ODD_INDEXER, "training library": TRAINING,
           "encoder library": ENCODER + ODD_ENCODER}
