"""py_func (Fluid 1.8's ``layers.py_func``): an op that calls a Python function (registered in
pe_cli/kernels/py_callables.py by the layer) on its inputs' values. It has no shape inference: its
outputs keep the shapes and dtypes the user declared them with (the layer checks they have them, the
function's results are checked against them), as nothing can be inferred of a Python function. Its gradient is
another py_func, as Fluid's: the backward function gets X, Out and Out@GRAD (less
``backward_skip_vars``) and returns X@GRAD."""

from ..kernels.cpu import py_func as cpu
from ..shapes import services as metas
from .define import Attr, Structured, register


def _grad(g):
    a = g.attrs
    grads = g.in_grad("X")
    if a["backward_callable_id"] < 0 or grads is None:
        return
    skip = set(a["backward_skip_vars"])
    reads = [n for n in g.input("X") + g.output("Out") if n not in skip] + g.out_grad("Out")
    g.op(
        "py_func",
        {"X": reads},
        {"Out": grads},
        {"forward_callable_id": a["backward_callable_id"], "backward_callable_id": -1, "backward_skip_vars": []},
    )


register(
    "py_func",
    kernel_module="py_func",
    structured=Structured(meta=metas.py_func_meta, cpu=cpu.py_func_out, python=True),
    inputs=["X*"],
    outputs=["Out*"],
    needs_lod=True,
    lod="drop",
    attrs={
        "forward_callable_id": Attr(0, lambda v: v >= 0, "a registered function's id (>= 0)"),
        "backward_callable_id": -1,
        "backward_skip_vars": Attr(list),
    },
    grad=_grad,
    grad_reads=("X", "Out"),
    doc="Out = func(*X), func a Python function of this process (forward_callable_id); its gradient "
    "calls backward_callable_id on X, Out and Out@GRAD less backward_skip_vars.",
)
