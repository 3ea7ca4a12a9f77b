"""dropout: a random mask in training, a scaling at test time (kernels in kernels/<device>/dropout.py)."""

from ..kernels.cpu import dropout as cpu_dropout
from ..shapes import dropout as meta_rules
from .define import Attr, Structured, grads_like, is_int, register


# -- dropout ----------------------------------------------------------------------------------------

_DROPOUT_ATTRS = {
    "dropout_prob": Attr(0.5, lambda v: 0.0 <= v <= 1.0, "in [0, 1]"),
    "is_test": False,
    "fix_seed": False,
    "seed": Attr(0, is_int, "an int"),
    "dropout_implementation": Attr("downgrade_in_infer", choices=("downgrade_in_infer", "upscale_in_train")),
}


_PROB_TENSOR = {"DropoutProbTensor": "dropout_prob"}


def _infer_dropout(ctx):
    x = ctx.shape("X")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Mask", x, "uint8")


def _grad_dropout(g):
    a = g.attrs
    if a["is_test"]:
        # Inference: Out = X * (1 - p) or X; no mask was drawn.
        factor = 1.0 - a["dropout_prob"] if a["dropout_implementation"] == "downgrade_in_infer" else 1.0
        g.op(
            "scale",
            {"X": g.out_grad("Out")},
            {"Out": g.in_grad("X")},
            {"scale": factor, "bias": 0.0, "bias_after_scale": True},
        )
        return
    ins = {"Mask": g.output("Mask"), "Out@GRAD": g.out_grad("Out")}
    if g.input("DropoutProbTensor"):
        ins["DropoutProbTensor"] = g.input("DropoutProbTensor")
    g.op("dropout_grad", ins, {"X@GRAD": g.in_grad("X")}, a)


register(
    "dropout",
    kernel_module="dropout",
    grad_reads=("Mask",),
    inputs=["X", "Seed?", "DropoutProbTensor?"],
    outputs=["Out", "Mask"],
    attrs=_DROPOUT_ATTRS,
    infer=_infer_dropout,
    grad=_grad_dropout,
    needs_rng=True,
    traits=("paddle_engine",),
    attr_tensors=_PROB_TENSOR,
    structured=Structured(meta=meta_rules.dropout_meta, cpu=cpu_dropout.dropout_out),
    doc="Training: Mask ~ Bernoulli(1 - dropout_prob) (uint8), Out = X * Mask, divided by "
    "(1 - dropout_prob) for upscale_in_train. Test: Out = X * (1 - dropout_prob) for "
    "downgrade_in_infer, X for upscale_in_train. fix_seed draws the same mask every run; a Seed input (an int32 [1], the seed "
    "op's) seeds the mask instead, so two dropouts reading it drop the same units. A one-value "
    "DropoutProbTensor, when given, is dropout_prob (Paddle 2.x's p given by a Variable).",
)
register(
    "dropout_grad",
    kernel_module="dropout",
    inputs=["Mask", "Out@GRAD", "DropoutProbTensor?"],
    outputs=["X@GRAD"],
    attrs=_DROPOUT_ATTRS,
    infer=grads_like({"X@GRAD": "Out@GRAD"}),
    attr_tensors=_PROB_TENSOR,
    structured=Structured(meta=meta_rules.dropout_grad_meta, cpu=cpu_dropout.dropout_grad_out),
)
