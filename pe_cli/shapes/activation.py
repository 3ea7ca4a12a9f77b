"""The meta rules of the activation table's ops (pe_cli/base/activations.py), structured kernels
(shapes/structured.py): for each row, ``FORWARD[name]`` and ``GRAD[name]`` (of ``<name>_grad``) decide,
from the op's attributes and its inputs' shapes and dtypes, the output's shape and dtype and which
variant of the row computes it:

- "loop": the row's compiled loop (``cpu_loop``, or ``forward_loop``'s: square's; its gradient's, or
  ``grad_loop``'s) over float32 or float64 values of one dtype (a gradient: Out and Out@GRAD of one shape
  too); a ``cpu_loop``'s output, and a gradient's, may be written over its input (``Meta.inplace``) where
  the executor allows it;
- "float32_loop": the row's vectorised float32 loop (``float32_loop``: tanh and sigmoid; in a Paddle 2.x program
  ``<name>_paddle2`` where the row has one, ``float32_loop_paddle2``: tanh's, Paddle 2.6's bits), X not empty;
- "paddle2": Paddle 2.x's formula, where the op follows Paddle 2.6 and its attributes are where the two
  differ (activations_paddle2_forms.py);
- "ufunc": a row whose forward is one numpy ufunc that keeps X's dtype, computed into the output;
- "array": the row's numpy form, its result cast to X's dtype (a forward: exp of ints stays ints, as
  Fluid's) or kept in the derivative's own dtype (a gradient).

A result's dtype is decided as the kernels always gave it; a rule refuses nothing: where the values
cannot be computed (shapes that do not broadcast), the row's form raises as it did when it ran."""

import functools
import math

import numpy as np

from ..base.activations import TABLE, bind
from ..base.activations_paddle2_forms import PADDLE2_FORMS, computes_paddle2, prelu_mode
from ..base.activations_second_order import SECOND_ORDER
from ..base.broadcast_shapes import broadcast
from ..base.dims import numel
from .structured import Meta

_LOOP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_F32 = np.dtype(np.float32)


@functools.lru_cache(maxsize=None)
def _ufunc_keeps(ufunc, dtype):
    """Whether ``ufunc`` of a ``dtype`` array gives ``dtype`` (exp of ints gives float64: it does not)."""
    try:
        return ufunc(np.zeros(0, dtype)).dtype == dtype
    except TypeError:
        return False


def forward_meta(row):
    """The meta rule of the row's op: X -> Out of X's shape and dtype."""
    paddle2 = PADDLE2_FORMS.get(row.name)
    ufunc = row.forward if isinstance(row.forward, np.ufunc) else None

    def meta(attrs, ins, facts):
        x = ins["X"]
        outputs = {"Out": (x.shape, x.dtype)}
        if paddle2 is not None and facts.paddle2 and computes_paddle2(row.name, attrs):
            return Meta(outputs, "paddle2", fresh=True)
        if row.cpu_loop and x.dtype in _LOOP_DTYPES:
            return Meta(outputs, "loop", row.cpu_loop, ("X",), {"Out": "X"})
        if row.forward_loop and x.dtype in _LOOP_DTYPES:
            return Meta(outputs, "loop", row.name, ("X",))
        if row.float32_loop and x.dtype == _F32 and numel(x.shape):
            loop = f"{row.name}_paddle2" if row.float32_loop_paddle2 and facts.paddle2 else row.name
            return Meta(outputs, "float32_loop", loop, ("X",))
        if ufunc is not None and _ufunc_keeps(ufunc, x.dtype):
            return Meta(outputs, "ufunc")
        return Meta(outputs, "array", fresh=True)

    meta.__name__ = meta.__qualname__ = f"{row.name}_meta"
    return meta


def _keeps_dtype(x):
    """erf in a dtype probe: the devices' erf keeps its argument's float dtype (and no probe has elements)."""
    return x


@functools.lru_cache(maxsize=1024)
def _derivative_dtype(name, a_dtype, d_dtype, params):
    """The dtype the row ``name``'s derivative gives on (a, dOut) of these dtypes and its attributes in
    dOut's dtype (as the kernels pass them): computed on arrays of no element (numpy's result dtypes do
    not depend on values: NEP 50). None where that raises (the values then raise the same)."""
    row = _ROWS[name]
    derivative = bind(row.derivative, _erf=_keeps_dtype)
    try:
        with np.errstate(all="ignore"):
            return np.asarray(derivative(np.zeros(0, a_dtype), np.zeros(0, d_dtype), *params)).dtype
    except Exception:
        return None


def _broadcast(a, b):
    """numpy's broadcast of the two shapes, or ``b`` where they do not broadcast (the derivative raises
    numpy's own error when it runs)."""
    return tuple(broadcast([a, b]) or b)


def params_in(row, attrs, dtype):
    """A row's attributes as its forms take them: numbers in ``dtype`` (float32 stays float32), flags as bools."""
    return tuple(v if isinstance(v, bool) else dtype.type(v) for v in (attrs[p.name] for p in row.params))


def grad_meta(row):
    """The meta rule of the row's grad op: (X or Out, as the row reads, and Out@GRAD) -> X@GRAD."""
    paddle2 = PADDLE2_FORMS.get(row.name)
    paddle2 = paddle2 if paddle2 is not None and paddle2[2] is not None else None
    loop = row.cpu_loop + "_grad" if row.cpu_loop else f"{row.name}_grad" if row.grad_loop else ""
    reads = row.reads or "Out@GRAD"

    def meta(attrs, ins, facts):
        given_x = ins.get("X") is not None and reads != "X"  # (Paddle 2.6's grad op reads X: GRAD_READS_X)
        a, dout = ins["X" if given_x else reads], ins["Out@GRAD"]
        if paddle2 is not None and facts.paddle2 and computes_paddle2(row.name + "_grad", attrs, given_x):
            # (the table's derivative's dtype: abs's of a complex X is complex)
            dtype = _derivative_dtype(row.name, a.dtype, dout.dtype, params_in(row, attrs, dout.dtype))
            shape = _broadcast(a.shape, dout.shape)
            return Meta({"X@GRAD": (shape, dout.dtype if dtype is None else dtype)}, "paddle2", fresh=True)
        if loop and dout.dtype in _LOOP_DTYPES and a.dtype == dout.dtype and a.shape == dout.shape:
            return Meta({"X@GRAD": (dout.shape, dout.dtype)}, "loop", loop, (reads, "Out@GRAD"), {"X@GRAD": "Out@GRAD"})
        dtype = _derivative_dtype(row.name, a.dtype, dout.dtype, params_in(row, attrs, dout.dtype))
        return Meta(
            {"X@GRAD": (_broadcast(a.shape, dout.shape), dout.dtype if dtype is None else dtype)}, "array", fresh=True
        )

    meta.__name__ = meta.__qualname__ = f"{row.name}_grad_meta"
    return meta


_ROWS = {row.name: row for row in TABLE}
FORWARD = {row.name: forward_meta(row) for row in TABLE}
GRAD = {row.name: grad_meta(row) for row in TABLE if row.derivative is not None}


# -- prelu, maxout and Fluid's second-order ops (out-kernels: kernels/cpu/activation.py) ----------------------


def prelu_meta(attrs, ins, facts):
    """prelu: Out of X's shape and dtype ("out": Alpha * X, then X copied where X > 0)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "out", args=(prelu_mode(attrs),))


def prelu_grad_meta(attrs, ins, facts):
    """prelu_grad: X@GRAD (X's shape and dtype) and Alpha@GRAD (Alpha's), the axes Alpha@GRAD sums over."""
    x, alpha = ins["X"], ins["Alpha"]
    mode, rank = prelu_mode(attrs), len(x.shape)
    axes = {"all": None, "channel": (0, *range(2, rank)), "channel_last": tuple(range(rank - 1)), "element": (0,)}
    outputs = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype)), "Alpha@GRAD": (tuple(alpha.shape), np.dtype(alpha.dtype))}
    return Meta(outputs, "out", args=(mode, axes[mode]))


def _maxout_view(shape, attrs):
    """X seen as [pre, C/groups, groups, post] around its channel dim (``axis``; 1 where the op has none)."""
    axis, groups = attrs["axis"] % 4 if "axis" in attrs else 1, attrs["groups"]
    return math.prod(shape[:axis]), shape[axis] // groups, groups, math.prod(shape[axis + 1 :])


def maxout_meta(attrs, ins, facts):
    """maxout: Out of X's shape with the channel dim divided by groups; the [pre, C/groups, groups, post] view of
    X (the channel dim: ``axis``, 1 where the op has none)."""
    x = ins["X"]
    groups, shape = attrs["groups"], list(x.shape)
    view = _maxout_view(shape, attrs)
    shape[attrs["axis"] % 4] //= groups
    return Meta({"Out": (tuple(shape), x.dtype)}, "out", args=(view,))


def maxout_grad_meta(attrs, ins, facts):
    """maxout_grad: X@GRAD of X's shape and dtype (dOut to each group's first maximum, zeros elsewhere)."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "out", args=(_maxout_view(x.shape, attrs),))


class _Fluid:
    """The facts a second-order op's inner gradient is decided with: Fluid's meaning (its kernel ran the row's
    gradient kernel untold)."""

    paddle2 = False


@functools.lru_cache(maxsize=256)
def _first_dtype(name, u_dtype, given_dtype, ddx_dtype, params):
    """The dtype the second-order op ``name``'s gradient of u gives on values of these dtypes (computed on
    arrays of no element, as _derivative_dtype)."""
    first, empty = _SECONDS[name].first, (np.zeros(0, d) for d in (u_dtype, given_dtype, ddx_dtype))
    with np.errstate(all="ignore"):
        return np.asarray(first(*empty, *params)).dtype


def grad_grad_meta(second):
    """The meta rule of Fluid's ``<name>_grad_grad`` (base/activations_second_order.py): DDOut as the row's
    gradient of (u, DDX) gives it (that gradient's Meta: ``Meta.args[0]``; fresh where it is), the gradient of u
    (``second.slot``) of the broadcast shape of u, the value it reads and DDX, in the dtype numpy gives it; each
    only where the op writes it (``facts.wanted``)."""
    row, grad = _ROWS[second.name], GRAD[second.name]

    def meta(attrs, ins, facts):
        u, ddx = ins[row.reads], ins["DDX"]
        wanted = facts.wanted(("DDOut", second.slot))
        inner = grad(attrs, {row.reads: u, "Out@GRAD": ddx}, _Fluid)
        outputs = {"DDOut": inner.outputs["X@GRAD"]} if "DDOut" in wanted else {}
        if second.first is not None and second.slot in wanted:
            given = ins[second.given]
            shape = _broadcast(_broadcast(tuple(u.shape), tuple(given.shape)), tuple(ddx.shape))
            params = params_in(row, attrs, np.dtype(ddx.dtype))
            outputs[second.slot] = (shape, _first_dtype(second.name, u.dtype, given.dtype, ddx.dtype, params))
        inplace = {"DDOut": "DDX"} if inner.inplace and "DDOut" in outputs else _NO_INPLACE
        return Meta(outputs, "second", inplace=inplace, scratch=inner.scratch, args=(inner,), fresh=inner.fresh)

    meta.__name__ = meta.__qualname__ = f"{second.name}_grad_grad_meta"
    return meta


_NO_INPLACE = {}
_SECONDS = {s.name: s for s in SECOND_ORDER}
GRAD_GRAD = {s.name: grad_grad_meta(s) for s in SECOND_ORDER}
