"""The package's import graph, read from the code: circles, and imports running up the layers.

Every ``import`` and ``from … import`` of ``milp_anon`` counts, at module level,
inside a function or under ``if TYPE_CHECKING:`` (an annotation's import is a
dependency too). A package's ``__init__`` counts as a module of its own.
The layers are the import-linter contract's in ``pyproject.toml``; this script
also finds circles *within* a layer, which that contract does not see.

    python tests/import_graph.py            # circles and upward imports (exit 1 if any)
    python tests/import_graph.py --edges    # every module and what it imports
"""

from __future__ import annotations

import ast
import pathlib
import sys
import tomllib

import networkx as nx

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = "milp_anon"


def modules(root: pathlib.Path = ROOT) -> dict[str, pathlib.Path]:
    """Every module of the package by dotted name."""
    out = {}
    for path in (root / PACKAGE).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(tree: ast.AST):
    """Every import node of ``tree``."""
    return (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


def graph(root: pathlib.Path = ROOT) -> nx.DiGraph:
    """Module → module it imports (a name imported from a package resolves to the submodule it names)."""
    mods = modules(root)

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    g = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package
                    for _ in range(node.level - 1):
                        up = up.rpartition(".")[0]
                    base = f"{up}.{base}" if base else up
                targets = [resolve(f"{base}.{a.name}") for a in node.names]
            else:
                targets = [resolve(a.name) for a in node.names]
            for t in targets:
                if t and t != name and t.startswith(PACKAGE):
                    g.add_edge(name, t)
    return g


def layers(root: pathlib.Path = ROOT) -> list[list[str]]:
    """The layers of the import-linter contract, top first, each a list of sibling modules."""
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in config if c["type"] == "layers"]
    return [[f"{PACKAGE}.{s.strip()}" for s in layer.split("|")] for layer in contract["layers"]]


def circles(g: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)


def upward(g: nx.DiGraph, root: pathlib.Path = ROOT) -> list[tuple[str, str]]:
    """Imports from a lower layer into a higher one (or between independent siblings)."""
    rank = {}
    for i, layer in enumerate(layers(root)):
        for top in layer:
            rank[top] = (i, top)

    def where(module: str):
        for top, r in rank.items():
            if module == top or module.startswith(top + "."):
                return r
        return None

    out = []
    for a, b in g.edges:
        ra, rb = where(a), where(b)
        if ra and rb and (rb[0] < ra[0] or (rb[0] == ra[0] and rb[1] != ra[1])):
            out.append((a, b))
    return sorted(out)


def main(argv: list[str]) -> int:
    g = graph()
    if "--edges" in argv:
        for m in sorted(g):
            print(m, "->", ", ".join(sorted(g.successors(m))))
    found, up = circles(g), upward(g)
    for c in found:
        print("circle:", " ".join(c))
    for a, b in up:
        print("upward:", a, "->", b)
    print(f"{g.number_of_nodes()} modules, {g.number_of_edges()} imports, {len(found)} circles, {len(up)} upward")
    return 1 if found or up else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
