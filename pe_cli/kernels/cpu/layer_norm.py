"""The CPU out-kernels of layer_norm and layer_norm_grad (structured kernels, pe_cli/shapes/structured.py):
``FORWARD`` and ``GRAD``, ``out(ins, outs, attrs, meta)``, compute X's rows ([left, right], ``meta.args``) in
the numba loops of _norm_loops.py (statistics and the gradient's sums over rows in float64) into the buffers
they are handed, the variant their meta rule chose (pe_cli/shapes/normalization.py):

- "rows": float32 or float64 X; the loops write the outputs' buffers;
- "cast": other dtypes (float16): the loops compute in float32 scratch buffers, cast to the outputs.

The serial loop or its parallel twin (the same bits: fixed runs of rows) by the device's threads. Their
``launches(op, table, meta)``: a planned step's launches of the "rows" variant's loops (the gradient's: its
sums over rows zeroed in scratch, the loop, the sums copied into the gradients)."""

import numpy as np

from .launches import by_variant
from .launches import Launch, floats, one, twin_launch
from .runtime.loops import lazy, parallel_parts, twin

_norm_loops = lazy("_norm_loops")
_reduce_loops = lazy("_reduce_loops")

# values from which layer_norm's passes split their runs of rows over the device's threads: a row
# costs three passes and a square root, more than a pointwise loop's element
LN_PARALLEL_MIN_ELEMENTS = 1 << 15


def _parallel(view):
    return view[0] > 1 and parallel_parts(view[0] * view[1], LN_PARALLEL_MIN_ELEMENTS) > 1


def _rows(value, view, dtype):
    """``value`` as C-contiguous [left, right] of ``dtype`` (no copy where it is that already)."""
    return np.ascontiguousarray(value, dtype).reshape(view)


def _param(ins, slot, n, dtype, fill):
    value = ins.get(slot)
    return np.full(n, fill, dtype) if value is None else value.reshape(-1).astype(dtype, copy=False)


def _run(name, view, *args):
    loops = _norm_loops()
    twin(getattr(loops, name), getattr(loops, name + "_parallel"), _parallel(view), *args)(*args)


def _forward(ins, attrs, meta, y, mean, var):
    view = meta.args
    x2 = _rows(ins["X"], view, y.dtype)
    scale, bias = _param(ins, "Scale", view[1], y.dtype, 1), _param(ins, "Bias", view[1], y.dtype, 0)
    _run("layer_norm", view, x2, scale, bias, float(attrs["epsilon"]), y, mean, var)


def _forward_rows(ins, outs, attrs, meta):
    _forward(ins, attrs, meta, outs["Y"].reshape(meta.args), outs["Mean"], outs["Variance"])


def _forward_cast(ins, outs, attrs, meta):
    y, mean, var = outs["y"], outs["mean"], outs["var"]
    _forward(ins, attrs, meta, y, mean, var)
    np.copyto(outs["Y"].reshape(meta.args), y, casting="unsafe")
    np.copyto(outs["Mean"], mean, casting="unsafe")
    np.copyto(outs["Variance"], var, casting="unsafe")


def _grad(ins, outs, attrs, meta, dx):
    view, work = meta.args, dx.dtype
    dscale, dbias = outs["dscale"], outs["dbias"]
    dscale.fill(0)
    dbias.fill(0)
    args = (
        _rows(ins["X"], view, work),
        _rows(ins["Y@GRAD"], view, work),
        ins["Mean"].astype(work, copy=False),
        ins["Variance"].astype(work, copy=False),
        _param(ins, "Scale", view[1], work, 1),
        float(attrs["epsilon"]),
        dx,
        dscale,
        dbias,
    )
    _run("layer_norm_grad", view, *args)
    np.copyto(outs["Bias@GRAD"], dbias, casting="unsafe")
    if "Scale@GRAD" in meta.outputs:
        np.copyto(outs["Scale@GRAD"], dscale, casting="unsafe")


def _grad_rows(ins, outs, attrs, meta):
    _grad(ins, outs, attrs, meta, outs["X@GRAD"].reshape(meta.args))


def _grad_cast(ins, outs, attrs, meta):
    _grad(ins, outs, attrs, meta, outs["dx"])
    np.copyto(outs["X@GRAD"].reshape(meta.args), outs["dx"], casting="unsafe")


def forward_launches(op, table, meta):
    """A planned step's launch of the "rows" variant's loop, its parallel twin where _forward runs it (the same bits), over
    the values as they lie, Scale and Bias of X's dtype (absent: ones and zeros the plan keeps); None for the
    rest (the op then runs as a Python launch, its out-kernel)."""
    x, y, mean, var = one(op, "X"), one(op, "Y", "outputs"), one(op, "Mean", "outputs"), one(op, "Variance", "outputs")
    given = [one(op, s) for s in ("Scale", "Bias") if op.inputs.get(s)]
    if meta.variant != "rows" or None in (x, y, mean, var, *given) or not floats(table, x, *given):
        return None
    view, dtype = meta.args, table[x][1]
    params = []
    for slot, fill in (("Scale", 1), ("Bias", 0)):
        name = one(op, slot) if op.inputs.get(slot) else None
        params.append(("array", np.full(view[1], fill, dtype)) if name is None else ("var", name, (view[1],)))
    args = [("var", x, view), *params, ("const", float(op.attrs["epsilon"]))]
    args += [("var", y, view), ("var", mean, (view[0],)), ("var", var, (view[0],))]
    loops = _norm_loops()
    return [twin_launch(loops.layer_norm, loops.layer_norm_parallel, _parallel(view), args, writes=[y, mean, var])]


def grad_launches(op, table, meta):
    """A planned step's launches of the gradient's "rows" variant, _grad's loops: its float64 sums over rows
    (scratch the plan keeps) set to 0 (_reduce_loops.copy of zeros: fill(0)'s bits), the loop (its parallel
    twin where _grad runs it: the same bits), then the sums copied (cast) into Bias@GRAD and Scale@GRAD as
    np.copyto does; None for "cast" (a Python launch)."""
    x, dy, mean, var = one(op, "X"), one(op, "Y@GRAD"), one(op, "Mean"), one(op, "Variance")
    scale = one(op, "Scale") if op.inputs.get("Scale") else None
    dx = one(op, "X@GRAD", "outputs")
    grads = {s: one(op, s, "outputs") for s in ("Bias@GRAD", "Scale@GRAD") if op.outputs.get(s)}
    names = (x, dy, mean, var, dx, *grads.values(), *([scale] if scale else []))
    if meta.variant != "rows" or not floats(table, *names):
        return None
    view, dtype, copy = meta.args, table[x][1], _reduce_loops().copy
    zeros = np.zeros(view[1])
    sums = {"Scale@GRAD": np.zeros(view[1]), "Bias@GRAD": np.zeros(view[1])}
    param = ("array", np.ones(view[1], dtype)) if scale is None else ("var", scale, (view[1],))
    args = [("var", x, view), ("var", dy, view), ("var", mean, (view[0],)), ("var", var, (view[0],)), param]
    args += [("const", float(op.attrs["epsilon"])), ("var", dx, view), *(("array", a) for a in sums.values())]
    launches = [Launch(copy, [("array", zeros), ("array", a)]) for a in sums.values()]
    loops = _norm_loops()
    launches.append(
        twin_launch(loops.layer_norm_grad, loops.layer_norm_grad_parallel, _parallel(view), args, writes=[dx])
    )
    launches += [Launch(copy, [("array", sums[s]), ("var", n, (view[1],))], writes=[n]) for s, n in grads.items()]
    return launches


FORWARD = by_variant("layer_norm_out", forward_launches, rows=_forward_rows, cast=_forward_cast)
GRAD = by_variant("layer_norm_grad_out", grad_launches, rows=_grad_rows, cast=_grad_cast)
