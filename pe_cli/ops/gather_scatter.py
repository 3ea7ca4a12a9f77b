"""Gathers and scatters by index tensors, the ops Paddle 1.8 added beside indexing's gather and scatter
(kernels in kernels/<device>/gather_scatter.py): index_select (the slices of X along a dim that a 1-D
Index names), index_sample (per row of X, the elements its row of Index names), multiplex (row i of the
candidate X[Ids[i]]), scatter_nd_add (Updates added into X at the elements or slices of Index's rows);
one_hot and one_hot_v2 (ids as rows of 0s and a 1; CUDA's kernels in kernels/cuda/indexing.py); and
shard_index, the index arithmetic of sharded tables (ids into one shard's local ids)."""

from ..kernels.cpu import gathering as cpu_gathering
from ..shapes import gather as meta_rules
from ..kernels.cpu import gather_scatter as cpu_gather_scatter
from ..shapes import indexing_axis as axis_rules
from .define import Attr, Structured, dtype_or_none, fmt_shape, grad_of, grads_like, is_int, register
from .manipulation import axis_in

_INDEX_TYPES = ("int32", "int64")


# -- index_select -------------------------------------------------------------------------------


def _infer_index_select(ctx):
    x, index = list(ctx.shape("X")), ctx.shape("Index")
    dim = axis_in(ctx, ctx.attrs["dim"], len(x), "dim")
    if not (len(index) == 1 or (len(index) == 2 and index[1] in (1, -1))):
        ctx.fail(f"Index {fmt_shape(index)} must be 1-D (or [N, 1])")
    x[dim] = index[0]
    ctx.set_output("Out", x, ctx.dtype("X"))


_DIM = {"dim": Attr(0, is_int, "an int")}
register(
    "index_select",
    kernel_module="gather_scatter",
    inputs=["X", "Index"],
    outputs=["Out"],
    attrs=_DIM,
    run_dtypes={"Index": ("int32", "int64")},
    infer=_infer_index_select,
    grad=grad_of("index_select_grad", ("X", "Index")),
    grad_reads=("X", "Index"),
    structured=Structured(meta=meta_rules.index_select_meta, cpu=cpu_gathering.INDEX_SELECT),
    doc="Out = the slices of X along dim at Index (1-D, ids in [0, X.shape[dim]); repeats allowed).",
)
register(
    "index_select_grad",
    kernel_module="gather_scatter",
    inputs=["X", "Index", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_DIM,
    no_need_buffer=("X",),
    structured=Structured(meta=meta_rules.index_select_grad_meta, cpu=cpu_gathering.INDEX_SELECT_GRAD),
    infer=grads_like({"X@GRAD": "X"}),
)


# -- index_sample -------------------------------------------------------------------------------


def _infer_index_sample(ctx):
    x, index = ctx.shape("X"), ctx.shape("Index")
    if len(x) != 2 or len(index) != 2:
        ctx.fail(f"X {fmt_shape(x)} and Index {fmt_shape(index)} must be 2-D")
    if ctx.is_runtime and x[0] != index[0]:  # (Fluid compares them when it runs)
        ctx.fail(f"X {fmt_shape(x)} and Index {fmt_shape(index)} must have as many rows")
    ctx.set_output("Out", index, ctx.dtype("X"))


register(
    "index_sample",
    kernel_module="gather_scatter",
    structured=Structured(meta=axis_rules.index_sample_meta, cpu=cpu_gather_scatter.INDEX_SAMPLE),
    inputs=["X", "Index"],
    outputs=["Out"],
    run_dtypes={"Index": ("int32", "int64")},
    run_infer=True,
    infer=_infer_index_sample,
    grad=grad_of("index_sample_grad", ("X", "Index")),
    grad_reads=("X", "Index"),
    doc="Out[i, j] = X[i, Index[i, j]] for X [N, D] and Index [N, K].",
)
register(
    "index_sample_grad",
    kernel_module="gather_scatter",
    structured=Structured(meta=axis_rules.index_sample_grad_meta, cpu=cpu_gather_scatter.INDEX_SAMPLE_GRAD),
    inputs=["X", "Index", "Out@GRAD"],
    outputs=["X@GRAD"],
    no_need_buffer=("X",),
    infer=grads_like({"X@GRAD": "X"}),
)


# -- multiplex ----------------------------------------------------------------------------------


def _infer_multiplex(ctx):
    ids, shapes = ctx.shape("Ids"), ctx.shapes("X")
    if len(ids) != 2 or ids[1] not in (1, -1):
        ctx.fail(f"Ids {fmt_shape(ids)} must be [batch_size, 1]")
    if len(shapes) < 2:
        ctx.fail(f"multiplex takes at least 2 candidate tensors X, got {len(shapes)}")
    if len(shapes[0]) < 2 or any(
        len(s) != len(shapes[0]) or any(a >= 0 and b >= 0 and a != b for a, b in zip(s, shapes[0])) for s in shapes
    ):
        ctx.fail(f"the candidates X {[fmt_shape(s) for s in shapes]} must be of one shape, of at least 2 dims")
    ctx.set_output("Out", shapes[0], ctx.dtype("X"))


def _grad_multiplex(g):
    g.op("multiplex_grad", {"Ids": g.input("Ids"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


def _infer_multiplex_grad(ctx):
    for i in range(ctx.num_outputs("X@GRAD")):
        ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD"), i=i)


register(
    "multiplex",
    kernel_module="gather_scatter",
    structured=Structured(meta=axis_rules.multiplex_meta, cpu=cpu_gather_scatter.MULTIPLEX),
    inputs=["Ids", "X*"],
    outputs=["Out"],
    run_dtypes={"Ids": ("int32", "int64")},
    infer=_infer_multiplex,
    grad=_grad_multiplex,
    grad_reads=("Ids",),
    doc="Out[i] = X[Ids[i]][i]: row i from the candidate Ids[i] names (every candidate of one shape).",
)
register(
    "multiplex_grad",
    kernel_module="gather_scatter",
    structured=Structured(meta=axis_rules.multiplex_grad_meta, cpu=cpu_gather_scatter.MULTIPLEX_GRAD),
    inputs=["Ids", "Out@GRAD"],
    outputs=["X@GRAD*"],
    infer=_infer_multiplex_grad,
    traits=("output_counts",),
)


# -- scatter_nd_add -----------------------------------------------------------------------------


def _infer_scatter_nd_add(ctx):
    x, index, updates = ctx.shape("X"), ctx.shape("Index"), ctx.shape("Updates")
    if len(index) < 2 or index[-1] > len(x):
        ctx.fail(
            f"Index {fmt_shape(index)} must have at least 2 dims, its last at most X {fmt_shape(x)}'s rank "
            f"(Fluid: Input(Index).shape[-1] should be no greater than Input(X).rank)"
        )
    want = list(index[:-1]) + list(x[index[-1] :]) if index[-1] >= 0 else None
    if want is not None and (
        len(want) != len(updates) or any(a >= 0 and b >= 0 and a != b for a, b in zip(want, updates))
    ):
        ctx.fail(
            f"Updates has wrong shape: Updates {fmt_shape(updates)} must be {fmt_shape(want)} (Index's dims "
            f"but its last, then X's dims from Index.shape[-1])"
        )
    if ctx.dtype("X") != ctx.dtype("Updates"):
        ctx.fail(f"X is {ctx.dtype('X')} but Updates is {ctx.dtype('Updates')}: they must have the same type")
    ctx.set_output("Out", x, ctx.dtype("X"))


register(
    "scatter_nd_add",
    kernel_module="gather_scatter",
    inputs=["X", "Index", "Updates"],
    outputs=["Out"],
    run_dtypes={"Index": ("int32", "int64")},
    infer=_infer_scatter_nd_add,
    grad=grad_of("scatter_nd_add_grad", ("Index", "Updates"), in_grads=("X", "Updates")),
    grad_reads=("Index", "Updates"),
    structured=Structured(meta=meta_rules.scatter_nd_add_meta, cpu=cpu_gathering.SCATTER_ND_ADD),
    doc="Out = X with each Updates[i...] added at X[Index[i..., :]] (an element, or a slice when Index's "
    "last dim is shorter than X's rank); repeated indices add up.",
)
register(
    "scatter_nd_add_grad",
    kernel_module="gather_scatter",
    inputs=["Index", "Updates", "Out@GRAD"],
    outputs=["X@GRAD?", "Updates@GRAD?"],
    structured=Structured(meta=meta_rules.scatter_nd_add_grad_meta, cpu=cpu_gathering.SCATTER_ND_ADD_GRAD),
    no_need_buffer=("Updates",),
    infer=lambda ctx: [
        ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
        ctx.set_output("Updates@GRAD", ctx.shape("Updates"), ctx.dtype("Updates")),
    ],
)


# -- one_hot (CUDA's kernels in kernels/cuda/indexing.py; the CPU's out-kernels in kernels/cpu/gathering.py) ---


def _infer_one_hot(ctx, v2=False):
    """one_hot: [N, 1] ids -> [N, depth]; one_hot_v2 (v2): ids of any shape S -> S + [depth]."""
    x, depth = ctx.shape("X"), ctx.attrs["depth"]
    if ctx.has_input("depth_tensor"):  # Fluid 1.8's: the depth comes at run time
        depth = -1
    elif depth is None or depth <= 0:
        ctx.fail(f"one_hot needs depth (the number of classes, > 0) or a depth_tensor, got depth={depth}")
    if not v2 and (len(x) < 2 or x[-1] == 0 or x[-1] < -1):  # Fluid's check at build time (1: when run)
        ctx.fail(f"X {fmt_shape(x)} must end in a dim of size 1 (ids shaped [N, 1])")
    ctx.set_output(
        "Out", list(x if v2 else x[:-1]) + [depth], ctx.attrs["dtype"], lod_level=ctx.input_var("X").lod_level
    )


_ONE_HOT_ATTRS = {
    "depth": Attr(-1, is_int, "an int (> 0 without depth_tensor)"),
    "allow_out_of_range": Attr(False, choices=(False, True)),
    "dtype": Attr("float32", dtype_or_none, "a dtype name"),
}
register(
    "one_hot",
    kernel_module="indexing",
    inputs=["X", "depth_tensor?"],
    outputs=["Out"],
    attrs=_ONE_HOT_ATTRS,
    run_dtypes={"X": ("int64", "int32")},
    infer=_infer_one_hot,
    attr_tensors={"depth_tensor": "depth"},
    structured=Structured(meta=meta_rules.one_hot_meta, cpu=cpu_gathering.ONE_HOT),
    doc="Out[..., j] = 1 where X[..., 0] == j, else 0: [N, 1] ids -> [N, depth]. Ids outside "
    "[0, depth) are an error, or all-zero rows with allow_out_of_range. No gradient. Fluid "
    "1.8's depth_tensor (one int) gives the depth at run time.",
)
register(
    "one_hot_v2",
    kernel_module="indexing",
    inputs=["X", "depth_tensor?"],
    outputs=["Out"],
    attrs=_ONE_HOT_ATTRS,
    run_dtypes={"X": ("int64", "int32")},
    infer=lambda ctx: _infer_one_hot(ctx, v2=True),
    attr_tensors={"depth_tensor": "depth"},
    structured=Structured(meta=meta_rules.one_hot_v2_meta, cpu=cpu_gathering.ONE_HOT),
    doc="fluid.one_hot's op: Out[..., j] = 1 where X[...] == j, else 0: ids of any shape S -> S + "
    "[depth] (no trailing 1 taken off). Ids outside [0, depth) are an error, or all-zero rows "
    "with allow_out_of_range; depth_tensor (one int), when given, is the depth. No gradient.",
)


# -- shard_index --------------------------------------------------------------------------------


def _infer_shard_index(ctx):
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register(
    "shard_index",
    kernel_module="gather_scatter",
    structured=Structured(meta=axis_rules.shard_index_meta, cpu=cpu_gather_scatter.SHARD_INDEX),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_shard_index,
    run_dtypes={"X": ("int32", "int64")},
    attrs={
        "index_num": Attr(None, is_int, "an int"),
        "nshards": Attr(None, is_int, "an int"),
        "shard_id": Attr(None, is_int, "an int"),
        "ignore_value": Attr(-1, is_int, "an int"),
    },
    doc="Out = X % shard_size where X // shard_size == shard_id, else ignore_value (shard_size = "
    "ceil(index_num / nshards)); X's ids in [0, index_num). No gradient.",
)
