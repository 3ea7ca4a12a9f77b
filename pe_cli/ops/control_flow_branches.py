"""Branches of the control flow family: IfElse's rows split by a mask and merged back
(split_lod_tensor, merge_lod_tensor), and select_input / select_output, one of several variables
picked by a Mask. Their kernels are the family's (pe_cli/kernels/<device>/control_flow.py)."""

from ..kernels.cpu import control_flow_branches as cpu_branches
from ..shapes import control_flow as metas
from .define import Structured, grads_like, register


# -- IfElse: rows split by a mask, merged back ------------------------------------------------------


def _infer_split(ctx):
    x = ctx.shape("X")
    for slot in ("OutTrue", "OutFalse"):
        ctx.set_output(slot, [-1] + list(x[1:]), ctx.dtype("X"))


def _grad_split(g):
    g.op(
        "merge_lod_tensor",
        {"Mask": g.input("Mask"), "InTrue": g.out_grad("OutTrue"), "InFalse": g.out_grad("OutFalse")},
        {"Out": g.in_grad("X")},
    )


register(
    "split_lod_tensor",
    kernel_module="control_flow",
    inputs=["X", "Mask"],
    outputs=["OutTrue", "OutFalse"],
    lod="drop",
    needs_lod=True,
    attrs={"level": 0},
    infer=_infer_split,
    grad=_grad_split,
    grad_reads=("Mask",),
    structured=Structured(meta=metas.split_lod_tensor_meta, cpu=cpu_branches.split_lod_tensor_out),
    doc="OutTrue = the sequences of X's LoD level `level` (rows, without LoD) where Mask ([count, 1] bool) "
    "holds, OutFalse = the others (IfElse), with their LoD.",
)


def _infer_merge(ctx):
    t, f = ctx.shape("InTrue"), ctx.shape("InFalse")
    ctx.set_output("Out", [-1] + list((t if len(t) > 1 else f)[1:]), ctx.dtype("InTrue"))


def _grad_merge(g):
    g.op(
        "split_lod_tensor",
        {"X": g.out_grad("Out"), "Mask": g.input("Mask")},
        {"OutTrue": g.in_grad("InTrue"), "OutFalse": g.in_grad("InFalse")},
    )


register(
    "merge_lod_tensor",
    kernel_module="control_flow",
    inputs=["X?", "Mask", "InTrue", "InFalse"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    attrs={"level": 0},
    infer=_infer_merge,
    grad=_grad_merge,
    grad_reads=("Mask",),
    structured=Structured(meta=metas.merge_lod_tensor_meta, cpu=cpu_branches.merge_lod_tensor_out),
    doc="Out: sequences of LoD level `level` (rows, without LoD) from InTrue where Mask holds and from "
    "InFalse elsewhere, in Mask's order (IfElse), with their LoD.",
)
register(
    "merge_lod_tensor_infer",
    kernel_module="control_flow",
    kernel="merge_lod_tensor",
    inputs=["X?", "Mask", "InTrue", "InFalse"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    attrs={"level": 0},
    infer=_infer_merge,
    structured=Structured(meta=metas.merge_lod_tensor_meta, cpu=cpu_branches.merge_lod_tensor_out),
    doc="merge_lod_tensor for inference programs (no gradient).",
)


# -- select_input / select_output: one of several variables, picked by an int32 [1] Mask ----------


def _infer_select_input(ctx):
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"))


def _infer_select_output(ctx):
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), i=i)


def _grad_select_input(g):  # the gradient goes to the selected input; zeros to the others
    g.op(
        "select_input_grad",
        {"X": g.input("X"), "Mask": g.input("Mask"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
    )


def _grad_select_output(g):
    g.op("select_output_grad", {"Mask": g.input("Mask"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "select_input",
    kernel_module="control_flow",
    inputs=["X*", "Mask"],
    outputs=["Out"],
    lod="drop",
    traits=("unset_inputs",),
    infer=_infer_select_input,
    grad=_grad_select_input,
    grad_reads=("X", "Mask"),
    structured=Structured(meta=metas.select_input_meta, cpu=cpu_branches.select_input_out),
    doc="Out = X[Mask] (Mask: int32 [1]); the other X's may have no value (a branch that did not run).",
)
register(
    "select_output",
    kernel_module="control_flow",
    inputs=["X", "Mask"],
    outputs=["Out*"],
    lod="drop",
    infer=_infer_select_output,
    grad=_grad_select_output,
    grad_reads=("Mask",),
    traits=("output_counts",),
    structured=Structured(meta=metas.select_output_meta, cpu=cpu_branches.select_output_out),
    doc="Out[Mask] = X (Mask: int32 [1]); the other outputs are given no value.",
)
register(
    "select_input_grad",
    kernel_module="control_flow",
    inputs=["X*", "Mask", "Out@GRAD"],
    outputs=["X@GRAD*"],
    lod="drop",
    infer=grads_like({"X@GRAD": "X"}),
    traits=("unset_inputs",),
    structured=Structured(meta=metas.select_input_grad_meta, cpu=cpu_branches.select_input_grad_out),
    doc="X@GRAD[Mask] = Out@GRAD; zeros for the other X's that have a value (none for those without: a "
    "branch that did not run).",
)
register(
    "select_output_grad",
    kernel_module="control_flow",
    inputs=["Mask", "Out@GRAD*"],
    outputs=["X@GRAD"],
    lod="drop",
    structured=Structured(meta=metas.select_output_grad_meta, cpu=cpu_branches.select_output_grad_out),
    doc="X@GRAD = Out@GRAD[Mask].",
)
