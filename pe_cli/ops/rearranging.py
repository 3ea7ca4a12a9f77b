"""The ops that rearrange a tensor's elements, kernels in kernels/<device>/manipulation.py (the family of
reverse, stack and unbind, whose kernels serve them): reverse (reversed along axes), Fluid 1.8's flip
(reverse's twin; its gradient is a flip), roll (circularly shifted along dims), unbind (the slices along an
axis) and unstack (unbind's twin with Fluid's num; its gradient stacks them). All are structured kernels: unbind's
and unstack's meta rules in shapes/joining.py, their CPU out-kernels in kernels/cpu/joining.py; reverse's, flip's
and roll's in shapes/rearranging.py and kernels/cpu/manipulation.py."""

from ..kernels.cpu import joining as cpu_joining
from ..kernels.cpu import manipulation as cpu_manipulation
from ..shapes import rearranging
from ..shapes import joining as meta_rules
from .define import Attr, Structured, fmt_shape, grad_of, grads_like, int_list, is_int, lods_like, register
from ..base.dims import known_numel
from .manipulation import axis_in


def _dims_in(ctx, dims, what):
    rank = len(ctx.shape("X"))
    return [axis_in(ctx, d, rank, what) for d in dims]


# -- flip ---------------------------------------------------------------------------------------


def _infer_flip(ctx):
    _dims_in(ctx, list(ctx.attrs["dims"]), "dims")  # (none: Out is a copy of X, as Paddle 2.6's)
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_flip(g):
    g.op("flip", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, g.attrs)


register(
    "flip",
    kernel_module="manipulation",
    structured=Structured(meta=rearranging.flip_meta, cpu=cpu_manipulation.REVERSE),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_flip,
    grad=_grad_flip,
    attrs={"dims": Attr(list, int_list, "a list of ints"), "axis": Attr(None, alias_of="dims", fill=False)},
    doc="Out = X with the order of its elements reversed along each of dims (negative: from the end; a dim "
    "named twice flips once, as Fluid's; none: a copy of X, as Paddle 2.6's). Its gradient is a flip of Out@GRAD (Fluid has no flip_grad).",
)


# -- roll ---------------------------------------------------------------------------------------


def _infer_roll(ctx):
    shifts, dims = list(ctx.attrs["shifts"]), list(ctx.attrs["dims"])
    if ctx.has_input("ShiftsTensor"):  # Paddle 2.x's shifts given as a Tensor: as many as its values
        n = known_numel(ctx.shape("ShiftsTensor"))
        if n < 0:
            ctx.fail(f"ShiftsTensor {fmt_shape(ctx.shape('ShiftsTensor'))}: its size (how many shifts) must be known")
        shifts = [0] * n
    if not dims and len(shifts) == 1:  # Paddle 2.x's roll of the flattened X (no axis)
        ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
        return
    if len(shifts) != len(dims):
        ctx.fail(f"Attr(dims).size() should be equal to Attr(shifts).size(): dims={dims}, shifts={shifts}")
    _dims_in(ctx, dims, "dims")
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


_ROLL_ATTRS = {
    "shifts": Attr(list, int_list, "a list of ints", long=True),
    "dims": Attr(list, int_list, "a list of ints", long=True),
    "axis": Attr([], alias_of="dims", fill=False),
}  # (Paddle 2.x's name of dims)
register(
    "roll",
    kernel_module="manipulation",
    structured=Structured(meta=rearranging.roll_meta, cpu=cpu_manipulation.ROLL),
    inputs=["X", "ShiftsTensor?"],
    outputs=["Out"],
    attrs=_ROLL_ATTRS,
    attr_tensors={"ShiftsTensor": "shifts"},
    infer=_infer_roll,
    grad=grad_of("roll_grad", ("X", "ShiftsTensor")),
    grad_reads=("X", "ShiftsTensor"),
    doc="Out = X rolled shifts[i] places along dims[i] for each i (elements leaving one end enter at the other); "
    "ShiftsTensor (an int tensor, Paddle 2.x's) gives the shifts when the op runs.",
)
register(
    "roll_grad",
    kernel_module="manipulation",
    structured=Structured(meta=rearranging.roll_grad_meta, cpu=cpu_manipulation.ROLL_GRAD),
    inputs=["X", "ShiftsTensor?", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ROLL_ATTRS,
    attr_tensors={"ShiftsTensor": "shifts"},
    no_need_buffer=("X",),
    infer=grads_like({"X@GRAD": "X"}),
)


# -- unbind -------------------------------------------------------------------------------------


def _infer_unbind(ctx):
    x, axis = ctx.shape("X"), ctx.attrs["axis"]
    if not -len(x) <= axis < len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    axis %= len(x)
    if x[axis] >= 0 and x[axis] < ctx.num_outputs("Out"):  # fewer: the first slices, as Fluid's kernel
        ctx.fail(
            f"X {fmt_shape(x)} has {x[axis]} slices along axis {axis}, but {ctx.num_outputs('Out')} "
            f"outputs were given (at most one per slice)"
        )
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output("Out", [d for k, d in enumerate(x) if k != axis] or ctx.scalar_shape(), ctx.dtype("X"), i=i)


def _grad_unbind(g):
    x = g.fwd.block.var(g.input("X")[0]).shape
    if len(g.output("Out")) == x[g.attrs["axis"] % len(x)]:
        g.op("stack", {"X": g.out_grad("Out")}, {"Y": g.in_grad("X")}, {"axis": g.attrs["axis"]})
    else:  # fewer outputs than slices: each gradient back where the output read X (Fluid has no
        # unbind_grad op, and Paddle's op tests read one as unbind's own gradient kernel)
        g.op(
            "unbind_leading_grad",
            {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")},
            {"X@GRAD": g.in_grad("X")},
            {"axis": g.attrs["axis"]},
        )


register(
    "unbind",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.unbind_meta, cpu=cpu_joining.UNBIND),
    inputs=["X"],
    outputs=["Out*"],
    grad_reads=("X",),
    attrs={"axis": Attr(0, is_int, "an int")},
    infer=_infer_unbind,
    lod=lods_like({"Out": "X"}),  # (each output's: Fluid's ShareLoD(X, Out, 0, i))
    grad=_grad_unbind,
    traits=("output_counts", "result_0d_in_paddle2"),
    doc="Out[i] = X's i-th slice along `axis` (that dim removed), one output per slice. With k outputs "
    "for n > k slices, as Fluid's kernel: X's first elements seen as [rows before axis, k, the "
    "rest] (the first k slices along a leading axis), the others' gradient 0.",
)
register(
    "unbind_leading_grad",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.unbind_leading_grad_meta, cpu=cpu_joining.UNBIND_LEADING_GRAD),
    inputs=["X", "Out@GRAD*"],
    outputs=["X@GRAD"],
    attrs={"axis": Attr(0, is_int, "an int")},
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
    traits=("output_counts",),
)


# -- unstack ------------------------------------------------------------------------------------


def _infer_unstack(ctx):
    x, num = ctx.shape("X"), ctx.attrs["num"]
    axis = axis_in(ctx, ctx.attrs["axis"], len(x))
    if num is None or ctx.num_outputs("Y") != num:
        ctx.fail(f"Number of Outputs(Y) is wrong: {ctx.num_outputs('Y')} outputs, but attribute num is {num}")
    if x[axis] >= 0 and x[axis] != num:
        ctx.fail(f"num={num} is not the size of dim {axis} of X {fmt_shape(x)}")
    for i in range(num):
        ctx.set_output("Y", [d for k, d in enumerate(x) if k != axis] or ctx.scalar_shape(), ctx.dtype("X"), i=i)


def _infer_unstack_grad(ctx):
    shapes = ctx.shapes("Y@GRAD")
    axis = ctx.attrs["axis"] % (len(shapes[0]) + 1)
    ctx.set_output("X@GRAD", list(shapes[0][:axis]) + [len(shapes)] + list(shapes[0][axis:]), ctx.dtype("Y@GRAD"))


_UNSTACK_ATTRS = {"axis": Attr(0, is_int, "an int"), "num": Attr(None, lambda v: is_int(v) and v > 0, "an int > 0")}
register(
    "unstack",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.unstack_meta, cpu=cpu_joining.UNSTACK),
    inputs=["X"],
    outputs=["Y*"],
    attrs=_UNSTACK_ATTRS,
    infer=_infer_unstack,
    grad=grad_of("unstack_grad", (), out_grads=("Y",)),
    traits=("result_0d_in_paddle2",),
    doc="Y[i] = X's i-th slice along axis (that dim removed), num of them (X's size along axis).",
)
register(
    "unstack_grad",
    kernel_module="manipulation",
    structured=Structured(meta=meta_rules.unstack_grad_meta, cpu=cpu_joining.UNSTACK_GRAD),
    inputs=["Y@GRAD*"],
    outputs=["X@GRAD"],
    attrs=_UNSTACK_ATTRS,
    infer=_infer_unstack_grad,
)


# -- reverse ---------------------------------------------------------------------------------


def _infer_reverse(ctx):
    x, axes = ctx.shape("X"), list(ctx.attrs["axis"])
    if not axes:
        ctx.fail("reverse needs at least one axis")
    for a in axes:  # a dim named twice is reversed once, as in Fluid's kernel
        axis_in(ctx, a, len(x))
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_reverse(g):
    g.op("reverse", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, g.attrs)


register(
    "reverse",
    kernel_module="manipulation",
    structured=Structured(meta=rearranging.reverse_meta, cpu=cpu_manipulation.REVERSE),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_reverse,
    grad=_grad_reverse,
    attrs={"axis": Attr(list, int_list, "a list of ints")},
    doc="Out = X with the order of its elements reversed along each dim `axis` names (negative: from the "
    "end; a dim named twice is reversed once, as Fluid's kernel does).",
)
