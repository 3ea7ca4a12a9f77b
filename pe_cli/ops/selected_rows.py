"""Ops on row-sparse values (SelectedRows, pe_cli/base/selected_rows.py), as Fluid's: merge_selected_rows
(each row once, ascending, duplicates summed), get_tensor_from_selected_rows (the values alone) and
split_selected_rows (a parameter-server trainer cuts a sparse gradient into the row blocks of its
servers). Their X must be row-sparse: the gradient of embedding(is_sparse=True), or a sum of such. Structured:
meta rules in shapes/selected_rows.py, fresh out-kernels in kernels/cpu/selected_rows.py."""

from ..base.dtypes import VarType
from ..kernels.cpu import selected_rows as cpu_rows
from ..shapes import selected_rows as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, int_list, register


def _sparse_input(ctx):
    x = ctx.input_var("X")
    if x.type != VarType.SELECTED_ROWS:
        ctx.fail(
            f"X '{x.name}' {fmt_shape(x.shape)} must be row-sparse (SelectedRows: the gradient of "
            f"embedding(is_sparse=True)); it is a dense variable"
        )
    return x


def _infer_merge(ctx):
    x = _sparse_input(ctx)
    ctx.set_output("Out", x.shape, x.dtype, var_type=VarType.SELECTED_ROWS)


def _infer_values(ctx):
    x = _sparse_input(ctx)
    ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype, var_type=VarType.LOD_TENSOR)


def _infer_split(ctx):
    x = _sparse_input(ctx)
    sections = ctx.attrs["height_sections"]
    if ctx.num_outputs("Out") != len(sections):
        ctx.fail(f"height_sections has {len(sections)} entries for {ctx.num_outputs('Out')} outputs")
    if x.shape and x.shape[0] >= 0 and sum(sections) < x.shape[0]:  # more is Fluid's too (a last block's spare)
        ctx.fail(f"height_sections {sections} add up to {sum(sections)} rows, fewer than X '{x.name}''s {x.shape[0]}")
    for i, rows in enumerate(sections):
        ctx.set_output("Out", (rows,) + tuple(x.shape[1:]), x.dtype, i=i, var_type=VarType.SELECTED_ROWS)


register(
    "merge_selected_rows",
    kernel_module="selected_rows",
    structured=Structured(meta=metas.merge_selected_rows_meta, cpu=cpu_rows.merge_selected_rows_out),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_merge,
    traits=("selected_rows",),
    lod="drop",
    doc="Out = X with each row once, ascending, the values of a row listed several times summed "
    "(Fluid's MergeAdd). X and Out are SelectedRows.",
)
register(
    "get_tensor_from_selected_rows",
    kernel_module="selected_rows",
    structured=Structured(
        meta=metas.get_tensor_from_selected_rows_meta, cpu=cpu_rows.get_tensor_from_selected_rows_out
    ),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_values,
    traits=("selected_rows",),
    lod="drop",
    doc="Out = the values of the SelectedRows X ([K, ...], one row per row X lists), a dense tensor.",
)
register(
    "split_selected_rows",
    kernel_module="selected_rows",
    structured=Structured(meta=metas.split_selected_rows_meta, cpu=cpu_rows.split_selected_rows_out),
    inputs=["X"],
    outputs=["Out*"],
    attrs={"height_sections": Attr(list, int_list, "a list of ints", long=True)},
    infer=_infer_split,
    traits=("selected_rows",),
    lod="drop",
    doc="Out[i] = the rows of the SelectedRows X that fall in the i-th run of height_sections[i] rows, "
    "numbered from that run's first row, with their values (a SelectedRows of height "
    "height_sections[i], as Fluid's split_selected_rows).",
)
