"""The package's shape: layers that only look down, no import cycle, small modules, each name once.

The layers, from the bottom: the core (the model, its structure, weights, tokens, inference and
files: every module directly in ``handmade/``), then ``display``, ``course``, ``training``,
``widgets``, and the command line on top. A module imports only from its own layer or the ones
below; ``import handmade`` loads the core alone, and the rest loads when first used.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "handmade"
LAYERS = ("core", "display", "course", "training", "widgets", "cli")  # bottom first
MAX_LINES = 500


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(name):
    """The package's modules that ``name`` imports, anywhere in it (in a function too), as written."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _level in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            for alias in node.names:  # `from . import grader` imports a module; `from .x import y`, module x
                yield f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target


GRAPH = {name: sorted({m for m in imported(name) if m in MODULES and m != name}) for name in MODULES}


def layer(name):
    parts = name.split(".")
    if name in ("handmade.cli", "handmade.__main__"):
        return "cli"
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS[1:]) else "core"


def test_each_layer_imports_only_from_itself_and_the_layers_below():
    upward = [
        f"{name} ({layer(name)}) imports {other} ({layer(other)})"
        for name, others in GRAPH.items()
        for other in others
        if LAYERS.index(layer(other)) > LAYERS.index(layer(name))
    ]
    assert upward == []
    assert {layer(name) for name in MODULES} == set(LAYERS)  # every layer is there: the test sees them all


def test_no_module_imports_one_that_imports_it_back():
    """No import cycle, however long: each strongly connected part of the import graph is one module."""
    order, low, stack, cycles = {}, {}, [], []

    def visit(name):  # Tarjan's algorithm
        order[name] = low[name] = len(order)
        stack.append(name)
        for other in GRAPH[name]:
            if other not in order:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], order[other])
        if low[name] == order[name]:
            part = stack[stack.index(name) :]
            del stack[stack.index(name) :]
            if len(part) > 1:
                cycles.append(sorted(part))

    for name in GRAPH:
        if name not in order:
            visit(name)
    assert cycles == []


def test_import_handmade_loads_the_core_alone_and_the_rest_when_first_used():
    code = (
        "import sys, handmade\n"
        "above = ('handmade.course', 'handmade.display', 'handmade.widgets', 'handmade.training')\n"
        "print(sorted(m for m in sys.modules if m.startswith(above)))\n"
        "print(handmade.task.__module__, handmade.grade.__module__, handmade.training.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, encoding="utf-8", check=True)
    loaded, later = out.stdout.splitlines()
    assert loaded == "[]"
    assert later == "handmade.course.tasks handmade.course.grader handmade.training"


def test_no_module_is_longer_than_500_lines():
    lines = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in MODULES.items()}
    assert {name: n for name, n in lines.items() if n > MAX_LINES} == {}


def defined(path):
    """The public names a module defines at its top level: functions, classes and assignments, not imports."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from (n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))


TWICE = {}  # a name defined in two modules still, each with the reason: none


def test_no_public_name_is_defined_in_two_modules():
    homes = {}
    for name, path in MODULES.items():
        for defined_name in set(defined(path)) - {"__all__"}:
            if not defined_name.startswith("_"):
                homes.setdefault(defined_name, []).append(name)
    twice = {name: where for name, where in homes.items() if len(where) > 1}
    assert twice == {name: where for name, (where, _reason) in TWICE.items() if homes.get(name) == where}


@pytest.mark.parametrize("name", ["handmade.model", "handmade.structure", "handmade.weights"])
def test_the_core_of_the_core_needs_numpy_and_the_standard_library_only(name):
    third_party = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            third_party |= {m.split(".")[0] for m in modules} - set(sys.stdlib_module_names)
    assert third_party <= {"numpy"}
