"""Comparisons (less_than, less_equal, greater_than, greater_equal, equal, not_equal) and logical
ops (logical_and, logical_or, logical_xor, logical_not): elementwise, bool results. Bitwise ops
(bitwise_and, bitwise_or, bitwise_xor, bitwise_not, Paddle 2.x's): on bool and integer tensors,
X's dtype. equal_reduce and allclose: whether two tensors are equal (within tolerances: allclose), one bool."""

from ..kernels.cpu import logic as cpu_logic
from ..shapes import logic as meta_rules
from .define import Attr, Structured, fmt_shape, register
from .elementwise import broadcast_shape


def _structured(op_type):
    """The op's structured kernel: its meta rule (shapes/logic.py) and CPU out-kernel (kernels/cpu/logic.py)."""
    return Structured(meta=meta_rules.META[op_type], cpu=cpu_logic.OUT[op_type])


def _infer_compare(ctx):
    """X's shape, or the shape X and Y broadcast to (Paddle 2.x's compare ops broadcast both ways:
    a 0-D X against a [1] Y gives [1])."""
    x, y = ctx.shape("X"), ctx.shape("Y")
    out = broadcast_shape(x, y, ctx.attrs.get("axis", -1))
    if out is None:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} cannot broadcast")
    ctx.set_output("Out", out, "bool")


_EQUALITY = dict.fromkeys(("equal", "not_equal"), ("paddle2_semantics",))  # (their float rule changed in 2.x)
for _type, _sign in (
    ("less_than", "<"),
    ("less_equal", "<="),
    ("greater_than", ">"),
    ("greater_equal", ">="),
    ("equal", "=="),
    ("not_equal", "!="),
):
    register(
        _type,
        kernel_module="logic",
        inputs=["X", "Y"],
        outputs=["Out"],
        lod="drop",
        attrs={"axis": -1, "force_cpu": False},
        infer=_infer_compare,
        traits=("force_cpu_given",) if _type == "less_than" else _EQUALITY.get(_type, ()),
        structured=_structured(_type),
        doc=f"Out = X {_sign} Y elementwise (bool); Y broadcasts as in elementwise ops."
        + (
            " Floats are equal within 1e-8 (|X - Y|, the difference in their dtype, taken in double: Fluid 1.8's "
            "EqualFunctor, under which infinities are never equal); in a Paddle 2.x program Paddle 2.6's: an infinity "
            "(as a float32) equal only to itself, NaN to nothing."
            if _type in _EQUALITY
            else ""
        ),
    )


def _infer_logical(ctx):
    ctx.set_output("Out", ctx.shape("X"), "bool")


register(
    "logical_not",
    kernel_module="logic",
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_logical,
    structured=_structured("logical_not"),
    doc="Out = not X (bool).",
)
for _type in ("logical_and", "logical_or", "logical_xor"):
    register(
        _type,
        kernel_module="logic",
        inputs=["X", "Y"],
        outputs=["Out"],
        infer=_infer_logical,
        structured=_structured(_type),
        doc=f"Out = X {_type[8:]} Y elementwise (bool).",
    )


_BITWISE_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")


def _infer_bitwise(ctx):
    x = ctx.shape("X")
    if ctx.dtype("X") not in _BITWISE_DTYPES:
        ctx.fail(f"X is {ctx.dtype('X')}; {ctx.op.type} takes {', '.join(_BITWISE_DTYPES)}")
    if ctx.has_input("Y"):
        if ctx.dtype("Y") != ctx.dtype("X"):
            ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
        x = broadcast_shape(x, ctx.shape("Y"), -1)
        if x is None:
            ctx.fail(f"X {fmt_shape(ctx.shape('X'))} and Y {fmt_shape(ctx.shape('Y'))} cannot broadcast")
    ctx.set_output("Out", x, ctx.dtype("X"))


register(
    "bitwise_not",
    kernel_module="logic",
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_bitwise,
    structured=_structured("bitwise_not"),
    doc="Out = ~X elementwise (logical not for bool).",
)
for _type, _sign in (("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^")):
    register(
        _type,
        kernel_module="logic",
        inputs=["X", "Y"],
        outputs=["Out"],
        infer=_infer_bitwise,
        structured=_structured(_type),
        doc=f"Out = X {_sign} Y elementwise, Y broadcast as in numpy.",
    )


def _infer_equal_reduce(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(y) > len(x):
        ctx.fail(f"Y {fmt_shape(y)} has more dims than X {fmt_shape(x)}")
    if broadcast_shape(x, y, ctx.attrs["axis"]) is None:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} cannot broadcast")
    ctx.set_output("Out", [1], "bool")


register(
    "equal_reduce",
    kernel_module="logic",
    inputs=["X", "Y"],
    outputs=["Out"],
    lod="drop",
    attrs={"axis": Attr(-1, lambda v: v >= -1, ">= -1")},
    infer=_infer_equal_reduce,
    structured=_structured("equal_reduce"),
    doc="Out = [True] when X == Y at every element (Y broadcast as in elementwise ops; floats equal within "
    "1e-8), else [False].",
)


def _tolerance(v):
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def _infer_allclose(ctx):
    x, y = ctx.shape("Input"), ctx.shape("Other")
    if len(x) != len(y) or any(a >= 0 and b >= 0 and a != b for a, b in zip(x, y)):
        ctx.fail(f"Input {fmt_shape(x)} and Other {fmt_shape(y)} must have the same shape")
    ctx.set_output("Out", ctx.scalar_shape(), "bool")


register(
    "allclose",
    kernel_module="logic",
    inputs=["Input", "Other", "Rtol?", "Atol?"],
    outputs=["Out"],
    lod="drop",
    attrs={
        "rtol": Attr(1e-5, _tolerance, "a number (Paddle 2.x writes it as a string)"),
        "atol": Attr(1e-8, _tolerance, "a number (Paddle 2.x writes it as a string)"),
        "equal_nan": Attr(False, choices=(False, True)),
    },
    infer=_infer_allclose,
    structured=_structured("allclose"),
    traits=("result_0d_in_paddle2", "paddle2_semantics"),
    attr_tensors={"Rtol": "rtol", "Atol": "atol"},
    doc="Out = [all(|Input - Other| <= atol + rtol * |Other|)] (bool [1]; 0-D in a Paddle 2.x program), computed in "
    "Input's dtype; with equal_nan a NaN equals a NaN at the same place (Fluid 1.8's). In a Paddle 2.x program "
    "Paddle 2.6's rule: an element is close where Input == Other too (infinities of one sign), or within 1e-15 of "
    "the bound; a NaN on either side only with equal_nan, both NaN. Rtol / Atol, one-value tensors, are rtol / atol.",
)


# -- Paddle 2.x's: isclose (elementwise, its tolerances as strings or tensors), isfinite_v2 / isinf_v2 /
# isnan_v2 (elementwise, unlike Fluid's isfinite: one bool of the whole tensor), equal_all (one 0-D bool)


def _infer_isclose(ctx):
    x, y = ctx.shape("Input"), ctx.shape("Other")
    if len(x) != len(y) or any(a >= 0 and b >= 0 and a != b for a, b in zip(x, y)):
        ctx.fail(f"Input {fmt_shape(x)} and Other {fmt_shape(y)} must have the same shape")
    ctx.set_output("Out", x, "bool")


_QUANT = {"with_quant_attr": Attr(False)}
register(
    "isclose",
    kernel_module="logic",
    inputs=["Input", "Other", "Rtol?", "Atol?"],
    outputs=["Out"],
    lod="drop",
    attrs={
        "rtol": Attr("1e-5", _tolerance, "a number (Paddle writes it as a string)"),
        "atol": Attr("1e-8", _tolerance, "a number (Paddle writes it as a string)"),
        "equal_nan": Attr(False, choices=(False, True)),
        **_QUANT,
    },
    infer=_infer_isclose,
    structured=_structured("isclose"),
    attr_tensors={"Rtol": "rtol", "Atol": "atol"},
    doc="Out = |Input - Other| <= atol + rtol * |Other| elementwise (Paddle's rule: equal values, or within "
    "1e-15 of the bound, count too); a NaN is close to a NaN only with equal_nan.",
)


def _infer_elementwise_flag(ctx):
    ctx.set_output("Out", ctx.shape("X"), "bool")


for _type, _doc in (("isfinite_v2", "finite (neither inf nor NaN)"), ("isinf_v2", "+-inf"), ("isnan_v2", "NaN")):
    register(
        _type,
        kernel_module="logic",
        inputs=["X"],
        outputs=["Out"],
        attrs=dict(_QUANT),
        lod="drop",
        infer=_infer_elementwise_flag,
        structured=_structured(_type),
        doc=f"Out = whether each element of X is {_doc} (bool, X's shape).",
    )


def _infer_equal_all(ctx):
    ctx.set_output("Out", [], "bool")


register(
    "equal_all",
    kernel_module="logic",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=dict(_QUANT),
    lod="drop",
    infer=_infer_equal_all,
    structured=_structured("equal_all"),
    doc="Out = whether X and Y have one shape and equal elements (a 0-D bool; shapes that differ: False).",
)
