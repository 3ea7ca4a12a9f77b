"""Names a reader can find: no module makes its names with ``globals().update(...)`` (a search for
``def relu`` or ``relu =`` finds where a kernel is), and each op type's CPU kernel is bound by name in
its kernel module, or is a row of the table that module's lookup reads (the activation table,
pointwise_math's UNARY)."""

import ast
import importlib
import os

import pytest

from pe_cli.ops import registry

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pe_cli")

# Modules that keep globals().update, and why: the protobuf message modules build their classes from
# the .proto schema at import, as protoc's _pb2 modules do (their names are Fluid's, made from one
# table); paddle's package sets a stand-in for every name of Paddle 2.6.2's index pe lacks (device.py's
# lists), which ``from paddle import *`` must see as globals.
DYNAMIC = {
    "fluid/proto/framework_messages.py",
    "fluid/proto/profiler/messages.py",
    "fluid/incubate/fleet/parameter_server/pslib/ps_messages.py",
    "paddle/__init__.py",
}


def _python_files():
    for folder, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/"), path


def _updates_globals(tree):
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "update"
        and isinstance(node.func.value, ast.Call)
        and isinstance(node.func.value.func, ast.Name)
        and node.func.value.func.id == "globals"
    ]


def test_no_module_makes_its_names_with_globals_update():
    found = []
    for rel, path in _python_files():
        with open(path, encoding="utf-8") as f:
            lines = _updates_globals(ast.parse(f.read()))
        found += [f"{rel}:{line}" for line in lines if rel not in DYNAMIC]
    assert found == []


def _bound_names(path):
    """The names a module binds at its top level: defs, classes, assignment targets (chained and
    tuples too), imports, and ``globals()["name"] = ...`` with a literal name (``assert``, a keyword)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        names.add(t.id)
                    elif isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant):
                        names.add(t.slice.value)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


@pytest.mark.parametrize("module", sorted({registry.get(t).kernel_module for t in registry.all_op_types()}))
def test_each_cpu_kernel_is_found_by_its_name(module):
    path = os.path.join(ROOT, "kernels", "cpu", f"{module}.py")
    bound = _bound_names(path)
    table = getattr(importlib.import_module(f"pe_cli.kernels.cpu.{module}"), "_ROW_KERNELS", {})
    # (a structured op's CPU out-kernel is bound by object in its definition: tests/ops/test_kernels_findable.py)
    types = [
        t
        for t in registry.all_op_types()
        if registry.get(t).kernel_module == module
        and (registry.get(t).structured is None or registry.get(t).structured.out_kernel("cpu") is None)
    ]
    missing = [
        t for t in types if registry.get(t).kernel_name not in bound and registry.get(t).kernel_name not in table
    ]
    assert missing == []
