"""Creating, combining and converting tensors: fill, random, sum, assign, concat, split, stack, cast.

Reshaping ops are in shape_ops.py, indexing ops (slice, gather, one_hot, expand) in indexing.py; all
three share the kernel module ``tensor`` (pe_cli/kernels/<device>/tensor.py).
"""
from ..dtypes import VarType, convert_dtype, is_float
from ..shapes import split_sizes
from .define import Attr, dtype_or_none, fmt_shape, grads_like, int_list, is_int, one_shape_blocked, register, same_as

_INT = Attr(0, is_int, "an int")


def _infer_fill(ctx):
    ctx.set_output("Out", ctx.attrs["shape"], ctx.attrs["dtype"])


register("fill_constant", kernel_module="tensor", inputs=[], outputs=["Out"],
         attrs={"shape": Attr([1]), "value": 0.0, "dtype": "float32", "force_cpu": False},
         infer=_infer_fill, doc="Out = value, of the given shape and dtype.")

register("fill_zeros_like", kernel_module="tensor", inputs=["X"], outputs=["Out"], infer=same_as(),
         doc="Out = zeros shaped like X.")

_RANDOM_ATTRS = {"shape": Attr([1]), "dtype": "float32", "seed": 0}
register("uniform_random", kernel_module="tensor", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, min=-1.0, max=1.0), doc="Out ~ U[min, max).")
register("gaussian_random", kernel_module="tensor", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, mean=0.0, std=1.0), doc="Out ~ N(mean, std^2).")
register("truncated_gaussian_random", kernel_module="tensor",
         inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, mean=0.0, std=1.0),
         doc="Out ~ N(mean, std^2), redrawn where it falls beyond two std.")


def _infer_sum(ctx):
    shapes = ctx.shapes("X")
    for s in shapes[1:]:
        if len(s) != len(shapes[0]) or any(a != b and a >= 0 and b >= 0 for a, b in zip(s, shapes[0])):
            ctx.fail(f"all inputs must have one shape, got {[list(x) for x in shapes]}")
    sparse = all(ctx.input_var("X", i).type == VarType.SELECTED_ROWS for i in range(len(shapes)))
    ctx.set_output("Out", shapes[0], ctx.dtype("X"), var_type=VarType.SELECTED_ROWS if sparse else VarType.LOD_TENSOR)


def _grad_sum(g):
    grads = g.in_grad("X")
    out = g.out_grad("Out")[0]
    for name in grads:
        if name is not None:
            g.op("assign", {"X": [out]}, {"Out": [name]})


register("sum", kernel_module="tensor", inputs=["X*"], outputs=["Out"], infer=_infer_sum, grad=_grad_sum,
         blocked=one_shape_blocked, traits=("selected_rows",),
         doc="Out = X[0] + X[1] + ... (add_n). Row-sparse X (SelectedRows): all of them -> their rows and "
             "values end to end; mixed with dense X -> dense.")


def _grad_assign(g):
    g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})


register("assign", kernel_module="tensor", inputs=["X"], outputs=["Out"], infer=same_as(), grad=_grad_assign,
         doc="Out = a copy of X.")

def values_attr(dtype):
    """The attribute of assign_value holding values of ``dtype`` (Fluid's names)."""
    return {"int32": "int32_values", "int64": "int64_values", "bool": "bool_values"}.get(dtype, "fp32_values")


register("assign_value", kernel_module="tensor", inputs=[], outputs=["Out"], infer=_infer_fill,
         attrs={"shape": Attr([1]), "dtype": "float32", "fp32_values": Attr(list), "int32_values": Attr(list),
                "int64_values": Attr(list), "bool_values": Attr(list)},
         doc="Out = the given values (row-major), of the given shape: fp32_values for float dtypes, "
             "int32_values, int64_values or bool_values for the others (Fluid's attributes).")


def axis_in(ctx, axis, rank):
    """``axis`` normalised to [0, rank); fails naming X's shape when outside [-rank, rank)."""
    if not -rank <= axis < rank:
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(ctx.shape('X'))} "
                 f"(expected {-rank} <= axis < {rank})")
    return axis % rank


# -- concat / split / stack ---------------------------------------------------------------------

def _infer_concat(ctx):
    shapes = ctx.shapes("X")
    if not shapes:
        ctx.fail("concat needs at least one input in X")
    rank = len(shapes[0])
    axis = ctx.attrs["axis"]
    if not -rank <= axis < rank:
        ctx.fail(f"axis={axis} is out of range for inputs of rank {rank} {[list(s) for s in shapes]}")
    axis %= rank
    dtypes = {ctx.dtype("X", i) for i in range(len(shapes))}
    if len(dtypes) > 1:
        ctx.fail(f"all inputs must have one dtype, got {sorted(dtypes)}")
    out = list(shapes[0])
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank or any(a != b and a >= 0 and b >= 0 for d, (a, b) in enumerate(zip(s, shapes[0]))
                                 if d != axis):
            ctx.fail(f"input #{i} {fmt_shape(s)} does not match input #0 {fmt_shape(shapes[0])} "
                     f"outside axis {axis}")
        out[axis] = out[axis] + s[axis] if out[axis] >= 0 and s[axis] >= 0 else -1
        for d in range(rank):
            if d != axis and out[d] < 0:
                out[d] = s[d]
    ctx.set_output("Out", out, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_concat(g):
    g.op("concat_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")},
         g.attrs)


register("concat", kernel_module="tensor",
         grad_reads=("X",), inputs=["X*"], outputs=["Out"], attrs={"axis": _INT}, infer=_infer_concat,
         grad=_grad_concat, doc="Out = the inputs joined along `axis` (the others must agree).")
register("concat_grad", kernel_module="tensor", inputs=["X*", "Out@GRAD"], outputs=["X@GRAD*"], attrs={"axis": _INT},
         infer=grads_like({"X@GRAD": "X"}))


def _infer_split(ctx):
    shape = ctx.shape("X")
    axis = axis_in(ctx, ctx.attrs["axis"], len(shape))
    sections, error = split_sizes(shape, axis, ctx.attrs["num"], ctx.attrs["sections"])
    if error:
        ctx.fail(error)
    n_out = ctx.num_outputs("Out")
    if n_out != len(sections):
        ctx.fail(f"split into {len(sections)} parts, but {n_out} outputs were given")
    for i, s in enumerate(sections):
        out = list(shape)
        out[axis] = s
        ctx.set_output("Out", out, ctx.dtype("X"), i=i, lod_level=ctx.input_var("X").lod_level)


def _grad_split(g):
    g.op("concat", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, {"axis": g.attrs["axis"]})


register("split", kernel_module="tensor", inputs=["X"], outputs=["Out*"],
         attrs={"axis": _INT, "num": Attr(0, lambda v: is_int(v) and v >= 0, "an int >= 0"),
                "sections": Attr(list, int_list, "a list of ints")},
         infer=_infer_split, grad=_grad_split,
         doc="Out = X cut along `axis` into `num` equal parts, or parts of the given `sections` "
             "(one may be -1: the rest).")


def _infer_stack(ctx):
    shapes = ctx.shapes("X")
    if not shapes:
        ctx.fail("stack needs at least one input in X")
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != len(shapes[0]) or any(a != b and a >= 0 and b >= 0 for a, b in zip(s, shapes[0])):
            ctx.fail(f"all inputs must have one shape: input #{i} {fmt_shape(s)} != input #0 {fmt_shape(shapes[0])}")
    rank = len(shapes[0]) + 1
    axis = ctx.attrs["axis"]
    if not -rank <= axis < rank:
        ctx.fail(f"axis={axis} is out of range for stacking inputs {fmt_shape(shapes[0])} "
                 f"(expected {-rank} <= axis < {rank})")
    out = list(shapes[0])
    out.insert(axis % rank, len(shapes))
    ctx.set_output("Y", out, ctx.dtype("X"))


def _grad_stack(g):
    g.op("stack_grad", {"X": g.input("X"), "Y@GRAD": g.out_grad("Y")}, {"X@GRAD": g.in_grad("X")}, g.attrs)


register("stack", kernel_module="tensor", grad_reads=("X",),
         inputs=["X*"], outputs=["Y"], attrs={"axis": _INT}, infer=_infer_stack, grad=_grad_stack,
         doc="Y = the inputs (one shape) stacked along a new dim `axis`.")
register("stack_grad", kernel_module="tensor", inputs=["X*", "Y@GRAD"], outputs=["X@GRAD*"], attrs={"axis": _INT},
         infer=grads_like({"X@GRAD": "X"}))


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
register("cast", kernel_module="tensor", inputs=["X"], outputs=["Out"], attrs={"in_dtype": _DTYPE, "out_dtype": _DTYPE},
         infer=_infer_cast, grad=_grad_cast,
         doc="Out = X converted to out_dtype (floats to ints truncate toward 0). The gradient is cast back.")
