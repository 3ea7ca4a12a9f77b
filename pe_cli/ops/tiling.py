"""Tiling: expand (X repeated expand_times[i] times along each dim i; Fluid 1.8's tensor forms of
expand_times: ExpandTimes, expand_times_tensor), Paddle 2.x's tile (expand with leading dims added to
X or to repeat_times, whichever is shorter) and expand_as (X tiled to a target's shape). Their meta rules
are in shapes/broadcasting.py, their CPU out-kernels in kernels/cpu/broadcasting.py (structured kernels), their
CUDA kernels in kernels/cuda/manipulation.py."""

from ..kernels.cpu import broadcasting as cpu_tiling
from ..shapes import broadcasting as metas
from .define import Attr, Structured, fmt_shape, grads_like, int_list, register


def _infer_expand(ctx):
    """expand_times from the attribute, or at run time (Fluid 1.8's ExpandTimes: the whole list in one
    int tensor; expand_times_tensor: one tensor per dim, the attribute -1 there): those dims are -1."""
    x, times = ctx.shape("X"), list(ctx.attrs["expand_times"])
    if ctx.has_input("ExpandTimes"):
        times = [-1] * len(x)
    elif ctx.has_input("expand_times_tensor"):
        given = ctx.num_inputs("expand_times_tensor")
        times = times if len(times) == given else [-1] * given
    if len(times) != len(x):
        ctx.fail(f"expand_times={times} must have one entry per dim of X {fmt_shape(x)}")
    if any(t < 1 for t in times) and not ctx.has_input("ExpandTimes") and not ctx.has_input("expand_times_tensor"):
        ctx.fail(f"expand_times={times} must be ints >= 1")
    ctx.set_output(
        "Out",
        [d * t if d >= 0 and t >= 0 else -1 for d, t in zip(x, times)],
        ctx.dtype("X"),
        lod_level=ctx.input_var("X").lod_level,
    )


_EXPAND_FROM = {"ExpandTimes": "expand_times", "expand_times_tensor": "expand_times"}


def _grad_expand(g):
    g.op(
        "expand_grad",
        {"X": g.input("X"), "Out@GRAD": g.out_grad("Out"), **{k: g.input(k) for k in _EXPAND_FROM if g.input(k)}},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_EXPAND_ATTRS = {
    "expand_times": Attr(
        list,
        lambda v: int_list(v) and all(t >= 1 or t == -1 for t in v),
        "a list of ints >= 1 (-1 where expand_times_tensor gives it)",
    )
}
register(
    "expand",
    kernel_module="manipulation",
    grad_reads=("X",) + tuple(_EXPAND_FROM),
    inputs=["X", "ExpandTimes?", "expand_times_tensor*?"],
    outputs=["Out"],
    attrs=_EXPAND_ATTRS,
    infer=_infer_expand,
    grad=_grad_expand,
    attr_tensors=_EXPAND_FROM,
    structured=Structured(meta=metas.expand_meta, cpu=cpu_tiling.TILE),
    doc="Out = X tiled expand_times[i] times along each dim i (Fluid 1.8's tensor forms: ExpandTimes "
    "holds the list, expand_times_tensor one tensor per dim).",
)
register(
    "expand_grad",
    kernel_module="manipulation",
    inputs=["X", "Out@GRAD", "ExpandTimes?", "expand_times_tensor*?"],
    outputs=["X@GRAD"],
    attrs=_EXPAND_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors=_EXPAND_FROM,
    structured=Structured(meta=metas.expand_grad_meta, cpu=cpu_tiling.TILE_GRAD),
)


def _infer_expand_as(ctx):
    x, t = ctx.shape("X"), ctx.shape("target_tensor")
    if len(x) != len(t):
        ctx.fail(f"X {fmt_shape(x)} and target_tensor {fmt_shape(t)} must have one rank")
    for a, b in zip(x, t):
        if ctx.is_runtime and (a <= 0 or b % a):  # (Fluid's kernel checks it when it runs)
            ctx.fail(
                f"target_tensor {fmt_shape(t)} is not X {fmt_shape(x)} tiled: each of its dims must be "
                f"a multiple of X's"
            )
    ctx.set_output("Out", t, ctx.dtype("X"))


def _grad_expand_as(g):
    """Fluid's expand_as_grad: X, target_tensor (its shape only) and Out@GRAD."""
    g.op(
        "expand_as_grad",
        {"X": g.input("X"), "target_tensor": g.input("target_tensor"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
    )


register(
    "expand_as",
    kernel_module="manipulation",
    inputs=["X", "target_tensor"],
    outputs=["Out"],
    run_infer=True,
    infer=_infer_expand_as,
    grad=_grad_expand_as,
    grad_reads=("X", "target_tensor"),
    structured=Structured(meta=metas.expand_as_meta, cpu=cpu_tiling.TILE),
    doc="Out = X tiled to target_tensor's shape (each of its dims a multiple of X's). No gradient "
    "flows to target_tensor.",
)
register(
    "expand_as_grad",
    kernel_module="manipulation",
    inputs=["X", "target_tensor?", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("target_tensor",),
    structured=Structured(meta=metas.expand_as_grad_meta, cpu=cpu_tiling.TILE_GRAD),
)


def _infer_tile(ctx):
    """Out has max(rank of X, len(repeat_times)) dims; those a tensor gives are -1 (known at run time)."""
    x, times = ctx.shape("X"), list(ctx.attrs["repeat_times"])
    if ctx.has_input("RepeatTimes"):
        count = ctx.shape("RepeatTimes")[0] if ctx.shape("RepeatTimes") else 1
        times = [-1] * (count if count >= 0 else len(x))
    elif ctx.has_input("repeat_times_tensor"):
        given = ctx.num_inputs("repeat_times_tensor")
        times = times if len(times) == given else [-1] * given
    elif any(t < 1 for t in times):
        ctx.fail(f"repeat_times={times} must be ints >= 1")
    n = max(len(x), len(times))
    x, times = [1] * (n - len(x)) + list(x), [1] * (n - len(times)) + times
    ctx.set_output("Out", [d * t if d >= 0 and t >= 0 else -1 for d, t in zip(x, times)], ctx.dtype("X"))


_TILE_FROM = {"RepeatTimes": "repeat_times", "repeat_times_tensor": "repeat_times"}
_TILE_ATTRS = {
    "repeat_times": Attr(
        list,
        lambda v: int_list(v) and all(t >= 1 or t == -1 for t in v),
        "a list of ints >= 1 (-1 where repeat_times_tensor gives it)",
    )
}


def _grad_tile(g):
    g.op(
        "tile_grad",
        {"X": g.input("X"), "Out@GRAD": g.out_grad("Out"), **{k: g.input(k) for k in _TILE_FROM if g.input(k)}},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


register(
    "tile",
    kernel_module="manipulation",
    grad_reads=("X",) + tuple(_TILE_FROM),
    inputs=["X", "RepeatTimes?", "repeat_times_tensor*?"],
    outputs=["Out"],
    attrs=_TILE_ATTRS,
    infer=_infer_tile,
    grad=_grad_tile,
    attr_tensors=_TILE_FROM,
    structured=Structured(meta=metas.tile_meta, cpu=cpu_tiling.TILE),
    doc="Out = X tiled repeat_times[i] times along each dim i, the shorter of X's shape and "
    "repeat_times taking leading 1s (Paddle 2.x's; RepeatTimes holds the list, "
    "repeat_times_tensor one tensor per dim).",
)
register(
    "tile_grad",
    kernel_module="manipulation",
    inputs=["X", "Out@GRAD", "RepeatTimes?", "repeat_times_tensor*?"],
    outputs=["X@GRAD"],
    attrs=_TILE_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors=_TILE_FROM,
    structured=Structured(meta=metas.tile_grad_meta, cpu=cpu_tiling.TILE_GRAD),
)
