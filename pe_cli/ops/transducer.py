"""The RNN-T (transducer) loss (Paddle 2.x's warprnnt, behind paddle.nn.functional.rnnt_loss;
kernels in kernels/<device>/transducer.py, the per-sequence program in kernels/transducer_dp.py). Structured: meta
rules in shapes/transducer.py."""

from ..kernels.cpu import transducer as cpu_transducer
from ..shapes import transducer as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grads_like, is_int, register


def _infer(ctx):
    x, label = ctx.shape("input"), ctx.shape("label")
    if x is None or len(x) != 4:
        ctx.fail(f"input {fmt_shape(x)} must be 4-D [B, T, U + 1, V] log-probabilities")
    if ctx.dtype("input") not in ("float32", "float64"):
        ctx.fail(f"input is {ctx.dtype('input')}; it must be float32 or float64")
    for slot, want in (("label", 2), ("input_lengths", 1), ("label_lengths", 1)):
        if ctx.dtype(slot) != "int32" or len(ctx.shape(slot) or []) != want:
            ctx.fail(f"{slot} {fmt_shape(ctx.shape(slot))} ({ctx.dtype(slot)}) must be {want}-D int32")
    if x[2] >= 0 and label[1] >= 0 and label[1] + 1 != x[2]:
        ctx.fail(f"input {fmt_shape(x)} must have U + 1 = {label[1] + 1} label positions for label {fmt_shape(label)}")
    ctx.set_output("loss", [x[0]], ctx.dtype("input"))
    ctx.set_output("warprnntgrad", list(x), ctx.dtype("input"))


def _grad(g):
    g.op(
        "warprnnt_grad",
        {"input": g.input("input"), "warprnntgrad": g.output("warprnntgrad"), "loss@GRAD": g.out_grad("loss")},
        {"input@GRAD": g.in_grad("input")},
        g.attrs,
    )


_ATTRS = {"blank": Attr(0, lambda v: is_int(v) and v >= 0, "an int >= 0"), "fastemit_lambda": 0.0}
register(
    "warprnnt",
    kernel_module="transducer",
    structured=Structured(meta=metas.warprnnt_meta, cpu=cpu_transducer.warprnnt_out),
    inputs=["input", "label", "input_lengths", "label_lengths"],
    outputs=["warprnntgrad", "loss"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("input", "warprnntgrad"),
    doc="loss[b] = -log p(label[b, :label_lengths[b]] | input[b, :input_lengths[b]]) of the RNN-T lattice, "
    "input holding log-probabilities [B, T, U + 1, V] (no softmax applied, as Paddle's): a blank moves "
    "one step in time, a label one position in the labels, ending with a blank at the last step. "
    "warprnntgrad = d loss / d input (FastEmit scales the label transitions' by 1 + fastemit_lambda).",
)
register(
    "warprnnt_grad",
    kernel_module="transducer",
    structured=Structured(meta=metas.warprnnt_grad_meta, cpu=cpu_transducer.warprnnt_grad_out),
    inputs=["input", "warprnntgrad", "loss@GRAD"],
    outputs=["input@GRAD"],
    attrs=_ATTRS,
    infer=grads_like({"input@GRAD": "input"}),
)
