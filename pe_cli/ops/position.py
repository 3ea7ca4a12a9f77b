"""add_position_encoding (Fluid 1.8): X plus sinusoidal position encodings, over a dense [N, M, P]
batch or the sequences of a [T, P] LoDTensor (kernels in kernels/<device>/position.py)."""

from ..kernels.cpu import position as cpu_position
from ..shapes.position import add_position_encoding_meta
from ..shapes.structured import Structured
from .define import fmt_shape, register


def _infer(ctx):
    x, var = ctx.shape("X"), ctx.input_var("X")
    if var.lod_level > 1 or len(x) not in (2, 3) or (var.lod_level == 1 and len(x) != 2):  # (a 2-D one's LoD:
        ctx.fail(
            f"X {fmt_shape(x)} must be a 3-D [batch, length, size] tensor or a 2-D LoDTensor of level 1"
        )  # run time)
    if x[-1] >= 0 and x[-1] % 2:
        ctx.fail(f"X {fmt_shape(x)}: the encoding size (last dim) must be even")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=var.lod_level)


def _grad(g):
    g.op(
        "scale",
        {"X": g.out_grad("Out")},
        {"Out": g.in_grad("X")},
        {"scale": g.attrs["alpha"], "bias": 0.0, "bias_after_scale": True},
    )


register(
    "add_position_encoding",
    kernel_module="position",
    inputs=["X"],
    outputs=["Out"],
    needs_lod=True,
    attrs={"alpha": 1.0, "beta": 1.0},
    infer=_infer,
    grad=_grad,
    doc="Out = alpha * X + beta * PE, PE[j, k] = sin(j / 10000^(k / (P/2 - 1))) for k < P/2 and "
    "cos(...) of k - P/2 after, j the position in its sequence (the row of a LoD sequence, or the "
    "second dim of a dense batch). The gradient is alpha * Out@GRAD.",
    structured=Structured(meta=add_position_encoding_meta, cpu=cpu_position.ADD_POSITION_ENCODING),
)
