"""prelu, instance_norm and group_norm of Fluid 1.8 (kernels in kernels/<device>/norm_extra.py).
The two norms normalize rows of X's flat layout ([N*C, H*W] and [N*G, C/G*H*W]) as layer_norm
does, then scale and shift per channel."""
from ..shapes import known_numel
from .registry import Attr, fmt_shape, grads_like, register


def _known(d):
    return d is not None and d >= 0


# -- prelu ------------------------------------------------------------------------------------------

def prelu_alpha_size(x, mode):
    """The number of alphas prelu's mode needs for X's shape (-1: unknown)."""
    if mode == "all":
        return 1
    if mode == "channel":
        return x[1] if _known(x[1]) else -1
    return known_numel(x[1:])


def _infer_prelu(ctx):
    x, alpha, mode = ctx.shape("X"), ctx.shape("Alpha"), ctx.attrs["mode"]
    if x is None or len(x) < (2 if mode != "all" else 1):
        ctx.fail(f"X {fmt_shape(x)} needs a batch dim and, for mode '{mode}', the dims after it")
    want, have = prelu_alpha_size(x, mode), known_numel(alpha)
    if want >= 0 and have >= 0 and want != have:
        ctx.fail(f"Alpha {fmt_shape(alpha)} has {have} values but mode '{mode}' needs {want} for X {fmt_shape(x)}")
    if ctx.dtype("X") != ctx.dtype("Alpha"):
        ctx.fail(f"X is {ctx.dtype('X')} but Alpha is {ctx.dtype('Alpha')}")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_prelu(g):
    g.op("prelu_grad", {"X": g.input("X"), "Alpha": g.input("Alpha"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Alpha@GRAD": g.in_grad("Alpha")}, g.attrs)


_PRELU_ATTRS = {"mode": Attr("all", choices=("all", "channel", "element"))}
register("prelu", kernel_module="norm_extra", inputs=["X", "Alpha"], outputs=["Out"], attrs=_PRELU_ATTRS,
         infer=_infer_prelu, grad=_grad_prelu, grad_reads=("Alpha", "X"),
         doc="Out = X where X > 0, else Alpha * X: one Alpha (all), one per channel of dim 1 (channel) or "
             "one per element of X's non-batch dims (element).")
register("prelu_grad", kernel_module="norm_extra", inputs=["X", "Alpha", "Out@GRAD"],
         outputs=["X@GRAD?", "Alpha@GRAD?"], attrs=_PRELU_ATTRS,
         infer=grads_like({"X@GRAD": "X", "Alpha@GRAD": "Alpha"}))
