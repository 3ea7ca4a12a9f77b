"""Creating, combining and reshaping tensors."""
import numbers

from ..errors import PeError
from ..framework.dtypes import convert_dtype, is_float
from .registry import Attr, fmt_shape, grads_like, register, same_as


def _infer_fill(ctx):
    ctx.set_output("Out", ctx.attrs["shape"], ctx.attrs["dtype"])


register("fill_constant", inputs=[], outputs=["Out"],
         attrs={"shape": Attr([1]), "value": 0.0, "dtype": "float32", "force_cpu": False},
         infer=_infer_fill, doc="Out = value, of the given shape and dtype.")

register("fill_zeros_like", inputs=["X"], outputs=["Out"], infer=same_as(),
         doc="Out = zeros shaped like X.")

_RANDOM_ATTRS = {"shape": Attr([1]), "dtype": "float32", "seed": 0}
register("uniform_random", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, min=-1.0, max=1.0), doc="Out ~ U[min, max).")
register("gaussian_random", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, mean=0.0, std=1.0), doc="Out ~ N(mean, std^2).")
register("truncated_gaussian_random", inputs=[], outputs=["Out"], infer=_infer_fill, needs_rng=True,
         attrs=dict(_RANDOM_ATTRS, mean=0.0, std=1.0),
         doc="Out ~ N(mean, std^2), redrawn where it falls beyond two std.")


def _infer_sum(ctx):
    shapes = ctx.shapes("X")
    for s in shapes[1:]:
        if len(s) != len(shapes[0]) or any(a != b and a >= 0 and b >= 0 for a, b in zip(s, shapes[0])):
            ctx.fail(f"all inputs must have one shape, got {[list(x) for x in shapes]}")
    ctx.set_output("Out", shapes[0], ctx.dtype("X"))


def _grad_sum(g):
    grads = g.in_grad("X")
    out = g.out_grad("Out")[0]
    for name in grads:
        if name is not None:
            g.op("assign", {"X": [out]}, {"Out": [name]})


register("sum", inputs=["X*"], outputs=["Out"], infer=_infer_sum, grad=_grad_sum,
         doc="Out = X[0] + X[1] + ... (add_n).")


def _grad_assign(g):
    g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})


register("assign", inputs=["X"], outputs=["Out"], infer=same_as(), grad=_grad_assign,
         doc="Out = a copy of X.")

register("assign_value", inputs=[], outputs=["Out"], infer=_infer_fill,
         attrs={"shape": Attr([1]), "dtype": "float32", "values": Attr(list)},
         doc="Out = the given values (row-major), of the given shape.")


# -- shared checks ------------------------------------------------------------------------------

def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _int_list(v):
    return isinstance(v, (list, tuple)) and all(_is_int(i) for i in v)


_INT = Attr(0, _is_int, "an int")


def _known(dims):
    return all(d >= 0 for d in dims)


def _numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _axis_in(ctx, axis, rank):
    """``axis`` normalised to [0, rank); fails naming X's shape when outside [-rank, rank)."""
    if not -rank <= axis < rank:
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(ctx.shape('X'))} "
                 f"(expected {-rank} <= axis < {rank})")
    return axis % rank


def _reshape_grad_op(name):
    """Registers ``name``: X@GRAD = Out@GRAD reshaped to X's shape (reshape, flatten, squeeze, ...)."""
    register(name, inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], infer=grads_like({"X@GRAD": "X"}),
             kernel_module="tensor")


def _grad_reshape_like(grad_op):
    def grad(g):
        g.op(grad_op, {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})
    return grad


def _register_with_xshape(name, attrs, infer, doc, inputs=("X",)):
    """Registers ``name`` and Fluid's ``name2`` twin (an extra optional XShape output: the input's
    shape behind a leading 0, holding no data), each with its reshape-style grad op."""
    for op_type in (name, name + "2"):
        outputs = ["Out"] if op_type == name else ["Out", "XShape?"]
        register(op_type, inputs=list(inputs), outputs=outputs, attrs=attrs, infer=infer,
                 grad=_grad_reshape_like(f"{op_type}_grad"), doc=doc)
        _reshape_grad_op(f"{op_type}_grad")


def _set_reshaped(ctx, out):
    ctx.set_output("Out", out, ctx.dtype("X"))
    ctx.set_output("XShape", [0] + list(ctx.shape("X")), ctx.dtype("X"))


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


register("concat", inputs=["X*"], outputs=["Out"], attrs={"axis": _INT}, infer=_infer_concat,
         grad=_grad_concat, doc="Out = the inputs joined along `axis` (the others must agree).")
register("concat_grad", inputs=["X*", "Out@GRAD"], outputs=["X@GRAD*"], attrs={"axis": _INT},
         infer=grads_like({"X@GRAD": "X"}))


def _infer_split(ctx):
    shape = ctx.shape("X")
    axis = _axis_in(ctx, ctx.attrs["axis"], len(shape))
    num, sections = ctx.attrs["num"], list(ctx.attrs["sections"])
    n_out = ctx.num_outputs("Out")
    dim = shape[axis]
    if num and sections:
        ctx.fail(f"give num={num} or sections={sections}, not both")
    if not num and not sections:
        ctx.fail("split needs num > 0 or a list of sections")
    if num:
        if dim >= 0 and dim % num:
            ctx.fail(f"X {fmt_shape(shape)} cannot split into {num} equal parts along axis {axis} "
                     f"({dim} is not divisible by {num})")
        sections = [dim // num if dim >= 0 else -1] * num
    else:
        if sections.count(-1) > 1 or any(s < -1 or s == 0 for s in sections):
            ctx.fail(f"sections={sections}: each section must be > 0, with at most one -1 (inferred)")
        if dim >= 0:
            known = sum(s for s in sections if s > 0)
            if -1 in sections:
                if known >= dim:
                    ctx.fail(f"sections={sections} leave nothing for the -1 section of X {fmt_shape(shape)} "
                             f"along axis {axis}")
                sections[sections.index(-1)] = dim - known
            elif known != dim:
                ctx.fail(f"sections={sections} sum to {known}, but X {fmt_shape(shape)} has {dim} along axis {axis}")
        else:
            sections = [-1] * len(sections)
    if n_out != len(sections):
        ctx.fail(f"split into {len(sections)} parts, but {n_out} outputs were given")
    for i, s in enumerate(sections):
        out = list(shape)
        out[axis] = s
        ctx.set_output("Out", out, ctx.dtype("X"), i=i, lod_level=ctx.input_var("X").lod_level)


def _grad_split(g):
    g.op("concat", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, {"axis": g.attrs["axis"]})


register("split", inputs=["X"], outputs=["Out*"],
         attrs={"axis": _INT, "num": Attr(0, lambda v: _is_int(v) and v >= 0, "an int >= 0"),
                "sections": Attr(list, _int_list, "a list of ints")},
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


register("stack", inputs=["X*"], outputs=["Y"], attrs={"axis": _INT}, infer=_infer_stack, grad=_grad_stack,
         doc="Y = the inputs (one shape) stacked along a new dim `axis`.")
register("stack_grad", inputs=["X*", "Y@GRAD"], outputs=["X@GRAD*"], attrs={"axis": _INT},
         infer=grads_like({"X@GRAD": "X"}))


# -- reshape, flatten, squeeze, unsqueeze, transpose ---------------------------------------------

def reshape_target(x_shape, shape):
    """Fluid's reshape rule: 0 copies X's dim at that index, one -1 takes what is left.
    Returns (shape, error message or None). Where X has unknown (-1) dims that are not copied
    through by a 0, the -1 stays unknown and the sizes are checked at run time."""
    shape = list(shape)
    out = []
    for i, d in enumerate(shape):
        if d == 0 and i >= len(x_shape):
            return None, f"shape[{i}] is 0 (copy X's dim {i}), but X has only {len(x_shape)} dims"
        out.append(x_shape[i] if d == 0 else d)
    copied = {i for i, d in enumerate(shape) if d == 0}
    x_rest = [d for j, d in enumerate(x_shape) if j not in copied]   # copied dims cancel out
    if not _known(x_rest):
        return out, None
    size = _numel(x_rest)
    what = "X's elements" if not copied else "X's elements (apart from the dims copied by 0)"
    if -1 in shape:
        hole = shape.index(-1)
        known = _numel(d for j, d in enumerate(out) if j != hole and j not in copied)
        if known == 0 or size % known:
            return None, f"{what}, {size}, are not a multiple of {known}, so the -1 cannot be inferred"
        out[hole] = size // known
    else:
        wanted = _numel(d for j, d in enumerate(out) if j not in copied)
        if wanted != size:
            return None, f"{what} number {size}, but the shape holds {wanted}"
    return out, None


def _check_shape_attr(v):
    return _int_list(v) and all(d >= -1 for d in v) and list(v).count(-1) <= 1


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
    _set_reshaped(ctx, [_numel(rows) if _known(rows) else -1, _numel(cols) if _known(cols) else -1])


_register_with_xshape("flatten", {"axis": Attr(1, lambda v: _is_int(v) and v >= 0, "an int >= 0")},
                      _infer_flatten,
                      doc="Out = X as a matrix: dims before `axis` make the rows, the rest the columns.")


def squeeze_shape(x, axes):
    """(shape, error): X's shape without the listed size-1 dims (all size-1 dims if none listed)."""
    if not axes:
        return [d for d in x if d != 1], None
    drop = set()
    for a in axes:
        if not -len(x) <= a < len(x):
            return None, f"axis {a} is out of range (expected {-len(x)} <= axis < {len(x)})"
        a %= len(x)
        if x[a] > 1:
            return None, f"dim {a} has size {x[a]}, only dims of size 1 can be squeezed"
        drop.add(a)
    return [d for i, d in enumerate(x) if i not in drop], None


def _infer_squeeze(ctx):
    x = ctx.shape("X")
    out, error = squeeze_shape(x, ctx.attrs["axes"])
    if error:
        ctx.fail(f"cannot squeeze X {fmt_shape(x)} along axes {list(ctx.attrs['axes'])}: {error}")
    _set_reshaped(ctx, out)


_AXES = Attr(list, _int_list, "a list of ints")
_register_with_xshape("squeeze", {"axes": _AXES}, _infer_squeeze,
                      doc="Out = X without the listed dims of size 1 (every size-1 dim when axes is empty).")


def unsqueeze_shape(x, axes):
    """(shape, error): size-1 dims inserted one after another, as Fluid does: each axis indexes the
    shape built so far, a negative one counting from its end (-1: append)."""
    out = list(x)
    for a in axes:
        pos = a + len(out) + 1 if a < 0 else a
        if not 0 <= pos <= len(out):
            return None, f"axis {a} is out of range for a shape of rank {len(out)}"
        out.insert(pos, 1)
    return out, None


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
    register(_type, inputs=["X"], outputs=_outs, attrs={"axis": Attr(list, _int_list, "a list of ints")},
             infer=_infer_transpose, grad=_grad_transpose,
             doc="Out = X with its dims permuted: Out's dim i is X's dim axis[i].")


# -- cast ---------------------------------------------------------------------------------------

def _dtype_or_none(v):
    if v is None:
        return True
    try:
        convert_dtype(v)
        return True
    except PeError:
        return False


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


_DTYPE = Attr(None, _dtype_or_none, "a dtype name such as 'float32', 'float64', 'int32', 'int64', 'bool'")
register("cast", inputs=["X"], outputs=["Out"], attrs={"in_dtype": _DTYPE, "out_dtype": _DTYPE},
         infer=_infer_cast, grad=_grad_cast,
         doc="Out = X converted to out_dtype (floats to ints truncate toward 0). The gradient is cast back.")


# -- slice, gather, one_hot, expand ---------------------------------------------------------------

def slice_bounds(dim, start, end):
    """Python-style bounds on a dim of size ``dim``: negatives count from the end, then clamp."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    return min(max(start, 0), dim), min(max(end, 0), dim)


def _infer_slice(ctx):
    x = ctx.shape("Input")
    axes, starts, ends = (list(ctx.attrs[k]) for k in ("axes", "starts", "ends"))
    where = f"Input {fmt_shape(x)} with axes={axes}, starts={starts}, ends={ends}"
    if not len(axes) == len(starts) == len(ends):
        ctx.fail(f"cannot slice {where}: axes, starts and ends must have one length")
    out = list(x)
    for a, s, e in zip(axes, starts, ends):
        if not -len(x) <= a < len(x):
            ctx.fail(f"cannot slice {where}: axis {a} is out of range "
                     f"(expected {-len(x)} <= axis < {len(x)})")
        a %= len(x)
        if x[a] >= 0:
            lo, hi = slice_bounds(x[a], s, e)
            if hi <= lo:
                ctx.fail(f"cannot slice {where}: [{s}:{e}] along axis {a} (size {x[a]}) is empty")
            out[a] = hi - lo
    sliced = {a % len(x) for a in axes}
    decrease = set()
    for a in ctx.attrs["decrease_axis"]:
        if not -len(x) <= a < len(x) or a % len(x) not in sliced or out[a % len(x)] not in (1, -1):
            ctx.fail(f"cannot slice {where}: decrease_axis {a} must be a sliced axis left with size 1")
        decrease.add(a % len(x))
    out = [d for i, d in enumerate(out) if i not in decrease] or [1]
    ctx.set_output("Out", out, ctx.dtype("Input"), lod_level=ctx.input_var("Input").lod_level)


def _grad_slice(g):
    g.op("slice_grad", {"Input": g.input("Input"), "Out@GRAD": g.out_grad("Out")},
         {"Input@GRAD": g.in_grad("Input")}, g.attrs)


_SLICE_ATTRS = {"axes": Attr(list, _int_list, "a list of ints >= 0"),
                "starts": Attr(list, _int_list, "a list of ints"), "ends": Attr(list, _int_list, "a list of ints"),
                "decrease_axis": Attr(list, _int_list, "a list of ints"), "infer_flags": Attr(list)}
register("slice", inputs=["Input"], outputs=["Out"], attrs=_SLICE_ATTRS, infer=_infer_slice, grad=_grad_slice,
         doc="Out = Input[starts:ends] along each of `axes`, bounds as in Python (negative from the end, "
             "clamped); `decrease_axis` drops sliced dims of size 1.")
register("slice_grad", inputs=["Input", "Out@GRAD"], outputs=["Input@GRAD"], attrs=_SLICE_ATTRS,
         infer=grads_like({"Input@GRAD": "Input"}))

_INDEX_DTYPES = ("int32", "int64")


def _infer_gather(ctx):
    x, index = ctx.shape("X"), ctx.shape("Index")
    if ctx.dtype("Index") not in _INDEX_DTYPES:
        ctx.fail(f"Index is {ctx.dtype('Index')}; it must be int32 or int64")
    if not (len(index) == 1 or (len(index) == 2 and index[1] in (1, -1))):
        ctx.fail(f"Index {fmt_shape(index)} must be 1-D or [N, 1] to gather rows of X {fmt_shape(x)}")
    if not x:
        ctx.fail(f"X {fmt_shape(x)} has no rows to gather")
    ctx.set_output("Out", [index[0]] + list(x[1:]), ctx.dtype("X"))


def _grad_gather(g):
    g.op("gather_grad", {"X": g.input("X"), "Index": g.input("Index"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")})


register("gather", inputs=["X", "Index"], outputs=["Out"], attrs={"overwrite": Attr(True, choices=(False, True))},
         infer=_infer_gather, grad=_grad_gather,
         doc="Out = X[Index] (rows of X). The gradient adds Out@GRAD into the gathered rows, repeated "
             "indices accumulating (`overwrite` is accepted for Fluid compatibility).")
register("gather_grad", inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"], infer=grads_like({"X@GRAD": "X"}))


def _infer_one_hot(ctx):
    x, depth = ctx.shape("X"), ctx.attrs["depth"]
    if depth is None:
        ctx.fail("one_hot needs depth (the number of classes)")
    if ctx.dtype("X") not in _INDEX_DTYPES:
        ctx.fail(f"X is {ctx.dtype('X')}; one_hot takes int64 (or int32) ids")
    if not x or x[-1] not in (1, -1):
        ctx.fail(f"X {fmt_shape(x)} must end in a dim of size 1 (ids shaped [N, 1])")
    ctx.set_output("Out", list(x[:-1]) + [depth], ctx.attrs["dtype"], lod_level=ctx.input_var("X").lod_level)


register("one_hot", inputs=["X"], outputs=["Out"],
         attrs={"depth": Attr(None, lambda v: _is_int(v) and v > 0, "an int > 0"),
                "allow_out_of_range": Attr(False, choices=(False, True)),
                "dtype": Attr("float32", _dtype_or_none, "a dtype name")},
         infer=_infer_one_hot,
         doc="Out[..., j] = 1 where X[..., 0] == j, else 0: [N, 1] ids -> [N, depth]. Ids outside "
             "[0, depth) are an error, or all-zero rows with allow_out_of_range. No gradient.")


def _infer_expand(ctx):
    x, times = ctx.shape("X"), list(ctx.attrs["expand_times"])
    if len(times) != len(x):
        ctx.fail(f"expand_times={times} must have one entry per dim of X {fmt_shape(x)}")
    ctx.set_output("Out", [d * t if d >= 0 else -1 for d, t in zip(x, times)], ctx.dtype("X"),
                   lod_level=ctx.input_var("X").lod_level)


def _grad_expand(g):
    g.op("expand_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")}, g.attrs)


_EXPAND_ATTRS = {"expand_times": Attr(list, lambda v: _int_list(v) and all(t >= 1 for t in v),
                                      "a list of ints >= 1")}
register("expand", inputs=["X"], outputs=["Out"], attrs=_EXPAND_ATTRS, infer=_infer_expand, grad=_grad_expand,
         doc="Out = X tiled expand_times[i] times along each dim i.")
register("expand_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=_EXPAND_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))
