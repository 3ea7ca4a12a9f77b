"""CPU out-kernel of ops/py_func.py (meta rule: shapes/services.py): the registered Python function, called with the
input values (and the LoD of each, from ctx.lod) on the calling thread; it returns one array per output, handed
over. The kernel by name is its adapter (kernels/cuda/py_func.py runs it on host copies)."""

from .. import py_callables
from ...shapes import services as rules
from ..structured import adapter


def py_func_out(ins, outs, attrs, meta, ctx):
    xs = ins.get("X") or []
    lods = ctx.lod.get("X") or [None] * len(xs)
    outs["Out"] = py_callables.get(attrs["forward_callable_id"])(list(xs), list(lods))


py_func_out.takes_context = True
py_func_out.launches = None
py_func = adapter(rules.py_func_meta, py_func_out, "py_func")
