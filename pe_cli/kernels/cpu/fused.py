"""Kernels of the fused ops (pe_cli/ops/fused.py): the CPU kernels of the ops they replace, called
in the same order within one op (pe_cli/kernels/fused_math.py). A bias add, or an add of two arrays
of the same shape, followed by relu on float32/float64 runs one numba loop instead (_fused_loops.py;
the same numbers), as does an add followed by tanh or sigmoid on float32 (Y broadcast over a middle
run of X's dims too: the attention's query over its steps). Batch norm with relu in training runs
batch norm's loops with relu in their passes (normalization.batch_norm_loops,
normalization.bn_grad_loops; the same numbers).

fused_gemm_epilogue and its gradient are structured kernels: their meta rules are shapes/gemm.py's, their
out-kernels gemm.py's (mul's GEMM and its gradients, with the bias and relu, or relu's gradient, applied to each
block by the thread that computed it: the numbers of the unfused ops run one by one, to the bit)."""

import numpy as np

from ...shapes import gemm as gemm_meta
from ..fused_math import fused_kernels, fusion_group_kernel
from ..structured import adapter, fresh_output
from . import activation, elementwise, gemm, normalization, _replicas
from .launches import by_variant
from .runtime.loops import flat, is_float, lazy, parallel_parts, twin
from ..context import NO_CONTEXT

_loops = lazy("_fused_loops")
_KERNELS = fused_kernels(activation, elementwise, normalization)


def fused_elemwise_activation(ins, attrs, ctx=NO_CONTEXT):
    x, y = ins["X"], ins["Y"]
    functors = list(attrs["functor_list"])
    if functors[0] in _ADD_ACTS and functors[1] == "elementwise_add" and x.dtype == y.dtype == np.float32 and x.size:
        view = elementwise.middle_view(x, y, attrs["axis"])
        if view is not None:
            keep = "IntermediateOut" in ctx.wanted(("IntermediateOut",))
            return _add_act(x.shape, *view, functors[0], keep)
    relu = functors == ["relu", "elementwise_add"] and is_float(x, y)
    if relu and x.shape == y.shape and x.dtype == y.dtype:  # a residual connection: in chunks, on the threads
        inter, out = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
        parts = parallel_parts(x.size)
        args = (flat(x), flat(y), inter.reshape(-1), out.reshape(-1), parts)  # (serial: the chunks in turn)
        twin(_loops().add_relu, _loops().add_relu_parallel, parts > 1, *args, replica=_replicas.add_relu)(*args)
        return {"Out": out, "IntermediateOut": inter}
    run = elementwise.mid_run(x, y, attrs["axis"]) if relu else None
    if run is None or x.dtype != y.dtype:
        return _KERNELS["fused_elemwise_activation"](ins, attrs)
    inter, out = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
    loop = _loops().add_mid_relu_parallel if run[0] > 1 and parallel_parts(x.size) > 1 else _loops().add_mid_relu
    loop(
        np.ascontiguousarray(x).reshape(run), np.ascontiguousarray(y).reshape(-1), inter.reshape(run), out.reshape(run)
    )
    return {"Out": out, "IntermediateOut": inter}


_ADD_ACTS = ("sigmoid", "tanh")  # _fused_loops.add_act's activations (its codes SIGMOID, TANH)


def _add_act(shape, x, y, act, keep):
    """``act`` (tanh or sigmoid) of x + y, float32, X [a, b, c] and Y [ya, c] broadcast over b
    (elementwise.middle_view), in one pass of _fused_loops.add_act (on the device's threads for
    large X): the numbers of the add's and the activation's kernels. ``keep``: IntermediateOut too."""
    out = np.empty(x.shape, x.dtype)
    inter = np.empty(x.shape, x.dtype) if keep else x  # (x: a placeholder the loop never writes)
    parts, name = parallel_parts(x.size), "add_act_keep" if keep else "add_act"
    code = getattr(_loops(), act.upper())
    args = (x.reshape(-1), y.reshape(-1), inter.reshape(-1), out.reshape(-1), *x.shape, code, parts)
    twin(getattr(_loops(), name), getattr(_loops(), name + "_parallel"), parts > 1, *args)(*args)
    tail = x.size % 8
    if act == "sigmoid" and tail:  # the last size % 8 as the sigmoid kernel's (activation._libm_tail)
        at = np.arange(x.size - tail, x.size)
        rows = at // (x.shape[1] * x.shape[2]) if y.size > x.shape[2] else 0
        ys = y.reshape(-1)[rows * x.shape[2] + at % x.shape[2]]
        out.reshape(-1)[-tail:] = activation.libm_sigmoid(x.reshape(-1)[-tail:] + ys)
    outs = {"Out": out.reshape(shape)}
    if keep:
        outs["IntermediateOut"] = inter.reshape(shape)
    return outs


fused_elemwise_activation_grad = _KERNELS["fused_elemwise_activation_grad"]


def fused_batch_norm_act(ins, attrs):
    if attrs["act_type"] == "relu" and normalization.by_channel_loops(ins["X"], attrs, ins["Scale"], ins["Bias"]):
        return normalization.batch_norm_loops(ins, attrs, relu=True)
    return _KERNELS["fused_batch_norm_act"](ins, attrs)


def fused_batch_norm_act_grad(ins, attrs):
    x, y, dy = ins["X"], ins["Y"], ins["Y@GRAD"]
    if (
        attrs["act_type"] == "relu"
        and y.shape == dy.shape
        and normalization.by_channel_loops(x, attrs, ins["Scale"], y, dy, ins["SavedMean"], ins["SavedVariance"])
    ):
        return normalization.bn_grad_loops(ins, attrs, True, relu_out=y)
    return _KERNELS["fused_batch_norm_act_grad"](ins, attrs)


fusion_group = fusion_group_kernel(__package__)
fused_gemm_epilogue = adapter(gemm_meta.fused_gemm_meta, gemm.FUSED_GEMM, "fused_gemm_epilogue")
fused_gemm_epilogue_grad = adapter(gemm_meta.fused_gemm_grad_meta, gemm.FUSED_GEMM_GRAD, "fused_gemm_epilogue_grad")


def _fc_operands(ins, meta):
    """Input as [rows, K] and W's weighing part [K, N] (its first K rows and N columns with padding_weights)."""
    rows, k, n = meta.args
    return np.reshape(ins["Input"], (rows, k)), ins["W"][:k, :n]


def _fc(ins, outs, attrs, meta):
    x, w = _fc_operands(ins, meta)
    out, bias = outs["Out"].reshape(x.shape[0], w.shape[1]), ins.get("Bias")
    np.matmul(x, w, out=out)
    if bias is not None:
        np.add(out, bias.reshape(-1), out=out)
        if attrs["activation_type"] == "relu":
            np.maximum(out, 0, out=out)


def _fc_fresh(ins, outs, attrs, meta):
    x, w = _fc_operands(ins, meta)
    out, bias = np.matmul(x, w), ins.get("Bias")
    if bias is not None:
        out += bias.reshape(-1)
        if attrs["activation_type"] == "relu":
            np.maximum(out, 0, out=out)
    outs["Out"] = fresh_output(out.reshape(meta.outputs["Out"][0]), meta.outputs["Out"], tuple(ins.values()))


FC = by_variant("fc_out", None, out=_fc, fresh=_fc_fresh)
