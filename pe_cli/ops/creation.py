"""Creating tensors: filled with a value (fill_constant, fill_zeros_like, fill_any_like,
fill_constant_batch_size_like, fake_init), copied or given (assign, assign_value), ranges (range, linspace), grids
(meshgrid), identity and diagonal matrices (eye, diag, diag_embed), triangles of a matrix (tril_triu). Random
tensors are in random.py."""

import math

import numpy as np

from ..base.dtypes import is_float
from ..base.dims import known_numel
from ..kernels.cpu import creation as cpu_creation
from ..shapes import creation as metas
from ..shapes.creation import fill_constant_meta
from .define import Attr, Structured, dtype_or_none, fmt_shape, grad_of, int_list, is_int, register, same_as


def infer_fill(ctx):
    shape = list(ctx.attrs["shape"])
    if ctx.has_input("ShapeTensor"):  # the shape comes at run time; only its length may be known
        n = ctx.shape("ShapeTensor")
        shape = shape or ([-1] * n[0] if len(n) == 1 and n[0] >= 0 else [])
    elif ctx.has_input("ShapeTensorList") and len(ctx.shapes("ShapeTensorList")) != len(shape):
        shape = [-1] * len(ctx.shapes("ShapeTensorList"))  # the list replaces the attribute (Fluid's)
    ctx.set_output("Out", shape, ctx.attrs["dtype"])


# Fluid's run-time shapes (layers/shape_tensor.py): ShapeTensor, an int32 1-D tensor, or
# ShapeTensorList, one int32 [1] tensor per dim; either replaces the shape attribute.
SHAPE_INPUTS = ["ShapeTensor?", "ShapeTensorList*?"]
register(
    "fill_constant",
    kernel_module="creation",
    inputs=["ValueTensor?"] + SHAPE_INPUTS,
    outputs=["Out"],
    attrs={
        "shape": Attr([], long=True),
        "value": 0.0,
        "dtype": Attr("float32", dtype_or_none, "a dtype name"),
        "force_cpu": False,
        "str_value": "",
    },
    infer=infer_fill,
    attr_tensors={"ShapeTensor": "shape", "ShapeTensorList": "shape"},
    structured=Structured(meta=fill_constant_meta, cpu=cpu_creation.fill_constant_out),
    doc="Out = value (or the one value of ValueTensor), of the given shape (or "
    "the run-time shape of ShapeTensor or ShapeTensorList) and dtype. str_value, "
    "when set, gives the value instead, read as Fluid 1.8 reads it: an int64 Out "
    "takes its leading integer, any other dtype a leading decimal number; text "
    "without one ('inf' and 'nan' too) gives 0.",
)

register(
    "fake_init",
    kernel_module="creation",
    structured=Structured(meta=metas.shaped_meta, cpu=cpu_creation.fake_init_out),
    inputs=[],
    outputs=["Out"],
    attrs={"shape": Attr(list, lambda v: int_list(v) and all(d >= 0 for d in v), "a list of sizes >= 0", long=True)},
    infer=lambda ctx: ctx.set_output("Out", ctx.attrs["shape"], "float32"),
    doc="Out = a float32 tensor of the given shape whose values are not meant to be read (a "
    "parameter-server trainer's stand-in for a table the servers hold; Fluid leaves them "
    "uninitialized, pe makes them 0). Out may be row-sparse: its values get the shape.",
)

register(
    "fill_zeros_like",
    kernel_module="creation",
    structured=Structured(meta=metas.like_meta, cpu=cpu_creation.FILL_ZEROS_LIKE),
    inputs=["X"],
    outputs=["Out"],
    infer=same_as(),
    doc="Out = zeros shaped like X.",
)


def _grad_assign(g):
    g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})


register(
    "assign",
    kernel_module="creation",
    structured=Structured(meta=metas.assign_meta, cpu=cpu_creation.ASSIGN),
    inputs=["X?"],
    outputs=["Out"],
    grad=_grad_assign,
    infer=lambda ctx: same_as()(ctx) if ctx.has_input("X") else None,
    doc="Out = a copy of X; without X (Fluid's X is optional) nothing is written.",
)


def values_attr(dtype):
    """The attribute of assign_value holding values of ``dtype`` (Fluid's names)."""
    return {"int32": "int32_values", "int64": "int64_values", "bool": "bool_values"}.get(dtype, "fp32_values")


register(
    "assign_value",
    kernel_module="creation",
    structured=Structured(meta=metas.shaped_meta, cpu=cpu_creation.assign_value_out),
    inputs=[],
    outputs=["Out"],
    infer=infer_fill,
    attrs={
        "shape": Attr([1]),
        "dtype": Attr("float32", dtype_or_none, "a dtype name"),
        "fp32_values": Attr(list),
        "int32_values": Attr(list),
        "int64_values": Attr(list, long=True),
        "bool_values": Attr(list),
        "fp64_values": Attr(list, fill=False),
    },  # (Paddle 2.6's, framework.proto's FLOAT64S)
    doc="Out = the given values (row-major), of the given shape: fp32_values for float dtypes (Paddle 2.6's "
    "fp64_values for float64, where given), int32_values, int64_values or bool_values for the others.",
)


def _infer_range(ctx):
    for slot in ("Start", "End", "Step"):
        shape = ctx.shape(slot)
        if any(d > 1 for d in shape):
            ctx.fail(f"{slot} {fmt_shape(shape)} must hold one number")
        if ctx.dtype(slot) != ctx.dtype("Start"):
            ctx.fail(f"{slot} is {ctx.dtype(slot)} but Start is {ctx.dtype('Start')}; give all three one dtype")
    ctx.set_output("Out", [-1], ctx.dtype("Start"))


register(
    "range",
    kernel_module="creation",
    kernel="arange",
    structured=Structured(meta=metas.run_length_meta, cpu=cpu_creation.RANGE),
    inputs=["Start", "End", "Step"],
    outputs=["Out"],
    infer=_infer_range,
    lod="drop",
    doc="Out = [Start, Start + Step, ...] up to End (excluded), 1-D; its length, "
    "ceil(|End - Start| / |Step|), is known at run time. Step must point from Start to End. No gradient.",
)


def _infer_fill_any_like(ctx):
    dtype, value = ctx.attrs["dtype"] or ctx.dtype("X"), ctx.attrs["value"]
    if dtype != "bool" and not (is_float(dtype) and not math.isfinite(value)):  # a float holds inf and NaN
        info = np.finfo(dtype) if is_float(dtype) else np.iinfo(dtype)
        if math.isnan(value) or not float(info.min) <= value <= float(info.max):  # as Paddle's kernel
            ctx.fail(f"value={value} is out of range for {dtype}; Out cannot hold it")
    ctx.set_output("Out", ctx.shape("X"), dtype, lod_level=ctx.input_var("X").lod_level)


register(
    "fill_any_like",
    kernel_module="creation",
    structured=Structured(meta=metas.fill_any_like_meta, cpu=cpu_creation.fill_any_like_out),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_fill_any_like,
    attrs={"value": 0.0, "dtype": Attr(None, dtype_or_none, "a dtype name")},
    doc="Out = value, shaped like X, of `dtype` (None: X's). No gradient.",
)


def _infer_eye(ctx):
    rows, cols = ctx.attrs["num_rows"], ctx.attrs["num_columns"]
    if rows is None:
        ctx.fail("eye needs num_rows")
    ctx.set_output("Out", [rows, rows if cols < 0 else cols], ctx.attrs["dtype"])


register(
    "eye",
    kernel_module="creation",
    structured=Structured(meta=metas.eye_meta, cpu=cpu_creation.eye_out),
    inputs=[],
    outputs=["Out"],
    infer=_infer_eye,
    attrs={
        "num_rows": Attr(None, lambda v: is_int(v) and v >= 0, "an int >= 0", long=True),
        "num_columns": Attr(-1, lambda v: is_int(v) and v >= -1, "an int >= 0 (-1: num_rows)", long=True),
        "dtype": Attr("float32", dtype_or_none, "a dtype name"),
    },
    doc="Out = the [num_rows, num_columns] identity matrix (ones on the main diagonal).",
)


def _infer_diag(ctx):
    d = ctx.shape("Diagonal")
    if len(d) != 1:
        ctx.fail(f"Diagonal {fmt_shape(d)} must be 1-D")
    ctx.set_output("Out", [d[0], d[0]], ctx.dtype("Diagonal"))


register(
    "diag",
    kernel_module="creation",
    structured=Structured(meta=metas.diag_meta, cpu=cpu_creation.diag_out),
    inputs=["Diagonal"],
    outputs=["Out"],
    infer=_infer_diag,
    lod="drop",
    doc="Out = the square matrix with Diagonal on its main diagonal, zeros elsewhere. No gradient.",
)


def _infer_diag_embed(ctx):
    x, a = ctx.shape("Input"), ctx.attrs
    rank = len(x) + 1
    dims = [d % rank if -rank <= d < rank else None for d in (a["dim1"], a["dim2"])]
    if None in dims or dims[0] == dims[1]:
        ctx.fail(f"dim1={a['dim1']} and dim2={a['dim2']} must name two different dims of the {rank}-D output")
    side = x[-1] + abs(a["offset"]) if x[-1] >= 0 else -1
    rest = iter(x[:-1])
    ctx.set_output("Out", [side if d in dims else next(rest) for d in range(rank)], ctx.dtype("Input"))


register(
    "diag_embed",
    kernel_module="creation",
    structured=Structured(meta=metas.diag_embed_meta, cpu=cpu_creation.diag_embed_out),
    inputs=["Input"],
    outputs=["Out"],
    attrs={"offset": Attr(0, is_int, "an int"), "dim1": Attr(-2, is_int, "an int"), "dim2": Attr(-1, is_int, "an int")},
    infer=_infer_diag_embed,
    lod="drop",
    doc="Out: each last-dim vector of Input on diagonal ``offset`` of the planes (dim1, dim2) of a tensor "
    "with one more dim (those two of size N + |offset|), zeros elsewhere. No gradient (as Fluid 1.8).",
)


def _infer_tril_triu(ctx):
    x = ctx.shape("X")
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} must have at least 2 dims (the triangle is of the last two)")
    ctx.set_output("Out", x, ctx.dtype("X"))


_TRI_ATTRS = {"diagonal": Attr(0, is_int, "an int"), "lower": Attr(True, choices=(False, True))}
register(
    "tril_triu",
    kernel_module="creation",
    structured=Structured(meta=metas.tril_triu_meta, cpu=cpu_creation.TRIL_TRIU),
    inputs=["X"],
    outputs=["Out"],
    attrs=_TRI_ATTRS,
    infer=_infer_tril_triu,
    grad=grad_of("tril_triu_grad", ()),
    lod="drop",
    doc="Out = X where (col - row <= diagonal) if lower, (col - row >= diagonal) if not, in the last two "
    "dims; zeros elsewhere. The gradient passes through the same triangle.",
)
register(
    "tril_triu_grad",
    kernel_module="creation",
    structured=Structured(meta=metas.tril_triu_meta, cpu=cpu_creation.TRIL_TRIU_GRAD),
    inputs=["Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_TRI_ATTRS,
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
)


def infer_fill_like(ctx):
    shape, ref = list(ctx.attrs["shape"]), ctx.shape("Input")
    i, o = ctx.attrs["input_dim_idx"], ctx.attrs["output_dim_idx"]
    if not 0 <= i < len(ref) or not 0 <= o < len(shape):
        ctx.fail(f"input_dim_idx={i} / output_dim_idx={o} do not fit Input {fmt_shape(ref)} and shape {shape}")
    shape[o] = ref[i]
    ctx.set_output("Out", shape, ctx.attrs["dtype"])


register(
    "fill_constant_batch_size_like",
    kernel_module="creation",
    structured=Structured(meta=metas.batch_size_like_meta, cpu=cpu_creation.fill_constant_batch_size_like_out),
    inputs=["Input"],
    outputs=["Out"],
    lod="drop",
    infer=infer_fill_like,
    attrs={
        "shape": Attr(list),
        "value": 0.0,
        "dtype": Attr("float32", dtype_or_none, "a dtype name"),
        "input_dim_idx": 0,
        "output_dim_idx": 0,
        "force_cpu": False,
        "str_value": "",
    },
    doc="Out = value, of `shape` with dimension output_dim_idx taken from Input's input_dim_idx (a "
    "memory's initial state sized by the batch); str_value, when set, gives the value instead, read "
    "as fill_constant reads it.",
)


def _infer_fill_values(ctx):
    shape = ctx.attrs["shape"]
    if len(ctx.attrs["value"]) < known_numel(shape):
        ctx.fail(f"value has {len(ctx.attrs['value'])} numbers for shape {fmt_shape(shape)}")
    ctx.set_output("Out", shape, ctx.attrs["dtype"])


register(
    "fill",
    kernel_module="creation",
    structured=Structured(meta=metas.shaped_meta, cpu=cpu_creation.fill_out),
    inputs=[],
    outputs=["Out"],
    infer=_infer_fill_values,
    attrs={
        "value": Attr(list, lambda v: all(isinstance(e, (int, float)) for e in v), "a list of numbers"),
        "shape": Attr(list, int_list, "a list of ints"),
        "dtype": Attr("float32", dtype_or_none, "a dtype name"),
        "force_cpu": False,
    },
    doc="Out = the numbers of value (row-major, as float32 then cast) in the given shape and dtype.",
)
register(
    "fill_zeros_like2",
    kernel_module="creation",
    structured=Structured(meta=metas.zeros_like2_meta, cpu=cpu_creation.FILL_ZEROS_LIKE2),
    inputs=["X"],
    outputs=["Out"],
    attrs={"dtype": Attr("float32", dtype_or_none, "a dtype name")},
    infer=lambda ctx: ctx.set_output("Out", ctx.shape("X"), ctx.attrs["dtype"], lod_level=ctx.input_var("X").lod_level),
    doc="Out = zeros shaped like X, of the given dtype.",
)


# -- linspace, meshgrid ----------------------------------------------------------------------------


def _infer_linspace(ctx):
    for slot in ("Start", "Stop", "Num"):
        if list(ctx.shape(slot)) not in ([1], [-1]):
            ctx.fail(f"{slot} {fmt_shape(ctx.shape(slot))} must be of shape [1]")
    ctx.set_output("Out", [-1], ctx.attrs.get("dtype") or ctx.dtype("Start"))


register(
    "linspace",
    kernel_module="creation",
    structured=Structured(meta=metas.run_length_meta, cpu=cpu_creation.LINSPACE),
    inputs=["Start", "Stop", "Num"],
    outputs=["Out"],
    run_dtypes={"Num": ("int32", "int64")},
    attrs={"dtype": Attr(None, dtype_or_none, "a dtype name", fill=False)},  # (Paddle 2.x's: its formula)
    infer=_infer_linspace,
    lod="drop",
    doc="Out = Num evenly spaced values from Start to Stop, both included (tensors of shape [1]), in Start's "
    "dtype: on the CPU start, start + step, ... summed one step at a time (Fluid's CPU kernel), on a GPU "
    "start + i * step (Fluid's CUDA kernel), step = (stop - start) / (num - 1). Paddle 2.x's op (with "
    "`dtype`): Out of that dtype, the first half start + i * step, the rest stop - (num - 1 - i) * step. "
    "No gradient.",
)


def _infer_meshgrid(ctx):
    shapes = ctx.shapes("X")
    if any(len(s) > 1 for s in shapes):
        ctx.fail(f"meshgrid takes 1-D tensors (or scalars), got {[fmt_shape(s) for s in shapes]}")
    out = [s[0] if s else 1 for s in shapes]
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output("Out", out, ctx.dtype("X", min(i, len(shapes) - 1)), i=i)


def _grad_meshgrid(g):
    g.op("meshgrid_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


def _infer_meshgrid_grad(ctx):
    for i in range(ctx.num_outputs("X@GRAD")):
        ctx.set_output("X@GRAD", ctx.shape("X", i), ctx.dtype("X", i), i=i)


register(
    "meshgrid",
    kernel_module="creation",
    structured=Structured(meta=metas.meshgrid_meta, cpu=cpu_creation.meshgrid_out),
    inputs=["X*"],
    outputs=["Out*"],
    infer=_infer_meshgrid,
    grad=_grad_meshgrid,
    grad_reads=("X",),
    lod="drop",
    doc="For k 1-D tensors X of sizes n1..nk: k tensors Out [n1, ..., nk], Out[i] varying along dim i with "
    "X[i]'s values. The gradient of X[i] sums Out[i]@GRAD over the other dims.",
)
register(
    "meshgrid_grad",
    kernel_module="creation",
    structured=Structured(meta=metas.meshgrid_grad_meta, cpu=cpu_creation.MESHGRID_GRAD),
    inputs=["X*", "Out@GRAD*"],
    outputs=["X@GRAD*"],
    no_need_buffer=("X",),
    infer=_infer_meshgrid_grad,
)
