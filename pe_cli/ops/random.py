"""Random tensors: uniform_random, gaussian_random, truncated_gaussian_random, their
*_batch_size_like forms (one dimension taken from an input's), random_crop and seed (the int a
recomputed dropout shares with its forward one), randint and randperm (Fluid 1.8's); Paddle 2.x's poisson
and dirichlet (draws with given rates and concentrations). The kernels draw on the seeded numpy Generator
the executor hands them."""

from ..kernels.cpu import random as cpu
from ..shapes import random as metas
from .creation import SHAPE_INPUTS, infer_fill, infer_fill_like
from .define import Attr, Structured, backend_attrs, dtype_or_none, fmt_shape, int_list, is_int, register

# a shape given by ShapeTensor or ShapeTensorList replaces the shape attribute before the meta rule runs
_SHAPE_TENSORS = {"ShapeTensor": "shape", "ShapeTensorList": "shape"}


_RANDOM_ATTRS = {"shape": Attr([], long=True), "dtype": Attr("float32", dtype_or_none, "a dtype name"), "seed": 0}
_DIAGONAL = {"diag_num": 0, "diag_step": 0, "diag_val": 1.0}
register(
    "uniform_random",
    kernel_module="random",
    structured=Structured(meta=metas.uniform_random_meta, cpu=cpu.uniform_random_out),
    attr_tensors=_SHAPE_TENSORS,
    inputs=SHAPE_INPUTS,
    outputs=["Out"],
    infer=infer_fill,
    needs_rng=True,
    traits=("paddle_engine",),
    attrs=dict(_RANDOM_ATTRS, min=-1.0, max=1.0, **_DIAGONAL),
    doc="Out ~ U[min, max); then, when diag_num > 0, the flat positions i * (diag_step + 1) for "
    "i < diag_num hold diag_val.",
)
register(
    "gaussian_random",
    kernel_module="random",
    structured=Structured(meta=metas.shaped_meta, cpu=cpu.gaussian_random_out),
    attr_tensors=_SHAPE_TENSORS,
    inputs=SHAPE_INPUTS,
    outputs=["Out"],
    infer=infer_fill,
    needs_rng=True,
    traits=("paddle_engine",),
    attrs=dict(_RANDOM_ATTRS, mean=0.0, std=1.0, **backend_attrs("use_mkldnn")),
    doc="Out ~ N(mean, std^2), of the shape attribute's shape (or the run-time shape of ShapeTensor or "
    "ShapeTensorList).",
)
register(
    "truncated_gaussian_random",
    kernel_module="random",
    structured=Structured(meta=metas.shaped_meta, cpu=cpu.truncated_gaussian_random_out),
    inputs=[],
    outputs=["Out"],
    infer=infer_fill,
    needs_rng=True,
    traits=("paddle_engine",),
    attrs=dict(_RANDOM_ATTRS, shape=Attr([]), mean=0.0, std=1.0),  # Fluid: INTS here
    doc="Out ~ N(mean, std^2), redrawn where it falls beyond two std.",
)

register(
    "seed",
    kernel_module="random",
    structured=Structured(meta=metas.seed_meta, cpu=cpu.seed_out),
    inputs=[],
    outputs=["Out"],
    attrs={"seed": Attr(0, is_int, "an int")},
    infer=lambda ctx: ctx.set_output("Out", [1], "int32"),
    needs_rng=True,
    doc="Out = [seed], or where seed is 0 a draw in [1, 2^31): the seed of the dropouts that read it "
    "(RecomputeOptimizer puts one before each dropout, so its recomputation drops the same units).",
)


_LIKE_ATTRS = {
    "shape": Attr(list),
    "dtype": Attr("float32", dtype_or_none, "a dtype name"),
    "input_dim_idx": 0,
    "output_dim_idx": 0,
    "seed": 0,
}
register(
    "uniform_random_batch_size_like",
    kernel_module="random",
    structured=Structured(meta=metas.uniform_random_batch_size_like_meta, cpu=cpu.uniform_random_batch_size_like_out),
    inputs=["Input"],
    outputs=["Out"],
    lod="drop",
    infer=infer_fill_like,
    needs_rng=True,
    attrs=dict(_LIKE_ATTRS, min=-1.0, max=1.0, **_DIAGONAL),
    doc="Out ~ U[min, max), of `shape` with dimension output_dim_idx taken from Input's input_dim_idx; "
    "diag_num, diag_step and diag_val as uniform_random's (Fluid's kernel is uniform_random's).",
)
register(
    "gaussian_random_batch_size_like",
    kernel_module="random",
    structured=Structured(meta=metas.gaussian_random_batch_size_like_meta, cpu=cpu.gaussian_random_batch_size_like_out),
    inputs=["Input"],
    outputs=["Out"],
    lod="drop",
    infer=infer_fill_like,
    needs_rng=True,
    attrs=dict(_LIKE_ATTRS, mean=0.0, std=1.0),
    doc="Out ~ N(mean, std^2), of `shape` with dimension output_dim_idx taken from Input's input_dim_idx.",
)


def _infer_random_crop(ctx):
    x, shape = ctx.shape("X"), list(ctx.attrs["shape"])
    k = len(x) - len(shape)
    if not shape or k < 0 or any(n <= 0 or (d >= 0 and n > d) for n, d in zip(shape, x[k:])):
        ctx.fail(f"shape={shape} must give sizes > 0 no larger than X {fmt_shape(x)}'s last {len(shape)} dims")
    ctx.set_output("Out", list(x[:k]) + shape, ctx.dtype("X"))
    ctx.set_output("SeedOut", [1], "int64")


register(
    "random_crop",
    kernel_module="random",
    structured=Structured(meta=metas.random_crop_meta, cpu=cpu.random_crop_out),
    inputs=["X", "Seed"],
    outputs=["Out", "SeedOut"],
    run_dtypes={"Seed": ("int64",)},
    attrs={"shape": Attr(list, int_list, "a list of ints > 0"), "startup_seed": Attr(0, is_int, "an int")},
    infer=_infer_random_crop,
    lod="drop",
    doc="Out = for each instance (X's leading dims), a window of `shape` over X's last dims at offsets "
    "drawn uniformly; the draw is seeded by Seed, and SeedOut (usually Seed itself) gets the next "
    "seed, so each run crops anew and a given start seed repeats the sequence. No gradient.",
)


# -- randint, randperm --------------------------------------------------------------------------


def _infer_randint(ctx):
    a = ctx.attrs
    if a["low"] is None or a["high"] is None or not a["low"] < a["high"]:
        ctx.fail(f"randint's low must less then high, but received: low = {a['low']}, high = {a['high']}")
    # shape [] in a Paddle 2.x program (ctx.paddle2) is a 0-D draw, as Paddle 2.6's; Fluid 1.8's needs a shape
    given = a["shape"] or ctx.has_input("ShapeTensor") or ctx.has_input("ShapeTensorList")
    if not given and not ctx.paddle2:
        ctx.fail("randint needs its shape: the attribute shape, or ShapeTensor or ShapeTensorList")
    infer_fill(ctx)


register(
    "randint",
    kernel_module="random",
    structured=Structured(meta=metas.shaped_meta, cpu=cpu.randint_out),
    attr_tensors=_SHAPE_TENSORS,
    inputs=SHAPE_INPUTS,
    outputs=["Out"],
    infer=_infer_randint,
    needs_rng=True,
    traits=("paddle_engine", "paddle2_semantics"),
    lod="drop",
    attrs={
        "shape": Attr(list, int_list, "a list of ints", long=True),
        "low": Attr(None, is_int, "an int"),
        "high": Attr(None, is_int, "an int"),
        "dtype": Attr("int64", dtype_or_none, "a dtype name"),
        "seed": Attr(0, is_int, "an int"),
    },
    doc="Out ~ integers uniform in [low, high), of `shape` (or ShapeTensor's values, or one value per "
    "ShapeTensorList tensor) and dtype (int64 by default). No gradient.",
)
register(
    "randperm",
    kernel_module="random",
    structured=Structured(meta=metas.randperm_meta, cpu=cpu.randperm_out),
    inputs=[],
    outputs=["Out"],
    needs_rng=True,
    traits=("paddle_engine",),
    lod="drop",
    attrs={
        "n": Attr(None, lambda v: is_int(v) and v > 0, "an int > 0"),
        "dtype": Attr("int64", dtype_or_none, "a dtype name"),
        "seed": Attr(0, is_int, "an int"),
    },
    infer=lambda ctx: ctx.set_output("Out", [ctx.attrs["n"] if ctx.attrs["n"] is not None else -1], ctx.attrs["dtype"]),
    doc="Out = a random permutation of 0 .. n - 1, of dtype (int64 by default). No gradient.",
)


def _infer_poisson(ctx):
    if ctx.dtype("X") not in ("float32", "float64"):
        ctx.fail(f"X is {ctx.dtype('X')}; poisson takes float32 or float64 rates")
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"))


def _grad_poisson(g):
    g.op("poisson_grad", {"Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "poisson",
    kernel_module="random",
    structured=Structured(meta=metas.poisson_meta, cpu=cpu.poisson_out),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_poisson,
    grad=_grad_poisson,
    needs_rng=True,
    lod="drop",
    doc="Out ~ Poisson(X) elementwise (Paddle 2.x's op): counts in X's dtype, drawn with the rates X. The "
    "gradient of X is zero, as Paddle 2.6.2's poisson_grad.",
)
register(
    "poisson_grad",
    kernel_module="random",
    structured=Structured(meta=metas.poisson_grad_meta, cpu=cpu.poisson_grad_out),
    inputs=["Out@GRAD"],
    outputs=["X@GRAD"],
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
)


def _infer_dirichlet(ctx):
    if ctx.dtype("Alpha") not in ("float16", "float32", "float64") or not ctx.shape("Alpha"):
        ctx.fail(f"Alpha {fmt_shape(ctx.shape('Alpha'))} ({ctx.dtype('Alpha')}) must be a float tensor of at least 1-D")
    ctx.set_output("Out", ctx.shape("Alpha"), ctx.dtype("Alpha"))


register(
    "dirichlet",
    kernel_module="random",
    structured=Structured(meta=metas.dirichlet_meta, cpu=cpu.dirichlet_out),
    inputs=["Alpha"],
    outputs=["Out"],
    infer=_infer_dirichlet,
    needs_rng=True,
    lod="drop",
    doc="Out ~ Dirichlet(Alpha) along the last dim (Paddle 2.x's op behind paddle.distribution.Dirichlet and "
    "Beta's samples): gamma draws of shape Alpha, each row over its sum. No gradient.",
)


def _infer_uniform_random_p(ctx):
    for name in ("min", "max", "seed", "dtype"):
        if ctx.attrs.get(name) is None:
            ctx.fail(f"attribute {name} is required (Paddle's uniform_random_p has no default for it)")
    infer_fill(ctx)


register(
    "uniform_random_p",
    kernel_module="random",
    structured=Structured(meta=metas.uniform_random_meta, cpu=cpu.uniform_random_out),
    inputs=[],
    outputs=["Out"],
    infer=_infer_uniform_random_p,
    needs_rng=True,
    traits=("paddle_engine",),
    attrs={
        "shape": Attr([], long=True),
        "min": Attr(None),
        "max": Attr(None),
        "seed": Attr(None),
        "dtype": Attr(None, dtype_or_none, "a dtype name"),
    },
    doc="Paddle 2.6's primitive uniform_random_p: Out ~ U[min, max), as its prim2orig lowering draws it "
    "(paddle.uniform: uniform_random's draws, seed 0 the program's generator).",
)
