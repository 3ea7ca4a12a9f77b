"""A reader looking for an op type's kernel finds it by name: in the module the op names for its kernels
(kernels/<device>/<kernel_module>.py) a ``def``, an assignment or an import binds the kernel's name, or a table
row names it (a string in that module, or a row of the activation table in pe_cli/base/activations*.py; a
gradient's kernel is made from its op's row). A structured op's out-kernel (issue 95) is bound by object in the
op's definition, ``structured=Structured(meta=..., cpu=...)``: one import away, a function of the device's
kernels."""

import ast
import functools
import os
import re

import pytest

from pe_cli.ops import registry

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "pe_cli")


@functools.lru_cache(maxsize=None)
def _names_in(path):
    """Every name a module's top level binds (defs, assignments, tuple targets, imports) and every string in it."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return frozenset(names), frozenset(strings)


@functools.lru_cache(maxsize=None)
def _activation_rows():
    base = os.path.join(ROOT, "base")
    rows = set()
    for f in sorted(os.listdir(base)):
        if f.startswith("activations") and f.endswith(".py"):
            rows |= _names_in(os.path.join(base, f))[1]
    return rows


def _findable(device, opdef):
    out_kernel = None if opdef.structured is None else opdef.structured.out_kernel(device)
    if out_kernel is not None:  # bound by object beside the op's definition: one import away, in this device's kernels
        return getattr(out_kernel, "__module__", "").startswith(f"pe_cli.kernels.{device}.")
    path = os.path.join(ROOT, "kernels", device, opdef.kernel_module + ".py")
    if not os.path.exists(path):
        return False
    names, strings = _names_in(path)
    name = opdef.kernel_name
    row = re.sub(r"(_grad)+$", "", name)
    return name in names or name in strings or row in strings or row in _activation_rows()


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_every_op_types_kernel_is_found_by_its_name(device):
    types = registry.all_op_types()
    assert len(types) > 500, "the registry lists too few op types: the check reads the wrong thing"
    missing = [t for t in sorted(types) if not _findable(device, registry.get(t))]
    assert missing == []


def test_every_op_type_runs_through_a_meta_rule_and_a_cpu_out_kernel_bound_by_object():
    """Issue 95: no CPU kernel is left that checks its own shapes and allocates its outputs; every op type registers
    ``Structured(meta=..., cpu=...)`` beside its definition (that the out-kernel is a function of pe_cli.kernels.cpu:
    the test above, through _findable)."""
    types = registry.all_op_types()
    assert len(types) > 500, "the registry lists too few op types: the check reads the wrong thing"
    structured = {t: registry.get(t).structured for t in types}
    assert sorted(t for t, s in structured.items() if s is None or s.meta is None or s.out_kernel("cpu") is None) == []
