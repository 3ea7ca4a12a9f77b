"""Fluid's building blocks of a dynamic RNN written with While: a LoD rank table (the sequences of a
LoD level, longest first), its longest length, sequences cut into a tensor array of time steps and
back, memories shrunk to the sequences still running, and rows reordered by the table."""

from ..kernels.cpu import lod_rank as cpu
from ..shapes import lod_rank as metas
from ..shapes.structured import Structured
from .define import register


def _infer_table(ctx):
    # no lod_level check: as Fluid's, the LoD is the fed tensor's at run time (the kernel refuses none)
    ctx.set_output("Out", None, "int64")


register(
    "lod_rank_table",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.lod_rank_table_meta, cpu=cpu.lod_rank_table_out),
    inputs=["X"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    attrs={"level": 0},
    infer=_infer_table,
    doc="Out = the rank table of X's LoD level `level`: (index, length) of each sequence, longest first (stable).",
)


def _infer_max_len(ctx):
    ctx.set_output("Out", [1], "int64")


register(
    "max_sequence_len",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.max_sequence_len_meta, cpu=cpu.max_sequence_len_out),
    inputs=["RankTable"],
    outputs=["Out"],
    lod="drop",
    infer=_infer_max_len,
    doc="Out = the longest sequence's length (int64 [1]).",
)


def _infer_to_array(ctx):
    # as Fluid's at build time: an element of the array has one LoD level less than X, and the tensor
    # array_to_lod_tensor makes of an array one more
    step = 1 if ctx.op.type == "array_to_lod_tensor" else -1
    ctx.set_output(
        "Out", [-1] + list(ctx.shape("X")[1:]), ctx.dtype("X"), lod_level=max(ctx.input_var("X").lod_level + step, 0)
    )


def _infer_rows(ctx):
    """Some of X's sequences (rows): X's LoD levels, as the sequence ops that read them need."""
    ctx.set_output("Out", [-1] + list(ctx.shape("X")[1:]), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_to_array(g):
    g.op("array_to_lod_tensor", {"X": g.out_grad("Out"), "RankTable": g.input("RankTable")}, {"Out": g.in_grad("X")})


register(
    "lod_tensor_to_array",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.lod_tensor_to_array_meta, cpu=cpu.lod_tensor_to_array_out),
    inputs=["X", "RankTable"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    infer=_infer_to_array,
    grad=_grad_to_array,
    grad_reads=("RankTable",),
    doc="Out[t] = the t-th element (a row, or a sequence of the level below the ranked one, with its LoD) of "
    "each sequence longer than t, in the table's order.",
)


def _grad_from_array(g):
    g.op("lod_tensor_to_array", {"X": g.out_grad("Out"), "RankTable": g.input("RankTable")}, {"Out": g.in_grad("X")})


register(
    "array_to_lod_tensor",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.array_to_lod_tensor_meta, cpu=cpu.array_to_lod_tensor_out),
    inputs=["X", "RankTable"],
    outputs=["Out"],
    lod="drop",
    infer=_infer_to_array,
    grad=_grad_from_array,
    grad_reads=("RankTable",),
    doc="Out = the array's time steps put back into the sequences of the table's LoD (the inverse of "
    "lod_tensor_to_array).",
)


def _x_lod(in_lods, attrs):
    """A gradient has the LoD of the input it is the gradient of."""
    return {"X@GRAD": in_lods.get("X")}


def _grad_shrink(g):
    g.op("shrink_rnn_memory_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "shrink_rnn_memory",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.shrink_rnn_memory_meta, cpu=cpu.shrink_rnn_memory_out),
    inputs=["X", "I", "RankTable"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    infer=_infer_rows,
    grad=_grad_shrink,
    grad_reads=("X",),
    doc="Out = the first sequences of X (rows, where X has no LoD), one per sequence of the table longer "
    "than I (the table's order), with their LoD.",
)
register(
    "shrink_rnn_memory_grad",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.shrink_rnn_memory_grad_meta, cpu=cpu.shrink_rnn_memory_grad_out),
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    lod=_x_lod,
    doc="X@GRAD = Out@GRAD on the first rows, zeros on the others.",
)


def _grad_reorder(g):
    g.op(
        "reorder_lod_tensor_by_rank_grad",
        {"X": g.input("X"), "RankTable": g.input("RankTable"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
    )


register(
    "reorder_lod_tensor_by_rank",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.reorder_meta, cpu=cpu.reorder_lod_tensor_by_rank_out),
    inputs=["X", "RankTable"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    infer=_infer_rows,
    grad=_grad_reorder,
    grad_reads=("X", "RankTable"),
    doc="Out = X's sequences (rows, where X has no LoD), one per sequence of the table, in the table's order, "
    "with their LoD.",
)
register(
    "reorder_lod_tensor_by_rank_grad",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.reorder_grad_meta, cpu=cpu.reorder_lod_tensor_by_rank_grad_out),
    inputs=["X", "RankTable", "Out@GRAD"],
    outputs=["X@GRAD"],
    lod=_x_lod,
    needs_lod=True,
    doc="X@GRAD = Out@GRAD's rows put back in X's order.",
)


# Fluid's memory of a recurrent step block: a copy that keeps the LoD, its gradient zeros where the
# step's memory got none.
def _infer_memory(ctx):
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register(
    "rnn_memory_helper",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.memory_helper_meta, cpu=cpu.rnn_memory_helper_out),
    inputs=["X"],
    outputs=["Out"],
    attrs={"dtype": 5},
    infer=_infer_memory,
    grad=lambda g: g.op(
        "rnn_memory_helper_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
    ),
    grad_reads=("X", "Out"),
    doc="Out = X (with its LoD).",
)


def _infer_memory_grad(ctx):
    grads = ctx.op.inputs.get("Out@GRAD") or []
    if grads and not ctx.block.has_var_recursive(grads[0]):
        ctx.op.inputs["Out@GRAD"] = []  # a variable of no block of this program: absent, as in Fluid
    ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


register(
    "rnn_memory_helper_grad",
    kernel_module="lod_rank",
    structured=Structured(meta=metas.memory_helper_grad_meta, cpu=cpu.rnn_memory_helper_grad_out),
    inputs=["X", "Out?", "Out@GRAD?"],
    outputs=["X@GRAD"],
    attrs={"dtype": 5},
    lod=_x_lod,
    infer=_infer_memory_grad,
    doc="X@GRAD = Out@GRAD, or zeros of X's shape where the memory got no gradient.",
)
