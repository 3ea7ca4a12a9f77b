"""numba loops of the activation table's rows (pe_cli/base/activations.py) with a CPU loop (``cpu_loop``: relu's),
a compiled forward (``forward_loop``: square's) or a compiled gradient (``grad_loop``: tanh's, sigmoid's and
square's), run by their ops' "loop" variant
(kernels/cpu/activation_rows.py), each with a parallel twin for large arrays (the same bits). Arrays come in
C-contiguous and flattened (1-D); arithmetic stays in the arrays' dtype, in numpy's order, so results are those
of the numpy expressions they replace (imported on first use: see runtime/loops.py)."""

import numba
from numba import prange, uintp
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from ...base.activations import ROWS, bind
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)


@_jit
def relu(x, out):
    """out = numpy.maximum(x, 0): x where x > 0 or x is NaN, else 0 (+0.0 for -0.0, as numpy)."""
    zero = x.dtype.type(0)
    for i in range(x.size):
        v = x[i]
        out[i] = v if (v > zero or v != v) else zero


@_jit
def relu_grad(out, dout, dx):
    """dx = dout * (out > 0), as numpy computes it (0 * inf is NaN, -g * 0 is -0.0)."""
    zero = dout.dtype.type(0)
    for i in range(dout.size):
        g = dout[i]
        dx[i] = g if out[i] > 0 else g * zero


# The loops of the rows with ``grad_loop`` (tanh, sigmoid, square) or ``forward_loop`` (square): the row's own
# ``derivative`` or ``forward`` (pe_cli/base/activations.py) compiled for one element, its constants (``_c``)
# in the arrays' dtype, so each element rounds as numpy's expression (a Python int stays one: numpy's weak
# scalar; numba's float64 product of it is exact where it is 2). numba keys the cached loops on this file
# alone: after a change to such a row's forms, remove that folder's _activation_row_loops.* files.


def in_dtype_of(a, value):
    """``value`` as a number of ``a``'s dtype: the table's ``_c`` in these loops (see its overload)."""
    return a.dtype.type(value)


@overload(in_dtype_of, inline="always")
def _in_dtype_of(a, value):
    cast = as_dtype(a).type
    return lambda a, value: cast(value)


def _derivative(name):
    """The activation ``name``'s derivative(a, dout) for one element, compiled (inlined into the loops)."""
    return numba.njit(inline="always")(bind(ROWS[name].derivative, c=in_dtype_of))


def _forward(name):
    """The activation ``name``'s forward(x) for one element, compiled (inlined into the loops)."""
    return numba.njit(inline="always")(bind(ROWS[name].forward, c=in_dtype_of))


_tanh_derivative, _sigmoid_derivative = _derivative("tanh"), _derivative("sigmoid")
_square_forward, _square_derivative = _forward("square"), _derivative("square")


@_jit
def tanh_grad(out, dout, dx):
    """dx = the tanh row's derivative of (out, dout), element by element."""
    for i in range(dout.size):
        dx[i] = _tanh_derivative(out[i], dout[i])


@_jit
def sigmoid_grad(out, dout, dx):
    """dx = the sigmoid row's derivative of (out, dout), element by element."""
    for i in range(dout.size):
        dx[i] = _sigmoid_derivative(out[i], dout[i])


@_jit
def square(x, out):
    """out = the square row's forward of x (x * x), element by element."""
    for i in range(x.size):
        out[i] = _square_forward(x[i])


@_jit
def square_grad(x, dout, dx):
    """dx = the square row's derivative of (x, dout), element by element."""
    for i in range(dout.size):
        dx[i] = _square_derivative(x[i], dout[i])


# -- parallel twins, for large arrays on a device with several threads (see _numba.parallel_threads) --


@_pjit
def relu_parallel(x, out, parts):
    """relu over ``parts`` contiguous chunks on numba's threads."""
    zero = x.dtype.type(0)
    n = x.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):  # unsigned: vectorised
            v = x[i]
            out[i] = v if (v > zero or v != v) else zero


@_pjit
def relu_grad_parallel(out, dout, dx, parts):
    """relu_grad over ``parts`` contiguous chunks on numba's threads."""
    zero = dout.dtype.type(0)
    n = dout.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            g = dout[i]
            dx[i] = g if out[i] > 0 else g * zero


@_pjit
def tanh_grad_parallel(out, dout, dx, parts):
    """tanh_grad over ``parts`` contiguous chunks on numba's threads."""
    n = dout.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            dx[i] = _tanh_derivative(out[i], dout[i])


@_pjit
def sigmoid_grad_parallel(out, dout, dx, parts):
    """sigmoid_grad over ``parts`` contiguous chunks on numba's threads."""
    n = dout.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            dx[i] = _sigmoid_derivative(out[i], dout[i])


@_pjit
def square_parallel(x, out, parts):
    """square over ``parts`` contiguous chunks on numba's threads."""
    n = x.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            out[i] = _square_forward(x[i])


@_pjit
def square_grad_parallel(x, dout, dx, parts):
    """square_grad over ``parts`` contiguous chunks on numba's threads."""
    n = dout.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            dx[i] = _square_derivative(x[i], dout[i])
