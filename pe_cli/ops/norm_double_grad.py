"""Gradients of the normalization ops' gradients (kernels/<device>/norm_double_grad.py):
instance_norm_grad_grad and batch_norm_grad_grad, as Fluid's and Paddle's (a gradient penalty, a
double-gradient check). Their grad makers hang on instance_norm_grad and batch_norm_grad
(ops/normalization.py)."""

from ..base.activations import real_number
from ..kernels.cpu import norm_double_grad as cpu_ndg
from ..shapes import norm_double_grad as rules
from .define import Attr, Structured, in_range, register

EPSILON = Attr(1e-5, lambda v: 0.0 <= v <= 1.0, "in [0, 1]")
BN_ATTRS = {
    "momentum": Attr(0.9, real_number, "a number (Fluid checks no range)"),
    "epsilon": Attr(1e-5, in_range(0.0, 1e-3), "in [0, 0.001]"),  # (Fluid's check, in float32)
    "is_test": False,
    "data_layout": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout")),
    "use_global_stats": False,
    "fuse_with_relu": False,
    "trainable_statistics": False,
}


def _grad_of_norm_grad(op_type):
    """A gradient of a normalization's gradient: from what reaches its X@GRAD, Scale@GRAD and
    Bias@GRAD, the gradients of X (through the saved statistics too, in training), Scale and Y@GRAD."""

    def grad(g):
        dd = {
            f"DD{s}": g.out_grad(f"{s}@GRAD")
            for s in ("X", "Scale", "Bias")
            if g.fwd.outputs.get(f"{s}@GRAD") and g.has_out_grad(f"{s}@GRAD")
        }
        outs = {
            "DX": g.in_grad("X"),
            "DScale": g.in_grad("Scale") if g.input("Scale") else None,
            "DDY": g.in_grad("Y@GRAD"),
        }
        if not dd or not any(outs.values()):
            return
        ins = dict(
            dd,
            X=g.input("X"),
            SavedMean=g.input("SavedMean"),
            SavedVariance=g.input("SavedVariance"),
            DY=g.input("Y@GRAD"),
        )
        if g.input("Scale"):
            ins["Scale"] = g.input("Scale")
        g.op(op_type, ins, outs, g.attrs)

    return grad


grad_instance_norm_grad = _grad_of_norm_grad("instance_norm_grad_grad")
grad_batch_norm_grad = _grad_of_norm_grad("batch_norm_grad_grad")


def _infer_norm_grad_grad(ctx):
    x = ctx.input_var("X")
    ctx.set_output("DX", x.shape, x.dtype)
    ctx.set_output("DDY", x.shape, x.dtype)
    ctx.set_output(
        "DScale", ctx.shape("SavedVariance") if ctx.op.type == "batch_norm_grad_grad" else [x.shape[1]], x.dtype
    )


_SLOTS = dict(
    inputs=["X", "Scale?", "SavedMean", "SavedVariance", "DY", "DDX?", "DDScale?", "DDBias?"],
    outputs=["DX?", "DScale?", "DDY?"],
    infer=_infer_norm_grad_grad,
)
register(
    "instance_norm_grad_grad",
    kernel_module="norm_double_grad",
    structured=Structured(meta=rules.instance_norm_grad_grad_meta, cpu=cpu_ndg.INSTANCE_NORM_GRAD_GRAD),
    attrs={"epsilon": EPSILON},
    **_SLOTS,
    doc="The gradient of instance_norm_grad (kernels/cpu/norm_double_grad.py gives the formulas).",
)
register(
    "batch_norm_grad_grad",
    kernel_module="norm_double_grad",
    structured=Structured(meta=rules.batch_norm_grad_grad_meta, cpu=cpu_ndg.BATCH_NORM_GRAD_GRAD),
    attrs=BN_ATTRS,
    **_SLOTS,
    doc="The gradient of batch_norm_grad: instance_norm_grad_grad's formulas over each channel's "
    "values in training, those of a per-channel affine map with is_test or use_global_stats.",
)
