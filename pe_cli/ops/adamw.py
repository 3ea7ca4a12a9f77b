"""adamw, Paddle 2.x's Adam with decoupled weight decay (what paddle.optimizer.AdamW writes), and Paddle 2.x's
dynamic loss scaling for mixed-precision training: check_finite_and_unscale (every X divided by Scale, and
whether any held inf or NaN) and update_loss_scaling (the scale grown after incr_every_n_steps finite steps,
shrunk after decr_every_n_nan_or_inf non-finite ones, the gradients zeroed on a non-finite step). Dense
gradients; float16 master weights (multi_precision) are refused."""

from ..base.activations import real_number
from ..kernels.cpu import adamw as cpu_adamw
from ..shapes import optimizer as meta_rules
from .define import Attr, Structured, fmt_shape, register
from .pointwise_math import QUANT

_NUMBER = (real_number, "a number")
_STATES = (
    ("Moment1Out", "Moment1"),
    ("Moment2Out", "Moment2"),
    ("Beta1PowOut", "Beta1Pow"),
    ("Beta2PowOut", "Beta2Pow"),
)


def _infer_adamw(ctx):
    p = ctx.shape("Param")
    for slot in ("Grad", "Moment1", "Moment2"):
        s = ctx.shape(slot)
        if len(s) != len(p) or any(a != b and a >= 0 and b >= 0 for a, b in zip(s, p)):
            ctx.fail(f"{slot} {fmt_shape(s)} must have Param's shape {fmt_shape(p)}")
    ctx.set_output("ParamOut", p, ctx.dtype("Param"))
    for out, src in _STATES:
        ctx.set_output(out, ctx.shape(src), ctx.dtype(src))


register(
    "adamw",
    kernel_module="adamw",
    inputs=[
        "Param",
        "Grad",
        "LearningRate",
        "Moment1",
        "Moment2",
        "Beta1Pow",
        "Beta2Pow",
        "MasterParam?",
        "SkipUpdate?",
        "Beta1Tensor?",
        "Beta2Tensor?",
        "EpsilonTensor?",
    ],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut", "MasterParamOut?"],
    attrs={
        "beta1": Attr(0.9, *_NUMBER),
        "beta2": Attr(0.999, *_NUMBER),
        "epsilon": Attr(1e-8, *_NUMBER),
        "lr_ratio": Attr(1.0, *_NUMBER),
        "coeff": Attr(0.01, *_NUMBER),
        "with_decay": Attr(False, choices=(False, True)),
        "lazy_mode": Attr(False, choices=(False, True)),
        "min_row_size_to_use_multithread": Attr(1000, long=True),
        "multi_precision": Attr(False, choices=(False,)),
        "use_global_beta_pow": Attr(False, choices=(False, True)),
        **QUANT,
    },
    infer=_infer_adamw,
    traits=("updates_in_place",),
    attr_tensors={"Beta1Tensor": "beta1", "Beta2Tensor": "beta2", "EpsilonTensor": "epsilon"},
    structured=Structured(meta=meta_rules.NUMPY_METAS["adamw"], cpu=cpu_adamw.ADAMW),
    doc="with_decay: Param -= LearningRate * lr_ratio * coeff * Param first; then Paddle 2.x's "
    "Adam: Moment1Out = beta1 Moment1 + (1 - beta1) Grad, Moment2Out = beta2 Moment2 + (1 - beta2) Grad^2, "
    "ParamOut = Param - LearningRate sqrt(1 - Beta2Pow) / (1 - Beta1Pow) * Moment1Out / (sqrt(Moment2Out) + "
    "epsilon sqrt(1 - Beta2Pow)); the powers times beta1 / beta2 (kept with use_global_beta_pow). A true "
    "SkipUpdate leaves everything as it was. Attributes are float32, as Paddle holds them.",
)


def _infer_unscale(ctx):
    for i in range(ctx.num_outputs("Out")):
        var = ctx.input_var("X", i)
        ctx.set_output("Out", var.shape, var.dtype, i=i)
    ctx.set_output("FoundInfinite", [1], "bool")


register(
    "check_finite_and_unscale",
    kernel_module="adamw",
    structured=Structured(meta=meta_rules.check_finite_and_unscale_meta, cpu=cpu_adamw.OUT["check_finite_and_unscale"]),
    inputs=["X*", "Scale"],
    outputs=["Out*", "FoundInfinite"],
    attrs=dict(QUANT),
    infer=_infer_unscale,
    lod="drop",
    doc="Out[i] = X[i] * (1 / Scale), or X[i] * 0 from the first X holding inf or NaN on (as Paddle "
    "2.6.2's CPU kernel); FoundInfinite = whether any X held inf or NaN.",
)


def _infer_update_scaling(ctx):
    _infer_unscale(ctx)
    for out, src in (
        ("LossScaling", "PrevLossScaling"),
        ("OutGoodSteps", "InGoodSteps"),
        ("OutBadSteps", "InBadSteps"),
    ):
        ctx.set_output(out, ctx.shape(src), ctx.dtype(src))


register(
    "update_loss_scaling",
    kernel_module="adamw",
    structured=Structured(meta=meta_rules.update_loss_scaling_meta, cpu=cpu_adamw.OUT["update_loss_scaling"]),
    inputs=["X*", "FoundInfinite", "PrevLossScaling", "InGoodSteps", "InBadSteps", "StopUpdate?"],
    outputs=["Out*", "LossScaling", "OutGoodSteps", "OutBadSteps"],
    lod="drop",
    attrs={
        "incr_every_n_steps": Attr(1000, lambda v: v > 0, "> 0"),
        "decr_every_n_nan_or_inf": Attr(2, lambda v: v > 0, "> 0"),
        "incr_ratio": Attr(2.0, lambda v: v > 1, "> 1"),
        "decr_ratio": Attr(0.5, lambda v: 0 < v < 1, "in (0, 1)"),
        "stop_update": Attr(False, choices=(False, True)),
        **QUANT,
    },
    infer=_infer_update_scaling,
    attr_tensors={"StopUpdate": "stop_update"},
    doc="A non-finite step (FoundInfinite): Out = zeros, bad steps + 1, and the scale times decr_ratio (at "
    "least 1) every decr_every_n_nan_or_inf of them; a finite one: Out = X, good steps + 1, the scale "
    "times incr_ratio (where that stays finite) every incr_every_n_steps; stop_update: only Out.",
)


def _infer_merged_adam(ctx):
    n = ctx.num_inputs("Param")
    for slot in ("Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"):
        if ctx.num_inputs(slot) not in (n, 1 if slot == "LearningRate" else n):
            ctx.fail(f"{slot} holds {ctx.num_inputs(slot)} tensors for {n} Param")
    for i in range(n):
        ctx.set_output("ParamOut", ctx.shape("Param", i), ctx.dtype("Param", i), i=i)
        for out, src in _STATES:
            ctx.set_output(out, ctx.shape(src, i), ctx.dtype(src, i), i=i)


register(
    "merged_adam",
    kernel_module="adamw",
    structured=Structured(meta=meta_rules.merged_adam_meta, cpu=cpu_adamw.OUT["merged_adam"]),
    inputs=["Param*", "Grad*", "LearningRate*", "Moment1*", "Moment2*", "Beta1Pow*", "Beta2Pow*", "MasterParam*?"],
    outputs=["ParamOut*", "Moment1Out*", "Moment2Out*", "Beta1PowOut*", "Beta2PowOut*", "MasterParamOut*?"],
    attrs={
        "beta1": Attr(0.9, *_NUMBER),
        "beta2": Attr(0.999, *_NUMBER),
        "epsilon": Attr(1e-8, *_NUMBER),
        "multi_precision": Attr(False, choices=(False,)),
        "use_global_beta_pow": Attr(False, choices=(False, True)),
        **QUANT,
    },
    infer=_infer_merged_adam,
    traits=("updates_in_place",),
    doc="adamw without decay on each Param of the list (one LearningRate, or one per Param): what "
    "paddle.optimizer.Adam(use_multi_tensor=True) writes.",
)


def _infer_pow2_decay(ctx):
    ctx.set_output("LearningRateOut", ctx.shape("LearningRate"), ctx.dtype("LearningRate"))
    ctx.set_output("StepOut", ctx.shape("Step"), ctx.dtype("Step"))


register(
    "pow2_decay_with_linear_warmup",
    kernel_module="adamw",
    structured=Structured(
        meta=meta_rules.pow2_decay_with_linear_warmup_meta, cpu=cpu_adamw.OUT["pow2_decay_with_linear_warmup"]
    ),
    inputs=["LearningRate", "Step"],
    outputs=["LearningRateOut", "StepOut"],
    infer=_infer_pow2_decay,
    traits=("updates_in_place",),
    attrs={
        "warmup_steps": Attr(0, lambda v: v >= 0, ">= 0", long=True),
        "total_steps": Attr(1, lambda v: v > 0, "> 0", long=True),
        "base_lr": Attr(0.0),
        "end_lr": Attr(0.0),
        **QUANT,
    },
    doc="StepOut = Step + 1; LearningRateOut = base_lr * StepOut / warmup_steps while StepOut <= warmup_steps, "
    "then end_lr + (base_lr - end_lr) (1 - (StepOut - warmup) / (total - warmup))^2, end_lr past "
    "total_steps (paddle.incubate's schedule).",
)
