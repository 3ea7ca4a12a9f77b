"""Paddle 2.x's broadcasting ops, under Paddle 2.6's op types: expand_v2 (X broadcast to ``shape``, -1 keeping
X's dim; Shape or expand_shapes_tensor give it at run time), expand_as_v2 (X broadcast to Y's shape, or to
target_shape without Y) and broadcast_tensors (numpy's broadcast of every X), their kernels expand's (np.tile,
one strided copy on CUDA) of X with leading 1s. The gradients sum Out@GRAD back over the broadcast dims. expand_v2's
and expand_as_v2's meta rules are in shapes/broadcasting.py, their CPU out-kernels in kernels/cpu/broadcasting.py.
"""

from ..base.broadcast_shapes import broadcast, expanded_shape
from ..kernels.cpu import broadcasting as cpu_broadcasting
from ..shapes import broadcasting as metas
from .define import Attr, Structured, fmt_shape, grad_of, grads_like, int_list, register
from .pointwise_math import QUANT


def _infer_expand_v2(ctx):
    """The shape from the attribute; given at run time (Shape, expand_shapes_tensor), Out has its length,
    the dims the attribute holds (> 0) known, the rest -1."""
    x, shape = ctx.shape("X"), list(ctx.attrs["shape"])
    if ctx.has_input("Shape") or ctx.has_input("expand_shapes_tensor"):
        n = (
            ctx.num_inputs("expand_shapes_tensor")
            if ctx.has_input("expand_shapes_tensor")
            else (ctx.shape("Shape") or [1])[0]
        )
        ctx.set_output(
            "Out",
            [t if len(shape) == n and t > 0 else -1 for t in (shape if len(shape) == n else [-1] * max(n, 0))],
            ctx.dtype("X"),
        )
        return
    out = expanded_shape(x, shape)
    if out is None:
        ctx.fail(
            f"cannot expand X {fmt_shape(x)} to shape {shape}: the shape needs X's rank or more, and each "
            f"dim of X must be 1 or equal the target's (-1 keeps X's)"
        )
    ctx.set_output("Out", out, ctx.dtype("X"))


_EXPAND_ATTRS = {"shape": Attr(list, int_list, "a list of ints"), **QUANT}
register(
    "expand_v2",
    kernel_module="broadcasting",
    inputs=["X", "Shape?", "expand_shapes_tensor*?"],
    outputs=["Out"],
    attrs=_EXPAND_ATTRS,
    infer=_infer_expand_v2,
    grad=grad_of("expand_v2_grad", ("X",)),
    grad_reads=("X",),
    attr_tensors={"Shape": "shape", "expand_shapes_tensor": "shape"},
    structured=Structured(meta=metas.expand_v2_meta, cpu=cpu_broadcasting.TILE),
    doc="Out = X broadcast to `shape` (at least X's rank; -1 keeps X's dim; Shape: the shape in one int "
    "tensor, expand_shapes_tensor: one tensor per dim, given at run time).",
)
register(
    "expand_v2_grad",
    kernel_module="broadcasting",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_EXPAND_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
    structured=Structured(meta=metas.expand_v2_grad_meta, cpu=cpu_broadcasting.TILE_GRAD),
)


def _infer_expand_as_v2(ctx):
    x = ctx.shape("X")
    target = list(ctx.shape("Y")) if ctx.has_input("Y") else list(ctx.attrs["target_shape"])
    out = expanded_shape(x, target)
    if out is None or (not target and x):  # (a 0-D X as a 0-D Y: 0-D, Paddle 2.6's)
        ctx.fail(
            f"cannot expand X {fmt_shape(x)} as {'Y' if ctx.has_input('Y') else 'target_shape'} "
            f"{fmt_shape(target)}: each dim of X must be 1 or equal the target's"
        )
    ctx.set_output("Out", out, ctx.dtype("X"))


_EXPAND_AS_ATTRS = {"target_shape": Attr(list, int_list, "a list of ints"), **QUANT}
register(
    "expand_as_v2",
    kernel_module="broadcasting",
    inputs=["X", "Y?"],
    outputs=["Out"],
    attrs=_EXPAND_AS_ATTRS,
    infer=_infer_expand_as_v2,
    grad=grad_of("expand_as_v2_grad", ("X",)),
    grad_reads=("X",),
    no_need_buffer=("Y",),
    structured=Structured(meta=metas.expand_as_v2_meta, cpu=cpu_broadcasting.TILE),
    doc="Out = X broadcast to Y's shape (to target_shape where no Y is given). No gradient flows to Y.",
)
register(
    "expand_as_v2_grad",
    kernel_module="broadcasting",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_EXPAND_AS_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
    structured=Structured(meta=metas.expand_v2_grad_meta, cpu=cpu_broadcasting.TILE_GRAD),
)


def _infer_broadcast_tensors(ctx):
    shapes = ctx.shapes("X")
    out = broadcast(shapes)
    if out is None:
        ctx.fail(f"inputs {', '.join(fmt_shape(s) for s in shapes)} do not broadcast")
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output("Out", out, ctx.dtype("X", i), i=i)


def _grad_broadcast_tensors(g):
    g.op("broadcast_tensors_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "broadcast_tensors",
    kernel_module="broadcasting",
    structured=Structured(meta=metas.broadcast_tensors_meta, cpu=cpu_broadcasting.broadcast_tensors_out),
    inputs=["X*"],
    outputs=["Out*"],
    attrs=dict(QUANT),
    infer=_infer_broadcast_tensors,
    grad=_grad_broadcast_tensors,
    grad_reads=("X",),
    doc="Out[i] = X[i] broadcast to the numpy broadcast of every X.",
)
register(
    "broadcast_tensors_grad",
    kernel_module="broadcasting",
    structured=Structured(meta=metas.broadcast_tensors_grad_meta, cpu=cpu_broadcasting.broadcast_tensors_grad_out),
    inputs=["X*", "Out@GRAD*"],
    outputs=["X@GRAD*"],
    attrs=dict(QUANT),
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
)
