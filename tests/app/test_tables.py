"""`appkit.tables`: nested metrics / configuration as a field-value table, not a JSON tree."""

from __future__ import annotations

from appkit.tables import LONG_LIST, field_rows, field_table


def test_nested_fields_get_dotted_names_and_plain_values():
    rows = dict(field_rows({
        "model": "minilm", "layers": 6, "finished": True, "score": 63.25000001, "note": None,
        "dev_after": {"spearman": 63.25, "sets": [{"path": "a.tsv", "pairs": 100}]},
        "languages": ["en", "zh"], "prompts": {}, "stages": [],
    }))
    assert rows == {
        "model": "minilm", "layers": "6", "finished": "yes", "score": "63.25", "note": "—",
        "dev_after · spearman": "63.25", "dev_after · sets · 1 · path": "a.tsv",
        "dev_after · sets · 1 · pairs": "100", "languages": "en, zh", "prompts": "—",
        "stages": "none",
    }


def test_a_long_list_of_records_is_its_length():
    bad = [{"line": i, "reason": "empty"} for i in range(LONG_LIST + 1)]
    assert field_rows({"bad_rows": bad}) == [("bad_rows", f"{LONG_LIST + 1} entries")]


def test_the_table_has_one_string_column_of_values():
    table = field_table({"a": 1, "b": {"c": 2.5}})
    assert list(table.columns) == ["field", "value"]
    assert table.to_dict("records") == [{"field": "a", "value": "1"},
                                        {"field": "b · c", "value": "2.5"}]
