"""The CPU out-kernels of sgd, momentum and adam (structured kernels, pe_cli/shapes/structured.py): ``SGD``,
``MOMENTUM`` and ``ADAM``, ``out(ins, outs, attrs, meta)``, compute the variant their meta rule chose
(pe_cli/shapes/optimizer.py) into the buffers they are handed:

- "loop": one numba pass (_pointwise_loops.sgd, momentum, _adam_loops.adam, or momentum's parallel twin over a
  large array: the same bits), in its in-place form (sgd_in_place, momentum_in_place, adam_in_place: LLVM
  vectorises them, where ``out=`` the input fails its overlap check) where the buffers handed are the inputs'
  own (the executor let the update write over them: ``Meta.inplace``); while a loop compiles on a machine's
  first run, its numpy replica;
- "rows": sgd of a row-sparse Grad: the rows it holds (duplicates summed) move, the others are Param's;
- "table": sgd of a row-sparse Param, a new SelectedRows (kernels/cpu/selected_rows.sgd_of_rows);
- "lazy": adam's lazy_mode on a row-sparse Grad (selected_rows.lazy_adam), "unchanged": one of no rows;
- "numpy": numpy's expression, its arrays the outputs (``fresh``).

momentum takes Paddle 2.x's gradient terms first (rescale_grad, l2_decay: kernels/momentum_terms.grad_terms,
by this device's scale and elementwise_add kernels) and, with multi_precision, updates MasterParam and casts
it to ParamOut (this device's cast kernel). sgd's, momentum's and adam's ``launches(op, table, meta)``: a
planned step's launch of the in-place loop over Param and Velocity, or Param and the moments (adam's with its
powers' next values and bias-corrected rate computed in the loop: _adam_loops.adam_step_in_place;
pe_cli/executor/step_plan.py)."""

import math

import numpy as np

from ..momentum_terms import grad_terms
from ..structured import fresh_output
from . import _replicas, elementwise, manipulation, selected_rows as sparse
from .launches import by_variant
from .launches import Launch, flat as flat_arg, one, twin_launch
from .runtime.loops import UPDATE_PARALLEL_MIN_ELEMENTS, flat, lazy, loop_or, parallel_parts, parallel_ready

_loops = lazy("_pointwise_loops")
_adam_loops = lazy("_adam_loops")


def scalar(a, dtype):
    """A one-value array as a numpy scalar of ``dtype`` (``flat[0]``: a tenth of reshape's cost on the
    tiny model's step)."""
    value = np.asarray(a).flat[0]
    return value if value.dtype == dtype else dtype.type(value)


def _own(a):
    """A C-contiguous array as 1-D (itself where it is: a tenth of the tiny model's update)."""
    return a if a.ndim == 1 else a.reshape(-1)


# -- sgd ------------------------------------------------------------------------------------------------


def _sgd_loop(ins, outs, attrs, meta):
    p, g, p_out = ins["Param"], ins["Grad"], outs["ParamOut"]
    lr = scalar(ins["LearningRate"], p.dtype)
    if p_out is p:
        args = (_own(p), flat(g), lr)
        loop_or(_replicas.sgd_in_place, _loops().sgd_in_place, *args)(*args)
    else:
        args = (flat(p), flat(g), lr, p_out.reshape(-1))
        loop_or(_replicas.sgd, _loops().sgd, *args)(*args)


def _sgd_rows(ins, outs, attrs, meta):
    p, g, p_out = ins["Param"], ins["Grad"], outs["ParamOut"]
    lr = scalar(ins["LearningRate"], p.dtype)
    rows, values = g.merged()
    if p_out is not p:  # (the rows Grad does not hold are Param's)
        np.copyto(p_out, p)
    p_out[rows] = p[rows] - lr * values


def _sgd_table(ins, outs, attrs, meta):
    p = ins["Param"]
    outs["ParamOut"] = sparse.sgd_of_rows(p, ins["Grad"], scalar(ins["LearningRate"], p.dtype))["ParamOut"]


def _sgd_numpy(ins, outs, attrs, meta):
    p, g = ins["Param"], ins["Grad"]
    lr = scalar(ins["LearningRate"], p.dtype)
    outs["ParamOut"] = fresh_output(p - lr * g, meta.outputs["ParamOut"], (p, g))


def sgd_launches(op, table, meta):
    """A planned step's launch of the "loop" variant: sgd_in_place over Param (ParamOut names it); None where the
    meta names no loop or the op writes another variable (the op then runs as a Python launch, its kernel)."""
    p, g, lr = one(op, "Param"), one(op, "Grad"), one(op, "LearningRate")
    if not meta.loop or None in (p, g, lr) or one(op, "ParamOut", "outputs") != p:
        return None
    args = [flat_arg(table, p), flat_arg(table, g), ("first", lr, table[p][1])]
    return [Launch(_loops().sgd_in_place, args, updates=[p])]


# -- momentum -------------------------------------------------------------------------------------------


def _momentum_terms(ins, attrs, meta):
    """(the parameter the update runs on, the gradient it uses: Paddle 2.x's terms, or a row-sparse Grad dense)."""
    sparse_grad, terms, on_master = meta.args
    param = ins["MasterParam"] if on_master else ins["Param"]
    g = ins["Grad"]
    if terms:
        g = grad_terms(ins, attrs, param, elementwise.scale, elementwise.elementwise_add)
    elif sparse_grad:  # Fluid's sparse momentum updates every row (Grad 0 elsewhere)
        g = g.to_dense()
    return param, g


def _momentum_loop(ins, outs, attrs, meta):
    on_master = meta.args[2]
    p, g = _momentum_terms(ins, attrs, meta)
    v = ins["Velocity"]
    p_out, v_out = outs["MasterParamOut" if on_master else "ParamOut"], outs["VelocityOut"]
    lr, mu = scalar(ins["LearningRate"], p.dtype), p.dtype.type(attrs["mu"])
    nesterov = bool(attrs["use_nesterov"])
    if p_out is p and v_out is v:
        parts = parallel_parts(p.size, UPDATE_PARALLEL_MIN_ELEMENTS)
        args = (_own(p), flat(g), _own(v), lr, mu, nesterov)
        if parts > 1 and parallel_ready(_loops().momentum_in_place_parallel, *args, parts):
            _loops().momentum_in_place_parallel(*args, parts)
        else:
            loop_or(_replicas.momentum_in_place, _loops().momentum_in_place, *args)(*args)
    else:
        parts = parallel_parts(p.size)
        args = (flat(p), flat(g), flat(v), lr, mu, nesterov, p_out.reshape(-1), v_out.reshape(-1))
        if parts > 1 and parallel_ready(_loops().momentum_parallel, *args, parts):
            _loops().momentum_parallel(*args, parts)
        else:
            loop_or(_replicas.momentum, _loops().momentum, *args)(*args)
    if on_master:
        np.copyto(outs["ParamOut"], _cast(p_out, meta.outputs["ParamOut"][1]))
    elif "MasterParamOut" in outs and outs["MasterParamOut"] is not ins["MasterParam"]:  # (passed through)
        np.copyto(outs["MasterParamOut"], ins["MasterParam"])


def _cast(value, dtype):
    """``value`` as ``dtype`` by this device's cast kernel (float16 as Paddle's CPU rounds it); itself where it is."""
    return value if value.dtype == dtype else manipulation.cast({"X": value}, {"out_dtype": dtype})["Out"]


def _momentum_numpy(ins, outs, attrs, meta):
    on_master = meta.args[2]
    p, g = _momentum_terms(ins, attrs, meta)
    v = ins["Velocity"]
    lr, mu = scalar(ins["LearningRate"], p.dtype), p.dtype.type(attrs["mu"])
    v_new = v * mu + g
    p_new = p - (g + v_new * mu) * lr if attrs["use_nesterov"] else p - lr * v_new
    p_new, v_new = p_new.astype(p.dtype, copy=False), v_new.astype(v.dtype, copy=False)
    given, specs = tuple(a for a in ins.values() if isinstance(a, np.ndarray)), meta.outputs
    outs["VelocityOut"] = fresh_output(v_new, specs["VelocityOut"], given)
    if on_master:
        outs["MasterParamOut"] = fresh_output(p_new, specs["MasterParamOut"], given)
        outs["ParamOut"] = fresh_output(_cast(p_new, specs["ParamOut"][1]), specs["ParamOut"], (*given, p_new))
        return
    outs["ParamOut"] = fresh_output(p_new, specs["ParamOut"], given)
    if "MasterParamOut" in specs:
        outs["MasterParamOut"] = fresh_output(ins["MasterParam"], specs["MasterParamOut"], given)


def momentum_launches(op, table, meta):
    """A planned step's launch of the "loop" variant of Fluid's plain momentum: momentum_in_place over Param
    and Velocity (ParamOut and VelocityOut name them), its parallel twin where the kernel would run it; None
    where the meta names no loop or the op writes other variables (a Python launch, its kernel)."""
    p, g, v, lr = one(op, "Param"), one(op, "Grad"), one(op, "Velocity"), one(op, "LearningRate")
    if not meta.loop or None in (p, g, v, lr):
        return None
    if one(op, "ParamOut", "outputs") != p or one(op, "VelocityOut", "outputs") != v:
        return None
    dtype, attrs = table[p][1], op.attrs
    args = [flat_arg(table, p), flat_arg(table, g), flat_arg(table, v), ("first", lr, dtype)]
    args += [("const", dtype.type(attrs["mu"])), ("const", bool(attrs["use_nesterov"]))]
    parts = parallel_parts(math.prod(table[p][0]), UPDATE_PARALLEL_MIN_ELEMENTS)  # the kernel's choice
    serial, parallel = _loops().momentum_in_place, _loops().momentum_in_place_parallel
    return [twin_launch(serial, parallel, parts > 1, [*args, ("const", parts)], args, updates=[p, v])]


# -- adam -----------------------------------------------------------------------------------------------


def _adam_terms(ins, outs, attrs, meta):
    """(lr_t, beta1, beta2, eps_c) of the step in Param's dtype, after Beta1PowOut and Beta2PowOut are written: the
    powers times beta1 / beta2 (the next step's, which Fluid 1.8.5's sparse kernel bias-corrects with where
    Beta1PowOut is Beta1Pow's variable: ``meta.args[1]``)."""
    p = ins["Param"]
    t = p.dtype.type
    for out, src, beta in (("Beta1PowOut", "Beta1Pow", "beta1"), ("Beta2PowOut", "Beta2Pow", "beta2")):
        value = ins[src] * ins[src].dtype.type(attrs[beta])
        if meta.fresh:
            outs[out] = fresh_output(value, meta.outputs[out], ())
        else:
            np.copyto(outs[out], value)
    b1p, b2p = (outs[f"{b}Out"] if meta.args[1] else ins[b] for b in ("Beta1Pow", "Beta2Pow"))
    b1p, b2p = scalar(b1p, p.dtype), scalar(b2p, p.dtype)
    one, lr = t(1), scalar(ins["LearningRate"], p.dtype)
    lr_t = lr * np.sqrt(one - b2p) / (one - b1p)
    eps = t(attrs["epsilon"])
    eps_c = eps * np.sqrt(one - b2p) if attrs.get("epsilon_scaled") else eps  # Paddle 2.x's form, or Fluid's
    return lr_t, t(attrs["beta1"]), t(attrs["beta2"]), eps_c


def _adam_unchanged(ins, outs, attrs, meta):
    given = tuple(v for v in ins.values() if isinstance(v, np.ndarray))
    for out, spec in meta.outputs.items():
        outs[out] = fresh_output(ins[out[:-3]], spec, given)


def _adam_lazy(ins, outs, attrs, meta):
    lr_t, beta1, beta2, eps_c = _adam_terms(ins, outs, attrs, meta)
    prior = meta.args[2]
    p, m1, m2 = ins["Param"], ins["Moment1"], ins["Moment2"]
    p_out, m1_out, m2_out = outs["ParamOut"], outs["Moment1Out"], outs["Moment2Out"]
    for out, src in (("ParamOut", "Param"), ("Moment1Out", "Moment1"), ("Moment2Out", "Moment2")):
        keep = ins[out] if prior else ins[src]  # (what the rows Grad does not hold keep)
        if outs[out] is not keep:
            np.copyto(outs[out], keep, casting="unsafe")
    sparse.lazy_adam(p, ins["Grad"], m1, m2, lr_t, beta1, beta2, eps_c, p_out, m1_out, m2_out)


def _adam_loop(ins, outs, attrs, meta):
    lr_t, beta1, beta2, eps_c = _adam_terms(ins, outs, attrs, meta)
    p, g, m1, m2 = ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"]
    if meta.args[0]:  # Fluid's non-lazy sparse adam: every row, Grad 0 where it holds none
        g = g.to_dense()
    one = p.dtype.type(1)
    args = (flat(p), flat(g), flat(m1), flat(m2), lr_t, beta1, beta2, one - beta1, one - beta2, eps_c)
    p_out, m1_out, m2_out = outs["ParamOut"], outs["Moment1Out"], outs["Moment2Out"]
    if p_out is p and m1_out is m1 and m2_out is m2:
        loop_or(_replicas.adam_in_place, _adam_loops().adam_in_place, *args)(*args)
    else:
        args += (p_out.reshape(-1), m1_out.reshape(-1), m2_out.reshape(-1))
        loop_or(_replicas.adam, _adam_loops().adam, *args)(*args)


def _adam_numpy(ins, outs, attrs, meta):
    lr_t, beta1, beta2, eps_c = _adam_terms(ins, outs, attrs, meta)
    p, g, m1, m2 = ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"]
    if meta.args[0]:
        g = g.to_dense()
    one = p.dtype.type(1)
    m1_new = beta1 * m1 + (one - beta1) * g
    m2_new = beta2 * m2 + (one - beta2) * g * g
    p_new = p - lr_t * (m1_new / (np.sqrt(m2_new) + eps_c))
    given = tuple(v for v in ins.values() if isinstance(v, np.ndarray))
    for out, value in (("ParamOut", p_new), ("Moment1Out", m1_new), ("Moment2Out", m2_new)):
        outs[out] = fresh_output(value, meta.outputs[out], given)


def adam_launches(op, table, meta):
    """A planned step's launch of the "loop" variant on a dense Grad, in place (ParamOut, Moment1Out and
    Moment2Out name Param, Moment1 and Moment2), its one-value powers of Param's dtype:
    _adam_loops.adam_step_in_place (the powers' next values, the step's terms as _adam_terms computes them,
    adam_in_place); None otherwise (a Python launch, its kernel)."""
    names = {s: one(op, s) for s in ("Param", "Grad", "Moment1", "Moment2", "LearningRate", "Beta1Pow", "Beta2Pow")}
    outs = {s: one(op, f"{s}Out", "outputs") for s in ("Param", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")}
    if meta.variant != "loop" or meta.args[0] or None in names.values() or None in outs.values():
        return None
    if any(outs[s] != names[s] for s in ("Param", "Moment1", "Moment2")):
        return None
    dtype = table[names["Param"]][1]
    pows = [names["Beta1Pow"], names["Beta2Pow"], outs["Beta1Pow"], outs["Beta2Pow"]]
    if any(n not in table or table[n][1] != dtype or math.prod(table[n][0]) != 1 for n in pows):
        return None
    t, attrs = dtype.type, op.attrs
    beta1, beta2 = t(attrs["beta1"]), t(attrs["beta2"])
    args = [flat_arg(table, names[s]) for s in ("Param", "Grad", "Moment1", "Moment2")]
    args += [("first", names["LearningRate"], dtype), *(flat_arg(table, n) for n in pows)]
    args += [("const", c) for c in (t(1), beta1, beta2, t(1) - beta1, t(1) - beta2, t(attrs["epsilon"]))]
    args.append(("const", bool(attrs.get("epsilon_scaled"))))
    p, m1, m2 = names["Param"], names["Moment1"], names["Moment2"]
    written = [outs[s] for s in ("Beta1Pow", "Beta2Pow") if outs[s] != names[s]]
    updated = [p, m1, m2, *(outs[s] for s in ("Beta1Pow", "Beta2Pow") if outs[s] == names[s])]
    return [Launch(_adam_loops().adam_step_in_place, args, writes=written, updates=updated)]


SGD = by_variant("sgd_out", sgd_launches, loop=_sgd_loop, rows=_sgd_rows, table=_sgd_table, numpy=_sgd_numpy)
MOMENTUM = by_variant("momentum_out", momentum_launches, loop=_momentum_loop, numpy=_momentum_numpy)
ADAM = by_variant(
    "adam_out", adam_launches, unchanged=_adam_unchanged, lazy=_adam_lazy, loop=_adam_loop, numpy=_adam_numpy
)
