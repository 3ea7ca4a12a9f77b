"""Paddle 2.x's diagonal ops, under Paddle 2.6's op types: diag_v2 (a vector to a matrix with it on the offset
diagonal, padding_value elsewhere; a matrix to its offset diagonal), diagonal (the offset diagonal of the
planes axis1 x axis2, appended as the last dim) and fill_diagonal (X with `value` written at Paddle's diagonal
positions: every stride-th element of the flattened X, offset along the row, wrap or not). Gradients move
Out@GRAD back to the diagonal (fill_diagonal's: Out@GRAD with those positions zeroed)."""

from ..kernels.cpu import diagonals as cpu_diagonals
from ..shapes import diagonals as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grads_like, is_int, register
from .pointwise_math import QUANT


def _grad_of(name, slot="X"):
    def grad(g):
        g.op(
            f"{name}_grad",
            {slot: g.input(slot), "Out@GRAD": g.out_grad("Out")},
            {f"{slot}@GRAD": g.in_grad(slot)},
            g.attrs,
        )

    return grad


def _op(name, infer, attrs, doc, structured, slot="X"):
    """The op and its grad op; ``structured``: their structured kernels."""
    attrs = {**attrs, **QUANT}
    register(
        name,
        kernel_module="diagonals",
        inputs=[slot],
        outputs=["Out"],
        attrs=attrs,
        infer=infer,
        lod="drop",
        grad=_grad_of(name, slot),
        grad_reads=(slot,),
        doc=doc,
        structured=structured[0],
    )
    register(
        f"{name}_grad",
        kernel_module="diagonals",
        inputs=[slot, "Out@GRAD"],
        outputs=[f"{slot}@GRAD"],
        attrs=attrs,
        infer=grads_like({f"{slot}@GRAD": slot}),
        no_need_buffer=(slot,),
        structured=structured[1],
    )


def diag_length(rows, cols, offset):
    """The length of the offset diagonal of a rows x cols matrix (0 where it misses it)."""
    if rows < 0 or cols < 0:
        return -1
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def _infer_diag_v2(ctx):
    x, k = ctx.shape("X"), ctx.attrs["offset"]
    if len(x) == 1:
        n = x[0] + abs(k) if x[0] >= 0 else -1
        ctx.set_output("Out", [n, n], ctx.dtype("X"))
    elif len(x) == 2:
        ctx.set_output("Out", [diag_length(x[0], x[1], k)], ctx.dtype("X"))
    else:
        ctx.fail(f"X {fmt_shape(x)} must be a vector or a matrix")


def _infer_diagonal(ctx):
    x, a = ctx.shape("Input"), ctx.attrs
    r = len(x)
    if r < 2 or not (-r <= a["axis1"] < r and -r <= a["axis2"] < r) or a["axis1"] % r == a["axis2"] % r:
        ctx.fail(f"axis1={a['axis1']}, axis2={a['axis2']} must be two different axes of Input {fmt_shape(x)}")
    a1, a2 = a["axis1"] % r, a["axis2"] % r
    rest = [d for i, d in enumerate(x) if i not in (a1, a2)]
    ctx.set_output("Out", rest + [diag_length(x[a1], x[a2], a["offset"])], ctx.dtype("Input"))


def _infer_fill_diagonal(ctx):
    x = ctx.shape("X")
    if len(x) < 2 or (len(x) > 2 and len(set(x)) != 1):
        ctx.fail(f"X {fmt_shape(x)} must be a matrix, or have every dim equal")
    ctx.set_output("Out", x, ctx.dtype("X"))


_OFFSET = Attr(0, is_int, "an int")
_op(
    "diag_v2",
    _infer_diag_v2,
    {"offset": _OFFSET, "padding_value": Attr(0.0)},
    "Out = a square matrix with vector X on its offset diagonal (padding_value elsewhere), or matrix X's offset "
    "diagonal as a vector.",
    (
        Structured(meta=metas.diag_v2_meta, cpu=cpu_diagonals.DIAG_V2),
        Structured(meta=metas.diag_v2_grad_meta, cpu=cpu_diagonals.DIAG_V2_GRAD),
    ),
)
_op(
    "diagonal",
    _infer_diagonal,
    {"offset": _OFFSET, "axis1": Attr(0, is_int, "an int"), "axis2": Attr(1, is_int, "an int")},
    "Out = the offset diagonal of Input's planes axis1 x axis2, the other dims first, the diagonal last.",
    (
        Structured(meta=metas.diagonal_meta, cpu=cpu_diagonals.DIAGONAL),
        Structured(meta=metas.diagonal_grad_meta, cpu=cpu_diagonals.DIAGONAL_GRAD),
    ),
    slot="Input",
)
_op(
    "fill_diagonal",
    _infer_fill_diagonal,
    {"value": Attr(0.0), "offset": _OFFSET, "wrap": Attr(False, choices=(False, True))},
    "Out = X with `value` on its (offset) diagonal; a tall matrix with wrap starts the diagonal again below.",
    (
        Structured(meta=metas.fill_diagonal_meta, cpu=cpu_diagonals.FILL_DIAGONAL),
        Structured(meta=metas.fill_diagonal_grad_meta, cpu=cpu_diagonals.FILL_DIAGONAL_GRAD),
    ),
)
