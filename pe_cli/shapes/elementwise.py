"""The meta rules of the binary elementwise ops (elementwise_add, _sub, _mul, _div, _max, _min, _pow,
_floordiv, _mod) and their grad ops, structured kernels (shapes/structured.py): from ``axis`` and the
shapes and dtypes of X and Y (and Out@GRAD), the outputs and the variant that computes them (the CPU
out-kernels: kernels/cpu/elementwise_binary.py), decided once per shape signature.

Y is placed in X under Fluid's axis rule (``aligned``: Y's dims matching X's from ``axis`` on, the one of
fewer dims placed in the other), then numpy broadcasts. Forward variants:

- "same" (add): float32/float64 X and Y of one shape and dtype: one add, on the device's threads when
  large (runtime/loops.add_same); Out may be X's buffer;
- "mid" (add): Y along a run of X's dims (a bias: X [pre, n, post], Y [n], ``mid_run``), floats of one
  dtype: _pointwise_loops.add_mid; ``args``: (the run,); Out may be X's buffer;
- "middle" (add, sub, mul, div): float X (not empty) and Y of one dtype, Y under the axis rule X's leading
  dims, then 1s, then X's trailing dims (``middle_form``: X as [a, b, c], Y as [a, c]; Y of X's shape, one
  value a row, one row for all, an attention's mask): _broadcast_loops.middle, on the device's threads where
  large; ``args``: ((a, b, c),);
- "numpy": numpy's ufunc on the aligned values, cast to X's dtype (a fresh variant); "truncated"
  (div, floordiv of ints in Fluid 1.8's meaning), "floored" (floordiv in Paddle 2.x's), "remainder" and
  "remainder_paddle2" (mod): the integer forms, a zero divisor refused. Paddle 2.x's meaning is the op's
  fact (``facts.paddle2``).

Grad variants (X@GRAD of X's shape and dtype, Y@GRAD of Y's, each where the op has it: ``facts.wanted``): "mid"
(add, Y a bias of float values of one dtype, Out@GRAD of X's shape): X@GRAD is Out@GRAD (``Meta.aliases``), Y@GRAD
_pointwise_loops.sum_outer's; "rows" (mul, Y one value a row of X over one trailing dim of at most
``SCALED_ROW_MAX`` values, ``scaled_rows``: an attention's weights over its values, floats of one dtype, Out@GRAD
of X's shape, both gradients wanted): _reduce_loops.mul_rows_grad, X@GRAD = Out@GRAD * Y and Y@GRAD each row's sum
of Out@GRAD * X in numpy's pairwise order; ``args``: ((rows, cols),); "middle" (add, sub, mul, div of the forward's
"middle" form where Y@GRAD sums no last axis, c > 1 or b 1; div with its Out): _broadcast_loops.middle_grad, numpy's
local gradients and its sums over the broadcast axes, add's and sub's X@GRAD Out@GRAD itself; ``args``: ((a, b,
c),); "numpy": the local gradients summed over the broadcast dims (a fresh variant), where add's (or sub's X@GRAD)
is Out@GRAD itself, of the input's shape and dtype, that output is Out@GRAD (an alias, no copy). A rule
refuses nothing: the shape rule did at build time, and numpy refuses values that do not broadcast."""

import math

import numpy as np

from ..base.broadcast_shapes import broadcast
from ..base.dims import numel
from ..base.errors import PeError
from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# from this many values of X on, add's "mid" over one run of rows (pre 1: no rows to split) gives way to "middle",
# whose rows the device's threads split (kernels/cpu/runtime/loops.PARALLEL_MIN_ELEMENTS)
ON_THREADS = 1 << 17
MIDDLE_OPS = ("add", "sub", "mul", "div")
_OUT_OVER_X = {"Out": "X"}


def aligned(x, y, axis):
    """Y's shape as Fluid's axis rule places it in X (kernels' ``align``: 1s around it from ``axis`` on)."""
    x, y = tuple(x), tuple(y)
    if len(y) >= len(x) or axis == -1 or axis == len(x) - len(y):
        return y
    return (1,) * axis + y + (1,) * (len(x) - axis - len(y))


def out_shape(x, y, axis):
    """The shape numpy gives X and Y aligned to each other, or X's where they do not broadcast (numpy
    refuses them when the values are computed)."""
    xa, ya = aligned(y, x, axis), aligned(x, y, axis)
    if numel(xa) != numel(x) or numel(ya) != numel(y):
        return tuple(x)
    return tuple(broadcast((xa, ya)) or x)


def mid_run(x, y, axis):
    """(pre, n, post) when Y's shape is exactly X's dims from ``axis`` on (-1: aligned to the end) and Y
    has fewer dims than X: X is then [pre, n, post] and Y [n]. None otherwise."""
    x, y = tuple(x), tuple(y)
    if len(y) >= len(x):
        return None
    start = len(x) - len(y) if axis == -1 else axis
    if x[start : start + len(y)] != y:
        return None
    return math.prod(x[:start]), math.prod(y), math.prod(x[start + len(y) :])


def _placed(x, y, axis):
    """(Y's shape under the axis rule with 1s before it to X's rank, the first dim where it is not X's), or None
    where Y has more dims than X (x a tuple)."""
    yb = aligned(x, y, axis)
    if len(yb) > len(x):
        return None
    shape = (1,) * (len(x) - len(yb)) + yb
    return shape, next((j for j in range(len(x)) if shape[j] != x[j]), len(x))


def middle_form(x, y, axis):
    """(a, b, c) where Y under the axis rule, 1s before it to X's rank, holds X's leading dims, then 1s (b: what
    it is broadcast along), then X's trailing dims: X as [a, b, c], Y as [a, c]. Y of X's shape: (its rows, 1,
    its last dim); else None (Y of more dims than X, or along a middle dim of X between 1s)."""
    x = tuple(x)
    placed = _placed(x, y, axis) if x else None
    if placed is None:
        return None
    shape, _ = placed
    if shape == x:
        return math.prod(x[:-1]), 1, x[-1]
    trail = len(x)
    while trail and shape[trail - 1] == x[trail - 1]:
        trail -= 1
    mid = trail
    while mid and shape[mid - 1] == 1:
        mid -= 1
    if shape[:mid] != x[:mid]:
        return None
    return math.prod(x[:mid]), math.prod(x[mid:trail]), math.prod(x[trail:])


def _floats(*values):
    """float32 or float64 values, all of one dtype."""
    return values[0].dtype in _FLOATS and all(v.dtype == values[0].dtype for v in values[1:])


def _integer_variant(op, x, facts):
    if op == "floordiv":
        return "floored" if facts.paddle2 else "truncated"
    if op == "mod":
        return "remainder_paddle2" if facts.paddle2 else "remainder"
    return "truncated" if op == "div" and x.dtype.kind in "iu" else "numpy"


def binary_meta(op):
    """The meta rule of elementwise_<op>'s forward (the variants above)."""

    def meta(attrs, ins, facts):
        x, y, axis = ins["X"], ins["Y"], attrs["axis"]
        xs, ys = tuple(x.shape), tuple(y.shape)
        floats = _floats(x, y)
        if op == "add" and floats and xs == ys:
            return Meta({"Out": (xs, x.dtype)}, "same", inplace=_OUT_OVER_X)
        run = mid_run(xs, ys, axis) if floats and op == "add" else None
        if run is not None and (run[0] > 1 or numel(xs) < ON_THREADS):
            return Meta({"Out": (xs, x.dtype)}, "mid", "add_mid", ("X", "Y"), inplace=_OUT_OVER_X, args=(run,))
        middle = op in MIDDLE_OPS and floats and numel(xs) > 0 and out_shape(xs, ys, axis) == xs
        form = middle_form(xs, ys, axis) if middle else None
        if form is not None:
            return Meta({"Out": (xs, x.dtype)}, "middle", "middle", ("X", "Y"), args=(form,))
        return Meta({"Out": (out_shape(xs, ys, axis), x.dtype)}, _integer_variant(op, x, facts), fresh=True)

    meta.__name__ = meta.__qualname__ = f"elementwise_{op}_meta"
    return meta


SCALED_ROW_MAX = 8192  # (numpy reduces a row this long in one pairwise sum: no buffered chunks)


def scaled_rows(x, y, axis):
    """(rows, cols) where Y, aligned, holds X's leading dims and 1s after them (one value a row of X as [rows,
    cols]) and the 1s run over one dim of X of more than one value, at most SCALED_ROW_MAX (numpy then sums
    mul's Y@GRAD along that one axis, pairwise); else None."""
    x = tuple(x)
    placed = _placed(x, y, axis)
    if placed is None:
        return None
    shape, lead = placed
    tail = [d for d in x[lead:] if d != 1]
    if any(d != 1 for d in shape[lead:]) or len(tail) != 1 or tail[0] > SCALED_ROW_MAX:
        return None
    return math.prod(x[:lead]), tail[0]


def grad_meta(op):
    """The meta rule of elementwise_<op>_grad (the variants above)."""

    def meta(attrs, ins, facts):
        x, y, dout, axis = ins["X"], ins["Y"], ins["Out@GRAD"], attrs["axis"]
        xs, ys, ds = tuple(x.shape), tuple(y.shape), tuple(dout.shape)
        wanted = ("X@GRAD", "Y@GRAD") if facts is None else facts.wanted(("X@GRAD", "Y@GRAD"))  # (None: a call by name)
        outputs = {s: spec for s, spec in (("X@GRAD", (xs, x.dtype)), ("Y@GRAD", (ys, y.dtype))) if s in wanted}
        floats = _floats(x, y, dout) and ds == xs
        if op == "mul" and floats and len(outputs) == 2:
            form = scaled_rows(xs, ys, axis)
            if form is not None:
                return Meta(outputs, "rows", "mul_rows_grad", ("X", "Y", "Out@GRAD"), args=(form,))
        if op == "add" and floats and len(outputs) == 2:
            run = mid_run(xs, ys, axis)
            if run is not None:
                return Meta(outputs, "mid", "sum_outer", ("Out@GRAD",), args=(run,), aliases={"X@GRAD": "Out@GRAD"})
        middle = floats and op in MIDDLE_OPS and numel(xs) > 0 and (op != "div" or "Out" in ins)
        form = middle_form(xs, ys, axis) if middle else None
        if op == "add" and form is not None and form[1] == 1:
            form = None  # (Y of X's shape: both gradients Out@GRAD itself, "numpy"'s aliases)
        dy = "Y@GRAD" in outputs
        if form is not None and (dy or op in ("mul", "div")) and outputs and (not dy or form[2] > 1 or form[1] == 1):
            aliases = {"X@GRAD": "Out@GRAD"} if op in ("add", "sub") and "X@GRAD" in outputs else {}
            return Meta(outputs, "middle", "middle_grad", args=(form,), aliases=aliases)
        aliases = {}
        passed = {"add": ("X", "Y"), "sub": ("X",)}.get(op, ())
        for slot, s, like, v in (("X", xs, aligned(ys, xs, axis), x), ("Y", ys, aligned(xs, ys, axis), y)):
            if slot + "@GRAD" in outputs and slot in passed and ds == s == like and dout.dtype == v.dtype:
                aliases[slot + "@GRAD"] = "Out@GRAD"
        return Meta(outputs, "numpy", fresh=True, aliases=aliases)

    meta.__name__ = meta.__qualname__ = f"elementwise_{op}_grad_meta"
    return meta


OPS = ("add", "sub", "mul", "div", "max", "min", "pow", "floordiv", "mod")
GRAD_OPS = ("add", "sub", "mul", "div", "max", "min", "pow")
FORWARD = {op: binary_meta(op) for op in OPS}
GRAD = {op: grad_meta(op) for op in GRAD_OPS}


def minus_meta(attrs, ins, facts):
    """Fluid 1.8's minus: elementwise_sub's rule (axis -1) on X and Y of one shape (refused otherwise, as Fluid
    refuses it at run time)."""
    x, y = ins["X"], ins["Y"]
    if tuple(x.shape) != tuple(y.shape):
        raise PeError(f"minus takes X and Y of one shape, got X {list(x.shape)} and Y {list(y.shape)}")
    return FORWARD["sub"](MINUS_ATTRS, ins, facts)


MINUS_ATTRS = {"axis": -1}  # (elementwise_sub's attributes minus runs with)


def clip_by_norm_meta(attrs, ins, facts):
    """clip_by_norm's Out: X's shape and dtype, numpy's form ("numpy", fresh; a row-sparse X's merged rows: the
    SelectedRows it makes)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "numpy", fresh=True)


def dgc_clip_by_norm_meta(attrs, ins, facts):
    """dgc_clip_by_norm's: X itself before any ramp-up (rampup_begin_step < 0: Meta.aliases), else clip_by_norm's
    from the ramp-up step on, X as it is before it (current_step's value: the out-kernel reads it)."""
    x = ins["X"]
    if int(attrs["rampup_begin_step"]) < 0:
        return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "through", aliases={"Out": "X"})
    return clip_by_norm_meta(attrs, ins, facts)


def div_grad_grad_meta(attrs, ins, facts):
    """elementwise_div_grad_grad's outputs the op writes (``facts.wanted``; kernels/common.div_grad_grad's, each of
    the shape and dtype its elementwise kernels give: the first operand's dtype, numpy's broadcast along axis);
    "numpy", fresh: the arrays those kernels made."""
    y, out, dx, ddx, ddy = ins["Y"], ins["Out"], ins["DX"], ins.get("DDX"), ins.get("DDY")
    axis, wanted = attrs["axis"], facts.wanted({"Y@GRAD", "DOut", "DDOut"})
    if ddy is None:
        t = (tuple(ddx.shape), ddx.dtype) if ddx is not None else None
    else:
        t = (out_shape(tuple(out.shape), tuple(ddy.shape), axis), out.dtype)
        if ddx is not None:
            t = (out_shape(tuple(ddx.shape), t[0], axis), ddx.dtype)
    outputs = {}
    if t is not None and "Y@GRAD" in wanted:
        outputs["Y@GRAD"] = (tuple(y.shape), np.dtype(y.dtype))
    if t is not None and "DDOut" in wanted:
        outputs["DDOut"] = (out_shape(t[0], tuple(y.shape), axis), np.dtype(t[1]))
    if "DOut" in wanted:
        dout = out_shape(tuple(dx.shape), tuple(ddy.shape), axis) if ddy is not None else tuple(dx.shape)
        outputs["DOut"] = (dout, np.dtype(dx.dtype))
    return Meta(outputs, "numpy", fresh=True)
