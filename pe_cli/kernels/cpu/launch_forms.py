"""Launch forms: the numba part of a CPU kernel, bound once for an op and the shapes and dtypes of
its values, for a planned step (pe_cli/executor/step_plan.py).

A structured op's form is its out-kernel's (``structured``), of the meta its step decided (no second
decision of the variant). A form ``FORMS[op_type](op, table)`` gets the op and ``table`` (name -> (shape, dtype) of every
value the step knows: fed, read from the scope, or set by the registry's shape inference for the
outputs) and returns a list of ``Launch``es, or None where the op has no launch form for those
values (it then runs as a Python launch, ``plan.run_step``). A form makes the choices the kernel
makes at each call (which loop, which view of its arrays, how a GEMM splits) once, and the kernel
calls the same loop when it runs unplanned: the two paths give the same bits. The serial loop is
launched where the kernel runs its numpy replica (while the loop compiles: the same bits), its
parallel twin where the kernel would run it on the device's threads when the step is planned (a
GEMM's blocks, a large update: the same bits as the serial loop, runtime/loops.py); a small GEMM that
numpy's ``@`` runs (one BLAS call on one thread) is launched as the same call of numpy's BLAS
from the blocked loop with one block.

Arguments of a launch (``Launch.args``): ``("var", name, shape)``: the value of ``name`` (viewed
as ``shape`` when not None); ``("const", value)``: a number (or the GEMM's C function) compiled
into the step; ``("array", array)``: an array the plan keeps (an empty bias); ``("first", name,
dtype)``: the one value of the array ``name`` as a ``dtype`` scalar (a learning rate)."""

import math


from . import creation
from .runtime.loops import UPDATE_PARALLEL_MIN_ELEMENTS, lazy, parallel_parts
from .gemm_launch_forms import fused_gemm_epilogue, fused_gemm_epilogue_grad, mul, mul_grad
from .launches import Launch
from .launches import flat as _flat
from .launches import floats as _floats
from .launches import one as _one

_pointwise = lazy("_pointwise_loops")
_reduce = lazy("_reduce_loops")


# -- structured ops ---------------------------------------------------------------------------------


def structured(op, table, meta, out_kernel):
    """The launches of a structured op (pe_cli/shapes/structured.py) for the variant its meta rule chose:
    its out-kernel's own launch form (``out_kernel.launches``: the activation table's relu, relu_grad,
    tanh_grad, ... run their loop), or None: a Python launch of the out-kernel."""
    form = getattr(out_kernel, "launches", None)
    return None if form is None else form(op, table, meta)


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
        mean,
        mean_grad,
        fill_constant,
        momentum,
        sgd,
    )
}
