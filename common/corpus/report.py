"""`CorpusReport`: what a corpus read gave — documents, the rows it skipped and why, duplicate
ids — and `skipped_lines`, the one wording of those rows every command prints."""

from __future__ import annotations

from dataclasses import dataclass, field

from .options import CorpusOptions
from .records import CorpusError, Document, SkippedRow

NOTES_KEPT = 1000  # notes an index's manifest lists


@dataclass
class CorpusReport:
    documents: list[Document]
    skipped: list[SkippedRow] = field(default_factory=list)
    duplicates: int = 0  # rows whose id was seen before; the later row won
    rows: int = 0
    notes: list[SkippedRow] = field(default_factory=list)  # rows read, with what was left out
    error: type[ValueError] = field(default=CorpusError, repr=False, compare=False)

    def skip(self, opts: CorpusOptions, where: str, line: int, reason: str) -> None:
        """Report a bad row (`on_error="fail"`: raise instead)."""
        if opts.on_error == "fail":
            raise self.error(f"{where}:{line}: {reason} (use on_error='skip' to skip bad rows)")
        self.skipped.append(SkippedRow(where, line, reason))

    def kept_notes(self) -> list[dict]:
        """The notes as an index's manifest keeps them (the first NOTES_KEPT)."""
        return [n.to_dict() for n in self.notes[:NOTES_KEPT]]

    def unusable(self, source: str) -> ValueError:
        """The error for a corpus that gave no document: why, with the first bad row."""
        if not self.rows and not self.skipped:
            return self.error(f"{source} holds no rows: an empty file?")
        first = self.skipped[0] if self.skipped else None
        where = f"; first: {first.where}: {first.reason}" if first else ""
        return self.error(f"no usable documents in {source}: all {len(self.skipped)} rows "
                          f"were skipped{where}")


def skipped_lines(skipped: list[SkippedRow], duplicates: int,
                  notes: list[SkippedRow] = ()) -> list[str]:
    """One line per skipped row, one per row read with a note (what of it was left out), then
    the counts (what the CLIs print to stderr)."""
    return [*(f"skipped {s.where}: {s.reason}" for s in skipped),
            *(f"note {s.where}: {s.reason}" for s in notes),
            f"{len(skipped)} rows skipped, {duplicates} duplicate ids (later row kept)"]
