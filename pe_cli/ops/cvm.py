"""cvm (Fluid 1.8's continuous_value_model) for CTR models: each row's first two values are its
show and click counts (kernels in kernels/<device>/cvm.py)."""

from ..kernels.cpu import cvm as cpu_cvm
from ..shapes import cvm as rules
from .define import Structured, fmt_shape, register


def _infer(ctx):
    x, cvm = ctx.shape("X"), ctx.shape("CVM")
    if len(x) != 2 or (x[1] >= 0 and x[1] < 2):
        ctx.fail(f"X {fmt_shape(x)} must be [N, D] with D >= 2 (show, click, then the embedding)")
    if len(cvm) != 2 or cvm[1] not in (2, -1):
        ctx.fail(f"CVM {fmt_shape(cvm)} must be [N, 2] (show, click per instance)")
    width = x[1] if ctx.attrs["use_cvm"] or x[1] < 0 else x[1] - 2
    ctx.set_output("Y", [x[0], width], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad(g):
    g.op(
        "cvm_grad",
        {"X": g.input("X"), "CVM": g.input("CVM"), "Y@GRAD": g.out_grad("Y")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


register(
    "cvm",
    kernel_module="cvm",
    structured=Structured(meta=rules.cvm_meta, cpu=cpu_cvm.CVM),
    inputs=["X", "CVM"],
    outputs=["Y"],
    attrs={"use_cvm": True},
    infer=_infer,
    grad=_grad,
    grad_reads=("CVM", "X"),
    needs_lod=True,
    doc="use_cvm: Y = X with its first two columns replaced by log(show + 1) and log(click + 1) - "
    "log(show + 1); else Y = X without them. X@GRAD is Fluid's: Y@GRAD on the other columns, and "
    "the CVM input (the instance's show and click, per sequence for LoD input) on the first two, "
    "not a derivative.",
)
register(
    "cvm_grad",
    kernel_module="cvm",
    structured=Structured(meta=rules.cvm_grad_meta, cpu=cpu_cvm.CVM_GRAD),
    inputs=["X", "CVM", "Y@GRAD"],
    outputs=["X@GRAD"],
    attrs={"use_cvm": True},
    infer=_infer_grad,
    needs_lod=True,
)
