"""Kernels of the fused ops (pe_cli/ops/fused.py): the CPU kernels of the ops they replace, called
in the same order within one op (pe_cli/kernels/fused_math.py). A bias add followed by relu on
float32/float64 runs one numba loop instead (_fused_loops.py; the same numbers)."""
import numpy as np

from ..fused_math import fused_kernels, fusion_group_kernel
from . import activation, elementwise, nn
from ._numba import is_float, lazy, parallel_parts

_loops = lazy("_fused_loops")
_KERNELS = fused_kernels(activation, elementwise, nn)


def fused_elemwise_activation(ins, attrs):
    x, y = ins["X"], ins["Y"]
    run = elementwise.mid_run(x, y, attrs["axis"]) if attrs["functor_list"][0] == "relu" and is_float(x, y) else None
    if run is None or x.dtype != y.dtype:
        return _KERNELS["fused_elemwise_activation"](ins, attrs)
    inter, out = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
    loop = _loops().add_mid_relu_parallel if run[0] > 1 and parallel_parts(x.size) > 1 else _loops().add_mid_relu
    loop(np.ascontiguousarray(x).reshape(run), np.ascontiguousarray(y).reshape(-1), inter.reshape(run), out.reshape(run))
    return {"Out": out, "IntermediateOut": inter}


fused_elemwise_activation_grad = _KERNELS["fused_elemwise_activation_grad"]
fused_batch_norm_act = _KERNELS["fused_batch_norm_act"]
fused_batch_norm_act_grad = _KERNELS["fused_batch_norm_act_grad"]
fusion_group = fusion_group_kernel(__package__)
