"""The meta rules of the fused ops of ops/fused.py (structured kernels, shapes/structured.py; the out-kernels:
kernels/cpu/fused.py).

fc: Out [d0, ..., d(k-1), N] of Input's dtype; "out" where Input, W and Bias share one float dtype (np.matmul, the
bias add and relu written through their out=), "fresh" otherwise (the numpy form, cast to Input's dtype).
``Meta.args``: (rows, K, N), W's weighing part [K, N] (its first K rows and N columns with padding_weights)."""

import numpy as np

from ..base.activations import TABLE
from ..base.errors import PeError
from . import activation, elementwise, normalization, scaling
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


# -- fused_elemwise_activation (and fused_elemwise_add_activation) ----------------------------------------------------
# Variants: "add_act" (tanh or sigmoid of X + Y, float32, Y broadcast along one middle run of X's dims: one pass of
# _fused_loops.add_act over X as [a, b, c] and Y as [ya, c], ``Meta.args``; IntermediateOut only where the op
# writes it), "add_relu" (relu of X + Y of one shape and float dtype: _fused_loops.add_relu), "add_mid_relu" (a
# bias Y of X's dims from ``axis``: add_mid_relu over [pre, n, post]); "composed" otherwise: the binary op's and the
# unary one's meta rules and out-kernels in the order the functors say (``Meta.args``: (tag, the inner op, its
# Meta) per step), each inner output in the scratch ``tag:slot`` (fresh: the outputs are the inner steps' arrays).
# The gradient: "composed", the unary op's gradient and the binary op's (IntermediateOut recomputed where it is not
# given and the unary gradient reads it), as Fluid's kernel composes them.

BINARY = ("elementwise_add", "elementwise_mul")
ADD_ACTS = ("sigmoid", "tanh")
_LOOP_DTYPES = _FLOATS
ACT_READS = {row.name: row.reads for row in TABLE}  # (what each activation's gradient reads)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def middle_shape(xs, ys, axis):
    """((a, b, c), (a, c)) where Y under Fluid's axis rule is broadcast along one run of X's dims (b) with X's dims
    or 1s before it (elementwise.middle_form); None otherwise."""
    form = elementwise.middle_form(xs, ys, axis)
    return None if form is None else (form, (form[0], form[2]))


def unary_meta(name, attrs, x):
    """(the unary functor's op type, its attributes, its Meta over ``x``): scale (by ``scale``) or an activation."""
    if name == "scale":
        a = {"scale": attrs["scale"], "bias": 0.0, "bias_after_scale": True}
        return "scale", a, scaling.scale_meta(a, {"X": x}, _Fluid)
    return name, {}, activation.FORWARD[name]({}, {"X": x}, _Fluid)


def unary_grad_meta(name, attrs, x, out, dout):
    """The unary functor's gradient: scale's is scale of dOut; an activation's its grad op over what it reads."""
    if name == "scale":
        return unary_meta(name, attrs, dout)
    reads = ACT_READS[name]
    return name + "_grad", {}, activation.GRAD[name]({}, {reads: x if reads == "X" else out, "Out@GRAD": dout}, _Fluid)


def _spec(meta, slot):
    return _Spec(*meta.outputs[slot])


def _composed(outputs, steps):
    scratch = {}
    for tag, _, _, inner in steps:
        scratch.update({f"{tag}:{k}": v for k, v in inner.scratch.items()})
        if not inner.fresh:
            scratch.update({f"{tag}:{s}": v for s, v in inner.outputs.items() if s not in inner.aliases})
    return Meta(outputs, "composed", scratch=scratch, fresh=True, args=tuple(steps))


def elemwise_act_meta(attrs, ins, facts):
    x, y, axis = ins["X"], ins["Y"], attrs["axis"]
    (f0, f1), xs, ys = attrs["functor_list"], tuple(x.shape), tuple(y.shape)
    xd, yd = np.dtype(x.dtype), np.dtype(y.dtype)
    both = {"Out": (xs, xd), "IntermediateOut": (xs, xd)}
    if f0 in ADD_ACTS and f1 == "elementwise_add" and xd == yd == np.float32 and _numel(xs):
        view = middle_shape(xs, ys, axis)
        if view is not None:
            keep = "IntermediateOut" in facts.wanted(("IntermediateOut",))
            return Meta(both if keep else {"Out": both["Out"]}, "add_act", args=(view, f0, keep))
    if [f0, f1] == ["relu", "elementwise_add"] and xd in _LOOP_DTYPES and xd == yd:
        if xs == ys:  # (a residual connection)
            return Meta(both, "add_relu")
        run = elementwise.mid_run(xs, ys, axis)
        if run is not None:
            return Meta(both, "add_mid_relu", args=(run,))
    binary_attrs = {"axis": axis}
    if f0 in BINARY:  # Out = binary(X, unary(Y))
        u_type, u_attrs, u = unary_meta(f1, attrs, y)
        b = elementwise.FORWARD[f0[12:]](binary_attrs, {"X": x, "Y": _spec(u, "Out")}, _Fluid)
        steps = [("unary", u_type, u_attrs, u), ("binary", f0, binary_attrs, b)]
        return _composed({"Out": b.outputs["Out"], "IntermediateOut": u.outputs["Out"]}, steps)
    b = elementwise.FORWARD[f1[12:]](binary_attrs, {"X": x, "Y": y}, _Fluid)  # Out = unary(binary(X, Y))
    u_type, u_attrs, u = unary_meta(f0, attrs, _spec(b, "Out"))
    steps = [("binary", f1, binary_attrs, b), ("unary", u_type, u_attrs, u)]
    return _composed({"Out": u.outputs["Out"], "IntermediateOut": b.outputs["Out"]}, steps)


def elemwise_act_grad_meta(attrs, ins, facts):
    x, y, out, dout, inter = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"], ins.get("IntermediateOut")
    (f0, f1), binary_attrs, steps = attrs["functor_list"], {"axis": attrs["axis"]}, []
    if f0 in BINARY:  # Out = binary(X, unary(Y))
        if inter is None:
            u_type, u_attrs, u = unary_meta(f1, attrs, y)
            steps.append(("inter", u_type, u_attrs, u))
            inter = _spec(u, "Out")
        b_ins = {"X": x, "Y": inter, "Out": out, "Out@GRAD": dout}
        b = elementwise.GRAD[f0[12:]](binary_attrs, b_ins, _Fluid)
        g_type, g_attrs, g = unary_grad_meta(f1, attrs, y, inter, _spec(b, "Y@GRAD"))
        steps += [("binary", f0 + "_grad", binary_attrs, b), ("unary", g_type, g_attrs, g)]
        return _composed({"X@GRAD": b.outputs["X@GRAD"], "Y@GRAD": g.outputs[_out_slot(g_type)]}, steps)
    if inter is None and ACT_READS.get(f0) == "X":  # Out = unary(binary(X, Y))
        r = elementwise.FORWARD[f1[12:]](binary_attrs, {"X": x, "Y": y}, _Fluid)
        steps.append(("inter", f1, binary_attrs, r))
        inter = _spec(r, "Out")
    g_type, g_attrs, g = unary_grad_meta(f0, attrs, inter, out, dout)
    b_ins = {"X": x, "Y": y, "Out": out, "Out@GRAD": _spec(g, _out_slot(g_type))}
    b = elementwise.GRAD[f1[12:]](binary_attrs, b_ins, _Fluid)
    steps += [("unary", g_type, g_attrs, g), ("binary", f1 + "_grad", binary_attrs, b)]
    return _composed(dict(b.outputs), steps)


def _out_slot(op_type):
    return "X@GRAD" if op_type.endswith("_grad") else "Out"


# -- fusion_group: its subgraph's ops' meta rules in turn ------------------------------------------------------------


def fusion_group_meta_of(rule_of):
    """fusion_group's meta rule, ``rule_of(type)`` giving the meta rule of a subgraph entry's op type (None: it has
    none; the entry's kernel, kernels/<device>/<module>.py's function, is that op's). "composed": each entry's Meta (``Meta.args``) decided on the labels' shapes and dtypes
    in turn, its outputs in the scratch ``i:slot`` (the i-th entry's; a fresh one's arrays its own); Outs the output
    labels' values handed over (fresh)."""

    def meta(attrs, ins, facts):
        specs = dict(zip(attrs["input_names"], ins["Inputs"]))
        steps, scratch = [], {}
        for i, (type_, module, function, op_ins, op_outs, op_attrs) in enumerate(attrs["subgraph"]):
            rule = rule_of(type_)
            if rule is None:
                raise PeError(f"fusion_group: {type_} in subgraph ({module}.{function}) has no structured kernel")
            inner = rule(op_attrs, {slot: specs[label] for slot, label in op_ins.items()}, _Fluid)
            scratch.update({f"{i}:{k}": v for k, v in inner.scratch.items()})
            if not inner.fresh:
                left = {*inner.aliases, *inner.views}
                scratch.update({f"{i}:{s}": v for s, v in inner.outputs.items() if s not in left})
            specs.update({label: _Spec(*inner.outputs[slot]) for slot, label in op_outs.items()})
            steps.append(inner)
        outs = [(tuple(specs[label].shape), np.dtype(specs[label].dtype)) for label in attrs["output_names"]]
        return Meta({"Outs": outs}, "composed", scratch=scratch, fresh=True, args=tuple(steps))

    return meta
