"""The index folder on disk: versions and publishing. No other module reads or writes the files
of an index folder (but the write lock and the private folders: `indexer.private`).

    manifest.json        format, version, encoder, FAISS spec, counts, files with checksums
    v000007-<tag>/       one version: vectors.faiss (+ vectors_delta.npz), store.sqlite, bm25/
    .write.lock          held briefly by whoever publishes or makes a private folder
    .staging-<tag>/      a writer's next version while it is made (its own .lock held)
    .build-<key>/        a build's encoded shards, reused by a re-run (its own .lock held)

`publish` checksums and fsyncs a staged version, then under the write lock checks that the
manifest is still the one its writer started from (`StaleBase` otherwise), renames the staged
folder to the next version's name, switches `manifest.json` atomically (the last step), and
removes versions older than the previous one (readers may still be opening it) and folders of
writers that died. A reader sees the old or the new version whole; a writer killed at any point
leaves the old version current. Indexes from before version folders (`vectors-<v>.faiss`,
`store-<v>.sqlite`, `bm25-<v>/` beside the manifest) open the same way.
"""

from .manifest import FOLDER_FORMAT_VERSION, MANIFEST, read_manifest
from .publishing import Staging, StaleBase, publish
from .target import check_target
from .vector_segments import VectorSegments
from .vectors import owned_copy, read_vectors, write_vectors
from .version import Version, open_version

__all__ = [
    "FOLDER_FORMAT_VERSION",
    "MANIFEST",
    "StaleBase",
    "Staging",
    "VectorSegments",
    "Version",
    "check_target",
    "open_version",
    "publish",
    "owned_copy",
    "read_vectors",
    "read_manifest",
    "write_vectors",
]
