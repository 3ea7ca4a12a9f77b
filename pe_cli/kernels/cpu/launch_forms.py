"""Launch forms: the numba part of a CPU kernel, bound once for an op and the shapes and dtypes of
its values, for a planned step (pe_cli/executor/step_plan.py).

A form ``FORMS[op_type](op, table)`` gets the op and ``table`` (name -> (shape, dtype) of every
value the step knows: fed, read from the scope, or set by the registry's shape inference for the
outputs) and returns a list of ``Launch``es, or None where the op has no launch form for those
values (it then runs as a Python launch, ``plan.run_step``). A form makes the choices the kernel
makes at each call (which loop, which view of its arrays, how a GEMM splits) once, and the kernel
calls the same loop when it runs unplanned: the two paths give the same bits. The serial loop is
launched where the kernel runs its numpy replica (while the loop compiles: the same bits), its
parallel twin where the kernel would run it on the device's threads when the step is planned (a
GEMM's blocks, a large update: the same bits as the serial loop, _numba.py); a small GEMM that
numpy's ``@`` runs (one BLAS call on one thread) is launched as the same call of numpy's BLAS
from the blocked loop with one block.

Arguments of a launch (``Launch.args``): ``("var", name, shape)``: the value of ``name`` (viewed
as ``shape`` when not None); ``("const", value)``: a number (or the GEMM's C function) compiled
into the step; ``("array", array)``: an array the plan keeps (an empty bias); ``("first", name,
dtype)``: the one value of the array ``name`` as a ``dtype`` scalar (a learning rate)."""

import math

import numpy as np

from ..common import gemm_rows
from . import _cblas, creation, linalg
from ._numba import UPDATE_PARALLEL_MIN_ELEMENTS, lazy, parallel_parts, parallel_threads
from .elementwise import mid_run
from .loss_classification import WIDE_SOFTMAX

_pointwise = lazy("_pointwise_loops")
_rows = lazy("_softmax_rows_loops")
_reduce = lazy("_reduce_loops")
_blas = lazy("_blas_loops")

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class Launch:
    """One compiled loop and its bound arguments. ``writes``: the names it writes (buffers the plan
    allocates); ``aliases``: {output: input} outputs that are their input's array (no launch
    writes them); ``updates``: names it writes over in place (an optimizer's Param and state);
    ``checked``: the loop returns an index >= 0 when its values are bad (a label out of range)."""

    __slots__ = ("aliases", "args", "checked", "fn", "updates", "writes")

    def __init__(self, fn, args, writes=(), aliases=None, updates=(), checked=False):
        self.fn, self.args, self.writes = fn, tuple(args), tuple(writes)
        self.aliases, self.updates, self.checked = aliases or {}, tuple(updates), checked


class _Shape:
    """An array's shape and dtype, for the kernels' helpers that only look at those."""

    __slots__ = ("dtype", "ndim", "shape", "size")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.ndim, self.size = tuple(shape), dtype, len(shape), math.prod(shape)


def _one(op, slot, where="inputs"):
    names = (op.inputs if where == "inputs" else op.outputs).get(slot) or ()
    return names[0] if len(names) == 1 else None


def _floats(table, *names):
    """True when every name is known and all are float32, or all float64."""
    if any(n is None or n not in table for n in names):
        return False
    dtypes = {table[n][1] for n in names}
    return len(dtypes) == 1 and dtypes.pop() in _FLOATS


def _flat(table, name):
    return ("var", name, (math.prod(table[name][0]),))


# -- GEMMs -------------------------------------------------------------------------------------------


def gemm(table, a, a_shape, b, b_shape, c, trans_a=False, trans_b=False, weight_rows=None, epilogue=None):
    """The launches of matmul2d(a viewed as a_shape, b as b_shape) into c, or None; ``epilogue``:
    (bias name or None, act, gate name or None), matmul2d's bias, act and gate."""
    m, k = (a_shape[1], a_shape[0]) if trans_a else a_shape
    n = b_shape[0] if trans_b else b_shape[1]
    dtype = table[a][1]
    if dtype not in _FLOATS or table[b][1] != dtype or not m * n * k:
        return None
    bias, act, gate = epilogue or (None, linalg.NO_ACT, None)
    if any(name is not None and table[name][1] != dtype for name in (bias, gate)):
        return None
    ends = [
        ("var", bias, (n,)) if bias is not None else ("array", np.empty(0, dtype)),
        ("var", gate, (m, n)) if gate is not None else ("array", np.empty((0, 0), dtype)),
        ("const", act),
    ]
    if k == 1:  # numpy's outer product, then the epilogue on all of c (matmul2d)
        launches = [Launch(_blas().outer, [("var", a, (m,)), ("var", b, (n,)), ("var", c, (m, n))], writes=[c])]
        if bias is not None or act != linalg.NO_ACT:
            args = [("var", c, (m, n)), ("const", 0), ("const", m), ("const", 0), ("const", n), *ends]
            launches.append(Launch(_blas()._epilogue, args))
        return launches
    fn = None
    if m * n * k >= linalg.threads.SPLIT_GEMM_MACS:
        mode, parts, fn = linalg.blocked_gemm(m, n, k, dtype, weight_rows)
    if fn is None:  # numpy's product: one call of numpy's BLAS on one thread (threads.for_gemm)
        if _cblas.source() != _cblas.NUMPY:
            return None
        mode, parts, fn = linalg.ROWS, 1, _cblas.gemm(dtype)
    ta = _cblas.TRANS if trans_a else _cblas.NO_TRANS
    tb = _cblas.TRANS if trans_b else _cblas.NO_TRANS
    head = [("const", fn), ("const", ta), ("const", tb), ("var", a, a_shape), ("var", b, b_shape), ("var", c, (m, n))]
    twin = parts > 1 and parallel_threads() > 1  # matmul2d's choice: its blocks on the device's threads
    if mode == linalg.INNER and parts > 1:
        partial = ("array", np.empty((parts, m, n), dtype))
        loop = _blas().gemm_k_blocks_parallel if twin else _blas().gemm_k_blocks
        return [Launch(loop, [*head, partial, *ends, ("const", parts)], writes=[c])]
    loop = _blas().gemm_blocks_parallel if twin else _blas().gemm_blocks
    return [Launch(loop, [*head, *ends, ("const", parts), ("const", mode == linalg.COLS)], writes=[c])]


def _matrix(shape, dims):
    return (math.prod(shape[:dims]), math.prod(shape[dims:]))


def mul(op, table):
    x, y, out = _one(op, "X"), _one(op, "Y"), _one(op, "Out", "outputs")
    if not _floats(table, x, y, out):
        return None
    xd, yd = op.attrs["x_num_col_dims"], op.attrs["y_num_col_dims"]
    return gemm(table, x, _matrix(table[x][0], xd), y, _matrix(table[y][0], yd), out, weight_rows=linalg.INNER)


def mul_grad(op, table):
    x, y, dout = _one(op, "X"), _one(op, "Y"), _one(op, "Out@GRAD")
    dx, dy = _one(op, "X@GRAD", "outputs"), _one(op, "Y@GRAD", "outputs")
    if not _floats(table, x, y, dout) or (dx is None and dy is None):
        return None
    xd, yd = op.attrs["x_num_col_dims"], op.attrs["y_num_col_dims"]
    x2, y2, size = _matrix(table[x][0], xd), _matrix(table[y][0], yd), math.prod(table[dout][0])
    parts = []
    if dx is not None:
        d2 = (size // max(y2[1], 1), y2[1])
        parts.append(gemm(table, dout, d2, y, y2, dx, trans_b=True, weight_rows=linalg.COLS))
    if dy is not None:
        parts.append(gemm(table, x, x2, dout, (x2[0], y2[1]), dy, trans_a=True))
    return None if any(p is None for p in parts) else [launch for p in parts for launch in p]


def fused_gemm_epilogue(op, table):
    """X @ Y + Bias, then relu where asked, in the GEMM's blocks (fused.fused_gemm_epilogue)."""
    x, y, bias, out = _one(op, "X"), _one(op, "Y"), _one(op, "Bias"), _one(op, "Out", "outputs")
    if not _floats(table, x, y, bias, out) or len(table[y][0]) != 2:
        return None
    tx, ty = op.attrs["trans_x"], op.attrs["trans_y"]
    act = linalg.RELU if op.attrs["activation"] == "relu" else linalg.NO_ACT
    stored = gemm_rows(table[x][0], tx)[1]
    rows = None if tx or ty else linalg.INNER
    return gemm(table, x, stored, y, table[y][0], out, tx, ty, rows, epilogue=(bias, act, None))


def fused_gemm_epilogue_grad(op, table):
    """fused.fused_gemm_epilogue_grad's products and bias sum, the same loops."""
    dout, x, y = _one(op, "DOut"), _one(op, "X"), _one(op, "Y")
    dx, dy, dbias = (_one(op, slot, "outputs") for slot in ("DX", "DY", "DBias"))
    if not _floats(table, dout, x, y) or len(table[y][0]) != 2 or not table[dout][0]:
        return None
    tx, ty = op.attrs["trans_x"], op.attrs["trans_y"]
    x2, n = gemm_rows(table[x][0], tx)[1], table[dout][0][-1]
    d = (math.prod(table[dout][0]) // max(n, 1), n)
    parts = []
    if dbias is not None:
        parts.append([Launch(_pointwise().sum_outer, [("var", dout, (*d, 1)), _flat(table, dbias)], writes=[dbias])])
    if dy is not None:
        if ty:
            parts.append(gemm(table, dout, d, x, x2, dy, True, tx))
        else:
            parts.append(gemm(table, x, x2, dout, d, dy, not tx, False))
    if dx is not None:
        act = linalg.RELU_GRAD if op.attrs["activation_grad"] == "relu_grad" else linalg.NO_ACT
        gate = x if act == linalg.RELU_GRAD else None
        if tx:
            parts.append(gemm(table, y, table[y][0], dout, d, dx, ty, True, epilogue=(None, act, gate)))
        else:
            rows = None if ty else linalg.COLS
            parts.append(gemm(table, dout, d, y, table[y][0], dx, False, not ty, rows, epilogue=(None, act, gate)))
    return None if any(p is None for p in parts) else [launch for p in parts for launch in p]


# -- pointwise ---------------------------------------------------------------------------------------


def elementwise_add(op, table):
    """X + Y with Y along X's middle dims (a bias): the kernel's add_mid."""
    x, y, out = _one(op, "X"), _one(op, "Y"), _one(op, "Out", "outputs")
    if not _floats(table, x, y, out) or table[x][0] == table[y][0]:
        return None
    run = mid_run(_Shape(*table[x]), _Shape(*table[y]), op.attrs["axis"])
    if run is None or run[0] == 1:
        return None
    return [Launch(_pointwise().add_mid, [("var", x, run), _flat(table, y), ("var", out, run)], writes=[out])]


def elementwise_add_grad(op, table):
    x, y, dout = _one(op, "X"), _one(op, "Y"), _one(op, "Out@GRAD")
    dx, dy = _one(op, "X@GRAD", "outputs"), _one(op, "Y@GRAD", "outputs")
    if not _floats(table, x, y, dout) or table[dout][0] != table[x][0]:
        return None
    run = mid_run(_Shape(*table[x]), _Shape(*table[y]), op.attrs["axis"])
    if run is None:
        return None
    launches = [Launch(None, (), aliases={dx: dout})] if dx is not None else []
    if dy is not None:
        launches.append(Launch(_pointwise().sum_outer, [("var", dout, run), _flat(table, dy)], writes=[dy]))
    return launches


def relu(op, table):
    x, out = _one(op, "X"), _one(op, "Out", "outputs")
    if not _floats(table, x, out):
        return None
    return [Launch(_pointwise().relu, [_flat(table, x), _flat(table, out)], writes=[out])]


def relu_grad(op, table):
    out, dout, dx = _one(op, "Out"), _one(op, "Out@GRAD"), _one(op, "X@GRAD", "outputs")
    if not _floats(table, out, dout, dx) or table[out][0] != table[dout][0]:
        return None
    args = [_flat(table, out), _flat(table, dout), _flat(table, dx)]
    return [Launch(_pointwise().relu_grad, args, writes=[dx])]


def _last_axis(op, shape):
    """True where the op works along the last axis (its ``axis``, registered as last_axis: the
    kernel is wrapped to move another axis last, layout.along_axis)."""
    axis = op.attrs.get("axis", -1)
    return axis in (-1, len(shape) - 1)


def softmax_with_cross_entropy(op, table):
    logits, label = _one(op, "Logits"), _one(op, "Label")
    soft, loss = _one(op, "Softmax", "outputs"), _one(op, "Loss", "outputs")
    if op.attrs["soft_label"] or not _floats(table, logits, soft, loss) or label not in table:
        return None
    shape, dtype = table[logits]
    if table[label][1].kind not in "iu" or not shape or not math.prod(shape) or not _last_axis(op, shape):
        return None
    if math.prod(shape) >= WIDE_SOFTMAX and dtype != np.float32:  # numpy's exp between two loops
        return None
    loop = _rows().softmax_ce if math.prod(shape) >= WIDE_SOFTMAX else _pointwise().softmax_ce
    rows = (math.prod(shape[:-1]), shape[-1])
    args = [("var", logits, rows), _flat(table, label), ("const", op.attrs["ignore_index"])]
    args += [("var", soft, rows), _flat(table, loss)]
    return [Launch(loop, args, writes=[soft, loss], checked=True)]


def softmax_with_cross_entropy_grad(op, table):
    soft, label, dloss = _one(op, "Softmax"), _one(op, "Label"), _one(op, "Loss@GRAD")
    dlogits = _one(op, "Logits@GRAD", "outputs")
    if op.attrs["soft_label"] or not _floats(table, soft, dloss, dlogits) or label not in table:
        return None
    shape = table[soft][0]
    if not _last_axis(op, shape):
        return None
    rows = (math.prod(shape[:-1]), shape[-1]) if shape else (0, 0)
    if table[label][1].kind not in "iu" or not rows[0] * rows[1] or math.prod(table[dloss][0]) != rows[0]:
        return None
    args = [("var", soft, rows), _flat(table, label), _flat(table, dloss), ("const", op.attrs["ignore_index"])]
    return [Launch(_rows().softmax_ce_grad, [*args, ("var", dlogits, rows)], writes=[dlogits])]


# -- reductions, fills, updates ---------------------------------------------------------------------


def mean(op, table):
    x, out = _one(op, "X"), _one(op, "Out", "outputs")
    if not _floats(table, x, out) or not 0 < math.prod(table[x][0]) < 1 << 24:
        return None
    return [Launch(_reduce().mean, [_flat(table, x), ("var", out, (1,))], writes=[out])]


def mean_grad(op, table):
    x, dout, dx = _one(op, "X"), _one(op, "Out@GRAD"), _one(op, "X@GRAD", "outputs")
    if not _floats(table, x, dout, dx):
        return None
    return [Launch(_reduce().mean_grad, [_flat(table, dout), _flat(table, dx)], writes=[dx])]


def fill_constant(op, table):
    """The kernel runs once, when the step is planned; the launch copies its constant."""
    out = _one(op, "Out", "outputs")
    if any(op.inputs.get(s) for s in op.inputs) or out not in table:
        return None
    value = creation.fill_constant({}, op.attrs)["Out"]
    if value.shape != table[out][0] or value.dtype != table[out][1] or value.dtype.kind not in "fiu":
        return None
    return [Launch(_reduce().copy, [("array", value.reshape(-1)), _flat(table, out)], writes=[out])]


def momentum(op, table):
    """Fluid's dense momentum, over Param and Velocity in place (ParamOut and VelocityOut name them)."""
    p, g, v, lr = _one(op, "Param"), _one(op, "Grad"), _one(op, "Velocity"), _one(op, "LearningRate")
    attrs = op.attrs
    if (
        _one(op, "ParamOut", "outputs") != p
        or _one(op, "VelocityOut", "outputs") != v
        or op.inputs.get("MasterParam")
        or float(attrs.get("rescale_grad", 1.0)) != 1.0
        or attrs.get("regularization_method", "") == "l2_decay"
        or not _floats(table, p, g, v)
        or not table[p][0] == table[g][0] == table[v][0]
        or lr not in table
        or math.prod(table[lr][0]) != 1
    ):
        return None
    dtype = table[p][1]
    args = [_flat(table, p), _flat(table, g), _flat(table, v), ("first", lr, dtype)]
    args += [("const", dtype.type(attrs["mu"])), ("const", bool(attrs["use_nesterov"]))]
    parts = parallel_parts(math.prod(table[p][0]), UPDATE_PARALLEL_MIN_ELEMENTS)  # the kernel's choice
    if parts > 1:
        return [Launch(_pointwise().momentum_in_place_parallel, [*args, ("const", parts)], updates=[p, v])]
    return [Launch(_pointwise().momentum_in_place, args, updates=[p, v])]


def sgd(op, table):
    """Fluid's dense sgd, over Param in place (ParamOut names it)."""
    p, g, lr = _one(op, "Param"), _one(op, "Grad"), _one(op, "LearningRate")
    if _one(op, "ParamOut", "outputs") != p or not _floats(table, p, g) or table[p][0] != table[g][0]:
        return None
    if lr not in table or math.prod(table[lr][0]) != 1:
        return None
    args = [_flat(table, p), _flat(table, g), ("first", lr, table[p][1])]
    return [Launch(_pointwise().sgd_in_place, args, updates=[p])]


FORMS = {
    f.__name__: f
    for f in (
        mul,
        mul_grad,
        fused_gemm_epilogue,
        fused_gemm_epilogue_grad,
        elementwise_add,
        elementwise_add_grad,
        relu,
        relu_grad,
        softmax_with_cross_entropy,
        softmax_with_cross_entropy_grad,
        mean,
        mean_grad,
        fill_constant,
        momentum,
        sgd,
    )
}
