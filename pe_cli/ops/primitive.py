"""Paddle 2.6's primitive ops (the ``*_p`` of its automatic-differentiation primitives, which a program
Paddle's ``prim`` passes lowered can hold): unary ``Y = f(X)`` (sin_p, cos_p, tanh_p, exp_p, log_p, erf_p,
sqrt_p, rsqrt_p, abs_p) and binary ``Z = X op Y`` of two inputs of one shape (add_p, sub_p, mul_p, div_p,
max_p, pow_p; eq_p, ne_p, gt_p, ge_p give bool), as Paddle 2.6's primitive InferShape requires (no
broadcasting). No gradient op (Paddle differentiates primitives by its own linearize/transpose rules).
Structured kernels: meta rules in shapes/primitive.py, CPU out-kernels (numpy; CUDA runs them on the host) in
kernels/cpu/primitive.py."""

from ..kernels.cpu import primitive as cpu_primitive
from ..shapes import primitive as meta_rules
from .define import Structured, fmt_shape, register

FLOATS = ("float32", "float64")
NUMBERS = ("float32", "float64", "int32", "int64")
UNARY = ("sin_p", "cos_p", "tanh_p", "exp_p", "log_p", "erf_p", "sqrt_p", "rsqrt_p", "abs_p")
ARITHMETIC = {"add_p": NUMBERS, "sub_p": NUMBERS, "mul_p": NUMBERS, "max_p": NUMBERS, "div_p": FLOATS, "pow_p": FLOATS}
COMPARISONS = ("eq_p", "ne_p", "gt_p", "ge_p")


def _infer_unary(ctx):
    ctx.set_output("Y", ctx.shape("X"), ctx.dtype("X"))


def _infer_binary(ctx, out_dtype=None):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) != len(y) or any(a != b and a >= 0 and b >= 0 for a, b in zip(x, y)):
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have one shape (a primitive op does not broadcast)")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X ({ctx.dtype('X')}) and Y ({ctx.dtype('Y')}) must have one dtype")
    ctx.set_output("Z", x, out_dtype or ctx.dtype("X"))


for _name in UNARY:
    register(
        _name,
        kernel_module="primitive",
        inputs=["X"],
        outputs=["Y"],
        infer=_infer_unary,
        run_dtypes={"X": FLOATS},
        structured=Structured(meta=meta_rules.META[_name], cpu=cpu_primitive.OUT[_name]),
        doc=f"Y = {_name[:-2]}(X), elementwise (Paddle 2.6's primitive op).",
    )
for _name, _dtypes in ARITHMETIC.items():
    register(
        _name,
        kernel_module="primitive",
        inputs=["X", "Y"],
        outputs=["Z"],
        infer=_infer_binary,
        run_dtypes={"X": _dtypes, "Y": _dtypes},
        structured=Structured(meta=meta_rules.META[_name], cpu=cpu_primitive.OUT[_name]),
        doc=f"Z = {_name[:-2]}(X, Y), elementwise over X and Y of one shape (Paddle 2.6's primitive op).",
    )
for _name in COMPARISONS:
    register(
        _name,
        kernel_module="primitive",
        inputs=["X", "Y"],
        outputs=["Z"],
        infer=lambda ctx: _infer_binary(ctx, "bool"),
        run_dtypes={"X": NUMBERS, "Y": NUMBERS},
        structured=Structured(meta=meta_rules.META[_name], cpu=cpu_primitive.OUT[_name]),
        doc=f"Z = X {_name[:-2]} Y (bool), elementwise over X and Y of one shape (Paddle 2.6's primitive op).",
    )
