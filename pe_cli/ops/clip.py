"""Ops for gradient clipping: the per-tensor norm clip and the squared L2 norm (for the global norm).
Clipping by value uses the ``clip`` op, the global norm's root the ``sqrt`` op."""
from .define import Attr, grads_like, positive, register, same_as

register("clip_by_norm", kernel_module="clip",
         inputs=["X"], outputs=["Out"], attrs={"max_norm": Attr(1.0, positive, "> 0")},
         infer=same_as(),
         doc="Out = X * max_norm / ||X||_2 where ||X||_2 > max_norm, else X.")


def _infer_squared_l2_norm(ctx):
    ctx.set_output("Out", [1], ctx.dtype("X"))


def _grad_squared_l2_norm(g):
    g.op("squared_l2_norm_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")})


register("squared_l2_norm", kernel_module="clip",
         grad_reads=("X",), inputs=["X"], outputs=["Out"], infer=_infer_squared_l2_norm,
         grad=_grad_squared_l2_norm, doc="Out = sum(X^2), shape [1].")
register("squared_l2_norm_grad", kernel_module="clip", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
         infer=grads_like({"X@GRAD": "X"}))
