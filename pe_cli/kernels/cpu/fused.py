"""Kernels of the fused ops (pe_cli/ops/fused.py). relu over a bias add, the case fusion exists for,
runs one numba loop each way (_fused_loops.py; forward in parallel over rows for large arrays, the
gradient serially, else through the unfused kernels' parallel loops); any other activation or
broadcast runs the two unfused kernels in turn, so every case computes what the unfused ops compute."""
import numpy as np

from ...activations import ROWS
from . import activation, elementwise
from ._numba import is_float, lazy, parallel_parts, twin
from .elementwise import mid_run

_loops = lazy("_fused_loops")


def _act_attrs(attrs):
    """The activation and its attributes (the table's defaults, then ``act_attrs``)."""
    act = attrs["functor_list"][0]
    return act, {**{p.name: p.default for p in ROWS[act].params}, **attrs["act_attrs"]}


def fused_elemwise_activation(ins, attrs):
    x, y = ins["X"], ins["Y"]
    act, act_attrs = _act_attrs(attrs)
    run = mid_run(x, y, attrs["axis"]) if is_float(x, y) else None
    if act == "relu" and run is not None and not attrs["save_intermediate_out"]:
        out = np.empty(x.shape, dtype=x.dtype)
        args = (np.ascontiguousarray(x).reshape(run), np.ascontiguousarray(y).reshape(-1), out.reshape(run))
        parallel = run[0] > 1 and parallel_parts(x.size) > 1
        twin(_loops().add_mid_relu, _loops().add_mid_relu_parallel, parallel, *args)(*args)
        return {"Out": out}
    pre = elementwise.elementwise_add({"X": x, "Y": y}, {"axis": attrs["axis"]})["Out"]
    out = getattr(activation, act)({"X": pre}, act_attrs)["Out"]
    return {"Out": out, "IntermediateOut": pre} if attrs["save_intermediate_out"] else {"Out": out}


def fused_elemwise_activation_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    act, act_attrs = _act_attrs(attrs)
    reads = "IntermediateOut" if "IntermediateOut" in ins and ins["IntermediateOut"] is not None else "Out"
    run = mid_run(x, y, attrs["axis"]) if is_float(x, y, dout) and dout.shape == x.shape else None
    if act == "relu" and reads == "Out" and run is not None and run[2] == 1 and parallel_parts(dout.size) == 1:
        out = ins["Out"]
        dx, dy = np.empty(dout.shape, dtype=dout.dtype), np.empty(y.shape, dtype=y.dtype)
        _loops().relu_grad_sum_rows(np.ascontiguousarray(out).reshape(run[:2]),
                                    np.ascontiguousarray(dout).reshape(run[:2]), dx.reshape(run[:2]), dy.reshape(-1))
        return {"X@GRAD": dx, "Y@GRAD": dy}
    key = "Out" if reads == "Out" else "X"
    dpre = getattr(activation, f"{act}_grad")({key: ins[reads], "Out@GRAD": dout}, act_attrs)["X@GRAD"]
    return elementwise.elementwise_add_grad({"X": x, "Y": y, "Out@GRAD": dpre}, {"axis": attrs["axis"]})
