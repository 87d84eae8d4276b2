"""Bad input to a folder of documents (`build --corpus FOLDER`, `sync FOLDER INDEX`): each file
that gives no document is one line naming it and why, and the rest is indexed."""

from __future__ import annotations

import io
import zipfile

from .probe import Case


def _zip(name: str, content: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(name, content)
    return buffer.getvalue()


GOOD = {"docs/notes.md": "---\nauthor: Ann\n---\n# Notes\n\n## Oil\n\nCrude oil prices rose.\n",
        "docs/page.html": "<html><head><title>Cup</title></head><body><article><h1>Cup</h1>"
                          "<p>The striker scored twice in the final, and the crowd sang the "
                          "whole night long after the match ended.</p></article></body></html>"}
BAD = {
    "truncated.pdf": b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n",  # no %%EOF
    "notes-named.pdf": "plain text in a file named .pdf\n",
    "zero.txt": b"",
    "image.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "nul.md": b"text\x00with a NUL byte\n",
    "nobody.html": "<html><head><title>Empty</title></head></html>",
    "other.docx": _zip("content.xml", "<a/>"),
}
FILES: dict[str, str | bytes] = {**GOOD, **{f"docs/{k}": v for k, v in BAD.items()},
                                 **{f"onlybad/{k}": v for k, v in BAD.items()},
                                 "docs-big/big.txt": "word " * 300_000,  # 1.4 MB
                                 "docs-big/small.md": "# Small\n\nA small note.\n"}
LINKS = {"docs/loop": ".", "docs/dangling.md": "missing.md"}  # (path, target): symlinks
M = ["--model", "minilm"]


def document_cases(build, sync) -> tuple[list[Case], list[Case]]:
    note = ("each bad file is one line naming it and why (truncated, wrong extension, empty, "
            "binary .md, no body, a zip that is no Word file, symlink loop, broken link); the "
            "two good files are indexed")
    bad = "a folder of documents: 2 good, 7 bad files and 2 bad links"
    return [
        build(f"--corpus {bad}", "--corpus", "{W}/docs",
              "--out", "{W}/docs-idx", *M, expect=0, note=note),
        build("--max-file-mb 1 on a folder holding a 1.4 MB file", "--corpus", "{W}/docs-big",
              "--out", "{W}/docs-idx2", "--max-file-mb", "1", *M, expect=0,
              note="the large file is reported, not read; the other is indexed"),
        build("--corpus a folder whose every file is bad", "--corpus", "{W}/onlybad", "--out",
              "{W}/o", *M),
        build("--include a glob no file matches", "--corpus", "{W}/docs", "--include",
              "*.pptx", "--out", "{W}/o", *M),
        build("--max-file-mb 0", "--corpus", "{W}/docs", "--max-file-mb", "0", "--out",
              "{W}/o", *M),
    ], [
        sync("a folder that does not exist", "{W}/nope", "{W}/s-idx", *M),
        sync("a file, not a folder", "{W}/file.txt", "{W}/s-idx", *M),
        sync("into a path below a file", "{W}/docs", "{W}/file.txt/idx", *M),
        sync("a folder whose every file is bad", "{W}/onlybad", "{W}/s-bad", *M),
        sync(bad, "{W}/docs", "{W}/s-idx", *M,
             expect=0, note=note + "; the summary line says what was added"),
        sync("--model other than the index's (e5-multilingual into a minilm index)",
             "{W}/docs", "{W}/idx", "--model", "e5-multilingual"),
    ]
