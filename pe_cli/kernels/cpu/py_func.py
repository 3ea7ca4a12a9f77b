"""Kernel of ops/py_func.py: the registered Python function, called with the input values (and the
LoD of each, from ctx.lod) on the calling thread; it returns one array per output."""

from .. import py_callables


def py_func(ins, attrs, ctx):
    xs = ins.get("X") or []
    lods = ctx.lod.get("X") or [None] * len(xs)
    return {"Out": py_callables.get(attrs["forward_callable_id"])(list(xs), list(lods))}
