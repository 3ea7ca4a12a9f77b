"""Video ops (kernels in kernels/<device>/video.py): temporal_shift (Fluid 1.8), the temporal shift of
TSM over clips of seg_num frames stacked in the batch dim."""

from ..kernels.cpu import video as cpu_video
from ..shapes import video as rules
from .define import Attr, Structured, fmt_shape, grad_of, grads_like, is_int, register


# -- temporal_shift (Fluid 1.8, the TSM video layer) -----------------------------------------------------


def _infer_temporal_shift(ctx):
    x, t = ctx.shape("X"), ctx.attrs["seg_num"]
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D [N * seg_num, C, H, W]")
    if ctx.is_runtime and x[0] % t:  # (Fluid checks it when it runs)
        ctx.fail(f"X's first dim {x[0]} must be a multiple of seg_num={t}")
    ctx.set_output("Out", x, ctx.dtype("X"))


_TS_ATTRS = {
    "seg_num": Attr(None, lambda v: is_int(v) and v >= 1, "an int >= 1"),
    "shift_ratio": Attr(0.25, lambda v: 0 <= v <= 0.5, "in [0, 0.5]"),
    # Paddle 2.x's: NHWC takes X channels last (transposed around the NCHW kernel, kernels/layout.py)
    "data_format": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout"), fill=False),
}
register(
    "temporal_shift",
    kernel_module="video",
    inputs=["X"],
    outputs=["Out"],
    attrs=_TS_ATTRS,
    run_infer=True,
    infer=_infer_temporal_shift,
    grad=grad_of("temporal_shift_grad", ()),
    lod="drop",
    channels_last=("X", "Out"),
    structured=Structured(meta=rules.temporal_shift_meta, cpu=cpu_video.temporal_shift_out),
    doc="X as [N, seg_num, C, H, W]: channels below c1 = int(C * shift_ratio) take the previous segment's "
    "values, channels below c2 = int(2 C shift_ratio) the next one's (0 past the ends), the rest stay.",
)
register(
    "temporal_shift_grad",
    kernel_module="video",
    inputs=["Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_TS_ATTRS,
    infer=grads_like({"X@GRAD": "Out@GRAD"}),
    channels_last=("Out@GRAD", "X@GRAD"),
    structured=Structured(meta=rules.temporal_shift_grad_meta, cpu=cpu_video.temporal_shift_grad_out),
)
