"""Kernels of the fused ops (pe_cli/ops/fused.py): the CPU kernels of the ops they replace, called
in the same order within one op (pe_cli/kernels/fused_math.py). A bias add, or an add of two arrays
of the same shape, followed by relu on float32/float64 runs one numba loop instead (_fused_loops.py;
the same numbers), as does an add followed by tanh or sigmoid on float32 (Y broadcast over a middle
run of X's dims too: the attention's query over its steps). Batch norm with relu in training runs
batch norm's loops with relu in their passes (batch_norm.relu_loops, batch_norm.relu_grad_loops; the same numbers).

fused_gemm_epilogue and its gradient are structured kernels: their meta rules are shapes/gemm.py's, their
out-kernels gemm.py's (mul's GEMM and its gradients, with the bias and relu, or relu's gradient, applied to each
block by the thread that computed it: the numbers of the unfused ops run one by one, to the bit)."""

import numpy as np

from ...shapes import fused as fused_meta, gemm as gemm_meta
from ..fused_math import fused_kernels, fusion_group_kernel
from ..structured import adapter, fresh_output
from . import activation, activation_rows, batch_norm as bn, elementwise, gemm, normalization, _replicas
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


def _inner_outs(outs, meta, ins, prefix="act:"):
    """The buffers an inner op's out-kernel is handed: its scratch (the fused Meta's, named ``prefix`` + name) and
    the outputs its Meta makes aliases of its inputs."""
    given = {k[len(prefix) :]: v for k, v in outs.items() if k.startswith(prefix)}
    for slot, src in meta.aliases.items():
        given[slot] = ins[src]
    return given


def _bn_act_relu_loops(ins, outs, attrs, meta):
    bn.relu_loops(ins, outs, attrs, meta.args[0])


def _bn_act(ins, outs, attrs, meta):
    """batch_norm's variant into Y, then the activation's out-kernel over it (into Y where it may write over its
    input; else into the scratch "activated", then Y)."""
    inner, act = meta.args
    bn.FORWARD(ins, outs, attrs, inner)
    y, act_ins = outs["Y"], {"X": outs["Y"]}
    given = _inner_outs(outs, act, act_ins)
    if not act.fresh:
        given["Out"] = outs.get("activated", y)
    activation_rows.FORWARD[attrs["act_type"]](act_ins, given, {}, act)
    if given["Out"] is not y:
        if meta.fresh:
            outs["Y"] = fresh_output(given["Out"], meta.outputs["Y"], tuple(ins.values()))
        else:
            np.copyto(y, given["Out"])


def _bn_act_grad_relu_loops(ins, outs, attrs, meta):
    bn.relu_grad_loops(ins, outs, attrs, meta.args[0], ins["Y"])


def _bn_act_grad(ins, outs, attrs, meta):
    """The activation's gradient into the scratch "dy", then batch_norm_grad's variant of it."""
    inner, act = meta.args
    act_ins = {"Out": ins["Y"], "Out@GRAD": ins["Y@GRAD"]}
    given = _inner_outs(outs, act, act_ins)
    if "dy" in outs:
        given["X@GRAD"] = outs["dy"]
    activation_rows.GRAD[attrs["act_type"]](act_ins, given, {}, act)
    bn_ins = {slot: ins[slot] for slot in ("X", "Scale", "SavedMean", "SavedVariance")}
    bn.GRAD(dict(bn_ins, **{"Y@GRAD": given["X@GRAD"]}), outs, attrs, inner)


BN_ACT = by_variant("fused_batch_norm_act_out", None, relu_loops=_bn_act_relu_loops, composed=_bn_act)
BN_ACT_GRAD = by_variant(
    "fused_batch_norm_act_grad_out", None, relu_loops=_bn_act_grad_relu_loops, composed=_bn_act_grad
)
# (the kernels by name, for the blocked layout's kernels made of them: blocked.py)
fused_batch_norm_act = adapter(fused_meta.bn_act_meta, BN_ACT, "fused_batch_norm_act")
fused_batch_norm_act_grad = adapter(fused_meta.bn_act_grad_meta, BN_ACT_GRAD, "fused_batch_norm_act_grad")


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
