"""The CPU out-kernels of softmax, log_softmax and their grad ops (structured kernels, pe_cli/shapes/structured.py):
``SOFTMAX``, ``SOFTMAX_GRAD``, ``LOG_SOFTMAX``, ``LOG_SOFTMAX_GRAD``, ``out(ins, outs, attrs, meta)``, compute the
variant their meta rule chose (pe_cli/shapes/softmax.py) along ``meta.args[0]``, the axis it decided:

- "rows": along the last axis, numba loops (_softmax_loops.py: numpy's reductions over short rows, an attention's
  28 keys, cost more per row than the row's arithmetic): float32 rows in one pass a row with numpy's exponentials
  computed in the loop (_numpy_expf.py) where they are numpy's bits on this host, else passes around numpy's exp;
  log_softmax's rows of
  _softmax_rows_loops (vectorised exponentials; the beam search's [256, 10,000] scores), rows in parts on the
  device's threads for large arrays (the same bits), into the output handed;
- "numpy": numpy's passes along the axis, a ``fresh`` variant (the array numpy made is the output).

softmax is Fluid's CPU kernel's (its ValueClip): the shifted logits are clipped at ``SOFTMAX_FLOOR``, so no
probability is below exp(-64) (about 1.6e-28) and a following log stays finite; log_softmax is Paddle 2.x's CPU
kernel's, clipped alike (a logit masked with -inf or -1e9 gives -64 - log(sum), not -inf)."""

import math

import numpy as np

from ..structured import fresh_output
from .launches import by_variant, floats, one, parts_launch
from .runtime.loops import lazy, parallel_parts, run_in_parts

_rows = lazy("_softmax_rows_loops")
_softmax = lazy("_softmax_loops")
_expf = lazy("_numpy_expf")

SOFTMAX_FLOOR = -64.0


def _as_rows(a):
    """``a`` as [rows, its last dim], C-contiguous (a view where it is)."""
    return np.ascontiguousarray(a).reshape(-1, a.shape[-1])


def _exp_in_loop(dtype):
    """Whether softmax's rows of ``dtype`` take their exponentials inside the loop (softmax_rows): float32, where
    _numpy_expf.exp gives numpy's bits on this host (its check runs once a process)."""
    return dtype == np.float32 and _expf().same_as_numpy()


def _softmax_rows(ins, outs, attrs, meta):
    x2, out2 = _as_rows(ins["X"]), outs["Out"].reshape(-1, outs["Out"].shape[-1])
    if _exp_in_loop(x2.dtype):
        run_in_parts(_softmax(), "softmax_rows", x2.size, x2, SOFTMAX_FLOOR, out2)
        return
    run_in_parts(_softmax(), "softmax_shift", x2.size, x2, SOFTMAX_FLOOR, out2)
    np.exp(out2, out=out2)
    run_in_parts(_softmax(), "softmax_scale", x2.size, out2)


def _softmax_numpy(ins, outs, attrs, meta):
    x, axis = ins["X"], meta.args[0]
    e = np.exp(np.maximum(x - x.max(axis=axis, keepdims=True), SOFTMAX_FLOOR))
    outs["Out"] = fresh_output(e / e.sum(axis=axis, keepdims=True), meta.outputs["Out"], (x,))


def _softmax_grad_rows(ins, outs, attrs, meta):
    out2, dout2 = _as_rows(ins["Out"]), _as_rows(ins["Out@GRAD"])
    dx2 = outs["X@GRAD"].reshape(out2.shape)
    run_in_parts(_softmax(), "softmax_rows_grad", out2.size, out2, dout2, dx2)


def _softmax_grad_numpy(ins, outs, attrs, meta):
    out, dout = ins["Out"], ins["Out@GRAD"]
    dx = out * (dout - (dout * out).sum(axis=meta.args[0], keepdims=True))
    outs["X@GRAD"] = fresh_output(dx, meta.outputs["X@GRAD"], (out, dout))


def _log_softmax_rows(ins, outs, attrs, meta):
    x2 = _as_rows(ins["X"])
    run_in_parts(_rows(), "log_softmax", x2.size, x2, outs["Out"].reshape(x2.shape))


def _log_softmax_numpy(ins, outs, attrs, meta):
    x, axis = ins["X"], meta.args[0]
    out = np.asarray(x - x.max(axis=axis, keepdims=True))  # (a 0-D X's: an array, not numpy's scalar)
    if out.dtype.kind != "f":  # integers: numpy's exp gives float64, as the result then
        out = out.astype(np.float64)
    np.putmask(out, out < SOFTMAX_FLOOR, SOFTMAX_FLOOR)  # (Paddle's ValueClip, as softmax's; a NaN kept)
    sums = np.asarray(np.exp(out).sum(axis=axis, keepdims=True))
    out -= np.log(sums, out=sums)  # in place: one [rows, classes] array fewer (the beam's [256, 10,000])
    outs["Out"] = fresh_output(out, meta.outputs["Out"], (x,))


def _log_softmax_grad_numpy(ins, outs, attrs, meta):
    out, dout = ins["Out"], ins["Out@GRAD"]
    dx = dout - np.exp(out) * dout.sum(axis=meta.args[0], keepdims=True)
    outs["X@GRAD"] = fresh_output(dx, meta.outputs["X@GRAD"], (out, dout))


def _forward_launches(op, table, meta):
    """A planned step's launch of softmax's "rows" variant where its exponentials are in the loop
    (_softmax_loops.softmax_rows, or its parallel twin where _softmax_rows runs it), on the values as [rows, last
    dim]. None for the rest (a Python launch: numpy's exp between the passes, or numpy's passes)."""
    x, out = one(op, "X"), one(op, "Out", "outputs")
    if meta.variant != "rows" or not floats(table, x, out) or not _exp_in_loop(table[x][1]):
        return None
    shape = table[x][0]
    rows = (math.prod(shape[:-1]), shape[-1])
    args = [("var", x, rows), ("const", SOFTMAX_FLOOR), ("var", out, rows)]
    loops, parts = _softmax(), parallel_parts(math.prod(rows))
    return [parts_launch(loops.softmax_rows, loops.softmax_rows_parallel, parts, args, writes=[out])]


def _grad_launches(op, table, meta):
    """A planned step's launch of softmax_grad's "rows" variant: _softmax_loops.softmax_rows_grad (its parallel
    twin where _softmax_grad_rows runs it: the same bits), on the values as [rows, last dim]. None for "numpy" (a
    Python launch)."""
    out, dout, dx = one(op, "Out"), one(op, "Out@GRAD"), one(op, "X@GRAD", "outputs")
    if meta.variant != "rows" or not floats(table, out, dout, dx) or not table[out][0]:
        return None
    shape = table[out][0]
    rows = (math.prod(shape[:-1]), shape[-1])
    args = [("var", out, rows), ("var", dout, rows), ("var", dx, rows)]
    loops, parts = _softmax(), parallel_parts(math.prod(rows))
    return [parts_launch(loops.softmax_rows_grad, loops.softmax_rows_grad_parallel, parts, args, writes=[dx])]


SOFTMAX = by_variant("softmax_out", _forward_launches, rows=_softmax_rows, numpy=_softmax_numpy)
SOFTMAX_GRAD = by_variant("softmax_grad_out", _grad_launches, rows=_softmax_grad_rows, numpy=_softmax_grad_numpy)
LOG_SOFTMAX = by_variant("log_softmax_out", None, rows=_log_softmax_rows, numpy=_log_softmax_numpy)
LOG_SOFTMAX_GRAD = by_variant("log_softmax_grad_out", None, numpy=_log_softmax_grad_numpy)
