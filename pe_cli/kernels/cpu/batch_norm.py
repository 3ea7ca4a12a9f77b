"""The CPU out-kernels of batch_norm, batch_norm_grad and batch_norm_grad_param (structured kernels,
pe_cli/shapes/structured.py): ``FORWARD`` and ``GRAD`` (batch_norm_grad_param's too), ``out(ins, outs, attrs,
meta)``, compute the variant their meta rule chose (pe_cli/shapes/normalization.py) into the buffers they are
handed, each value by the same numpy operations on the same dtypes as the kernels before (the same bits), the
last of them writing into its buffer (``out=``):

- "running" (is_test, use_global_stats): Y by the running statistics; MeanOut and VarianceOut are Mean and
  Variance as they are, SavedMean too where it is of X's dtype (the Meta's aliases);
- "loops": training on float NCHW values, the numba loops of _norm_loops.py (per channel, blocks of channels
  over threads; the statistics in float64 scratch), and the loop that computes the other outputs from them as
  numpy does (bn_train_outputs); "loops_mixed": numpy's update of the running statistics instead;
- "numpy": the rest on float32/float64 X in training (NHWC, parameters of another dtype, empty); the gradient's
  "numpy" and "running": every input of X's float dtype;
- "fresh": float16 X in training, X of no float dtype, a gradient of mixed dtypes: the numpy form's own arrays
  (Meta.fresh: no pass to copy them).

A planned step launches the "loops" variants (``forward_launches``, ``grad_launches``: the same loops on the same
views, the same bits) and batch_norm's "running" (bn_running, numpy's operations in its order); the others run
as Python launches."""

import numpy as np

from ..structured import fresh_output
from .launches import Launch, Shape, by_variant, floats, one, twin_launch
from .runtime.loops import lazy, parallel_parts, twin

_norm_loops = lazy("_norm_loops")
_reduce_loops = lazy("_reduce_loops")


def channel_blocks(x):
    """Batch norm's blocks of channels, one a thread (more than one takes the parallel twin):
    several channels, enough data, several threads."""
    return min(x.shape[1], parallel_parts(x.size))


def as_ncs(a):
    return np.ascontiguousarray(a).reshape(a.shape[0], a.shape[1], -1)


def _moving(ins, outs, attrs, m, v):
    """MeanOut and VarianceOut: the running statistics moved toward the batch's ``m`` and ``v`` by momentum
    (Mean * momentum, of Mean's dtype, plus m * (1 - momentum), cast to Mean's dtype)."""
    mom = attrs["momentum"]
    mean_out, var_out = outs["MeanOut"], outs["VarianceOut"]
    np.multiply(ins["Mean"], mom, out=mean_out)
    np.add(mean_out, m * (1.0 - mom), out=mean_out, casting="unsafe")
    np.multiply(ins["Variance"], mom, out=var_out)
    np.add(var_out, v * (1.0 - mom), out=var_out, casting="unsafe")


def _affine(ins, outs, attrs, meta, m, v):
    """Y and SavedVariance (1/sqrt(v + epsilon)) from the statistics ``m`` and ``v`` (of X's dtype)."""
    x, y, inv_std = ins["X"], outs["Y"], outs["SavedVariance"]
    dt, bshape = x.dtype, meta.args[1]
    np.add(v, attrs["epsilon"], out=inv_std)
    np.sqrt(inv_std, out=inv_std)
    np.divide(1.0, inv_std, out=inv_std)
    a = ins["Scale"].astype(dt, copy=False) * inv_std
    b = ins["Bias"].astype(dt, copy=False) - m * a
    np.multiply(x, a.reshape(bshape), out=y)
    np.add(y, b.reshape(bshape), out=y)


def _running(ins, outs, attrs, meta):
    dt, m = ins["X"].dtype, outs["SavedMean"]
    if "SavedMean" not in meta.aliases:  # (Mean of another dtype than X's: SavedMean is it cast)
        m[...] = ins["Mean"]
    _affine(ins, outs, attrs, meta, m, ins["Variance"].astype(dt, copy=False))


def _numpy(ins, outs, attrs, meta):
    x = ins["X"]
    axes = meta.args[0]
    m = x.mean(axis=axes, out=outs["SavedMean"])
    v = x.var(axis=axes)  # biased, as Fluid uses for both Y and the moving variance
    _moving(ins, outs, attrs, m, v)
    _affine(ins, outs, attrs, meta, m, v)


def _fresh(ins, outs, attrs, meta):
    """The numpy form's arrays (float16's statistics round once from float32; X of no float dtype)."""
    x, scale, bias, mean, var = ins["X"], ins["Scale"], ins["Bias"], ins["Mean"], ins["Variance"]
    (axes, bshape, running), dt, mom = meta.args, x.dtype, attrs["momentum"]
    made = {}
    if running:  # (MeanOut and VarianceOut: the Meta's aliases)
        m, v = mean.astype(dt, copy=False), var.astype(dt, copy=False)
    else:
        m, v = x.mean(axis=axes), x.var(axis=axes)
        made["MeanOut"] = (mean * mom + m * (1.0 - mom)).astype(mean.dtype, copy=False)
        made["VarianceOut"] = (var * mom + v * (1.0 - mom)).astype(var.dtype, copy=False)
    inv_std = (1.0 / np.sqrt(v + attrs["epsilon"])).astype(dt, copy=False)
    a = scale.astype(dt, copy=False) * inv_std
    made["Y"] = x * a.reshape(bshape) + (bias.astype(dt, copy=False) - m * a).reshape(bshape)
    made["SavedMean"], made["SavedVariance"] = m, inv_std
    for slot, value in made.items():
        outs[slot] = fresh_output(value, meta.outputs[slot], ins.values())


def _statistics(ins, outs, attrs, relu=False):
    """Y, and the batch's float64 mean, variance and inv_std (the scratch ``stats``), by the numba loop (``relu``:
    Y is relu of the normalized value, written in the same pass: fused_batch_norm_act's)."""
    x, y, stats = ins["X"], outs["Y"], outs["stats"]
    m, v, inv_std = stats
    parts = channel_blocks(x)
    args = (as_ncs(x), ins["Scale"], ins["Bias"], float(attrs["epsilon"]), y.reshape(x.shape[0], x.shape[1], -1))
    args += (m, v, inv_std, relu, parts)
    loops = _norm_loops()
    (loops.bn_forward if parts == 1 else twin(loops.bn_forward, loops.bn_forward_parallel, True, *args))(*args)
    return m, v, inv_std


def _loops(ins, outs, attrs, meta, relu=False):
    m, v, inv_std = _statistics(ins, outs, attrs, relu)
    mean, var, mom = ins["Mean"], ins["Variance"], attrs["momentum"]
    args = (mean, var, mean.dtype.type(mom), var.dtype.type(mom), 1.0 - mom, m, v, inv_std)
    args += (outs["MeanOut"], outs["VarianceOut"], outs["SavedMean"], outs["SavedVariance"])
    _norm_loops().bn_train_outputs(*args)


def _loops_mixed(ins, outs, attrs, meta, relu=False):
    m, v, inv_std = _statistics(ins, outs, attrs, relu)
    _moving(ins, outs, attrs, m, v)
    outs["SavedMean"][...] = m  # (float64 cast to X's dtype)
    outs["SavedVariance"][...] = inv_std


def _grad_loops(ins, outs, attrs, meta, relu_out=None):
    """(``relu_out``: Y of relu(batch_norm(X)), fused_batch_norm_act's: Y@GRAD passes where Y > 0.)"""
    x, scale, dy = ins["X"], ins["Scale"], as_ncs(ins["Y@GRAD"])
    with_x = "X@GRAD" in meta.outputs
    dx = outs["X@GRAD"].reshape(dy.shape) if with_x else dy  # (batch_norm_grad_param's: the loop writes no dx)
    parts = channel_blocks(x)
    args = (as_ncs(x), dy, scale, ins["SavedMean"], ins["SavedVariance"], dx)
    relu = relu_out is not None
    args += (outs["Scale@GRAD"], outs["Bias@GRAD"], with_x, as_ncs(relu_out) if relu else dy, relu, parts)
    loops = _norm_loops()
    (loops.bn_grad if parts == 1 else twin(loops.bn_grad, loops.bn_grad_parallel, True, *args))(*args)


def _grad_sums(ins, outs, meta):
    """(xhat, Bias@GRAD: the sum of Y@GRAD, Scale@GRAD: the sum of Y@GRAD * xhat), the sums written into
    their buffers (of X's dtype)."""
    x, sm, inv_std, dy = ins["X"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
    axes, bshape = meta.args
    xhat = (x - sm.reshape(bshape)) * inv_std.reshape(bshape)
    dbias = np.add.reduce(dy, axis=axes, out=outs["Bias@GRAD"])
    return xhat, dbias, np.add.reduce(dy * xhat, axis=axes, out=outs["Scale@GRAD"])


def _grad_numpy(ins, outs, attrs, meta):
    """In training, every input of X's dtype: X@GRAD written through ``out=``."""
    xhat, dbias, dscale = _grad_sums(ins, outs, meta)
    if "X@GRAD" not in meta.outputs:
        return
    x, sm, dx, bshape = ins["X"], ins["SavedMean"], outs["X@GRAD"], meta.args[1]
    count = x.size // max(sm.size, 1)
    k = ins["Scale"] * ins["SavedVariance"]
    np.multiply(count, ins["Y@GRAD"], out=dx)
    np.subtract(dx, dbias.reshape(bshape), out=dx)
    np.multiply(xhat, dscale.reshape(bshape), out=xhat)
    np.subtract(dx, xhat, out=dx)
    np.multiply((k / count).reshape(bshape), dx, out=dx)


def _grad_running(ins, outs, attrs, meta):
    """By the running statistics, every input of X's dtype: X@GRAD = Y@GRAD * Scale * SavedVariance."""
    _grad_sums(ins, outs, meta)
    if "X@GRAD" in meta.outputs:
        k = ins["Scale"] * ins["SavedVariance"]
        np.multiply(ins["Y@GRAD"], k.reshape(meta.args[1]), out=outs["X@GRAD"])


def _grad_fresh(ins, outs, attrs, meta):
    """Inputs of mixed dtypes: the numpy form's arrays (the sums of X's dtype, cast to Scale's)."""
    x, scale, sm, inv_std, dy = ins["X"], ins["Scale"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
    axes, bshape, running = meta.args
    xhat = (x - sm.reshape(bshape)) * inv_std.reshape(bshape)
    dbias = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    made = {"Scale@GRAD": dscale.astype(scale.dtype, copy=False), "Bias@GRAD": dbias.astype(scale.dtype, copy=False)}
    if "X@GRAD" in meta.outputs:
        k = (scale * inv_std).astype(x.dtype, copy=False)
        if running:
            dx = dy * k.reshape(bshape)
        else:
            count = x.size // max(sm.size, 1)
            dx = (k / count).reshape(bshape) * (count * dy - dbias.reshape(bshape) - xhat * dscale.reshape(bshape))
        made["X@GRAD"] = dx.astype(x.dtype, copy=False)
    for slot, value in made.items():
        outs[slot] = fresh_output(value, meta.outputs[slot], ins.values())


def _ncs(table, name):
    """The launch argument of ``name`` viewed as as_ncs views it: [N, C, the rest]."""
    shape = table[name][0]
    return ("var", name, (shape[0], shape[1], int(np.prod(shape[2:], dtype=np.int64))))


def forward_launches(op, table, meta, relu=False):
    """A planned step's launches of the "loops" variant, _loops's (``relu``: relu_loops's, relu of Y in its pass):
    bn_forward (its parallel twin where _statistics runs it) into Y and the batch's float64 statistics (scratch the
    plan keeps), then bn_train_outputs;
    MeanOut and VarianceOut written in place where they name Mean and Variance (as Fluid's and Paddle's layers
    build the op: the running statistics updated), else into their buffers; None for the other variants (a
    Python launch, its out-kernel)."""
    ins = {s: one(op, s) for s in ("X", "Scale", "Bias", "Mean", "Variance")}
    outs = {s: one(op, s, "outputs") for s in ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance")}
    if meta.variant == "running" and None not in ins.values() and None not in outs.values():
        return _running_launches(op, table, ins, outs)
    if meta.variant != "loops" or None in ins.values() or None in outs.values():
        return None
    if len(op.output_arg_names) != len(outs) or len(set(outs.values())) != len(outs):
        return None
    x, (shape, dtype) = ins["X"], table[ins["X"]]
    c = shape[1]
    stats = np.zeros((3, c))  # (the batch's mean, variance and inv_std: the Meta's scratch)
    m, v, inv_std = (("array", row) for row in stats)
    parts = channel_blocks(Shape(shape, dtype))
    args = [_ncs(table, x), ("var", ins["Scale"], None), ("var", ins["Bias"], None)]
    args += [("const", float(op.attrs["epsilon"])), _ncs(table, outs["Y"]), m, v, inv_std, ("const", relu)]
    loops = _norm_loops()
    launches = [
        twin_launch(
            loops.bn_forward, loops.bn_forward_parallel, parts > 1, [*args, ("const", parts)], writes=[outs["Y"]]
        )
    ]
    mom = op.attrs["momentum"]
    mean_dtype, var_dtype = table[ins["Mean"]][1], table[ins["Variance"]][1]
    args = [("var", ins["Mean"], None), ("var", ins["Variance"], None)]
    args += [("const", mean_dtype.type(mom)), ("const", var_dtype.type(mom)), ("const", 1.0 - mom), m, v, inv_std]
    args += [("var", outs[s], None) for s in ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance")]
    running = {"MeanOut": "Mean", "VarianceOut": "Variance"}
    updates = [outs[s] for s, i in running.items() if outs[s] == ins[i]]
    writes = [outs[s] for s in ("SavedMean", "SavedVariance")] + [
        outs[s] for s, i in running.items() if outs[s] != ins[i]
    ]
    launches.append(Launch(loops.bn_train_outputs, args, writes=writes, updates=updates))
    return launches


def _running_launches(op, table, ins, outs):
    """The launches of "running" (is_test), _running's: bn_running on NCHW or [N, C] values and parameters of one
    float dtype, epsilon a Python number (numpy rounds it to that dtype); SavedMean a copy of Mean, and MeanOut and
    VarianceOut, where they do not name Mean and Variance (the running statistics left as they are), copies of
    them (op by op, their arrays). None otherwise (a Python launch)."""
    x, running = ins["X"], {"MeanOut": "Mean", "VarianceOut": "Variance"}
    if op.attrs.get("data_layout") == "NHWC" or len(table[x][0]) < 2 or not floats(table, *ins.values()):
        return None
    if type(op.attrs["epsilon"]) is not float:
        return None
    args = [_ncs(table, x), *(("var", ins[s], None) for s in ("Scale", "Bias", "Mean", "Variance"))]
    args += [("const", table[x][1].type(op.attrs["epsilon"])), _ncs(table, outs["Y"])]
    args += [("var", outs[s], None) for s in ("SavedMean", "SavedVariance")]
    launches = [Launch(_norm_loops().bn_running, args, writes=[outs[s] for s in ("Y", "SavedMean", "SavedVariance")])]
    for slot, src in running.items():
        if outs[slot] != ins[src]:
            copied = [("var", ins[src], None), ("var", outs[slot], None)]
            launches.append(Launch(_reduce_loops().copy, copied, writes=[outs[slot]]))
    return launches


def grad_launches(op, table, meta, relu=False):
    """A planned step's launch of the gradient's "loops" variant, _grad_loops's: bn_grad (its parallel twin where
    the out-kernel runs it) into Scale@GRAD, Bias@GRAD and, for batch_norm_grad, X@GRAD (``relu``: of
    relu(batch_norm(X)), its output the input Y, relu_grad_loops's); None for the other variants (a Python
    launch)."""
    ins = {s: one(op, s) for s in ("X", "Scale", "SavedMean", "SavedVariance", "Y@GRAD")}
    outs = {s: one(op, s, "outputs") for s in ("Scale@GRAD", "Bias@GRAD")}
    with_x = "X@GRAD" in meta.outputs
    if with_x:
        outs["X@GRAD"] = one(op, "X@GRAD", "outputs")
    if meta.variant != "loops" or None in ins.values() or None in outs.values():
        return None
    if len(op.output_arg_names) != len(outs) or len(set(outs.values())) != len(outs):
        return None
    x, (shape, dtype) = ins["X"], table[ins["X"]]
    dy = _ncs(table, ins["Y@GRAD"])
    out = dy
    if relu:
        out = one(op, "Y")
        if out is None or table.get(out) != table[ins["Y@GRAD"]]:
            return None
        out = _ncs(table, out)
    args = [_ncs(table, x), dy, *(("var", ins[s], None) for s in ("Scale", "SavedMean", "SavedVariance"))]
    args += [_ncs(table, outs["X@GRAD"]) if with_x else dy, ("var", outs["Scale@GRAD"], None)]
    args += [("var", outs["Bias@GRAD"], None), ("const", with_x), out, ("const", relu)]
    parts = channel_blocks(Shape(shape, dtype))
    loops = _norm_loops()
    return [
        twin_launch(
            loops.bn_grad, loops.bn_grad_parallel, parts > 1, [*args, ("const", parts)], writes=list(outs.values())
        )
    ]


FORWARD = by_variant(
    "batch_norm_out",
    forward_launches,
    running=_running,
    loops=_loops,
    loops_mixed=_loops_mixed,
    numpy=_numpy,
    fresh=_fresh,
)


def relu_loops(ins, outs, attrs, meta):
    """batch_norm's "loops" or "loops_mixed" variant (``meta``'s) with relu in the pass that writes Y."""
    (_loops if meta.variant == "loops" else _loops_mixed)(ins, outs, attrs, meta, relu=True)


def relu_grad_loops(ins, outs, attrs, meta, relu_out):
    """batch_norm_grad's "loops" variant of the gradient of relu(batch_norm(X)), Y (``relu_out``) its output."""
    _grad_loops(ins, outs, attrs, meta, relu_out)


GRAD = by_variant(
    "batch_norm_grad_out",
    grad_launches,
    loops=_grad_loops,
    numpy=_grad_numpy,
    running=_grad_running,
    fresh=_grad_fresh,
)
