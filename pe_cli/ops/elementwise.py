"""Elementwise ops: the binary elementwise_* ops with Fluid's ``axis`` broadcasting (Y's shape
matches a contiguous run of X's dims starting at ``axis``, -1: aligned to the end; plain numpy
broadcasting is accepted too), the sum of several tensors (sum), scale, clipping (clip, clip_by_norm)
and the finiteness checks isfinite, isinf, isnan.

The grad makers of the elementwise grad ops are in elementwise_double_grad.py."""

from ..base.activations import real_number
from ..base.dtypes import VarType, is_float
from ..base.dims import known_numel
from ..kernels.cpu import elementwise as cpu_elementwise, elementwise_binary as cpu_binary
from ..kernels.cpu import elementwise_binary_grad as cpu_binary_grad
from ..kernels.cpu import logic as cpu_logic, scaling as cpu_scaling
from ..shapes import elementwise as meta_rules, logic as logic_rules, scaling as scale_rules
from ..shapes.joining import sum_meta
from .define import (
    Attr,
    Structured,
    backend_attrs,
    fmt_shape,
    grads_like,
    one_shape_blocked,
    positive,
    register,
    same_as,
)
from .elementwise_double_grad import GRADS_OF_GRADS


def broadcast_shape(x, y, axis):
    """The output shape, or None when X and Y cannot broadcast."""
    if len(x) == len(y) and all(a == b for a, b in zip(x, y)):
        return list(x)  # equal shapes: Fluid's InferShape and kernels ignore ``axis``
    if len(x) < len(y) and axis != -1:
        return broadcast_shape(y, x, axis)  # Fluid places the smaller X in Y from ``axis`` on
    if len(y) <= len(x):
        start = len(x) - len(y) if axis == -1 else axis
        if 0 <= start <= len(x) - len(y):
            window = x[start : start + len(y)]
            if all(a == b or b == 1 or a < 0 or b < 0 for a, b in zip(window, y)):
                return list(x)
    if axis not in (-1, len(x) - len(y)):
        return None  # an explicit axis must place Y inside X (the kernel aligns Y there)
    # numpy rules (Paddle 2.x semantics) when the Fluid form does not apply
    rank = max(len(x), len(y))
    xs, ys = [1] * (rank - len(x)) + list(x), [1] * (rank - len(y)) + list(y)
    out = []
    for a, b in zip(xs, ys):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif a < 0 or b < 0:
            out.append(max(a, b) if min(a, b) == 1 or min(a, b) < 0 else min(a, b))
        else:
            return None
    return out


def _infer(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if x is None or y is None:  # a create_tensor not yet fed: known when it runs
        out = None
    else:
        out = broadcast_shape(x, y, ctx.attrs["axis"])
    if out is None and x is not None and y is not None:
        ctx.fail(
            f"X {fmt_shape(x)} and Y {fmt_shape(y)} cannot broadcast (axis={ctx.attrs['axis']}: Y's dims "
            f"must match X's dims from that axis on, or be 1)"
        )
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    ctx.set_output("Out", out, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad(g):
    """Fluid's grad op: X, Y and Out@GRAD, and Out for div's (its Y@GRAD is -Out@GRAD * Out / Y)."""
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}
    if g.fwd.type == "elementwise_div":
        ins["Out"] = g.output("Out")
    g.op(g.fwd.type + "_grad", ins, {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")}, g.attrs)


# axis, and the layouts of Fluid's oneDNN kernels (x_data_format, y_data_format), which its plain CPU
# kernels, as pe's, ignore
_EW_ATTRS = {"axis": -1, **backend_attrs("x_data_format", "y_data_format", "use_mkldnn")}

for _name, _doc in [
    ("add", "X + Y"),
    ("sub", "X - Y"),
    ("mul", "X * Y"),
    ("div", "X / Y"),
    ("max", "max(X, Y)"),
    ("min", "min(X, Y)"),
    ("pow", "X ** Y"),
]:
    register(
        f"elementwise_{_name}",
        kernel_module="elementwise",
        inputs=["X", "Y"],
        grad_reads=("Out", "X", "Y") if _name == "div" else ("X", "Y"),
        outputs=["Out"],
        attrs=_EW_ATTRS,
        inplace=("Out", "X") if _name == "add" else (),
        traits=("elementwise",),
        infer=_infer,
        grad=_grad,
        structured=Structured(meta=meta_rules.FORWARD[_name], cpu=cpu_binary.FORWARD[_name]),
        doc=f"Out = {_doc}, Y broadcast into X from dim `axis`.",
    )
    register(
        f"elementwise_{_name}_grad",
        kernel_module="elementwise",
        inputs=["X", "Y", "Out?", "Out@GRAD"],
        outputs=["X@GRAD?", "Y@GRAD?"],
        attrs=_EW_ATTRS,
        traits=("optional_outputs",),  # (the meta rule decides only the gradients the op has: facts.wanted)
        no_need_buffer=("X", "Y") if _name in ("add", "sub") else (),
        infer=grads_like({"X@GRAD": "X", "Y@GRAD": "Y"}),
        grad=GRADS_OF_GRADS.get(_name),
        grad_reads=("Y", "Out", "Out@GRAD", "X@GRAD") if _name == "div" else (),
        structured=Structured(meta=meta_rules.GRAD[_name], cpu=cpu_binary_grad.GRAD[_name]),
    )

register(
    "elementwise_div_grad_grad",
    kernel_module="elementwise",
    structured=Structured(meta=meta_rules.div_grad_grad_meta, cpu=cpu_elementwise.DIV_GRAD_GRAD),
    inputs=["Y", "Out", "DX", "DDX?", "DDY?"],
    outputs=["Y@GRAD?", "DOut?", "DDOut?"],
    attrs={"axis": -1},
    traits=("optional_outputs",),
    infer=grads_like({"Y@GRAD": "Y", "DOut": "Out", "DDOut": "Out"}),
    doc="Fluid's second-order gradient of elementwise_div: with t = DDX - Out * DDY, DDOut = t / Y, "
    "Y@GRAD = -(DX t / Y) summed to Y's shape, DOut = -DX * DDY (pe_cli/kernels/common.py).",
)


_INTS, _FLOATS = ("int32", "int64"), ("float32", "float64")


def _floordiv_dtypes(attrs, ctx):
    """The dtypes of floordiv's X, checked when the op runs (Fluid picks its kernel then): ints in Fluid 1.8,
    floats too in Paddle 2.x (``ctx.paddle2``)."""
    return _INTS + _FLOATS if ctx.paddle2 else _INTS


# Integer division and remainder, which have no gradient, in Fluid 1.8's meaning, and Paddle 2.x's in a
# program that follows Paddle 2.6 (trait paddle2_semantics: framework/program_release.py; docs/COMPAT.md,
# "Integer floor division"). Fluid 1.8: floordiv truncates towards zero (C's int division); mod of ints is
# C's % (the sign of X), of floats fmod(Y + fmod(X, Y), Y). Paddle 2.x: floordiv floors (floats too), mod
# has Y's sign.
register(
    "elementwise_floordiv",
    kernel_module="elementwise",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=_EW_ATTRS,
    infer=_infer,
    structured=Structured(meta=meta_rules.FORWARD["floordiv"], cpu=cpu_binary.FORWARD["floordiv"]),
    run_dtypes={"X": _floordiv_dtypes},
    traits=("paddle2_semantics",),
    doc="Out = X / Y truncated towards zero (int32/int64, as Fluid 1.8; in a Paddle 2.x program floored, as "
    "Python's //, of floats too), Y broadcast into X from dim `axis`. An int zero in Y is an error. No gradient.",
)
register(
    "elementwise_mod",
    kernel_module="elementwise",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=_EW_ATTRS,
    infer=_infer,
    structured=Structured(meta=meta_rules.FORWARD["mod"], cpu=cpu_binary.FORWARD["mod"]),
    run_dtypes={"X": _INTS + _FLOATS},
    traits=("paddle2_semantics",),
    doc="Out = X mod Y, Y broadcast into X from dim `axis`: for ints C's remainder (the sign of X), "
    "for floats fmod(Y + fmod(X, Y), Y), as Fluid 1.8; in a Paddle 2.x program the remainder has Y's sign "
    "(fmod(X, Y), plus Y where the signs differ). An int zero in Y is an error. No gradient.",
)


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


register(
    "sum",
    kernel_module="elementwise",
    structured=Structured(meta=sum_meta, cpu=cpu_elementwise.SUM),
    inputs=["X*"],
    outputs=["Out"],
    infer=_infer_sum,
    grad=_grad_sum,
    attrs=backend_attrs("use_mkldnn"),
    blocked=one_shape_blocked,
    traits=("selected_rows",),
    doc="Out = X[0] + X[1] + ... (add_n). Row-sparse X (SelectedRows): all of them -> their rows and "
    "values end to end; mixed with dense X -> dense.",
)


def _grad_scale(g):
    a = g.attrs
    scale_tensor = {"ScaleTensor": g.input("ScaleTensor")} if g.input("ScaleTensor") else {}
    g.op(
        "scale",
        {"X": g.out_grad("Out"), **scale_tensor},
        {"Out": g.in_grad("X")},
        {"scale": a["scale"], "bias": 0.0, "bias_after_scale": True},
    )


register(
    "scale",
    kernel_module="elementwise",
    inputs=["X", "ScaleTensor?"],
    outputs=["Out"],
    infer=same_as(),
    grad=_grad_scale,
    grad_reads=("ScaleTensor",),
    inplace=("Out", "X"),
    traits=("elementwise", "selected_rows"),
    attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
    structured=Structured(meta=scale_rules.scale_meta, cpu=cpu_scaling.SCALE),
    doc="Out = scale * X + bias (bias_after_scale) or scale * (X + bias); a one-element ScaleTensor, "
    "when given, is the scale (Fluid 1.8's). A row-sparse X gives a "
    "row-sparse Out: its values scaled, the same rows (as Fluid's; how a server averages sparse "
    "gradients).",
)


def _infer_clip(ctx):
    lo, hi = ctx.attrs["min"], ctx.attrs["max"]
    for slot, v in (("Min", lo), ("Max", hi)):
        if ctx.has_input(slot):
            if known_numel(ctx.shape(slot)) not in (1, -1):
                ctx.fail(f"clip: {slot} must hold one value, its shape is {fmt_shape(ctx.shape(slot))}")
        elif v is None:
            ctx.fail(f"clip needs both attributes min and max (or tensors Min and Max), got min={lo!r}, max={hi!r}")
    if not ctx.has_input("Min") and not ctx.has_input("Max") and lo > hi:
        ctx.fail(f"clip: min={lo} is greater than max={hi}")
    same_as()(ctx)


def _grad_clip(g):
    bounds = {slot: g.input(slot) for slot in ("Min", "Max") if g.input(slot)}
    g.op("clip_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out"), **bounds}, {"X@GRAD": g.in_grad("X")}, g.attrs)


_CLIP_ATTRS = {"min": Attr(None, real_number, "a number"), "max": Attr(None, real_number, "a number")}
register(
    "clip",
    kernel_module="elementwise",
    grad_reads=("X", "Min", "Max"),
    inputs=["X", "Min?", "Max?"],
    outputs=["Out"],
    attrs=_CLIP_ATTRS,
    infer=_infer_clip,
    grad=_grad_clip,
    attr_tensors={"Min": "min", "Max": "max"},
    structured=Structured(meta=scale_rules.clip_meta, cpu=cpu_scaling.CLIP),
    doc="Out = min(max(X, min), max); one-element tensors Min and Max, when given, are the bounds "
    "(Fluid 1.8's). The gradient passes where min < X < max.",
)
register(
    "clip_grad",
    kernel_module="elementwise",
    inputs=["X", "Out@GRAD", "Min?", "Max?"],
    outputs=["X@GRAD"],
    attrs=_CLIP_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors={"Min": "min", "Max": "max"},
    structured=Structured(meta=scale_rules.clip_grad_meta, cpu=cpu_scaling.CLIP_GRAD),
)


register(
    "clip_by_norm",
    kernel_module="elementwise",
    structured=Structured(meta=meta_rules.clip_by_norm_meta, cpu=cpu_elementwise.CLIP_BY_NORM),
    inputs=["X"],
    outputs=["Out"],
    attrs={"max_norm": Attr(1.0, positive, "> 0")},
    infer=same_as(),
    traits=("selected_rows",),
    doc="Out = X * max_norm / ||X||_2 where ||X||_2 > max_norm, else X; a row-sparse X (SelectedRows) "
    "gives its rows merged (duplicates summed) and their values so clipped, as Fluid's.",
)


def _infer_flag(ctx):
    if not is_float(ctx.dtype("X")):
        ctx.fail(f"X is {ctx.dtype('X')}; {ctx.op.type} checks float tensors")
    ctx.set_output("Out", [1], "bool")


for _type, _doc in (
    ("isfinite", "True when every element of X is finite (no inf, no nan)"),
    ("isinf", "True when some element of X is +inf or -inf"),
    ("isnan", "True when some element of X is nan"),
):
    register(
        _type,
        kernel_module="elementwise",
        inputs=["X"],
        outputs=["Out"],
        infer=_infer_flag,
        lod="drop",
        structured=Structured(meta=logic_rules.META[_type], cpu=cpu_logic.OUT[_type]),
        doc=f"Out = bool [1]: {_doc}. No gradient.",
    )
register(
    "dgc_clip_by_norm",
    kernel_module="elementwise",
    structured=Structured(meta=meta_rules.dgc_clip_by_norm_meta, cpu=cpu_elementwise.DGC_CLIP_BY_NORM),
    inputs=["current_step", "X"],
    outputs=["Out"],
    attrs={"max_norm": Attr(1.0, positive, "> 0"), "rampup_begin_step": -1.0},
    infer=same_as(),
    traits=("selected_rows",),
    doc="DGC's clip: clip_by_norm(X, max_norm) once current_step >= rampup_begin_step (>= 0); before that, "
    "or with rampup_begin_step < 0, Out = X (Fluid leaves Out unwritten there, and its "
    "DGCMomentumOptimizer makes Out the variable X).",
)


# -- minus: X - Y of one shape, Fluid 1.8's op without broadcasting ---------------------------------


def _infer_minus(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) != len(y) or any(a >= 0 and b >= 0 and a != b for a, b in zip(x, y)):
        ctx.fail(f"minus takes X and Y of one shape, got X {fmt_shape(x)} and Y {fmt_shape(y)}")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_minus(g):
    """Fluid's: scale ops, X@GRAD = Out@GRAD and Y@GRAD = -Out@GRAD (no minus_grad op)."""
    for slot, sign in (("X", 1.0), ("Y", -1.0)):
        if g.needs(slot):
            g.op("scale", {"X": g.out_grad("Out")}, {"Out": g.in_grad(slot)}, {"scale": sign})


register(
    "minus",
    kernel_module="elementwise",
    structured=Structured(meta=meta_rules.minus_meta, cpu=cpu_elementwise.MINUS),
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=_infer_minus,
    grad=_grad_minus,
    doc="Out = X - Y, X and Y of one shape (Fluid 1.8's minus op; its gradients are scale ops).",
)
