"""The CPU out-kernels of the activation table's ops (structured kernels, pe_cli/shapes/structured.py): for
each row, ``FORWARD[name]`` and ``GRAD[name]`` (of ``<name>_grad``), ``out(ins, outs, attrs, meta)``, compute
the variant the row's meta rule chose (pe_cli/shapes/activation.py) into the output buffer they are handed:

- "loop": the row's numba loop over the flat values (_activation_row_loops.py; its parallel twin for large
  arrays, in parallel chunks: the same bits), a numpy replica while it compiles (_replicas.py);
- "float32_loop": _activation_loops' vectorised float32 loop: sigmoid's within 2 ulps of float64 rounded, as
  numpy's (numpy's seven passes took 0.37 ms over an LSTM cell's [256, 256] gate), tanh's Fluid's or, in a Paddle
  2.x program, Paddle 2.6's own rational form (their bits; 0.46 ns a value, where the exp form took 1.29 and
  numpy's 0.36 on the Xeon VM);
- "ufunc": the row's numpy ufunc with ``out``; "paddle2" and "array": the row's numpy form (Paddle 2.x's,
  or the table's, attributes cast to the values' dtype), ``fresh`` variants: the array numpy made is the
  output (kernels/structured.fresh_output; cast to the output's dtype where they differ: exp of ints
  stays ints, as Fluid's). Copying it into a buffer made for it cost leaky_relu's forward over 10**6
  float32 values 40-80 % more than the kernel before structured kernels."""

import functools
import math

import numpy as np

from ...base.activations import TABLE, bind
from ...base.activations_paddle2_forms import PADDLE2_FORMS
from ...shapes.activation import params_in
from ..structured import fresh_output
from . import _replicas
from .launches import by_variant, flat as flat_arg, one, parts_launch
from .runtime.loops import flat, lazy, loop_or, parallel_parts, parallel_ready, run_in_parts

_loops = lazy("_activation_row_loops")
_act_loops = lazy("_activation_loops")


@functools.lru_cache(maxsize=None)
def _erf_ufunc():
    """A numba ufunc of math.erf (numpy has none), compiled on first use."""
    import numba

    @numba.vectorize(["float32(float32)", "float64(float64)"], nopython=True)
    def erf(v):
        return math.erf(v)

    return erf


def _erf(x):
    """erf of an array, bound into the table's forms that call it (gelu)."""
    if x.dtype == np.float16:
        return _erf_ufunc()(x.astype(np.float32)).astype(np.float16)
    return _erf_ufunc()(x)


def _run_loop(loop, out, *arrays):
    """``out`` filled by the numba loop named ``loop`` over flat ``arrays`` (its parallel twin
    ``<loop>_parallel`` for large ones); elementwise, so ``out`` may be the last of ``arrays``."""
    parts, args = parallel_parts(out.size), (*arrays, out.reshape(-1))
    if parts > 1 and parallel_ready(getattr(_loops(), loop + "_parallel"), *args, parts):
        getattr(_loops(), loop + "_parallel")(*args, parts)
    else:
        loop_or(*_serial(loop), *args)(*args)


@functools.lru_cache(maxsize=None)
def _serial(loop):
    """(numpy replica or None, numba loop) of the loop named ``loop``."""
    return getattr(_replicas, loop, None), getattr(_loops(), loop)


def libm_sigmoid(x):
    """float32 1 / (1 + exp(-x)) with exp correctly rounded to float32 (libm's expf)."""
    with np.errstate(over="ignore"):  # exp of x < -88 is inf in float32: the sigmoid is 0
        e = np.exp(-x.astype(np.float64)).astype(np.float32)
    return np.float32(1) / (np.float32(1) + e)


def _libm_tail(x, out):
    """Fluid's float32 sigmoid (Eigen, 1 / (1 + exp(-x))) computes its exps eight at a time by Cephes'
    polynomial, as _activation_loops does, and the last size % 8 by libm's expf, whose value (within
    half an ulp of the exact) these take: the same bits as Fluid's (op_test's float32 finite
    differences of test_activation_op.py's TestSigmoid, within 1 %, depend on the last bits)."""
    tail = x.size % 8
    if tail:
        out[-tail:] = libm_sigmoid(x[-tail:])


_FLOAT32_TAILS = {"sigmoid": _libm_tail}  # what a float32 loop leaves to be computed after it


def _float32_loop(x, out, meta):
    flat_x, flat_out = flat(x), out.reshape(-1)
    run_in_parts(_act_loops(), meta.loop, x.size, flat_x, flat_out)
    tail = _FLOAT32_TAILS.get(meta.loop)
    if tail is not None:
        tail(flat_x, flat_out)


def _forward_out(row):
    forward, paddle2 = bind(row.forward, _erf=_erf), PADDLE2_FORMS.get(row.name)

    def loop(ins, outs, attrs, meta):
        _run_loop(meta.loop, outs["Out"], flat(ins["X"]))

    def float32_loop(ins, outs, attrs, meta):
        _float32_loop(ins["X"], outs["Out"], meta)

    def ufunc(ins, outs, attrs, meta):
        forward(ins["X"], out=outs["Out"])

    def paddle2_form(ins, outs, attrs, meta):
        outs["Out"] = fresh_output(paddle2[1](ins["X"], attrs), meta.outputs["Out"], (ins["X"],))

    def array(ins, outs, attrs, meta):
        x = ins["X"]
        outs["Out"] = fresh_output(forward(x, *params_in(row, attrs, x.dtype)), meta.outputs["Out"], (x,))

    return by_variant(
        f"{row.name}_out",
        loop_launches,
        loop=loop,
        float32_loop=float32_loop,
        ufunc=ufunc,
        paddle2=paddle2_form,
        array=array,
    )


def _grad_out(row):
    derivative, paddle2 = bind(row.derivative, _erf=_erf), PADDLE2_FORMS.get(row.name)
    reads = row.reads or "Out@GRAD"  # (reads nothing: dOut twice)

    def loop(ins, outs, attrs, meta):
        _run_loop(meta.loop, outs["X@GRAD"], flat(ins[reads]), flat(ins["Out@GRAD"]))

    def paddle2_form(ins, outs, attrs, meta):
        x = ins.get("X")  # (Paddle 2.6's grad op reads X where it is given: GRAD_READS_X)
        result = paddle2[2](ins[reads] if x is None else x, ins["Out@GRAD"], attrs)
        outs["X@GRAD"] = fresh_output(result, meta.outputs["X@GRAD"], tuple(ins.values()))

    def array(ins, outs, attrs, meta):
        dout = ins["Out@GRAD"]
        result = derivative(ins[reads], dout, *params_in(row, attrs, dout.dtype))
        outs["X@GRAD"] = fresh_output(result, meta.outputs["X@GRAD"], tuple(ins.values()))

    return by_variant(f"{row.name}_grad_out", loop_launches, loop=loop, paddle2=paddle2_form, array=array)


def loop_launches(op, table, meta):
    """A planned step's launch of the "loop" variant: the loop ``meta.loop`` over the same flat values
    (``meta.loop_inputs``, then the output; its parallel twin where _run_loop runs it: the same bits), or
    None where the meta chose another variant (the op then runs as a Python launch, its out-kernel)."""
    (slot,) = meta.outputs
    names, out = [one(op, s) for s in meta.loop_inputs], one(op, slot, "outputs")
    if meta.variant != "loop" or out is None or None in names:
        return None
    args = [*(flat_arg(table, n) for n in names), flat_arg(table, out)]
    serial, parallel = getattr(_loops(), meta.loop), getattr(_loops(), meta.loop + "_parallel")
    return [parts_launch(serial, parallel, parallel_parts(math.prod(table[out][0])), args, writes=[out])]


FORWARD = {row.name: _forward_out(row) for row in TABLE}
GRAD = {row.name: _grad_out(row) for row in TABLE if row.derivative is not None}
