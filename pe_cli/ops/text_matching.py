"""The text-matching ops of Fluid 1.8's contrib (from its "search" models: MatchPyramid-style
matching of a query's and a title's words), over LoD batches of pairs; kernels in
kernels/<device>/text_matching.py. Each output's LoD is the kernel's (sizes follow the data).

match_matrix_tensor: per pair b, X_b [lx, h] and Y_b [ly, h] (the b-th sequences of X and Y) give
Out_b = [X_b W[:, t, :] Y_b^T for t < dim_t], a [dim_t, lx, ly] block flattened into Out [.., 1];
Tmp keeps X W ([rows of X * dim_t * h, 1]).
var_conv_2d: per pair b, X's b-th sequence holds an image [InputChannel, h_b, w_b] (h_b, w_b: the
b-th sequence lengths of ROW and COLUMN); a convolution by W [OutputChannel, InputChannel * KernelH
* KernelW] (the kernel centred, zeros outside, strides StrideH / StrideW) gives [OutputChannel,
(h_b - 1) // StrideH + 1, (w_b - 1) // StrideW + 1], flattened into Out; Col keeps the im2col matrices.
sequence_topk_avg_pooling: per pair b, X's b-th sequence holds [channel_num, h_b, w_b]; for each
row and channel the averages of its top k values (sum of the top min(k, w_b), divided by k) for
each k of topks: Out [sum of h_b, channel_num * len(topks)] with ROW's LoD; pos the top positions."""

from ..kernels.cpu import text_matching as cpu
from ..shapes import text_matching as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grads_like, register


def _column(ctx, slot):
    shape = ctx.shape(slot)
    if len(shape) not in (1, 2) or shape[-1] not in (1, -1) and len(shape) == 2:
        ctx.fail(f"{slot} {fmt_shape(shape)} must be [N, 1] or [N] (a LoDTensor of flattened blocks)")


def _infer_match(ctx):
    x, y, w = ctx.shape("X"), ctx.shape("Y"), ctx.shape("W")
    if (
        len(x) != 2
        or len(y) != 2
        or len(w) != 3
        or w[1] != ctx.attrs["dim_t"]
        or (x[1] >= 0 and w[0] != x[1])
        or (y[1] >= 0 and w[2] != y[1])
    ):
        ctx.fail(
            f"X {fmt_shape(x)}, Y {fmt_shape(y)} and W {fmt_shape(w)} must be [lx, h], [ly, h] and "
            f"[h, dim_t={ctx.attrs['dim_t']}, h]"
        )
    ctx.set_output("Out", [-1, 1], ctx.dtype("X"), lod_level=1)
    ctx.set_output("Tmp", [-1, 1], ctx.dtype("X"))


def _infer_var_conv(ctx):
    _column(ctx, "X")
    a, w = ctx.attrs, ctx.shape("W")
    if list(w) != [a["OutputChannel"], a["InputChannel"] * a["KernelH"] * a["KernelW"]]:
        ctx.fail(
            f"W {fmt_shape(w)} must be [OutputChannel, InputChannel * KernelH * KernelW] = "
            f"[{a['OutputChannel']}, {a['InputChannel'] * a['KernelH'] * a['KernelW']}]"
        )
    ctx.set_output("Out", [-1, 1], ctx.dtype("X"), lod_level=1)
    ctx.set_output("Col", [-1, 1], ctx.dtype("X"), lod_level=1)


def _infer_topk(ctx):
    # (no check of X's shape: as Fluid's, the kernel checks its values against the blocks' sizes)
    topks = ctx.attrs["topks"]
    if not topks or any(k < 1 for k in topks):
        ctx.fail(f"topks {topks} must be ints >= 1")
    ctx.set_output("Out", [-1, ctx.attrs["channel_num"] * len(topks)], ctx.dtype("X"), lod_level=1)
    ctx.set_output("pos", [-1], "int32")


def _grad_maker(grad_type, reads, grads):
    def grad(g):
        g.op(
            grad_type,
            dict({s: g.input(s) for s in reads}, **{"Out@GRAD": g.out_grad("Out")}),
            {f"{s}@GRAD": g.in_grad(s) for s in grads},
            g.attrs,
        )

    return grad


_POSITIVE = Attr(1, lambda v: v > 0, "> 0")
_CONV = {
    "InputChannel": _POSITIVE,
    "OutputChannel": _POSITIVE,
    "StrideH": _POSITIVE,
    "StrideW": _POSITIVE,
    "KernelH": _POSITIVE,
    "KernelW": _POSITIVE,
}
_TOPK = {"topks": Attr(list), "channel_num": _POSITIVE}
_SPECS = [
    ("match_matrix_tensor", ["X", "Y", "W"], ["Out", "Tmp"], {"dim_t": _POSITIVE}, _infer_match, ("X", "Y", "W")),
    ("var_conv_2d", ["X", "ROW", "COLUMN", "W"], ["Out", "Col"], _CONV, _infer_var_conv, ("X", "W")),
    ("sequence_topk_avg_pooling", ["X", "ROW", "COLUMN"], ["Out", "pos"], _TOPK, _infer_topk, ("X",)),
]
for _type, _ins, _outs, _attrs, _infer, _grads in _SPECS:
    register(
        _type,
        kernel_module="text_matching",
        structured=Structured(meta=getattr(metas, _type + "_meta"), cpu=getattr(cpu, _type + "_out")),
        inputs=_ins,
        outputs=_outs,
        attrs=_attrs,
        infer=_infer,
        grad=_grad_maker(_type + "_grad", _ins, _grads),
        grad_reads=tuple(_ins),
        lod="drop",
        needs_lod=True,
        doc=f"{_type}: see the module's doc.",
    )
    register(
        _type + "_grad",
        kernel_module="text_matching",
        structured=Structured(meta=getattr(metas, _type + "_grad_meta"), cpu=getattr(cpu, _type + "_grad_out")),
        inputs=_ins + ["Out@GRAD"],
        outputs=[f"{s}@GRAD?" for s in _grads],
        attrs=_attrs,
        needs_lod=True,
        lod="drop",
        infer=grads_like({f"{s}@GRAD": s for s in _grads}),
    )
