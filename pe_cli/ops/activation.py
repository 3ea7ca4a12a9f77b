"""Activations: Out = f(X) elementwise. Each grad op reads what its derivative needs (X or Out)."""
from .registry import Attr, grads_like, register, same_as


def _activation(name, doc, uses="X", attrs=None):
    """Registers ``name`` and ``name_grad``; the grad reads X or Out (``uses``) and Out@GRAD."""
    attrs = attrs or {}

    def grad(g):
        g.op(f"{name}_grad", {uses: g.input("X") if uses == "X" else g.output("Out"),
                              "Out@GRAD": g.out_grad("Out")},
             {"X@GRAD": g.in_grad("X")}, g.attrs)

    register(name, inputs=["X"], outputs=["Out"], attrs=attrs, infer=same_as(), grad=grad, doc=doc)
    register(f"{name}_grad", inputs=[uses, "Out@GRAD"], outputs=["X@GRAD"], attrs=attrs,
             infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")))


_activation("relu", "Out = max(X, 0).", uses="Out")
