"""The meta rules of the fused ops of ops/fused.py (structured kernels, shapes/structured.py; the out-kernels:
kernels/cpu/fused.py).

fc: Out [d0, ..., d(k-1), N] of Input's dtype; "out" where Input, W and Bias share one float dtype (np.matmul, the
bias add and relu written through their out=), "fresh" otherwise (the numpy form, cast to Input's dtype).
``Meta.args``: (rows, K, N), W's weighing part [K, N] (its first K rows and N columns with padding_weights)."""

import numpy as np

from . import activation, normalization
from .structured import Meta, Spec as _Spec

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _one_float(*dtypes):
    dtypes = {np.dtype(d) for d in dtypes}
    return len(dtypes) == 1 and dtypes.pop() in _FLOATS


def fc_meta(attrs, ins, facts):
    x, w, bias = ins["Input"], ins["W"], ins.get("Bias")
    cols = attrs["in_num_col_dims"]
    k, n = (w.shape[0] - 4, w.shape[1] - 4) if attrs["padding_weights"] else tuple(w.shape)
    rows = 1
    for d in x.shape[:cols]:
        rows *= d
    outputs = {"Out": (tuple(x.shape[:cols]) + (n,), np.dtype(x.dtype))}
    dtypes = (x.dtype, w.dtype) + (() if bias is None else (bias.dtype,))
    if _one_float(*dtypes):
        return Meta(outputs, "out", args=(rows, k, n))
    return Meta(outputs, "fresh", fresh=True, args=(rows, k, n))


# -- fused_batch_norm_act: batch_norm's meta rule and the activation's ----------------------------------------------
# "relu_loops": batch_norm's "loops" or "loops_mixed" (``Meta.args[0]``, batch_norm's Meta) with relu in its pass;
# "composed": batch_norm's variant into Y (or the scratch "normalized" where the activation may not write over its
# input), then the activation's out-kernel (its Meta ``Meta.args[1]``) into Y. Fresh where either is.
# The gradient: "relu_loops" (batch_norm_grad's loops with relu's gradient in them), or "composed": the
# activation's gradient into the scratch "dy" (``Meta.args[1]``), then batch_norm_grad's (``Meta.args[0]``).


class _Fluid:
    """The facts a fused op's inner ops are decided with: Fluid's meaning, every output written (their kernels ran
    untold)."""

    paddle2 = False
    lod = {}

    @staticmethod
    def wanted(default):
        return default


def bn_act_meta(attrs, ins, facts):
    bn = normalization.batch_norm_meta(attrs, ins, facts)
    act = attrs["act_type"]
    if act == "relu" and bn.variant in ("loops", "loops_mixed"):
        return Meta(bn.outputs, "relu_loops", scratch=bn.scratch, aliases=bn.aliases, args=(bn,))
    y = bn.outputs["Y"]
    inner = activation.FORWARD[act]({}, {"X": _Spec(*y)}, _Fluid)
    scratch = dict(bn.scratch, **{"act:" + k: v for k, v in inner.scratch.items()})
    fresh = bn.fresh  # (a fresh activation: its array copied into Y)
    if not inner.fresh and (fresh or inner.inplace.get("Out") != "X"):
        scratch["activated"] = y  # (the activation's output, where it may not write over its input or Y is fresh)
    return Meta(bn.outputs, "composed", scratch=scratch, aliases=bn.aliases, args=(bn, inner), fresh=fresh)


def bn_act_grad_meta(attrs, ins, facts):
    x, y, dy = ins["X"], ins["Y"], ins["Y@GRAD"]
    if attrs["act_type"] == "relu" and tuple(y.shape) == tuple(dy.shape) and np.dtype(y.dtype) == np.dtype(x.dtype):
        bn = normalization.batch_norm_grad_meta(attrs, ins, facts)
        if bn.variant == "loops":
            return Meta(bn.outputs, "relu_loops", args=(bn,))
    act = activation.GRAD[attrs["act_type"]]({}, {"Out": y, "Out@GRAD": dy}, _Fluid)
    bn_ins = {slot: ins[slot] for slot in ("X", "Scale", "SavedMean", "SavedVariance")}
    bn_ins["Y@GRAD"] = _Spec(*act.outputs["X@GRAD"])
    bn = normalization.batch_norm_grad_meta(attrs, bn_ins, facts)
    scratch = dict(bn.scratch, **{"act:" + k: v for k, v in act.scratch.items()})
    if not act.fresh:
        scratch["dy"] = act.outputs["X@GRAD"]
    return Meta(bn.outputs, "composed", scratch=scratch, args=(bn, act), fresh=bn.fresh)
