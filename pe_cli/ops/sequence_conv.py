"""sequence_conv: a 1-D convolution along each sequence's time steps (Fluid's context projection
then a GEMM): row t of Out = [X[t + start], ..., X[t + start + length - 1]] @ Filter, with zero
rows outside the sequence (or, with paddingTrainable, rows of PaddingData [up + down, D], up =
max(0, -contextStart) rows for the steps before a sequence and down = max(0, contextStart +
contextLength - 1) for those past its end, a trainable input as Fluid's). Out keeps X's LoD."""

from ..kernels.cpu import sequence_conv as cpu_sequence_conv
from ..shapes import convolution_irregular as rules
from .define import Attr, Structured, grads_like, register
from .sequence import need_lod

_ATTRS = {
    "contextLength": Attr(3, lambda v: v > 0, "> 0"),
    "contextStart": 0,
    "contextStride": Attr(1, lambda v: v == 1, "1 (the only stride Fluid supports)"),
    "paddingTrainable": False,
}


def _infer(ctx):
    x = need_lod(ctx, "X", "sequence_conv")
    f = ctx.shape("Filter")
    n = ctx.attrs["contextLength"]
    if not f or len(f) != 2 or (x.shape and x.shape[-1] > 0 and f[0] != n * x.shape[-1]):
        ctx.fail(
            f"Filter {list(f or [])} must be [contextLength * D, num_filters] = "
            f"[{n} * {x.shape[-1] if x.shape else '?'}, num_filters] for X {list(x.shape or [])}"
        )
    start = ctx.attrs["contextStart"]
    if ctx.attrs["paddingTrainable"] and ctx.has_input("PaddingData") and x.shape:
        pad, want = ctx.shape("PaddingData"), [max(0, -start) + max(0, start + n - 1), x.shape[-1]]
        if len(pad or []) != 2 or any(p != w and p >= 0 and w >= 0 for p, w in zip(pad, want)):
            ctx.fail(
                f"PaddingData {list(pad or [])} must be {want}: the rows before and after a sequence that "
                f"contextStart={start} and contextLength={n} reach, of X's width"
            )
    ctx.set_output("Out", [-1, f[1]], x.dtype, lod_level=x.lod_level)


def _grad(g):
    ins = {"X": g.input("X"), "Filter": g.input("Filter"), "Out@GRAD": g.out_grad("Out")}
    outs = {"X@GRAD": g.in_grad("X"), "Filter@GRAD": g.in_grad("Filter")}
    if g.input("PaddingData"):
        ins["PaddingData"], outs["PaddingData@GRAD"] = g.input("PaddingData"), g.in_grad("PaddingData")
    g.op("sequence_conv_grad", ins, outs, g.attrs)


register(
    "sequence_conv",
    kernel_module="sequence_conv",
    inputs=["X", "Filter", "PaddingData?"],
    outputs=["Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("X", "Filter", "PaddingData"),
    needs_lod=True,
    run_lod={"X": None},
    structured=Structured(meta=rules.sequence_conv_meta, cpu=cpu_sequence_conv.sequence_conv),
    doc="Out[t] = concat(X[t + contextStart + k] for k < contextLength, zeros outside t's sequence, or "
    "PaddingData's rows with paddingTrainable) @ Filter.",
)
register(
    "sequence_conv_grad",
    kernel_module="sequence_conv",
    inputs=["X", "Filter", "PaddingData?", "Out@GRAD"],
    outputs=["X@GRAD?", "Filter@GRAD?", "PaddingData@GRAD?"],
    attrs=_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Filter@GRAD": "Filter", "PaddingData@GRAD": "PaddingData"}),
    lod="drop",
    needs_lod=True,
    structured=Structured(meta=rules.sequence_conv_grad_meta, cpu=cpu_sequence_conv.sequence_conv_grad),
)
