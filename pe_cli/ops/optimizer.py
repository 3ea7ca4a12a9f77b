"""Parameter update ops, and the ops that drive learning-rate schedules.

Each update op writes ParamOut (the same variable as Param) and its state outputs (the same
variables as the state inputs: Velocity -> VelocityOut, Moment1 -> Moment1Out, ...). Formulas follow
Fluid 1.x's kernels; the learning rate is a [1] variable so schedules can drive it.
"""

from ..base.activations import real_number
from ..base.dtypes import VarType
from ..base.dims import known_numel
from ..kernels.cpu import optimizer_numpy as cpu_numpy_updates, optimizer_out as cpu_updates
from ..kernels.cpu import optimizer as cpu_optimizer, optimizer_schedules as cpu_schedules
from ..shapes import optimizer as meta_rules
from .define import Attr, Structured, fmt_shape, register


def infer_update(state_pairs=(), scalars=(), lr=True):
    """ParamOut mirrors Param; each (out, in) state pair mirrors its input. Grad and the state
    inputs must have Param's shape; LearningRate (when ``lr``) and ``scalars`` must hold one value."""

    def infer(ctx):
        p = ctx.shape("Param")
        for slot in ["Grad"] + [i for _, i in state_pairs if i not in scalars]:
            if ctx.has_input(slot):
                s, want = ctx.shape(slot), p
                if slot == "Grad" and ctx.input_var(slot).type == VarType.SELECTED_ROWS:
                    s, want = s[1:], p[1:]  # a row-sparse Grad's height is its own (Fluid checks none)
                if len(s) != len(want) or any(a != b and a >= 0 and b >= 0 for a, b in zip(s, want)):
                    ctx.fail(f"{slot} {fmt_shape(s)} must have Param's shape {fmt_shape(p)}")
        for slot in ("LearningRate",) * lr + tuple(scalars):
            if ctx.has_input(slot) and known_numel(ctx.shape(slot)) not in (1, -1):
                ctx.fail(f"{slot} must hold one value, its shape is {fmt_shape(ctx.shape(slot))}")
        ctx.set_output("ParamOut", p, ctx.dtype("Param"))
        for out_slot, in_slot in state_pairs:
            if ctx.has_input(in_slot):
                ctx.set_output(out_slot, ctx.shape(in_slot), ctx.dtype(in_slot))

    return infer


# Fluid checks none of its optimizers' numbers (a beta of 1 or a negative epsilon computes what its
# formula gives): only that each is a number
NUMBER = (real_number, "a number")


register(
    "sgd",
    kernel_module="optimizer",
    inputs=["Param", "Grad", "LearningRate"],
    outputs=["ParamOut"],
    infer=infer_update(),
    traits=("selected_rows", "updates_in_place"),
    structured=Structured(meta=meta_rules.sgd_meta, cpu=cpu_updates.SGD),
    doc="ParamOut = Param - LearningRate * Grad. A row-sparse Grad (SelectedRows) changes only its rows "
    "(a row listed twice: its values summed).",
)

register(
    "dgc_momentum",
    kernel_module="optimizer",
    structured=Structured(meta=meta_rules.dgc_momentum_meta, cpu=cpu_optimizer.OUT_MORE["dgc_momentum"]),
    inputs=["Param", "Grad", "Velocity", "LearningRate", "current_step", "nranks"],
    outputs=["ParamOut", "VelocityOut", "Grad_out"],
    attrs={"mu": Attr(0.9, *NUMBER), "use_nesterov": False, "rampup_begin_step": -1.0},
    infer=infer_update([("VelocityOut", "Velocity"), ("Grad_out", "Grad")], scalars=("current_step", "nranks")),
    doc="Deep gradient compression's update, as Fluid's: with rampup_begin_step < 0 nothing changes; "
    "else Grad_out = Grad / nranks (nranks > 1, the trainers whose gradients were summed) and, "
    "while current_step < rampup_begin_step, momentum's update with Grad_out, then sgd's "
    "(Velocity kept). Grad_out is Grad's variable in the programs Fluid's DGC optimizer makes.",
)

register(
    "dpsgd",
    kernel_module="optimizer",
    structured=Structured(meta=meta_rules.dpsgd_meta, cpu=cpu_optimizer.OUT_MORE["dpsgd"]),
    inputs=["Param", "Grad", "LearningRate"],
    outputs=["ParamOut"],
    attrs={"clip": Attr(10.0, *NUMBER), "batch_size": Attr(16.0, *NUMBER), "sigma": Attr(1.0, *NUMBER), "seed": 0},
    infer=infer_update(),
    needs_rng=True,
    traits=("updates_in_place",),
    doc="Differentially private SGD (Abadi et al. 2016), as Fluid's dpsgd op: scale = max(1, ||Grad||_2 / "
    "clip); one noise value n ~ N(0, sigma^2) per op and step; ParamOut = Param - LearningRate * "
    "(Grad / scale + n / batch_size). The noise comes from the program's seeded generator.",
)

register(
    "adam",
    kernel_module="optimizer",
    inputs=[
        "Param",
        "Grad",
        "LearningRate",
        "Moment1",
        "Moment2",
        "Beta1Pow",
        "Beta2Pow",
        "Beta1Tensor?",
        "Beta2Tensor?",
        "EpsilonTensor?",
    ],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut"],
    attrs={
        "beta1": Attr(0.9, *NUMBER),
        "beta2": Attr(0.999, *NUMBER),
        "epsilon": Attr(1e-8, *NUMBER),
        "lazy_mode": False,
        "epsilon_scaled": False,
        "min_row_size_to_use_multithread": Attr(1000, long=True),
    },
    infer=infer_update(
        [
            ("Moment1Out", "Moment1"),
            ("Moment2Out", "Moment2"),
            ("Beta1PowOut", "Beta1Pow"),
            ("Beta2PowOut", "Beta2Pow"),
        ],
        scalars=("Beta1Pow", "Beta2Pow", "Beta1Tensor", "Beta2Tensor", "EpsilonTensor"),
    ),
    traits=("selected_rows", "updates_in_place"),
    attr_tensors={"Beta1Tensor": "beta1", "Beta2Tensor": "beta2", "EpsilonTensor": "epsilon"},
    reads_outputs=("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut"),
    structured=Structured(meta=meta_rules.adam_meta, cpu=cpu_updates.ADAM),
    doc="Moment1Out = beta1 * Moment1 + (1 - beta1) * Grad; Moment2Out = beta2 * Moment2 + "
    "(1 - beta2) * Grad^2; lr_t = LearningRate * sqrt(1 - Beta2Pow) / (1 - Beta1Pow); "
    "ParamOut = Param - lr_t * Moment1Out / (sqrt(Moment2Out) + epsilon) as Fluid 1.8's, or with "
    "epsilon_scaled (pe's attribute) + epsilon * sqrt(1 - Beta2Pow) as Paddle 2.x's; "
    "Beta1PowOut = Beta1Pow * beta1, Beta2PowOut = Beta2Pow * beta2. A row-sparse Grad: with "
    "lazy_mode only its rows (duplicates summed) update moments and parameter (the other rows of "
    "the outputs keep what they held); without, every row updates with Grad 0 where it holds none "
    "(Fluid's SparseAdamFunctor); without epsilon_scaled both bias-correct with the next step's powers "
    "where Beta1PowOut is Beta1Pow's variable (Fluid 1.8.5 writes it first); an empty Grad changes "
    "nothing. One-value tensors "
    "Beta1Tensor / Beta2Tensor, when given, are beta1 / beta2 (Fluid 1.8's), EpsilonTensor epsilon (Paddle 2.x's). "
    "min_row_size_to_use_multithread is Fluid's threading threshold for sparse updates, taken "
    "and unused.",
)

register(
    "adagrad",
    kernel_module="optimizer",
    inputs=["Param", "Grad", "Moment", "LearningRate"],
    outputs=["ParamOut", "MomentOut"],
    attrs={"epsilon": Attr(1e-6, *NUMBER)},
    infer=infer_update([("MomentOut", "Moment")]),
    traits=("selected_rows", "updates_in_place"),
    structured=Structured(meta=meta_rules.adagrad_meta, cpu=cpu_numpy_updates.OUT["adagrad"]),
    doc="MomentOut = Moment + Grad^2; ParamOut = Param - LearningRate * Grad / (sqrt(MomentOut) + epsilon). "
    "A row-sparse Grad updates only its rows, duplicates summed first.",
)

register(
    "rmsprop",
    kernel_module="optimizer",
    inputs=["Param", "MeanSquare", "MeanGrad?", "LearningRate", "Grad", "Moment"],
    outputs=["ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut"],
    attrs={
        "epsilon": Attr(1e-10, *NUMBER),
        "decay": Attr(0.9, *NUMBER),
        "momentum": Attr(0.0, *NUMBER),
        "centered": False,
    },
    infer=infer_update([("MomentOut", "Moment"), ("MeanSquareOut", "MeanSquare"), ("MeanGradOut", "MeanGrad")]),
    structured=Structured(meta=meta_rules.NUMPY_METAS["rmsprop"], cpu=cpu_numpy_updates.OUT["rmsprop"]),
    doc="MeanSquareOut = decay * MeanSquare + (1 - decay) * Grad^2; MomentOut = momentum * Moment + "
    "LearningRate * Grad / sqrt(MeanSquareOut + epsilon) (centered: MeanGradOut = decay * "
    "MeanGrad + (1 - decay) * Grad, and MeanSquareOut - MeanGradOut^2 under the root); "
    "ParamOut = Param - MomentOut.",
)

register(
    "adamax",
    kernel_module="optimizer",
    inputs=["Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow"],
    outputs=["ParamOut", "MomentOut", "InfNormOut"],
    attrs={"beta1": Attr(0.9, *NUMBER), "beta2": Attr(0.999, *NUMBER), "epsilon": Attr(1e-8, *NUMBER)},
    infer=infer_update([("MomentOut", "Moment"), ("InfNormOut", "InfNorm")], scalars=("Beta1Pow",)),
    structured=Structured(meta=meta_rules.NUMPY_METAS["adamax"], cpu=cpu_numpy_updates.OUT["adamax"]),
    doc="MomentOut = beta1 * Moment + (1 - beta1) * Grad; InfNormOut = max(beta2 * InfNorm + epsilon, "
    "|Grad|); ParamOut = Param - LearningRate / (1 - Beta1Pow) * MomentOut / InfNormOut. The "
    "optimizer multiplies Beta1Pow by beta1 after the update, as Fluid's does.",
)

register(
    "adadelta",
    kernel_module="optimizer",
    inputs=["Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate"],
    outputs=["ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut"],
    attrs={"rho": Attr(0.95, *NUMBER), "epsilon": Attr(1e-6, *NUMBER)},
    infer=infer_update(
        [("AvgSquaredGradOut", "AvgSquaredGrad"), ("AvgSquaredUpdateOut", "AvgSquaredUpdate")], lr=False
    ),
    structured=Structured(meta=meta_rules.NUMPY_METAS["adadelta"], cpu=cpu_numpy_updates.OUT["adadelta"]),
    doc="AvgSquaredGradOut = rho * AvgSquaredGrad + (1 - rho) * Grad^2; update = -sqrt((AvgSquaredUpdate "
    "+ epsilon) / (AvgSquaredGradOut + epsilon)) * Grad; AvgSquaredUpdateOut = rho * AvgSquaredUpdate "
    "+ (1 - rho) * update^2; ParamOut = Param + update (no learning rate, as in Fluid's op).",
)

register(
    "decayed_adagrad",
    kernel_module="optimizer",
    inputs=["Param", "Grad", "Moment", "LearningRate"],
    outputs=["ParamOut", "MomentOut"],
    attrs={"decay": Attr(0.95, *NUMBER), "epsilon": Attr(1e-6, *NUMBER)},
    infer=infer_update([("MomentOut", "Moment")]),
    structured=Structured(meta=meta_rules.NUMPY_METAS["decayed_adagrad"], cpu=cpu_numpy_updates.OUT["decayed_adagrad"]),
    doc="MomentOut = decay * Moment + (1 - decay) * Grad^2; ParamOut = Param - LearningRate * Grad / "
    "(sqrt(MomentOut) + epsilon).",
)

register(
    "ftrl",
    kernel_module="optimizer",
    inputs=["Param", "SquaredAccumulator", "LinearAccumulator", "Grad", "LearningRate"],
    outputs=["ParamOut", "SquaredAccumOut", "LinearAccumOut"],
    attrs={"l1": Attr(0.0, *NUMBER), "l2": Attr(0.0, *NUMBER), "lr_power": Attr(-0.5, *NUMBER)},
    infer=infer_update([("SquaredAccumOut", "SquaredAccumulator"), ("LinearAccumOut", "LinearAccumulator")]),
    traits=("selected_rows", "updates_in_place"),
    structured=Structured(meta=meta_rules.ftrl_meta, cpu=cpu_numpy_updates.OUT["ftrl"]),
    doc="With n = SquaredAccumulator + Grad^2 and c = -lr_power (l1, l2 each plus 1e-10, as Fluid's "
    "kernel): LinearAccumOut = LinearAccumulator + Grad - (n^c - SquaredAccumulator^c) / "
    "LearningRate * Param; ParamOut = (l1 * sign(LinearAccumOut) - LinearAccumOut) / (n^c / "
    "LearningRate + 2 * l2) where |LinearAccumOut| > l1, else 0; SquaredAccumOut = n. A row-sparse Grad "
    "updates only its rows (duplicates summed); the others keep their values (Fluid's SparseFTRLFunctor).",
)

register(
    "lamb",
    kernel_module="optimizer",
    inputs=[
        "Param",
        "Grad",
        "LearningRate",
        "Moment1",
        "Moment2",
        "Beta1Pow",
        "Beta2Pow",
        "Beta1Tensor?",
        "Beta2Tensor?",
    ],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut?", "Beta2PowOut?"],
    attrs={
        "beta1": Attr(0.9, *NUMBER),
        "beta2": Attr(0.999, *NUMBER),
        "epsilon": Attr(1e-6, *NUMBER),
        "weight_decay": Attr(0.01, *NUMBER),
        "bias_correction": False,
        "always_adapt": Attr(False, choices=(False, True), fill=False),
    },
    infer=infer_update(
        [
            ("Moment1Out", "Moment1"),
            ("Moment2Out", "Moment2"),
            ("Beta1PowOut", "Beta1Pow"),
            ("Beta2PowOut", "Beta2Pow"),
        ],
        scalars=("Beta1Pow", "Beta2Pow", "Beta1Tensor", "Beta2Tensor"),
    ),
    attr_tensors={"Beta1Tensor": "beta1", "Beta2Tensor": "beta2"},
    traits=("paddle2_semantics",),
    structured=Structured(meta=meta_rules.lamb_meta, cpu=cpu_numpy_updates.OUT["lamb"]),
    doc="Moment1Out, Moment2Out as adam's; r = Moment1Out / (sqrt(Moment2Out) + epsilon) + weight_decay * "
    "Param as Fluid 1.8's, or in a Paddle 2.x program or with bias_correction (pe's attribute) (Moment1Out / (1 - Beta1Pow)) / "
    "(sqrt(Moment2Out / (1 - Beta2Pow)) + epsilon) + weight_decay * Param as Paddle 2.x's; "
    "ParamOut = Param - LearningRate * (||Param|| / ||r||) * r, the ratio 1 when either norm is 0 (and in Paddle "
    "2.x's form unless weight_decay > 0 or always_adapt); "
    "Beta1PowOut = Beta1Pow * beta1, Beta2PowOut = Beta2Pow * beta2. Beta1Tensor / Beta2Tensor as adam's.",
)

register(
    "lars_momentum",
    kernel_module="optimizer",
    inputs=["Param", "Grad", "Velocity", "LearningRate"],
    outputs=["ParamOut", "VelocityOut"],
    attrs={"mu": Attr(0.9, *NUMBER), "lars_coeff": Attr(0.001, *NUMBER), "lars_weight_decay": Attr(0.0005, *NUMBER)},
    infer=infer_update([("VelocityOut", "Velocity")]),
    structured=Structured(meta=meta_rules.NUMPY_METAS["lars_momentum"], cpu=cpu_numpy_updates.OUT["lars_momentum"]),
    doc="local_lr = LearningRate * lars_coeff * ||Param|| / (||Grad|| + lars_weight_decay * ||Param||) "
    "(LearningRate when a norm is 0); VelocityOut = mu * Velocity + local_lr * (Grad + "
    "lars_weight_decay * Param); ParamOut = Param - VelocityOut.",
)


_SUMS = ("sum_1", "sum_2", "sum_3")
_COUNTS = ("num_accumulates", "old_num_accumulates", "num_updates")


def _infer_average_accumulates(ctx):
    p = ctx.shape("param")
    for name in _SUMS:
        s = ctx.shape(f"in_{name}")
        if len(s) != len(p) or any(a != b and a >= 0 and b >= 0 for a, b in zip(s, p)):
            ctx.fail(f"in_{name} {fmt_shape(s)} must have param's shape {fmt_shape(p)}")
        ctx.set_output(f"out_{name}", ctx.shape(f"in_{name}"), ctx.dtype(f"in_{name}"))
    for name in _COUNTS:
        if known_numel(ctx.shape(f"in_{name}")) not in (1, -1):
            ctx.fail(f"in_{name} must hold one value, its shape is {fmt_shape(ctx.shape(f'in_{name}'))}")
        ctx.set_output(f"out_{name}", [1], "int64")
    if ctx.attrs["min_average_window"] > ctx.attrs["max_average_window"]:
        ctx.fail(
            f"min_average_window {ctx.attrs['min_average_window']} must not exceed max_average_window "
            f"{ctx.attrs['max_average_window']}"
        )


register(
    "average_accumulates",
    kernel_module="optimizer",
    structured=Structured(meta=meta_rules.average_accumulates_meta, cpu=cpu_schedules.AVERAGE_ACCUMULATES),
    inputs=["param"] + [f"in_{n}" for n in _SUMS + _COUNTS],
    outputs=[f"out_{n}" for n in _SUMS + _COUNTS],
    attrs={
        "average_window": Attr(0.0, *NUMBER),
        "min_average_window": Attr(10000, *NUMBER, long=True),
        "max_average_window": Attr(10000, *NUMBER, long=True),
    },
    infer=_infer_average_accumulates,
    doc="ModelAverage's sliding-window sums, as Fluid's op (outputs are the input variables): "
    "num_updates and num_accumulates += 1; sum_1 += param; every 16384 updates sum_2 += sum_1 and "
    "sum_1 = 0 (precision); when num_accumulates >= min_average_window and >= min(max_average_window, "
    "num_updates * average_window), sum_3 = sum_1 + sum_2, sum_1 = sum_2 = 0, old_num_accumulates = "
    "num_accumulates, num_accumulates = 0. The average is (sum_1 + sum_2 + sum_3) / (num_accumulates + "
    "old_num_accumulates).",
)

# -- learning-rate schedules --------------------------------------------------------------------


def _infer_increment(ctx):
    if known_numel(ctx.shape("X")) not in (1, -1):
        ctx.fail(f"X must hold one value, its shape is {fmt_shape(ctx.shape('X'))}")
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"))


register(
    "increment",
    kernel_module="optimizer",
    inputs=["X"],
    outputs=["Out"],
    attrs={"step": 1.0},
    infer=_infer_increment,
    structured=Structured(meta=meta_rules.increment_meta, cpu=cpu_schedules.INCREMENT),
    doc="Out = X + step, for a one-value X (step counters).",
)

LR_KINDS = ("exponential", "natural_exp", "inverse_time", "polynomial", "piecewise", "cosine", "noam", "linear_warmup")


def _infer_lr_schedule(ctx):
    if known_numel(ctx.shape("Step")) not in (1, -1):
        ctx.fail(f"Step must hold one value, its shape is {fmt_shape(ctx.shape('Step'))}")
    a = ctx.attrs
    if a["kind"] == "piecewise" and len(a["values"]) != len(a["boundaries"]) + 1:
        ctx.fail(
            f"piecewise needs one more value than boundaries, got {len(a['boundaries'])} boundaries "
            f"and {len(a['values'])} values"
        )
    if a["kind"] in ("exponential", "natural_exp", "inverse_time", "polynomial") and a["decay_steps"] <= 0:
        ctx.fail(f"decay_steps must be > 0, got {a['decay_steps']}")
    if a["kind"] == "cosine" and (a["step_each_epoch"] <= 0 or a["epochs"] <= 0):
        ctx.fail(f"step_each_epoch and epochs must be > 0, got {a['step_each_epoch']} and {a['epochs']}")
    if a["kind"] == "linear_warmup" and a["warmup_steps"] <= 0:
        ctx.fail(f"warmup_steps must be > 0, got {a['warmup_steps']}")
    ctx.set_output("Out", [1], "float32")


register(
    "lr_schedule",
    kernel_module="optimizer",
    structured=Structured(meta=meta_rules.lr_schedule_meta, cpu=cpu_schedules.LR_SCHEDULE),
    inputs=["Step", "LearningRate?"],
    outputs=["Out"],
    attrs={
        "kind": Attr("exponential", choices=LR_KINDS),
        "learning_rate": 1.0,
        "decay_steps": 1.0,
        "decay_rate": 1.0,
        "staircase": False,
        "end_learning_rate": 1e-4,
        "power": 1.0,
        "cycle": False,
        "boundaries": Attr(list),
        "values": Attr(list),
        "step_each_epoch": 1.0,
        "epochs": 1.0,
        "d_model": 1.0,
        "warmup_steps": 1.0,
        "start_lr": 0.0,
        "end_lr": 0.0,
    },
    infer=_infer_lr_schedule,
    doc="Out = the learning rate of schedule `kind` at step Step (float32 [1]); the base rate is "
    "LearningRate when given, else the attribute learning_rate. See "
    "pe_cli/layers/learning_rate_scheduler.py for each formula.",
)
