"""Ops that move no values of their own, which Paddle 2.x's passes and distributed programs write: depend (Out
is X, after the ops writing Dep: an order, no data), share_data (Out is X's data) and nop (nothing; its Out
variables, where it names any, are its X's). Their gradients pass Out@GRAD to X."""
from .define import grads_like, register
from .pointwise_math import QUANT


def _same(ctx):
    for i in range(ctx.num_outputs("Out")):
        var = ctx.input_var("X", i)
        ctx.set_output("Out", var.shape, var.dtype, i=i, lod_level=var.lod_level)


def _grad(name):
    def grad(g):
        g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})
    return grad


register("depend", kernel_module="dependencies", inputs=["X", "Dep*"], outputs=["Out"], attrs=dict(QUANT),
         infer=_same, grad=_grad("depend"), no_need_buffer=("Dep",),
         doc="Out = X, once the ops that write Dep have run (an order between ops, no data of Dep's).")
register("share_data", kernel_module="dependencies", inputs=["X"], outputs=["Out"], attrs=dict(QUANT), infer=_same,
         grad=_grad("share_data"), doc="Out = X (Paddle shares the buffer; pe's kernels never write their inputs).")
register("nop", kernel_module="dependencies", inputs=["X*?"], outputs=["Out*?"], attrs=dict(QUANT), infer=_same,
         doc="Nothing (an anchor for dependencies); Out, where it names variables, is X.")
