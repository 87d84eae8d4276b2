"""Low-level helpers every part of BERTScope shares, and nothing else: atomic writes, file locks,
file checksums, `$BERTSCOPE_HOME` and the data root, prompt prefixes, path checks, the folders
shipped beside the packages. It imports no
other BERTScope package, and nothing heavier than `xxhash`. `common.corpus` and `common.lexical`
(BM25), imported on their own, not from here, hold what the indexer and training share;
`common.jobs` runs their long commands as jobs."""

from .atomic import finite, fsync_path, fsync_tree, json_text, write_atomic, write_json_atomic
from .hashing import CHECKSUM, file_checksum
from .home import bertscope_home, data_root
from .locks import FileLock, LockBusy
from .paths import check_output_file, check_path, os_error_text
from .prompts import PROMPTS, prompt_prefix
from .shipped import shipped_folder

__all__ = [
    "CHECKSUM",
    "PROMPTS",
    "FileLock",
    "LockBusy",
    "bertscope_home",
    "check_output_file",
    "check_path",
    "data_root",
    "file_checksum",
    "finite",
    "fsync_path",
    "fsync_tree",
    "json_text",
    "os_error_text",
    "prompt_prefix",
    "shipped_folder",
    "write_atomic",
    "write_json_atomic",
]
