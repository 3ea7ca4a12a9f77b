"""Paddle 2.x's random draws over a tensor, under Paddle 2.6's op types: bernoulli (Out ~ Bernoulli(X)),
multinomial (num_samples category indices from each row of probabilities X, with or without replacement),
exponential (X's shape ~ Exp(lambda): paddle.Tensor.exponential_), rrelu (negative X times a slope drawn from
U[lower, upper] per element in training, (lower + upper) / 2 in inference; Noise the slopes) and dropout_nd
(dropout whose mask is shared along the dims outside `axis`). The draws come from the seeded numpy Generator
the executor hands the kernels, not Paddle's stream: the distributions are Paddle's, not the numbers."""

from ..kernels.cpu import sampling as cpu
from ..shapes import sampling as metas
from .define import Attr, Structured, dtype_or_none, fmt_shape, grads_like, int_list, is_int, register
from .pointwise_math import QUANT


def _like(ctx, dtype=None):
    ctx.set_output("Out", ctx.shape("X"), dtype or ctx.dtype("X"))


register(
    "bernoulli",
    kernel_module="sampling",
    structured=Structured(meta=metas.bernoulli_meta, cpu=cpu.bernoulli_out),
    inputs=["X"],
    outputs=["Out"],
    attrs=dict(QUANT),
    infer=_like,
    needs_rng=True,
    traits=("paddle_engine",),
    lod="drop",
    doc="Out = 1 with probability X, else 0 (X's dtype).",
)


def _infer_bernoulli_p(ctx):
    for name in ("shape", "dtype", "p"):
        if ctx.attrs.get(name) is None:
            ctx.fail(f"attribute {name} is required (Paddle's bernoulli_p has no default for it)")
    if ctx.attrs["dtype"] not in ("float32", "float64"):
        ctx.fail(f"dtype {ctx.attrs['dtype']}: its lowering (paddle.bernoulli) draws float32 or float64")
    ctx.set_output("Y", list(ctx.attrs["shape"]), ctx.attrs["dtype"])


register(
    "bernoulli_p",
    kernel_module="sampling",
    structured=Structured(meta=metas.bernoulli_p_meta, cpu=cpu.bernoulli_p_out),
    inputs=[],
    outputs=["Y"],
    attrs={"shape": Attr(None, long=True), "dtype": Attr(None, dtype_or_none, "a dtype name"), "p": Attr(None)},
    infer=_infer_bernoulli_p,
    needs_rng=True,
    traits=("paddle_engine",),
    doc="Paddle 2.6's primitive bernoulli_p: Y = 1 with probability p, else 0, of the shape and dtype "
    "attributes' (its prim2orig lowering: paddle.bernoulli of paddle.full(shape, p)); bernoulli's draws.",
)
register(
    "exponential",
    kernel_module="sampling",
    structured=Structured(meta=metas.exponential_meta, cpu=cpu.exponential_out),
    inputs=["X"],
    outputs=["Out"],
    attrs={"lambda": Attr(1.0, lambda v: v > 0, "> 0"), **QUANT},
    infer=_like,
    needs_rng=True,
    lod="drop",
    doc="Out ~ Exp(lambda) (mean 1 / lambda), X's shape and dtype (what paddle.Tensor.exponential_ writes into X).",
)


def _infer_multinomial(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(x) not in (1, 2):
        ctx.fail(f"X {fmt_shape(x)} must be 1-D or 2-D probabilities")
    if not a["replacement"] and x[-1] >= 0 and a["num_samples"] > x[-1]:
        ctx.fail(f"num_samples={a['num_samples']} exceeds the {x[-1]} categories without replacement")
    ctx.set_output("Out", list(x[:-1]) + [a["num_samples"]], "int64")


register(
    "multinomial",
    kernel_module="sampling",
    structured=Structured(meta=metas.multinomial_meta, cpu=cpu.multinomial_out),
    inputs=["X"],
    outputs=["Out"],
    needs_rng=True,
    lod="drop",
    attrs={
        "num_samples": Attr(1, lambda v: is_int(v) and v > 0, "an int > 0"),
        "replacement": Attr(False, choices=(False, True)),
        **QUANT,
    },
    infer=_infer_multinomial,
    doc="Out = num_samples category indices drawn from each row of X (unnormalized probabilities), with or "
    "without replacement (int64).",
)


def _infer_rrelu(ctx):
    a = ctx.attrs
    if not 0 <= a["lower"] <= a["upper"] <= 1:
        ctx.fail(f"lower={a['lower']} and upper={a['upper']} must satisfy 0 <= lower <= upper <= 1")
    _like(ctx)
    ctx.set_output("Noise", ctx.shape("X"), ctx.dtype("X"))


def _grad_noise(name, slot):
    def grad(g):
        g.op(
            f"{name}_grad",
            {"X": g.input("X"), slot: g.output(slot), "Out@GRAD": g.out_grad("Out")},
            {"X@GRAD": g.in_grad("X")},
            g.attrs,
        )

    return grad


_RRELU = {"is_test": Attr(False, choices=(False, True)), "lower": Attr(0.125), "upper": Attr(1 / 3), **QUANT}
register(
    "rrelu",
    kernel_module="sampling",
    structured=Structured(meta=metas.rrelu_meta, cpu=cpu.rrelu_out),
    inputs=["X"],
    outputs=["Out", "Noise"],
    attrs=_RRELU,
    infer=_infer_rrelu,
    needs_rng=True,
    grad=_grad_noise("rrelu", "Noise"),
    grad_reads=("X", "Noise"),
    doc="Out = X where X >= 0, else X * slope (slope ~ U[lower, upper] per element in training; "
    "(lower + upper) / 2 with is_test); Noise = the slopes (1 where X >= 0).",
)
register(
    "rrelu_grad",
    kernel_module="sampling",
    structured=Structured(meta=metas.rrelu_grad_meta, cpu=cpu.rrelu_grad_out),
    inputs=["X", "Noise", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_RRELU,
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
)


def _infer_dropout_nd(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if any(not 0 <= d < len(x) for d in a["axis"]):
        ctx.fail(f"axis={list(a['axis'])} are not all dims of X {fmt_shape(x)}")
    _like(ctx)
    ctx.set_output("Mask", [d if i in a["axis"] or not a["axis"] else 1 for i, d in enumerate(x)], "uint8")


_DROPOUT_ND = {
    "dropout_prob": Attr(0.5, lambda v: 0 <= v <= 1, "in [0, 1]"),
    "is_test": Attr(False, choices=(False, True)),
    "dropout_implementation": Attr("downgrade_in_infer", choices=("downgrade_in_infer", "upscale_in_train")),
    "axis": Attr(list, int_list, "a list of dims"),
    **QUANT,
}
register(
    "dropout_nd",
    kernel_module="sampling",
    structured=Structured(meta=metas.dropout_nd_meta, cpu=cpu.dropout_nd_out),
    inputs=["X", "Seed?"],
    outputs=["Out", "Mask"],
    attrs=_DROPOUT_ND,
    infer=_infer_dropout_nd,
    needs_rng=True,
    grad=_grad_noise("dropout_nd", "Mask"),
    grad_reads=("X", "Mask"),
    doc="Out = X * Mask (upscale_in_train: / (1 - dropout_prob)), Mask drawn over the dims of `axis` and shared "
    "along the others (every dim: an empty axis); with is_test, X (upscale_in_train) or X * (1 - "
    "dropout_prob).",
)
register(
    "dropout_nd_grad",
    kernel_module="sampling",
    structured=Structured(meta=metas.dropout_nd_grad_meta, cpu=cpu.dropout_nd_grad_out),
    inputs=["X", "Mask", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_DROPOUT_ND,
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
)


def _infer_gumbel(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if not -max(len(x), 1) <= a["axis"] < max(len(x), 1):
        ctx.fail(f"axis={a['axis']} is out of range for X {fmt_shape(x)}")
    _like(ctx)


def _grad_gumbel(g):
    g.op(
        "gumbel_softmax_grad",
        {"Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_GUMBEL = {
    "temperature": Attr(1.0, lambda v: v > 0, "> 0"),
    "hard": Attr(False, choices=(False, True)),
    "axis": Attr(-1, is_int, "an int"),
    **QUANT,
}
register(
    "gumbel_softmax",
    kernel_module="sampling",
    structured=Structured(meta=metas.gumbel_softmax_meta, cpu=cpu.gumbel_softmax_out),
    inputs=["X"],
    outputs=["Out"],
    attrs=_GUMBEL,
    infer=_infer_gumbel,
    needs_rng=True,
    grad=_grad_gumbel,
    grad_reads=("Out",),
    doc="Out = softmax((X + g) / temperature) along axis, g ~ Gumbel(0, 1) per element; hard: the one-hot of "
    "its largest. The gradient (Paddle's, hard or not): Out (Out@GRAD - sum(Out@GRAD Out)) / temperature.",
)
register(
    "gumbel_softmax_grad",
    kernel_module="sampling",
    structured=Structured(meta=metas.gumbel_softmax_grad_meta, cpu=cpu.gumbel_softmax_grad_out),
    inputs=["Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_GUMBEL,
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out"), ctx.dtype("Out")),
)


register(
    "uniform_random_inplace",
    kernel_module="sampling",
    structured=Structured(meta=metas.uniform_random_inplace_meta, cpu=cpu.uniform_random_inplace_out),
    inputs=["X"],
    outputs=["Out"],
    needs_rng=True,
    attrs={
        "min": Attr(-1.0),
        "max": Attr(1.0),
        "seed": Attr(0, is_int, "an int"),
        "diag_num": Attr(0, is_int, "an int"),
        "diag_step": Attr(0, is_int, "an int"),
        "diag_val": Attr(1.0),
        **QUANT,
    },
    infer=_like,
    lod="drop",
    grad=lambda g: g.op("fill_any_like", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, {"value": 0.0}),
    doc="Out = X's shape and dtype ~ U[min, max) (paddle.Tensor.uniform_); diag_num > 0: the flat positions "
    "i * (diag_step + 1), i < diag_num, hold diag_val. Its gradient to X: zeros.",
)
register(
    "gaussian_inplace",
    kernel_module="sampling",
    structured=Structured(meta=metas.gaussian_inplace_meta, cpu=cpu.gaussian_inplace_out),
    inputs=["x"],
    outputs=["out"],
    needs_rng=True,
    attrs={"mean": Attr(0.0), "std": Attr(1.0), "seed": Attr(0, is_int, "an int"), **QUANT},
    infer=lambda ctx: ctx.set_output("out", ctx.shape("x"), ctx.dtype("x")),
    lod="drop",
    grad=lambda g: g.op("fill_any_like", {"X": g.out_grad("out")}, {"Out": g.in_grad("x")}, {"value": 0.0}),
    doc="out = x's shape and dtype ~ N(mean, std^2) (paddle.Tensor.normal_). Its gradient to x: zeros.",
)
