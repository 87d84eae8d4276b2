"""Read an AppTest run: its plotly figures as dicts, its messages as text."""

from __future__ import annotations

import json


def figures(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def titles(at) -> list[str]:
    out = []
    for fig in figures(at):
        title = fig.get("layout", {}).get("title", {})
        out.append(title.get("text", "") if isinstance(title, dict) else str(title))
    return out


def texts(elements) -> list[str]:
    return [str(e.value) for e in elements]


def assert_clean(at) -> None:
    """No exception and no error message on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, texts(at.error)


def values(v) -> list:
    """A plotly data field as a list: plotly 7 ships numpy arrays as {"dtype", "bdata"}."""
    if isinstance(v, dict) and "bdata" in v:
        import base64

        import numpy as np

        flat = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        return flat.reshape(v["shape"]).tolist() if "shape" in v else flat.tolist()
    return list(v)
