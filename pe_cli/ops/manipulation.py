"""Shape manipulation: reshaping (reshape, flatten, squeeze, unsqueeze, transpose, each with Fluid's
``*2`` twin, an extra XShape output, and grad ops served by one kernel, ``reshape_grad``: Out@GRAD
reshaped to X), joining and splitting (concat, split, stack, unbind), cast, and a tensor's shape and size as
tensors (shape, size); reverse is with its twin flip in rearranging.py.

The shape rules are in pe_cli.shapes.manipulation (shared with the kernels). The joining and splitting ops are
registered in manipulation_joining.py.
"""

from ..base.dtypes import convert_dtype, is_float
from ..base.dims import is_known, numel
from ..kernels.cpu import manipulation as cpu_manipulation
from ..shapes import reshaping
from ..shapes import manipulation as shape_rules
from ..shapes.manipulation import cast_meta, inverse_axis, reshape_target, squeeze_shape, unsqueeze_shape
from .define import LAYOUT_NAME, Attr, Structured, backend_attrs, dtype_or_none, fmt_shape, int_list, is_int, register


_RESHAPED = Structured(meta=reshaping.reshape_grad_meta, cpu=cpu_manipulation.reshaped_out)


def _reshape_grad_op(name, attrs):
    """Registers ``name``: X@GRAD = Out@GRAD reshaped to X's shape (reshape, flatten, squeeze, ...), X's shape
    read from X, or from XShape (Fluid's ``*2_grad`` ops: XShape is X's shape behind a 0): a view of Out@GRAD
    where it is C-contiguous (shapes/reshaping.reshape_grad_meta). Its own gradient (a gradient of a gradient)
    is the same op the other way: ddX reshaped to Out@GRAD's shape."""

    def grad(g):
        if g.needs("Out@GRAD") and g.has_out_grad("X@GRAD"):
            g.op(name, {"X": g.input("Out@GRAD"), "Out@GRAD": g.out_grad("X@GRAD")}, {"X@GRAD": g.in_grad("Out@GRAD")})

    register(
        name,
        kernel_module="manipulation",
        kernel="reshape_grad",
        inputs=["X?", "XShape?", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=attrs,
        infer=_infer_reshape_grad,
        grad=grad,
        structured=_RESHAPED,
    )


def _infer_reshape_grad(ctx):
    like = ctx.input_var("X") if ctx.has_input("X") else ctx.input_var("XShape")
    shape = like.shape if ctx.has_input("X") or like.shape is None else like.shape[1:]
    ctx.set_output("X@GRAD", shape, like.dtype, lod_level=like.lod_level)


def _grad_reshape_like(grad_op):
    """Fluid's grad op of reshape2, flatten2, ... (XShape, Out@GRAD), or of reshape, flatten, ... (X, Out@GRAD);
    where a ``*2`` op writes no XShape (a program pe saved before it wrote them), X instead."""

    def grad(g):
        shape = (
            {"XShape": g.output("XShape")} if grad_op.endswith("2_grad") and g.output("XShape") else {"X": g.input("X")}
        )
        g.op(grad_op, dict(shape, **{"Out@GRAD": g.out_grad("Out")}), {"X@GRAD": g.in_grad("X")}, g.attrs)

    return grad


def _register_with_xshape(name, attrs, infer, meta, doc, inputs=("X",), attr_tensors=None):
    """Registers ``name`` and Fluid's ``name2`` twin (an extra optional XShape output: the input's
    shape behind a leading 0, holding no data), each with its reshape-style grad op. The twin runs
    ``name``'s kernel: its meta rule ``meta`` (shapes/reshaping.py: Out a view of X where X is C-contiguous)."""
    for op_type in (name, name + "2"):
        outputs = ["Out"] if op_type == name else ["Out", "XShape"]
        register(
            op_type,
            kernel_module="manipulation",
            kernel=name,
            inputs=list(inputs),
            outputs=outputs,
            attrs=attrs,
            infer=infer,
            grad=_grad_reshape_like(f"{op_type}_grad"),
            doc=doc,
            attr_tensors=attr_tensors,
            grad_reads=("X",) if op_type == name else ("X", "XShape"),
            structured=Structured(meta=meta, cpu=cpu_manipulation.reshaped_out),
        )
        _reshape_grad_op(f"{op_type}_grad", attrs)


def _set_reshaped(ctx, out):
    ctx.set_output("Out", out, ctx.dtype("X"))
    ctx.set_output("XShape", [0] + list(ctx.shape("X")), ctx.dtype("X"))


def _check_shape_attr(v):
    return int_list(v) and all(d >= -1 for d in v)


def _infer_reshape(ctx):
    x, shape = ctx.shape("X"), list(ctx.attrs["shape"])
    if ctx.has_input("Shape") and not shape:  # the shape comes at run time; only its length is known
        n = ctx.shape("Shape")[0] if ctx.shape("Shape") and ctx.shape("Shape")[0] >= 0 else 0
        if n <= 0:
            ctx.fail(f"reshape of X {fmt_shape(x)} needs a shape attribute when the Shape input's length is unknown")
        _set_reshaped(ctx, [-1] * n)
        return
    if not shape and is_known(x) and numel(x) != 1:  # [] is Paddle 2.x's 0-D, of one element
        ctx.fail(f"cannot reshape X {fmt_shape(x)} to shape [] (0-D): it has {numel(x)} elements, not 1")
    if ctx.has_input("ShapeTensor"):  # one [1] tensor per dim: -1 where the dim comes at run time
        if ctx.num_inputs("ShapeTensor") != len(shape):
            ctx.fail(f"ShapeTensor holds {ctx.num_inputs('ShapeTensor')} dims, the shape attribute {shape}")
        _set_reshaped(ctx, [x[i] if d == 0 and i < len(x) else d for i, d in enumerate(shape)])
        return
    if shape.count(-1) > 1:
        ctx.fail(f"shape {shape} may hold one -1 (inferred) only")
    out, error = reshape_target(x, shape)
    if error:
        ctx.fail(f"cannot reshape X {fmt_shape(x)} to shape {shape}: {error}")
    _set_reshaped(ctx, out)


_register_with_xshape(
    "reshape",
    {
        "shape": Attr(
            list, _check_shape_attr, "a list of ints > 0, with 0 (copy X's dim) and at most one -1 (inferred)"
        ),
        **backend_attrs("use_quantizer"),
    },  # Fluid's oneDNN kernel's: ignored
    _infer_reshape,
    reshaping.reshape_meta,
    inputs=("X", "Shape?", "ShapeTensor*?"),
    attr_tensors={"Shape": "shape", "ShapeTensor": "shape"},
    doc="Out = X with a new shape: 0 copies X's dim at that index, one -1 is inferred. The optional "
    "Shape input (int32/int64) gives the shape at run time instead; the attribute, when given, "
    "is then the build-time shape; or ShapeTensor, one int32 [1] tensor per dim (Fluid's shape list "
    "holding Variables).",
)


def _infer_flatten(ctx):
    x = ctx.shape("X")
    axis = ctx.attrs["axis"]
    if not 0 <= axis <= len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)} (expected 0 <= axis <= {len(x)})")
    if not x:  # (a 0-D X: [1], Paddle 2.6's Flatten2Op::GetOutputShape)
        return _set_reshaped(ctx, [1])
    rows, cols = x[:axis], x[axis:]
    _set_reshaped(ctx, [numel(rows) if is_known(rows) else -1, numel(cols) if is_known(cols) else -1])


_register_with_xshape(
    "flatten",
    {"axis": Attr(1, lambda v: is_int(v) and v >= 0, "an int >= 0")},
    _infer_flatten,
    reshaping.flatten_meta,
    doc="Out = X as a matrix: dims before `axis` make the rows, the rest the columns (a 0-D X: [1], as Paddle 2.6).",
)


def _infer_squeeze(ctx):
    x = ctx.shape("X")
    out, error = squeeze_shape(x, ctx.attrs["axes"])
    if error:
        ctx.fail(f"cannot squeeze X {fmt_shape(x)} along axes {list(ctx.attrs['axes'])}: {error}")
    _set_reshaped(ctx, out)


_AXES = Attr(list, int_list, "a list of ints")
_register_with_xshape(
    "squeeze",
    {"axes": _AXES},
    _infer_squeeze,
    reshaping.squeeze_meta,
    doc="Out = X without the listed dims of size 1 (every size-1 dim when axes is empty).",
)


def _infer_unsqueeze(ctx):
    x = ctx.shape("X")
    given = ctx.num_inputs("AxesTensorList") if ctx.has_input("AxesTensorList") else 0
    if ctx.has_input("AxesTensor"):
        given = ctx.shape("AxesTensor")[0] if len(ctx.shape("AxesTensor")) == 1 else -1
    if given:  # the axes come at run time: Out has len(X) + their number of dims, each unknown
        if given < 0:
            ctx.fail(f"AxesTensor {fmt_shape(ctx.shape('AxesTensor'))} must be 1-D of a known length")
        _set_reshaped(ctx, [-1] * (len(x) + given))
        return
    out, error = unsqueeze_shape(x, ctx.attrs["axes"])
    if error:
        ctx.fail(f"cannot unsqueeze X {fmt_shape(x)} along axes {list(ctx.attrs['axes'])}: {error}")
    _set_reshaped(ctx, out)


_register_with_xshape(
    "unsqueeze",
    {"axes": _AXES},
    _infer_unsqueeze,
    reshaping.unsqueeze_meta,
    inputs=("X", "AxesTensor?", "AxesTensorList*?"),
    attr_tensors={"AxesTensor": "axes", "AxesTensorList": "axes"},
    doc="Out = X with dims of size 1 inserted at `axes` (or at the axes AxesTensor, an int "
    "tensor, or AxesTensorList, one int [1] tensor per axis, gives at run time).",
)


def _infer_transpose(ctx):
    """A negative axis counts from the end (Paddle 2.6's; Fluid 1.8 refused one)."""
    x, perm = ctx.shape("X"), list(ctx.attrs["axis"])
    perm = [p + len(x) if -len(x) <= p < 0 else p for p in perm]
    if sorted(perm) != list(range(len(x))):
        ctx.fail(f"axis={perm} is not a permutation of the {len(x)} dims of X {fmt_shape(x)}")
    ctx.set_output("Out", [x[p] for p in perm], ctx.dtype("X"))
    ctx.set_output("XShape", [0] + list(x), ctx.dtype("X"))


def _grad_transpose(g):
    """Fluid's transpose_grad (X, Out, Out@GRAD) and transpose2_grad (XShape, Out@GRAD): X@GRAD = Out@GRAD
    permuted back; a transpose2 without XShape (pe's earlier saves) gives none."""
    ins = (
        {"X": g.input("X"), "Out": g.output("Out")}
        if g.fwd.type == "transpose"
        else ({"XShape": g.output("XShape")} if g.output("XShape") else {})
    )
    g.op(f"{g.fwd.type}_grad", dict(ins, **{"Out@GRAD": g.out_grad("Out")}), {"X@GRAD": g.in_grad("X")}, g.attrs)


def _grad_transpose_grad(g):
    """ddOut = ddX permuted as the forward op permutes X."""
    if g.needs("Out@GRAD") and g.has_out_grad("X@GRAD"):
        g.op("transpose", {"X": g.out_grad("X@GRAD")}, {"Out": g.in_grad("Out@GRAD")}, {"axis": list(g.attrs["axis"])})


def _infer_transpose_grad(ctx):
    d_out = ctx.input_var("Out@GRAD")
    shape = None if d_out.shape is None else [d_out.shape[i] for i in inverse_axis(ctx.attrs["axis"])]
    ctx.set_output("X@GRAD", shape, d_out.dtype)


_TRANSPOSE_ATTRS = {
    "axis": Attr(list, int_list, "a list of ints"),
    "data_format": LAYOUT_NAME,
    **backend_attrs("use_quantizer", "use_mkldnn"),
}
for _type, _outs, _grad_ins in (("transpose", ["Out"], ["X?", "Out?"]), ("transpose2", ["Out", "XShape"], ["XShape?"])):
    register(
        _type,
        kernel_module="manipulation",
        kernel="transpose",
        inputs=["X"],
        outputs=_outs,
        attrs=_TRANSPOSE_ATTRS,
        infer=_infer_transpose,
        grad=_grad_transpose,
        grad_reads=("Out", "X") if _type == "transpose" else ("XShape",),
        structured=Structured(meta=reshaping.transpose_meta, cpu=cpu_manipulation.transpose_out),
        doc="Out = X with its dims permuted: Out's dim i is X's dim axis[i]. data_format and use_quantizer "
        "steer Fluid's oneDNN kernel only; as its plain CPU kernel, pe's ignores them.",
    )
    register(
        _type + "_grad",
        kernel_module="manipulation",
        kernel="transpose_grad",
        inputs=_grad_ins + ["Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=_TRANSPOSE_ATTRS,
        infer=_infer_transpose_grad,
        grad=_grad_transpose_grad,
        no_need_buffer=tuple(s.rstrip("?") for s in _grad_ins),
        structured=Structured(meta=reshaping.transpose_grad_meta, cpu=cpu_manipulation.transpose_out),
        doc="X@GRAD = Out@GRAD with the dims permuted back (Fluid's transpose_grad / transpose2_grad).",
    )


INT = Attr(0, is_int, "an int")


def axis_in(ctx, axis, rank, what="axis"):
    """``axis`` normalised to [0, rank) (a 0-D X counts as rank 1); fails naming X's shape when outside
    [-rank, rank)."""
    rank = max(rank, 1)
    if not -rank <= axis < rank:
        ctx.fail(
            f"{what}={axis} is out of range for X {fmt_shape(ctx.shape('X'))} (expected {-rank} <= {what} < {rank})"
        )
    return axis % rank


# -- cast ---------------------------------------------------------------------------------------


def _infer_cast(ctx):
    out, given_in = ctx.attrs["out_dtype"], ctx.attrs["in_dtype"]
    if out is None:
        ctx.fail("cast needs out_dtype")
    if given_in is not None and convert_dtype(given_in) != ctx.dtype("X"):
        ctx.fail(f"in_dtype={convert_dtype(given_in)} but X is {ctx.dtype('X')}")
    ctx.set_output("Out", ctx.shape("X"), convert_dtype(out), lod_level=ctx.input_var("X").lod_level)


def _grad_cast(g):
    x_dtype = g.fwd.block.var(g.input("X")[0]).dtype
    if not is_float(x_dtype):
        return
    out_dtype = g.fwd.block.var(g.output("Out")[0]).dtype
    g.op("cast", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, {"in_dtype": out_dtype, "out_dtype": x_dtype})


_DTYPE = Attr(None, dtype_or_none, "a dtype name such as 'float32', 'float64', 'int32', 'int64', 'bool'")
register(
    "cast",
    kernel_module="manipulation",
    inputs=["X"],
    outputs=["Out"],
    attrs={"in_dtype": _DTYPE, "out_dtype": _DTYPE},
    infer=_infer_cast,
    grad=_grad_cast,
    structured=Structured(meta=cast_meta, cpu=cpu_manipulation.cast_out),
    doc="Out = X converted to out_dtype (floats to ints truncate toward 0). The gradient is cast back.",
)


# -- size, shape ---------------------------------------------------------------------------------


def _infer_size(ctx):
    ctx.set_output("Out", ctx.scalar_shape(), "int64")


register(
    "size",
    kernel_module="manipulation",
    structured=Structured(meta=shape_rules.size_meta, cpu=cpu_manipulation.size_out),
    inputs=["Input"],
    outputs=["Out"],
    infer=_infer_size,
    lod="drop",
    traits=("result_0d_in_paddle2",),
    doc="Out = the number of elements of Input, int64 [1] (0-D in a Paddle 2.x program).",
)


def _infer_shape(ctx):
    ctx.set_output("Out", [len(ctx.shape("Input"))], "int32")


register(
    "shape",
    kernel_module="manipulation",
    structured=Structured(meta=shape_rules.shape_meta, cpu=cpu_manipulation.shape_out),
    inputs=["Input"],
    outputs=["Out"],
    infer=_infer_shape,
    lod="drop",
    traits=("selected_rows",),
    doc="Out = the dims of Input at run time, an int32 tensor [rank] (of a SelectedRows: its value's, [rows, ...]). "
    "No gradient.",
)
