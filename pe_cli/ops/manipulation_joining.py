"""Joining and splitting of the shape manipulation family: concat, split and stack. Structured kernels: their
meta rules in shapes/joining.py, their CPU out-kernels in kernels/cpu/joining.py (CUDA's kernels: the family's,
pe_cli/kernels/cuda/manipulation.py)."""

from ..kernels.cpu import joining as cpu_joining
from ..shapes import joining as meta_rules
from ..shapes.manipulation import split_sizes
from .define import Attr, Structured, backend_attrs, fmt_shape, grad_of, grads_like, int_list, is_int, register
from .manipulation import INT, axis_in


# -- concat / split / stack ---------------------------------------------------------------------


def _infer_concat(ctx):
    shapes = ctx.shapes("X")
    if not shapes:
        ctx.fail("concat needs at least one input in X")
    rank = len(shapes[0])
    if ctx.has_input("AxisTensor"):  # the axis is known at run time only: every dim may change (Fluid's)
        ctx.set_output("Out", [-1] * rank, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
        return
    axis = ctx.attrs["axis"]
    if not -rank <= axis < rank:
        ctx.fail(f"axis={axis} is out of range for inputs of rank {rank} {[list(s) for s in shapes]}")
    axis %= rank
    dtypes = {ctx.dtype("X", i) for i in range(len(shapes))}
    if len(dtypes) > 1:
        ctx.fail(f"all inputs must have one dtype, got {sorted(dtypes)}")
    out = list(shapes[0])
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank or any(
            a != b and a >= 0 and b >= 0 for d, (a, b) in enumerate(zip(s, shapes[0])) if d != axis
        ):
            ctx.fail(f"input #{i} {fmt_shape(s)} does not match input #0 {fmt_shape(shapes[0])} outside axis {axis}")
        out[axis] = out[axis] + s[axis] if out[axis] >= 0 and s[axis] >= 0 else -1
        for d in range(rank):
            if d != axis and out[d] < 0:
                out[d] = s[d]
    ctx.set_output("Out", out, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _concat_lod(in_lods, attrs):
    """Out has X[0]'s LoD; joined along axis 0, inputs that all have LoDs of as many levels give Out
    their LoDs end to end (Fluid's concat kernel)."""
    lods = in_lods.get("X") or []
    if not lods or not lods[0]:
        return {}
    if attrs.get("axis") != 0 or not all(lod and len(lod) == len(lods[0]) for lod in lods):
        return {"Out": lods[0]}
    out = [list(level) for level in lods[0]]
    for lod in lods[1:]:
        for joined, level in zip(out, lod):
            base = joined[-1] - level[0]
            joined.extend(base + o for o in level[1:])
    return {"Out": out}


def _grad_concat(g):
    axis = {"AxisTensor": g.input("AxisTensor")} if g.input("AxisTensor") else {}
    g.op("concat_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out"), **axis}, {"X@GRAD": g.in_grad("X")}, g.attrs)


_CONCAT_ATTRS = {"axis": INT, **backend_attrs("use_quantizer", "use_mkldnn")}  # Fluid's oneDNN kernel's: ignored
register(
    "concat",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.concat_meta, cpu=cpu_joining.CONCAT),
    grad_reads=("X", "AxisTensor"),
    inputs=["X*", "AxisTensor?"],
    outputs=["Out"],
    attrs=_CONCAT_ATTRS,
    infer=_infer_concat,
    grad=_grad_concat,
    attr_tensors={"AxisTensor": "axis"},
    lod=_concat_lod,
    doc="Out = the inputs joined along `axis` (the others must agree); a one-value int AxisTensor, when "
    "given, is the axis (Fluid 1.8's).",
)
register(
    "concat_grad",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.concat_grad_meta, cpu=cpu_joining.CONCAT_GRAD),
    inputs=["X*", "Out@GRAD", "AxisTensor?"],
    outputs=["X@GRAD*"],
    attrs=_CONCAT_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors={"AxisTensor": "axis"},
)


def _split_parts(ctx, shape):
    """(axis, part sizes along it) of split's infer: -1 where a tensor gives them at run time (an
    AxisTensor: every dim of every part; a SectionsTensorList: the sections it gives)."""
    if ctx.has_input("AxisTensor"):
        return None, [-1] * (ctx.attrs["num"] or len(ctx.attrs["sections"]))
    axis = axis_in(ctx, ctx.attrs["axis"], len(shape))
    if ctx.has_input("SectionsTensorList"):
        if ctx.num_inputs("SectionsTensorList") != len(ctx.attrs["sections"]):
            ctx.fail(
                f"SectionsTensorList holds {ctx.num_inputs('SectionsTensorList')} sections, the sections "
                f"attribute {ctx.attrs['sections']}"
            )
        return axis, [-1] * len(ctx.attrs["sections"])
    sections, error = split_sizes(shape, axis, ctx.attrs["num"], ctx.attrs["sections"])
    if error:
        ctx.fail(error)
    return axis, sections


def infer_split(ctx):
    shape = ctx.shape("X")
    axis, sections = _split_parts(ctx, shape)
    n_out = ctx.num_outputs("Out")
    if n_out != len(sections):
        ctx.fail(f"split into {len(sections)} parts, but {n_out} outputs were given")
    for i, s in enumerate(sections):
        out = list(shape) if axis is not None else [-1] * len(shape)
        if axis is not None:
            out[axis] = s
        ctx.set_output("Out", out, ctx.dtype("X"), i=i, lod_level=ctx.input_var("X").lod_level)


def _split_lod(in_lods, attrs):
    """Fluid's split: every output has X's LoD, unless it cuts along dim 0 (an axis given as a tensor: always)."""
    lod = in_lods.get("X")
    return {"Out": lod} if lod and ("AxisTensor" in in_lods or attrs["axis"] != 0) else {}


def _grad_split(g):
    axis = {"AxisTensor": g.input("AxisTensor")} if g.input("AxisTensor") else {}
    g.op("concat", {"X": g.out_grad("Out"), **axis}, {"Out": g.in_grad("X")}, {"axis": g.attrs["axis"]})


SPLIT_STRUCTURED = Structured(meta=meta_rules.split_meta, cpu=cpu_joining.SPLIT)  # (split_byref's too)
register(
    "split",
    kernel_module="manipulation",
    structured=SPLIT_STRUCTURED,
    inputs=["X", "AxisTensor?", "SectionsTensorList*?"],
    outputs=["Out*"],
    attrs={
        "axis": INT,
        "num": Attr(0, lambda v: is_int(v) and v >= 0, "an int >= 0"),
        "sections": Attr(list, int_list, "a list of ints"),
    },
    infer=infer_split,
    lod=_split_lod,
    grad=_grad_split,
    grad_reads=("AxisTensor",),
    attr_tensors={"AxisTensor": "axis", "SectionsTensorList": "sections"},
    doc="Out = X cut along `axis` into `num` equal parts (num > 0 wins over sections, as in Fluid), or "
    "parts of the given `sections` (one may be -1: the rest). Fluid 1.8's AxisTensor (a one-value int tensor) gives the axis, "
    "SectionsTensorList (one int [1] tensor per section) the sections, at run time.",
)


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
        ctx.fail(
            f"axis={axis} is out of range for stacking inputs {fmt_shape(shapes[0])} "
            f"(expected {-rank} <= axis < {rank})"
        )
    out = list(shapes[0])
    out.insert(axis % rank, len(shapes))
    ctx.set_output("Y", out, ctx.dtype("X"))


register(
    "stack",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.stack_meta, cpu=cpu_joining.STACK),
    grad_reads=("X",),
    inputs=["X*"],
    outputs=["Y"],
    attrs={"axis": INT},
    infer=_infer_stack,
    grad=grad_of("stack_grad", ("X",), out_grads=("Y",)),
    doc="Y = the inputs (one shape) stacked along a new dim `axis`.",
)
register(
    "stack_grad",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.stack_grad_meta, cpu=cpu_joining.STACK_GRAD),
    inputs=["X*", "Y@GRAD"],
    outputs=["X@GRAD*"],
    attrs={"axis": INT},
    infer=grads_like({"X@GRAD": "X"}),
)
