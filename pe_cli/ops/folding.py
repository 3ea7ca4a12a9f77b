"""fold (paddle.nn.functional.fold, nn.Fold): unfold's inverse as a sum, col2im: X [N, C * kh * kw, L] (each
column one kh x kw block) added back into Y [N, C, H, W] (H, W = output_sizes) at its place, as unfold reads
it (paddings: up, left, down, right; dilations, strides). Kernels: unfold's gradient (col2im) and, for the
gradient, unfold itself (kernels/<device>/image.py)."""

from ..kernels.cpu import folding as cpu
from ..shapes import framing as metas
from .define import Attr, Structured, fmt_shape, grad_of, grads_like, int_list, register
from .pointwise_math import QUANT

_PAIR = Attr(list, lambda v: int_list(v) and len(v) == 2, "two ints")
_ATTRS = {
    "output_sizes": _PAIR,
    "kernel_sizes": _PAIR,
    "strides": _PAIR,
    "paddings": Attr(list, lambda v: int_list(v) and len(v) in (2, 4), "two or four ints"),
    "dilations": _PAIR,
    **QUANT,
}


def blocks(attrs):
    """(out_h, out_w): how many blocks fit along each dim of Y."""
    p = list(attrs["paddings"]) * (2 if len(attrs["paddings"]) == 2 else 1)
    (h, w), (kh, kw), (sh, sw), (dh, dw) = (attrs[k] for k in ("output_sizes", "kernel_sizes", "strides", "dilations"))
    return ((h + p[0] + p[2] - (dh * (kh - 1) + 1)) // sh + 1, (w + p[1] + p[3] - (dw * (kw - 1) + 1)) // sw + 1)


def _infer(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    kh, kw = a["kernel_sizes"]
    bh, bw = blocks(a)
    if len(x) != 3 or (x[1] >= 0 and x[1] % (kh * kw)) or (x[2] >= 0 and x[2] != bh * bw):
        ctx.fail(
            f"X {fmt_shape(x)} must be [N, C * {kh * kw}, {bh * bw}] (the blocks of output_sizes "
            f"{list(a['output_sizes'])})"
        )
    ctx.set_output("Y", [x[0], x[1] // (kh * kw) if x[1] >= 0 else -1] + list(a["output_sizes"]), ctx.dtype("X"))


register(
    "fold",
    kernel_module="folding",
    structured=Structured(meta=metas.fold_meta, cpu=cpu.fold_out),
    inputs=["X"],
    outputs=["Y"],
    attrs=_ATTRS,
    infer=_infer,
    grad=grad_of("fold_grad", ("X",), out_grads=("Y",)),
    grad_reads=("X",),
    lod="drop",
    doc="Y [N, C, H, W] = the columns of X [N, C * kh * kw, L] added back at their blocks (col2im).",
)
register(
    "fold_grad",
    kernel_module="folding",
    structured=Structured(meta=metas.fold_grad_meta, cpu=cpu.fold_grad_out),
    inputs=["X", "Y@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
    lod="drop",
)
