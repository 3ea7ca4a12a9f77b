"""Ops on row-sparse values (SelectedRows, pe_cli/selected_rows.py), as Fluid's: merge_selected_rows
(each row once, ascending, duplicates summed) and get_tensor_from_selected_rows (the values alone).
Their X must be row-sparse: the gradient of embedding(is_sparse=True), or a sum of such."""
from ..dtypes import VarType
from .registry import fmt_shape, register


def _sparse_input(ctx):
    x = ctx.input_var("X")
    if x.type != VarType.SELECTED_ROWS:
        ctx.fail(f"X '{x.name}' {fmt_shape(x.shape)} must be row-sparse (SelectedRows: the gradient of "
                 f"embedding(is_sparse=True)); it is a dense variable")
    return x


def _infer_merge(ctx):
    x = _sparse_input(ctx)
    ctx.set_output("Out", x.shape, x.dtype, var_type=VarType.SELECTED_ROWS)


def _infer_values(ctx):
    x = _sparse_input(ctx)
    ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype, var_type=VarType.LOD_TENSOR)


register("merge_selected_rows", kernel_module="selected_rows", inputs=["X"], outputs=["Out"], infer=_infer_merge,
         traits=("selected_rows",), lod="drop",
         doc="Out = X with each row once, ascending, the values of a row listed several times summed "
             "(Fluid's MergeAdd). X and Out are SelectedRows.")
register("get_tensor_from_selected_rows", kernel_module="selected_rows", inputs=["X"], outputs=["Out"],
         infer=_infer_values, traits=("selected_rows",), lod="drop",
         doc="Out = the values of the SelectedRows X ([K, ...], one row per row X lists), a dense tensor.")
