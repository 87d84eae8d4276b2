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


# -- the import graph of the product (every package but bench), module by module --------------
PRODUCT = tuple(p for p in PACKAGES if p != "bench")
# indexer's layers, lowest first: a module imports only modules of its own layer or below. Its
# shared code (chunking, fusion, filters, validation, presets, shards, ...) is the lowest; a
# module not named below and outside the wings is shared, so a new one that imports upward fails
# here until it is placed.
CONTRACT = {"indexer.index", "indexer.location"}  # SemanticIndex, IndexLocation, BuildTarget
WINGS = ("indexer.folder", "indexer.milvus")  # one store each, whole
DOOR = {"indexer.stores"}  # names both stores: locate, open_index, find_indexes
OPERATIONS = {"indexer", "indexer.__main__", "indexer.build", "indexer.rebuild",
              "indexer.migrate", "indexer.sync", "indexer.export", "indexer.default",
              "indexer.default_zh", "indexer.jobs", "indexer.cli", "indexer.cli_args",
              "indexer.comparison", "indexer.reader_advice"}
# what holds the contract: build, copy, compare, advise, the CLI
LAYERS = ("shared", "contract", "wing", "door", "operations")


def product_modules() -> dict[str, Path]:
    """Every product module by the name it is imported as (app's appkit and charts are
    top-level packages; a page is named by its file)."""
    modules: dict[str, Path] = {}
    for package in PRODUCT:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            if parts[:2] in (("app", "appkit"), ("app", "charts")):
                parts = parts[1:]
            modules[".".join(parts).removesuffix(".__init__")] = path
    return modules


def import_names(name: str, path: Path) -> list[tuple[str, int]]:
    """(absolute dotted name, line) of every import in module `name` at any depth: inside
    functions and `TYPE_CHECKING` blocks too (each is an arrow a reader follows); `from X
    import Y` gives X.Y (a submodule, else resolved to X)."""
    base = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = base.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                module = ".".join(parts + ([module] if module else []))
            out += [(f"{module}.{a.name}", node.lineno) for a in node.names]
    return out


def product_graph() -> dict[str, dict[str, int]]:
    """module -> {product module it imports: line}."""
    modules = product_modules()
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        found: dict[str, int] = {}
        for target, line in import_names(name, path):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.setdefault(target, line)
        graph[name] = found
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_among_product_modules():
    """No module reaches itself through its imports, lazy and type-only ones included: each
    part can be read, tested and replaced from the bottom up."""
    found = circles(product_graph())
    assert not found, f"import circles: {found}"


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [
        ["a", "b", "c"]]


def layer(module: str) -> int:
    if module in OPERATIONS:
        return LAYERS.index("operations")
    if module in DOOR:
        return LAYERS.index("door")
    if any(module == w or module.startswith(w + ".") for w in WINGS):
        return LAYERS.index("wing")
    if module in CONTRACT:
        return LAYERS.index("contract")
    return LAYERS.index("shared")


def wing(module: str) -> str | None:
    return next((w for w in WINGS if module == w or module.startswith(w + ".")), None)


def test_no_import_runs_back_up_inside_indexer():
    """Shared code < the contract < the two stores < the door < build, sync, migrate, the CLI:
    nothing imports a layer above its own, and neither store imports the other."""
    graph = product_graph()
    upward = [f"{a} ({LAYERS[layer(a)]}) -> {b} ({LAYERS[layer(b)]}), line {line}"
              for a, targets in graph.items() if a.startswith("indexer")
              for b, line in targets.items() if b.startswith("indexer") and layer(b) > layer(a)]
    assert not upward, f"imports running back up inside indexer: {upward}"
    across = [f"{a} -> {b}" for a, targets in graph.items() for b in targets
              if wing(a) and wing(b) and wing(a) != wing(b)]
    assert not across, f"one store importing the other: {across}"


def test_the_layers_name_modules_that_exist():
    modules = product_modules()
    named = CONTRACT | DOOR | OPERATIONS | set(WINGS)
    assert named <= set(modules), f"not modules: {sorted(named - set(modules))}"


def test_no_milvus_import_outside_its_wing_and_the_door():
    """Only indexer/milvus/ and the door (indexer/stores.py) know Milvus: every other module
    holds the contract (pymilvus and milvus_lite included)."""
    modules = product_modules()
    allowed = {"indexer.stores"}
    found = [f"{modules[name].relative_to(REPO)}:{line} imports {target}"
             for name, path in modules.items()
             if not (name in allowed or name == "indexer.milvus" or
                     name.startswith("indexer.milvus."))
             for target, line in import_names(name, path)
             if any(part == "milvus" or part.startswith(("pymilvus", "milvus_lite"))
                    for part in target.split("."))]
    assert not found, f"Milvus imported outside indexer/milvus/ and the door: {found}"


def test_no_product_module_imports_from_bench():
    """Benchmarks measure the product; the product never depends on them (nor on the kits
    bench/ keeps beside its scripts, importable by their bare names)."""
    import sys

    modules = product_modules()
    bench = ({"bench"} | {p.stem for p in (REPO / "bench").rglob("*.py")}) \
        - {"__init__"} - sys.stdlib_module_names
    found = [f"{path.relative_to(REPO)}:{line} imports {target}"
             for name, path in modules.items() for target, line in import_names(name, path)
             if target.split(".")[0] in bench]
    assert not found, f"product modules importing from bench/: {found}"
