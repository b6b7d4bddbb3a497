"""The package's layers: no import circle, no import running up (tests/import_graph.py, the contract in pyproject.toml)."""

import textwrap

import import_graph


def test_the_package_has_no_circle_and_no_upward_import():
    g = import_graph.graph()
    assert g.number_of_nodes() > 50  # the whole package was read
    assert import_graph.circles(g) == []
    assert import_graph.upward(g) == []


def _package(tmp_path, files: dict[str, str]):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""
        [[tool.importlinter.contracts]]
        name = "layers"
        type = "layers"
        layers = ["top", "middle | side", "bottom"]
    """))
    for name, text in files.items():
        path = tmp_path / "milp_anon" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_a_planted_circle_and_upward_imports_are_found(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "top.py": "from milp_anon import middle\n",
        "middle/__init__.py": "",
        "middle/a.py": "from milp_anon.middle.b import x\n",
        "middle/b.py": "def f():\n    from . import a\n    from milp_anon.top import y\nx = 1\n",
        "side.py": "import milp_anon.middle.a\n",
        "bottom.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from milp_anon import top\n",
    })
    g = import_graph.graph(root)
    assert import_graph.circles(g) == [["milp_anon.middle.a", "milp_anon.middle.b"]]
    # a function-level import up counts, so does one between independent siblings, and one for annotations only
    assert import_graph.upward(g, root) == [("milp_anon.bottom", "milp_anon.top"),
                                            ("milp_anon.middle.b", "milp_anon.top"),
                                            ("milp_anon.side", "milp_anon.middle.a")]
