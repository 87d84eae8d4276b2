"""Every shipped recipe names the data it reads (name, hub id, licence, and each file's place
under the data root with the fields its rows hold), so a person without ../shared/data learns
what to get and where to put it; a bad `data` entry is refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.errors import TrainingError
from training.recipe_data import missing_data, missing_text, recipe_data
from training.run_plan import shipped_recipes


def files_read(raw: dict) -> set[str]:
    refs = [*raw.get("dev", []), *raw.get("report", [])]
    for stage in raw["stages"]:
        refs += stage.get("train", [])
        for task in stage.get("tasks", []):
            refs += task["train"]
    found = {r.split("#")[0] for r in refs if r != "cv:train"}
    if cv := raw.get("cross_validation"):
        found |= {f"{cv['beir']}/corpus.jsonl", f"{cv['beir']}/queries.jsonl",
                  f"{cv['beir']}/qrels/{cv.get('split', 'test')}.tsv"}
    return found


@pytest.mark.parametrize("name", sorted(shipped_recipes()))
def test_each_shipped_recipe_names_every_file_it_reads(name, tmp_path):
    path = shipped_recipes()[name]
    raw = json.loads(path.read_text(encoding="utf-8"))
    sets = recipe_data(raw, str(path))
    named = {f for d in sets for f in d.files}
    assert files_read(raw) <= named, files_read(raw) - named
    assert all(d.hub and d.licence for d in sets)
    said = missing_text(name, missing_data(raw, str(path), tmp_path), tmp_path)
    for d in sets:  # an empty data root: every set said, with where each file goes
        assert f"on the hub as `{d.hub}` (licence: {d.licence})" in said
        assert all(f"`{tmp_path / f}`" in said for f in d.files)


def test_a_bad_data_entry_is_refused_by_name():
    with pytest.raises(TrainingError, match=r"r\.json: data\[0\]: needs name, hub, licence"):
        recipe_data({"data": [{"name": "x"}]}, "r.json")
    with pytest.raises(TrainingError, match=r"files: an object of path -> kind, the kind one"):
        recipe_data({"data": [{"name": "x", "hub": "h", "licence": "l",
                               "files": {"a.jsonl": "pairs"}}]}, "r.json")
    assert missing_data({"data": []}, "r.json", Path("/nowhere")) == []
