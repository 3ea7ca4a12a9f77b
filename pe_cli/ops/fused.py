"""Fused ops, made by the fusion passes (pe_cli/compiler/passes/) from ops the graph already has, so
that one kernel does the work of two passes over memory.

``fused_elemwise_activation`` (Fluid's, functor_list ``[act, "elementwise_add"]``): Out = act(X + Y)
with elementwise_add's axis broadcasting of Y, act any activation of the table
(pe_cli/activations.py) with its attributes in ``act_attrs``. Its gradient op reads Out for
activations whose derivative reads Out (relu, tanh, sigmoid, ...), and IntermediateOut (X + Y,
saved when ``save_intermediate_out``) for those that read their input.
"""
from ..activations import ROWS
from .elementwise import broadcast_shape
from .registry import Attr, fmt_shape, register

# The ops fuse_elewise_add_act (pe_cli/compiler/passes/) finds and makes: named here, with the op.
ADD, ADD_GRAD = "elementwise_add", "elementwise_add_grad"
FUSED, FUSED_GRAD = "fused_elemwise_activation", "fused_elemwise_activation_grad"


def _act(functors):
    return functors[0] if isinstance(functors, (list, tuple)) and len(functors) == 2 else None


def _check_functors(v):
    act = _act(v)
    return act in ROWS and ROWS[act].derivative is not None and v[1] == "elementwise_add"


def reads_intermediate(attrs):
    """True when the gradient of ``attrs['functor_list']``'s activation reads X + Y (not Out)."""
    return ROWS[_act(attrs["functor_list"])].reads == "X"


def _infer(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if broadcast_shape(x, y, ctx.attrs["axis"]) != list(x):
        ctx.fail(f"Y {fmt_shape(y)} must broadcast into X {fmt_shape(x)} (axis={ctx.attrs['axis']})")
    if reads_intermediate(ctx.attrs) and not ctx.attrs["save_intermediate_out"]:
        ctx.fail(f"{_act(ctx.attrs['functor_list'])}'s gradient reads X + Y: set save_intermediate_out")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("IntermediateOut", x, ctx.dtype("X"))


def _grad(g):
    inputs = {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}
    inputs["IntermediateOut" if reads_intermediate(g.attrs) else "Out"] = (
        g.output("IntermediateOut") if reads_intermediate(g.attrs) else g.output("Out"))
    g.op("fused_elemwise_activation_grad", inputs, {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")}, g.attrs)


_ATTRS = {"functor_list": Attr(list, _check_functors, "[an activation with a gradient, 'elementwise_add']"),
          "axis": -1, "save_intermediate_out": False, "act_attrs": Attr(dict, lambda v: isinstance(v, dict), "a dict")}

register("fused_elemwise_activation", kernel_module="fused", inputs=["X", "Y"], outputs=["Out", "IntermediateOut?"],
         attrs=_ATTRS, infer=_infer, grad=_grad, grad_reads=("X", "Y", "Out", "IntermediateOut"),
         doc="Out = act(X + Y), act = functor_list[0] (an activation) with act_attrs; IntermediateOut = X + Y "
             "when save_intermediate_out.")
register("fused_elemwise_activation_grad", kernel_module="fused",
         inputs=["X", "Y", "Out?", "IntermediateOut?", "Out@GRAD"], outputs=["X@GRAD?", "Y@GRAD?"], attrs=_ATTRS,
         infer=lambda ctx: [ctx.set_output(s, ctx.shape(s[:-5]), ctx.dtype(s[:-5])) for s in ("X@GRAD", "Y@GRAD")])
