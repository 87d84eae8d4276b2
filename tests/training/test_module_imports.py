"""How the modules of training/ import each other, read from their source (AST), imports inside
functions included: none takes another module's private name, and none import each other
(training.cli and training.recipe_cli once did, for a private helper)."""

from __future__ import annotations

import ast
from pathlib import Path

TRAINING = Path(__file__).resolve().parents[2] / "training"


def _module(path: Path) -> str:
    parts = path.relative_to(TRAINING.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports() -> dict[str, list[tuple[str, str, int]]]:
    """module -> [(imported module, name or "", line)] for every import in training/."""
    found: dict[str, list[tuple[str, str, int]]] = {}
    for path in sorted(TRAINING.rglob("*.py")):
        module = _module(path)
        rows = found.setdefault(module, [])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                rows += [(a.name, "", node.lineno) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
                source = _absolute(node, module, path.name == "__init__.py")
                rows += [(source, a.name, node.lineno) for a in node.names]
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_module_imports_a_private_name():
    bad = [f"{m}:{line} takes {source}.{name}" for m, rows in _imports().items()
           for source, name, line in rows
           if _private(name) or any(_private(p) for p in source.split("."))]
    assert not bad, "make the name public or move it where it is used: " + "; ".join(bad)


def _graph() -> dict[str, set[str]]:
    """training module -> the training modules it imports (`from . import x` counts as x)."""
    imports = _imports()
    modules = set(imports)
    graph: dict[str, set[str]] = {}
    for module, rows in imports.items():
        targets = set()
        for source, name, _ in rows:
            if f"{source}.{name}" in modules:
                targets.add(f"{source}.{name}")
            elif source in modules:
                targets.add(source)
        graph[module] = targets - {module}
    return graph


def test_cli_and_recipe_cli_do_not_import_each_other():
    graph = _graph()
    assert "training.recipe_cli" in graph["training.cli"]  # one way only: cli hands recipes over
    assert "training.cli" not in graph["training.recipe_cli"]


def test_no_two_training_modules_import_each_other():
    """No cycle among the modules of training/ (a package imports its own modules: skipped)."""
    graph = _graph()
    pairs = sorted(f"{a} <-> {b}" for a, targets in graph.items() for b in targets
                   if a in graph.get(b, ()) and a < b and not (b.startswith(a + ".")
                                                                or a.startswith(b + ".")))
    assert not pairs, pairs
