"""The CPU out-kernels of the binary elementwise ops (structured kernels, pe_cli/shapes/structured.py):
``FORWARD[op]`` (op: add, sub, mul, div, max, min, pow, floordiv, mod), ``out(ins, outs, attrs, meta)``,
compute the variant their meta rule chose (pe_cli/shapes/elementwise.py) into the buffers they are handed:

- "same": add_same (runtime/loops.py: one add, in parts on the device's threads when large);
- "middle" (add, sub, mul, div): _broadcast_loops.middle over X as [a, b, c] and Y as [a, c], in parts on the
  device's threads when large;
- "mid": the bias add, _pointwise_loops.add_mid (its parallel twin over the rows: the same bits); numpy's
  broadcast add over the middle axis is 2-3x slower;
- "numpy" and the integer forms ("truncated", "floored", "remainder", "remainder_paddle2": an int zero
  divisor refused in one line): numpy on Y reshaped so that its broadcasting is Fluid's ``axis`` rule, cast
  to X's dtype (fresh variants).

Their ``launches(op, table, meta)``: a planned step's launches of "middle" and of add's "mid" and "same"
variants (pe_cli/executor/step_plan.py). ``elementwise_<op>``: the ops' kernels over these (kernels/structured.adapter)
for the kernels that call them (fused, momentum, minus). The grad ops' out-kernels, and the helpers here they
share (bias_grad, _sum_outer): elementwise_binary_grad.py."""

import math

import numpy as np

from . import _replicas
from ..structured import adapter, fresh_output
from ..value_checks import check_divisor
from ._int_division import floored_div, remainder, truncated_div
from .launches import by_variant
from .launches import one, parts_launch, twin_launch
from .runtime.loops import add_same, lazy, parallel_parts, run_in_parts, twin
from ...shapes import elementwise as meta_rules

_loops = lazy("_pointwise_loops")
_broadcast = lazy("_broadcast_loops")


def align(x, y, axis):
    """Y reshaped to broadcast against X under Fluid's axis rule (no copy)."""
    if y.ndim >= x.ndim or axis == -1 or axis == x.ndim - y.ndim:
        return y
    return y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))


def align_both(x, y, axis):
    """(X, Y) reshaped to broadcast against each other under Fluid's axis rule: the one of fewer dims
    placed in the other from ``axis`` on (X may be the smaller: Out then has Y's shape)."""
    return align(y, x, axis), align(x, y, axis)


def unbroadcast(grad, shape):
    """Sums ``grad`` over the dims that were broadcast to reach it from ``shape``."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and grad.shape[i + lead] != 1)
    return grad.sum(axis=axes, keepdims=False).reshape(shape) if axes else grad.reshape(shape)


def mid_run(x, y, axis):
    """(pre, n, post) when Y's shape is exactly X's dims from ``axis`` on and Y has fewer dims than X
    (shapes/elementwise.mid_run of the arrays' shapes), else None."""
    return meta_rules.mid_run(x.shape, y.shape, axis)


def bias_grad(dout, run, shape, out=None):
    """The gradient of a bias Y of ``shape`` added to X [pre, n, post] (``run``), from X's gradient
    ``dout`` (float32/float64): dout summed over pre and post, in a numba loop (its twin on the
    device's threads when dout is large); into ``out`` where given (C-contiguous, of dout's dtype)."""
    dy = np.empty(shape, dtype=dout.dtype) if out is None else out
    _sum_outer(dout, run, dy)
    return dy


def _sum_outer(dout, run, dy):
    args = (np.ascontiguousarray(dout).reshape(run), dy.reshape(-1))
    loops = _loops()
    twin(loops.sum_outer, loops.sum_outer_parallel, _sum_outer_on_threads(run), *args, replica=_replicas.sum_outer)(
        *args
    )


def _sum_outer_on_threads(run):
    """Whether the bias gradient over [pre, n, post] (``run``) runs sum_outer's twin (its blocks of columns)."""
    return run[1] * run[2] >= 4 * _loops().SUM_BLOCK and parallel_parts(math.prod(run)) > 1


def bias_grad_launch(dout, run, dy_arg, dy):
    """A planned step's launch of bias_grad: the sum of the variable ``dout`` as [pre, n, post] (``run``) over
    pre and post into ``dy`` (bound as ``dy_arg``), by sum_outer or its twin where bias_grad takes it."""
    loops, args = _loops(), [("var", dout, run), dy_arg]
    return twin_launch(loops.sum_outer, loops.sum_outer_parallel, _sum_outer_on_threads(run), args, writes=[dy])


def middle_view(x, y, axis):
    """(X as [a, b, c], Y as [a, c]) where X and Y are C-contiguous and Y under Fluid's axis rule is broadcast
    along one run of X's dims (b) with X's dims or 1s before it (shapes/elementwise.middle_form: the attention's
    [B, T, H] + [B, 1, H]; a bias [rows, n] + [n]; Y of X's shape: [rows, 1, cols] and [rows, cols]). None
    otherwise."""
    if not (x.flags.c_contiguous and y.flags.c_contiguous):
        return None
    form = meta_rules.middle_form(x.shape, y.shape, axis)
    return None if form is None else (x.reshape(form), y.reshape(form[0], form[2]))


# -- forward variants ---------------------------------------------------------------------------------


def _same(ins, outs, attrs, meta):
    add_same(ins["X"], ins["Y"], outs["Out"])


def _middle(op):
    def variant(ins, outs, attrs, meta):
        ((a, b, c),) = meta.args
        x, y = np.ascontiguousarray(ins["X"]).reshape(a, b, c), np.ascontiguousarray(ins["Y"]).reshape(a, c)
        run_in_parts(_broadcast(), "middle", x.size, x, y, outs["Out"].reshape(a, b, c), op)

    return variant


def _mid(ins, outs, attrs, meta):
    (run,) = meta.args
    x, loops = ins["X"], _loops()
    args = (np.ascontiguousarray(x).reshape(run), np.ascontiguousarray(ins["Y"]).reshape(-1), outs["Out"].reshape(run))
    twin(loops.add_mid, loops.add_mid_parallel, _mid_on_threads(run), *args, replica=_replicas.add_mid)(*args)


# the values from which add's "mid" variant splits its rows over the device's threads: a Transformer's [1792, 64]
# bias add 10.6 -> 6.4 us on 2 threads (2026-11-30, the AMD EPYC VM; pointwise loops wait for 2^17)
MID_ON_THREADS = 1 << 15


def _mid_on_threads(run):
    """Whether add's "mid" variant over X [pre, n, post] runs its twin (add_mid_parallel splits the rows p)."""
    return run[0] > 1 and parallel_parts(math.prod(run), MID_ON_THREADS) > 1


def _numpy(fn, op=None):
    """numpy's ``fn`` on the aligned values (``op``: elementwise_<op>, whose int zero divisor is refused)."""

    def variant(ins, outs, attrs, meta):
        x, y = ins["X"], ins["Y"]
        if op is not None:
            check_divisor(y, f"elementwise_{op}")
        out = fn(*align_both(x, y, attrs["axis"])).astype(x.dtype, copy=False)
        outs["Out"] = _handed(out, meta.outputs["Out"], ins)

    return variant


def _handed(result, spec, ins, passed=None):
    """``result``, the array numpy made of X's dtype (the output's), as the output of ``spec``: itself where it
    is a new array of that shape (no view, not ``passed``: the input a gradient may be), else
    kernels/structured.fresh_output's copy."""
    if type(result) is np.ndarray and result.base is None and result.shape == spec[0] and result is not passed:
        return result
    return fresh_output(result, spec, tuple(ins.values()))


def _launches(op, table, meta):
    """A planned step's launch of "middle": _broadcast_loops.middle over X as [a, b, c] and Y as [a, c], its
    parallel twin where run_in_parts takes it; of add's "mid" variant: add_mid over the values as they lie, its
    twin where the op-by-op kernel takes it (the same bits); of add's "same" variant, add_mid over X and Y as
    [1, size, 1] and [size], or add_parallel's chunks where add_same takes them (each sum one IEEE add: numpy's
    bits). None for the other variants (a Python launch)."""
    x, y, out = one(op, "X"), one(op, "Y"), one(op, "Out", "outputs")
    if meta.variant not in ("mid", "same", "middle") or None in (x, y, out):
        return None
    if meta.variant == "middle":
        ((a, b, c),), code = meta.args, MIDDLE_CODES[op.type.removeprefix("elementwise_")]
        args = [("var", x, (a, b, c)), ("var", y, (a, c)), ("var", out, (a, b, c)), ("const", code)]
        loops = _broadcast()
        return [parts_launch(loops.middle, loops.middle_parallel, parallel_parts(a * b * c), args, writes=[out])]
    loops = _loops()
    if meta.variant == "mid":
        (run,) = meta.args
        args = [("var", x, run), ("var", y, (run[1],)), ("var", out, run)]
        return [twin_launch(loops.add_mid, loops.add_mid_parallel, _mid_on_threads(run), args, writes=[out])]
    size = math.prod(meta.outputs["Out"][0])
    run = (1, size, 1)
    serial = [("var", x, run), ("var", y, (size,)), ("var", out, run)]
    parts = parallel_parts(size)
    flat = [("var", name, (size,)) for name in (x, y, out)]
    return [twin_launch(loops.add_mid, loops.add_parallel, parts > 1, [*flat, ("const", parts)], serial, writes=[out])]


MIDDLE_CODES = {"add": 0, "sub": 1, "mul": 2, "div": 3}  # the ops of _broadcast_loops.middle: its ADD, SUB, MUL, DIV

_UFUNCS = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "pow": np.power,
}


def _forward(op):
    variants = {"numpy": _numpy(_UFUNCS[op])} if op in _UFUNCS else {}
    if op == "add":
        variants.update(same=_same, mid=_mid)
    if op in MIDDLE_CODES:
        variants["middle"] = _middle(MIDDLE_CODES[op])
    if op in ("div", "floordiv"):
        variants["truncated"] = _numpy(truncated_div, op)
    if op == "floordiv":
        variants["floored"] = _numpy(floored_div, op)
    if op == "mod":
        variants["remainder"] = _numpy(lambda x, y: remainder(x, y, False), op)
        variants["remainder_paddle2"] = _numpy(lambda x, y: remainder(x, y, True), op)
    return by_variant(f"elementwise_{op}_out", _launches if "middle" in variants else None, **variants)


FORWARD = {op: _forward(op) for op in meta_rules.OPS}
META = meta_rules.FORWARD

# the ops' kernels, for the kernels that call them by name
elementwise_add = adapter(META["add"], FORWARD["add"], "elementwise_add")
elementwise_sub = adapter(META["sub"], FORWARD["sub"], "elementwise_sub")
elementwise_mul = adapter(META["mul"], FORWARD["mul"], "elementwise_mul")
elementwise_div = adapter(META["div"], FORWARD["div"], "elementwise_div")
elementwise_max = adapter(META["max"], FORWARD["max"], "elementwise_max")
elementwise_min = adapter(META["min"], FORWARD["min"], "elementwise_min")
elementwise_pow = adapter(META["pow"], FORWARD["pow"], "elementwise_pow")
elementwise_floordiv = adapter(META["floordiv"], FORWARD["floordiv"], "elementwise_floordiv")
elementwise_mod = adapter(META["mod"], FORWARD["mod"], "elementwise_mod")
