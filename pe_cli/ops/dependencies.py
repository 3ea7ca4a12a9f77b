"""Ops that move no values of their own, which Paddle 2.x's passes, executor and distributed programs write:
depend (Out is X, after the ops writing Dep: an order, no data), share_data and share_buffer (X's data), nop
(nothing; its Out variables, where it names any, are its X's), the copies between places (memcpy,
memcpy_d2h, memcpy_h2d: pe's executor places values itself), npu_identity, and transfer_dtype (a cast). Their
gradients pass Out@GRAD to X."""

from ..base.dtypes import convert_dtype
from ..kernels.cpu import dependencies as cpu_dependencies
from ..kernels.cpu.manipulation import cast_out
from ..shapes import dependencies as metas
from .define import Attr, Structured, dtype_code, is_int, register
from .pointwise_math import QUANT


def _same(ctx):
    for i in range(ctx.num_outputs("Out")):
        var = ctx.input_var("X", i)
        ctx.set_output("Out", var.shape, var.dtype, i=i, lod_level=var.lod_level)


def _grad(name):
    def grad(g):
        g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})

    return grad


register(
    "depend",
    kernel_module="dependencies",
    inputs=["X", "Dep*"],
    outputs=["Out"],
    attrs=dict(QUANT),
    infer=_same,
    grad=_grad("depend"),
    structured=Structured(meta=metas.passed_x_meta, cpu=cpu_dependencies.passed_out),
    no_need_buffer=("Dep",),
    doc="Out = X, once the ops that write Dep have run (an order between ops, no data of Dep's).",
)
register(
    "share_data",
    kernel_module="dependencies",
    inputs=["X"],
    outputs=["Out"],
    attrs=dict(QUANT),
    infer=_same,
    grad=_grad("share_data"),
    structured=Structured(meta=metas.passed_x_meta, cpu=cpu_dependencies.passed_out),
    doc="Out = X (Paddle shares the buffer; pe's kernels never write their inputs).",
)
register(
    "nop",
    kernel_module="dependencies",
    inputs=["X*?"],
    outputs=["Out*?"],
    attrs=dict(QUANT),
    infer=_same,
    structured=Structured(meta=metas.nop_meta, cpu=cpu_dependencies.passed_out),
    doc="Nothing (an anchor for dependencies); Out, where it names variables, is X.",
)


# the copies Paddle's executor and passes put between places (pe's executor places every value itself)
def _grad_identity(g):
    g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})


for _type, _place in (
    ("memcpy", "the place dst_place_type names"),
    ("memcpy_d2h", "the host"),
    ("memcpy_h2d", "the device"),
):
    register(
        _type,
        kernel_module="dependencies",
        kernel="depend",
        inputs=["X"],
        outputs=["Out"],
        infer=_same,
        attrs={"dst_place_type": Attr(0, is_int, "a place code"), **QUANT},
        grad=_grad_identity,
        structured=Structured(meta=metas.passed_x_meta, cpu=cpu_dependencies.passed_out),
        doc=f"Out = X copied to {_place} (pe's executor places values itself: X's values).",
    )
register(
    "npu_identity",
    kernel_module="dependencies",
    kernel="npu_identity",
    inputs=["x"],
    outputs=["out"],
    attrs={"format": Attr(-1, is_int, "an int"), **QUANT},
    infer=lambda ctx: ctx.set_output("out", ctx.shape("x"), ctx.dtype("x")),
    structured=Structured(meta=metas.npu_identity_meta, cpu=cpu_dependencies.passed_out),
    doc="out = x (an NPU storage format Paddle's NPU build applies; none on pe's devices).",
)


def _infer_share_buffer(ctx):
    _same(ctx)
    for i in range(ctx.num_outputs("XOut")):
        var = ctx.input_var("X", i)
        ctx.set_output("XOut", var.shape, var.dtype, i=i)


register(
    "share_buffer",
    kernel_module="dependencies",
    inputs=["X*"],
    outputs=["Out*", "XOut*"],
    infer=_infer_share_buffer,
    structured=Structured(meta=metas.share_buffer_meta, cpu=cpu_dependencies.passed_out),
    attrs={"share_dims_and_dtype": Attr(list, lambda v: isinstance(v, list), "a list of bools"), **QUANT},
    doc="Out[i] = X[i] and XOut[i] = X[i] (Paddle's buffer-sharing pass: the same values).",
)


def _infer_transfer_dtype(ctx):
    ctx.set_output("Out", ctx.shape("X"), convert_dtype(ctx.attrs["out_dtype"]))


register(
    "transfer_dtype",
    kernel_module="dependencies",
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_transfer_dtype,
    structured=Structured(meta=metas.transfer_dtype_meta, cpu=cast_out),
    attrs={
        "out_dtype": Attr(5, dtype_code, "a dtype (VarType code)"),
        "in_dtype": Attr(5, dtype_code, "a dtype"),
        "use_mkldnn": Attr(False),
        **QUANT,
    },
    doc="Out = X cast to out_dtype (what Paddle's executor inserts where a kernel takes another dtype).",
)
