"""Reshaping ops: reshape, flatten, squeeze, unsqueeze, transpose, each with Fluid's ``*2`` twin (an
extra XShape output) and grad ops served by one kernel (``reshape_grad``: Out@GRAD reshaped to X).

The shape rules are in pe_cli.shapes (shared with the kernels); the kernels in kernels/<device>/tensor.py.
"""
from ..shapes import is_known, numel, reshape_target, squeeze_shape, unsqueeze_shape
from .registry import Attr, fmt_shape, grads_like, int_list, is_int, register


def _reshape_grad_op(name):
    """Registers ``name``: X@GRAD = Out@GRAD reshaped to X's shape (reshape, flatten, squeeze, ...)."""
    register(name, kernel_module="tensor", kernel="reshape_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
             infer=grads_like({"X@GRAD": "X"}))


def _grad_reshape_like(grad_op):
    def grad(g):
        g.op(grad_op, {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})
    return grad


def _register_with_xshape(name, attrs, infer, doc, inputs=("X",)):
    """Registers ``name`` and Fluid's ``name2`` twin (an extra optional XShape output: the input's
    shape behind a leading 0, holding no data), each with its reshape-style grad op. The twin runs
    ``name``'s kernel."""
    for op_type in (name, name + "2"):
        outputs = ["Out"] if op_type == name else ["Out", "XShape?"]
        register(op_type, kernel_module="tensor", kernel=name, inputs=list(inputs), outputs=outputs, attrs=attrs,
                 infer=infer, grad=_grad_reshape_like(f"{op_type}_grad"), grad_reads=("X",), doc=doc)
        _reshape_grad_op(f"{op_type}_grad")


def _set_reshaped(ctx, out):
    ctx.set_output("Out", out, ctx.dtype("X"))
    ctx.set_output("XShape", [0] + list(ctx.shape("X")), ctx.dtype("X"))


def _check_shape_attr(v):
    return int_list(v) and all(d >= -1 for d in v) and list(v).count(-1) <= 1


def _infer_reshape(ctx):
    x, shape = ctx.shape("X"), list(ctx.attrs["shape"])
    if ctx.has_input("Shape") and not shape:   # the shape comes at run time; only its length is known
        n = ctx.shape("Shape")[0] if ctx.shape("Shape") and ctx.shape("Shape")[0] >= 0 else 0
        if n <= 0:
            ctx.fail(f"reshape of X {fmt_shape(x)} needs a shape attribute when the Shape input's "
                     f"length is unknown")
        _set_reshaped(ctx, [-1] * n)
        return
    if not shape:
        ctx.fail(f"reshape of X {fmt_shape(x)} needs a shape")
    out, error = reshape_target(x, shape)
    if error:
        ctx.fail(f"cannot reshape X {fmt_shape(x)} to shape {shape}: {error}")
    _set_reshaped(ctx, out)


_register_with_xshape(
    "reshape", {"shape": Attr(list, _check_shape_attr, "a list of ints > 0, with 0 (copy X's dim) "
                                                      "and at most one -1 (inferred)")},
    _infer_reshape, inputs=("X", "Shape?"),
    doc="Out = X with a new shape: 0 copies X's dim at that index, one -1 is inferred. The optional "
        "Shape input (int32/int64) gives the shape at run time instead; the attribute, when given, "
        "is then the build-time shape.")


def _infer_flatten(ctx):
    x = ctx.shape("X")
    axis = ctx.attrs["axis"]
    if not 0 <= axis <= len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)} (expected 0 <= axis <= {len(x)})")
    rows, cols = x[:axis], x[axis:]
    _set_reshaped(ctx, [numel(rows) if is_known(rows) else -1, numel(cols) if is_known(cols) else -1])


_register_with_xshape("flatten", {"axis": Attr(1, lambda v: is_int(v) and v >= 0, "an int >= 0")},
                      _infer_flatten,
                      doc="Out = X as a matrix: dims before `axis` make the rows, the rest the columns.")


def _infer_squeeze(ctx):
    x = ctx.shape("X")
    out, error = squeeze_shape(x, ctx.attrs["axes"])
    if error:
        ctx.fail(f"cannot squeeze X {fmt_shape(x)} along axes {list(ctx.attrs['axes'])}: {error}")
    _set_reshaped(ctx, out)


_AXES = Attr(list, int_list, "a list of ints")
_register_with_xshape("squeeze", {"axes": _AXES}, _infer_squeeze,
                      doc="Out = X without the listed dims of size 1 (every size-1 dim when axes is empty).")


def _infer_unsqueeze(ctx):
    x = ctx.shape("X")
    if not ctx.attrs["axes"]:
        ctx.fail("unsqueeze needs a non-empty list of axes")
    out, error = unsqueeze_shape(x, ctx.attrs["axes"])
    if error:
        ctx.fail(f"cannot unsqueeze X {fmt_shape(x)} along axes {list(ctx.attrs['axes'])}: {error}")
    _set_reshaped(ctx, out)


_register_with_xshape("unsqueeze", {"axes": _AXES}, _infer_unsqueeze,
                      doc="Out = X with dims of size 1 inserted at `axes`.")


def _infer_transpose(ctx):
    x, perm = ctx.shape("X"), list(ctx.attrs["axis"])
    if sorted(perm) != list(range(len(x))):
        ctx.fail(f"axis={perm} is not a permutation of the {len(x)} dims of X {fmt_shape(x)}")
    ctx.set_output("Out", [x[p] for p in perm], ctx.dtype("X"))
    ctx.set_output("XShape", [0] + list(x), ctx.dtype("X"))


def _grad_transpose(g):
    perm = list(g.attrs["axis"])
    inverse = [perm.index(i) for i in range(len(perm))]
    g.op("transpose", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, {"axis": inverse})


for _type, _outs in (("transpose", ["Out"]), ("transpose2", ["Out", "XShape?"])):
    register(_type, kernel_module="tensor", kernel="transpose", inputs=["X"], outputs=_outs,
             attrs={"axis": Attr(list, int_list, "a list of ints")},
             infer=_infer_transpose, grad=_grad_transpose,
             doc="Out = X with its dims permuted: Out's dim i is X's dim axis[i].")
