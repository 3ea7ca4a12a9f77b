"""CUDA kernel of ops/py_func.py: the Python function runs on the host, as Fluid's does: the inputs
are copied over, the outputs copied back."""

from ..cpu import py_func as _cpu
from . import runtime as rt


def py_func(ins, attrs, ctx):
    outs = _cpu.py_func({"X": [rt.to_host(x) for x in ins.get("X") or []]}, attrs, ctx)
    return {"Out": [rt.to_device(v) for v in outs["Out"]]}
