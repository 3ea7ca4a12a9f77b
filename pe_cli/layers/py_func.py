"""``layers.py_func`` (Fluid 1.8): an op that runs a Python function in the program. The function
gets LoDTensors (``numpy.array(t)``, ``t.lod()``) and returns numpy arrays or LoDTensors, one per
output (or None without outputs); ``backward_func`` gets X, Out and Out@GRAD in that order, less
``skip_vars_in_backward_input``, and returns X@GRAD (None for an input without a gradient: zeros).
The outputs must be created with their shape and dtype (``block.create_var``), as Fluid requires;
they carry no LoD. A returned value is cast to its output's dtype and must have its shape (a -1
dimension matches any size)."""

import numpy as np

from ..base.errors import PeError
from ..framework.lod_tensor import LoDTensor
from ..framework.variable import Variable
from ..kernels import py_callables
from .helper import LayerHelper

__all__ = ["py_func"]


def _as_list(v, what):
    if v is None:
        return []
    items = list(v) if isinstance(v, (list, tuple)) else [v]
    for item in items:
        if not isinstance(item, Variable):
            raise TypeError(f"py_func: {what} must be Variables, got {type(item).__name__}")
    return items


def _caller(func, outs, kind, zeros_for=None):
    """``func`` as the kernel calls it: (values, lods) -> one array per variable of ``outs``, each
    checked against the variable's shape and cast to its dtype. ``zeros_for``: for each output, the
    position of the input whose zeros stand for a None the function returns (the backward's X)."""

    def call(values, lods):
        args = [LoDTensor(v, lod) for v, lod in zip(values, lods)]
        ret = func(*args)
        if not outs:
            return []
        rets = list(ret) if isinstance(ret, (list, tuple)) else [ret]
        if len(rets) != len(outs):
            raise PeError(
                f"py_func: the {kind} function {func.__name__} returned {len(rets)} values for {len(outs)} outputs"
            )
        arrays = []
        for k, (value, var) in enumerate(zip(rets, outs)):
            if value is None and zeros_for is not None:
                if zeros_for[k] is None:
                    raise PeError(
                        f"py_func: the backward function {func.__name__} returned None for the "
                        f"gradient of '{var.name}', which it does not read (skipped)"
                    )
                value = np.zeros_like(np.asarray(values[zeros_for[k]]))
            array = np.asarray(value, dtype=var.dtype)
            want = var.shape or ()
            if len(want) != array.ndim or any(w >= 0 and w != s for w, s in zip(want, array.shape)):
                raise PeError(
                    f"py_func: the {kind} function {func.__name__} returned {list(array.shape)} for "
                    f"'{var.name}', declared {list(want)}"
                )
            arrays.append(array)
        return arrays

    return call


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Adds an op computing ``out = func(*x)`` in Python; returns ``out``."""
    if not callable(func) or (backward_func is not None and not callable(backward_func)):
        raise TypeError("py_func: func and backward_func must be callable")
    xs, outs = _as_list(x, "x"), _as_list(out, "out")
    skip = _as_list(skip_vars_in_backward_input, "skip_vars_in_backward_input")
    names = {v.name for v in xs + outs}
    stray = [v.name for v in skip if v.name not in names]
    if stray:
        raise PeError(f"py_func: skip_vars_in_backward_input {stray} are neither inputs nor outputs")
    shapeless = [v.name for v in outs if v.shape is None]
    if shapeless:
        raise PeError(
            f"py_func: outputs {shapeless} have no shape: create them with their shape and dtype "
            f"(block.create_var(name=..., shape=..., dtype=...))"
        )
    helper = LayerHelper("py_func")
    backward_id = -1
    if backward_func is not None:
        reads = [v for v in xs + outs if v.name not in {s.name for s in skip}]
        position = {v.name: i for i, v in enumerate(reads)}
        backward_id = py_callables.register(_caller(backward_func, xs, "backward", [position.get(v.name) for v in xs]))
    helper.append_op(
        "py_func",
        {"X": xs},
        {"Out": outs},
        {
            "forward_callable_id": py_callables.register(_caller(func, outs, "forward")),
            "backward_callable_id": backward_id,
            "backward_skip_vars": [v.name for v in skip],
        },
    )
    return out
