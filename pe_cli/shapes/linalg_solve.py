"""The meta rules (shapes/structured.py) of the linear algebra numpy's LAPACK computes over batches of matrices:
ops/linalg_solve.py's (mv, determinant, slogdeterminant, solve, triangular_solve, cholesky_solve, multi_dot,
matrix_power and their gradients) and inverse, cholesky, cholesky_grad, spectral_norm and its gradient (ops/linalg.py).
Their CPU out-kernels (kernels/cpu/linalg_solve.py, kernels/cpu/linalg.py) are numpy forms, most with no ``out=``:
each rule decides the "numpy" variant, ``fresh``, and the outputs' shapes and dtypes, those numpy's arrays have (the
kernels' casts: each output in its input's dtype); mv, multi_dot and their gradients the "out" variant (numpy's matmul
written through its ``out=``) where their values are of one dtype and their shapes meet. Shapes that do not meet are numpy's to refuse, as they were: a
rule gives -1 for a dim they leave unknown, and the out-kernel's numpy form raises its own error."""

import numpy as np

from .structured import Meta


def _dtype(spec):
    return np.dtype(spec.dtype)


def batch(a, b):
    """The batch dims two operands' batch dims ``a`` and ``b`` broadcast to (numpy's rule; -1 where they do not
    meet: numpy refuses them)."""
    a, b = (1,) * (len(b) - len(a)) + tuple(a), (1,) * (len(a) - len(b)) + tuple(b)
    return tuple(x if x == y or y == 1 else y if x == 1 else -1 for x, y in zip(a, b))


def _matrices(shape):
    """Whether ``shape`` holds matrices (at least 2-D)."""
    return len(shape) >= 2


def numpy_meta(outputs):
    """The "numpy" variant (fresh) of ``outputs``: slot -> (shape, dtype)."""
    return Meta(
        {slot: (tuple(shape), np.dtype(dtype)) for slot, (shape, dtype) in outputs.items()}, "numpy", fresh=True
    )


def _grads(ins, *slots):
    """Each slot's gradient: its input's shape and dtype."""
    return numpy_meta({f"{s}@GRAD": (ins[s].shape, ins[s].dtype) for s in slots})


def _batched(shape, k):
    """``shape`` without its last ``k`` dims (unknown, (-1,), where it has fewer)."""
    return tuple(shape[:-k]) if len(shape) >= k else (-1,)


# -- ops/linalg_solve.py ----------------------------------------------------------------------------------------


def _one_dtype(*values):
    return len({_dtype(v) for v in values}) == 1


def _written(meta, same):
    """``meta`` as the "out" variant (numpy's matmul written through its ``out=``) where ``same`` (the values of one
    dtype, their shapes meeting), else as it is ("numpy": fresh)."""
    return meta._replace(variant="out", fresh=False) if same else meta


def mv_meta(attrs, ins, facts):
    """mv: X @ Vec, of numpy's dtype of the two (X's rows); "out" where X and Vec are of one dtype and meet."""
    x, v = ins["X"], ins["Vec"]
    meta = numpy_meta({"Out": (_batched(x.shape, 1), np.result_type(x.dtype, v.dtype))})
    meets = len(x.shape) >= 1 and len(v.shape) == 1 and x.shape[-1] == v.shape[0]
    return _written(meta, meets and _one_dtype(x, v))


def mv_grad_meta(attrs, ins, facts):
    """mv_grad: X@GRAD = the outer product of Out@GRAD and Vec, Vec@GRAD = X^T Out@GRAD; "out" where every value
    is of one dtype and X [m, n] meets Out@GRAD [m]."""
    x, v, d = ins["X"], ins["Vec"], ins["Out@GRAD"]
    rows = (x.shape[-1],) if len(x.shape) == 2 else (-1,)
    meta = numpy_meta(
        {"X@GRAD": ((int(np.prod(d.shape)), int(np.prod(v.shape))), x.dtype), "Vec@GRAD": (rows, v.dtype)}
    )
    meets = len(x.shape) == 2 and len(d.shape) == 1 and x.shape[0] == d.shape[0]
    return _written(meta, meets and _one_dtype(x, v, d))


def determinant_meta(attrs, ins, facts):
    x = ins["Input"]
    return numpy_meta({"Out": (_batched(x.shape, 2), x.dtype)})


def _det_grad(x, scale_shape):
    """Input@GRAD: the scale (of ``scale_shape``, a dim of 1 for each matrix dim) times Input^-T."""
    return numpy_meta({"Input@GRAD": (batch(tuple(scale_shape) + (1, 1), x.shape), x.dtype)})


def determinant_grad_meta(attrs, ins, facts):
    return _det_grad(ins["Input"], batch(ins["Out@GRAD"].shape, ins["Out"].shape))


def slogdeterminant_meta(attrs, ins, facts):
    x = ins["Input"]
    return numpy_meta({"Out": ((2,) + _batched(x.shape, 2), x.dtype)})


def slogdeterminant_grad_meta(attrs, ins, facts):
    return _det_grad(ins["Input"], ins["Out@GRAD"].shape[1:])


def vector_rhs(x_shape, y_shape):
    """Whether solve's Y is a (batch of) vector(s), one column each: Paddle 2.6's is_vector_rhs (solve_kernel_impl.h),
    Y 1-D, or Y of X's shape without its last dim."""
    return len(y_shape) == 1 or (len(y_shape) == len(x_shape) - 1 and tuple(y_shape) == tuple(x_shape[:-1]))


def solve_meta(attrs, ins, facts):
    """solve: X^-1 Y over the batch dims both broadcast to (Y a vector, vector_rhs: one column)."""
    x, y = ins["X"], ins["Y"]
    vector = vector_rhs(x.shape, y.shape)
    ym = tuple(y.shape) + (1,) if vector else tuple(y.shape)
    if not (_matrices(x.shape) and _matrices(ym)):
        return numpy_meta({"Out": ((-1,), x.dtype)})
    out = batch(x.shape[:-2], ym[:-2]) + ym[-2:]
    return numpy_meta({"Out": (out[:-1] if vector else out, x.dtype)})


def solve_grad_meta(attrs, ins, facts):
    return _grads(ins, "X", "Y")


def triangular_solve_meta(attrs, ins, facts):
    """triangular_solve: A^-1 Y, A X's triangle (transposed), over the batch dims both broadcast to."""
    x, y = ins["X"], ins["Y"]
    if not (_matrices(x.shape) and _matrices(y.shape)):
        return numpy_meta({"Out": ((-1,), x.dtype)})
    return numpy_meta({"Out": (batch(x.shape[:-2], y.shape[:-2]) + tuple(y.shape[-2:]), x.dtype)})


def cholesky_solve_meta(attrs, ins, facts):
    """cholesky_solve: (Y Y^T)^-1 X (upper: (Y^T Y)^-1 X), over the batch dims both broadcast to."""
    x, y = ins["X"], ins["Y"]
    if not (_matrices(x.shape) and _matrices(y.shape)):
        return numpy_meta({"Out": ((-1,), x.dtype)})
    return numpy_meta({"Out": (batch(y.shape[:-2], x.shape[:-2]) + tuple(x.shape[-2:]), x.dtype)})


def pair_grad_meta(attrs, ins, facts):
    """triangular_solve_grad's and cholesky_solve_grad's: X@GRAD and Y@GRAD of X's and Y's shapes and dtypes."""
    return _grads(ins, "X", "Y")


def _chain_meets(xs):
    """Whether X's values make a chain of matrices (the first a row where it is a vector, the last a column)."""
    shapes = [tuple(x.shape) for x in xs]
    if len(shapes) < 2 or any(len(s) not in (1, 2) for s in shapes) or any(len(s) != 2 for s in shapes[1:-1]):
        return False
    first, last = shapes[0], shapes[-1]
    mats = [(1,) + first if len(first) == 1 else first, *shapes[1:-1], last + (1,) if len(last) == 1 else last]
    return all(a[1] == b[0] for a, b in zip(mats, mats[1:]))


def multi_dot_meta(attrs, ins, facts):
    """multi_dot: the chain's rows (none for a first vector) and columns (none for a last vector), X[0]'s dtype;
    "out" where the chain meets and is of one dtype."""
    xs = ins["X"]
    first, last = xs[0].shape, xs[-1].shape
    rows = () if len(first) == 1 else tuple(first[:1])
    cols = () if len(last) == 1 else tuple(last[-1:])
    return _written(numpy_meta({"Out": (rows + cols, xs[0].dtype)}), _chain_meets(xs) and _one_dtype(*xs))


def multi_dot_grad_meta(attrs, ins, facts):
    """multi_dot_grad: each X@GRAD of its X's shape and dtype; "out" where the chain meets, Out@GRAD is of its
    product's size and every value is of one dtype."""
    xs, d = ins["X"], ins["Out@GRAD"]
    meta = Meta({"X@GRAD": [(tuple(x.shape), _dtype(x)) for x in xs]}, "numpy", fresh=True)
    if not (_chain_meets(xs) and _one_dtype(*xs, d)):
        return meta
    product = multi_dot_meta(attrs, ins, facts).outputs["Out"][0]
    return _written(meta, int(np.prod(d.shape)) == int(np.prod(product)))


def matrix_power_meta(attrs, ins, facts):
    x = ins["X"]
    return numpy_meta({"Out": (x.shape, x.dtype)})


def matrix_power_grad_meta(attrs, ins, facts):
    return _grads(ins, "X")


# -- ops/linalg.py: inverse, cholesky, spectral_norm --------------------------------------------------------------


def inverse_meta(attrs, ins, facts):
    x = ins["Input"]
    return numpy_meta({"Output": (x.shape, x.dtype)})


def cholesky_meta(attrs, ins, facts):
    x = ins["X"]
    return numpy_meta({"Out": (x.shape, x.dtype)})


def cholesky_grad_meta(attrs, ins, facts):
    """cholesky_grad: X@GRAD of Out's shape and dtype."""
    out = ins["Out"]
    return numpy_meta({"X@GRAD": (out.shape, out.dtype)})


def spectral_norm_meta(attrs, ins, facts):
    w = ins["Weight"]
    return numpy_meta({"Out": (w.shape, w.dtype)})


def spectral_norm_grad_meta(attrs, ins, facts):
    return _grads(ins, "Weight")
