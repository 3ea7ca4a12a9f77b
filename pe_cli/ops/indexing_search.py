"""Searching and sorting of the indexing family: selecting by a condition (where, where_index), the
largest values and their places (top_k, arg_max, arg_min), sorting (argsort) and distinct values
(unique, unique_with_counts). Their kernels are the family's (pe_cli/kernels/<device>/indexing.py)."""

from ..base.dtypes import convert_dtype
from math import prod

from ..kernels.cpu import indexing as cpu_indexing
from ..shapes import indexing as meta_rules
from ..shapes.indexing import flat_arg_shape
from .define import Attr, Structured, dtype_or_none, fmt_shape, grads_like, is_int, register
from .elementwise import broadcast_shape
from .indexing import INDEX_DTYPES
from .manipulation import axis_in


def _infer_where(ctx):
    c, x, y = ctx.shape("Condition"), ctx.shape("X"), ctx.shape("Y")
    if ctx.dtype("Condition") != "bool":
        ctx.fail(f"Condition is {ctx.dtype('Condition')}; it must be bool (compare, or cast to bool)")
    out = broadcast_shape(c, x, -1)
    out = broadcast_shape(out, y, -1) if out is not None else None
    if out is None:
        ctx.fail(f"Condition {fmt_shape(c)}, X {fmt_shape(x)} and Y {fmt_shape(y)} cannot broadcast to one shape")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_where(g):
    g.op(
        "where_grad",
        {s: g.input(s) for s in ("Condition", "X", "Y")} | {"Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")},
    )


def _infer_where_grad(ctx):  # (a program saved before where_grad read X and Y: Out@GRAD's shape)
    for slot in (s for s in ("X", "Y") if ctx.num_outputs(s + "@GRAD")):
        ctx.set_output(slot + "@GRAD", ctx.shape(slot if ctx.num_inputs(slot) else "Out@GRAD"), ctx.dtype("Out@GRAD"))


register(
    "where",
    kernel_module="indexing",
    structured=Structured(meta=meta_rules.where_meta, cpu=cpu_indexing.WHERE),
    inputs=["Condition", "X", "Y"],
    outputs=["Out"],
    infer=_infer_where,
    grad=_grad_where,
    grad_reads=("Condition", "X", "Y"),
    lod="drop",
    doc="Out = X where Condition (bool), else Y; the three broadcast by numpy's rules (Paddle's op takes one "
    "shape). The gradient goes to X where Condition and to Y elsewhere, summed to each one's shape.",
)
register(
    "where_grad",
    kernel_module="indexing",
    structured=Structured(meta=meta_rules.where_grad_meta, cpu=cpu_indexing.WHERE_GRAD),
    inputs=["Condition", "X?", "Y?", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    no_need_buffer=("X", "Y"),
    infer=_infer_where_grad,
)


def _infer_where_index(ctx):
    ctx.set_output("Out", [-1, len(ctx.shape("Condition"))], "int64")


register(
    "where_index",
    kernel_module="indexing",
    structured=Structured(meta=meta_rules.where_index_meta, cpu=cpu_indexing.where_index_out),
    inputs=["Condition"],
    outputs=["Out"],
    infer=_infer_where_index,
    lod="drop",
    doc="Out = the int64 coordinates [N, rank] of Condition's true (nonzero) elements, row-major. No gradient.",
)


def _infer_top_k(ctx):
    x = ctx.shape("X")
    k = -1 if ctx.has_input("K") else ctx.attrs["k"]  # Fluid 1.8's K: the k comes at run time
    if x is None or len(x) < 1:
        ctx.fail(f"X {fmt_shape(x)} needs at least one dim to take the top {k} of")
    # (k larger than X's last dim: Fluid's check, and the kernels', when it runs)
    out = list(x[:-1]) + [k]
    ctx.set_output("Out", out, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Indices", out, "int64", lod_level=ctx.input_var("X").lod_level)


def _grad_top_k(g):
    g.op(
        "top_k_grad",
        {"X": g.input("X"), "Indices": g.output("Indices"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
    )


register(
    "top_k",
    kernel_module="indexing",
    inputs=["X", "K?"],
    outputs=["Out", "Indices"],
    attrs={"k": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1")},
    infer=_infer_top_k,
    grad=_grad_top_k,
    grad_reads=("X", "Indices"),
    attr_tensors={"K": "k"},
    structured=Structured(meta=meta_rules.top_k_meta, cpu=cpu_indexing.TOP_K),
    doc="The k largest values along the last dim (Out, in descending order) and their int64 "
    "Indices; equal values keep their order; a one-value int K, when given, is k. The gradient "
    "puts Out@GRAD at Indices, 0 elsewhere.",
)
register(
    "top_k_grad",
    kernel_module="indexing",
    inputs=["X", "Indices", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.top_k_grad_meta, cpu=cpu_indexing.TOP_K_GRAD),
)


def _infer_arg(ctx):
    x = ctx.shape("X")
    a = ctx.attrs
    dtype = (
        "int64" if is_int(a["dtype"]) and a["dtype"] < 0 else convert_dtype(a["dtype"])
    )  # Fluid's VarType; < 0: int64
    if a["flatten"]:  # (Paddle 2.6's: 0-D, or 1s in X's rank with keepdims; Fluid's and 2.0-2.4's: [1])
        ctx.set_output("Out", flat_arg_shape(x, a["keepdims"], ctx.op.zero_dim), dtype)
        return
    axis, rank = a["axis"], max(len(x), 1)  # (a 0-D X takes axis 0 or -1: Paddle 2.6's; keepdims gives [1])
    if not -rank <= axis < rank:
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    if not x:
        ctx.set_output("Out", [1] if a["keepdims"] else [], dtype)
        return
    axis %= len(x)
    if a["keepdims"]:
        out = [1 if i == axis else d for i, d in enumerate(x)]
    else:
        out = [d for i, d in enumerate(x) if i != axis]  # [] for a 1-D X: 0-D, as Fluid 1.8.5's InferShape
    ctx.set_output("Out", out, dtype)


for _name, _doc in (("arg_max", "largest"), ("arg_min", "smallest")):
    register(
        _name,
        kernel_module="indexing",
        inputs=["X"],
        outputs=["Out"],
        attrs={
            "axis": Attr(0, lambda v: isinstance(v, int), "an int", long=True),
            "keepdims": False,
            "flatten": False,
            "dtype": Attr(-1, lambda v: (is_int(v) and v < 0) or dtype_or_none(v), "-1 (int64) or a dtype"),
        },
        infer=_infer_arg,
        traits=("result_0d_in_paddle2",),
        structured=Structured(meta=meta_rules.arg_meta, cpu=getattr(cpu_indexing, _name.upper())),
        doc=f"Out = the index of the {_doc} value along `axis` (the first one on ties), of dtype (-1: int64).",
    )


# -- argsort, unique ---------------------------------------------------------------------------------


def _infer_argsort(ctx):
    x, axis = ctx.shape("X"), ctx.attrs["axis"]
    if not -max(len(x), 1) <= axis < max(len(x), 1):  # (a 0-D X: 0 or -1, Paddle 2.6's)
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"))
    ctx.set_output("Indices", x, "int64")


def _grad_argsort(g):
    g.op(
        "argsort_grad",
        {"X": g.input("X"), "Indices": g.output("Indices"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_SORT_ATTRS = {"axis": Attr(-1, is_int, "an int"), "descending": Attr(False, choices=(False, True))}
register(
    "argsort",
    kernel_module="indexing",
    structured=Structured(meta=meta_rules.argsort_meta, cpu=cpu_indexing.ARGSORT),
    inputs=["X"],
    outputs=["Out", "Indices"],
    attrs=_SORT_ATTRS,
    infer=_infer_argsort,
    grad=_grad_argsort,
    grad_reads=("Indices", "X"),
    lod="drop",
    doc="Out = X sorted along `axis` (ascending, or descending: NaN last, first), Indices = where each came from "
    "(int64; equal values in the order Paddle's CPU kernel's std::sort leaves them: their own order up to 16 "
    "values, libstdc++'s introsort's beyond). The gradient goes back to the sorted elements.",
)
register(
    "argsort_grad",
    kernel_module="indexing",
    structured=Structured(meta=meta_rules.argsort_grad_meta, cpu=cpu_indexing.ARGSORT_GRAD),
    inputs=["X", "Indices", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_SORT_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
)


def _infer_unique(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if a["dtype"] not in INDEX_DTYPES:
        ctx.fail(f"dtype={a['dtype']} must be int32 or int64")
    if a.get("is_sorted"):  # Paddle 2.x's (paddle.unique): sorted, over X flattened or its slices along axis
        _infer_sorted_unique(ctx, x, a)
        return
    if len(x) != 1:
        ctx.fail(f"X {fmt_shape(x)} must be 1-D")
    ctx.set_output("Out", [-1], ctx.dtype("X"))
    ctx.set_output("Index", x, a["dtype"])
    ctx.set_output("Count", [-1], a["dtype"])


def _infer_sorted_unique(ctx, x, a):
    if len(a["axis"]) > 1:
        ctx.fail(f"axis={a['axis']} names more than one dim (Paddle's unique takes one)")
    if a["axis"]:
        axis = axis_in(ctx, a["axis"][0], len(x))
        ctx.set_output("Out", [-1 if i == axis else n for i, n in enumerate(x)], ctx.dtype("X"))
        ctx.set_output("Index", [x[axis]], a["dtype"])
    else:
        ctx.set_output("Out", [-1], ctx.dtype("X"))
        ctx.set_output("Index", [-1 if -1 in x else prod(x)], a["dtype"])
    ctx.set_output("Indices", [-1], a["dtype"])
    ctx.set_output("Counts", [-1], a["dtype"])


_BOOL = (False, True)
_UNIQUE_ATTRS = {"dtype": Attr("int32", dtype_or_none, "int32 or int64")}
# Paddle 2.x's (what paddle.unique appends): the outputs it asks for are written whatever these say
_SORTED_UNIQUE_ATTRS = {
    "is_sorted": Attr(False, choices=_BOOL, fill=False),
    "axis": Attr([], lambda v: all(is_int(e) for e in v), "a list of one int (or empty)", fill=False),
    **{k: Attr(False, choices=_BOOL, fill=False) for k in ("return_index", "return_inverse", "return_counts")},
}
register(
    "unique",
    kernel_module="indexing",
    structured=Structured(meta=meta_rules.unique_meta, cpu=cpu_indexing.UNIQUE),
    inputs=["X"],
    outputs=["Out", "Index", "Indices?", "Counts?"],
    attrs={**_UNIQUE_ATTRS, **_SORTED_UNIQUE_ATTRS},
    infer=_infer_unique,
    lod="drop",
    doc="Out = X's distinct values in the order they first appear; Index[i] = the position of X[i] in "
    "Out (of `dtype`). Paddle 2.x's form (is_sorted): Out = the distinct values of X flattened (with `axis`: "
    "its distinct slices along that dim, in lexicographic order) ascending, Indices = where each first occurs, "
    "Index = each element's (slice's) place in Out, Counts = how often each occurs. No gradient.",
)
register(
    "unique_with_counts",
    kernel_module="indexing",
    structured=Structured(meta=meta_rules.unique_meta, cpu=cpu_indexing.UNIQUE),
    kernel="unique",
    inputs=["X"],
    outputs=["Out", "Index", "Count"],
    attrs=_UNIQUE_ATTRS,
    infer=_infer_unique,
    lod="drop",
    doc="unique, and Count[j] = how many times Out[j] occurs in X. No gradient.",
)
