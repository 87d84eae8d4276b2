"""docs/ARCHITECTURE.md's table of who may import whom is what the code does: no import crosses a
line the table does not allow, and the table allows no arrow that no code uses."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "ARCHITECTURE.md"
PACKAGES = ("common", "metrics", "encoder", "indexer", "training", "app", "bench", "tools",
            "rag", "service", "bertscope")
# top-level import name -> the package (folder) it belongs to
OWNER = {p: p for p in PACKAGES} | {"appkit": "app", "charts": "app"}


def allowed() -> dict[str, set[str]]:
    """package -> the packages the doc's table says it may import."""
    table: dict[str, set[str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`\w+`", cells[0]):
            table[cells[0].strip("`")] = set(re.findall(r"`(\w+)`", cells[2]))
    return table


def imported(package: str) -> dict[str, str]:
    """Other BERTScope packages that `package`'s files import -> one file:line that does."""
    found: dict[str, str] = {}
    for path in sorted((REPO / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                other = OWNER.get(name.split(".")[0])
                if other and other != package:
                    found.setdefault(other, f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_the_table_names_every_package():
    assert set(allowed()) == set(PACKAGES)


def test_no_import_crosses_a_line_the_table_does_not_allow():
    table = allowed()
    crossings = [f"{package} -> {other} ({where})" for package in PACKAGES
                 for other, where in imported(package).items() if other not in table[package]]
    assert not crossings, "imports docs/ARCHITECTURE.md does not allow: " + "; ".join(crossings)


def test_the_table_allows_no_arrow_that_no_code_uses():
    table = allowed()
    unused = [f"{package} -> {other}" for package in PACKAGES
              for other in table[package] - set(imported(package))]
    assert not unused, f"arrows in docs/ARCHITECTURE.md no code uses: {unused}"


def test_indexer_and_training_never_import_each_other():
    assert "training" not in imported("indexer") and "indexer" not in imported("training")


def test_no_module_imports_a_private_name_of_another():
    """A name with a leading underscore is its module's own: another that needs it needs it made
    public, or moved to where both can import it."""
    private = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom):
                    continue
                ours = node.level > 0 or (node.module or "").split(".")[0] in OWNER
                for alias in node.names:
                    if ours and alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append(f"{path.relative_to(REPO)}:{node.lineno} "
                                       f"{node.module or '.'}.{alias.name}")
    assert not private, f"private names imported across modules: {private}"


def test_no_two_modules_of_a_package_import_each_other():
    """Within encoder and training, imports run one way (type-only imports included): features
    depend on small protocols, not on the classes that forward to them."""
    for package in ("encoder", "training"):
        graph = module_imports(REPO / package, package)
        pairs = sorted({tuple(sorted((a, b))) for a, targets in graph.items() for b in targets
                        if a in graph.get(b, set())})
        assert not pairs, f"modules of {package} that import each other: {pairs}"


def module_imports(root: Path, package: str) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports (relative or absolute)."""
    modules = {".".join(p.relative_to(root.parent).with_suffix("").parts).removesuffix(
        ".__init__"): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        base = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                parts = base.split(".")[: len(base.split(".")) - max(node.level - 1, 0)]
                module = ".".join(parts + [node.module]) if node.level and node.module else \
                    (".".join(parts) if node.level else node.module or "")
                for alias in node.names:
                    for target in (f"{module}.{alias.name}", module):
                        if target in modules and target != name:
                            found.add(target)
                            break
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in modules and a.name != name}
        graph[name] = found
    return graph
