"""The optimizer family's rules, shared by the kernels of both devices: whether Fluid 1.8.5's sparse adam reads
the next step's powers, ModelAverage's counters; the meta rules of sgd and momentum (below)."""

import numpy as np

from ..base.broadcast_shapes import broadcast
from ..base.dims import numel
from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from .structured import Meta


def adam_reads_next_powers(ins, attrs):
    """Fluid 1.8.5's sparse update writes Beta1PowOut before it reads Beta1Pow: where they are one
    variable (its optimizer's: the output's value before the op is the input's array), it
    bias-corrects with the next step's powers (docs/COMPAT.md). Paddle 2.x's form (epsilon_scaled)
    uses the step's own."""
    return not attrs.get("epsilon_scaled") and ins.get("Beta1PowOut") is ins["Beta1Pow"]


def lamb_form(attrs, paddle2):
    """(bias-corrected moments, trust ratio) of a lamb op: Fluid 1.8's form (neither corrected, the ratio always), or
    Paddle 2.x's (an op of a Paddle 2.x program, ``paddle2``, or one given pe's ``bias_correction``): corrected, the
    ratio ||Param|| / ||r|| only where weight_decay > 0 or ``always_adapt`` (phi/kernels/impl/lamb_kernel_impl.h: a
    parameter excluded from weight decay takes the learning rate as it is)."""
    if not (paddle2 or attrs.get("bias_correction")):
        return False, True
    return True, float(attrs["weight_decay"]) > 0 or bool(attrs.get("always_adapt"))


MAX_NUM_ACCUMULATES = 16384  # Fluid's kMaxNumAccumulates: sum_1 moves into sum_2 this often


def average_counters(ins, attrs):
    """ModelAverage's counters after one more update, and what happens to the sums: (num_updates,
    num_accumulates, old_num_accumulates, fold: sum_1 moves into sum_2, restart: the window restarts
    with sum_3 = sum_1 + sum_2). Host math from the one-value inputs (host arrays)."""
    updates = int(np.asarray(ins["in_num_updates"]).reshape(-1)[0]) + 1
    accumulates = int(np.asarray(ins["in_num_accumulates"]).reshape(-1)[0]) + 1
    old = int(np.asarray(ins["in_old_num_accumulates"]).reshape(-1)[0])
    lo, hi = int(attrs["min_average_window"]), int(attrs["max_average_window"])
    if lo > hi:
        raise ValueError(f"average_accumulates: min_average_window {lo} exceeds max_average_window {hi}")
    fold = updates % MAX_NUM_ACCUMULATES == 0
    restart = accumulates >= lo and accumulates >= min(hi, updates * float(attrs["average_window"]))
    if restart:
        old, accumulates = accumulates, 0
    return updates, accumulates, old, fold, restart


# -- sgd and momentum: structured kernels (shapes/structured.py) ---------------------------------------
#
# Their meta rules decide, once per shape signature, the outputs (each of its input's shape and dtype), the
# input each output may be written over where the executor lets an update write in place (``Meta.inplace``:
# ParamOut over Param, VelocityOut over Velocity) and the variant that computes them (the CPU out-kernels:
# kernels/cpu/optimizer_out.py):
#
# - "loop": float32 or float64 values of one dtype and one shape: one numba pass (_pointwise_loops.sgd,
#   momentum; their in-place forms where the buffers handed are the inputs'); ``Meta.loop`` names the loop a
#   planned step launches where the update is Fluid's plain one over a one-value LearningRate;
# - "rows": sgd of a row-sparse Grad (SelectedRows) over a dense Param: the rows it holds move, duplicates
#   summed; momentum's row-sparse Grad is made dense first, as Fluid's (Grad 0 elsewhere), a "loop" or "numpy";
# - "table": sgd of a row-sparse Param (a table's rows) by a row-sparse Grad: a new SelectedRows (fresh);
# - "numpy": the rest (other dtypes, mixed dtypes, shapes numpy broadcasts): numpy's expression, its arrays
#   the outputs (fresh).
#
# momentum's ``Meta.args`` are (sparse, terms, on_master): Grad is row-sparse; Paddle 2.x's gradient terms
# (rescale_grad, l2_decay) apply; the update runs on MasterParam (multi_precision with a MasterParam given:
# nothing in place, ParamOut its cast to Param's dtype).

LOOP, ROWS, TABLE, NUMPY = "loop", "rows", "table", "numpy"
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _one_loop(*values):
    """float32 or float64 values, all of one dtype and one shape (what the loops are compiled for)."""
    dtype, shape = values[0].dtype, tuple(values[0].shape)
    return dtype in _FLOATS and all(v.dtype == dtype and tuple(v.shape) == shape for v in values)


def _one_value(lr):
    return lr is not None and numel(lr.shape) == 1


def _spec(shapes, dtype):
    """numpy's broadcast of ``shapes`` (the first where they do not broadcast: numpy says why when it computes)
    with ``dtype``."""
    return tuple(broadcast(shapes) or shapes[0]), np.dtype(dtype)


def sgd_meta(attrs, ins, facts):
    """sgd's ParamOut and variant (above)."""
    p, g = ins["Param"], ins["Grad"]
    if isinstance(p, SelectedRows):
        return Meta({"ParamOut": (tuple(p.shape), p.dtype)}, TABLE, fresh=True)
    outputs = {"ParamOut": (tuple(p.shape), p.dtype)}
    if isinstance(g, SelectedRows):
        return Meta(outputs, ROWS, inplace={"ParamOut": "Param"})
    if _one_loop(p, g):
        loop = "sgd" if _one_value(ins["LearningRate"]) else ""
        return Meta(outputs, LOOP, loop, ("Param", "Grad", "LearningRate"), inplace={"ParamOut": "Param"})
    return Meta({"ParamOut": _spec([tuple(p.shape), tuple(g.shape)], p.dtype)}, NUMPY, fresh=True)


def momentum_meta(attrs, ins, facts):
    """momentum's ParamOut, VelocityOut (and MasterParamOut where a MasterParam is given) and variant (above)."""
    p, g, v, master = ins["Param"], ins["Grad"], ins["Velocity"], ins.get("MasterParam")
    sparse = isinstance(g, SelectedRows)
    terms = float(attrs.get("rescale_grad", 1.0)) != 1.0 or attrs.get("regularization_method", "") == "l2_decay"
    if sparse and terms:
        raise PeError(
            "momentum: rescale_grad and l2_decay of a row-sparse Grad are not supported by pe; "
            "use a dense gradient (is_sparse=False)"
        )
    on_master = master is not None and bool(attrs.get("multi_precision", False))
    param = master if on_master else p
    args = (sparse, terms, on_master)
    if _one_loop(param, g, v):  # (the terms keep Grad's dtype: scale's and elementwise_add's X's)
        shape = tuple(param.shape)
        outputs = {"ParamOut": (shape, p.dtype if on_master else param.dtype), "VelocityOut": (shape, v.dtype)}
        inplace = {} if on_master else {"ParamOut": "Param", "VelocityOut": "Velocity"}
        if master is not None:
            outputs["MasterParamOut"] = (tuple(master.shape), master.dtype)
            inplace = inplace and dict(inplace, MasterParamOut="MasterParam")
        plain = master is None and not terms and not sparse and _one_value(ins["LearningRate"])
        loop_inputs = ("Param", "Grad", "Velocity", "LearningRate")
        return Meta(outputs, LOOP, "momentum" if plain else "", loop_inputs, inplace, args=args)
    shapes = [tuple(param.shape), tuple(g.shape), tuple(v.shape)]
    core_p, core_v = _spec(shapes, param.dtype), _spec(shapes[1:], v.dtype)
    outputs = {"ParamOut": (core_p[0], p.dtype) if on_master else core_p, "VelocityOut": core_v}
    if master is not None:
        outputs["MasterParamOut"] = core_p if on_master else (tuple(master.shape), master.dtype)
    return Meta(outputs, NUMPY, fresh=True, args=args)


# -- the updates numpy computes: adagrad, decayed_adagrad, rmsprop, adamax, adadelta, ftrl, lamb, lars_momentum,
# adamw, proximal_gd and proximal_adagrad (their CPU out-kernels: kernels/cpu/optimizer_numpy.py, adamw.py,
# optimizer_proximal.py). Each output is its input's dtype, of the shape
# numpy broadcasts the values it is computed from to (the input's own, the shape rule having checked them at
# build time); variant "numpy" (fresh: numpy's arrays are the outputs), and adagrad's "rows" for a row-sparse
# Grad (its rows move, duplicates summed; Param and Moment written over where the executor lets it).

_P, _G = "Param", "Grad"
# op type -> {output slot: (the input whose dtype it has, the inputs it is computed from)}
NUMPY_UPDATES = {
    "adagrad": {"ParamOut": (_P, (_P, _G, "Moment")), "MomentOut": ("Moment", ("Moment", _G))},
    "decayed_adagrad": {"ParamOut": (_P, (_P, _G, "Moment")), "MomentOut": ("Moment", ("Moment", _G))},
    "rmsprop": {
        "ParamOut": (_P, (_P, "Moment", _G, "MeanSquare", "MeanGrad")),
        "MomentOut": ("Moment", ("Moment", _G, "MeanSquare", "MeanGrad")),
        "MeanSquareOut": ("MeanSquare", ("MeanSquare", _G)),
        "MeanGradOut": ("MeanGrad", ("MeanGrad", _G)),
    },
    "adamax": {
        "ParamOut": (_P, (_P, "Moment", _G, "InfNorm")),
        "MomentOut": ("Moment", ("Moment", _G)),
        "InfNormOut": ("InfNorm", ("InfNorm", _G)),
    },
    "adadelta": {
        "ParamOut": (_P, (_P, "AvgSquaredUpdate", "AvgSquaredGrad", _G)),
        "AvgSquaredGradOut": ("AvgSquaredGrad", ("AvgSquaredGrad", _G)),
        "AvgSquaredUpdateOut": ("AvgSquaredUpdate", ("AvgSquaredUpdate", "AvgSquaredGrad", _G)),
    },
    "ftrl": {
        "ParamOut": (_P, (_P, "LinearAccumulator", _G, "SquaredAccumulator")),
        "SquaredAccumOut": ("SquaredAccumulator", ("SquaredAccumulator", _G)),
        "LinearAccumOut": ("LinearAccumulator", ("LinearAccumulator", _G, "SquaredAccumulator", _P)),
    },
    "lamb": {
        "ParamOut": (_P, (_P, "Moment1", "Moment2", _G)),
        "Moment1Out": ("Moment1", ("Moment1", _G)),
        "Moment2Out": ("Moment2", ("Moment2", _G)),
        "Beta1PowOut": ("Beta1Pow", ("Beta1Pow",)),
        "Beta2PowOut": ("Beta2Pow", ("Beta2Pow",)),
    },
    "lars_momentum": {"ParamOut": (_P, (_P, "Velocity", _G)), "VelocityOut": ("Velocity", ("Velocity", _G, _P))},
    "proximal_gd": {"ParamOut": (_P, (_P, _G))},
    "proximal_adagrad": {"ParamOut": (_P, (_P, _G, "Moment")), "MomentOut": ("Moment", ("Moment", _G))},
    "adamw": {
        "ParamOut": (_P, (_P, "Moment1", "Moment2", _G)),
        "Moment1Out": ("Moment1", ("Moment1", _G)),
        "Moment2Out": ("Moment2", ("Moment2", _G)),
        "Beta1PowOut": ("Beta1Pow", ("Beta1Pow",)),
        "Beta2PowOut": ("Beta2Pow", ("Beta2Pow",)),
    },
}


def _numpy_outputs(op_type, ins):
    """slot -> (shape, dtype) of the outputs of ``op_type`` (NUMPY_UPDATES) whose input is given."""
    outputs = {}
    for slot, (like, operands) in NUMPY_UPDATES[op_type].items():
        if ins.get(like) is not None:
            outputs[slot] = _spec([tuple(ins[s].shape) for s in operands if ins.get(s) is not None], ins[like].dtype)
    return outputs


def numpy_update_meta(op_type):
    """The meta rule of the update ``op_type`` of NUMPY_UPDATES (adagrad's: adagrad_meta)."""

    def meta(attrs, ins, facts):
        if op_type == "rmsprop" and not attrs["centered"]:  # (MeanGrad is read only when centered)
            ins = {slot: v for slot, v in ins.items() if slot != "MeanGrad"}
        return Meta(_numpy_outputs(op_type, ins), NUMPY, fresh=True)

    meta.__name__ = meta.__qualname__ = f"{op_type}_meta"
    return meta


# op type -> its meta rule (adagrad's below; ftrl's of a row-sparse Grad, ftrl_meta)
NUMPY_METAS = {name: numpy_update_meta(name) for name in NUMPY_UPDATES if name != "adagrad"}


def lamb_meta(attrs, ins, facts):
    """lamb's outputs; its variant "numpy", or "numpy_paddle2" for an op of a Paddle 2.x program (lamb_form)."""
    meta = NUMPY_METAS["lamb"](attrs, ins, facts)
    return Meta(meta.outputs, "numpy_paddle2", fresh=True) if facts.paddle2 else meta


def ftrl_meta(attrs, ins, facts):
    """ftrl's outputs and variant: "rows" for a row-sparse Grad (only its rows updated, as Fluid's and Paddle's
    SparseFTRLFunctor; over Param and the accumulators in place where the executor lets it), else "numpy"."""
    if not isinstance(ins["Grad"], SelectedRows):
        return NUMPY_METAS["ftrl"](attrs, ins, facts)
    pairs = {"ParamOut": "Param", "SquaredAccumOut": "SquaredAccumulator", "LinearAccumOut": "LinearAccumulator"}
    outputs = {slot: (tuple(ins[src].shape), ins[src].dtype) for slot, src in pairs.items()}
    return Meta(outputs, ROWS, inplace=pairs)


def adagrad_meta(attrs, ins, facts):
    """adagrad's outputs and variant: "rows" for a row-sparse Grad (over Param and Moment in place where the
    executor lets it), else "numpy"."""
    p, m = ins["Param"], ins["Moment"]
    if isinstance(ins["Grad"], SelectedRows):
        outputs = {"ParamOut": (tuple(p.shape), p.dtype), "MomentOut": (tuple(m.shape), m.dtype)}
        return Meta(outputs, ROWS, inplace={"ParamOut": "Param", "MomentOut": "Moment"})
    return Meta(_numpy_outputs("adagrad", ins), NUMPY, fresh=True)


# -- adam ---------------------------------------------------------------------------------------------
#
# adam's meta rule: ParamOut, Moment1Out and Moment2Out (the inputs' shapes and dtypes; donated from Param,
# Moment1 and Moment2 in Meta.inplace) and Beta1PowOut / Beta2PowOut (the powers times beta1 / beta2, never
# written over the powers), computed by the variant (kernels/cpu/optimizer_out.py):
#
# - "unchanged": a row-sparse Grad of no rows: every output its input (Fluid's kernel returns at once; fresh);
# - "lazy": a row-sparse Grad with lazy_mode: its rows move, the others keep what the outputs held (Param's, or
#   the outputs' own earlier values where they are other variables than the inputs: Fluid's op tests; those
#   ``Meta.args[2]``, nothing donated then);
# - "loop": float32 or float64 values of one dtype and one shape (a row-sparse Grad without lazy_mode made
#   dense: Fluid's SparseAdamFunctor, Grad 0 elsewhere): _adam_loops.adam, or adam_in_place over the buffers
#   donated;
# - "numpy": the rest (fresh).
#
# ``Meta.args``: (the Grad is row-sparse, the update bias-corrects with the next step's powers: Fluid 1.8.5's
# sparse kernel where Beta1PowOut is Beta1Pow's variable, adam_reads_next_powers, [lazy: the earlier outputs]).

_STATES = (("ParamOut", "Param"), ("Moment1Out", "Moment1"), ("Moment2Out", "Moment2"))
_POWS = (("Beta1PowOut", "Beta1Pow"), ("Beta2PowOut", "Beta2Pow"))


def _lazy_prior(ins):
    """Whether adam's outputs are other variables than its inputs, all of Param's shape: their earlier values
    (ins' ParamOut, Moment1Out, Moment2Out) are what their rows keep."""
    p, prior = ins["Param"], [ins.get(out) for out, _ in _STATES]
    return all(getattr(a, "shape", None) == p.shape for a in prior) and prior[0] is not p


def adam_meta(attrs, ins, facts):
    """adam's outputs and variant (above)."""
    g = ins["Grad"]
    like = {out: (tuple(ins[src].shape), ins[src].dtype) for out, src in _STATES + _POWS}
    sparse = isinstance(g, SelectedRows)
    if sparse and not np.size(g.rows):
        return Meta(like, "unchanged", fresh=True)
    args = (sparse, sparse and adam_reads_next_powers(ins, attrs))
    donate = {out: src for out, src in _STATES}
    if sparse and attrs["lazy_mode"]:
        prior = _lazy_prior(ins)
        return Meta(like, "lazy", inplace={} if prior else donate, args=(*args, prior))
    if _one_loop(*(ins[src] for _, src in _STATES), g):
        return Meta(like, LOOP, inplace=donate, args=args)
    p, m1, m2 = (tuple(ins[s].shape) for s in ("Param", "Moment1", "Moment2"))
    outputs = dict(like, ParamOut=_spec([p, m1, m2, tuple(g.shape)], ins["Param"].dtype))
    outputs.update(Moment1Out=_spec([m1, tuple(g.shape)], ins["Moment1"].dtype))
    outputs.update(Moment2Out=_spec([m2, tuple(g.shape)], ins["Moment2"].dtype))
    return Meta(outputs, NUMPY, fresh=True, args=args)


def increment_meta(attrs, ins, facts):
    """increment's Out: X's shape and dtype, X + step in X's dtype (one pass of numpy's add into it)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "add")


# -- the other ops of ops/adamw.py: loss scaling, merged_adam, pow2_decay_with_linear_warmup ---------------
#
# check_finite_and_unscale, update_loss_scaling and merged_adam: "numpy" (fresh), each output of its input's shape
# and dtype (a list slot's: one per variable); merged_adam's those of adamw's rule for each parameter (MasterParam
# unread: no MasterParamOut). pow2_decay_with_linear_warmup: "fill", its two values written into LearningRateOut
# and StepOut, over LearningRate and Step where the executor lets the update write in place.


def _like(values):
    return [(tuple(v.shape), np.dtype(v.dtype)) for v in values]


def check_finite_and_unscale_meta(attrs, ins, facts):
    return Meta({"Out": _like(ins["X"]), "FoundInfinite": ((1,), np.dtype(bool))}, NUMPY, fresh=True)


def update_loss_scaling_meta(attrs, ins, facts):
    outputs = {"Out": _like(ins["X"])}
    for out, src in (
        ("LossScaling", "PrevLossScaling"),
        ("OutGoodSteps", "InGoodSteps"),
        ("OutBadSteps", "InBadSteps"),
    ):
        outputs[out] = (tuple(ins[src].shape), np.dtype(ins[src].dtype))
    return Meta(outputs, NUMPY, fresh=True)


_MERGED = ("Param", "Grad", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")


def merged_adam_meta(attrs, ins, facts):
    outputs = {f"{s}Out": [] for s in ("Param", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")}
    for i in range(len(ins["Param"])):
        one = {slot: ins[slot][i] for slot in _MERGED}
        for slot, spec in NUMPY_METAS["adamw"](attrs, one, facts).outputs.items():
            outputs[slot].append(spec)
    return Meta(outputs, NUMPY, fresh=True)


def pow2_decay_with_linear_warmup_meta(attrs, ins, facts):
    lr, step = ins["LearningRate"], ins["Step"]
    outputs = {"LearningRateOut": (tuple(lr.shape), np.dtype(lr.dtype)), "StepOut": (tuple(step.shape), step.dtype)}
    return Meta(outputs, "fill", inplace={"LearningRateOut": "LearningRate", "StepOut": "Step"})


# -- lr_schedule, average_accumulates, dpsgd, dgc_momentum ------------------------------------------------
#
# lr_schedule: "fill", its one float32 value written into Out. average_accumulates: "numpy" (fresh), the sums of
# their inputs' shapes and dtypes (sum_1 + param broadcast), the counters [1] int64. dpsgd: "numpy" (fresh; its
# out-kernel draws the noise from the call's Generator, ``takes_context``), ParamOut Param's dtype. dgc_momentum:
# "through" before any ramp-up (rampup_begin_step < 0: every output its input as it is, Meta.aliases), else
# "numpy" (fresh): momentum's or sgd's update with Grad / nranks, as current_step says.

_I64 = np.dtype(np.int64)


def lr_schedule_meta(attrs, ins, facts):
    return Meta({"Out": ((1,), np.dtype(np.float32))}, "fill")


def average_accumulates_meta(attrs, ins, facts):
    lo, hi = int(attrs["min_average_window"]), int(attrs["max_average_window"])
    if lo > hi:
        raise ValueError(f"average_accumulates: min_average_window {lo} exceeds max_average_window {hi}")
    s1 = ins["in_sum_1"]
    outputs = {"out_sum_1": _spec([tuple(s1.shape), tuple(ins["param"].shape)], s1.dtype)}
    for n in ("sum_2", "sum_3"):
        outputs[f"out_{n}"] = (tuple(ins[f"in_{n}"].shape), np.dtype(ins[f"in_{n}"].dtype))
    for n in ("num_accumulates", "old_num_accumulates", "num_updates"):
        outputs[f"out_{n}"] = ((1,), _I64)
    return Meta(outputs, NUMPY, fresh=True)


def dpsgd_meta(attrs, ins, facts):
    p, g = ins["Param"], ins["Grad"]
    return Meta({"ParamOut": _spec([tuple(p.shape), tuple(g.shape)], p.dtype)}, NUMPY, fresh=True)


def dgc_momentum_meta(attrs, ins, facts):
    p, g, v = ins["Param"], ins["Grad"], ins["Velocity"]
    like = {"ParamOut": (p, "Param"), "VelocityOut": (v, "Velocity"), "Grad_out": (g, "Grad")}
    outputs = {slot: (tuple(a.shape), np.dtype(a.dtype)) for slot, (a, _) in like.items()}
    if int(attrs["rampup_begin_step"]) < 0:
        return Meta(outputs, "through", aliases={slot: src for slot, (_, src) in like.items()})
    return Meta(outputs, NUMPY, fresh=True)
