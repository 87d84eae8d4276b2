"""The app's pages and helpers hold no model, maths or file-format logic: they call library
functions. Read from the source (AST), so a page that starts computing again fails here."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
MATHS = ("sklearn", "scipy", "numpy.linalg")  # PCA, SVD, norms: encoder's job
READERS = ("json",)  # run folders, manifests: read by training / indexer
FILES = ("metrics.json", "training_log.jsonl", "run.json", "mlm_heads.json")


def app_modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(APP.rglob("*.py"))]


def imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return names


def docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring constants (they may name a file; code may not)."""
    owners = [tree, *(n for n in ast.walk(tree)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))]
    firsts = [o.body[0] for o in owners if o.body and isinstance(o.body[0], ast.Expr)]
    return {id(f.value) for f in firsts if isinstance(f.value, ast.Constant)}


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(APP.parent)}:{node.lineno}"


def test_no_module_under_app_does_linear_algebra():
    found = []
    for path, tree in app_modules():
        found += [f"{path.relative_to(APP.parent)} imports {name}" for name in imports(tree)
                  if any(name == m or name.startswith(m + ".") for m in MATHS)]
        found += [where(path, n) for n in ast.walk(tree)
                  if isinstance(n, ast.Attribute) and n.attr == "linalg"]
    assert not found, f"maths in the app (move it to encoder/): {found}"


def test_no_module_under_app_reads_a_run_folder_by_hand():
    found = []
    for path, tree in app_modules():
        found += [f"{path.relative_to(APP.parent)} imports {name}" for name in imports(tree)
                  if name.split(".")[0] in READERS]
        docs = docstrings(tree)
        found += [where(path, n) for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)
                  and id(n) not in docs and any(f in n.value for f in FILES)]
    assert not found, f"files read by hand in the app (use training.report / encoder): {found}"


def test_the_checks_see_what_they_forbid():
    """The two checks above would catch the code they were written against."""
    tree = ast.parse("import numpy as np\nimport json\n"
                     "u = np.linalg.svd(x)\nm = json.loads(open('r/metrics.json').read())\n")
    assert "json" in imports(tree)
    assert any(isinstance(n, ast.Attribute) and n.attr == "linalg" for n in ast.walk(tree))
    assert any(isinstance(n, ast.Constant) and n.value == "r/metrics.json"
               for n in ast.walk(tree))


# what pages once did themselves, each now one library call (issue 49): name -> that call
LIBRARY_WORK = {
    "build_index": "indexer.jobs.build_job, run as a job (appkit.index_build)",
    "rank_movements": "indexer.compare", "corpus_difference": "indexer.compare",
    "perf_counter": "indexer.search_run / compare (they time the searches)",
    "sense_separation": "encoder.compare_senses",
    "draw_mask": "training.mlm.views.draw_view", "score_draw": "training.mlm.views.draw_view",
    "quality_sentence": "training.mlm.views.fill_view",
}


def test_no_page_does_what_a_library_call_does():
    found = []
    for path in sorted((APP / "pages").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = node.id if isinstance(node, ast.Name) else \
                node.attr if isinstance(node, ast.Attribute) else \
                next((a.name for a in node.names if a.name in LIBRARY_WORK), None) \
                if isinstance(node, ast.ImportFrom) else None
            if name in LIBRARY_WORK:
                found.append(f"{where(path, node)} {name}: call {LIBRARY_WORK[name]}")
    assert not found, f"work a page does itself: {found}"
