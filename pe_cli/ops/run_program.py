"""run_program (Fluid 1.8's dygraph-to-static op) and its gradient: they run ops of the block
``global_block`` names, a program's forward ops followed by the gradient ops ``fluid.backward.gradients``
appended to them. Its kernels (pe_cli/kernels/<device>/run_program.py)
run that block through the ``BlockRunner`` the executor hands them as their context's ``block``
(pe_cli/executor/sub_block.py), as the control-flow ops run theirs.

``global_block`` is a block of the op's program (its index, > 0: a static program holding the op),
or, as Fluid's dygraph gives it, a block of another program (the Block itself: the eager runs of
Paddle's op tests, pe_cli/fluid/dygraph/eager.py)."""

from ..kernels.cpu import run_program as cpu_block
from ..shapes import block_ops as block_metas
from .define import Attr, Structured, grads_like, is_int, register


def _is_block(value):
    return hasattr(value, "ops") and hasattr(value, "program")


_GLOBAL_BLOCK = Attr(
    None,
    lambda v: (is_int(v) and v > 0) or _is_block(v),
    "the index of a block of its program (> 0), or a block of another program",
)
_ATTRS = {
    "global_block": _GLOBAL_BLOCK,
    "start_op_index": Attr(None, lambda v: is_int(v) and v >= 0, "an op index (>= 0)", long=True),
    "end_op_index": Attr(None, lambda v: is_int(v) and v >= 0, "an op index (>= 0)", long=True),
    "is_test": False,
}


def named_block(op):
    """The block the op's ``global_block`` names."""
    value = op.attrs["global_block"]
    return value if _is_block(value) else op.block.program.block(value)


def _infer_run_program(ctx):
    a, block = ctx.attrs, named_block(ctx.op)
    if not a["start_op_index"] <= a["end_op_index"] <= len(block.ops):
        ctx.fail(
            f"start_op_index {a['start_op_index']} and end_op_index {a['end_op_index']} are no range of "
            f"the {len(block.ops)} ops of block {block.idx} (0 <= start <= end <= its op count)"
        )
    for i, name in enumerate(ctx.op.outputs.get("Out", [])):
        var = block.vars.get(name)
        if var is not None:
            ctx.set_output("Out", var.shape, var.dtype, i=i, lod_level=var.lod_level)


def _grad_run_program(g):
    # Fluid's RunProgramGradOpMaker: the forward op's inputs, its scope and attributes
    g.op(
        "run_program_grad",
        {
            "X": g.input("X"),
            "Params": g.input("Params"),
            "Out@GRAD": g.out_grad("Out"),
            "OutScope": g.output("OutScope"),
        },
        {"X@GRAD": g.in_grad("X"), "Params@GRAD": g.in_grad("Params")},
        g.attrs,
    )


register(
    "run_program",
    kernel_module="run_program",
    structured=Structured(meta=block_metas.run_program_meta, cpu=cpu_block.run_program_out, python=True),
    lod="drop",
    needs_lod=True,
    inputs=["X*", "Params*"],
    outputs=["Out*", "OutScope"],
    attrs=_ATTRS,
    infer=_infer_run_program,
    grad=_grad_run_program,
    grad_reads=("X", "Params", "OutScope"),
    doc="Runs ops [start_op_index, end_op_index) of the block global_block names in a fresh scope holding "
    "X and Params under their names; Out are the values of their names there, OutScope (STEP_SCOPES) "
    "keeps that scope for run_program_grad (Fluid's dygraph-to-static op).",
)

register(
    "run_program_grad",
    kernel_module="run_program",
    structured=Structured(meta=block_metas.run_program_grad_meta, cpu=cpu_block.run_program_grad_out, python=True),
    lod="drop",
    needs_lod=True,
    inputs=["X*", "Params*", "Out@GRAD*", "OutScope"],
    outputs=["X@GRAD*?", "Params@GRAD*?"],
    attrs=_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Params@GRAD": "Params"}),
    doc="The gradient of run_program: in the scope its run_program kept, runs the block's gradient ops, "
    "the ops after end_op_index but those seeding Out's gradients (Fluid's gradients() writes a shape "
    "and a fill_constant per Out, pe's one fill), whose names take Out@GRAD; X@GRAD and Params@GRAD are "
    "the values of X's and Params' gradient names there (zeros where the block wrote none).",
)
