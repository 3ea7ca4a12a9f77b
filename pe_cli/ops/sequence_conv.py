"""sequence_conv: a 1-D convolution along each sequence's time steps (Fluid's context projection
then a GEMM): row t of Out = [X[t + start], ..., X[t + start + length - 1]] @ Filter, with zero
rows outside the sequence. Out keeps X's LoD."""
from .define import Attr, grads_like, register
from .sequence import _need_lod

_ATTRS = {"contextLength": Attr(3, lambda v: v > 0, "> 0"), "contextStart": 0,
          "contextStride": Attr(1, lambda v: v == 1, "1 (the only stride Fluid supports)"),
          "paddingTrainable": Attr(False, lambda v: v is False, "False (trainable padding is not supported)")}


def _infer(ctx):
    x = _need_lod(ctx, "X", "sequence_conv")
    f = ctx.shape("Filter")
    n = ctx.attrs["contextLength"]
    if not f or len(f) != 2 or (x.shape and x.shape[-1] > 0 and f[0] != n * x.shape[-1]):
        ctx.fail(f"Filter {list(f or [])} must be [contextLength * D, num_filters] = "
                 f"[{n} * {x.shape[-1] if x.shape else '?'}, num_filters] for X {list(x.shape or [])}")
    ctx.set_output("Out", [-1, f[1]], x.dtype, lod_level=x.lod_level)


def _grad(g):
    g.op("sequence_conv_grad", {"X": g.input("X"), "Filter": g.input("Filter"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Filter@GRAD": g.in_grad("Filter")}, g.attrs)


register("sequence_conv", kernel_module="sequence_conv", inputs=["X", "Filter"], outputs=["Out"], attrs=_ATTRS,
         infer=_infer, grad=_grad, grad_reads=("X", "Filter"), needs_lod=True,
         doc="Out[t] = concat(X[t + contextStart + k] for k < contextLength, zeros outside t's sequence) @ Filter.")
register("sequence_conv_grad", kernel_module="sequence_conv", inputs=["X", "Filter", "Out@GRAD"],
         outputs=["X@GRAD?", "Filter@GRAD?"], attrs=_ATTRS,
         infer=grads_like({"X@GRAD": "X", "Filter@GRAD": "Filter"}), lod="drop", needs_lod=True)
