"""fused_gemm_epilogue, the fused op the fuse_gemm_epilogue pass (pe_cli/compiler/passes/fuse_gemm_epilogue.py)
makes of a mul and the elementwise_add of its bias (and the relu after them, where there is one), and its
gradient op; it computes exactly what the ops it replaces compute, in the same order. Its kernels are structured: its meta rules
pe_cli/shapes/gemm.py's, its CPU out-kernels pe_cli/kernels/cpu/gemm.py's (its CUDA kernels
pe_cli/kernels/cuda/fused.py's)."""

from ..kernels.cpu import gemm as cpu_gemm
from ..shapes import gemm as meta_rules
from .define import Attr, Structured, fmt_shape, grads_like, register
from .fusion_patterns import FUSED_GEMM, grad_type


# -- fused_gemm_epilogue (the fuse_gemm_epilogue pass) ---------------------------------------------
# Paddle 2.3's op (slots named as its later op_compat names them: X, Y, Bias -> Out):
# Out = act(op(X) @ op(Y) + Bias), X flattened to [d0 * ... * d(r-2), d(r-1)] (with trans_x: to
# [d0, d1 * ... * d(r-1)], then transposed), Y 2-D, Bias [N]; act "none" or "relu". Paddle also
# takes "gelu", whose gradient reads the value before the activation, which Paddle keeps in a
# ReserveSpace output; pe keeps none, so the pass leaves a linear layer with gelu unfused.
#
# Its gradient op is Paddle's too: the backward of Out = op(X) @ op(Y) + Bias, where X itself may be
# the output of a relu whose gradient it applies to DX (activation_grad "relu_grad"): DX is then
# (DOut @ op(Y)^T) where X > 0, else 0. Paddle reads that mask from the ReserveSpace its forward
# wrote; pe reads it from X (relu's output is > 0 exactly where its input was). Each layer's own
# relu gradient is thus done by the layer below it (the pass fuses it there), so the backward of an
# MLP fused this way has no relu_grad op left.
GEMM_ACTIVATIONS = ("none", "relu")

_GEMM_ATTRS = {"trans_x": False, "trans_y": False, "activation": Attr("none", choices=GEMM_ACTIVATIONS)}
_GEMM_GRAD_ATTRS = {"trans_x": False, "trans_y": False, "activation_grad": Attr("none", choices=("none", "relu_grad"))}


def _infer_gemm(ctx):
    x, y, bias = ctx.shape("X"), ctx.shape("Y"), ctx.shape("Bias")
    a = ctx.attrs
    if len(x) < 2 or len(y) != 2 or len(bias) != 1:
        ctx.fail(
            f"needs X of rank >= 2, Y of rank 2 and Bias of rank 1, got X {fmt_shape(x)}, "
            f"Y {fmt_shape(y)}, Bias {fmt_shape(bias)}"
        )
    rows, k_x = (list(x[1:]), x[0]) if a["trans_x"] else (list(x[:-1]), x[-1])
    k_y, n = (y[1], y[0]) if a["trans_y"] else (y[0], y[1])
    if k_x >= 0 and k_y >= 0 and k_x != k_y:
        ctx.fail(
            f"X {fmt_shape(x)} (trans_x={a['trans_x']}) has {k_x} columns to multiply, Y {fmt_shape(y)} "
            f"(trans_y={a['trans_y']}) {k_y} rows"
        )
    if n >= 0 and bias[0] >= 0 and bias[0] != n:
        ctx.fail(f"Bias {fmt_shape(bias)} must have Out's {n} columns")
    for slot in ("Y", "Bias"):
        if ctx.dtype(slot) != ctx.dtype("X"):
            ctx.fail(f"X is {ctx.dtype('X')} but {slot} is {ctx.dtype(slot)}; cast one of them")
    ctx.set_output("Out", rows + [n], ctx.dtype("X"))


def _grad_gemm(g):
    """The gradient of a fused_gemm_epilogue: relu's (on Out) where it has one, then the GEMM's and
    the bias's."""
    dout = g.out_grad("Out")
    if g.attrs["activation"] == "relu":
        d_pre = [g.tmp(g.output("Out")[0], "pre")]
        g.op("relu_grad", {"Out": g.output("Out"), "Out@GRAD": dout}, {"X@GRAD": d_pre})
        dout = d_pre
    attrs = {"trans_x": g.attrs["trans_x"], "trans_y": g.attrs["trans_y"], "activation_grad": "none"}
    g.op(
        grad_type(FUSED_GEMM),
        {"DOut": dout, "X": g.input("X"), "Y": g.input("Y")},
        {"DX": g.in_grad("X"), "DY": g.in_grad("Y"), "DBias": g.in_grad("Bias")},
        attrs,
    )


def _infer_gemm_grad(ctx):
    grads_like({"DX": "X", "DY": "Y"})(ctx)
    y = ctx.shape("Y")
    ctx.set_output("DBias", [y[0] if ctx.attrs["trans_y"] else y[1]], ctx.dtype("Y"))


register(
    FUSED_GEMM,
    kernel_module="fused",
    inputs=["X", "Y", "Bias"],
    outputs=["Out"],
    attrs=_GEMM_ATTRS,
    infer=_infer_gemm,
    grad=_grad_gemm,
    grad_reads=("X", "Y", "Out"),
    structured=Structured(meta=meta_rules.fused_gemm_meta, cpu=cpu_gemm.FUSED_GEMM),
    doc="Out = act(op(X) @ op(Y) + Bias), act = activation (none, relu), X flattened to 2-D by its last "
    "dim (its first with trans_x). Made by the fuse_gemm_epilogue pass from mul, elementwise_add "
    "and relu.",
)
register(
    grad_type(FUSED_GEMM),
    kernel_module="fused",
    inputs=["DOut", "X", "Y"],
    outputs=["DX?", "DY?", "DBias?"],
    attrs=_GEMM_GRAD_ATTRS,
    infer=_infer_gemm_grad,
    traits=("optional_outputs",),
    structured=Structured(meta=meta_rules.fused_gemm_grad_meta, cpu=cpu_gemm.FUSED_GEMM_GRAD),
    doc="DY, DBias and DX of Out = op(X) @ op(Y) + Bias given DOut; with activation_grad relu_grad, DX is "
    "also zeroed where X (a relu's output) is not > 0. Made by the fuse_gemm_epilogue pass.",
)
