"""Creating, combining and reshaping tensors."""
from .registry import Attr, register, same_as


def _infer_fill(ctx):
    ctx.set_output("Out", ctx.attrs["shape"], ctx.attrs["dtype"])


register("fill_constant", inputs=[], outputs=["Out"],
         attrs={"shape": Attr([1]), "value": 0.0, "dtype": "float32", "force_cpu": False},
         infer=_infer_fill, doc="Out = value, of the given shape and dtype.")

register("fill_zeros_like", inputs=["X"], outputs=["Out"], infer=same_as(),
         doc="Out = zeros shaped like X.")

_RANDOM_ATTRS = {"shape": Attr([1]), "dtype": "float32", "seed": 0}
register("uniform_random", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, min=-1.0, max=1.0), doc="Out ~ U[min, max).")
register("gaussian_random", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, mean=0.0, std=1.0), doc="Out ~ N(mean, std^2).")
register("truncated_gaussian_random", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, mean=0.0, std=1.0),
         doc="Out ~ N(mean, std^2), redrawn where it falls beyond two std.")


def _infer_sum(ctx):
    shapes = ctx.shapes("X")
    for s in shapes[1:]:
        if len(s) != len(shapes[0]) or any(a != b and a >= 0 and b >= 0 for a, b in zip(s, shapes[0])):
            ctx.fail(f"all inputs must have one shape, got {[list(x) for x in shapes]}")
    ctx.set_output("Out", shapes[0], ctx.dtype("X"))


def _grad_sum(g):
    grads = g.in_grad("X")
    out = g.out_grad("Out")[0]
    for name in grads:
        if name is not None:
            g.op("assign", {"X": [out]}, {"Out": [name]})


register("sum", inputs=["X*"], outputs=["Out"], infer=_infer_sum, grad=_grad_sum,
         doc="Out = X[0] + X[1] + ... (add_n).")


def _grad_assign(g):
    g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})


register("assign", inputs=["X"], outputs=["Out"], infer=same_as(), grad=_grad_assign,
         doc="Out = a copy of X.")

register("assign_value", inputs=[], outputs=["Out"], infer=_infer_fill,
         attrs={"shape": Attr([1]), "dtype": "float32", "values": Attr(list)},
         doc="Out = the given values (row-major), of the given shape.")
