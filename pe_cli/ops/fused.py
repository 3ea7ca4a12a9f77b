"""Fused ops made by the fusion passes (pe_cli/compiler/passes/fuse_*.py); each computes exactly
what the ops it replaces compute, in the same order, in one op (one node per device).

``fused_elemwise_activation``: ``IntermediateOut = elementwise_add(X, Y, axis)`` and
``Out = act(IntermediateOut)``, with ``functor_list = [act, "elementwise_add"]`` as in Fluid
(the unary functor applied to the binary one). ``act`` is an activation without attributes (relu,
tanh, sigmoid, ...: ``FUSABLE_ACTIVATIONS``). Its gradient op reads Out@GRAD and Out, and
IntermediateOut only where the activation's gradient reads its input (not for relu, tanh, sigmoid:
they read Out), so that IntermediateOut dies after the forward pass where nothing else reads it; it
gives X@GRAD and Y@GRAD as elementwise_add_grad does.

fused_gemm_epilogue is registered in fused_gemm.py."""

from ..base.dims import known_numel
from ..kernels.cpu import fused as cpu_fused
from ..shapes import fused as meta_rules
from ..shapes.structured import Structured
from .elementwise import broadcast_shape
from .normalization import _BN_ATTRS, infer_batch_norm, bn_blocked
from . import registry
from .define import Attr, fmt_shape, grads_like, one_shape_blocked, register
from .fusion_patterns import (
    BINARY_FUNCTORS,
    BN_ACTIVATIONS,
    FUSABLE_ACTIVATIONS,
    FUSED_BN_ACT,
    FUSION_GROUP,
    grad_type,
    reads_intermediate,
)

# the activations it takes, what the fuse_elewise_add_act_ops pass looks for and makes: fusion_patterns.py
UNARY_FUNCTORS = FUSABLE_ACTIVATIONS + ("scale",)


def _functors(value):
    """Fluid 1.8's two forms: [unary, binary] (Out = unary(binary(X, Y))) and [binary, unary]
    (Out = binary(X, unary(Y))); unary an activation or scale (by the attribute ``scale``)."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return False
    a, b = value
    return (a in UNARY_FUNCTORS and b in BINARY_FUNCTORS) or (a in BINARY_FUNCTORS and b in UNARY_FUNCTORS)


_ATTRS = {
    "functor_list": Attr(
        ["relu", "elementwise_add"],
        _functors,
        f"[unary, binary] or [binary, unary], binary one of {', '.join(BINARY_FUNCTORS)}, "
        f"unary scale or one of {', '.join(FUSABLE_ACTIVATIONS)}",
    ),
    "axis": -1,
    "scale": 0.0,
    "save_intermediate_out": False,
}


def _infer(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    out = broadcast_shape(x, y, ctx.attrs["axis"])
    if out is None:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} cannot broadcast (axis={ctx.attrs['axis']})")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    lod_level = ctx.input_var("X").lod_level
    inter = y if ctx.attrs["functor_list"][0] in BINARY_FUNCTORS else out  # unary(Y), or binary(X, Y)
    ctx.set_output("IntermediateOut", inter, ctx.dtype("X"), lod_level=lod_level)
    ctx.set_output("Out", out, ctx.dtype("X"), lod_level=lod_level)


def _grad(g):
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")}
    if reads_intermediate(g.attrs["functor_list"]):
        ins["IntermediateOut"] = g.output("IntermediateOut")
    g.op("fused_elemwise_activation_grad", ins, {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")}, g.attrs)


register(
    "fused_elemwise_activation",
    kernel_module="fused",
    inputs=["X", "Y"],
    outputs=["Out", "IntermediateOut"],
    blocked=one_shape_blocked,
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("X", "Y", "IntermediateOut", "Out"),
    traits=("optional_outputs",),
    doc="[unary, binary]: IntermediateOut = binary(X, Y) (Y broadcast into X from dim `axis`), Out = "
    "unary(IntermediateOut); [binary, unary]: IntermediateOut = unary(Y), Out = binary(X, IntermediateOut). "
    "binary: elementwise_add or elementwise_mul; unary: an activation or scale (times `scale`). Made "
    "([act, elementwise_add]) by the fuse_elewise_add_act_ops pass.",
    structured=Structured(meta=meta_rules.elemwise_act_meta, cpu=cpu_fused.ELEMWISE_ACT),
)
_infer_grads = grads_like({"X@GRAD": "X", "Y@GRAD": "Y"})


def _infer_grad(ctx):
    act = ctx.attrs["functor_list"][0]
    if reads_intermediate(ctx.attrs["functor_list"]) and not ctx.has_input("IntermediateOut"):
        ctx.fail(f"{act}'s gradient reads its input: give IntermediateOut (the forward op's)")
    _infer_grads(ctx)


register(
    "fused_elemwise_activation_grad",
    kernel_module="fused",
    blocked=one_shape_blocked,
    inputs=["X", "Y", "IntermediateOut?", "Out", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_ATTRS,
    infer=_infer_grad,
    structured=Structured(meta=meta_rules.elemwise_act_grad_meta, cpu=cpu_fused.ELEMWISE_ACT_GRAD),
)


def _add_functors(value):
    return _functors(value) and "elementwise_add" in value


# Paddle 2.x's name for the elementwise_add forms (its fuse_elewise_add_act pass writes this type)
_ADD_ATTRS = {
    **_ATTRS,
    "functor_list": Attr(
        ["relu", "elementwise_add"], _add_functors, "[unary, elementwise_add] or [elementwise_add, unary]"
    ),
    "with_quant_attr": Attr(False),
}


def _grad_add_act(g):
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")}
    if reads_intermediate(g.attrs["functor_list"]):
        ins["IntermediateOut"] = g.output("IntermediateOut")
    g.op("fused_elemwise_add_activation_grad", ins, {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")}, g.attrs)


register(
    "fused_elemwise_add_activation",
    kernel_module="fused",
    kernel="fused_elemwise_activation",
    inputs=["X", "Y"],
    outputs=["Out", "IntermediateOut"],
    attrs=_ADD_ATTRS,
    infer=_infer,
    grad=_grad_add_act,
    grad_reads=("X", "Y", "IntermediateOut", "Out"),
    traits=("optional_outputs",),
    doc="fused_elemwise_activation with elementwise_add as its binary functor (Paddle 2.x's op type).",
    structured=Structured(meta=meta_rules.elemwise_act_meta, cpu=cpu_fused.ELEMWISE_ACT),
)
register(
    "fused_elemwise_add_activation_grad",
    kernel_module="fused",
    kernel="fused_elemwise_activation_grad",
    inputs=["X", "Y", "IntermediateOut?", "Out", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_ADD_ATTRS,
    infer=_infer_grad,
    structured=Structured(meta=meta_rules.elemwise_act_grad_meta, cpu=cpu_fused.ELEMWISE_ACT_GRAD),
)


# -- fused_batch_norm_act (the fuse_bn_act_ops pass) ------------------------------------------------
# Y = act(batch_norm(X)) with batch_norm's inputs, statistics outputs and attributes; the value
# before the activation is not kept (nothing reads it: batch_norm_grad does not, nor does the
# gradient of an activation that reads Out, the ones taken here).
_BN_ACT_ATTRS = dict(_BN_ATTRS, act_type=Attr("relu", choices=BN_ACTIVATIONS))


def _grad_bn_act(g):
    ins = {
        "X": g.input("X"),
        "Scale": g.input("Scale"),
        "SavedMean": g.output("SavedMean"),
        "SavedVariance": g.output("SavedVariance"),
        "Y": g.output("Y"),
        "Y@GRAD": g.out_grad("Y"),
    }
    g.op(
        grad_type(FUSED_BN_ACT),
        ins,
        {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")},
        g.attrs,
    )


def _bn_act_blocked(op):
    """batch_norm's blocked groups where relu follows it."""
    return bn_blocked(op) if op.attrs["act_type"] == "relu" else ()


register(
    FUSED_BN_ACT,
    kernel_module="fused",
    blocked=_bn_act_blocked,
    grad_reads=("SavedMean", "SavedVariance", "Scale", "X", "Y"),
    inputs=["X", "Scale", "Bias", "Mean", "Variance"],
    outputs=["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"],
    attrs=_BN_ACT_ATTRS,
    infer=infer_batch_norm,
    grad=_grad_bn_act,
    traits=("batch_statistics",),
    doc="Y = act(batch_norm(X)), act = act_type (relu, ...); batch_norm's statistics outputs. "
    "Made by the fuse_bn_act_ops pass.",
    structured=Structured(meta=meta_rules.bn_act_meta, cpu=cpu_fused.BN_ACT),
)
register(
    grad_type(FUSED_BN_ACT),
    kernel_module="fused",
    blocked=_bn_act_blocked,
    inputs=["X", "Scale", "SavedMean", "SavedVariance", "Y", "Y@GRAD"],
    outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"],
    attrs=_BN_ACT_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}),
    structured=Structured(meta=meta_rules.bn_act_grad_meta, cpu=cpu_fused.BN_ACT_GRAD),
)


# -- relu + depthwise_conv2d (the fuse_relu_depthwise_conv pass) ------------------------------------
# No new op: depthwise_conv2d with the attribute RELU_FIRST convolves relu(Input), and its input
# gradient passes through relu's (the kernels: pe_cli/kernels/fused_math.py relu_first).


# -- fusion_group (the enable_auto_fusion pass) -----------------------------------------------------
# A chain of elementwise ops and activations run as one op: ``subgraph`` lists them in order, each
# [type, kernel module, kernel function, {slot: label}, {slot: label}, attrs], over labels: the
# ``input_names`` label the Inputs (in order), ``output_names`` the Outs. The kernel runs each op's
# kernel in turn (pe_cli/kernels/fused_math.py fusion_group_kernel). Made by the pass; no gradient
# (the program it is made in already has its backward ops).


def _rule_of(type_):
    """The meta rule of the op type ``type_`` (a subgraph entry's), or None where it has no structured kernel."""
    structured = registry.get(type_).structured
    return None if structured is None else structured.meta


def _check_subgraph(value):
    return isinstance(value, list) and all(isinstance(s, list) and len(s) == 6 for s in value)


def _infer_fusion_group(ctx):
    a = ctx.attrs
    if len(a["input_names"]) != ctx.num_inputs("Inputs") or len(a["output_names"]) != ctx.num_outputs("Outs"):
        ctx.fail(
            f"{ctx.num_inputs('Inputs')} Inputs and {ctx.num_outputs('Outs')} Outs, but input_names "
            f"has {len(a['input_names'])} labels and output_names {len(a['output_names'])}"
        )
    known = set(a["input_names"])
    for type_, _, _, ins, outs, _ in a["subgraph"]:
        missing = [label for label in ins.values() if label not in known]
        if missing:
            ctx.fail(f"{type_} in subgraph reads {missing}, which no input or earlier op gives")
        known |= set(outs.values())
    # the outputs keep the shapes the fused ops gave their variables


register(
    FUSION_GROUP,
    kernel_module="fused",
    inputs=["Inputs*"],
    outputs=["Outs*"],
    infer=_infer_fusion_group,
    attrs={
        "subgraph": Attr([], _check_subgraph, "a list of [type, module, function, ins, outs, attrs]"),
        "input_names": [],
        "output_names": [],
    },
    doc="Runs a chain of elementwise ops and activations (subgraph) as one op, over the labels "
    "input_names (Inputs) and output_names (Outs). Made by the enable_auto_fusion pass.",
    structured=Structured(meta=meta_rules.fusion_group_meta_of(_rule_of), cpu=cpu_fused.FUSION_GROUP),
)


# -- fc (Fluid 1.8's fc op, which its fc_fuse_pass makes of mul + elementwise_add (+ relu)) ---------
# fluid.layers.fc builds mul and elementwise_add, as in Fluid; the op comes in inference programs Fluid's
# passes rewrote. With padding_weights, W is [K + 4, N + 4] and its first K rows and N columns weigh.


def _infer_fc(ctx):
    x, w, a = ctx.shape("Input"), ctx.shape("W"), ctx.attrs
    if len(w) != 2:
        ctx.fail(f"W {fmt_shape(w)} must be 2-D")
    k, n = (w[0] - 4, w[1] - 4) if a["padding_weights"] else (w[0], w[1])
    cols = a["in_num_col_dims"]
    if len(x) <= cols:
        ctx.fail(f"Input {fmt_shape(x)} must have more than in_num_col_dims = {cols} dims")
    inner = known_numel(x[cols:])
    if inner >= 0 and k >= 0 and inner != k:
        ctx.fail(f"Input {fmt_shape(x)} flattened after dim {cols} has {inner} columns, W {fmt_shape(w)} {k} rows")
    if ctx.has_input("Bias") and known_numel(ctx.shape("Bias")) not in (n, -1):
        ctx.fail(f"Bias {fmt_shape(ctx.shape('Bias'))} must hold W's {n} columns")
    if a["activation_type"] == "relu" and not ctx.has_input("Bias"):
        ctx.fail("activation_type relu needs a Bias (as Fluid's kernel)")
    ctx.set_output("Out", list(x[:cols]) + [n], ctx.dtype("Input"), lod_level=ctx.input_var("Input").lod_level)


register(
    "fc",
    kernel_module="fused",
    inputs=["Input", "W", "Bias?"],
    outputs=["Out"],
    infer=_infer_fc,
    attrs={
        "in_num_col_dims": Attr(1, lambda v: v >= 1, ">= 1"),
        "activation_type": Attr("", choices=("", "relu")),
        "use_mkldnn": False,
        "padding_weights": False,
        "@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@": True,
        "use_quantizer": False,
        "Scale_in": 1.0,
        "Scale_weights": Attr([1.0]),
        "Scale_out": 1.0,
        "force_fp32_output": False,
    },
    doc="Out = Input (flattened to [d0 * ... * d(k-1), the rest], k = in_num_col_dims) @ W + Bias, then relu "
    "when activation_type is 'relu'; Out [d0, ..., d(k-1), N]. No gradient (Fluid's has none).",
    structured=Structured(meta=meta_rules.fc_meta, cpu=cpu_fused.FC),
)
