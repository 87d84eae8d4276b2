"""Bad inputs to each command of `python -m indexer`, as a careless user types them."""

from __future__ import annotations

from .cases_indexer_documents import document_cases
from .cases_indexer_migrate import migrate_cases
from .cases_indexer_odd import cli_cases
from .cases_indexer_rebuild import rebuild_cases
from .cases_vectors import VECTORS
from .probe import Case, Outcome, cli

M = ["--model", "minilm"]


def _case(command: str):
    def make(bad: str, *argv: str, expect: str | int = "refused", note: str = "") -> Case:
        return Case(f"python -m indexer {command}", bad, cli("indexer", command, *argv),
                    expect, note)

    return make


b = _case("build")
BUILD = [
    b("no flags at all"),
    b("--corpus that does not exist", "--corpus", "{W}/nope.jsonl", "--out", "{W}/o", *M),
    b("--corpus an empty string", "--corpus", "", "--out", "{W}/o", *M),
    b("--corpus a folder with no documents", "--corpus", "{W}/txtless", "--out", "{W}/o", *M),
    b("--corpus with an unknown extension (.xml)", "--corpus", "{W}/notes.xml", "--out",
      "{W}/o", *M),
    b("--corpus an empty .jsonl", "--corpus", "{W}/empty.jsonl", "--out", "{W}/o", *M),
    b("--corpus whose every row is bad", "--corpus", "{W}/bad.jsonl", "--out", "{W}/o", *M),
    b("--corpus .parquet that is not Parquet", "--corpus", "{W}/fake.parquet", "--out", "{W}/o",
      *M),
    b("--corpus CSV with a non-UTF-8 row", "--corpus", "{W}/latin1.csv", "--out", "{W}/o1", *M,
      expect=0, note="the row is skipped and reported as file:line; the rest is indexed"),
    b("--corpus CSV that is empty (no header)", "--corpus", "{W}/noheader.csv", "--out",
      "{W}/o", *M),
    b("--corpus CSV without a text column", "--corpus", "{W}/wrongcols.csv", "--out", "{W}/o",
      *M),
    b("--corpus rows whose text is a number / a list", "--corpus", "{W}/numbers.jsonl", "--out",
      "{W}/o", *M),
    b("--corpus with duplicate ids", "--corpus", "{W}/dupes.jsonl", "--out", "{W}/o2", *M,
      expect=0, note="the later row wins; the count is reported"),
    b("--format csv on a JSONL file", "--corpus", "{W}/corpus.jsonl", "--format", "csv",
      "--out", "{W}/o", *M),
    b("--format xml (not a format)", "--corpus", "{W}/corpus.jsonl", "--format", "xml",
      "--out", "{W}/o", *M),
    b("--id-field uid (typo: the ids are in id)", "--corpus", "{W}/corpus.jsonl", "--id-field",
      "uid", "--out", "{W}/o", *M),
    b("--text-field body (no row has it)", "--corpus", "{W}/corpus.jsonl", "--text-field",
      "body", "--out", "{W}/o", *M),
    b("--title-field headline (no row has it)", "--corpus", "{W}/corpus.jsonl", "--title-field",
      "headline", "--out", "{W}/o", *M),
    b("--metadata-fields categry (typo)", "--corpus", "{W}/corpus.jsonl", "--metadata-fields",
      "categry", "--out", "{W}/o", *M),
    b("--metadata-fields 'category,' (trailing comma)", "--corpus", "{W}/corpus.jsonl",
      "--metadata-fields", "category,", "--out", "{W}/o3", *M, expect=0,
      note="the empty name is dropped"),
    b("--metadata-fields naming a list-valued field", "--corpus", "{W}/nested.jsonl",
      "--metadata-fields", "tags", "--out", "{W}/o", *M),
    b("--on-error ignore", "--corpus", "{W}/corpus.jsonl", "--on-error", "ignore", "--out",
      "{W}/o", *M),
    b("--on-error fail with a bad row", "--corpus", "{W}/bad.jsonl", "--on-error", "fail",
      "--out", "{W}/o", *M),
    b("--index fast (not a preset)", "--corpus", "{W}/corpus.jsonl", "--index", "fast", "--out",
      "{W}/o", *M),
    b("--index ivfpq on 6 documents", "--corpus", "{W}/corpus.jsonl", "--index", "ivfpq",
      "--out", "{W}/o", *M),
    b("--model that does not exist", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/o",
      "--model", "{W}/no-model"),
    b("--model a folder that is not a model", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/o",
      "--model", "{W}/empty"),
    b("--model a file", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/o", "--model",
      "{W}/file.txt"),
    b("--chunk-tokens 4 (too small)", "--corpus", "{W}/corpus.jsonl", "--chunk-tokens", "4",
      "--out", "{W}/o", *M),
    b("--chunk-tokens 100000 (above the model's)", "--corpus", "{W}/corpus.jsonl",
      "--chunk-tokens", "100000", "--out", "{W}/o", *M),
    b("--chunk-tokens abc", "--corpus", "{W}/corpus.jsonl", "--chunk-tokens", "abc", "--out",
      "{W}/o", *M),
    b("--overlap -1", "--corpus", "{W}/corpus.jsonl", "--overlap", "-1", "--out", "{W}/o", *M),
    b("--bm25-k1 -1", "--corpus", "{W}/corpus.jsonl", "--bm25-k1", "-1", "--out", "{W}/o", *M),
    b("--bm25-k1 abc", "--corpus", "{W}/corpus.jsonl", "--bm25-k1", "abc", "--out", "{W}/o",
      *M),
    b("--bm25-b 2 (above 1)", "--corpus", "{W}/corpus.jsonl", "--bm25-b", "2", "--out", "{W}/o",
      *M),
    b("--shard-size 0", "--corpus", "{W}/corpus.jsonl", "--shard-size", "0", "--out", "{W}/o",
      *M),
    b("--batch-size 0", "--corpus", "{W}/corpus.jsonl", "--batch-size", "0", "--out", "{W}/o",
      *M),
    b("--threads 0", "--corpus", "{W}/corpus.jsonl", "--threads", "0", "--out", "{W}/o", *M),
    b("--out below a file", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/file.txt/idx", *M),
    b("--out an empty string", "--corpus", "{W}/corpus.jsonl", "--out", "", *M),
    b("one document of 300 kB on one line", "--corpus", "{W}/huge-line.jsonl", "--out",
      "{W}/o4", *M, expect=0, note="progress: chunk count and ETA move while it encodes"),
    b("--backend fast (not a backend)", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/o", *M,
      "--backend", "fast"),
    b("--backend ONNX (upper case)", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/o", *M,
      "--backend", "ONNX"),
    b("--backend onnx_int8 (underscore)", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/o", *M,
      "--backend", "onnx_int8"),
    b("--backend an empty string", "--corpus", "{W}/corpus.jsonl", "--out", "{W}/o", *M,
      "--backend", ""),
]

s = _case("search")
SEARCH = [
    s("no index given"),
    s("an index folder that does not exist", "{W}/nope", "oil"),
    s("a file instead of an index", "{W}/file.txt", "oil"),
    s("the corpus folder instead of an index", "{W}/noid", "oil"),
    s("an empty query", "{W}/idx", ""),
    s("a query of spaces", "{W}/idx", "   "),
    s("neither a query nor --queries", "{W}/idx"),
    s("a query and --queries", "{W}/idx", "oil", "--queries", "{W}/q/good.jsonl"),
    s("--k 0", "{W}/idx", "oil", "--k", "0"),
    s("--k abc", "{W}/idx", "oil", "--k", "abc"),
    s("--k 1000000 on 6 documents", "{W}/idx", "oil", "--k", "1000000", "--mode", "lexical",
      expect=0, note="returns the 6 there are"),
    s("--mode fuzzy", "{W}/idx", "oil", "--mode", "fuzzy"),
    s("--filter that is not JSON", "{W}/idx", "oil", "--filter", "{category: tech}"),
    s("--filter a JSON list", "{W}/idx", "oil", "--filter", '["tech"]'),
    s("--filter {} (empty)", "{W}/idx", "oil", "--filter", "{}"),
    s("--filter on a field the index lacks", "{W}/idx", "oil", "--filter", '{"categry": "x"}'),
    s("--filter a string on an int field", "{W}/idx", "oil", "--filter", '{"year": "2004"}'),
    s("--filter a range on a text field", "{W}/idx", "oil", "--filter",
      '{"category": {"gte": "a"}}'),
    s("--filter an unknown operator", "{W}/idx", "oil", "--filter",
      '{"category": {"like": "t%"}}'),
    s("--filter 'in' with an empty list", "{W}/idx", "oil", "--filter",
      '{"category": {"in": []}}'),
    s("--knob nprobe=4 on a flat index", "{W}/idx", "oil", "--knob", "nprobe=4"),
    s("--knob without a value", "{W}/idx", "oil", "--knob", "efSearch"),
    s("--knob efSearch=-1", "{W}/idx", "oil", "--knob", "efSearch=-1"),
    s("--queries that does not exist", "{W}/idx", "--queries", "{W}/q/nope.jsonl"),
    s("--queries with 'id' instead of '_id'", "{W}/idx", "--queries", "{W}/q/id.jsonl"),
    s("--queries with 'query' instead of 'text'", "{W}/idx", "--queries", "{W}/q/query.jsonl"),
    s("--queries with a malformed line", "{W}/idx", "--queries", "{W}/q/malformed.jsonl"),
    s("--queries with a line that is a list", "{W}/idx", "--queries", "{W}/q/list.jsonl"),
    s("--queries with a blank query", "{W}/idx", "--queries", "{W}/q/blank-text.jsonl"),
    s("--queries an empty file", "{W}/idx", "--queries", "{W}/q/empty.jsonl"),
    s("--run into a folder that does not exist", "{W}/idx", "--queries", "{W}/q/good.jsonl",
      "--run", "{W}/nope/run.trec"),
    s("--run naming a folder", "{W}/idx", "--queries", "{W}/q/good.jsonl", "--run", "{W}/empty"),
    s("--backend tensorrt (not a backend)", "{W}/idx", "oil", "--backend", "tensorrt"),
    s("--backend int8 (half a name)", "{W}/idx", "oil", "--backend", "int8"),
    s("--backend torch on an index built with auto", "{W}/idx", "oil", "--backend", "torch",
      expect=0, note="auto only picks a backend within the fidelity gate: torch may query it"),
]


def _paths(make, *extra: str, target: str = "{W}/idx") -> list[Case]:
    """The index-path mistakes every command that opens an index can meet."""
    return [
        make("no index path"),
        make("a folder that does not exist", "{W}/nope", *extra),
        make("an empty string", "", *extra),
        make("a file", "{W}/file.txt", *extra),
        make("an empty folder", "{W}/empty", *extra),
        make("the corpus folder", "{W}/noid", *extra),
        make("the index's manifest.json instead of its folder", f"{target}/manifest.json",
             *extra),
        make("a folder inside the index", f"{target}/bm25-000001", *extra),
        make("a BEIR folder", "{W}/beir", *extra),
        make("a training run folder", "{W}/runs/finished", *extra),
        make("a path below a file", "{W}/file.txt/idx", *extra),
        make("a URL", "http://example.com/idx", *extra),
        make("an unexpanded glob", "{W}/id*", *extra),
        make("a name longer than the file system allows", "{W}/" + "x" * 300, *extra),
        make("two index paths", target, target, *extra),
        make("an unknown flag", target, "--verbose", *extra),
    ]


i = _case("info")
INFO = [*_paths(i),
        i("--json (the output is JSON already)", "{W}/idx", "--json"),
        i("a relative path that leads nowhere (../idx)", "../idx"),
        i("the workspace root", "{W}"),
        i("a hidden build folder name", "{W}/.build-x")]

x = _case("export")
OUT_JSONL = ("--out", "{W}/exported.jsonl")
EXPORT = [*_paths(x, *OUT_JSONL),
          x("no --out", "{W}/idx"),
          x("--out an existing folder", "{W}/idx", "--out", "{W}/empty"),
          x("--out below a file", "{W}/idx", "--out", "{W}/file.txt/docs.jsonl"),
          x("--out in a folder that does not exist", "{W}/idx", "--out", "{W}/nope/docs.jsonl"),
          x("--out an empty string", "{W}/idx", "--out", ""),
          x("--out the index's own manifest.json", "{W}/idx", "--out", "{W}/idx/manifest.json")]


def _two_exports(ws) -> Outcome:
    """`add` of d1/new.jsonl, then of d2/new.jsonl (same file name, no ids), to one index."""
    from indexer import SemanticIndex

    idx = str(ws.fresh())
    cli("indexer", "add", idx, "--corpus", "{W}/noid/d1/new.jsonl")(ws)
    second = cli("indexer", "add", idx, "--corpus", "{W}/noid/d2/new.jsonl")(ws)
    second.message += f" (the index now holds {len(SemanticIndex.open(idx))} documents: 6+2+2)"
    return second


a = _case("add")
ADD = [
    a("no index and no --corpus"),
    a("an index folder that does not exist", "{W}/nope", "--corpus", "{W}/corpus.jsonl"),
    a("a file as the index", "{W}/file.txt", "--corpus", "{W}/corpus.jsonl"),
    a("an empty folder as the index", "{W}/empty", "--corpus", "{W}/corpus.jsonl"),
    a("no --corpus", "{FRESH}"),
    a("--corpus that does not exist", "{FRESH}", "--corpus", "{W}/nope.jsonl"),
    a("--corpus whose every row is bad", "{FRESH}", "--corpus", "{W}/bad.jsonl"),
    a("--corpus an empty file", "{FRESH}", "--corpus", "{W}/empty.jsonl"),
    a("--corpus the index folder itself", "{FRESH}", "--corpus", "{W}/idx"),
    a("--corpus .xml", "{FRESH}", "--corpus", "{W}/notes.xml"),
    Case("python -m indexer add", "id-less rows from d2/new.jsonl after d1/new.jsonl",
         _two_exports, 0, "generated ids hash the row: both files kept"),
    a("rows whose ids exist already", "{FRESH}", "--corpus", "{W}/corpus.jsonl", expect=0,
      note="upsert: says how many it replaced and names them"),
    a("--id-field uid (typo)", "{FRESH}", "--corpus", "{W}/corpus.jsonl", "--id-field", "uid"),
    a("--metadata-fields categry (typo)", "{FRESH}", "--corpus", "{W}/corpus.jsonl",
      "--metadata-fields", "categry"),
    a("--text-field body (no row has it)", "{FRESH}", "--corpus", "{W}/corpus.jsonl",
      "--text-field", "body"),
    a("--title-field headline", "{FRESH}", "--corpus", "{W}/corpus.jsonl", "--title-field",
      "headline"),
    a("--on-error ignore", "{FRESH}", "--corpus", "{W}/corpus.jsonl", "--on-error", "ignore"),
    a("--on-error fail with a bad row", "{FRESH}", "--corpus", "{W}/bad.jsonl", "--on-error",
      "fail"),
    a("--format parquet on a JSONL file", "{FRESH}", "--corpus", "{W}/corpus.jsonl",
      "--format", "parquet"),
    a("--batch-size 0", "{FRESH}", "--corpus", "{W}/corpus.jsonl", "--batch-size", "0"),
    a("--threads -2", "{FRESH}", "--corpus", "{W}/corpus.jsonl", "--threads", "-2"),
    a("a text field where the index has a number (year)", "{FRESH}", "--corpus",
      "{W}/mixed.jsonl", note="refused, naming the document and the field: a field keeps one "
      "type (it turned mixed, and every range filter on it failed)"),
    a("rows whose text is a number", "{FRESH}", "--corpus", "{W}/numbers.jsonl"),
    a("--backend gpu (not a backend)", "{FRESH}", "--corpus", "{W}/corpus.jsonl", "--backend",
      "gpu"),
    a("--backend OpenVINO (wrong case)", "{FRESH}", "--corpus", "{W}/corpus.jsonl",
      "--backend", "OpenVINO"),
]

d = _case("delete")
DELETE = [
    *_paths(d, "oil-1", target="{FRESH}")[:6],
    d("no ids", "{FRESH}"),
    d("only unknown ids", "{FRESH}", "nope", "zz"),
    d("known and unknown ids", "{FRESH}", "oil-1", "nope", expect=3,
      note="3: the known one is deleted and saved; the unknown named"),
    d("ids separated by commas", "{FRESH}", "oil-1,cup-1"),
    d("the same id twice", "{FRESH}", "oil-1", "oil-1", expect=0, note="deleted once"),
    d("an empty id", "{FRESH}", ""),
    d("an id in the wrong case", "{FRESH}", "OIL-1"),
    d("a glob", "{FRESH}", "oil-*"),
    d("a 1,000 unknown ids", "{FRESH}", *[f"x{n}" for n in range(1000)]),
    d("an id with spaces around it", "{FRESH}", " oil-1 "),
    d("--ids (no such flag)", "{FRESH}", "--ids", "oil-1"),
    d("every document", "{FRESH}", "oil-1", "cup-1", "phone-1", "pie-1", "rate-1", "zh-1",
      expect=0, note="an empty index remains; searching it returns no hits"),
    d("a title instead of an id", "{FRESH}", "Oil prices"),
    d("a generated-looking id", "{FRESH}", "corpus.jsonl:1"),
]

c = _case("compact")
COMPACT = [*_paths(c, target="{FRESH}"),
           c("an index without deletions", "{FRESH}", expect=0, note="dropped 0"),
           c("--force (no such flag)", "{FRESH}", "--force"),
           c("the workspace root", "{W}"),
           c("a hidden build folder name", "{W}/.build-x")]

e = _case("eval")
EVAL = [
    e("no flags"),
    e("no --beir", "{W}/idx"),
    e("--beir that does not exist", "{W}/idx", "--beir", "{W}/nope"),
    e("--beir a file", "{W}/idx", "--beir", "{W}/file.txt"),
    e("--beir folder without queries.jsonl", "{W}/idx", "--beir", "{W}/beir-noqueries"),
    e("--split that has no qrels", "{W}/idx", "--beir", "{W}/beir", "--split", "dev"),
    e("--split an empty string", "{W}/idx", "--beir", "{W}/beir", "--split", ""),
    e("queries with 'id'/'query' fields", "{W}/idx", "--beir", "{W}/beir-qfield"),
    e("queries with a malformed line", "{W}/idx", "--beir", "{W}/beir-qjson"),
    e("corpus rows without _id", "{W}/idx", "--beir", "{W}/beir-cid"),
    e("qrels separated by spaces, not tabs", "{W}/idx", "--beir", "{W}/beir-2col"),
    e("qrels score 'abc'", "{W}/idx", "--beir", "{W}/beir-abc"),
    e("qrels score 1.5", "{W}/idx", "--beir", "{W}/beir-half"),
    e("qrels whose query ids match no query", "{W}/idx", "--beir", "{W}/beir-noq"),
    e("qrels with a header only", "{W}/idx", "--beir", "{W}/beir-header"),
    e("qrels judging documents the index lacks", "{W}/idx", "--beir", "{W}/beir-other"),
    e("--mode fuzzy", "{W}/idx", "--beir", "{W}/beir", "--mode", "fuzzy"),
    e("index missing", "{W}/nope", "--beir", "{W}/beir"),
    e("the BEIR folder as the index", "{W}/beir", "--beir", "{W}/beir"),
    e("--beir the index folder", "{W}/idx", "--beir", "{W}/idx"),
]

f = _case("default")
DEFAULT = [
    f("--lang fr (only en and zh ship)", "--out", "{W}/o", "--lang", "fr"),
    f("--lang zh with --out a file", "--lang", "zh", "--out", "{W}/file.txt"),
    f("--out a file", "--out", "{W}/file.txt"),
    f("--out below a file", "--out", "{W}/file.txt/bbc"),
    f("--out an empty string", "--out", ""),
    f("--out an index that exists", "--out", "{W}/idx", expect=0,
      note="a no-op: says the index is present"),
    f("--out the index's manifest.json", "--out", "{W}/idx/manifest.json"),
    f("--threads 0", "--out", "{W}/o", "--threads", "0"),
    f("--threads abc", "--out", "{W}/o", "--threads", "abc"),
    f("--threads -1", "--out", "{W}/o", "--threads", "-1"),
    f("a positional path instead of --out", "{W}/o"),
    f("--model e5 (default takes no model)", "--out", "{W}/o", "--model", "e5"),
    f("--corpus (default takes no corpus)", "--out", "{W}/o", "--corpus", "{W}/corpus.jsonl"),
    f("--out a name longer than allowed", "--out", "{W}/" + "x" * 300),
    f("--out twice", "--out", "{W}/o", "--out", "{W}/file.txt"),
    f("--out a URL", "--out", "http://example.com/bbc"),
    f("--out below the index's manifest", "--out", "{W}/idx/manifest.json/x"),
    f("--index hnsw (default takes no preset)", "--out", "{W}/o", "--index", "hnsw"),
    f("--out= (empty, with =)", "--out="),
    f("--threads 1.5", "--out", "{W}/o", "--threads", "1.5"),
    f("--help typed as -help", "-help"),
]

REBUILD = rebuild_cases(_case("rebuild"), M)

ODD = cli_cases(_case, M)
DOC_BUILD, SYNC = document_cases(b, _case("sync"))
COMMANDS = {"build": BUILD + ODD["build"] + DOC_BUILD + VECTORS, "sync": SYNC, "rebuild": REBUILD,
            "search": SEARCH + ODD["search"], "info": INFO, "add": ADD, "delete": DELETE,
            "compact": COMPACT, "eval": EVAL, "default": DEFAULT,
            "migrate": migrate_cases(_case("migrate")), "export": EXPORT}
