"""Paddle 2.6's structural primitive ops (the ``*_p`` ops a program lowered by paddle.incubate.autograd's
``orig2prim`` holds): reshape_p, broadcast_p, transpose_p, split_p, concat_p, reduce_sum_p, matmul_p,
slice_select_p, slice_assign_p, gather_p, scatter_add_p, fill_constant_p, select_p and cast_p, with the
attributes and shape checks of Paddle's primitive InferShape (paddle/fluid/operators/prim_ops/) and the meaning
its ``prim2orig`` lowering gives each (their values recorded on Paddle 2.6.2 through that lowering). No gradient
op (Paddle differentiates primitives by its linearize/transpose rules). Where Paddle's InferShape and its lowering
disagree or index out of bounds (a negative axis, a slice outside the dim, scatter_add_p off axis 0, a 0 or -1
in reshape_p's shape), pe refuses in one line."""

import math

from ..base.dtypes import convert_dtype
from ..kernels.cpu import primitive_shaping as cpu
from ..shapes import primitive_shaping as metas
from .define import Attr, Structured, dtype_or_none, fmt_shape, register
from .pointwise_math import QUANT

REQUIRED = None  # (an attribute Paddle's OpMaker declares without a default: the program must give it)


def _axes(ctx, axes, rank, what="axis"):
    for a in axes:
        if not 0 <= a < rank:
            ctx.fail(
                f"{what} {a} is not a dim of the rank-{rank} input (Paddle's InferShape indexes dims 0..{rank - 1})"
            )


def _reshape(ctx, a, x, dtype):
    if any(d <= 0 for d in a["shape"]):
        ctx.fail(f"shape {list(a['shape'])}: pe takes sizes > 0 (Paddle's InferShape multiplies them)")
    if all(d >= 0 for d in x) and math.prod(x) != math.prod(a["shape"]):
        ctx.fail(f"X {fmt_shape(x)} holds {math.prod(x)} elements, shape {list(a['shape'])} {math.prod(a['shape'])}")
    ctx.set_output("Y", list(a["shape"]), dtype)


def _broadcast(ctx, a, x, dtype):
    shape = list(a["shape"])
    pad = [1] * (len(shape) - len(x)) + list(x)
    if len(x) > len(shape) or any(d not in (1, t) and d >= 0 for d, t in zip(pad, shape)):
        ctx.fail(f"X {fmt_shape(x)} does not broadcast to {shape}")
    ctx.set_output("Y", shape, dtype)


def _transpose(ctx, a, x, dtype):
    if sorted(a["axis"]) != list(range(len(x))):
        ctx.fail(f"axis {list(a['axis'])} is not a permutation of X's {len(x)} dims")
    ctx.set_output("Y", [x[i] for i in a["axis"]], dtype)


def _concat(ctx, a, x, dtype):
    axis = a["axis"]
    _axes(ctx, [axis], len(x))
    shapes = ctx.shapes("XS")
    for s in shapes[1:]:
        if len(s) != len(x) or any(d != e and d >= 0 and e >= 0 for i, (d, e) in enumerate(zip(s, x)) if i != axis):
            ctx.fail(f"XS {fmt_shape(s)} and {fmt_shape(x)} differ off axis {axis}")
    total = sum(s[axis] for s in shapes) if all(s[axis] >= 0 for s in shapes) else -1
    ctx.set_output("Y", [total if i == axis else d for i, d in enumerate(x)], dtype)


def _split(ctx, a, x, dtype):
    _axes(ctx, [a["axis"]], len(x))
    parts, n = list(a["num_or_sections"]), x[a["axis"]]
    if any(p < 0 for p in parts) or (len(parts) == 1 and (parts[0] <= 0 or (n >= 0 and n % parts[0]))):
        ctx.fail(f"num_or_sections {parts} does not split dim {a['axis']} of X {fmt_shape(x)}")
    if len(parts) > 1 and n >= 0 and sum(parts) != n:
        ctx.fail(f"num_or_sections {parts} sum to {sum(parts)}, not X's dim {a['axis']} ({n})")
    for i, s in enumerate(metas.split_shapes(tuple(x), a)):
        ctx.set_output("YS", list(s), dtype, i=i)


def _reduce_sum(ctx, a, x, dtype):
    _axes(ctx, a["axis"], len(x))
    if not a["axis"]:
        ctx.fail("axis is empty (Paddle's InferShape keeps every dim, its lowering sums them all)")
    ctx.set_output("Y", list(metas.reduced_shape(tuple(x), a)), dtype)


def _matmul(ctx, a, x, dtype):
    y = ctx.shape("Y")
    if len(x) != len(y) or len(x) not in (2, 3) or (x[-1] >= 0 and y[-2] >= 0 and x[-1] != y[-2]):
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)}: two 2-D or two 3-D tensors, X's last dim Y's second last")
    ctx.set_output("Z", list(x[:-1]) + [y[-1]], dtype)


def _slice(ctx, a, x, dtype):
    if not len(a["starts"]) == len(a["ends"]) == len(a["strides"]) == len(a["axis"]):
        ctx.fail("axis, starts, ends and strides must be of one length")
    _axes(ctx, a["axis"], len(x))
    shape = list(metas.sliced_shape(tuple(x), a))
    if ctx.op.type == "slice_select_p":
        ctx.set_output("Y", shape, dtype)
        return
    y = ctx.shape("Y")
    if len(y) != len(x) or any(d != e and d >= 0 and e >= 0 for d, e in zip(y, shape)):
        ctx.fail(f"Y {fmt_shape(y)} is not the shape of the slice, {shape}")
    ctx.set_output("Z", x, dtype)


def _indexed(ctx, a, x, dtype):
    _axes(ctx, [a["axis"]], len(x))
    if ctx.op.type == "scatter_add_p" and a["axis"] != 0:
        ctx.fail(f"axis {a['axis']}: Paddle 2.6's lowering of scatter_add_p takes axis 0 alone")
    if ctx.has_input("IndexTensor"):
        if ctx.dtype("IndexTensor") != "int32" or len(ctx.shape("IndexTensor")) != 1:
            ctx.fail("IndexTensor must be a 1-D int32 tensor (Paddle's VarTypeInference)")
        n = ctx.shape("IndexTensor")[0]
    else:
        n = len(a["index"])
    if ctx.op.type == "gather_p":
        ctx.set_output("Y", [n if i == a["axis"] else d for i, d in enumerate(x)], dtype)
    else:
        ctx.set_output("Z", x, dtype)


def _select(ctx, a, x, dtype):
    if not (ctx.shape("Condition") == x == ctx.shape("Y")) or ctx.dtype("Condition") != "bool":
        ctx.fail("Condition (bool), X and Y must have one shape")
    ctx.set_output("Z", x, dtype)


RULES = {
    "reshape_p": _reshape,
    "broadcast_p": _broadcast,
    "cast_p": lambda ctx, a, x, dtype: ctx.set_output("Y", x, convert_dtype(a["dtype"])),
    "transpose_p": _transpose,
    "concat_p": _concat,
    "split_p": _split,
    "reduce_sum_p": _reduce_sum,
    "matmul_p": _matmul,
    "slice_select_p": _slice,
    "slice_assign_p": _slice,
    "gather_p": _indexed,
    "scatter_add_p": _indexed,
    "select_p": _select,
}


def _infer(op):
    def infer(ctx):
        a = ctx.attrs
        for name, spec in registry_attrs[op].items():
            if spec.default is REQUIRED and a.get(name) is None:
                ctx.fail(f"attribute {name} is required (Paddle's {op} has no default for it)")
        if op == "fill_constant_p":
            ctx.set_output("Y", list(a["shape"]), convert_dtype(a["dtype"]))
            return
        slot = "XS" if op == "concat_p" else "X"
        RULES[op](ctx, a, ctx.shape(slot), ctx.dtype(slot))

    return infer


_DTYPE = Attr(REQUIRED, dtype_or_none, "a dtype name")  # (Paddle's VarType number, held as the dtype's name)
_SLICE = {"axis": Attr(REQUIRED, long=True), "starts": Attr(REQUIRED, long=True)}
_SLICE.update(ends=Attr(REQUIRED, long=True), strides=Attr(REQUIRED, long=True))
_INDEX = {"axis": Attr(REQUIRED, long=True), "index": Attr([0], long=True)}
SPECS = {
    "broadcast_p": (["X"], ["Y"], {"shape": Attr(REQUIRED, long=True)}),
    "cast_p": (["X"], ["Y"], {"dtype": _DTYPE}),
    "concat_p": (["XS*"], ["Y"], {"axis": Attr(REQUIRED, long=True)}),
    "fill_constant_p": (
        [],
        ["Y"],
        {"value": Attr(REQUIRED), "shape": Attr(REQUIRED, long=True), "dtype": _DTYPE},
    ),
    "gather_p": (["X", "IndexTensor?"], ["Y"], _INDEX),
    "matmul_p": (["X", "Y"], ["Z"], {}),
    "reduce_sum_p": (["X"], ["Y"], {"axis": Attr(REQUIRED, long=True), "keepdim": Attr(False)}),
    "reshape_p": (["X"], ["Y"], {"shape": Attr(REQUIRED, long=True)}),
    "scatter_add_p": (["X", "Y", "IndexTensor?"], ["Z"], _INDEX),
    "select_p": (["Condition", "X", "Y"], ["Z"], {}),
    "slice_assign_p": (["X", "Y"], ["Z"], _SLICE),
    "slice_select_p": (["X"], ["Y"], _SLICE),
    "split_p": (["X"], ["YS*"], {"axis": Attr(REQUIRED, long=True), "num_or_sections": Attr(REQUIRED, long=True)}),
    "transpose_p": (["X"], ["Y"], {"axis": Attr(REQUIRED, long=True)}),
}
registry_attrs = {op: spec[2] for op, spec in SPECS.items()}
for _op, (_ins, _outs, _attrs) in SPECS.items():
    register(
        _op,
        kernel_module="primitive_shaping",
        structured=Structured(meta=metas.primitive_shaping_meta(_op), cpu=cpu.OUT[_op]),
        inputs=_ins,
        outputs=_outs,
        attrs={**_attrs, **QUANT},
        infer=_infer(_op),
        lod="drop",
        doc=f"Paddle 2.6's primitive {_op}: what its prim2orig lowering computes (see the module's doc).",
    )
